/* prog.h -- the program tests/find-routes.sh builds every way. */
#ifndef PROG_H
#define PROG_H

int prog_step(int x);
int prog_walk(const int *v, int n);

/* Inlined into each caller: an inlined call from another file. */
static inline __attribute__((always_inline)) int
prog_mix(int a, int b)
{
	return (a * 31) ^ (b + 7);
}

#endif
