/* peer-libbacktrace.c -- the in-process peer of pcln-bench: GCC's
 * libbacktrace (the async-signal-safe symbolizer that gcc, Go's cgo
 * traceback and many runtimes embed) answering the same pcs on the ELF
 * the blob was made from.  bench/run.sh builds libbacktrace from the
 * source Debian's gcc-12-source package ships and links this against
 * it; nothing of libbacktrace is in pcln's tree.
 *
 * Usage:
 *   pcln-bench-libbacktrace ELF PCSFILE [N [KIND...]]
 *       time each KIND (default: all) per pc over the first N pcs of
 *       PCSFILE (hex, one a line), random and sorted, median of 5
 *       passes after one warm-up ("cold") pass:
 *         inline: backtrace_pcinfo, whose callback gets every frame,
 *                 innermost first, with its function name and
 *                 file:line (libbacktrace has no cheaper file:line);
 *         name:   backtrace_syminfo (the symbol table's name);
 *       and KIND first: the set-up (backtrace_create_state and the
 *       first backtrace_pcinfo, which reads the debug information)
 *       alone and with the first answer, median of 5.
 *   pcln-bench-libbacktrace -loop ELF PCSFILE KIND N
 *       N lookups of KIND cycling over the first 65536 pcs (callgrind).
 *
 * libbacktrace maps a position-independent ELF at the load address of
 * the running executable (it expects to describe itself), so this
 * program is linked -no-pie: that address is 0, and the pcs are file
 * addresses as for the other tools.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backtrace.h"
#include "bench.h"

#define PROG "pcln-bench-libbacktrace"

#define NLOOP 65536

static volatile uint64_t sink;

static void
die(const char *what, const char *detail)
{
	fprintf(stderr, "pcln-bench-libbacktrace: %s%s%s\n", what,
	    detail != NULL ? ": " : "", detail != NULL ? detail : "");
	exit(1);
}

static void
on_error(void *data, const char *msg, int errnum)
{
	(void)data;
	(void)errnum;
	die("libbacktrace", msg);
}

struct answer {
	uint64_t acc;
	int ok;
};

static int
on_frame(void *data, uintptr_t pc, const char *file, int line,
    const char *func)
{
	struct answer *a = data;

	(void)pc;
	a->acc += (uintptr_t)file + (unsigned)line +
	    (func != NULL ? (unsigned char)func[0] : 0);
	if (file != NULL && line > 0)
		a->ok = 1;
	return 0;
}

static void
on_sym(void *data, uintptr_t pc, const char *name, uintptr_t val,
    uintptr_t size)
{
	struct answer *a = data;

	(void)pc;
	a->acc += val + size + (name != NULL ? (unsigned char)name[0] : 0);
	if (name != NULL)
		a->ok = 1;
}

enum kind { K_INLINE, K_NAME, K_N, K_FIRST = K_N };
static const char *const kname[K_N + 1] = { "inline", "name", "first" };

static size_t
run(struct backtrace_state *st, enum kind k, const uint64_t *pcs, size_t n)
{
	uint64_t acc = 0;
	size_t i, ok = 0;

	for (i = 0; i < n; i++) {
		struct answer a = { 0, 0 };

		if (k == K_INLINE)
			backtrace_pcinfo(st, (uintptr_t)pcs[i], on_frame,
			    on_error, &a);
		else
			backtrace_syminfo(st, (uintptr_t)pcs[i], on_sym,
			    on_error, &a);
		acc += a.acc;
		ok += (size_t)a.ok;
	}
	sink += acc;
	return ok;
}

static double
median_ns(struct backtrace_state *st, enum kind k, const uint64_t *pcs,
    size_t n, size_t want)
{
	double d[NPASS];
	int p;

	for (p = 0; p < NPASS; p++) {
		double t0 = now();
		size_t ok = run(st, k, pcs, n);

		d[p] = (now() - t0) / (double)n;
		if (ok != want)
			die(kname[k], "answers differ between passes");
	}
	return bench_median(d);
}

static enum kind
kind(const char *s)
{
	return (enum kind)bench_kind(PROG, kname, K_N + 1, s);
}

/* libbacktrace keeps no way to free a state: each set-up leaks one, as
 * in any program that creates a state at start-up. */
static void
first_lookup(const char *path, uint64_t pc)
{
	double d0[NPASS], d1[NPASS];
	int p;

	for (p = 0; p < NPASS; p++) {
		double t0 = now(), t1;
		struct backtrace_state *st = backtrace_create_state(path, 0,
		    on_error, NULL);

		t1 = now();
		if (st == NULL || run(st, K_INLINE, &pc, 1) != 1)
			die("first lookup failed", path);
		d1[p] = now() - t0;
		d0[p] = t1 - t0;
	}
	printf("libbacktrace_setup_ns %.0f\n", bench_median(d0));
	printf("libbacktrace_first_lookup_ns %.0f\n", bench_median(d1));
}

int
main(int argc, char **argv)
{
	struct backtrace_state *st;
	uint64_t *pcs, *seq;
	size_t n, max = SIZE_MAX;
	int want[K_N + 1], k;

	if (argc > 1 && strcmp(argv[1], "-loop") == 0) {
		size_t ok = 0;

		if (argc != 6 || (k = (int)kind(argv[4])) == K_FIRST)
			die("usage: pcln-bench-libbacktrace -loop ELF PCSFILE "
			    "KIND N", NULL);
		max = strtoull(argv[5], NULL, 10);
		pcs = bench_read_pcs(PROG, argv[3], NLOOP, &n);
		if ((st = backtrace_create_state(argv[2], 0, on_error,
		    NULL)) == NULL)
			die("backtrace_create_state failed", argv[2]);
		while (max > 0) {
			size_t m = max < n ? max : n;
			ok += run(st, (enum kind)k, pcs, m);
			max -= m;
		}
		if (ok == 0)
			die(kname[k], "no pc answered");
		free(pcs);
		return 0;
	}
	bench_peer_args(PROG, argc, argv, kname, K_N + 1, want, &pcs, &seq, &n);
	if (want[K_FIRST])
		first_lookup(argv[1], pcs[0]);
	if ((st = backtrace_create_state(argv[1], 0, on_error, NULL)) ==
	    NULL)
		die("backtrace_create_state failed", argv[1]);
	for (k = 0; k < K_N; k++) {
		size_t ok;
		double t0;

		if (!want[k])
			continue;
		printf("libbacktrace_%s_npcs %zu\n", kname[k], n);
		t0 = now();
		ok = run(st, (enum kind)k, pcs, n);
		printf("libbacktrace_%s_cold_pass_ns %.1f\n", kname[k],
		    (now() - t0) / (double)n);
		if (ok == 0)
			die(kname[k], "no pc answered: timing nothing");
		printf("libbacktrace_%s_random_ns %.1f\n", kname[k],
		    median_ns(st, (enum kind)k, pcs, n, ok));
		printf("libbacktrace_%s_seq_ns %.1f\n", kname[k],
		    median_ns(st, (enum kind)k, seq, n, ok));
		printf("libbacktrace_%s_answered %zu\n", kname[k], ok);
	}
	free(pcs);
	free(seq);
	return fflush(stdout) != 0;
}
