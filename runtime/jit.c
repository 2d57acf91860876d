/* jit.c -- one JIT-compiled function as a module: a one-function Go 1.2
 * blob written in place, with this machine's pointer size and byte
 * order (pclnrt.h, "JIT functions").
 *
 * The layout (P = sizeof(void *); doc/FORMAT.md has the fields):
 *   header, nfunc = 1, functab {entry, funcoff}, end pc, file table
 *   offset; the Func record (no funcdata) at the next multiple of P; the
 *   name; the file name; the pcsp, pcfile, pcln and pcdata tables; the
 *   file table (one file) at the next multiple of 4.  No trailer: the
 *   function's size is where its pcsp table (else pcln, pcfile, the end
 *   pc) ends, which is exact since every table covers the whole code.
 * Freestanding: no libc.  The byte loops that clear and copy go
 * through volatile pointers, so that no compiler turns them into calls
 * of memset or memcpy.
 */
#include "pclnrt.h"
#include "pclnrt_format.h"

#if defined(__BYTE_ORDER__) && defined(__ORDER_BIG_ENDIAN__) && \
    __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
#define HOST_BIG	1
#else
#define HOST_BIG	0
#endif
#define PS		((uint64_t)sizeof(void *))
#define MAX_PCDATA	1024u

static uint64_t
slen(const char *s)
{
	uint64_t n = 0;

	while (s[n] != 0)
		n++;
	return n;
}

/* N bytes of S (the last may be its NUL). */
static void
copy(volatile uint8_t *d, const char *s, uint64_t n)
{
	uint64_t k;

	for (k = 0; k < n; k++)
		d[k] = (uint8_t)s[k];
}

static void
put32(uint8_t *p, uint32_t v)
{
	unsigned k;

	for (k = 0; k < 4; k++)
		p[HOST_BIG ? 3 - k : k] = (uint8_t)(v >> (8 * k));
}

static void
putptr(uint8_t *p, uint64_t v)
{
	unsigned k;

	for (k = 0; k < PS; k++)
		p[HOST_BIG ? PS - 1 - k : k] = (uint8_t)(v >> (8 * k));
}

/* Is table T valid for a function of SIZE bytes? */
static int
tab_ok(const pclnrt_jittab *t, uint32_t size)
{
	uint32_t i;

	if (t->nrow == 0)
		return 1;
	if (t->row == NULL || t->row[0].off != 0)
		return 0;
	for (i = 0; i < t->nrow; i++)
		if ((i + 1 < t->nrow ? t->row[i + 1].off : size) <= t->row[i].off)
			return 0;
	return 1;
}

/* Encode table T (valid, nonempty) at OUT (NULL: only count); return
 * its bytes.  Runs of equal values become one row. */
static uint64_t
put_tab(uint8_t *out, const pclnrt_jittab *t, uint32_t size)
{
	uint8_t tmp[PCLN_VARINT_MAX];
	uint64_t n = 0;
	uint32_t i, r = 0, prev = (uint32_t)-1, end;

	for (i = 1; i <= t->nrow; i++) {
		if (i < t->nrow && t->row[i].value == t->row[r].value)
			continue;
		end = i < t->nrow ? t->row[i].off : size;
		n += pclnrt_put_uvarint(out != NULL ? out + n : tmp,
		    pclnrt_zigzag((int32_t)((uint32_t)t->row[r].value - prev)));
		n += pclnrt_put_uvarint(out != NULL ? out + n : tmp,
		    end - t->row[r].off);
		prev = (uint32_t)t->row[r].value;
		r = i;
	}
	if (out != NULL)
		out[n] = 0;
	return n + 1;
}

/* The blob's layout for F: offsets of its parts; 0 if F is bad. */
struct layout {
	uint64_t funcoff, nameoff, fileoff, tab[3], pcdata, filetab, len;
	uint64_t namelen, filelen;
};

static int
layout(const pclnrt_jitfunc *f, struct layout *l)
{
	pclnrt_jitrow filerow = { 0, 1 };
	pclnrt_jittab filetab = { &filerow, 1 };
	const pclnrt_jittab *tabs[3];
	uint64_t p;
	uint32_t i;

	if (f == NULL || f->name == NULL || f->size == 0 ||
	    f->entry > UINT64_MAX - f->size ||
	    (PS == 4 && f->entry + f->size > UINT32_MAX) ||
	    (f->line.nrow > 0 && f->file == NULL) ||
	    f->npcdata > MAX_PCDATA || (f->npcdata > 0 && f->pcdata == NULL) ||
	    !tab_ok(&f->pcsp, f->size) || !tab_ok(&f->line, f->size))
		return 0;
	for (i = 0; i < f->npcdata; i++)
		if (!tab_ok(&f->pcdata[i], f->size))
			return 0;
	p = PCLN_HDR_END(PS, 1);
	l->funcoff = (p + PS - 1) & ~(PS - 1);
	l->nameoff = l->funcoff + PCLN_FUNC_PCDATA(PS, f->npcdata);
	l->namelen = slen(f->name);
	p = l->nameoff + l->namelen + 1;
	l->fileoff = 0;
	l->filelen = 0;
	if (f->file != NULL) {
		l->fileoff = p;
		l->filelen = slen(f->file);
		p += l->filelen + 1;
	}
	tabs[PCLN_TAB_PCSP] = &f->pcsp;
	tabs[PCLN_TAB_PCFILE] = f->file != NULL ? &filetab : &f->line;
	tabs[PCLN_TAB_PCLN] = &f->line;
	for (i = 0; i < 3; i++) {
		l->tab[i] = 0;
		if (tabs[i]->nrow > 0) {
			l->tab[i] = p;
			p += put_tab(NULL, tabs[i], f->size);
		}
	}
	l->pcdata = p;
	for (i = 0; i < f->npcdata; i++)
		if (f->pcdata[i].nrow > 0)
			p += put_tab(NULL, &f->pcdata[i], f->size);
	l->filetab = 0;
	if (f->file != NULL) {
		l->filetab = (p + 3) & ~(uint64_t)3;
		p = l->filetab + 8;
	}
	l->len = p;
	return p <= UINT32_MAX;
}

size_t
pclnrt_jit_size(const pclnrt_jitfunc *f)
{
	struct layout l;

	if (!layout(f, &l) || l.len > SIZE_MAX)
		return 0;
	return (size_t)l.len;
}

int
pclnrt_jit_module(pclnrt_module *m, void *buf, size_t cap,
    const pclnrt_jitfunc *f, size_t *lenp)
{
	pclnrt_jitrow filerow = { 0, 1 };
	pclnrt_jittab filetab = { &filerow, 1 };
	uint8_t *b = buf;
	struct layout l;
	uint64_t k, p, rec;
	uint32_t i;

	if (!layout(f, &l))
		return PCLNRT_BADARG;
	if (b == NULL || cap < l.len)
		return PCLNRT_FULL;
	/* Every byte is written once: the fields, and zeros for the
	 * padding (the header's two bytes, up to the Func record, before
	 * the file table), the NULs and the absent tables' offsets. */
	put32(b, PCLN_GO12_MAGIC);
	b[PCLN_HDR_PAD0] = b[PCLN_HDR_PAD1] = 0;
	b[PCLN_HDR_QUANTUM] = 1;
	b[PCLN_HDR_PTRSIZE] = (uint8_t)PS;
	putptr(b + PCLN_HDR_NFUNC, 1);
	putptr(b + PCLN_FTAB_ENTRY(PS, 0), f->entry);
	putptr(b + PCLN_FTAB_FUNCOFF(PS, 0), l.funcoff);
	putptr(b + PCLN_FTAB_END(PS, 1), f->entry + f->size);
	put32(b + PCLN_FILETABOFF_OFF(PS, 1), (uint32_t)l.filetab);
	for (k = PCLN_HDR_END(PS, 1); k < l.funcoff; k++)
		((volatile uint8_t *)b)[k] = 0;
	rec = l.funcoff;
	putptr(b + rec + PCLN_FUNC_ENTRY, f->entry);
	put32(b + rec + PCLN_FUNC_NAMEOFF(PS), (uint32_t)l.nameoff);
	put32(b + rec + PCLN_FUNC_ARGS(PS), (uint32_t)f->args);
	put32(b + rec + PCLN_FUNC_FRAME(PS), (uint32_t)f->frame);
	put32(b + rec + PCLN_FUNC_PCSP(PS), (uint32_t)l.tab[PCLN_TAB_PCSP]);
	put32(b + rec + PCLN_FUNC_PCFILE(PS), (uint32_t)l.tab[PCLN_TAB_PCFILE]);
	put32(b + rec + PCLN_FUNC_PCLN(PS), (uint32_t)l.tab[PCLN_TAB_PCLN]);
	put32(b + rec + PCLN_FUNC_NPCDATA(PS), f->npcdata);
	put32(b + rec + PCLN_FUNC_NFUNCDATA(PS), 0);
	copy(b + l.nameoff, f->name, l.namelen + 1);
	if (f->file != NULL)
		copy(b + l.fileoff, f->file, l.filelen + 1);
	if (l.tab[PCLN_TAB_PCSP] != 0)
		(void)put_tab(b + l.tab[PCLN_TAB_PCSP], &f->pcsp, f->size);
	if (l.tab[PCLN_TAB_PCFILE] != 0)
		(void)put_tab(b + l.tab[PCLN_TAB_PCFILE], &filetab, f->size);
	if (l.tab[PCLN_TAB_PCLN] != 0)
		(void)put_tab(b + l.tab[PCLN_TAB_PCLN], &f->line, f->size);
	p = l.pcdata;
	for (i = 0; i < f->npcdata; i++) {
		put32(b + rec + PCLN_FUNC_PCDATA(PS, i),
		    f->pcdata[i].nrow > 0 ? (uint32_t)p : 0);
		if (f->pcdata[i].nrow > 0)
			p += put_tab(b + p, &f->pcdata[i], f->size);
	}
	for (; p < l.filetab; p++)
		b[p] = 0;
	if (l.filetab != 0) {
		put32(b + l.filetab, 2);
		put32(b + l.filetab + 4, (uint32_t)l.fileoff);
	}
	if (lenp != NULL)
		*lenp = (size_t)l.len;
	if (pclnrt_module_init(m, b, (size_t)l.len, 0,
	    (const char *)(b + l.nameoff)) != PCLNRT_EINIT_OK)
		return PCLNRT_BADARG;	/* not reached: the layout is valid */
	return PCLNRT_OK;
}
