/* build_write.c -- pcln_builder_write: lay out, deduplicate and encode
 * the blob, in the steps build.h lists.
 *
 * Layout written (see runtime/pclnrt_format.h for the field offsets):
 *
 *   header | functab | sentinel end pc | uint32 file table offset
 *   | pad to P | Func records (each P-aligned, in entry order)
 *   | names (function names, then file paths; NUL-terminated, deduplicated)
 *   | pc-value tables (deduplicated by content)
 *   | pad to 4 | file table                       <- end of the Go 1.2 part
 *   [ | the trailer (build_trailer.c) ]           <- unless PCLN_WRITE_GO12
 *
 * Memory: the write needs about the output's size again plus 20 bytes
 * per function and 4 per table.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "build.h"

int
pclni_build_badmath(struct wstate *w, const char *what, uint64_t off,
    uint64_t end)
{
	return pclni_seterr(w->err, PCLN_EMATH, (int64_t)off,
	    "bad math in %s: off=%" PRIu64 " but end=%" PRIu64, what, off, end);
}

int
pclni_build_nomem(struct wstate *w)
{
	return pclni_seterr(w->err, PCLN_ENOMEM, -1, "write: out of memory");
}

int
pclni_build_range(struct wstate *w)
{
	return pclni_seterr(w->err, PCLN_ERANGE, -1,
	    "write: blob would exceed 2 GiB; offsets must fit int32");
}

/* The writer checks its own arithmetic: C must be where the plan put
 * WHAT, WANT. */
#define AT(what, c, want) \
	do { \
		if ((c) != (want)) \
			return pclni_build_badmath(w, what, c, want); \
	} while (0)

static int
skey_cmp(const void *a, const void *b)
{
	const struct skey *x = a, *y = b;

	if (x->entry != y->entry)
		return x->entry < y->entry ? -1 : 1;
	return x->h < y->h ? -1 : x->h > y->h;
}

/* Size of a Func record with NPCDATA and NFUNCDATA slots. */
static uint64_t
func_rec_size(unsigned ps, uint32_t npcdata, uint32_t nfuncdata)
{
	if (nfuncdata == 0)
		return PCLN_FUNC_PCDATA(ps, (uint64_t)npcdata);
	return pclni_funcdata_off(ps, npcdata, nfuncdata);
}

static void
wstate_free(struct wstate *w)
{
	free(w->key);
	free(w->funcoff);
	free(w->tabid);
	free(w->tabbase);
	pclni_pool_free(&w->tabs);
	free(w->ck);
	free(w->cks);
	free(w->ckblk);
	free(w->layout);
	free(w->buf);
}

/* --- planning ---------------------------------------------------------- */

/* Sort by entry (the handle breaks ties, so the order is total and the
 * output deterministic), then reject overlaps. */
static int
sort_funcs(struct wstate *w)
{
	const pcln_builder *b = w->b;
	size_t n = w->n, k;

	w->key = malloc((n ? n : 1) * sizeof *w->key);
	w->funcoff = malloc((n ? n : 1) * sizeof *w->funcoff);
	w->tabbase = malloc((n + 1) * sizeof *w->tabbase);
	w->layout = calloc(n ? n : 1, sizeof *w->layout);
	if (!w->key || !w->funcoff || !w->tabbase || !w->layout)
		return pclni_build_nomem(w);
	for (k = 0; k < n; k++) {
		w->key[k].entry = b->f[k].entry;
		w->key[k].h = (uint32_t)k;
	}
	for (k = 1; k < n; k++)		/* mostly in order already */
		if (skey_cmp(&w->key[k - 1], &w->key[k]) > 0)
			break;
	if (k < n)
		qsort(w->key, n, sizeof *w->key, skey_cmp);
	for (k = 1; k < n; k++) {
		const struct bfunc *p = wfunc(w, k - 1), *f = wfunc(w, k);
		if (p->entry + p->size > f->entry)
			return pclni_seterr(w->err, PCLN_EOVERLAP, -1,
			    "function %" PRIu32 " (%s) [0x%" PRIx64 ", 0x%"
			    PRIx64 ") overlaps function %" PRIu32 " (%s) [0x%"
			    PRIx64 ", 0x%" PRIx64 ")", w->key[k - 1].h,
			    pclni_build_fname(b, p), p->entry, p->entry + p->size,
			    w->key[k].h, pclni_build_fname(b, f), f->entry,
			    f->entry + f->size);
	}
	return 0;
}

/* Place the header, functab, Func records and names; number every
 * function's tables (W->tabbase). */
static int
plan_go12(struct wstate *w)
{
	const pcln_builder *b = w->b;
	pcln_build_stats *st = &w->st;
	unsigned ps = w->ps;
	uint64_t pos;
	size_t k;

	w->hdr_end = PCLN_HDR_END(ps, (uint64_t)w->n);
	st->header = 8 + ps;
	st->functab = w->hdr_end - st->header;
	pos = pclni_align(w->hdr_end, ps);
	st->padding += pos - w->hdr_end;
	for (k = 0; k < w->n; k++) {
		const struct bfunc *f = wfunc(w, k);
		uint64_t rs = func_rec_size(ps, f->npcdata, f->nfuncdata);
		if (pos > INT32_MAX)
			return pclni_build_range(w);
		w->funcoff[k] = (uint32_t)pos;
		w->tabbase[k] = w->ntab;
		w->ntab += 3 + (size_t)f->npcdata;
		st->funcs += rs;
		st->padding += pclni_align(rs, ps) - rs;
		pos += pclni_align(rs, ps);
	}
	w->tabbase[w->n] = w->ntab;
	w->funcs_end = pos;
	w->names_start = pos;
	st->names = b->names.len + b->files.len;
	st->nnames = w->n;
	st->nnames_unique = b->names.n;
	st->dedupe_saved = b->names_total - b->names.len;
	w->tables_start = pos + st->names;
	return 0;
}

/* The most bytes encode() can write for T. */
static size_t
encoded_max(const struct ptab *t)
{
	return t->n == 0 ? 0 : (size_t)t->len + 2 * PCLN_VARINT_MAX + 1;
}

/* Encode table T of a function of SIZE bytes at OUT (room for
 * encoded_max(T) bytes): its complete rows, the open row closed at SIZE,
 * then the terminating 0 (struct ptab).  An empty T encodes as nothing
 * (an absent table).  Returns the bytes written; *ROWS gets the number
 * of rows. */
static size_t
encode(const struct ptab *t, uint32_t size, unsigned q, uint8_t *out,
    size_t *rows)
{
	size_t len;

	*rows = 0;
	if (t->n == 0)
		return 0;
	if (t->len > 0)		/* T->p is NULL before the first row */
		memcpy(out, t->p, t->len);
	len = t->len;
	len += pcln_put_uvarint(out + len,
	    pcln_zigzag((int32_t)((uint32_t)t->val - (uint32_t)t->prev)));
	len += pcln_put_uvarint(out + len, (size - t->start) / q);
	out[len++] = 0;
	*rows = (size_t)t->rows + 1;
	return len;
}

/* A table encoded at the end of the pool's data, not yet added. */
struct pend {
	size_t k, j, len, rows;
	uint32_t h;
};

/* Encode table J of the function at sorted position K after the pool's
 * data and OVER bytes more (a table still pending) into *PD, and ask
 * for its pool slot: the slot is read from memory while the pending
 * table is added (one miss a table, in a pool of millions). */
static int
encode_next(struct wstate *w, size_t k, size_t j, size_t over,
    struct pend *pd)
{
	const struct bfunc *f = wfunc(w, k);
	const struct ptab *t = j < 3 ? &f->tab[j] : &f->pcdata[j - 3];
	uint8_t *at = w->tabs.data + w->tabs.len + over;	/* in W->buf */

	if (encoded_max(t) > w->tabs.cap - w->tabs.len - over)
		return pclni_build_badmath(w, "table bound", w->tabs.len +
		    over + encoded_max(t), w->tabs.cap);
	pd->k = k;
	pd->j = j;
	if ((pd->len = encode(t, f->size, w->q, at, &pd->rows)) == 0)
		return 0;
	pd->h = pclni_pool_hash(at, pd->len);
	pclni_pool_prefetch(&w->tabs, pd->h);
	return 0;
}

/* Add the table PD, encoded at the end of the pool's data, to the pool
 * of distinct tables (with its checkpoints, for a trailer). */
static int
add_table(struct wstate *w, const struct pend *pd)
{
	size_t k = pd->k, j = pd->j, len = pd->len, rows = pd->rows;
	pcln_build_stats *st = &w->st;
	uint8_t *at = w->tabs.data + w->tabs.len;
	long id;
	int isnew, rc;

	st->ntables++;
	id = pclni_pool_add_hashed(&w->tabs, at, len, pd->h, &isnew);
	if (id == -1)
		return pclni_build_nomem(w);
	if (id < 0)
		return pclni_build_range(w);
	w->tabid[w->tabbase[k] + j] = (uint32_t)id + 1;
	if (!isnew) {
		st->dedupe_saved += len;
		return 0;
	}
	st->ntables_unique++;
	st->rows += rows;
	if (w->trailer) {
		if (pclni_grow(&w->ck, &w->ckcap, (size_t)id + 1,
		    sizeof *w->ck) != 0)
			return pclni_build_nomem(w);
		rc = pclni_build_ckpt_table(w, at, len,
		    rows, &w->ck[id]);
		if (rc == -1)
			return pclni_build_nomem(w);
		if (rc == -2)
			return pclni_build_range(w);
		if (rc != 0)
			return pclni_build_badmath(w, "checkpoints", w->ncks,
			    w->ck[id].first);
	}
	if (j == PCLN_TAB_PCSP)
		st->pcsp += len;
	else if (j == PCLN_TAB_PCFILE)
		st->pcfile += len;
	else if (j == PCLN_TAB_PCLN)
		st->pcln += len;
	else
		st->pcdata += len;
	return 0;
}

/* Encode and deduplicate every table, in function order. */
static int
encode_tables(struct wstate *w)
{
	struct pend pd, nx;
	int have = 0;
	size_t k, j;

	size_t bound = 0;

	w->tabid = calloc(w->ntab ? w->ntab : 1, sizeof *w->tabid);
	if (w->tabid == NULL)
		return pclni_build_nomem(w);
	/* The tables are encoded straight into the blob, after the names,
	 * each deduplicated where it lands: room for all of them before
	 * deduplication now (untouched pages cost nothing), the blob cut
	 * to its size once the rest is planned (write_steps). */
	for (k = 0; k < w->n; k++) {
		const struct bfunc *f = wfunc(w, k);
		for (j = 0; j < 3 + (size_t)f->npcdata; j++)
			bound += encoded_max(j < 3 ? &f->tab[j] :
			    &f->pcdata[j - 3]);
	}
	if (bound > (size_t)INT32_MAX)
		bound = (size_t)INT32_MAX;	/* the pool's limit */
	w->bufsize = (size_t)w->tables_start + bound;
	if ((w->buf = calloc(1, w->bufsize ? w->bufsize : 1)) == NULL)
		return pclni_build_nomem(w);
	pclni_pool_init_in(&w->tabs, w->buf + w->tables_start, bound);
	/* One table pending: encoded after it, each table is added in
	 * order once the next one is encoded; where the pending one was a
	 * duplicate (the pool's data did not grow) the next moves back
	 * over it. */
	for (k = 0; k < w->n; k++)
		for (j = 0; j < 3 + (size_t)wfunc(w, k)->npcdata; j++) {
			size_t before = w->tabs.len;
			if (encode_next(w, k, j, have ? pd.len : 0, &nx) != 0)
				return -1;
			if (nx.len == 0)
				continue;
			if (have) {
				if (add_table(w, &pd) != 0)
					return -1;
				if (w->tabs.len == before)
					memmove(w->tabs.data + before,
					    w->tabs.data + before + pd.len,
					    nx.len);
			}
			pd = nx;
			have = 1;
		}
	if (have && add_table(w, &pd) != 0)
		return -1;
	return 0;
}

/* Place the file table after the tables: the Go 1.2 part's end. */
static void
plan_filetab(struct wstate *w)
{
	uint64_t pos = w->tables_start + w->tabs.len;

	w->filetab_off = pclni_align(pos, 4);
	w->st.padding += w->filetab_off - pos;
	w->st.filetab = 4 * (w->nfile + 1);
	w->go12size = w->filetab_off + w->st.filetab;
	w->total = w->go12size;
}

/* The stats' parts must add up to the blob. */
static int
plan_check(struct wstate *w)
{
	pcln_build_stats *st = &w->st;
	uint64_t sum;

	if (w->total > INT32_MAX)
		return pclni_build_range(w);
	st->nfunc = w->n;
	st->nfile = w->nfile;
	st->total = (size_t)w->total;
	sum = st->header + st->functab + st->funcs + st->names + st->filetab +
	    st->pcsp + st->pcfile + st->pcln + st->pcdata + st->padding +
	    st->trailer;
	AT("stats", sum, w->total);
	return 0;
}

/* --- putting ----------------------------------------------------------- */

/* Header, functab, sentinel, file table offset. */
static int
put_header(struct wstate *w, uint64_t *cp)
{
	uint8_t *buf = w->buf;
	unsigned ps = w->ps;
	int big = w->big;
	uint64_t c, n = w->n;
	size_t k;

	pclni_store32(buf, PCLN_GO12_MAGIC, big);
	buf[PCLN_HDR_QUANTUM] = (uint8_t)w->q;
	buf[PCLN_HDR_PTRSIZE] = (uint8_t)ps;
	pclni_storeptr(buf + PCLN_HDR_NFUNC, n, ps, big);
	c = PCLN_FUNCTAB_OFF(ps);
	for (k = 0; k < n; k++) {
		pclni_storeptr(buf + c, wfunc(w, k)->entry, ps, big);
		c += ps;
		pclni_storeptr(buf + c, w->funcoff[k], ps, big);
		c += ps;
	}
	AT("functab", c, PCLN_FTAB_END(ps, n));
	if (n > 0)
		pclni_storeptr(buf + c, wmaxpc(w), ps, big);
	c += ps;
	pclni_store32(buf + c, (uint32_t)w->filetab_off, big);
	c += 4;
	AT("functab header", c, w->hdr_end);
	*cp = c;
	return 0;
}

/* The blob offset of table J of the function at sorted position K, 0 if
 * it has none. */
static uint32_t
tab_ref(const struct wstate *w, size_t k, size_t j)
{
	uint32_t id = w->tabid[w->tabbase[k] + j];

	return id ? (uint32_t)w->tables_start + w->tabs.off[id - 1] : 0;
}

/* Store V at field AT of the record R; the field's end. */
static uint64_t
put32_at(uint8_t *r, uint64_t at, uint32_t v, int big)
{
	pclni_store32(r + at, v, big);
	return at + 4;
}

static uint64_t
putptr_at(uint8_t *r, uint64_t at, uint64_t v, unsigned ps, int big)
{
	pclni_storeptr(r + at, v, ps, big);
	return at + ps;
}

/* The Func record of the function at sorted position K, at its planned
 * offset (*CP, the previous record's end, rounded up to P); fills its
 * layout and advances *CP to the record's end. */
static int
put_func(struct wstate *w, size_t k, uint64_t *cp)
{
	const struct bfunc *f = wfunc(w, k);
	pcln_func_layout *lo = &w->layout[w->key[k].h];
	unsigned ps = w->ps;
	int big = w->big;
	uint64_t off = w->funcoff[k], c = pclni_align(*cp, ps), end;
	uint8_t *r = w->buf + off;
	size_t j;

	AT("functab: Func record start", c, off);
	for (j = 0; j < 3; j++) {
		uint32_t id = w->tabid[w->tabbase[k] + j];
		lo->tab_off[j] = tab_ref(w, k, j);
		lo->tab_len[j] = id ? w->tabs.size[id - 1] : 0;
	}
	lo->entry = f->entry;
	lo->size = f->size;
	lo->funcoff = (uint32_t)off;
	end = putptr_at(r, PCLN_FUNC_ENTRY, f->entry, ps, big);	/* entry */
	end = put32_at(r, PCLN_FUNC_NAMEOFF(ps),		/* nameoff */
	    (uint32_t)w->names_start + w->b->names.off[f->name], big);
	end = put32_at(r, PCLN_FUNC_ARGS(ps), (uint32_t)f->args, big);
	end = put32_at(r, PCLN_FUNC_FRAME(ps), (uint32_t)f->frame, big);
	end = put32_at(r, PCLN_FUNC_PCSP(ps),			/* pcsp */
	    tab_ref(w, k, PCLN_TAB_PCSP), big);
	end = put32_at(r, PCLN_FUNC_PCFILE(ps),			/* pcfile */
	    tab_ref(w, k, PCLN_TAB_PCFILE), big);
	end = put32_at(r, PCLN_FUNC_PCLN(ps),			/* pcln */
	    tab_ref(w, k, PCLN_TAB_PCLN), big);
	end = put32_at(r, PCLN_FUNC_NPCDATA(ps), f->npcdata, big);
	end = put32_at(r, PCLN_FUNC_NFUNCDATA(ps), f->nfuncdata, big);
	for (j = 0; j < f->npcdata; j++)			/* pcdata[j] */
		end = put32_at(r, PCLN_FUNC_PCDATA(ps, (uint64_t)j),
		    tab_ref(w, k, PCLN_TAB_PCDATA(j)), big);
	for (j = 0; j < f->nfuncdata; j++)			/* funcdata[j] */
		end = putptr_at(r, pclni_funcdata_off(ps, f->npcdata, j),
		    f->funcdata[j], ps, big);
	AT("functab: Func record end", off + end,
	    off + func_rec_size(ps, f->npcdata, f->nfuncdata));
	*cp = off + end;
	return 0;
}

/* Names, then file paths; tables; file table. */
static int
put_strings_tables(struct wstate *w, uint64_t *cp)
{
	const pcln_builder *b = w->b;
	uint8_t *buf = w->buf;
	uint64_t c = *cp;
	size_t j;

	if (b->names.len)
		memcpy(buf + c, b->names.data, b->names.len);
	c += b->names.len;
	if (b->files.len)
		memcpy(buf + c, b->files.data, b->files.len);
	c += b->files.len;
	AT("names", c, w->tables_start);
	c += w->tabs.len;	/* encoded in place (encode_tables) */
	c = pclni_align(c, 4);
	AT("pc-value tables", c, w->filetab_off);
	pclni_store32(buf + c, (uint32_t)(w->nfile + 1), w->big);
	c += 4;
	for (j = 0; j < w->nfile; j++) {
		pclni_store32(buf + c, (uint32_t)(w->names_start +
		    b->names.len + b->files.off[j]), w->big);
		c += 4;
	}
	AT("file table", c, w->go12size);
	*cp = c;
	return 0;
}

/* The Go 1.2 part, from the header to the end of the file table. */
static int
put_go12(struct wstate *w, uint64_t *cp)
{
	size_t k;

	if (put_header(w, cp) != 0)
		return -1;
	for (k = 0; k < w->n; k++)
		if (put_func(w, k, cp) != 0)
			return -1;
	*cp = pclni_align(*cp, w->ps);
	AT("functab: end of Func records", *cp, w->funcs_end);
	return put_strings_tables(w, cp);
}

/* --- the steps --------------------------------------------------------- */

/* Cut or extend W->buf, which holds the tables (encode_tables), to the
 * planned size, every byte after the tables 0. */
static int
blob_resize(struct wstate *w)
{
	size_t end = (size_t)w->tables_start + w->tabs.len;
	size_t total = (size_t)w->total;
	uint8_t *nb;

	if (end < w->bufsize)	/* duplicates encoded last */
		memset(w->buf + end, 0, w->bufsize - end);
	if ((nb = realloc(w->buf, total ? total : 1)) == NULL)
		return pclni_build_nomem(w);
	if (total > w->bufsize)
		memset(nb + w->bufsize, 0, total - w->bufsize);
	w->buf = nb;
	w->bufsize = total;
	w->tabs.data = NULL;	/* moved with the blob; no longer needed */
	return 0;
}

static int
write_steps(struct wstate *w)
{
	uint64_t c = 0;
	size_t k;
	pcln_err verr;

	if (sort_funcs(w) != 0 || plan_go12(w) != 0 || encode_tables(w) != 0)
		return -1;
	plan_filetab(w);
	for (k = 0; k < w->n; k++)
		w->ninl += w->b->f[k].ninl;
	if (w->trailer && pclni_build_plan_trailer(w) != 0)
		return -1;
	if (plan_check(w) != 0)
		return -1;
	if (blob_resize(w) != 0)
		return -1;
	if (put_go12(w, &c) != 0)
		return -1;
	if (w->trailer && pclni_build_put_trailer(w, &c) != 0)
		return -1;
	AT("blob end", c, w->total);
	/* The last word: the verifier must accept what we wrote. */
	if (pcln_verify(w->buf, (size_t)w->total, &verr) != 0)
		return pclni_seterr(w->err, PCLN_EMATH, verr.offset,
		    "bad math: written blob fails verification: %s",
		    verr.msg);
	return 0;
}

int
pcln_builder_write(pcln_builder *b, unsigned flags, uint8_t **out,
    size_t *len, pcln_err *err)
{
	struct wstate w;

	pclni_clearerr(err);
	if (b == NULL || out == NULL || len == NULL)
		return pclni_seterr(err, PCLN_EINVAL, -1, "write: NULL argument");
	if (flags & ~(unsigned)(PCLN_WRITE_GO12 | PCLN_WRITE_INDEX |
	    PCLN_WRITE_NOINDEX | PCLN_WRITE_INLTREE) || (flags & PCLN_WRITE_INDEX &&
	    flags & PCLN_WRITE_NOINDEX))
		return pclni_seterr(err, PCLN_EINVAL, -1,
		    "write: unknown flags 0x%x", flags);
	memset(&w, 0, sizeof w);
	pclni_pool_init(&w.tabs);
	w.b = b;
	w.flags = flags;
	w.ps = b->t.ptrsize;
	w.q = b->t.quantum;
	w.big = b->t.bigendian;
	w.trailer = !(flags & PCLN_WRITE_GO12);
	w.n = b->nf;
	w.nfile = b->files.n;
	w.err = err;
	if (write_steps(&w) != 0) {
		wstate_free(&w);
		return -1;
	}
	*out = w.buf;
	*len = (size_t)w.total;
	w.buf = NULL;
	free(b->layout);
	b->layout = w.layout;
	b->nlayout = w.n;
	w.layout = NULL;
	b->stats = w.st;
	wstate_free(&w);
	return 0;
}
