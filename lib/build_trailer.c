/* build_trailer.c -- the trailer after the Go 1.2 part: plan each
 * section, then put each one, the directory and the footer.
 *
 *   | pad to 8 | FUNCSIZE section | pad to 8 | INLTREE section (if any
 *   function has inlined calls and they do not fit INLPACK, or the
 *   flags ask for it) | pad to 8 | FUNCINDEX section (from
 *   PCLN_INDEX_MIN_FUNCS functions, or as the flags say) | pad to 8
 *   | PCCKPT section (if a table has more rows than the stride: a
 *   block of checkpoints per function that has such tables)
 *   | pad to 8 | BUILDID section (if the builder was given one)
 *   | pad to 8 | INLPACK section (the inlined calls, when they fit)
 *   | pad to 8 | SYMNAME section (if a function's symbol table names
 *   it otherwise)
 *   | pad to 8 | directory | 32-byte footer
 *
 * A new section: a plan_ function that sizes it and calls add_sect (in
 * tag order: the directory lists sections by increasing tag), and an
 * entry in writers[] that puts its bytes.  runtime/pclnrt_format.h and
 * doc/FORMAT.md define the section's layout.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <xxhash.h>

#include "build.h"

#define AT(what, c, want) \
	do { \
		if ((c) != (want)) \
			return pclni_build_badmath(w, what, c, want); \
	} while (0)

/* --- PCCKPT ------------------------------------------------------------ */

/* Record in W->cks the checkpoints of the table T[0..LEN) of ROWS rows
 * (the state after every stride rows but the last) and describe them in
 * *CI.  The pc offsets come from the bytes alone (the table covers
 * exactly its function), so equal tables get equal checkpoints.  Narrow
 * if every pc and byte offset fits 16 bits. */
int
pclni_build_ckpt_table(struct wstate *w, const uint8_t *t, size_t len,
    size_t rows, struct ckinfo *ci)
{
	unsigned stride = w->b->ckstride;
	struct pclnrt_pcstep s;
	size_t r = 0;
	uint64_t span = 0;

	memset(ci, 0, sizeof *ci);
	if (stride == 0 || rows <= stride)
		return 0;
	ci->count = (uint32_t)((rows - 1) / stride);
	ci->first = w->ncks;
	if (pclni_grow(&w->cks, &w->ckscap, w->ncks + ci->count,
	    sizeof *w->cks) != 0)
		return -1;
	pclnrt_pcstep_init(&s, t, t + len, 0, w->q);
	while (pclnrt_pcstep(&s) == 1) {
		span = s.nextpc;
		if (++r % stride != 0 || r >= rows)
			continue;
		w->cks[w->ncks].pcoff = (uint32_t)s.nextpc;
		w->cks[w->ncks].byteoff = (uint32_t)(s.p - t);
		w->cks[w->ncks].value = s.value;
		w->ncks++;
	}
	/* The table's pc span is its function's size. */
	ci->form = span <= 0x10000 && len <= 0x10000 ? PCLN_CKPT_NARROW :
	    PCLN_CKPT_WIDE;
	return w->ncks == ci->first + ci->count ? 0 : -3;
}

/* The checkpoints of table slot J (of all functions' tables), NULL if
 * it has none. */
static const struct ckinfo *
ckpt_of(const struct wstate *w, size_t j)
{
	const struct ckinfo *ci;

	if (w->tabid[j] == 0 || (ci = &w->ck[w->tabid[j] - 1])->count == 0)
		return NULL;
	return ci;
}

static uint64_t
ckpt_arrays_size(const struct ckinfo *ci)
{
	return PCLN_CKPT_ARRAYS(ci->count, ci->form == PCLN_CKPT_NARROW ? 2 : 4);
}

/* Write the arrays of the checkpoints CI at P; return their size. */
static size_t
ckpt_arrays(const struct wstate *w, const struct ckinfo *ci, uint8_t *p)
{
	unsigned wd = ci->form == PCLN_CKPT_NARROW ? 2 : 4;
	size_t aw = (size_t)((ci->count * wd + 3) & ~3u), k;
	const struct ckstate *c = &w->cks[ci->first];
	int big = w->big;

	for (k = 0; k < ci->count; k++) {
		if (wd == 2) {
			pclni_store16(p + 2 * k, c[k].pcoff, big);
			pclni_store16(p + aw + 2 * k, c[k].byteoff, big);
		} else {
			pclni_store32(p + 4 * k, c[k].pcoff, big);
			pclni_store32(p + aw + 4 * k, c[k].byteoff, big);
		}
		pclni_store32(p + 2 * aw + 4 * k, (uint32_t)c[k].value, big);
	}
	return (size_t)PCLN_CKPT_ARRAYS(ci->count, wd);
}

/* --- FUNCINDEX --------------------------------------------------------- */

/* FUNCINDEX (runtime/pclnrt_format.h): the builder aims for lookups of
 * at most FIDX_SCAN_GOAL forward steps (so a lookup reads one 20-byte
 * bucket record and at most 10 functab entries, 3 to 4 cache lines), in
 * an index of at most FIDX_BUDGET(rest) bytes, REST being the bytes of
 * the blob without the index: 1/64 of it, so the index is under 1.6 % of
 * the blob.  Asked for explicitly (PCLN_WRITE_INDEX) it may take
 * FIDX_BUDGET_FORCED, for texts of very uneven density. */
#define FIDX_SCAN_GOAL		8u
#define FIDX_BUDGET(rest)	((uint64_t)(rest) / 64u)
#define FIDX_BUDGET_FORCED(rest) (4096u + 2u * (uint64_t)(rest))

/* One pass over the N sorted functions (entries in KEY, the text ending
 * at MAXPC) for sub-buckets of 2^S bytes in NB buckets: the largest
 * forward scan any pc needs goes to *MAXSCAN, and, if OUT is not NULL,
 * the bucket records to OUT.  -1 if a bucket's deltas overflow a byte or
 * the scan exceeds PCLN_FIDX_SCAN_LIMIT.  O(N + 16 NB). */
static int
fidx_sweep(const struct skey *key, size_t n, uint64_t maxpc, unsigned s,
    uint64_t nb, uint8_t *out, int big, uint32_t *maxscan)
{
	uint64_t minpc = key[0].entry, j, nsub = nb * PCLN_FIDX_NSUB;
	uint64_t sub = (uint64_t)1 << s;
	size_t i = 0, k, base = 0;

	*maxscan = 0;
	for (j = 0; j < nsub; j++) {
		uint64_t lo = minpc + (j << s), last = lo + (sub - 1);
		if (lo >= maxpc)
			last = lo;	/* past the text: never looked up */
		while (i + 1 < n && key[i + 1].entry <= lo)
			i++;
		for (k = i; k + 1 < n && key[k + 1].entry <= last; k++)
			;
		if (k - i > PCLN_FIDX_SCAN_LIMIT)
			return -1;
		if (k - i > *maxscan)
			*maxscan = (uint32_t)(k - i);
		if (j % PCLN_FIDX_NSUB == 0) {
			base = i;
			if (out != NULL)
				pclni_store32(out + PCLN_FIDX_BUCKET *
				    (j / PCLN_FIDX_NSUB), (uint32_t)base, big);
		}
		if (i - base > 255)
			return -1;
		if (out != NULL)
			out[PCLN_FIDX_BUCKET * (j / PCLN_FIDX_NSUB) + 4 +
			    j % PCLN_FIDX_NSUB] = (uint8_t)(i - base);
	}
	return 0;
}

/* Choose the sub-bucket shift: the largest whose scan is at most
 * FIDX_SCAN_GOAL, or, if that would outgrow BUDGET bytes, the smallest
 * scan within it.  Returns the index's size in bytes (0: no
 * usable index) with *SHIFT and *NB set. */
static uint64_t
fidx_choose(const struct skey *key, size_t n, uint64_t maxpc,
    uint64_t budget, unsigned *shift, uint64_t *nb)
{
	uint64_t range, avg, size = 0;
	unsigned s, start = 0;
	uint32_t scan;

	if (n == 0 || maxpc <= key[0].entry)
		return 0;
	range = maxpc - key[0].entry;
	/* Start with sub-buckets ~16 average functions wide. */
	for (avg = range / n; start < PCLN_FIDX_SHIFT_MAX &&
	    ((uint64_t)1 << start) < avg * 16; start++)
		;
	for (s = start + 1; s-- > 0;) {
		uint64_t b = ((range - 1) >> (s + 4)) + 1;
		if (b > UINT32_MAX || PCLN_FIDX_HDR + PCLN_FIDX_BUCKET * b >
		    budget)
			break;
		if (fidx_sweep(key, n, maxpc, s, b, NULL, 0, &scan) != 0)
			continue;
		*shift = s;
		*nb = b;
		size = PCLN_FIDX_HDR + PCLN_FIDX_BUCKET * b;
		if (scan <= FIDX_SCAN_GOAL)
			break;
	}
	return size;
}

/* --- planning ---------------------------------------------------------- */

/* Where the next section would start: 8-aligned after the last one (or
 * after the Go 1.2 part); the directory goes there after the last. */
static uint64_t
sect_cursor(const struct wstate *w)
{
	const struct wsect *l;

	if (w->nsect == 0)
		return pclni_align(w->go12size, PCLN_SECT_ALIGN);
	l = &w->sect[w->nsect - 1];
	return pclni_align(l->off + l->size, PCLN_SECT_ALIGN);
}

static void
add_sect(struct wstate *w, uint32_t tag, uint64_t size)
{
	struct wsect *s = &w->sect[w->nsect];

	s->off = sect_cursor(w);
	s->tag = tag;
	s->size = size;
	w->nsect++;
}

/* The section with TAG in the plan, NULL if none. */
static const struct wsect *
find_sect(const struct wstate *w, uint32_t tag)
{
	unsigned k;

	for (k = 0; k < w->nsect; k++)
		if (w->sect[k].tag == tag)
			return &w->sect[k];
	return NULL;
}

/* FUNCINDEX: unless PCLN_WRITE_NOINDEX, from PCLN_INDEX_MIN_FUNCS
 * functions or with PCLN_WRITE_INDEX, if an index fits the budget. */
static void
plan_findex(struct wstate *w)
{
	uint64_t rest, size;

	if ((w->flags & PCLN_WRITE_NOINDEX) || w->n == 0 ||
	    (!(w->flags & PCLN_WRITE_INDEX) && w->n < PCLN_INDEX_MIN_FUNCS))
		return;
	/* The blob without the index: up to here, the directory with one
	 * more entry, the footer; and INLPACK, which comes after the index
	 * by its tag (as INLTREE, before it, is already counted here). */
	rest = sect_cursor(w) + (w->nsect + 1) * PCLN_DIRENT_SIZE +
	    PCLN_FOOTER_SIZE;
	if (w->ninl > 0 && w->inl.size == PCLN_INLP_SIZE)
		rest += w->inl.recs + PCLN_INLP_SIZE * w->ninl;
	if (w->nsymname > 0)	/* (SYMNAME too) */
		rest += PCLN_SYMN_HDR + PCLN_SYMN_SIZE * w->nsymname;
	size = fidx_choose(w->key, w->n, wmaxpc(w),
	    w->flags & PCLN_WRITE_INDEX ? FIDX_BUDGET_FORCED(rest) :
	    FIDX_BUDGET(rest), &w->fi_shift, &w->fi_nb);
	if (size > 0)
		add_sect(w, PCLN_SECT_FUNCINDEX, size);
	w->st.findex = size;
}

/* PCCKPT: a block per function with long tables. */
static int
plan_ckpt(struct wstate *w)
{
	uint64_t blk = 0, size;
	size_t k, j;

	if (w->ncks == 0)
		return 0;
	if ((w->ckblk = malloc((w->n + 1) * sizeof *w->ckblk)) == NULL)
		return pclni_build_nomem(w);
	for (k = 0; k < w->n; k++) {
		uint64_t nd = 0, arr = 0;
		const struct ckinfo *ci;
		w->ckblk[k] = (uint32_t)blk;
		for (j = w->tabbase[k]; j < w->tabbase[k + 1]; j++)
			if ((ci = ckpt_of(w, j)) != NULL) {
				nd++;
				arr += ckpt_arrays_size(ci);
			}
		if (nd > 0)
			blk += 4 + PCLN_CKPT_DESC * nd + arr;
		w->ck_ndesc += nd;
		if (blk > INT32_MAX)
			return pclni_build_range(w);
	}
	w->ckblk[w->n] = (uint32_t)blk;
	w->st.nckpt = 0;
	for (j = 0; j < w->ntab; j++)
		if (w->tabid[j] != 0)
			w->st.nckpt += w->ck[w->tabid[j] - 1].count;
	size = PCLN_CKPT_HDR + 4 * ((uint64_t)w->n + 1) + blk;
	add_sect(w, PCLN_SECT_PCCKPT, size);
	w->st.ckpt = size;
	w->st.nckdesc = w->ck_ndesc;
	return 0;
}

/* Bits needed for X. */
static unsigned
nbits(uint64_t x)
{
	unsigned n = 0;

	for (; x != 0; x >>= 1)
		n++;
	return n;
}

/* The layout of the inlined calls in W->inl: INLPACK (returns 1) when
 * every field fits its width and the widths 64 bits, unless the flags
 * ask for INLTREE; else INLTREE (returns 0). */
static int
plan_inl(struct wstate *w)
{
	uint64_t lo = UINT64_MAX, hi = 0, maxp = 0, maxf = 0, maxl = 0;
	size_t k, j;

	memset(&w->inl, 0, sizeof w->inl);
	w->inl.size = PCLN_INL_SIZE;
	w->inl.recs = 4 * ((uint64_t)w->n + 1);
	if (w->ninl == 0 || w->flags & PCLN_WRITE_INLTREE)
		return 0;
	for (k = 0; k < w->n; k++) {
		const struct bfunc *f = wfunc(w, k);
		for (j = 0; j < f->ninl; j++) {
			const struct binl *r = &f->inl[j];
			uint64_t name = w->names_start +
			    w->b->names.off[r->name];
			if (r->line < 0)
				return 0;
			lo = name < lo ? name : lo;
			hi = name > hi ? name : hi;
			maxp = (uint64_t)(r->parent + 1) > maxp ?
			    (uint64_t)(r->parent + 1) : maxp;
			maxf = (uint64_t)r->file > maxf ? (uint64_t)r->file : maxf;
			maxl = (uint64_t)r->line > maxl ? (uint64_t)r->line : maxl;
		}
	}
	w->inl.w[0] = (uint8_t)nbits(maxp);
	w->inl.w[1] = (uint8_t)nbits(maxf);
	w->inl.w[2] = (uint8_t)nbits(maxl);
	w->inl.w[3] = (uint8_t)nbits(hi - lo);
	if ((unsigned)w->inl.w[0] + w->inl.w[1] + w->inl.w[2] + w->inl.w[3] >
	    64) {
		memset(w->inl.w, 0, sizeof w->inl.w);
		return 0;
	}
	w->inl.size = PCLN_INLP_SIZE;
	w->inl.recs = PCLN_INLP_RECS(w->n);
	w->inl.namebase = (uint32_t)lo;
	return 1;
}

int
pclni_build_plan_trailer(struct wstate *w)
{
	pcln_build_stats *st = &w->st;
	uint64_t sects = 0;
	unsigned k;
	int packed;

	w->nsymname = 0;
	for (k = 0; k < w->n; k++)
		w->nsymname += wfunc(w, k)->symname != 0;
	add_sect(w, PCLN_SECT_FUNCSIZE, 4 * (uint64_t)w->n);
	packed = plan_inl(w);
	if (w->ninl > 0 && !packed)
		add_sect(w, PCLN_SECT_INLTREE, w->inl.recs +
		    PCLN_INL_SIZE * w->ninl);
	plan_findex(w);
	if (plan_ckpt(w) != 0)
		return -1;
	if (w->b->nbuildid > 0)
		add_sect(w, PCLN_SECT_BUILDID, w->b->nbuildid);
	if (w->ninl > 0 && packed)
		add_sect(w, PCLN_SECT_INLPACK, w->inl.recs +
		    PCLN_INLP_SIZE * w->ninl);
	if (w->nsymname > 0)
		add_sect(w, PCLN_SECT_SYMNAME, PCLN_SYMN_HDR +
		    PCLN_SYMN_SIZE * w->nsymname);
	w->dir_off = sect_cursor(w);
	w->foot_off = w->dir_off + w->nsect * PCLN_DIRENT_SIZE;
	w->total = w->foot_off + PCLN_FOOTER_SIZE;
	for (k = 0; k < w->nsect; k++)
		sects += w->sect[k].size;
	st->trailer = sects + w->nsect * PCLN_DIRENT_SIZE + PCLN_FOOTER_SIZE;
	st->padding += w->total - w->go12size - st->trailer;
	return 0;
}

/* --- putting: one writer per section ----------------------------------- */

/* FUNCSIZE: every function's size, in functab order. */
static int
put_funcsize(struct wstate *w, uint8_t *p, uint64_t *len)
{
	size_t k;

	for (k = 0; k < w->n; k++)
		pclni_store32(p + 4 * k, wfunc(w, k)->size, w->big);
	*len = 4 * (uint64_t)w->n;
	return 0;
}

/* INLTREE or INLPACK (W->inl): INLPACK's header, start[nfunc + 1], then
 * every function's records. */
static int
put_inltree(struct wstate *w, uint8_t *p, uint64_t *len)
{
	const struct pclnrt_inlform *fm = &w->inl;
	uint64_t c = 0, idx = 0;
	int big = w->big;
	size_t k, j;

	if (fm->size == PCLN_INLP_SIZE) {
		memcpy(p, fm->w, 4);
		pclni_store32(p + PCLN_INLP_NAMEBASE, fm->namebase, big);
		c = PCLN_INLP_START;
	}
	for (k = 0; k <= w->n; k++) {
		pclni_store32(p + c, (uint32_t)idx, big);
		c += 4;
		if (k < w->n)
			idx += wfunc(w, k)->ninl;
	}
	for (; c < fm->recs; c++)	/* INLPACK's records are 8-aligned */
		p[c] = 0;
	for (k = 0; k < w->n; k++) {
		const struct bfunc *f = wfunc(w, k);
		for (j = 0; j < f->ninl; j++) {
			const struct binl *r = &f->inl[j];
			uint8_t *q = p + c;
			uint32_t name = (uint32_t)w->names_start +
			    w->b->names.off[r->name];
			if (fm->size == PCLN_INLP_SIZE) {
				unsigned at = fm->w[0] + fm->w[1];
				uint64_t v = (uint64_t)(r->parent + 1) |
				    (uint64_t)r->file << fm->w[0] |
				    (uint64_t)r->line << at;
				at += fm->w[2];
				if (fm->w[3] > 0)
					v |= (uint64_t)(name - fm->namebase) << at;
				pclni_store64(q, v, big);
				c += PCLN_INLP_SIZE;
				continue;
			}
			pclni_store32(q + PCLN_INL_PARENT, (uint32_t)r->parent,
			    big);
			pclni_store32(q + PCLN_INL_NAME, (uint32_t)
			    w->names_start + w->b->names.off[r->name], big);
			pclni_store32(q + PCLN_INL_FILE, (uint32_t)r->file, big);
			pclni_store32(q + PCLN_INL_LINE, (uint32_t)r->line, big);
			c += PCLN_INL_SIZE;
		}
	}
	*len = c;
	return 0;
}

/* FUNCINDEX: the header, then the bucket records of the chosen shift. */
static int
put_findex(struct wstate *w, uint8_t *p, uint64_t *len)
{
	const struct wsect *s = find_sect(w, PCLN_SECT_FUNCINDEX);
	uint32_t scan;

	if (fidx_sweep(w->key, w->n, wmaxpc(w), w->fi_shift, w->fi_nb,
	    p + PCLN_FIDX_HDR, w->big, &scan) != 0)
		return pclni_build_badmath(w, "trailer: FUNCINDEX sweep",
		    (uint64_t)(p - w->buf), s->off);
	pclni_store32(p + PCLN_FIDX_SHIFT, w->fi_shift, w->big);
	pclni_store32(p + PCLN_FIDX_MAXSCAN, scan, w->big);
	pclni_store32(p + PCLN_FIDX_NBUCKET, (uint32_t)w->fi_nb, w->big);
	*len = s->size;
	return 0;
}

/* The PCCKPT block of the function at sorted position K at P (its
 * ndesc, descriptors and arrays); *LEN gets its size. */
static void
put_ckpt_block(struct wstate *w, size_t k, uint8_t *p, uint64_t *len)
{
	const struct ckinfo *ci;
	uint64_t nd = 0, arr;
	int big = w->big;
	size_t j;

	for (j = w->tabbase[k]; j < w->tabbase[k + 1]; j++)
		if (ckpt_of(w, j) != NULL)
			nd++;
	pclni_store32(p, (uint32_t)nd, big);
	arr = 4 + PCLN_CKPT_DESC * nd;
	nd = 0;
	for (j = w->tabbase[k]; j < w->tabbase[k + 1]; j++) {
		uint8_t *de;
		if ((ci = ckpt_of(w, j)) == NULL)
			continue;
		de = p + 4 + PCLN_CKPT_DESC * nd++;
		pclni_store16(de, (uint32_t)(j - w->tabbase[k]), big);
		pclni_store16(de + 2, ci->form, big);
		pclni_store32(de + 4, (uint32_t)arr, big);
		pclni_store32(de + 8, ci->count, big);
		arr += ckpt_arrays(w, ci, p + arr);
	}
	*len = arr;
}

/* PCCKPT: the header, start[nfunc + 1], the blocks. */
static int
put_ckpt(struct wstate *w, uint8_t *p, uint64_t *len)
{
	uint64_t c, blocks, bl;
	int big = w->big;
	size_t k;

	pclni_store32(p + PCLN_CKPT_STRIDE, w->b->ckstride, big);
	pclni_store32(p + PCLN_CKPT_BLKBYTES, w->ckblk[w->n], big);
	c = PCLN_CKPT_HDR;
	for (k = 0; k <= w->n; k++)
		pclni_store32(p + c + 4 * k, w->ckblk[k], big);
	c += 4 * ((uint64_t)w->n + 1);
	blocks = c;
	for (k = 0; k < w->n; k++) {
		AT("trailer: PCCKPT block", c, blocks + w->ckblk[k]);
		if (w->ckblk[k + 1] == w->ckblk[k])
			continue;
		put_ckpt_block(w, k, p + c, &bl);
		c += bl;
	}
	*len = c;
	return 0;
}

/* BUILDID: the build-id's bytes as they are. */
static int
put_buildid(struct wstate *w, uint8_t *p, uint64_t *len)
{
	memcpy(p, w->b->buildid, w->b->nbuildid);
	*len = w->b->nbuildid;
	return 0;
}

/* SYMNAME: the count, then (function-table position, name's blob
 * offset) of each function whose symbol table names it otherwise. */
static int
put_symname(struct wstate *w, uint8_t *p, uint64_t *len)
{
	uint64_t c = PCLN_SYMN_HDR;
	size_t k;

	pclni_store32(p, (uint32_t)w->nsymname, w->big);
	pclni_store32(p + 4, 0, w->big);
	for (k = 0; k < w->n; k++) {
		const struct bfunc *f = wfunc(w, k);
		if (f->symname == 0)
			continue;
		pclni_store32(p + c, (uint32_t)k, w->big);
		pclni_store32(p + c + 4, (uint32_t)w->names_start +
		    w->b->names.off[f->symname - 1], w->big);
		c += PCLN_SYMN_SIZE;
	}
	*len = c;
	return 0;
}

static const struct {
	uint32_t tag;
	const char *name, *end;	/* for "bad math in ..." */
	int (*put)(struct wstate *, uint8_t *, uint64_t *);
} writers[] = {
	{ PCLN_SECT_FUNCSIZE, "trailer: FUNCSIZE", "trailer: FUNCSIZE end",
	  put_funcsize },
	{ PCLN_SECT_INLTREE, "trailer: INLTREE", "trailer: INLTREE end",
	  put_inltree },
	{ PCLN_SECT_FUNCINDEX, "trailer: FUNCINDEX", "trailer: FUNCINDEX end",
	  put_findex },
	{ PCLN_SECT_PCCKPT, "trailer: PCCKPT", "trailer: PCCKPT end",
	  put_ckpt },
	{ PCLN_SECT_BUILDID, "trailer: BUILDID", "trailer: BUILDID end",
	  put_buildid },
	{ PCLN_SECT_INLPACK, "trailer: INLPACK", "trailer: INLPACK end",
	  put_inltree },
	{ PCLN_SECT_SYMNAME, "trailer: SYMNAME", "trailer: SYMNAME end",
	  put_symname },
};
#define NWRITERS	(sizeof writers / sizeof writers[0])

/* Write the trailer directory entry (TAG, OFF, SIZE) at P; return its
 * size. */
static size_t
put_dirent(uint8_t *p, uint32_t tag, uint64_t off, uint64_t size, int big)
{
	pclni_store32(p + PCLN_DIRENT_TAG, tag, big);
	pclni_store32(p + PCLN_DIRENT_OFF, (uint32_t)off, big);
	pclni_store32(p + PCLN_DIRENT_SIZEF, (uint32_t)size, big);
	return PCLN_DIRENT_SIZE;
}

/* The directory and the footer, its checksum last. */
static int
put_dir_footer(struct wstate *w, uint64_t *cp)
{
	uint8_t *buf = w->buf, *ft;
	uint64_t c = *cp;
	int big = w->big;
	unsigned k;

	AT("trailer: directory", c, w->dir_off);
	for (k = 0; k < w->nsect; k++)
		c += put_dirent(buf + c, w->sect[k].tag, w->sect[k].off,
		    w->sect[k].size, big);
	AT("trailer: footer", c, w->foot_off);
	ft = buf + c;
	pclni_store32(ft + PCLN_FOOTER_VERSION, PCLN_TRAILER_VERSION, big);
	pclni_store32(ft + PCLN_FOOTER_GO12SIZE, (uint32_t)w->go12size, big);
	pclni_store32(ft + PCLN_FOOTER_DIROFF, (uint32_t)w->dir_off, big);
	pclni_store32(ft + PCLN_FOOTER_NSECT, w->nsect, big);
	memcpy(ft + PCLN_FOOTER_MAGIC, PCLN_TRAILER_MAGIC, 8);
	pclni_store64(ft + PCLN_FOOTER_CHECKSUM,
	    XXH64(buf, (size_t)w->total - 16, 0), 1);
	*cp = c + PCLN_FOOTER_SIZE;
	return 0;
}

int
pclni_build_put_trailer(struct wstate *w, uint64_t *cp)
{
	uint64_t c = *cp, len;
	unsigned k, i;

	for (k = 0; k < w->nsect; k++) {
		const struct wsect *s = &w->sect[k];
		for (i = 0; i < NWRITERS && writers[i].tag != s->tag; i++)
			;
		c = pclni_align(c, PCLN_SECT_ALIGN);
		if (i == NWRITERS)	/* a planned tag without a writer */
			return pclni_build_badmath(w, "trailer: a section",
			    c, s->off);
		AT(writers[i].name, c, s->off);
		if (writers[i].put(w, w->buf + c, &len) != 0)
			return -1;
		c += len;
		AT(writers[i].end, c, s->off + s->size);
	}
	c = pclni_align(c, PCLN_SECT_ALIGN);
	*cp = c;
	return put_dir_footer(w, cp);
}
