/* reader.c -- open a pcln blob in place and answer questions about it.
 *
 * pcln_open verifies the blob (unless PCLN_OPEN_TRUSTED) and keeps only
 * pointers into it.  Even a trusted blob that is in fact corrupt is read
 * only through bounded loads: a field outside the blob reads as 0, a string
 * without a NUL inside the blob is NULL, and every table walk stops at the
 * end of the Go 1.2 part and at the function's end.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

struct pcln_table {
	const uint8_t *b;
	uint64_t len;
	uint64_t go12;		/* bytes of the Go 1.2 part */
	int big;
	unsigned ps, q;
	size_t n;
	uint64_t endpc;
	uint32_t filetab;
	size_t nfile;
	int has_trailer;
	struct pclnrt_footer foot;	/* if has_trailer */
	uint64_t nsect;		/* its directory's entries in the blob */
	int64_t funcsize;	/* offset of FUNCSIZE, -1 if none */
	const uint8_t *findex;	/* FUNCINDEX section, NULL if none/unusable */
	const uint8_t *ckpt;	/* PCCKPT section, NULL if none/unusable */
	uint64_t ckptlen;
};

/* Bounded loads: a field not wholly inside the blob reads as 0. */
static uint32_t
r32(const pcln_table *t, uint64_t off)
{
	if (off > t->len || t->len - off < 4)
		return 0;
	return pclnrt_load32(t->b + off, t->big);
}

static uint64_t
rptr(const pcln_table *t, uint64_t off)
{
	if (off > t->len || t->len - off < t->ps)
		return 0;
	return pclnrt_loadptr(t->b + off, t->ps, t->big);
}

/* The NUL-terminated string at OFF, or NULL if it is not one. */
static const char *
rstr(const pcln_table *t, uint64_t off)
{
	if (off == 0 || off >= t->len ||
	    memchr(t->b + off, 0, (size_t)(t->len - off)) == NULL)
		return NULL;
	return (const char *)t->b + off;
}

static uint64_t
entry_of(const pcln_table *t, size_t i)
{
	return pclnrt_loadptr(t->b + PCLN_FTAB_ENTRY(t->ps, (uint64_t)i),
	    t->ps, t->big);
}

static uint64_t
funcoff_of(const pcln_table *t, size_t i)
{
	return pclnrt_loadptr(t->b + PCLN_FTAB_FUNCOFF(t->ps, (uint64_t)i),
	    t->ps, t->big);
}

/* Next function's entry (or the end pc), never below this entry. */
static uint64_t
next_of(const pcln_table *t, size_t i)
{
	uint64_t e = entry_of(t, i);
	uint64_t nx = i + 1 < t->n ? entry_of(t, i + 1) : t->endpc;
	return nx < e ? e : nx;
}

/* End of function I's code (pclnrt_func_end has the rule): FUNCSIZE,
 * else the end of its sizing table, else the next entry; the next entry
 * if that table or the Func record is damaged. */
static uint64_t
end_of(const pcln_table *t, size_t i)
{
	uint64_t e = entry_of(t, i), nx = next_of(t, i), fo = funcoff_of(t, i);
	uint64_t end;

	if (t->funcsize >= 0) {
		uint64_t sz = r32(t, (uint64_t)t->funcsize + 4 * (uint64_t)i);
		return sz > nx - e ? nx : e + sz;
	}
	if (fo > t->len || t->len - fo < PCLN_FUNC_SIZE(t->ps) ||
	    pclnrt_func_end(t->b, t->len, t->go12, t->ps, t->big, t->q, fo, e,
	    nx, &end) != 0)
		return nx;
	return end;
}

/* Parse the header, trailer footer and file table; O(1) checks only, so
 * that every later read can be bounded. */
static int
parse(pcln_table *t, pcln_err *err)
{
	const uint8_t *b = t->b;
	struct pclnrt_sections sx;
	struct pclnrt_header h;
	uint64_t n, ns, fioff, filen, ckoff, cklen;
	int rc;

	if (t->len < 16)
		return pclni_seterr(err, PCLN_ETRUNC, (int64_t)t->len,
		    "blob of %" PRIu64 " bytes: too short for a header",
		    t->len);
	rc = pclnrt_header(b, &h);
	t->big = h.big;
	t->q = h.quantum;
	t->ps = h.ptrsize;
	if (rc == PCLN_HDR_EMAGIC)
		return pclni_seterr(err, PCLN_EMAGIC, 0,
		    "header at 0x0: bad magic, expected 0xfffffffb");
	if (rc != PCLN_HDR_OK)
		return pclni_seterr(err, PCLN_EHEADER, PCLN_HDR_QUANTUM,
		    "header at 0x6: quantum %u pointer size %u, expected 1, 2 "
		    "or 4 and 4 or 8", t->q, t->ps);
	t->go12 = t->len;
	t->funcsize = -1;
	memset(&sx, 0, sizeof sx);
	if (pclnrt_footer(b, t->len, t->big, &t->foot)) {
		const struct pclnrt_footer *f = &t->foot;
		if (f->go12size < PCLN_HDR_END(t->ps, 0) || f->go12size > f->at)
			return pclni_seterr(err, PCLN_ETRAILER,
			    (int64_t)(f->at + PCLN_FOOTER_GO12SIZE),
			    "trailer footer at 0x%" PRIx64 ": bad Go "
			    "1.2 size 0x%" PRIx64, f->at,
			    (uint64_t)f->go12size);
		t->go12 = f->go12size;
		t->has_trailer = 1;
		/* The directory's entries that lie in the blob. */
		if (pclnrt_dir_fits(f, f->nsect))
			t->nsect = f->nsect;
		else if (f->diroff <= f->at)
			t->nsect = (f->at - f->diroff) / PCLN_DIRENT_SIZE;
		pclnrt_sections(b, f, t->nsect, t->big, &sx);
		if (sx.present[PCLN_SECT_FUNCSIZE])
			t->funcsize = (int64_t)sx.off[PCLN_SECT_FUNCSIZE];
	}
	n = rptr(t, PCLN_HDR_NFUNC);
	if (!pclnrt_nfunc_fits(t->go12, t->ps, n))
		return pclni_seterr(err, PCLN_EHEADER, PCLN_HDR_NFUNC,
		    "header at 0x8: nfunc %" PRIu64 " does not fit the blob", n);
	t->n = (size_t)n;
	if (t->funcsize >= 0 && ((uint64_t)t->funcsize > t->len ||
	    (t->len - (uint64_t)t->funcsize) / 4 < n))
		t->funcsize = -1;
	t->endpc = rptr(t, PCLN_FTAB_END(t->ps, n));
	t->findex = NULL;
	fioff = sx.off[PCLN_SECT_FUNCINDEX];
	filen = sx.size[PCLN_SECT_FUNCINDEX];
	if (n > 0 && sx.present[PCLN_SECT_FUNCINDEX] && fioff >= t->go12 &&
	    fioff <= t->len && filen <= t->len - fioff &&
	    pclnrt_index_ok(b + fioff, filen, t->big, entry_of(t, 0),
	    t->endpc))
		t->findex = b + fioff;
	t->ckpt = NULL;
	ckoff = sx.off[PCLN_SECT_PCCKPT];
	cklen = sx.size[PCLN_SECT_PCCKPT];
	if (sx.present[PCLN_SECT_PCCKPT] && ckoff >= t->go12 &&
	    ckoff <= t->len && cklen <= t->len - ckoff &&
	    pclnrt_ckpt_ok(b + ckoff, cklen, t->big, n)) {
		t->ckpt = b + ckoff;
		t->ckptlen = cklen;
	}
	t->filetab = r32(t, PCLN_FILETABOFF_OFF(t->ps, n));
	ns = r32(t, t->filetab);
	if (ns >= 1 && t->filetab < t->go12 && ns <= (t->go12 - t->filetab) / 4)
		t->nfile = (size_t)(ns - 1);
	return 0;
}

pcln_table *
pcln_open(const uint8_t *blob, size_t len, unsigned flags, pcln_err *err)
{
	pcln_table *t;

	pclni_clearerr(err);
	if (blob == NULL) {
		pclni_seterr(err, PCLN_EINVAL, -1, "open: NULL blob");
		return NULL;
	}
	if (!(flags & PCLN_OPEN_TRUSTED) && pcln_verify(blob, len, err) != 0)
		return NULL;
	if ((t = calloc(1, sizeof *t)) == NULL) {
		pclni_seterr(err, PCLN_ENOMEM, -1, "open: out of memory");
		return NULL;
	}
	t->b = blob;
	t->len = len;
	if (parse(t, err) != 0) {
		free(t);
		return NULL;
	}
	return t;
}

void
pcln_close(pcln_table *t)
{
	free(t);
}

void
pcln_get_info(const pcln_table *t, pcln_info *info)
{
	memset(info, 0, sizeof *info);
	info->target.ptrsize = t->ps;
	info->target.quantum = t->q;
	info->target.bigendian = t->big;
	info->nfunc = t->n;
	info->nfile = t->nfile;
	info->text_start = t->n ? entry_of(t, 0) : 0;
	info->text_end = t->endpc;
	info->go12size = (size_t)t->go12;
	info->has_trailer = t->has_trailer;
	info->trailer_version = t->has_trailer ? t->foot.version : 0;
	info->checksum = t->has_trailer ? t->foot.checksum : 0;
	info->filetab_off = t->filetab;
}

size_t
pcln_nsections(const pcln_table *t)
{
	return (size_t)t->nsect;
}

int
pcln_get_section(const pcln_table *t, size_t i, uint32_t *tag,
    uint32_t *off, uint32_t *size)
{
	struct pclnrt_dirent d;

	if (i >= t->nsect)
		return -1;
	pclnrt_dirent(t->b, &t->foot, i, t->big, &d);
	*tag = d.tag;
	*off = d.off;
	*size = d.size;
	return 0;
}

size_t
pcln_nfunc(const pcln_table *t)
{
	return t->n;
}

int
pcln_get_func(const pcln_table *t, size_t i, pcln_func *f)
{
	uint64_t fo;

	memset(f, 0, sizeof *f);
	if (i >= t->n)
		return -1;
	fo = funcoff_of(t, i);
	f->index = i;
	f->entry = entry_of(t, i);
	f->next = next_of(t, i);
	f->end = end_of(t, i);
	f->funcoff = (uint32_t)fo;
	f->name = rstr(t, r32(t, fo + PCLN_FUNC_NAMEOFF(t->ps)));
	f->args = (int32_t)r32(t, fo + PCLN_FUNC_ARGS(t->ps));
	f->frame = (int32_t)r32(t, fo + PCLN_FUNC_FRAME(t->ps));
	f->tab_off[0] = r32(t, fo + PCLN_FUNC_PCSP(t->ps));
	f->tab_off[1] = r32(t, fo + PCLN_FUNC_PCFILE(t->ps));
	f->tab_off[2] = r32(t, fo + PCLN_FUNC_PCLN(t->ps));
	f->npcdata = r32(t, fo + PCLN_FUNC_NPCDATA(t->ps));
	f->nfuncdata = r32(t, fo + PCLN_FUNC_NFUNCDATA(t->ps));
	return 0;
}

long
pcln_find_func(const pcln_table *t, uint64_t pc)
{
	size_t i;

	/* The last function whose entry is <= PC (pclnrt_functab_find: the
	 * FUNCINDEX section in constant time, else binary search), if PC
	 * lies before its end. */
	if (t->n == 0 || pc < entry_of(t, 0) || pc >= t->endpc)
		return -1;
	i = (size_t)pclnrt_functab_find(t->b + PCLN_FUNCTAB_OFF(t->ps), t->ps,
	    t->big, t->n, t->findex, entry_of(t, 0), pc);
	if (pc < entry_of(t, i) || pc >= end_of(t, i))
		return -1;
	return (long)i;
}

uint32_t
pcln_table_offset(const pcln_table *t, size_t i, int table)
{
	uint64_t fo;

	if (i >= t->n || table < 0)
		return 0;
	fo = funcoff_of(t, i);
	if (table < 3)
		return r32(t, fo + PCLN_FUNC_PCSP(t->ps) + 4u * (unsigned)table);
	if ((uint32_t)(table - 3) >= r32(t, fo + PCLN_FUNC_NPCDATA(t->ps)))
		return 0;
	return r32(t, fo + PCLN_FUNC_PCDATA(t->ps, (uint64_t)(table - 3)));
}

uint64_t
pcln_funcdata(const pcln_table *t, size_t i, unsigned idx)
{
	uint64_t fo;
	uint32_t npc;

	if (i >= t->n)
		return 0;
	fo = funcoff_of(t, i);
	if (idx >= r32(t, fo + PCLN_FUNC_NFUNCDATA(t->ps)))
		return 0;
	npc = r32(t, fo + PCLN_FUNC_NPCDATA(t->ps));
	return rptr(t, fo + pclni_funcdata_off(t->ps, npc, idx));
}

size_t
pcln_nfile(const pcln_table *t)
{
	return t->nfile;
}

const char *
pcln_file_name(const pcln_table *t, uint32_t n)
{
	if (n < 1 || n > t->nfile)
		return NULL;
	return rstr(t, r32(t, (uint64_t)t->filetab + 4 * (uint64_t)n));
}

int
pcln_rows_begin(pcln_rowiter *it, const pcln_table *t, size_t i, int table)
{
	uint64_t fo;
	uint32_t off;

	memset(it, 0, sizeof *it);
	it->t = t;
	it->done = 1;
	if (i >= t->n || table < 0)
		return -1;
	fo = funcoff_of(t, i);
	if (table >= 3 &&
	    (uint32_t)(table - 3) >= r32(t, fo + PCLN_FUNC_NPCDATA(t->ps)))
		return -1;
	off = pcln_table_offset(t, i, table);
	it->pc = entry_of(t, i);
	it->limit = end_of(t, i);
	it->value = -1;
	it->first = 1;
	it->end = t->b + t->go12;
	if (off == 0)
		return 0;		/* absent: no rows */
	if (off >= t->go12) {
		it->done = 2;		/* damaged: the first next fails */
		return 0;
	}
	it->p = t->b + off;
	it->done = 0;
	return 0;
}

int
pcln_rows_next(pcln_rowiter *it, pcln_row *row)
{
	struct pclnrt_pcstep s;
	int rc;

	if (it->done)
		return it->done == 2 ? -1 : 0;
	pclnrt_pcstep_init(&s, it->p, it->end, it->pc, it->t->q);
	s.value = it->value;
	s.first = it->first;
	rc = pclnrt_pcstep(&s);
	if (rc == 1 && (s.nextpc < s.pc || s.nextpc > it->limit))
		rc = -1;
	if (rc != 1) {
		it->done = rc == 0 ? 1 : 2;
		return rc == 0 ? 0 : -1;
	}
	it->p = s.p;
	it->pc = s.nextpc;
	it->value = s.value;
	it->first = 0;
	row->start = s.pc;
	row->end = s.nextpc;
	row->value = s.value;
	return 1;
}

long
pcln_rows_fill(pcln_rowiter *it, pcln_row *rows, size_t max)
{
	struct pclnrt_pcstep s;
	size_t n = 0;
	int rc = 1;

	if (it->done)
		return it->done == 2 ? -1 : 0;
	pclnrt_pcstep_init(&s, it->p, it->end, it->pc, it->t->q);
	s.value = it->value;
	s.first = it->first;
	while (n < max && (rc = pclnrt_pcstep(&s)) == 1) {
		if (s.nextpc < s.pc || s.nextpc > it->limit) {
			rc = -1;
			break;
		}
		rows[n].start = s.pc;
		rows[n].end = s.nextpc;
		rows[n].value = s.value;
		n++;
	}
	it->p = s.p;
	it->pc = s.nextpc;
	it->value = s.value;
	it->first = s.first;
	if (rc != 1)
		it->done = rc == 0 ? 1 : 2;
	if (n > 0)
		return (long)n;
	return rc == 0 ? 0 : rc < 0 ? -1 : 0;
}

int
pcln_pcvalue(const pcln_table *t, size_t i, int table, uint64_t pc,
    int32_t *value, pcln_row *row)
{
	pcln_rowiter it;
	struct pclnrt_pcstep s;

	if (pcln_rows_begin(&it, t, i, table) != 0 || pc < it.pc ||
	    pc >= it.limit || it.done)
		return -1;
	/* From the last checkpoint at or before PC, if any, one walk
	 * bounded as pcln_rows_next bounds it. */
	pclnrt_pcstep_init(&s, it.p, it.end, it.pc, t->q);
	pclnrt_pcstep_seek(&s, t->ckpt, t->ckptlen, t->big, t->n, i,
	    (uint32_t)table, pc);
	while (pclnrt_pcstep(&s) == 1) {
		if (s.nextpc < s.pc || s.nextpc > it.limit)
			break;		/* damaged: pcln_rows_next's -1 */
		if (pc >= s.nextpc)
			continue;
		if (pc < s.pc)
			break;
		if (value != NULL)
			*value = s.value;
		if (row != NULL) {
			row->start = s.pc;
			row->end = s.nextpc;
			row->value = s.value;
		}
		return 0;
	}
	return -1;
}

int
pcln_lookup(const pcln_table *t, uint64_t pc, pcln_loc *loc)
{
	pcln_func f;
	int32_t v;
	long i;

	memset(loc, 0, sizeof *loc);
	loc->func = i = pcln_find_func(t, pc);
	loc->spdelta = -1;
	if (i < 0 || pcln_get_func(t, (size_t)i, &f) != 0)
		return -1;
	loc->name = f.name;
	loc->entry = f.entry;
	if (pcln_pcvalue(t, (size_t)i, PCLN_TAB_PCFILE, pc, &v, NULL) == 0 &&
	    v > 0)
		loc->file = pcln_file_name(t, (uint32_t)v);
	if (pcln_pcvalue(t, (size_t)i, PCLN_TAB_PCLN, pc, &v, NULL) == 0)
		loc->line = v;
	if (pcln_pcvalue(t, (size_t)i, PCLN_TAB_PCSP, pc, &v, NULL) == 0) {
		loc->spdelta = v;
		loc->has_sp = 1;
	}
	return 0;
}

/* Does PATH name FILE: equal, or ending in "/" FILE? */
static int
file_matches(const char *path, const char *file)
{
	size_t lp = strlen(path), lf = strlen(file);

	if (lp == lf)
		return strcmp(path, file) == 0;
	return lp > lf && path[lp - lf - 1] == '/' &&
	    strcmp(path + lp - lf, file) == 0;
}

long
pcln_line_to_pcs(const pcln_table *t, const char *file, int32_t line,
    pcln_range_cb cb, void *arg)
{
	return pcln_line_to_pcs_checked(t, file, line, NULL, cb, arg);
}

long
pcln_line_to_pcs_checked(const pcln_table *t, const char *file,
    int32_t line, pcln_func_check_cb check, pcln_range_cb cb, void *arg)
{
	unsigned char *match;
	size_t i, k;
	long count = 0;
	int any = 0;

	if (t == NULL || file == NULL)
		return -1;
	if (line < 1)
		return 0;	/* 0 and below mean "no line" */
	if ((match = calloc(t->nfile + 1, 1)) == NULL)
		return -1;
	for (k = 1; k <= t->nfile; k++) {
		const char *p = pcln_file_name(t, (uint32_t)k);
		if (p != NULL && file_matches(p, file))
			match[k] = any = 1;
	}
	for (i = 0; any && i < t->n; i++) {
		pcln_rowiter fi, li;
		pcln_row rf, rl;
		uint64_t ps = 0, pe = 0;
		int have = 0;

		if (pcln_table_offset(t, i, PCLN_TAB_PCFILE) == 0 ||
		    pcln_table_offset(t, i, PCLN_TAB_PCLN) == 0 ||
		    (check != NULL && check(arg, i) != 0) ||
		    pcln_rows_begin(&fi, t, i, PCLN_TAB_PCFILE) != 0 ||
		    pcln_rows_begin(&li, t, i, PCLN_TAB_PCLN) != 0 ||
		    pcln_rows_next(&fi, &rf) != 1 ||
		    pcln_rows_next(&li, &rl) != 1)
			continue;
		/* Walk both tables in step over the common sub-ranges. */
		for (;;) {
			uint64_t s = rf.start > rl.start ? rf.start : rl.start;
			uint64_t e = rf.end < rl.end ? rf.end : rl.end;
			int more = 1;
			if (s < e && rl.value == line && rf.value > 0 &&
			    (size_t)rf.value <= t->nfile && match[rf.value]) {
				if (have && pe == s) {
					pe = e;
				} else {
					if (have) {
						count++;
						if (cb && cb(arg, i, ps, pe))
							goto stop;
					}
					ps = s;
					pe = e;
					have = 1;
				}
			}
			if (rf.end == e && pcln_rows_next(&fi, &rf) != 1)
				more = 0;
			if (rl.end == e && pcln_rows_next(&li, &rl) != 1)
				more = 0;
			if (!more)
				break;
		}
		if (have) {
			count++;
			if (cb && cb(arg, i, ps, pe))
				goto stop;
		}
	}
stop:
	free(match);
	return count;
}

int
pcln_get_build_id(const pcln_table *t, const uint8_t **id, size_t *len)
{
	size_t i, n = pcln_nsections(t);

	for (i = 0; i < n; i++) {
		uint32_t tag, off, size;

		if (pcln_get_section(t, i, &tag, &off, &size) < 0 ||
		    tag != PCLN_SECT_BUILDID)
			continue;
		if (size == 0 || size > PCLN_BUILDID_MAX)
			return 0;
		*id = t->b + off;
		*len = size;
		return 1;
	}
	return 0;
}
