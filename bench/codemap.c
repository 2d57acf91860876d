/* codemap.c -- the code map (the runtime's registry) against the linear
 * registry it replaced, and the cost of JIT functions.  Prints "name
 * value" lines (bench/run.sh collects them; doc/PERFORMANCE.md explains
 * them):
 *
 *   pc -> module at N = 1, 10^3, 10^5, 10^6 modules, random and
 *   sequential pcs: codemap_ns_{rand,seq}_N, and the same lookups by a
 *   linear scan of a slot array, exactly what pclnrt_registry_findfunc
 *   did before the code map (an atomic load and a range test per slot,
 *   first match wins): linear_ns_{rand,seq}_N;
 *   add and remove: codemap_add_ns_N, codemap_remove_ns_N;
 *   memory: codemap_bytes_per_module_N (nodes, module pointer and
 *   metadata; the module structs are the caller's), codemap_nodes_N;
 *   JIT functions: jit_encode_ns (pclnrt_jit_module), jit_blob_bytes,
 *   jit_module_bytes, jit_findfunc_ns (pc -> function through the code
 *   map at 10^6 JIT functions), jit_pcsp_ns, jit_funcline_ns;
 *   concurrency, at 1000 modules, each lookup in a reader bracket, the
 *   readers' CPU time a lookup: conc_reader_ns_alone (one reader),
 *   conc_reader_ns_two (two), conc_reader_ns_busy (two, while a writer
 *   removes and adds modules and a SIGALRM handler looks up every
 *   100 us), conc_writer_ops (the writer's removals + additions per
 *   second then), conc_signal_lookups; and conc_reader_ns_two_shared_
 *   counter: two readers bracketing with one shared counter, the scheme
 *   the code map replaced.
 *
 * The modules model a JIT code heap: functions of 32..512 bytes (mean
 * ~270), each at the next multiple of 16.  Every figure is the median
 * of NPASS passes.
 *
 * Usage: pcln-bench-codemap [MAXN]   (default 1000000)
 *        pcln-bench-codemap ir N NPCS   (for callgrind: run.sh counts
 *        the instructions of lookup_loop per lookup)
 *        pcln-bench-codemap irjit N NPCS WHAT   (likewise jit_encode_all
 *        per function and jit_loop per lookup)
 */
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>

#include "pclnrt.h"
#include "bench.h"

#define HEAPBASE	0x7f2000000000ull

static uint64_t rs = 88172645463325252ull;

static uint64_t
rnd(void)
{
	rs ^= rs << 13;
	rs ^= rs >> 7;
	rs ^= rs << 17;
	return rs;
}

static volatile uint64_t sink;

/* The layout of N functions: module I covers [lo[I], hi[I]). */
struct heap {
	size_t n;
	pclnrt_module *m;
	uint64_t span;
};

static void
make_heap(struct heap *h, size_t n)
{
	uint64_t at = HEAPBASE;
	size_t i;

	h->n = n;
	h->m = calloc(n, sizeof *h->m);
	if (h->m == NULL) {
		perror("calloc");
		exit(1);
	}
	for (i = 0; i < n; i++) {
		uint64_t size = 32 + rnd() % 481;

		h->m[i].lo = at;
		h->m[i].hi = at + size;
		at = (at + size + 15) & ~(uint64_t)15;
	}
	h->span = at - HEAPBASE;
}

/* --- the linear registry, as it was ------------------------------------- */

struct linear {
	_Atomic(pclnrt_module *) *slots;
	size_t nslots;
};

static const pclnrt_module *
linear_find(struct linear *l, uint64_t pc)
{
	size_t i;

	for (i = 0; i < l->nslots; i++) {
		const pclnrt_module *m = atomic_load(&l->slots[i]);

		if (m == NULL || pc < m->lo || pc >= m->hi)
			continue;
		return m;
	}
	return NULL;
}

/* --- the code map -------------------------------------------------------- */

static size_t
nodes_for(const struct heap *h)
{
	/* One last-level node per 4 KiB page, one above per MiB, slack. */
	return h->span / 4096 + h->span / (1 << 20) + 64;
}

static void
map_init(pclnrt_registry *r, unsigned char **mem, size_t *memsize,
    size_t nmod, size_t nnode, size_t nreader)
{
	*memsize = PCLNRT_REGISTRY_SIZE(nmod, nnode, nreader);
	/* Touched before use: page faults are not the map's cost. */
	if ((*mem = malloc(*memsize)) == NULL ||
	    memset(*mem, 0, *memsize) == NULL ||
	    pclnrt_registry_init(r, *mem, *memsize, nmod, nreader) != 0) {
		fprintf(stderr, "codemap: no registry\n");
		exit(1);
	}
}

static double
median(double *v, int n)
{
	qsort(v, (size_t)n, sizeof *v, cmpd);
	return v[n / 2];
}

/* NPCS pcs: random in the heap, or in increasing order over all of it
 * (a sweep, as a profiler's sorted samples or a sequential scan). */
static uint64_t *
make_pcs(const struct heap *h, size_t npcs, int seq)
{
	uint64_t *pcs = malloc(npcs * sizeof *pcs);
	size_t i;

	for (i = 0; i < npcs; i++)
		pcs[i] = HEAPBASE + (seq ? (uint64_t)((double)h->span *
		    (double)i / (double)npcs) : rnd() % h->span);
	return pcs;
}

/* The timed loop (and, with callgrind --toggle-collect, the counted
 * one). */
__attribute__((noinline)) static uint64_t
lookup_loop(const pclnrt_registry *r, const uint64_t *pcs, size_t npcs)
{
	uint64_t s = 0;
	size_t k;

	for (k = 0; k < npcs; k++) {
		const pclnrt_module *m;

		if (pclnrt_registry_find(r, pcs[k], &m) == 0)
			s += m->lo;
	}
	return s;
}

static void
lookups(size_t n)
{
	struct heap h;
	pclnrt_registry r;
	struct linear l;
	pclnrt_registry_stats st;
	unsigned char *mem;
	size_t memsize, i, k, npcs, nlin;
	double t[NPASS], t0;
	int seq, p;

	make_heap(&h, n);
	map_init(&r, &mem, &memsize, n, nodes_for(&h), 1);
	t0 = now();
	for (i = 0; i < n; i++)
		if (pclnrt_register(&r, &h.m[i]) != PCLNRT_OK) {
			fprintf(stderr, "codemap: cannot register %zu\n", i);
			exit(1);
		}
	printf("codemap_add_ns_%zu %.1f\n", n, (now() - t0) / (double)n);
	pclnrt_registry_stats_get(&r, &st);
	printf("codemap_nodes_%zu %zu\n", n, st.nodes);
	printf("codemap_bytes_per_module_%zu %.1f\n", n, (double)(st.nodes *
	    (sizeof(pclnrt_cmnode) + sizeof(struct pclnrt_cmmeta)) +
	    n * (sizeof(void *) + sizeof(struct pclnrt_cmmeta))) / (double)n);
	l.nslots = n;
	l.slots = malloc(n * sizeof *l.slots);
	for (i = 0; i < n; i++)
		atomic_init(&l.slots[i], &h.m[i]);
	npcs = 1000000;
	/* The linear scan costs ~n/2 slots a lookup: fewer pcs. */
	nlin = n <= 1000 ? npcs : n <= 100000 ? 1000 : 100;
	for (seq = 0; seq < 2; seq++) {
		uint64_t *pcs = make_pcs(&h, npcs, seq);
		const char *kind = seq ? "seq" : "rand";

		for (p = 0; p < NPASS; p++) {
			t0 = now();
			sink += lookup_loop(&r, pcs, npcs);
			t[p] = (now() - t0) / (double)npcs;
		}
		printf("codemap_ns_%s_%zu %.1f\n", kind, n, median(t, NPASS));
		free(pcs);
		pcs = make_pcs(&h, nlin, seq);
		for (p = 0; p < NPASS; p++) {
			uint64_t s = 0;

			t0 = now();
			for (k = 0; k < nlin; k++) {
				const pclnrt_module *m = linear_find(&l, pcs[k]);
				if (m != NULL)
					s += m->lo;
			}
			t[p] = (now() - t0) / (double)nlin;
			sink += s;
		}
		printf("linear_ns_%s_%zu %.1f\n", kind, n, median(t, NPASS));
		free(pcs);
	}
	t0 = now();
	for (i = 0; i < n; i++)
		(void)pclnrt_unregister(&r, &h.m[i]);
	printf("codemap_remove_ns_%zu %.1f\n", n, (now() - t0) / (double)n);
	free(l.slots);
	free(mem);
	free(h.m);
}

/* --- JIT functions -------------------------------------------------------- */

struct jitfn {
	pclnrt_module m;
	uint8_t *blob;		/* in one arena */
	char name[24];
};

struct jitset {
	struct heap h;
	struct jitfn *f;
	uint8_t *arena;
	size_t bytes;		/* of all blobs */
};

static const pclnrt_jitrow jit_ln[] = { { 0, 10 }, { 9, 11 }, { 20, 12 },
	{ 26, 14 }, { 30, 15 } };

static void
jit_prepare(struct jitset *js, size_t n)
{
	size_t i;

	make_heap(&js->h, n);
	js->f = calloc(n, sizeof *js->f);
	js->arena = calloc(n, 256);
	if (js->f == NULL || js->arena == NULL) {
		perror("calloc");
		exit(1);
	}
	memset(js->arena, 0, n * 256);
	for (i = 0; i < n; i++)
		snprintf(js->f[i].name, sizeof js->f[i].name, "jit.fn%u",
		    (unsigned)i);
}

/* Describe every function: what a JIT does per method (the timed and
 * counted part). */
__attribute__((noinline)) static void
jit_encode_all(struct jitset *js)
{
	pclnrt_jitrow sp[5] = { { 0, 0 }, { 1, 8 }, { 4, 56 }, { 0, 8 },
		{ 0, 0 } };
	uint8_t *at = js->arena;
	size_t i, len;

	js->bytes = 0;
	for (i = 0; i < js->h.n; i++) {
		pclnrt_jitfunc d;
		uint32_t size = (uint32_t)(js->h.m[i].hi - js->h.m[i].lo);

		sp[3].off = size - 2;
		sp[4].off = size - 1;
		d.entry = js->h.m[i].lo;
		d.size = size;
		d.name = js->f[i].name;
		d.args = d.frame = 0;
		d.pcsp.row = sp;
		d.pcsp.nrow = 5;
		d.file = "jit.src";
		d.line.row = jit_ln;
		d.line.nrow = 5;
		d.pcdata = NULL;
		d.npcdata = 0;
		js->f[i].blob = at;
		if (pclnrt_jit_module(&js->f[i].m, at, 256, &d, &len) !=
		    PCLNRT_OK) {
			fprintf(stderr, "codemap: cannot encode\n");
			exit(1);
		}
		at += (len + 7) & ~(size_t)7;
		js->bytes += len;
	}
}

/* WHAT 0: pc -> function through the code map; 1: and pcsp; 2: and
 * funcline. */
__attribute__((noinline)) static uint64_t
jit_loop(const pclnrt_registry *r, const uint64_t *pcs, size_t npcs,
    int what)
{
	uint64_t s = 0;
	size_t k;

	for (k = 0; k < npcs; k++) {
		const pclnrt_module *m;
		const char *file;
		pclnrt_func fn;
		int32_t v = 0;

		if (pclnrt_registry_findfunc(r, pcs[k], &m, &fn) != 0)
			continue;
		if (what == 1)
			(void)pclnrt_pcsp(&fn, pcs[k], &v);
		else if (what == 2)
			(void)pclnrt_funcline(&fn, pcs[k], &file, &v);
		s += fn.entry + (uint64_t)v;
	}
	return s;
}

static void
jit_register_all(pclnrt_registry *r, struct jitset *js)
{
	size_t i;

	for (i = 0; i < js->h.n; i++)
		if (pclnrt_register(r, &js->f[i].m) != PCLNRT_OK) {
			fprintf(stderr, "codemap: cannot register\n");
			exit(1);
		}
}

static void
jit(size_t n)
{
	static const char *const name[3] = { "findfunc", "pcsp", "funcline" };
	struct jitset js;
	pclnrt_registry r;
	pclnrt_registry_stats st;
	unsigned char *mem;
	size_t memsize, npcs = 1000000;
	double t[NPASS], t0;
	uint64_t *pcs;
	int p, what;

	jit_prepare(&js, n);
	map_init(&r, &mem, &memsize, n, nodes_for(&js.h), 1);
	t0 = now();
	jit_encode_all(&js);
	printf("jit_encode_ns %.1f\n", (now() - t0) / (double)n);
	printf("jit_blob_bytes %.1f\n", (double)js.bytes / (double)n);
	printf("jit_module_bytes %zu\n", sizeof(pclnrt_module));
	t0 = now();
	jit_register_all(&r, &js);
	printf("jit_register_ns %.1f\n", (now() - t0) / (double)n);
	pclnrt_registry_stats_get(&r, &st);
	printf("jit_map_bytes %.1f\n", (double)(st.nodes *
	    (sizeof(pclnrt_cmnode) + sizeof(struct pclnrt_cmmeta)) +
	    n * (sizeof(void *) + sizeof(struct pclnrt_cmmeta))) / (double)n);
	pcs = make_pcs(&js.h, npcs, 0);
	for (what = 0; what < 3; what++) {
		for (p = 0; p < NPASS; p++) {
			t0 = now();
			sink += jit_loop(&r, pcs, npcs, what);
			t[p] = (now() - t0) / (double)npcs;
		}
		printf("jit_%s_ns %.1f\n", name[what], median(t, NPASS));
	}
	free(pcs);
	free(mem);
	free(js.h.m);
	free(js.f);
	free(js.arena);
}

/* "irjit N NPCS WHAT": N JIT functions described and registered, then
 * NPCS lookups (jit_loop WHAT), for callgrind's counts of jit_encode_all
 * and jit_loop. */
static void
irjit(size_t n, size_t npcs, int what)
{
	struct jitset js;
	pclnrt_registry r;
	unsigned char *mem;
	size_t memsize;
	uint64_t *pcs;

	jit_prepare(&js, n);
	map_init(&r, &mem, &memsize, n, nodes_for(&js.h), 1);
	jit_encode_all(&js);
	jit_register_all(&r, &js);
	pcs = make_pcs(&js.h, npcs, 0);
	sink += jit_loop(&r, pcs, npcs, what);
}

/* --- readers while a writer works ----------------------------------------- */

static pclnrt_registry creg;
static struct heap cheap;
static atomic_int cstop, cstart;
static atomic_long sig_lookups;

struct rarg {
	double ns;
	uint64_t seed;
	int shared;		/* bracket with one shared counter instead */
};

/* The bracket the code map replaced: one counter all readers write. */
static atomic_size_t shared_readers;

static double
thread_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

static void *
reader(void *arg)
{
	struct rarg *a = arg;
	pclnrt_reader *rd = pclnrt_reader_claim(&creg);
	uint64_t s = a->seed, sum = 0;
	long n = 0;
	double t0;

	while (!atomic_load(&cstart))
		;
	t0 = thread_ns();
	while (!atomic_load_explicit(&cstop, memory_order_relaxed)) {
		int k;

		for (k = 0; k < 256; k++) {
			const pclnrt_module *m;
			uint64_t pc;

			s ^= s << 13;
			s ^= s >> 7;
			s ^= s << 17;
			pc = HEAPBASE + s % cheap.span;
			/* One bracket a lookup: the worst case. */
			if (a->shared)
				atomic_fetch_add(&shared_readers, 1);
			else
				pclnrt_read_enter(&creg, rd);
			if (pclnrt_registry_find(&creg, pc, &m) == 0)
				sum += m->lo;
			if (a->shared)
				atomic_fetch_sub(&shared_readers, 1);
			else
				pclnrt_read_exit(&creg, rd);
		}
		n += 256;
	}
	/* CPU time: a reader the scheduler sets aside does not count. */
	a->ns = (thread_ns() - t0) / (double)n;
	sink += sum;
	pclnrt_reader_release(&creg, rd);
	return NULL;
}

static void
on_alarm(int sig)
{
	static _Thread_local uint64_t s = 12345;
	pclnrt_reader *rd = pclnrt_reader_claim(&creg);
	const pclnrt_module *m;
	int k;

	(void)sig;
	if (rd == NULL)
		return;
	pclnrt_read_enter(&creg, rd);
	for (k = 0; k < 16; k++) {
		s ^= s << 13;
		s ^= s >> 7;
		s ^= s << 17;
		if (pclnrt_registry_find(&creg, HEAPBASE + s % cheap.span,
		    &m) == 0)
			sink += m->lo;
	}
	pclnrt_read_exit(&creg, rd);
	pclnrt_reader_release(&creg, rd);
	atomic_fetch_add_explicit(&sig_lookups, 16, memory_order_relaxed);
}

/* NREADER readers for SECONDS, with a writer and the handler (BUSY) or
 * alone; the readers' mean ns a lookup, the writer's ops per second. */
static void
concurrent(size_t n, int nreader, int busy, int shared, double seconds,
    double *ns, double *ops)
{
	pthread_t th[2];
	struct rarg ra[2];
	struct itimerval it;
	struct sigaction sa;
	unsigned char *mem;
	size_t memsize, i;
	pclnrt_module *m;
	long w = 0;
	double t0;
	int k;

	make_heap(&cheap, n);
	map_init(&creg, &mem, &memsize, n, nodes_for(&cheap) * 2, 8);
	for (i = 0; i < n; i++)
		(void)pclnrt_register(&creg, &cheap.m[i]);
	atomic_store(&cstop, 0);
	atomic_store(&cstart, 0);
	for (k = 0; k < nreader; k++) {
		ra[k].seed = 1000003u * (uint64_t)(k + 1);
		ra[k].shared = shared;
		pthread_create(&th[k], NULL, reader, &ra[k]);
	}
	if (busy) {
		memset(&sa, 0, sizeof sa);
		sa.sa_handler = on_alarm;
		sa.sa_flags = SA_RESTART;
		sigemptyset(&sa.sa_mask);
		sigaction(SIGALRM, &sa, NULL);
		memset(&it, 0, sizeof it);
		it.it_interval.tv_usec = it.it_value.tv_usec = 100;
		setitimer(ITIMER_REAL, &it, NULL);
	}
	atomic_store(&cstart, 1);
	t0 = now();
	while (now() - t0 < seconds * 1e9) {
		if (!busy) {
			struct timespec ts = { 0, 1000000 };
			nanosleep(&ts, NULL);
			continue;
		}
		/* Remove a module and add it back as soon as no reader can
		 * hold it, round robin over the first 4096. */
		m = &cheap.m[w % 4096 % n];

		if (m->id != 0)
			(void)pclnrt_unregister(&creg, m);
		else if (pclnrt_module_reusable(&creg, m))
			(void)pclnrt_register(&creg, m);
		w++;
	}
	*ops = (double)w / seconds;
	atomic_store(&cstop, 1);
	for (k = 0; k < nreader; k++)
		pthread_join(th[k], NULL);
	if (busy) {
		memset(&it, 0, sizeof it);
		setitimer(ITIMER_REAL, &it, NULL);
	}
	*ns = 0;
	for (k = 0; k < nreader; k++)
		*ns += ra[k].ns / nreader;
	free(mem);
	free(cheap.m);
}

/* "ir N NPCS": NPCS random lookups among N modules, for callgrind's
 * instruction count of lookup_loop. */
static void
ir(size_t n, size_t npcs)
{
	struct heap h;
	pclnrt_registry r;
	unsigned char *mem;
	size_t memsize, i;
	uint64_t *pcs;

	make_heap(&h, n);
	map_init(&r, &mem, &memsize, n, nodes_for(&h), 1);
	for (i = 0; i < n; i++)
		(void)pclnrt_register(&r, &h.m[i]);
	pcs = make_pcs(&h, npcs, 0);
	sink += lookup_loop(&r, pcs, npcs);
}

int
main(int argc, char **argv)
{
	size_t maxn = argc > 1 ? strtoul(argv[1], NULL, 10) : 1000000, n;
	double ns, ops;

	if (argc == 4 && strcmp(argv[1], "ir") == 0) {
		ir(strtoul(argv[2], NULL, 10), strtoul(argv[3], NULL, 10));
		return 0;
	}
	if (argc == 5 && strcmp(argv[1], "irjit") == 0) {
		irjit(strtoul(argv[2], NULL, 10), strtoul(argv[3], NULL, 10),
		    atoi(argv[4]));
		return 0;
	}
	for (n = 1; n <= maxn; n *= n == 1 ? 1000 : n == 1000 ? 100 : 10)
		lookups(n);
	jit(maxn);
	/* 1000 modules: the lookups stay in cache, so what shows is the
	 * readers' and writer's effect on each other. */
	concurrent(1000, 1, 0, 0, 1.0, &ns, &ops);
	printf("conc_reader_ns_alone %.1f\n", ns);
	concurrent(1000, 2, 0, 0, 1.0, &ns, &ops);
	printf("conc_reader_ns_two %.1f\n", ns);
	concurrent(1000, 2, 1, 0, 1.0, &ns, &ops);
	printf("conc_reader_ns_busy %.1f\n", ns);
	printf("conc_writer_ops %.0f\n", ops);
	printf("conc_signal_lookups %ld\n", atomic_load(&sig_lookups));
	concurrent(1000, 2, 0, 1, 1.0, &ns, &ops);
	printf("conc_reader_ns_two_shared_counter %.1f\n", ns);
	return 0;
}
