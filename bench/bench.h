/* bench.h -- what pcln's benchmark programs share: the clock, the
 * number of passes a median is taken over, and the qsort comparisons.
 * Header-only. */
#ifndef PCLN_BENCH_H
#define PCLN_BENCH_H

#include <stdint.h>
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

#endif /* PCLN_BENCH_H */
