/* prog.c -- a small program with inlined calls, static functions and
 * calls across files, built by tests/find-routes.sh unsplit, stripped,
 * split, compressed and packed; every build must answer alike. */
#include <stdio.h>
#include <stdlib.h>

#include "prog.h"

/* Another build of the program (another build-id): -DPROG_OTHER=N. */
#ifndef PROG_OTHER
#define PROG_OTHER 0
#endif

static int __attribute__((noinline))
square_sum(const int *v, int n)
{
	int s = 0, i;

	for (i = 0; i < n; i++)
		s += prog_mix(v[i], v[i] * v[i]);
	return s;
}

static inline int
twice(int x)
{
	return prog_step(x) + prog_step(x + 1);
}

int
main(int argc, char **argv)
{
	int v[16], i, n = argc > 1 ? atoi(argv[1]) : 8;

	if (n > 16 - PROG_OTHER)
		n = 16 - PROG_OTHER;
	for (i = 0; i < n; i++)
		v[i] = twice(i);
	printf("%d %d\n", square_sum(v, n), prog_walk(v, n));
	return 0;
}
