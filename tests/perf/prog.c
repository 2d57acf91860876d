/* prog.c -- the profiled C program of tests/perf-record.sh: its time is
 * spread over its own functions (one inlined), a shared library
 * (libperfwork.so) and libc calling back into the library.  Built -O2
 * without frame pointers.  Argument: rounds (default 300). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "work.h"

static uint8_t buf[1 << 16];
static uint32_t v[1 << 14];
static volatile uint64_t sink;

__attribute__((noinline)) static void
fill(uint32_t seed)
{
	size_t i;

	for (i = 0; i < sizeof buf; i++) {
		seed = seed * 1103515245u + 12345u;
		buf[i] = (uint8_t)(seed >> 16);
	}
	for (i = 0; i < sizeof v / sizeof v[0]; i++) {
		seed = seed * 1103515245u + 12345u;
		v[i] = seed;
	}
}

static inline uint64_t
mixed(unsigned r)
{
	uint64_t h = work_hash(buf, sizeof buf, r);

	work_sort(v, sizeof v / sizeof v[0]);
	return h;
}

__attribute__((noinline)) static uint64_t
step(unsigned r)
{
	fill(r);
	return mixed(r) + work_fib(20 + r % 4);
}

int
main(int argc, char **argv)
{
	unsigned rounds = argc > 1 ? (unsigned)atoi(argv[1]) : 300, r;

	for (r = 0; r < rounds; r++)
		sink += step(r);
	printf("%llu\n", (unsigned long long)sink);
	return 0;
}
