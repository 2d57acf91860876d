/* xcrash_lib.c -- the shared library of examples/xcrash: it sorts with
 * libc's qsort, whose comparator (here) faults on one element, so the
 * crash happens in this library, called back through libc, called from
 * the main program.  Built -O2 -g -fomit-frame-pointer -fPIC -shared.
 */
#include <stdlib.h>

int xcrash_lib_sort(int *v, int n) __attribute__((noinline));

static int *volatile null_pointer;

/* Inlined into the comparator: the traceback shows its frame. */
static inline int
key_of(const int *p)
{
	if (*p == 3)
		return *null_pointer + *p;	/* the fault */
	return *p;
}

static int __attribute__((noinline))
compare(const void *a, const void *b)
{
	int x = key_of(a), y = key_of(b);

	return (x > y) - (x < y);
}

int
xcrash_lib_sort(int *v, int n)
{
	qsort(v, (size_t)n, sizeof *v, compare);
	return v[0] + 1;	/* used after the call: a real call */
}
