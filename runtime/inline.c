/* inline.c -- inlined calls at a pc, from the trailer's INLPACK or INLTREE section
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
	const struct pclnrt_inlform *fm = &t->inlform;
	uint64_t size, s0, s1;
	unsigned rsh;		/* log2 of the record size */
	pclnrt_bptr base;
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
	size = t->inltreelen;
	if (fm->size == 0 || f->index >= t->nfunc)
		return PCLNRT_CORRUPT;
	/* start[] follows INLPACK's 8-byte header; INLTREE has none. */
	base = t->inltree + (fm->size == PCLN_INLP_SIZE ? PCLN_INLP_START : 0);
	s0 = pclnrt_load32(base + 4 * (uint64_t)f->index, t->big);
	s1 = pclnrt_load32(base + 4 * (uint64_t)f->index + 4, t->big);
	base = t->inltree + fm->recs;
	/* (no 64-bit division: 32-bit targets would need libgcc's) */
	rsh = fm->size == PCLN_INLP_SIZE ? 3 : 4;
	if (s0 > s1 || size < fm->recs || (size - fm->recs) >> rsh < s1)
		return PCLNRT_CORRUPT;
	/* Parents are below their children, so this ends within s1 - s0
	 * steps. */
	while (idx >= 0 && *n < max) {
		struct pclnrt_inlrec r;

		if ((uint64_t)idx >= s1 - s0)
			return PCLNRT_CORRUPT;
		pclnrt_inlrec_get(base + ((s0 + (uint64_t)idx) << rsh), fm,
		    t->big, &r);
		calls[*n].name = pclnrt_cstring_(t, r.name);
		calls[*n].file = pclnrt_filename(t, r.file);
		calls[*n].line = r.line;
		(*n)++;
		if (r.parent >= idx)
			return PCLNRT_CORRUPT;
		idx = r.parent;
	}
	return PCLNRT_OK;
}
