/* peer-libdw.c -- the in-process peer of pcln-bench: libdw (elfutils)
 * answering the same questions on the ELF that the blob was made from.
 *
 * Usage:
 *   pcln-bench-libdw ELF PCSFILE [N [KIND...]]
 *       time each KIND (default: all), per pc, over the first N pcs of
 *       PCSFILE (default: all; one hex pc a line, as `pcln-bench pcs`
 *       prints them), in the given (random) order and sorted ("seq"),
 *       median of 5 passes after one warm-up ("cold") pass:
 *         funcline: dwfl_addrmodule + dwfl_module_addrinfo (symbol
 *                   name) + dwfl_module_getsrc + dwfl_lineinfo;
 *         name:     dwfl_addrmodule + dwfl_module_addrinfo alone;
 *         line:     dwfl_addrmodule + dwfl_module_getsrc +
 *                   dwfl_lineinfo alone;
 *         cfa:      dwarf_cfi_addrframe + dwarf_frame_cfa + free, on
 *                   the module's .eh_frame (else .debug_frame) CFI;
 *       and KIND first: the set-up (dwfl_begin, dwfl_report_offline,
 *       dwfl_report_end) alone and with the first funcline answer,
 *       from nothing, median of 5.  Prints "name value" lines.
 *   pcln-bench-libdw -loop ELF PCSFILE KIND N
 *       do N lookups of KIND, cycling over the first 65536 pcs of
 *       PCSFILE (for callgrind: the difference of two runs with
 *       different N is the cost of the lookups alone).
 *
 * dwfl_module_addrinfo scans the whole symbol table for each pc
 * (libdw 0.188: ~9 million instructions a pc on gmock_all_test), so
 * funcline and name want a smaller N than line and cfa.  (The DWARF
 * way, dwfl_module_addrdie + dwarf_getscopes for the DW_TAG_subprogram,
 * is slower still there: ~68 ms a pc, as the CUs are huge.)
 *
 * The pcs are file addresses (what addr2line -e takes); they are moved
 * by the bias libdwfl gives the module.  Each pass counts the pcs that
 * got a file and a line > 0 (and a CFA rule); the program fails if a
 * pass answers nothing, so it cannot time nothing.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <elfutils/libdwfl.h>

#include "bench.h"

#define PROG "pcln-bench-libdw"

#define NLOOP 65536

static volatile uint64_t sink;
static char *debuginfo_path;

static const Dwfl_Callbacks callbacks = {
	.find_elf = dwfl_build_id_find_elf,
	.find_debuginfo = dwfl_standard_find_debuginfo,
	.section_address = dwfl_offline_section_address,
	.debuginfo_path = &debuginfo_path,
};

struct ctx {
	Dwfl *dwfl;
	Dwfl_Module *mod;
	Dwarf_Addr bias;	/* module address - file address */
	Dwarf_CFI *cfi;
	Dwarf_Addr cfibias;	/* module address - CFI address */
	const char *cfiname;
};

static void
die(const char *what, const char *detail)
{
	fprintf(stderr, "pcln-bench-libdw: %s%s%s\n", what,
	    detail != NULL ? ": " : "", detail != NULL ? detail : "");
	exit(1);
}

/* dwfl_begin + dwfl_report_offline + dwfl_report_end on PATH. */
static void
open_ctx(struct ctx *c, const char *path)
{
	c->dwfl = dwfl_begin(&callbacks);
	if (c->dwfl == NULL)
		die("dwfl_begin", dwfl_errmsg(-1));
	c->mod = dwfl_report_offline(c->dwfl, path, path, -1);
	if (c->mod == NULL)
		die(path, dwfl_errmsg(-1));
	if (dwfl_report_end(c->dwfl, NULL, NULL) != 0)
		die("dwfl_report_end", dwfl_errmsg(-1));
	if (dwfl_module_getelf(c->mod, &c->bias) == NULL)
		die(path, dwfl_errmsg(-1));
	c->cfi = NULL;
	c->cfiname = NULL;
}

static void
open_cfi(struct ctx *c)
{
	if ((c->cfi = dwfl_module_eh_cfi(c->mod, &c->cfibias)) != NULL)
		c->cfiname = "eh_frame";
	else if ((c->cfi = dwfl_module_dwarf_cfi(c->mod, &c->cfibias)) !=
	    NULL)
		c->cfiname = "debug_frame";
	else
		die("no CFI in the module", dwfl_errmsg(-1));
}

enum kind { K_FUNCLINE, K_NAME, K_LINE, K_CFA, K_N, K_FIRST = K_N };
static const char *const kname[K_N + 1] = {
	"funcline", "name", "line", "cfa", "first"
};

/* Function name (K_NAME), file and line (K_LINE), or both (K_FUNCLINE)
 * of the file address PC: 1 if answered (a name; a file and a line >
 * 0; both).  What an addr2line -f user of libdwfl does for one pc. */
static int
funcline(const struct ctx *c, enum kind k, uint64_t pc, uint64_t *acc)
{
	Dwarf_Addr a = pc + c->bias, off, bias;
	Dwfl_Module *m = dwfl_addrmodule(c->dwfl, a);
	GElf_Sym sym;
	const char *name = NULL, *file = NULL;
	Dwfl_Line *l;
	int line = 0;

	if (m == NULL)
		return 0;
	if (k != K_LINE)
		name = dwfl_module_addrinfo(m, a, &off, &sym, NULL, NULL,
		    NULL);
	if (k != K_NAME && (l = dwfl_module_getsrc(m, a)) != NULL)
		file = dwfl_lineinfo(l, &bias, &line, NULL, NULL, NULL);
	*acc += (uintptr_t)name + (uintptr_t)file + (unsigned)line;
	if (k == K_NAME)
		return name != NULL;
	return file != NULL && line > 0 && (k == K_LINE || name != NULL);
}

/* The CFA rule at the file address PC: 1 if there is one. */
static int
cfa(const struct ctx *c, uint64_t pc, uint64_t *acc)
{
	Dwarf_Frame *fr;
	Dwarf_Op *ops;
	size_t nops;
	int ok = 0;

	if (dwarf_cfi_addrframe(c->cfi, pc + c->bias - c->cfibias, &fr) != 0)
		return 0;
	if (dwarf_frame_cfa(fr, &ops, &nops) == 0 && nops > 0) {
		*acc += ops[0].atom + ops[0].number + ops[0].number2;
		ok = 1;
	}
	free(fr);
	return ok;
}

/* Lookups of kind K for the N pcs; returns how many were answered. */
static size_t
run(const struct ctx *c, enum kind k, const uint64_t *pcs, size_t n)
{
	uint64_t acc = 0;
	size_t i, ok = 0;

	for (i = 0; i < n; i++)
		ok += k == K_CFA ? cfa(c, pcs[i], &acc) :
		    funcline(c, k, pcs[i], &acc);
	sink += acc;
	return ok;
}

static double
median_ns(const struct ctx *c, enum kind k, const uint64_t *pcs, size_t n,
    size_t *answered)
{
	double d[NPASS];
	int p;

	for (p = 0; p < NPASS; p++) {
		double t0 = now();
		size_t ok = run(c, k, pcs, n);
		d[p] = (now() - t0) / (double)n;
		if (ok == 0)
			die(kname[k], "no pc answered: timing nothing");
		*answered = ok;
	}
	return bench_median(d);
}

/* Set-up alone, and set-up + the first funcline answer of PC, from
 * nothing (page cache warm); median of 5, in ns. */
static void
first_lookup(const char *path, uint64_t pc)
{
	double d0[NPASS], d1[NPASS];
	int p;

	for (p = 0; p < NPASS; p++) {
		struct ctx c;
		uint64_t acc = 0;
		double t0 = now(), t1;

		open_ctx(&c, path);
		t1 = now();
		if (!funcline(&c, K_FUNCLINE, pc, &acc))
			die("first lookup failed", dwfl_errmsg(-1));
		d1[p] = now() - t0;
		d0[p] = t1 - t0;
		sink += acc;
		dwfl_end(c.dwfl);
	}
	printf("libdw_setup_ns %.0f\n", bench_median(d0));
	printf("libdw_first_lookup_ns %.0f\n", bench_median(d1));
}

static enum kind
kind(const char *s)
{
	return (enum kind)bench_kind(PROG, kname, K_N + 1, s);
}

static int
loop(int argc, char **argv)
{
	struct ctx c;
	uint64_t *pcs;
	size_t n, max, ok = 0;
	enum kind k;

	if (argc != 6 || (k = kind(argv[4])) == K_FIRST)
		die("usage: pcln-bench-libdw -loop ELF PCSFILE KIND N", NULL);
	max = strtoull(argv[5], NULL, 10);
	pcs = bench_read_pcs(PROG, argv[3], NLOOP, &n);
	open_ctx(&c, argv[2]);
	open_cfi(&c);
	while (max > 0) {
		size_t m = max < n ? max : n;
		ok += run(&c, k, pcs, m);
		max -= m;
	}
	if (ok == 0)
		die(kname[k], "no pc answered");
	dwfl_end(c.dwfl);
	free(pcs);
	return 0;
}

int
main(int argc, char **argv)
{
	struct ctx c;
	uint64_t *pcs, *seq;
	size_t n;
	int want[K_N + 1], k;

	if (argc > 1 && strcmp(argv[1], "-loop") == 0)
		return loop(argc, argv);
	bench_peer_args(PROG, argc, argv, kname, K_N + 1, want, &pcs, &seq, &n);
	if (want[K_FIRST]) {
		printf("libdw_version %s\n", dwfl_version(NULL));
		first_lookup(argv[1], pcs[0]);
	}
	open_ctx(&c, argv[1]);
	open_cfi(&c);
	if (want[K_CFA])
		printf("libdw_cfi %s\n", c.cfiname);
	for (k = 0; k < K_N; k++) {
		size_t ok, ans;
		double t0;

		if (!want[k])
			continue;
		printf("libdw_%s_npcs %zu\n", kname[k], n);
		t0 = now();
		ok = run(&c, (enum kind)k, pcs, n);	/* warm: parses lazily */
		printf("libdw_%s_cold_pass_ns %.1f\n", kname[k],
		    (now() - t0) / (double)n);
		printf("libdw_%s_random_ns %.1f\n", kname[k],
		    median_ns(&c, (enum kind)k, pcs, n, &ans));
		if (ans != ok)
			die(kname[k], "answers differ between passes");
		printf("libdw_%s_seq_ns %.1f\n", kname[k],
		    median_ns(&c, (enum kind)k, seq, n, &ans));
		if (ans != ok)
			die(kname[k], "answers differ between orders");
		if (k == K_FUNCLINE)
			printf("libdw_answered %zu\n", ok);
		else
			printf("libdw_%s_answered %zu\n", kname[k], ok);
	}
	dwfl_end(c.dwfl);
	free(pcs);
	free(seq);
	return fflush(stdout) != 0;
}
