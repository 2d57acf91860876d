/* prog_util.c -- the second file of the test program (prog.c). */
#include "prog.h"

int
prog_step(int x)
{
	return x < 2 ? x : prog_step(x - 1) + prog_mix(x, x - 2);
}

static int __attribute__((noinline))
walk_one(int x, int depth)
{
	switch (x & 3) {
	case 0:
		return depth > 0 ? walk_one(x / 2, depth - 1) + 1 : x;
	case 1:
		return prog_mix(x, depth);
	default:
		return x - depth;
	}
}

int
prog_walk(const int *v, int n)
{
	int s = 0, i;

	for (i = 0; i < n; i++)
		s += walk_one(v[i], 4);
	return s;
}
