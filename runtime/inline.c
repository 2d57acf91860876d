/* inline.c -- inlined calls at a pc, from the trailer's INLTREE section
 * and a function's PCLN_PCDATA_INLTREE table (doc/FORMAT.md, section 8).
 *
 * Allocates nothing, takes no lock, safe in a signal handler; every read
 * is bounded by the blob and every walk by the function's record count.
 */
#include "pclnrt.h"

static int
fits(size_t len, uint64_t off, uint64_t n)
{
	return off <= len && n <= len - off;
}

/* The name at blob offset OFF, or NULL if it does not end in the blob. */
static const char *
cstring(const pclnrt_table *t, uint64_t off)
{
	uint64_t i;

	if (off == 0 || off >= t->len)
		return NULL;
	for (i = off; i < t->len; i++)
		if (t->blob[i] == 0)
			return (const char *)(t->blob + off);
	return NULL;
}

/* Find the INLTREE section of T: 1 with *OFF and *SIZE, 0 if there is
 * none, -1 if the trailer cannot be right. */
static int
find_inltree(const pclnrt_table *t, uint64_t *off, uint64_t *size)
{
	static const char magic[] = PCLN_TRAILER_MAGIC;
	const uint8_t *b = t->blob, *ft;
	uint64_t dir, n, i;
	unsigned k;

	if (t->len < PCLN_FOOTER_SIZE)
		return 0;
	ft = b + t->len - PCLN_FOOTER_SIZE;
	for (k = 0; k < 8; k++)
		if (ft[PCLN_FOOTER_MAGIC + k] != (uint8_t)magic[k])
			return 0;
	if (pclnrt_load32(ft + PCLN_FOOTER_VERSION, t->big) !=
	    PCLN_TRAILER_VERSION)
		return 0;
	dir = pclnrt_load32(ft + PCLN_FOOTER_DIROFF, t->big);
	n = pclnrt_load32(ft + PCLN_FOOTER_NSECT, t->big);
	if (!fits(t->len - PCLN_FOOTER_SIZE, dir, n * PCLN_DIRENT_SIZE))
		return -1;
	for (i = 0; i < n; i++) {
		const uint8_t *d = b + dir + i * PCLN_DIRENT_SIZE;
		if (pclnrt_load32(d + PCLN_DIRENT_TAG, t->big) !=
		    PCLN_SECT_INLTREE)
			continue;
		*off = pclnrt_load32(d + PCLN_DIRENT_OFF, t->big);
		*size = pclnrt_load32(d + PCLN_DIRENT_SIZEF, t->big);
		return fits(dir, *off, *size) ? 1 : -1;
	}
	return 0;
}

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
	if ((rc = find_inltree(t, &off, &size)) <= 0)
		return rc == 0 ? PCLNRT_OK : PCLNRT_CORRUPT;
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
		calls[*n].name = cstring(t, pclnrt_load32(r + PCLN_INL_NAME,
		    t->big));
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
