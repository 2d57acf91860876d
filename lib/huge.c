/* huge.c -- buffers of a few MiB in transparent huge pages, smaller
 * ones in small pages of their own.
 *
 * A buffer that is written all over soon after it is made (the reader's
 * chunks of a profile, zstd's window) costs a page fault for each of its
 * 4 KiB pages.  On the guest of doc/PERFORMANCE.md's 2026-12-05 figures
 * a fault cost 11 us: a step cache of 4,096 entries (544 KiB) took 1.5
 * ms to fill with empty entries, the tenth of a short profile's run; in
 * a transparent huge page, one fault and the zeroing of 2 MiB, 0.15 to
 * 0.2 ms.  On the guest of 2026-12-06 a fault costs 1.3 us and a huge
 * page's first touch 0.3 ms, as much as 240 small pages, and more (some
 * milliseconds) where memory was just freed by another process: a
 * region smaller than a huge page (a few hundred KiB, whose pages are
 * not all touched) is now mapped in small pages of its own, each
 * faulted in where it is first written, and its size is what was asked
 * for (rounded to pages), not 2 MiB.  Where the kernel has no huge page
 * to give, a larger region is made of small pages as malloc's would be:
 * nothing is lost but the gain.  Since 2026-12-07 the smaller region
 * is calloc's: glibc maps a block of 128 KiB or more on its own, as
 * this did, and pclndump perf, which keeps malloc's heap in huge pages
 * (tools/dump_heap.c), has it there: the step cache, pclndump's output
 * buffer and its command's state were some 70 page faults of the short
 * bench profile's 260, 10 us each on that day's guest.
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
	if (n < HUGE_PAGE) {
		/* (a mapping smaller than a huge page has none, whatever
		 * the system's THP setting: malloc's, which maps a block of
		 * 128 KiB or more on its own, or takes it from a heap in
		 * huge pages, tools/dump_heap.c) */
		if ((m = calloc(1, n)) == NULL)
			return NULL;
		*lenp = n;
		return m;
	}
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
	if (p == NULL)
		return;
	if (len < HUGE_PAGE)	/* (calloc's) */
		free(p);
	else
		(void)munmap(p, len);
}
