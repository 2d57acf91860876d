/* dump_heap.c -- malloc's heap in transparent huge pages, for pclndump
 * perf.
 *
 * On the guest of doc/PERFORMANCE.md's 2026-12-07 (afternoon) figures a
 * small page's first touch costs 9.8 us and a 2 MiB huge page's 0.12
 * to 0.23 ms.  pclndump perf's memos and what the libraries it calls
 * allocate take some 200 pages of malloc's heap and of its mapped
 * blocks in the first hundred samples of a profile: 2 to 3 ms of the
 * short bench profile's 20 (with every malloc served from one huge page
 * region, LD_PRELOAD'ed, 465 page faults became 260 and the run 3 ms
 * shorter).  So, before it allocates, pclndump perf moves glibc's heap
 * to a huge page boundary and advises the rest MADV_HUGEPAGE:
 *
 * - the heap grows HEAP_PAD at a time (M_TOP_PAD), so that it has room
 *   past the next boundary, and blocks up to HEAP_MMAP come from it
 *   (M_MMAP_THRESHOLD; above glibc's 128 KiB, whose blocks are mapped
 *   each in small pages of their own: the stack memo's 240 KiB, the
 *   walk memo's 272 KiB);
 * - every thread allocates there (M_ARENA_MAX 1): the reader thread's
 *   blocks, perf record -z's decompressed records (7.5 MB of them on
 *   the -z bench profile), were in an arena of its own, in small
 *   pages: 1,190 page faults, against 160 for the same profile
 *   uncompressed;
 * - HEAP_PAD is 32 MiB, not 8: with the reader's blocks the heap grew
 *   past the first 8 MiB, and what it grows by is not advised (a new
 *   mapping); nor does it give back its top (M_TRIM_THRESHOLD 1 GiB),
 *   which would cut the advised mapping, and take the advice from
 *   what grows there again.  The virtual space costs nothing until a
 *   page of it is touched.  The -z bench profile: 670 page faults with
 *   the one arena, 152 with 32 MiB; 27.0 -> 18.0 ms (medians of 15 in
 *   turns, 2026-12-07 evening); the others the same;
 * - one block (HEAP->fill, kept) takes the heap from its top to 16
 *   bytes short of the boundary, where the top chunk's header then
 *   lies: no page past the boundary is touched before the advice, and
 *   a page touched first would keep its 2 MiB in small pages;
 * - the place of the top chunk is the break less its size (mallinfo2's
 *   keepcost), before and after: where it is not where it must be (a
 *   malloc that is not glibc's, a sanitizer's or valgrind's, or a heap
 *   that is not one piece) nothing is advised and nothing is lost.
 *
 * Where the kernel gives no huge page (THP "never") the advice does
 * nothing; the 2 MiB of virtual space the block took are never touched
 * but for its first page.  On a guest where a small page's fault costs
 * 1.3 us and a huge page's 0.3 ms (2026-12-06), two huge pages cost
 * 0.3 ms more than the small ones they replace.  On 2026-12-07's, which
 * gives the host back the memory a process freed (virtio-balloon free
 * page reporting, a few seconds after), a huge page taken from such
 * memory cost 2.4 to 2.7 ms to touch, not 0.13, and a small page 10 to
 * 14 us whatever the memory: the huge pages still cost no more where
 * half of their small pages or more would be touched.
 */
#include <config.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#ifdef HAVE_MALLOC_H
#include <malloc.h>
#endif
#include <sys/mman.h>
#include <unistd.h>

#include "dump_perf.h"

#define HEAP_HUGE	((uintptr_t)2 << 20)
#define HEAP_PAD	((size_t)32 << 20)
#define HEAP_TRIM	(1 << 30)
#define HEAP_MMAP	((size_t)4 << 20)

#if defined(HAVE_MALLOPT) && defined(HAVE_MALLINFO2) && \
    defined(M_TOP_PAD) && defined(M_MMAP_THRESHOLD) && defined(MADV_HUGEPAGE)
/* The main arena's top chunk: the break less its size. */
static uintptr_t
heap_top(void)
{
	struct mallinfo2 mi = mallinfo2();

	return (uintptr_t)sbrk(0) - mi.keepcost;
}
#endif

void
dump_heap_huge(struct dump_heap *h)
{
	memset(h, 0, sizeof *h);
#if defined(HAVE_MALLOPT) && defined(HAVE_MALLINFO2) && \
    defined(M_TOP_PAD) && defined(M_MMAP_THRESHOLD) && defined(MADV_HUGEPAGE)
	uintptr_t top, al, end;
	void *a;

	h->why = "malloc took no options (not glibc's)";
	if (mallopt(M_TOP_PAD, (int)HEAP_PAD) == 0 ||
	    mallopt(M_MMAP_THRESHOLD, (int)HEAP_MMAP) == 0)
		return;
#ifdef M_TRIM_THRESHOLD
	(void)mallopt(M_TRIM_THRESHOLD, HEAP_TRIM);
#endif
#ifdef M_ARENA_MAX
	(void)mallopt(M_ARENA_MAX, 1);
#endif
	h->why = "out of memory";
	/* (the heap made, where it was not) */
	if ((a = malloc(1)) == NULL)
		return;
	free(a);
	top = heap_top();
	/* The next boundary with room for the top chunk's header (and a
	 * block of at least 64 bytes) before it. */
	al = (top + 16 + 64 + HEAP_HUGE - 1) & ~(HEAP_HUGE - 1);
	/* (a block of N bytes is a chunk of N + 8, rounded up to 16) */
	if ((h->fill = malloc((size_t)(al - 16 - top) - 8)) == NULL)
		return;
	if (heap_top() != al - 16) {
		h->why = "the heap is not malloc's top chunk at the break";
		return;
	}
	end = (uintptr_t)sbrk(0) & ~(HEAP_HUGE - 1);
	if (end <= al) {
		h->why = "the heap did not grow past a huge page";
		return;
	}
	if (madvise((void *)al, (size_t)(end - al), MADV_HUGEPAGE) != 0) {
		h->why = "madvise(MADV_HUGEPAGE) refused";
		return;
	}
	h->why = NULL;
	h->start = al;
	h->len = (size_t)(end - al);
#else
	h->why = "built without mallopt, mallinfo2 or MADV_HUGEPAGE";
#endif
}

void
dump_heap_free(struct dump_heap *h)
{
	free(h->fill);
	h->fill = NULL;
}

/* The heap's state now, for --stats: the arenas malloc made (-1: not
 * known), and how far the heap grew past the advice (0: it did not). */
void
dump_heap_now(const struct dump_heap *h, int *narena, size_t *past)
{
	*narena = -1;
	*past = 0;
#if defined(HAVE_MALLOPT) && defined(HAVE_MALLINFO2) && \
    defined(M_TOP_PAD) && defined(M_MMAP_THRESHOLD) && defined(MADV_HUGEPAGE)
	if (h->len > 0 && heap_top() > h->start + h->len)
		*past = (size_t)(heap_top() - (h->start + h->len));
#endif
#ifdef HAVE_MALLOC_INFO
	{
		char *xml = NULL, *at;
		size_t n = 0;
		FILE *f;

		/* (malloc_info's XML: a <heap nr="N"> for each arena) */
		if ((f = open_memstream(&xml, &n)) == NULL)
			return;
		if (malloc_info(0, f) == 0 && fflush(f) == 0 && xml != NULL) {
			*narena = 0;
			for (at = xml; (at = strstr(at, "<heap nr=")) != NULL;
			    at++)
				(*narena)++;
		}
		(void)fclose(f);
		free(xml);
	}
#else
	(void)h;
#endif
}
