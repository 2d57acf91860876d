/* spin.c -- a workload with known call chains for the BPF unwinder's
 * test: main -> run -> chain_a -> leaf_a and main -> run -> chain_b ->
 * mid_b -> leaf_b, spinning in the leaves for SECONDS (default 1).
 * Built -O2 -g -fomit-frame-pointer: no frame pointers to follow. */
#include <stdlib.h>
#include <time.h>

volatile unsigned long sink;

void leaf_a(unsigned long) __attribute__((noinline));
void leaf_b(unsigned long) __attribute__((noinline));
void mid_b(unsigned long) __attribute__((noinline));
void chain_a(unsigned long) __attribute__((noinline));
void chain_b(unsigned long) __attribute__((noinline));
void run(double) __attribute__((noinline));

void
leaf_a(unsigned long n)
{
	unsigned long i;

	for (i = 0; i < n; i++)
		sink += i * 3;
}

void
leaf_b(unsigned long n)
{
	unsigned long i;

	for (i = 0; i < n; i++)
		sink ^= i + 7;
}

void
mid_b(unsigned long n)
{
	volatile char buf[40];

	buf[n % 40] = 1;
	leaf_b(n);
	sink += buf[3];
}

void
chain_a(unsigned long n)
{
	volatile long pad[9];

	pad[0] = 1;
	leaf_a(n);
	sink += pad[0];
}

void
chain_b(unsigned long n)
{
	mid_b(n);
	sink++;
}

void
run(double secs)
{
	struct timespec t0, t;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	do {
		chain_a(200000);
		chain_b(300000);
		clock_gettime(CLOCK_MONOTONIC, &t);
	} while ((double)(t.tv_sec - t0.tv_sec) +
	    (double)(t.tv_nsec - t0.tv_nsec) * 1e-9 < secs);
}

int
main(int argc, char **argv)
{
	run(argc > 1 ? atof(argv[1]) : 1.0);
	return 0;
}
