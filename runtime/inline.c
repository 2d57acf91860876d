/* inline.c -- inlined calls at a pc, from the trailer's INLTREE section
 * and a function's PCLN_PCDATA_INLTREE table (doc/FORMAT.md, section 8).
 *
 * Allocates nothing, takes no lock, safe in a signal handler; every read
 * is bounded by the blob and every walk by the function's record count.
 */
#include "pclnrt.h"
#include "rt_private.h"

int
pclnrt_inline(const pclnrt_func *f, uint64_t pc, pclnrt_inlcall *calls,
    size_t max, size_t *n)
{
	const pclnrt_table *t = f->t;
	uint64_t off, size, head, s0, s1, base;
	int32_t idx;
	int rc;

	*n = 0;
	rc = pclnrt_pcdata(f, PCLN_PCDATA_INLTREE, pc, &idx);
	if (rc == PCLNRT_NOTFOUND || (rc == PCLNRT_OK && idx < 0))
		return PCLNRT_OK;
	if (rc != PCLNRT_OK)
		return rc;
	if (t->inltree == NULL)
		return PCLNRT_OK;	/* pcdata 2 is the producer's own */
	off = (uint64_t)(t->inltree - t->blob);
	size = t->inltreelen;
	head = 4 * (t->nfunc + 1);
	if (size < head || f->index >= t->nfunc)
		return PCLNRT_CORRUPT;
	s0 = pclnrt_load32(t->blob + off + 4 * (uint64_t)f->index, t->big);
	s1 = pclnrt_load32(t->blob + off + 4 * (uint64_t)f->index + 4,
	    t->big);
	base = off + head;
	if (s0 > s1 || (size - head) / PCLN_INL_SIZE < s1)
		return PCLNRT_CORRUPT;
	/* Parents are below their children, so this ends within s1 - s0
	 * steps. */
	while (idx >= 0 && *n < max) {
		const uint8_t *r;
		int32_t parent;

		if ((uint64_t)idx >= s1 - s0)
			return PCLNRT_CORRUPT;
		r = t->blob + base + PCLN_INL_SIZE * (s0 + (uint64_t)idx);
		calls[*n].name = pclnrt_cstring_(t,
		    pclnrt_load32(r + PCLN_INL_NAME, t->big));
		calls[*n].file = pclnrt_filename(t,
		    (int32_t)pclnrt_load32(r + PCLN_INL_FILE, t->big));
		calls[*n].line = (int32_t)pclnrt_load32(r + PCLN_INL_LINE,
		    t->big);
		(*n)++;
		parent = (int32_t)pclnrt_load32(r + PCLN_INL_PARENT, t->big);
		if (parent >= idx)
			return PCLNRT_CORRUPT;
		idx = parent;
	}
	return PCLNRT_OK;
}
