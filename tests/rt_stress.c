/* rt_stress.c -- the registry under concurrency: writer threads remove
 * JIT modules and, once pclnrt_module_reusable says so, rewrite the same
 * module and blob storage at another address and register it again,
 * while reader threads and a signal handler (SIGALRM every 100 us, on
 * whichever thread it lands) look up pcs and check every answer.
 *
 * Uses only the runtime (no libpcln), so that scripts/tsan.sh can build
 * it with the runtime's sources under ThreadSanitizer.  A reader that
 * ever saw a function that does not hold its pc, a name that does not
 * match the function's address, a wrong stack-pointer delta or line, or
 * a fixed module missing, saw a torn or reused module: exit 1.
 *
 * Usage: rt_stress [ITERATIONS]   (re-registrations per writer; default
 * 2000, about a second)
 */
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <time.h>

#include "pclnrt.h"

#define NFIXED		64	/* always registered */
#define NCHURN		16	/* removed and re-added */
#define NWRITER		2
#define NREADER		2
#define FSIZE		0x40
#define FIXBASE		0x7f3000000000ull
#define CHURNA		0x7f3000100000ull	/* a churning module's two */
#define CHURNB		0x7f3000200000ull	/* addresses */
#define BLOBMAX		256

struct jmod {
	pclnrt_module m;
	uint8_t blob[BLOBMAX];
	char name[24];
};

static struct jmod fixed[NFIXED], churn[NCHURN];
static pclnrt_registry reg;
static unsigned char *regmem;
static atomic_int stop, failed, started;
static atomic_long lookups, hits, sighits, siglookups, waits;
static _Thread_local pclnrt_reader *my_reader;

static const pclnrt_jitrow sp_rows[] = { { 0, 0 }, { 1, 8 },
	{ FSIZE - 1, 0 } };
static const pclnrt_jitrow ln_rows[] = { { 0, 100 }, { 0x20, 101 } };

/* "f" and the entry in hex: a reader checks it without libc. */
static void
hexname(char *out, uint64_t v)
{
	static const char hx[] = "0123456789abcdef";
	int k;

	out[0] = 'f';
	for (k = 0; k < 16; k++)
		out[1 + k] = hx[(v >> (4 * (15 - k))) & 15];
	out[17] = 0;
}

static int
name_is(const char *s, uint64_t v)
{
	char want[24];
	int k;

	if (s == NULL)
		return 0;
	hexname(want, v);
	for (k = 0; k < 18; k++)
		if (s[k] != want[k])
			return 0;
	return 1;
}

static void
build(struct jmod *j, uint64_t entry)
{
	pclnrt_jitfunc f;

	memset(&f, 0, sizeof f);
	hexname(j->name, entry);
	f.entry = entry;
	f.size = FSIZE;
	f.name = j->name;
	f.pcsp.row = sp_rows;
	f.pcsp.nrow = 3;
	f.file = "stress.jit";
	f.line.row = ln_rows;
	f.line.nrow = 2;
	if (pclnrt_jit_module(&j->m, j->blob, sizeof j->blob, &f, NULL) !=
	    PCLNRT_OK) {
		fprintf(stderr, "rt_stress: cannot encode a function\n");
		exit(2);
	}
}

/* Look up PC; MUST: it lies in a fixed module.  Returns 1 if found,
 * 0 if not, -1 on a wrong answer.  Async-signal-safe. */
static int
check(uint64_t pc, int must)
{
	const pclnrt_module *m;
	const char *path;
	pclnrt_func f;
	int32_t sp, line;
	uint64_t off;

	if (pclnrt_registry_findfunc(&reg, pc, &m, &f) != PCLNRT_OK)
		return must ? -1 : 0;
	off = pc - f.entry;
	if (pc < m->lo || pc >= m->hi || f.entry != m->lo ||
	    f.end != f.entry + FSIZE || off >= FSIZE || !name_is(f.name,
	    f.entry))
		return -1;
	if (pclnrt_pcsp(&f, pc, &sp) != PCLNRT_OK ||
	    sp != (off >= 1 && off < FSIZE - 1 ? 8 : 0))
		return -1;
	if (pclnrt_funcline(&f, pc, &path, &line) != PCLNRT_OK ||
	    line != (off < 0x20 ? 100 : 101) || path == NULL ||
	    path[0] != 's')
		return -1;
	return 1;
}

static uint64_t
rnd(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

/* A pc in a fixed function, or where a churning one may be. */
static uint64_t
pick(uint64_t r, int *must)
{
	uint64_t off = (r >> 8) % FSIZE, k = (r >> 20) % 3;

	*must = k == 0;
	if (k == 0)
		return FIXBASE + (r % NFIXED) * FSIZE + off;
	return (k == 1 ? CHURNA : CHURNB) + (r % NCHURN) * FSIZE + off;
}

static void
on_alarm(int sig)
{
	static _Thread_local uint64_t s = 88172645463325252ull;
	pclnrt_reader *rd = my_reader;
	int claimed = 0, must, k, rc;

	(void)sig;
	if (rd == NULL) {	/* a writer thread: a record of its own */
		if ((rd = pclnrt_reader_claim(&reg)) == NULL)
			return;
		claimed = 1;
	}
	pclnrt_read_enter(&reg, rd);
	for (k = 0; k < 4; k++) {
		uint64_t pc = pick(rnd(&s), &must);

		rc = check(pc, must);
		if (rc < 0)
			atomic_store(&failed, 1);
		else if (rc > 0)
			atomic_fetch_add_explicit(&sighits, 1,
			    memory_order_relaxed);
		atomic_fetch_add_explicit(&siglookups, 1,
		    memory_order_relaxed);
	}
	pclnrt_read_exit(&reg, rd);
	if (claimed)
		pclnrt_reader_release(&reg, rd);
}

static void *
reader(void *arg)
{
	uint64_t s = (uint64_t)(uintptr_t)arg * 0x9e3779b97f4a7c15ull + 1;
	long n = 0, h = 0;
	int must, k, rc;

	if ((my_reader = pclnrt_reader_claim(&reg)) == NULL) {
		atomic_store(&failed, 1);
		atomic_fetch_add(&started, 1);
		return NULL;
	}
	atomic_fetch_add(&started, 1);
	/* Until told to stop, and at least until this reader has found a
	 * function: a reader the scheduler started late still checks. */
	while ((!atomic_load(&stop) || h == 0) && !atomic_load(&failed)) {
		pclnrt_read_enter(&reg, my_reader);
		for (k = 0; k < 16; k++) {
			uint64_t pc = pick(rnd(&s), &must);

			rc = check(pc, must);
			if (rc < 0) {
				fprintf(stderr, "rt_stress: wrong answer at "
				    "pc %#llx\n", (unsigned long long)pc);
				atomic_store(&failed, 1);
			}
			h += rc > 0;
			n++;
		}
		pclnrt_read_exit(&reg, my_reader);
	}
	atomic_fetch_add(&lookups, n);
	atomic_fetch_add(&hits, h);
	pclnrt_reader_release(&reg, my_reader);
	my_reader = NULL;
	return NULL;
}

struct wargs {
	int first;
	long iter;
};

/* Each writer owns every NWRITER-th churning module.  Round robin: a
 * registered module is removed; a removed one, once reusable, is
 * rewritten at its other address and registered again; one not yet
 * reusable waits for a later round (as a JIT's free list would). */
static void *
writer(void *arg)
{
	struct wargs *wa = arg;
	struct jmod *j;
	uint64_t at;
	long done = 0, w = 0, i;
	int k, rc;

	for (i = 0; done < wa->iter && !atomic_load(&failed); i++) {
		k = wa->first + (int)(i % (NCHURN / NWRITER)) * NWRITER;
		j = &churn[k];
		if (j->m.id != 0) {	/* registered (the writer's own view) */
			if (pclnrt_unregister(&reg, &j->m) != PCLNRT_OK) {
				atomic_store(&failed, 1);
				break;
			}
			continue;
		}
		if (!pclnrt_module_reusable(&reg, &j->m)) {
			if (++w % 64 == 0)
				sched_yield();
			continue;
		}
		at = (j->m.lo >= CHURNB ? CHURNA : CHURNB) + (uint64_t)k * FSIZE;
		build(j, at);
		if ((rc = pclnrt_register(&reg, &j->m)) != PCLNRT_OK) {
			fprintf(stderr, "rt_stress: module %d found reusable, "
			    "cannot register it again at %#llx: error %d\n", k,
			    (unsigned long long)at, rc);
			atomic_store(&failed, 1);
			break;
		}
		done++;
	}
	atomic_fetch_add(&waits, w);
	return NULL;
}

int
main(int argc, char **argv)
{
	size_t memsize = PCLNRT_REGISTRY_SIZE(NFIXED + NCHURN, 256,
	    NREADER + NWRITER + 2);
	pthread_t rt[NREADER], wt[NWRITER];
	struct wargs wa[NWRITER];
	struct sigaction sa;
	struct itimerval it;
	pclnrt_registry_stats st;
	long iter = argc > 1 ? atol(argv[1]) : 2000;
	size_t nreg = NFIXED;
	int i;

	if (iter <= 0)
		iter = 2000;
	regmem = malloc(memsize);
	if (regmem == NULL || pclnrt_registry_init(&reg, regmem, memsize,
	    NFIXED + NCHURN, NREADER + NWRITER + 2) != PCLNRT_OK) {
		fprintf(stderr, "rt_stress: no registry\n");
		return 2;
	}
	for (i = 0; i < NFIXED; i++) {
		build(&fixed[i], FIXBASE + (uint64_t)i * FSIZE);
		if (pclnrt_register(&reg, &fixed[i].m) != PCLNRT_OK)
			return 2;
	}
	for (i = 0; i < NCHURN; i++) {
		build(&churn[i], CHURNA + (uint64_t)i * FSIZE);
		if (pclnrt_register(&reg, &churn[i].m) != PCLNRT_OK)
			return 2;
	}
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_alarm;
	sa.sa_flags = SA_RESTART;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGALRM, &sa, NULL);
	memset(&it, 0, sizeof it);
	it.it_interval.tv_usec = it.it_value.tv_usec = 100;
	setitimer(ITIMER_REAL, &it, NULL);
	for (i = 0; i < NREADER; i++)
		pthread_create(&rt[i], NULL, reader, (void *)(uintptr_t)(i + 1));
	/* The writers start once every reader is looking up: on a loaded
	 * machine the readers may otherwise first run after the writers are
	 * done, and nothing would have been checked concurrently. */
	while (atomic_load(&started) < NREADER)
		sched_yield();
	for (i = 0; i < NWRITER; i++) {
		wa[i].first = i;
		wa[i].iter = iter;
		pthread_create(&wt[i], NULL, writer, &wa[i]);
	}
	for (i = 0; i < NWRITER; i++)
		pthread_join(wt[i], NULL);
	/* At least one lookup in a signal handler (the timer fires every
	 * 100 us; 10 s without one is a failure, not a hang). */
	for (i = 0; i < 10000 && atomic_load(&siglookups) == 0; i++) {
		struct timespec ts = { 0, 1000000 };

		nanosleep(&ts, NULL);
	}
	atomic_store(&stop, 1);
	for (i = 0; i < NREADER; i++)
		pthread_join(rt[i], NULL);
	memset(&it, 0, sizeof it);
	setitimer(ITIMER_REAL, &it, NULL);
	pclnrt_registry_stats_get(&reg, &st);
	for (i = 0; i < NCHURN; i++)
		nreg += churn[i].m.id != 0;
	printf("rt_stress: %d writers x %ld re-registrations (%ld polls), "
	    "%ld lookups by %d readers (%ld found), %ld in signal handlers "
	    "(%ld found); %zu modules, %zu nodes, %zu retired\n", NWRITER,
	    iter, atomic_load(&waits), atomic_load(&lookups), NREADER,
	    atomic_load(&hits), atomic_load(&siglookups),
	    atomic_load(&sighits), st.modules, st.nodes, st.retired);
	if (atomic_load(&failed)) {
		fprintf(stderr, "rt_stress: FAILED: a wrong answer\n");
		return 1;
	}
	if (st.modules != nreg) {
		fprintf(stderr, "rt_stress: FAILED: %zu modules registered, "
		    "the writers left %zu\n", st.modules, nreg);
		return 1;
	}
	if (atomic_load(&hits) == 0 || atomic_load(&siglookups) == 0) {
		fprintf(stderr, "rt_stress: FAILED: no %s\n",
		    atomic_load(&hits) == 0 ? "function found by a reader" :
		    "lookup in a signal handler in 10 s");
		return 1;
	}
	free(regmem);
	return 0;
}
