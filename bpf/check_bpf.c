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
#include <time.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "maps.h"
#include "pcln_bpf.h"

#define JITHEAP		0x7f5500000000ull

static void
add_jit(size_t njit)
{
	static const pclnrt_jitrow sp[] = { { 0, 0 }, { 1, 8 }, { 4, 40 } };
	static const pclnrt_jitrow ln[] = { { 0, 1 }, { 6, 2 }, { 20, 3 } };
	size_t i;

	for (i = 0; i < njit; i++) {
		struct pcln_bpf_mod *j = pcln_bpf_new();
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
			pcln_bpf_die("cannot encode a JIT function");
	}
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
	a->rc_func = pclnrt_registry_find(&pcln_bpf_reg, pc, &m);
	if (a->rc_func != PCLNRT_OK)
		return;
	a->module = m->id;
	link = pc - m->bias;
	a->rc_func = pclnrt_findfunc(&m->table, link, &f);
	if (a->rc_func != PCLNRT_OK)
		return;
	a->entry = f.entry;
	a->end = f.end;
	a->name = pcln_bpf_pos(m, f.name);
	a->index = f.index;
	a->rc_sp = pclnrt_pcsp(&f, link, &v);
	a->sp = a->rc_sp == PCLNRT_OK ? v : 0;
	a->rc_line = pclnrt_funcline(&f, link, &path, &line);
	a->line = line;
	a->file = pcln_bpf_pos(m, path);
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

int
main(int argc, char **argv)
{
	struct bpf_object *obj;
	struct bpf_program *prog;
	uint64_t *pcs, storesize, next = 0x400000, total = 0, bad = 0, found = 0;
	struct pcln_bpf_answer *ans;
	size_t i, njit = 0, n;
	double tbpf = 0, t0;
	int a, rc, pfd;

	if (argc < 3) {
		fprintf(stderr, "usage: check_bpf PCLNRT.BPF.O [--jit N] "
		    "BLOB[@BIAS]...\n");
		return 1;
	}
	for (a = 2; a < argc; a++) {
		struct pcln_bpf_mod *x;
		char path[4096];
		uint64_t b = 0;
		const char *at;

		if (strcmp(argv[a], "--jit") == 0 && a + 1 < argc) {
			njit = strtoul(argv[++a], NULL, 10);
			continue;
		}
		snprintf(path, sizeof path, "%s", argv[a]);
		if ((at = strchr(argv[a], '@')) != NULL) {
			path[at - argv[a]] = 0;
			b = strtoull(at + 1, NULL, 16);
		}
		x = pcln_bpf_add_file(path, at != NULL ? b : 0);
		if (at == NULL) {
			/* At the next free megabyte, whatever its own pcs:
			 * a table's bias depends on its lowest pc. */
			b = next - (x->m.table.minpc & ~(uint64_t)0xfffff);
			if ((rc = pclnrt_module_init(&x->m, x->blob, x->len,
			    b, x->label)) != 0)
				pcln_bpf_die("cannot place a table");
		}
		next = ((x->m.hi + 0xfffff) & ~(uint64_t)0xfffff) + 0x100000;
	}
	add_jit(njit);
	storesize = pcln_bpf_register_all();
	if ((rc = pcln_bpf_probe_kernel()) != 0)
		return rc;
	prog = pcln_bpf_load(argv[1], "pcln_lookup", storesize, &obj);
	pfd = bpf_program__fd(prog);
	printf("maps: %zu modules (%zu JIT functions), store %" PRIu64
	    " bytes, %u code map nodes\n", pcln_bpf_nmods, njit, storesize,
	    pcln_bpf_reg.nnode);

	pcs = mmap(NULL, PCLN_BPF_BATCH * sizeof *pcs, PROT_READ | PROT_WRITE,
	    MAP_SHARED, bpf_object__find_map_fd_by_name(obj, "pcs"), 0);
	ans = mmap(NULL, PCLN_BPF_BATCH * sizeof *ans, PROT_READ,
	    MAP_SHARED, bpf_object__find_map_fd_by_name(obj, "answers"), 0);
	if (pcs == MAP_FAILED || ans == MAP_FAILED)
		pcln_bpf_die("cannot map the pcs and answers");
	for (i = 0; i < pcln_bpf_nmods; i++) {
		const struct pcln_bpf_mod *x = &pcln_bpf_mods[i];
		uint64_t pc = x->m.lo - 16, end = x->m.hi + 16;

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
			t0 = pcln_bpf_secs();
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
			tbpf += pcln_bpf_secs() - t0;
			for (k = 0; k < n; k++) {
				struct pcln_bpf_answer h;

				host_answer(pcs[k], &h);
				found += h.rc_func == PCLNRT_OK;
				if (memcmp(&h, &ans[k], sizeof h) == 0)
					continue;
				if (bad++ < 5) {
					fprintf(stderr, "check_bpf: pc %#"
					    PRIx64 " (%s) differs:\n", pcs[k],
					    x->label);
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
