/* failmalloc.h -- an allocator that fails at the N-th call, for tests.
 *
 * A program linked with -Wl,--wrap=malloc,--wrap=calloc,--wrap=realloc,
 * --wrap=free,--wrap=strdup (pcln_failmalloc_flags in tests/reliability.mk)
 * sends every allocation made by the code linked into it statically
 * (libpcln-internal.la) through tests/failmalloc.c.  It works under
 * AddressSanitizer too, since the wrappers call the real (intercepted)
 * functions.  Allocations made inside libc (fopen, getline) are not
 * counted and never fail.
 */
#ifndef PCLN_FAILMALLOC_H
#define PCLN_FAILMALLOC_H

/* Count allocations from now on and make the N-th fail (N >= 1); N <= 0
 * counts without failing.  Resets the count. */
void failmalloc_arm(long n);
/* Stop failing (counting and tracking go on). */
void failmalloc_disarm(void);
/* Allocation calls since the last arm (the failed one included). */
long failmalloc_calls(void);
/* 1 if the armed failure happened. */
int failmalloc_failed(void);
/* Blocks allocated through the wrappers and not yet freed. */
long failmalloc_outstanding(void);

#endif
