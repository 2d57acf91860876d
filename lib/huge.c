/* huge.c -- buffers of some hundreds of KiB in transparent huge pages.
 *
 * A buffer that is written all over soon after it is made (the step
 * cache of a walk, the reader's chunks of a profile) costs a page fault
 * for each of its 4 KiB pages.  On the guest this was measured on a
 * fault costs 11 us: a step cache of 4,096 entries (544 KiB) took 1.5 ms
 * to fill with empty entries, the tenth of a short profile's run.  In a
 * transparent huge page the same buffer costs one fault and the zeroing
 * of 2 MiB, 0.15 to 0.2 ms (doc/PERFORMANCE.md, 2026-12-05).
 * Where the kernel has no huge page to give, the region is made of
 * small pages as malloc's would be: nothing is lost but the gain.
 */
#include <config.h>

#include <stdint.h>
#include <stdlib.h>
#include <sys/mman.h>

#include "pcln.h"

#define HUGE_PAGE	((size_t)2 << 20)

void *
pcln_huge_alloc(size_t n, size_t *lenp)
{
	uint8_t *m, *b;
	size_t len, rn;

	*lenp = 0;
	if (n == 0 || n > SIZE_MAX - 2 * HUGE_PAGE)
		return NULL;
	rn = (n + HUGE_PAGE - 1) & ~(HUGE_PAGE - 1);
	len = rn + HUGE_PAGE;		/* room to align */
	m = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE |
	    MAP_ANONYMOUS, -1, 0);
	if (m == MAP_FAILED)
		return NULL;
	b = (uint8_t *)(((uintptr_t)m + HUGE_PAGE - 1) &
	    ~(uintptr_t)(HUGE_PAGE - 1));
	/* The slack before and after the aligned part goes back. */
	if (b > m)
		(void)munmap(m, (size_t)(b - m));
	if (m + len > b + rn)
		(void)munmap(b + rn, (size_t)(m + len - (b + rn)));
#ifdef MADV_HUGEPAGE
	(void)madvise(b, rn, MADV_HUGEPAGE);
#endif
	*lenp = rn;
	return b;
}

void
pcln_huge_free(void *p, size_t len)
{
	if (p != NULL)
		(void)munmap(p, len);
}
