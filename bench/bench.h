/* bench.h -- what pcln's benchmark programs share: the clock, the
 * number of passes a median is taken over, the qsort comparisons, the
 * median, the pcs file and the KIND argument of the in-process peers.
 * Header-only (C, and C++ for bench/peer-gsym.cc). */
#ifndef PCLN_BENCH_H
#define PCLN_BENCH_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define NPASS 5		/* passes per median */

/* Monotonic time in ns. */
static inline double
now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

static inline int
cmp64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static inline int
cmpd(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* The median of D[0..NPASS) (sorting it). */
static inline double
bench_median(double *d)
{
	qsort(d, NPASS, sizeof d[0], cmpd);
	return d[NPASS / 2];
}

/* At most MAX hex pcs from PATH, one a line; *N gets how many.  On an
 * error, "PROG: what" on stderr and exit 1. */
static inline uint64_t *
bench_read_pcs(const char *prog, const char *path, size_t max, size_t *n)
{
	FILE *f = fopen(path, "r");
	uint64_t *pcs = NULL;
	size_t cap = 0, line = 0;
	char buf[64];

	if (f == NULL) {
		fprintf(stderr, "%s: cannot open the pcs file: %s\n", prog, path);
		exit(1);
	}
	*n = 0;
	while (*n < max && fgets(buf, sizeof buf, f) != NULL) {
		char *end;
		uint64_t pc;

		line++;
		buf[strcspn(buf, "\n")] = '\0';
		pc = strtoull(buf, &end, 16);
		if (end == buf || *end != '\0') {
			fprintf(stderr, "%s: %s:%zu: expected a hex pc, got "
			    "\"%.20s\"\n", prog, path, line, buf);
			exit(1);
		}
		if (*n == cap) {
			cap = cap != 0 ? 2 * cap : 4096;
			pcs = (uint64_t *)realloc(pcs, cap * sizeof *pcs);
			if (pcs == NULL) {
				fprintf(stderr, "%s: out of memory\n", prog);
				exit(1);
			}
		}
		pcs[(*n)++] = pc;
	}
	fclose(f);
	if (*n == 0) {
		fprintf(stderr, "%s: no pcs in %s\n", prog, path);
		exit(1);
	}
	return pcs;
}

/* The index of S in NAMES[0..N); if it is none of them, "PROG: unknown
 * KIND (NAMES...): S" on stderr and exit 1. */
static inline int
bench_kind(const char *prog, const char *const *names, int n, const char *s)
{
	int k;

	for (k = 0; k < n; k++)
		if (strcmp(s, names[k]) == 0)
			return k;
	fprintf(stderr, "%s: unknown KIND (", prog);
	for (k = 0; k < n; k++)
		fprintf(stderr, "%s%s", k > 0 ? ", " : "", names[k]);
	fprintf(stderr, "): %s\n", s);
	exit(1);
}

/* The arguments "ELF PCSFILE [N [KIND...]]" of an in-process peer:
 * WANT[k] for each of the NK kinds in NAMES that is named (all if none
 * is), the first N pcs of PCSFILE in *PCS and the same sorted in *SEQ,
 * their count in *N. */
static inline void
bench_peer_args(const char *prog, int argc, char **argv,
    const char *const *names, int nk, int *want, uint64_t **pcs,
    uint64_t **seq, size_t *n)
{
	size_t max = SIZE_MAX;
	int k;

	if (argc < 3) {
		fprintf(stderr, "usage: %s ELF PCSFILE [N [KIND...]]\n", prog);
		exit(1);
	}
	if (argc > 3)
		max = strtoull(argv[3], NULL, 10);
	for (k = 0; k < nk; k++)
		want[k] = argc <= 4;
	for (k = 4; k < argc; k++)
		want[bench_kind(prog, names, nk, argv[k])] = 1;
	*pcs = bench_read_pcs(prog, argv[2], max, n);
	if ((*seq = (uint64_t *)malloc(*n * sizeof **seq)) == NULL) {
		fprintf(stderr, "%s: out of memory\n", prog);
		exit(1);
	}
	memcpy(*seq, *pcs, *n * sizeof **seq);
	qsort(*seq, *n, sizeof **seq, cmp64);
}

#endif /* PCLN_BENCH_H */
