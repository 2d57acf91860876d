/* target_lib.c -- the shared library of tests/proc/target: a thread
 * waits here, several frames deep (one of them inlined), in
 * pthread_cond_wait (libc's futex wait). */
#include <pthread.h>

int target_lib_wait(int depth);

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cv = PTHREAD_COND_INITIALIZER;
static volatile int never;

static int __attribute__((noinline))
lib_block(int x)
{
	pthread_mutex_lock(&mu);
	while (!never)
		pthread_cond_wait(&cv, &mu);
	pthread_mutex_unlock(&mu);
	return x + 1;
}

static inline int
lib_inlined(int x)
{
	return lib_block(x * 2) + 3;
}

int __attribute__((noinline))
target_lib_wait(int depth)
{
	if (depth > 0)
		return target_lib_wait(depth - 1) + 1;
	return lib_inlined(depth) * 2;
}
