/* maps.c -- the modules of a BPF loader and the code map put into the
 * BPF object's maps (maps.h). */
#define _GNU_SOURCE 1	/* program_invocation_short_name */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <linux/bpf.h>

#include "maps.h"
#include "pcln_bpf.h"

struct pcln_bpf_mod pcln_bpf_mods[PCLN_BPF_MAXMOD];
size_t pcln_bpf_nmods;
pclnrt_registry pcln_bpf_reg;
static char verifier_log_small[1 << 16];
static char *verifier_log = verifier_log_small;

#define mods	pcln_bpf_mods
#define nmods	pcln_bpf_nmods
#define reg	pcln_bpf_reg

void
pcln_bpf_die(const char *what)
{
	fprintf(stderr, "%s: %s\n", program_invocation_short_name, what);
	exit(1);
}

#define die	pcln_bpf_die

static uint8_t *
slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	uint8_t *b;
	long n;

	if (f == NULL || fseek(f, 0, SEEK_END) != 0 || (n = ftell(f)) <= 0 ||
	    fseek(f, 0, SEEK_SET) != 0 || (b = malloc((size_t)n)) == NULL ||
	    fread(b, 1, (size_t)n, f) != (size_t)n) {
		fprintf(stderr, "%s: %s: cannot read: %s\n",
		    program_invocation_short_name, path,
		    strerror(errno));
		exit(1);
	}
	fclose(f);
	*len = (size_t)n;
	return b;
}

struct pcln_bpf_mod *
pcln_bpf_new(void)
{
	struct pcln_bpf_mod *x;

	if (nmods == PCLN_BPF_MAXMOD)
		die("too many modules");
	x = &mods[nmods++];
	memset(x, 0, sizeof *x);
	return x;
}

struct pcln_bpf_mod *
pcln_bpf_add_file(const char *path, uint64_t bias)
{
	struct pcln_bpf_mod *x = pcln_bpf_new();
	int rc;

	x->blob = slurp(path, &x->len);
	snprintf(x->label, sizeof x->label, "%.60s", path);
	if ((rc = pclnrt_module_init(&x->m, x->blob, x->len, bias,
	    x->label)) != 0) {
		fprintf(stderr, "%s: %s: %s\n", program_invocation_short_name,
		    path, pclnrt_init_strerror(rc));
		exit(1);
	}
	return x;
}

/* Can this kernel load and run any BPF program?  0, or 77 (skip). */
int
pcln_bpf_probe_kernel(void)
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
		printf("%s: SKIP: the kernel refuses to load a trivial "
		    "BPF_PROG_TYPE_SYSCALL program: %s\n",
		    program_invocation_short_name, strerror(-fd));
		return 77;
	}
	close(fd);
	return 0;
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

uint64_t
pcln_bpf_pos(const pclnrt_module *m, const void *p)
{
	const struct pcln_bpf_mod *x = (const struct pcln_bpf_mod *)m;

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
#define POS(p)	pcln_bpf_pos(m, (p))
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
		b.table.blob = (pclnrt_bptr)(uintptr_t)POS(m->table.blob);
		b.table.funcsize = (pclnrt_bptr)(uintptr_t)POS(m->table.funcsize);
		b.table.findex = (pclnrt_bptr)(uintptr_t)POS(m->table.findex);
		b.table.inltree = (pclnrt_bptr)(uintptr_t)POS(m->table.inltree);
		b.table.ckpt = (pclnrt_bptr)(uintptr_t)POS(m->table.ckpt);
		b.table.buildid = (pclnrt_bptr)(uintptr_t)POS(m->table.buildid);
		b.name = NULL;
		if (bpf_map_update_elem(fmod, &i, &b, BPF_ANY) != 0)
			return -1;
	}
	return 0;
}

uint64_t
pcln_bpf_register_all(void)
{
	size_t i, memsize = PCLNRT_REGISTRY_SIZE(nmods, 14 * nmods + 16, 0);
	unsigned char *regmem = malloc(memsize);
	int rc;

	if (regmem == NULL ||
	    pclnrt_registry_init(&reg, regmem, memsize, nmods, 0) != 0)
		die("no registry");
	for (i = 0; i < nmods; i++)
		if ((rc = pclnrt_register(&reg, &mods[i].m)) != PCLNRT_OK) {
			fprintf(stderr, "%s: %s: cannot register (%d)\n",
			    program_invocation_short_name, mods[i].label, rc);
			exit(1);
		}
	return place();
}

double
pcln_bpf_secs(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

struct bpf_program *
pcln_bpf_load(const char *objpath, const char *name, uint64_t storesize,
    struct bpf_object **objp)
{
	struct bpf_object *obj;
	struct bpf_program *prog;
	struct bpf_map *map;
	struct bpf_prog_info info;
	uint32_t infolen = sizeof info;
	const char *p;
	double t0;
	int rc;

	libbpf_set_strict_mode(LIBBPF_STRICT_ALL);
	if ((obj = bpf_object__open_file(objpath, NULL)) == NULL ||
	    libbpf_get_error(obj) != 0)
		die("cannot open the BPF object");
	if ((prog = bpf_object__find_program_by_name(obj, name)) == NULL)
		die("no such program in the object");
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
	t0 = pcln_bpf_secs();
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

		fprintf(stderr, "%s: the verifier refused the program (%s); its "
		    "log ends:\n%s\n", program_invocation_short_name,
		    strerror(-rc), verifier_log + (l > 4000 ? l - 4000 : 0));
		exit(1);
	}
	printf("verifier: accepted in %.2f s: ", pcln_bpf_secs() - t0);
	for (p = verifier_log; *p != 0; p++)	/* the stats, on one line */
		putchar(*p == '\n' ? ' ' : *p);
	putchar('\n');
	memset(&info, 0, sizeof info);
	if (bpf_obj_get_info_by_fd(bpf_program__fd(prog), &info, &infolen) != 0)
		die("cannot read the program's info");
	printf("program: %zu instructions in the object, %u bytes "
	    "translated (%u instructions), %u bytes JIT-compiled\n",
	    bpf_program__insn_cnt(prog), info.xlated_prog_len,
	    info.xlated_prog_len / 8, info.jited_prog_len);
	if (fill_store(obj, storesize) != 0 || fill_codemap(obj) != 0)
		die("cannot fill the maps");
	*objp = obj;
	return prog;
}
