/* pclnrt.c -- one blob: open it, find a pc's function, read its tables.
 *
 * Freestanding: no libc, no allocation, no globals, no locks; see
 * pclnrt.h.  Every read goes through a bounds test against the blob's
 * length, so an unverified blob costs wrong answers, never a fault.
 * Offsets are computed in uint64_t, where a 32-bit offset plus a 32-bit
 * count times 8 cannot overflow.  No 64-bit division anywhere: on 32-bit
 * targets it would call a libgcc helper (__udivdi3, __aeabi_uldivmod).
 */
#include "pclnrt.h"
#include "rt_private.h"
#include "pclnrt_format.h"

/* The BPF build (bpf/) compiles the lookups only: opening a blob and
 * the cache are the host's. */
#ifndef PCLNRT_BPF
#define INIT_MSG_(code, val, msg) case code: return msg;

const char *
pclnrt_init_strerror(int code)
{
	switch (code) {
	PCLNRT_INIT_ERROR_LIST(INIT_MSG_)
	default:
		return "unknown error";
	}
}
#endif /* !PCLNRT_BPF */


static uint64_t
ftab_entry(const pclnrt_table *t, uint64_t i)
{
	return pclnrt_loadptr(t->blob + PCLN_FTAB_ENTRY((uint64_t)t->ptrsize,
	    i), t->ptrsize, t->big);
}

#ifndef PCLNRT_BPF
/* Parse the trailer if the blob ends in one.  Return 0 with *GO12 (the
 * Go 1.2 part's length) and S (the known sections present; the last of
 * a repeated tag) set, or -1 if the footer, directory or a section
 * cannot be right.  A trailer of an unknown version is ignored, as if
 * absent, and so are sections of unknown tags. */
static int
trailer(const uint8_t *b, size_t len, int big, size_t *go12,
    struct pclnrt_sections *s)
{
	struct pclnrt_footer f;

	*go12 = len;
	if (!pclnrt_footer(b, len, big, &f) ||
	    f.version != PCLN_TRAILER_VERSION) {
		pclnrt_sections(b, &f, 0, big, s);	/* none */
		return 0;
	}
	if (f.go12size > f.diroff || f.diroff % PCLN_SECT_ALIGN != 0 ||
	    !pclnrt_dir_fits(&f, f.nsect) ||
	    pclnrt_sections(b, &f, f.nsect, big, s) != 0)
		return -1;
	*go12 = f.go12size;
	return 0;
}

/* Section TAG of S, NULL if absent. */
static const uint8_t *
sect(const uint8_t *b, const struct pclnrt_sections *s, unsigned tag)
{
	return s->present[tag] ? b + s->off[tag] : NULL;
}

int
pclnrt_init(pclnrt_table *t, const void *blob, size_t len)
{
	const uint8_t *b = blob;
	struct pclnrt_sections sx;
	struct pclnrt_header h;
	uint64_t ps, nfunc, ft, ns, k;
	size_t go12;
	unsigned itag;
	int big, rc;

	t->blob = b;
	t->len = len;
	t->funcsize = NULL;
	t->nfunc = 0;
	t->minpc = t->maxpc = 0;
	t->filetab = 0;
	t->nslots = 0;
	t->ptrsize = t->quantum = t->big = 0;
	t->findex = NULL;
	t->findexlen = 0;
	t->inltree = NULL;
	t->inltreelen = 0;
	t->inlform.size = 0;
	t->ckpt = NULL;
	t->ckptlen = 0;
	t->buildid = NULL;
	t->buildidlen = 0;
	t->symname = NULL;
	t->nsymname = 0;
	t->lastnul = 0;
	if (b == NULL || len < 8)
		return PCLNRT_EINIT_SHORT;
	if ((rc = pclnrt_header(b, &h)) == PCLN_HDR_EMAGIC)
		return PCLNRT_EINIT_MAGIC;
	if (rc != PCLN_HDR_OK || !h.padok)
		return PCLNRT_EINIT_HEADER;
	big = h.big;
	ps = h.ptrsize;
	if (len < PCLN_HDR_END(ps, 0))
		return PCLNRT_EINIT_SHORT;
	if (trailer(b, len, big, &go12, &sx) != 0)
		return PCLNRT_EINIT_TRAILER;
	nfunc = pclnrt_loadptr(b + PCLN_HDR_NFUNC, (unsigned)ps, big);
	/* The functab, sentinel and file-table offset fit in the Go 1.2
	 * part. */
	if (!pclnrt_nfunc_fits(go12, (unsigned)ps, nfunc))
		return PCLNRT_EINIT_FUNCTAB;
	if (sx.present[PCLN_SECT_FUNCSIZE] &&
	    sx.size[PCLN_SECT_FUNCSIZE] != 4 * nfunc)
		return PCLNRT_EINIT_TRAILER;
	t->ptrsize = (uint8_t)ps;
	t->quantum = h.quantum;
	t->big = (uint8_t)big;
	t->nfunc = nfunc;
	t->maxpc = ftab_entry(t, nfunc);
	t->minpc = nfunc > 0 ? ftab_entry(t, 0) : t->maxpc;
	if (nfunc > 0 && t->maxpc <= ftab_entry(t, nfunc - 1)) {
		t->nfunc = 0;
		return PCLNRT_EINIT_SENTINEL;
	}
	ft = pclnrt_load32(b + PCLN_FILETABOFF_OFF(ps, nfunc), big);
	ns = 0;
	if (ft != 0) {
		if (ft % 4 != 0 || !pclnrt_fits_(len, ft, 4) ||
		    (ns = pclnrt_load32(b + ft, big)) == 0 ||
		    !pclnrt_fits_(len, ft, 4 * ns)) {
			t->nfunc = 0;
			return PCLNRT_EINIT_FILETAB;
		}
	}
	t->filetab = (uint32_t)ft;
	t->nslots = (uint32_t)ns;
	t->funcsize = sect(b, &sx, PCLN_SECT_FUNCSIZE);
	/* INLPACK if there is one, else INLTREE (blobs before INLPACK). */
	itag = sx.present[PCLN_SECT_INLPACK] ? PCLN_SECT_INLPACK :
	    PCLN_SECT_INLTREE;
	t->inltree = sect(b, &sx, itag);
	t->inltreelen = sx.size[itag];
	/* A header that does not fit: pclnrt_inline answers CORRUPT. */
	if (t->inltree != NULL && pclnrt_inlform_get(t->inltree,
	    t->inltreelen, itag, nfunc, big, &t->inlform) != 0)
		t->inlform.size = 0;
	/* An index or checkpoint section whose header does not fit is
	 * ignored: lookups then binary-search and decode from the entry. */
	if (nfunc > 0 && pclnrt_index_ok(sect(b, &sx, PCLN_SECT_FUNCINDEX),
	    sx.size[PCLN_SECT_FUNCINDEX], big, t->minpc, t->maxpc)) {
		t->findex = sect(b, &sx, PCLN_SECT_FUNCINDEX);
		t->findexlen = sx.size[PCLN_SECT_FUNCINDEX];
	}
	if (pclnrt_ckpt_ok(sect(b, &sx, PCLN_SECT_PCCKPT),
	    sx.size[PCLN_SECT_PCCKPT], big, nfunc)) {
		t->ckpt = sect(b, &sx, PCLN_SECT_PCCKPT);
		t->ckptlen = sx.size[PCLN_SECT_PCCKPT];
	}
	if (sx.size[PCLN_SECT_BUILDID] > 0 &&
	    sx.size[PCLN_SECT_BUILDID] <= PCLN_BUILDID_MAX) {
		t->buildid = sect(b, &sx, PCLN_SECT_BUILDID);
		t->buildidlen = (uint8_t)sx.size[PCLN_SECT_BUILDID];
	}
	if (sx.size[PCLN_SECT_SYMNAME] >= PCLN_SYMN_HDR) {
		pclnrt_bptr q = sect(b, &sx, PCLN_SECT_SYMNAME);
		uint64_t n = pclnrt_load32(q, big);
		if (sx.size[PCLN_SECT_SYMNAME] == PCLN_SYMN_HDR +
		    PCLN_SYMN_SIZE * n && n > 0) {
			t->symname = q + PCLN_SYMN_HDR;
			t->nsymname = n;
		}
	}
	/* Every string check is then one comparison: a string at OFF ends
	 * inside the blob iff some 0 byte lies at or after OFF.  A trailer
	 * footer holds 0 bytes, so this scan is short; at worst one pass. */
	for (k = len; k > 0; k--)
		if (b[k - 1] == 0) {
			t->lastnul = k;
			break;
		}
	return PCLNRT_EINIT_OK;
}
#endif /* !PCLNRT_BPF */

/* Offset of table TABLE of F, 0 if absent; -1 in *BAD if its slot does
 * not fit in the blob. */
static uint32_t
tab_off(const pclnrt_func *f, uint64_t table, int *bad)
{
	const pclnrt_table *t = f->t;
	uint64_t ps = t->ptrsize, slot;

	*bad = 0;
	if (table <= PCLN_TAB_PCLN)
		slot = PCLN_FUNC_PCSP(ps) + 4 * table;
	else if (table - PCLN_TAB_PCDATA(0) < f->npcdata)
		slot = PCLN_FUNC_PCDATA(ps, table - PCLN_TAB_PCDATA(0));
	else
		return 0;
	if (!pclnrt_fits_(t->len, f->funcoff + slot, 4)) {
		*bad = 1;
		return 0;
	}
	return pclnrt_load32(t->blob + f->funcoff + slot, t->big);
}

int
pclnrt_findfunc(const pclnrt_table *t, uint64_t pc, pclnrt_func *f)
{
	uint64_t lo, entry, next, end, funcoff, ps = t->ptrsize;
	pclnrt_bptr rec;

	if (t->nfunc == 0 || pc < t->minpc || pc >= t->maxpc)
		return PCLNRT_NOTFOUND;
	lo = pclnrt_functab_find(t->blob + PCLN_FUNCTAB_OFF(ps), (unsigned)ps,
	    t->big, t->nfunc, t->findex, t->minpc, pc);
	entry = ftab_entry(t, lo);
	next = ftab_entry(t, lo + 1);
	if (pc < entry || pc >= next)
		return PCLNRT_CORRUPT;	/* an unsorted function table */
	funcoff = pclnrt_loadptr(t->blob + PCLN_FTAB_FUNCOFF(ps, lo),
	    (unsigned)ps, t->big);
	if (!pclnrt_fits_(t->len, funcoff, PCLN_FUNC_SIZE(ps)))
		return PCLNRT_CORRUPT;
	rec = t->blob + funcoff;
	if (pclnrt_loadptr(rec + PCLN_FUNC_ENTRY, (unsigned)ps, t->big) !=
	    entry)
		return PCLNRT_CORRUPT;
	f->t = t;
	f->funcoff = (uint32_t)funcoff;
	f->npcdata = pclnrt_load32(rec + PCLN_FUNC_NPCDATA(ps), t->big);
	f->nfuncdata = pclnrt_load32(rec + PCLN_FUNC_NFUNCDATA(ps), t->big);
	if (funcoff > UINT32_MAX)
		return PCLNRT_CORRUPT;
	if (t->funcsize) {
		end = entry + pclnrt_load32(t->funcsize + 4 * lo, t->big);
	} else if (pclnrt_func_end(t->blob, t->len, t->len, (unsigned)ps,
	    t->big, t->quantum, funcoff, entry, next, &end) != 0) {
		return PCLNRT_CORRUPT;
	}
	if (end <= entry || end > next)
		return PCLNRT_CORRUPT;
	if (pc >= end)
		return PCLNRT_NOTFOUND;	/* a gap between functions */
	f->name = pclnrt_cstring_(t, pclnrt_load32(rec + PCLN_FUNC_NAMEOFF(ps),
	    t->big));
	f->entry = entry;
	f->end = end;
	f->args = (int32_t)pclnrt_load32(rec + PCLN_FUNC_ARGS(ps), t->big);
	f->frame = (int32_t)pclnrt_load32(rec + PCLN_FUNC_FRAME(ps), t->big);
	f->index = (uint32_t)lo;
	if (t->ckpt)		/* the next lookup's first read */
		PCLNRT_PREFETCH(t->ckpt + PCLN_CKPT_HDR + 4 * lo);
	return PCLNRT_OK;
}

/* Position S to decode table TABLE of F for PC: at the table's start,
 * or at its last checkpoint at or before PC.  If CK is not NULL, CK->LO,
 * CK->HI: the interval of pc - entry from which the same starting point
 * is chosen (all of them without checkpoints).  Returns PCLNRT_OK, or
 * the status pclnrt_pcvalue returns without decoding. */
static int
seek(const pclnrt_func *f, int table, uint64_t pc, struct pclnrt_pcstep *s,
    struct pclnrt_ckpt *ck)
{
	const pclnrt_table *t = f->t;
	uint32_t off;
	int bad;

	if (table < 0)
		return PCLNRT_NOTFOUND;
	off = tab_off(f, (uint64_t)table, &bad);
	if (bad)
		return PCLNRT_CORRUPT;
	if (off == 0 || pc < f->entry || pc >= f->end)
		return PCLNRT_NOTFOUND;
	if (off >= t->len)
		return PCLNRT_CORRUPT;
	pclnrt_pcstep_init(s, t->blob + off, t->blob + t->len, f->entry,
	    t->quantum);
	if (ck == NULL)
		pclnrt_pcstep_seek(s, t->ckpt, t->ckptlen, t->big, t->nfunc,
		    f->index, (uint32_t)table, pc);
	else
		pclnrt_pcstep_seek_range(s, t->ckpt, t->ckptlen, t->big,
		    t->nfunc, f->index, (uint32_t)table, pc, ck);
	return PCLNRT_OK;
}

/* Decode from S to the row holding PC (seek's S).  Each step consumes a
 * byte: at most len - off steps; from a checkpoint, at most the stride
 * in a verified blob.  If FROM is not NULL, store in *FROM the least pc
 * at or above which the same rows from S give the same row: past every
 * row start decoded and every earlier row's end (the ends need not
 * rise: a row's end wraps past 2^64 in a damaged table). */
PCLNRT_INLINE int
scan(const pclnrt_func *f, struct pclnrt_pcstep *s, uint64_t pc,
    int32_t *value, uint64_t *start, uint64_t *end, uint64_t *from)
{
	uint64_t lo = s->nextpc;
	unsigned k = 0;
	int rc = 1;

	PCLNRT_WHILE(k, PCLNRT_BPF_MAXROWS, (rc = pclnrt_pcstep(s)) == 1) {
		if (pc < s->nextpc) {
			*value = s->value;
			if (start != NULL)
				*start = s->pc;
			if (end != NULL)
				*end = s->nextpc < f->end ? s->nextpc : f->end;
			if (from != NULL)
				*from = lo;
			return PCLNRT_OK;
		}
		lo = s->nextpc > lo ? s->nextpc : lo;
	}
	return rc == 0 ? PCLNRT_NOTFOUND : PCLNRT_CORRUPT;
}

int
pclnrt_pcvalue(const pclnrt_func *f, int table, uint64_t pc, int32_t *value,
    uint64_t *start, uint64_t *end)
{
	struct pclnrt_pcstep s;
	int rc;

	if ((rc = seek(f, table, pc, &s, NULL)) != PCLNRT_OK)
		return rc;
	return scan(f, &s, pc, value, start, end, NULL);
}

int
pclnrt_pcsp(const pclnrt_func *f, uint64_t pc, int32_t *spdelta)
{
	return pclnrt_pcvalue(f, PCLN_TAB_PCSP, pc, spdelta, NULL, NULL);
}

int
pclnrt_pcfile(const pclnrt_func *f, uint64_t pc, int32_t *fileno)
{
	return pclnrt_pcvalue(f, PCLN_TAB_PCFILE, pc, fileno, NULL, NULL);
}

int
pclnrt_pcdata(const pclnrt_func *f, uint32_t index, uint64_t pc,
    int32_t *value)
{
	if (index >= f->npcdata || index > 0x7fffffffu - PCLN_TAB_PCDATA(0))
		return PCLNRT_NOTFOUND;
	return pclnrt_pcvalue(f, PCLN_TAB_PCDATA((int)index), pc, value,
	    NULL, NULL);
}

int
pclnrt_funcdata(const pclnrt_func *f, uint32_t index, uint64_t *value)
{
	const pclnrt_table *t = f->t;
	uint64_t ps = t->ptrsize, off;

	if (index >= f->nfuncdata)
		return PCLNRT_NOTFOUND;
	off = f->funcoff + PCLN_FUNC_FUNCDATA(ps, (uint64_t)f->npcdata,
	    (uint64_t)index);
	if (!pclnrt_fits_(t->len, off, ps))
		return PCLNRT_CORRUPT;
	*value = pclnrt_loadptr(t->blob + off, (unsigned)ps, t->big);
	return PCLNRT_OK;
}

pclnrt_str
pclnrt_symname(const pclnrt_func *f)
{
	const pclnrt_table *t = f->t;
	uint64_t lo = 0, hi, mid;
	unsigned step;
	pclnrt_str s;

	if (t == NULL || !t->symname)
		return f->name;
	hi = t->nsymname;
	/* (records sorted by function: at most 33 halvings of 2^32) */
	for (step = 0; step < 34 && lo < hi; step++) {
		uint32_t k;
		mid = lo + (hi - lo) / 2;
		k = pclnrt_load32(t->symname + PCLN_SYMN_SIZE * mid, t->big);
		if (k == f->index) {
			s = pclnrt_cstring_(t, pclnrt_load32(t->symname +
			    PCLN_SYMN_SIZE * mid + 4, t->big));
			return s != PCLNRT_NOSTR ? s : f->name;
		}
		if (k < f->index)
			lo = mid + 1;
		else
			hi = mid;
	}
	return f->name;
}

pclnrt_str
pclnrt_filename(const pclnrt_table *t, int32_t fileno)
{
	if (fileno < 1 || (uint32_t)fileno >= t->nslots)
		return PCLNRT_NOSTR;
	/* pclnrt_init checked that all nslots slots fit. */
	return pclnrt_cstring_(t, pclnrt_load32(t->blob + t->filetab +
	    4 * (uint64_t)fileno, t->big));
}

int
pclnrt_funcline(const pclnrt_func *f, uint64_t pc, pclnrt_str *path,
    int32_t *line)
{
	struct pclnrt_pcstep sf, sl;
	int32_t fileno;
	int rc, rcf;

	/* Both tables' starting points first, so that their memory is
	 * fetched at the same time rather than one after the other. */
	*path = PCLNRT_NOSTR;
	*line = 0;
	rcf = seek(f, PCLN_TAB_PCFILE, pc, &sf, NULL);
	rc = seek(f, PCLN_TAB_PCLN, pc, &sl, NULL);
	if (rcf == PCLNRT_OK)
		PCLNRT_PREFETCH(sf.p);
	if (rc == PCLNRT_OK)
		PCLNRT_PREFETCH(sl.p);
	if (rcf == PCLNRT_OK)
		rcf = scan(f, &sf, pc, &fileno, NULL, NULL, NULL);
	if (rcf == PCLNRT_OK && !(*path = pclnrt_filename(f->t, fileno)))
		rcf = PCLNRT_CORRUPT;
	if (rc == PCLNRT_OK)
		rc = scan(f, &sl, pc, line, NULL, NULL, NULL);
	if (rc != PCLNRT_OK)
		*line = 0;
	return rc != PCLNRT_OK ? rc : rcf;
}

#ifndef PCLNRT_BPF
void
pclnrt_pccache_init(pclnrt_pccache *c)
{
	unsigned k;

	for (k = 0; k < PCLNRT_PCCACHE_SIZE; k++) {
		c->ent[k].t = NULL;
		c->ent[k].key = 0;
		c->ent[k].start = c->ent[k].end = 0;
		c->ent[k].value = 0;
	}
	c->next = 0;
	c->hits = c->misses = 0;
}

/* The cache's promise (pclnrt.h) is exactness: a hit returns what
 * pclnrt_pcvalue would.  An entry is keyed by the table handle, the
 * function's index and the table number, which fix everything the
 * uncached lookup reads but the pc (F comes from pclnrt_findfunc on
 * that handle), and holds the full-width pcs over which the uncached
 * lookup provably gives this row: those that pick the same checkpoint
 * (pclnrt_ckpt_find's interval) and for which decoding from it stops at
 * the same row (scan's FROM).  In a valid blob that is the whole row. */
int
pclnrt_pcvalue_cached(const pclnrt_func *f, int table, uint64_t pc,
    int32_t *value, pclnrt_pccache *c)
{
	struct pclnrt_pccache_ent *e;
	struct pclnrt_pcstep s;
	struct pclnrt_ckpt ck;
	uint64_t key, end, from;
	unsigned k;
	int rc;

	if (c == NULL)
		return pclnrt_pcvalue(f, table, pc, value, NULL, NULL);
	key = (uint64_t)f->index << 32 | (uint32_t)table;
	for (k = 0; k < PCLNRT_PCCACHE_SIZE; k++) {
		e = &c->ent[k];
		if (e->key == key && e->t == f->t &&
		    pc - e->start < e->end - e->start) {
			c->hits++;
			*value = e->value;
			return PCLNRT_OK;
		}
	}
	if ((rc = seek(f, table, pc, &s, &ck)) != PCLNRT_OK)
		return rc;	/* no table, or no pc of F: not a miss */
	c->misses++;
	if ((rc = scan(f, &s, pc, value, NULL, &end, &from)) != PCLNRT_OK)
		return rc;
	/* ck.lo <= pc - entry < ck.hi: no overflow either way. */
	if (from - f->entry < ck.lo)
		from = f->entry + ck.lo;
	if (end - f->entry > ck.hi)
		end = f->entry + ck.hi;
	e = &c->ent[c->next];
	e->t = f->t;
	e->key = key;
	e->start = from;
	e->end = end;
	e->value = *value;
	c->next = (c->next + 1) % PCLNRT_PCCACHE_SIZE;
	return PCLNRT_OK;
}

int
pclnrt_funcline_cached(const pclnrt_func *f, uint64_t pc, const char **path,
    int32_t *line, pclnrt_pccache *c)
{
	int32_t fileno;
	int rc, rcf;

	*path = NULL;
	*line = 0;
	rcf = pclnrt_pcvalue_cached(f, PCLN_TAB_PCFILE, pc, &fileno, c);
	if (rcf == PCLNRT_OK && (*path = pclnrt_filename(f->t, fileno)) ==
	    NULL)
		rcf = PCLNRT_CORRUPT;
	rc = pclnrt_pcvalue_cached(f, PCLN_TAB_PCLN, pc, line, c);
	if (rc != PCLNRT_OK)
		*line = 0;
	return rc != PCLNRT_OK ? rc : rcf;
}
#endif /* !PCLNRT_BPF */
