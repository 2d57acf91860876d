/* work.c -- libperfwork.so: code the profiled C program spends its time
 * in, through a shared library: a hash with an inlined round, libc's
 * qsort calling back here, and a recursion. */
#include <stdlib.h>

#include "work.h"

static inline uint64_t
round64(uint64_t h, uint64_t v)
{
	h ^= v * 0x9e3779b97f4a7c15ull;
	h = (h << 31) | (h >> 33);
	return h * 0xbf58476d1ce4e5b9ull;
}

uint64_t
work_hash(const uint8_t *buf, size_t len, uint64_t seed)
{
	uint64_t h = seed;
	size_t i;

	for (i = 0; i < len; i++)
		h = round64(h, buf[i]);
	return h;
}

static int
cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

void
work_sort(uint32_t *v, size_t n)
{
	qsort(v, n, sizeof *v, cmp_u32);
}

uint64_t
work_fib(unsigned n)
{
	return n < 2 ? n : work_fib(n - 1) + work_fib(n - 2);
}
