/* failmalloc.c -- the failing allocator of failmalloc.h.
 *
 * Link-time wrappers (ld --wrap): __wrap_malloc and friends count every
 * call, fail the armed one with NULL (and errno ENOMEM, as malloc does),
 * and record each live block in a pointer set so a test can assert that
 * nothing is left allocated after a failed call is cleaned up.  A free
 * of a block the set does not know (one libc allocated itself, e.g.
 * getline's buffer) is passed on without counting.
 */
#include <config.h>

#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "failmalloc.h"

void *__real_malloc(size_t);
void *__real_calloc(size_t, size_t);
void *__real_realloc(void *, size_t);
void __real_free(void *);
void *__wrap_malloc(size_t);
void *__wrap_calloc(size_t, size_t);
void *__wrap_realloc(void *, size_t);
void __wrap_free(void *);
char *__wrap_strdup(const char *);

static long fail_at = -1, calls;
static int failed;
static long live;

/* Live blocks: open addressing, linear probing, deletion by backward
 * shift (no tombstones).  When full, tracking stops (LIVE becomes -1). */
#define SET_BITS 20
#define SET_SIZE ((size_t)1 << SET_BITS)
static void *set[SET_SIZE];
static int overflow;

static size_t
slot(const void *p)
{
	uint64_t h = (uint64_t)(uintptr_t)p * UINT64_C(0x9E3779B97F4A7C15);

	return (size_t)(h >> (64 - SET_BITS));
}

static void
track(void *p)
{
	size_t i;

	if (p == NULL || overflow)
		return;
	if ((size_t)live >= SET_SIZE / 2) {
		overflow = 1;
		return;
	}
	for (i = slot(p); set[i] != NULL; i = (i + 1) & (SET_SIZE - 1))
		;
	set[i] = p;
	live++;
}

static void
untrack(void *p)
{
	size_t i, j, k;

	if (p == NULL || overflow)
		return;
	for (i = slot(p); set[i] != p; i = (i + 1) & (SET_SIZE - 1))
		if (set[i] == NULL)
			return;		/* not ours */
	set[i] = NULL;
	live--;
	/* Shift back the entries of the cluster after I. */
	for (j = (i + 1) & (SET_SIZE - 1); set[j] != NULL;
	    j = (j + 1) & (SET_SIZE - 1)) {
		k = slot(set[j]);
		if ((j > i && (k <= i || k > j)) || (j < i && k <= i && k > j)) {
			set[i] = set[j];
			set[j] = NULL;
			i = j;
		}
	}
}

static int
fails(void)
{
	calls++;
	if (fail_at > 0 && calls == fail_at) {
		failed = 1;
		errno = ENOMEM;
		return 1;
	}
	return 0;
}

void *
__wrap_malloc(size_t n)
{
	void *p;

	if (fails())
		return NULL;
	p = __real_malloc(n);
	track(p);
	return p;
}

void *
__wrap_calloc(size_t n, size_t m)
{
	void *p;

	if (fails())
		return NULL;
	p = __real_calloc(n, m);
	track(p);
	return p;
}

void *
__wrap_realloc(void *old, size_t n)
{
	void *p;

	if (fails())
		return NULL;
	p = __real_realloc(old, n);
	if (p != NULL || n == 0) {
		untrack(old);
		track(p);
	}
	return p;
}

void
__wrap_free(void *p)
{
	untrack(p);
	__real_free(p);
}

char *
__wrap_strdup(const char *s)
{
	size_t n = strlen(s) + 1;
	char *p = __wrap_malloc(n);

	if (p != NULL)
		memcpy(p, s, n);
	return p;
}

void
failmalloc_arm(long n)
{
	fail_at = n;
	calls = 0;
	failed = 0;
}

void
failmalloc_disarm(void)
{
	fail_at = -1;
}

long
failmalloc_calls(void)
{
	return calls;
}

int
failmalloc_failed(void)
{
	return failed;
}

long
failmalloc_outstanding(void)
{
	return overflow ? -1 : live;
}
