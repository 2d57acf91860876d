/* check_bpf.c -- load the runtime's lookups as a BPF program
 * (pclnrt.bpf.o) with libbpf, have the running kernel's verifier accept
 * it, and run it with BPF_PROG_TEST_RUN on every pc of the given blobs,
 * comparing each answer (code map module, function, pcsp, file and line,
 * with their statuses) with the C runtime's.
 *
 * Usage: check_bpf PCLNRT.BPF.O [--jit N] BLOB[@BIAS]...
 *   Every blob becomes a module at BIAS (hex; default: one after the
 *   other from 0x400000); --jit adds N JIT functions
 *   (pclnrt_jit_module) in a code heap.  The pcs: every pc from 16 bytes
 *   before each module to 16 after it.
 * Prints the kernel, the verifier's figures and the program's size, the
 * pcs compared and the mismatches; exits 0 if there are none, 1 if
 * there are (or on an error), 77 if the kernel refuses to load BPF at
 * all (a trivial program is tried first).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <linux/bpf.h>

#include "pclnrt.h"
#include "pcln_bpf.h"

#define MAXMOD		4096
#define JITHEAP		0x7f5500000000ull

struct mod {
	pclnrt_module m;
	uint8_t *blob;
	size_t len;
	uint64_t base;		/* position in the store */
	char label[64];
};

static struct mod mods[MAXMOD];
static size_t nmods;
static pclnrt_registry reg;
static char verifier_log_small[1 << 16];
static char *verifier_log = verifier_log_small;

static void
die(const char *what)
{
	fprintf(stderr, "check_bpf: %s\n", what);
	exit(1);
}

static uint8_t *
slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	uint8_t *b;
	long n;

	if (f == NULL || fseek(f, 0, SEEK_END) != 0 || (n = ftell(f)) <= 0 ||
	    fseek(f, 0, SEEK_SET) != 0 || (b = malloc((size_t)n)) == NULL ||
	    fread(b, 1, (size_t)n, f) != (size_t)n) {
		fprintf(stderr, "check_bpf: %s: cannot read: %s\n", path,
		    strerror(errno));
		exit(1);
	}
	fclose(f);
	*len = (size_t)n;
	return b;
}

/* Can this kernel load and run any BPF program?  0, or 77 (skip). */
static int
probe_kernel(void)
{
	struct bpf_insn insns[2] = {
		{ BPF_ALU64 | BPF_MOV | BPF_K, BPF_REG_0, 0, 0, 0 },
		{ BPF_JMP | BPF_EXIT, 0, 0, 0, 0 },
	};
	LIBBPF_OPTS(bpf_prog_load_opts, o, .prog_flags = BPF_F_SLEEPABLE);
	struct utsname u;
	int fd;

	if (uname(&u) == 0)
		printf("kernel: %s %s\n", u.sysname, u.release);
	/* Syscall programs are sleepable. */
	fd = bpf_prog_load(BPF_PROG_TYPE_SYSCALL, "pcln_probe", "GPL", insns,
	    2, &o);
	if (fd < 0) {
		printf("check_bpf: SKIP: the kernel refuses to load a trivial "
		    "BPF_PROG_TYPE_SYSCALL program: %s\n", strerror(-fd));
		return 77;
	}
	close(fd);
	return 0;
}

static void
add_jit(size_t njit)
{
	static const pclnrt_jitrow sp[] = { { 0, 0 }, { 1, 8 }, { 4, 40 } };
	static const pclnrt_jitrow ln[] = { { 0, 1 }, { 6, 2 }, { 20, 3 } };
	size_t i;

	for (i = 0; i < njit && nmods < MAXMOD; i++) {
		struct mod *j = &mods[nmods++];
		pclnrt_jitfunc f;
		size_t need;

		memset(&f, 0, sizeof f);
		snprintf(j->label, sizeof j->label, "jit.fn%zu", i);
		f.entry = JITHEAP + 64 * i;
		f.size = 32 + (uint32_t)(i % 3) * 8;
		f.name = j->label;
		f.pcsp.row = sp;
		f.pcsp.nrow = 3;
		f.file = "<jit>";
		f.line.row = ln;
		f.line.nrow = 3;
		need = pclnrt_jit_size(&f);
		if ((j->blob = malloc(need)) == NULL ||
		    pclnrt_jit_module(&j->m, j->blob, need, &f, &j->len) !=
		    PCLNRT_OK)
			die("cannot encode a JIT function");
	}
}

/* The store: every blob at an 8-aligned position from PCLN_BPF_BASE. */
static uint64_t
place(void)
{
	uint64_t at = PCLN_BPF_BASE;
	size_t i;

	for (i = 0; i < nmods; i++) {
		mods[i].base = at;
		at = (at + mods[i].len + 7) & ~(uint64_t)7;
	}
	return at;
}

static uint64_t
pos(const pclnrt_module *m, const void *p)
{
	const struct mod *x = (const struct mod *)m;

	return p == NULL ? 0 : x->base + (uint64_t)((const uint8_t *)p -
	    m->table.blob);
}

static int
fill_store(struct bpf_object *obj, uint64_t size)
{
	struct pcln_bpf_chunk *c = calloc(1, sizeof *c);
	int fd = bpf_object__find_map_fd_by_name(obj, "store");
	uint64_t nchunk = (size + PCLN_BPF_CHUNK - 1) / PCLN_BPF_CHUNK, k;
	size_t i;

	if (c == NULL || fd < 0)
		return -1;
	for (k = 0; k < nchunk; k++) {
		uint64_t lo = k * PCLN_BPF_CHUNK, hi = lo + sizeof c->b;
		uint32_t key = (uint32_t)k;

		memset(c->b, 0, sizeof c->b);
		for (i = 0; i < nmods; i++) {
			uint64_t a = mods[i].base, b = a + mods[i].len;
			uint64_t s = a > lo ? a : lo, e = b < hi ? b : hi;

			if (s < e)
				memcpy(c->b + (s - lo), mods[i].blob + (s - a),
				    e - s);
		}
		if (bpf_map_update_elem(fd, &key, c, BPF_ANY) != 0)
			return -1;
	}
	free(c);
	return 0;
}

/* The host registry's tree and modules into the maps, positions for
 * pointers. */
static int
fill_codemap(struct bpf_object *obj)
{
	struct pcln_bpf_root root;
	int froot = bpf_object__find_map_fd_by_name(obj, "cmroot");
	int fnode = bpf_object__find_map_fd_by_name(obj, "cmnodes");
	int fmod = bpf_object__find_map_fd_by_name(obj, "cmmods");
	uint32_t i, k, zero = 0;

	if (froot < 0 || fnode < 0 || fmod < 0)
		return -1;
	for (k = 0; k < PCLNRT_CM_ROOT; k++)
		root.slot[k] = atomic_load(&reg.root[k]);
	if (bpf_map_update_elem(froot, &zero, &root, BPF_ANY) != 0)
		return -1;
	for (i = 0; i < reg.nnode; i++) {
		uint32_t slot[PCLNRT_CM_FANOUT];

		for (k = 0; k < PCLNRT_CM_FANOUT; k++)
			slot[k] = atomic_load(&reg.node[i].slot[k]);
		if (bpf_map_update_elem(fnode, &i, slot, BPF_ANY) != 0)
			return -1;
	}
	for (i = 1; i < reg.nregion; i++) {
		const pclnrt_module *m = atomic_load(&reg.region[i]);
		pclnrt_module b;

		if (m == NULL)
			continue;
		b = *m;
		b.table.blob = (pclnrt_bptr)(uintptr_t)pos(m, m->table.blob);
		b.table.funcsize = (pclnrt_bptr)(uintptr_t)pos(m,
		    m->table.funcsize);
		b.table.findex = (pclnrt_bptr)(uintptr_t)pos(m, m->table.findex);
		b.table.inltree = (pclnrt_bptr)(uintptr_t)pos(m,
		    m->table.inltree);
		b.table.ckpt = (pclnrt_bptr)(uintptr_t)pos(m, m->table.ckpt);
		b.name = NULL;
		if (bpf_map_update_elem(fmod, &i, &b, BPF_ANY) != 0)
			return -1;
	}
	return 0;
}

/* What the BPF program computes, computed by the C runtime. */
static void
host_answer(uint64_t pc, struct pcln_bpf_answer *a)
{
	const pclnrt_module *m;
	const char *path;
	pclnrt_func f;
	int32_t v, line;
	uint64_t link;

	memset(a, 0, sizeof *a);
	a->rc_func = pclnrt_registry_find(&reg, pc, &m);
	if (a->rc_func != PCLNRT_OK)
		return;
	a->module = m->id;
	link = pc - m->bias;
	a->rc_func = pclnrt_findfunc(&m->table, link, &f);
	if (a->rc_func != PCLNRT_OK)
		return;
	a->entry = f.entry;
	a->end = f.end;
	a->name = pos(m, f.name);
	a->index = f.index;
	a->rc_sp = pclnrt_pcsp(&f, link, &v);
	a->sp = a->rc_sp == PCLNRT_OK ? v : 0;
	a->rc_line = pclnrt_funcline(&f, link, &path, &line);
	a->line = line;
	a->file = pos(m, path);
}

static void
print_answer(const char *who, const struct pcln_bpf_answer *a)
{
	fprintf(stderr, "  %s: rc %d module %u entry %#" PRIx64 " end %#"
	    PRIx64 " name %#" PRIx64 " index %u sp %d/%d line %d/%d file %#"
	    PRIx64 "\n", who, a->rc_func, a->module, (uint64_t)a->entry,
	    (uint64_t)a->end, (uint64_t)a->name, a->index, a->rc_sp, a->sp,
	    a->rc_line, a->line, (uint64_t)a->file);
}

static double
now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

int
main(int argc, char **argv)
{
	struct bpf_object *obj;
	struct bpf_program *prog;
	struct bpf_map *map;
	struct bpf_prog_info info;
	uint32_t infolen = sizeof info;
	unsigned char *regmem;
	uint64_t *pcs, storesize, bias = 0x400000, total = 0, bad = 0, found = 0;
	struct pcln_bpf_answer *ans;
	size_t i, memsize, njit = 0, n;
	double tbpf = 0, t0;
	const char *p;
	int a, rc, pfd;

	if (argc < 3) {
		fprintf(stderr, "usage: check_bpf PCLNRT.BPF.O [--jit N] "
		    "BLOB[@BIAS]...\n");
		return 1;
	}
	for (a = 2; a < argc; a++) {
		char path[4096];
		struct mod *x;
		uint64_t b = bias;
		const char *at;

		if (strcmp(argv[a], "--jit") == 0 && a + 1 < argc) {
			njit = strtoul(argv[++a], NULL, 10);
			continue;
		}
		if (nmods == MAXMOD)
			die("too many blobs");
		x = &mods[nmods++];
		snprintf(path, sizeof path, "%s", argv[a]);
		if ((at = strchr(argv[a], '@')) != NULL) {
			path[at - argv[a]] = 0;
			b = strtoull(at + 1, NULL, 16);
		}
		x->blob = slurp(path, &x->len);
		snprintf(x->label, sizeof x->label, "%.60s", path);
		if ((rc = pclnrt_module_init(&x->m, x->blob, x->len, b,
		    x->label)) != 0) {
			fprintf(stderr, "check_bpf: %s: %s\n", path,
			    pclnrt_init_strerror(rc));
			return 1;
		}
		bias = (x->m.hi + 0xfffff) & ~(uint64_t)0xfffff;
		bias += 0x100000 - x->m.table.minpc;
	}
	add_jit(njit);
	memsize = PCLNRT_REGISTRY_SIZE(nmods, 14 * nmods + 16, 0);
	if ((regmem = malloc(memsize)) == NULL ||
	    pclnrt_registry_init(&reg, regmem, memsize, nmods, 0) != 0)
		die("no registry");
	for (i = 0; i < nmods; i++)
		if ((rc = pclnrt_register(&reg, &mods[i].m)) != PCLNRT_OK) {
			fprintf(stderr, "check_bpf: %s: cannot register (%d)\n",
			    mods[i].label, rc);
			return 1;
		}
	storesize = place();

	if ((rc = probe_kernel()) != 0)
		return rc;
	libbpf_set_strict_mode(LIBBPF_STRICT_ALL);
	if ((obj = bpf_object__open_file(argv[1], NULL)) == NULL ||
	    libbpf_get_error(obj) != 0)
		die("cannot open the BPF object");
	prog = bpf_object__find_program_by_name(obj, "pcln_lookup");
	if (prog == NULL)
		die("no program pcln_lookup in the object");
	/* The verifier's figures (BPF_LOG_STATS); with PCLN_BPF_LOG=FILE its
	 * whole log, every instruction and state, into FILE. */
	if (getenv("PCLN_BPF_LOG") != NULL) {
		size_t sz = (size_t)1 << 29;

		if ((verifier_log = malloc(sz)) == NULL)
			die("no memory for the verifier's log");
		verifier_log[0] = 0;
		bpf_program__set_log_buf(prog, verifier_log, sz);
		bpf_program__set_log_level(prog, 1 | 2 | 4);
	} else {
		bpf_program__set_log_buf(prog, verifier_log,
		    sizeof verifier_log_small);
		bpf_program__set_log_level(prog, 4);
	}
	if ((map = bpf_object__find_map_by_name(obj, "store")) == NULL ||
	    bpf_map__set_max_entries(map, (uint32_t)((storesize +
	    PCLN_BPF_CHUNK - 1) / PCLN_BPF_CHUNK)) != 0 ||
	    (map = bpf_object__find_map_by_name(obj, "cmnodes")) == NULL ||
	    bpf_map__set_max_entries(map, reg.nnode) != 0 ||
	    (map = bpf_object__find_map_by_name(obj, "cmmods")) == NULL ||
	    bpf_map__set_max_entries(map, reg.nregion) != 0)
		die("cannot size the maps");
	t0 = now();
	rc = bpf_object__load(obj);
	if (getenv("PCLN_BPF_LOG") != NULL) {
		FILE *lf = fopen(getenv("PCLN_BPF_LOG"), "w");

		if (lf != NULL) {
			fputs(verifier_log, lf);
			fclose(lf);
		}
		p = strstr(verifier_log, "verification time");
		memmove(verifier_log, p != NULL ? p : "", strlen(p != NULL ?
		    p : "") + 1);
	}
	if (rc != 0) {
		size_t l = strlen(verifier_log);

		fprintf(stderr, "check_bpf: the verifier refused the program "
		    "(%s); its log ends:\n%s\n", strerror(-rc),
		    verifier_log + (l > 4000 ? l - 4000 : 0));
		return 1;
	}
	printf("verifier: accepted in %.2f s: ", now() - t0);
	for (p = verifier_log; *p != 0; p++)	/* the stats, on one line */
		putchar(*p == '\n' ? ' ' : *p);
	putchar('\n');
	pfd = bpf_program__fd(prog);
	memset(&info, 0, sizeof info);
	if (bpf_obj_get_info_by_fd(pfd, &info, &infolen) != 0)
		die("cannot read the program's info");
	printf("program: %zu instructions in the object, %u bytes "
	    "translated (%u instructions), %u bytes JIT-compiled\n",
	    bpf_program__insn_cnt(prog), info.xlated_prog_len,
	    info.xlated_prog_len / 8, info.jited_prog_len);
	if (fill_store(obj, storesize) != 0 || fill_codemap(obj) != 0)
		die("cannot fill the maps");
	printf("maps: %zu modules (%zu JIT functions), store %" PRIu64
	    " bytes, %u code map nodes\n", nmods, njit, storesize, reg.nnode);

	pcs = mmap(NULL, PCLN_BPF_BATCH * sizeof *pcs, PROT_READ | PROT_WRITE,
	    MAP_SHARED, bpf_object__find_map_fd_by_name(obj, "pcs"), 0);
	ans = mmap(NULL, PCLN_BPF_BATCH * sizeof *ans, PROT_READ,
	    MAP_SHARED, bpf_object__find_map_fd_by_name(obj, "answers"), 0);
	if (pcs == MAP_FAILED || ans == MAP_FAILED)
		die("cannot map the pcs and answers");
	for (i = 0; i < nmods; i++) {
		uint64_t pc = mods[i].m.lo - 16, end = mods[i].m.hi + 16;

		while (pc < end) {
			struct pcln_bpf_args args = { 0, 0 };
			LIBBPF_OPTS(bpf_test_run_opts, opts);
			size_t k;

			for (n = 0; n < PCLN_BPF_BATCH && pc < end; n++)
				pcs[n] = pc++;
			args.n = (unsigned)n;
			/* A syscall program's context is copied back
			 * into ctx_in. */
			opts.ctx_in = &args;
			opts.ctx_size_in = sizeof args;
			t0 = now();
			if ((rc = bpf_prog_test_run_opts(pfd, &opts)) != 0) {
				fprintf(stderr, "check_bpf: BPF_PROG_TEST_RUN: "
				    "%s\n", strerror(errno));
				return 1;
			}
			if (args.done != n) {
				fprintf(stderr, "check_bpf: BPF_PROG_TEST_RUN "
				    "answered %u of %zu pcs\n", args.done, n);
				return 1;
			}
			tbpf += now() - t0;
			for (k = 0; k < n; k++) {
				struct pcln_bpf_answer h;

				host_answer(pcs[k], &h);
				found += h.rc_func == PCLNRT_OK;
				if (memcmp(&h, &ans[k], sizeof h) == 0)
					continue;
				if (bad++ < 5) {
					fprintf(stderr, "check_bpf: pc %#"
					    PRIx64 " (%s) differs:\n", pcs[k],
					    mods[i].label);
					print_answer("C  ", &h);
					print_answer("BPF", &ans[k]);
				}
			}
			total += n;
		}
	}
	printf("compared: %" PRIu64 " pcs (%" PRIu64 " in functions), %"
	    PRIu64 " differ; BPF %.0f ns a pc (test runs included)\n", total,
	    found, bad, total ? tbpf * 1e9 / (double)total : 0.0);
	bpf_object__close(obj);
	return bad == 0 && found > 0 ? 0 : 1;
}
