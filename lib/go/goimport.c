/* goimport.c -- read a Go pclntab (Go 1.2, 1.16, 1.18 or 1.20 layout)
 * into a pcln_builder.  The layouts are described in doc/FORMAT.md,
 * "Reading Go's later layouts"; they follow Go's cmd/link/internal/ld/
 * pcln.go and debug/gosym/pclntab.go.  Every read is bounds-checked. */
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "pcln_elf.h"
#include "pcln_go.h"

/* A parsed Go header: where each part lives, as offsets into D. */
struct gotab {
	const uint8_t *d;
	size_t len;
	int layout;
	int big;
	unsigned ps, quantum;
	uint64_t nfunc;
	uint64_t textstart;	/* 1.18+: added to every entry offset */
	size_t functab;		/* offset of functab[0] */
	size_t ftsz;		/* bytes per functab field: ps, or 4 (1.18+) */
	size_t funcbase;	/* Func offsets are from here */
	size_t namebase;	/* nameoff is from here */
	size_t pcbase;		/* table offsets are from here */
	size_t cutab, filetab;	/* 1.16+ */
	uint32_t nfiletab;	/* Go 1.2: slots of the file table */
	size_t go12filetab;	/* Go 1.2: offset of the file table */
	int packed;		/* Go 1.2: last Func word packs nfuncdata */
	int detected;		/* Go 1.2: PACKED has been decided */
	size_t entsz;		/* bytes of the entry field in a Func */
	size_t pcdata_at;	/* offset of pcdata[0] in a Func */
	size_t last_at;		/* offset of the word holding nfuncdata */
};

/* The layout's name in messages; for the Go 1.2 magic, once the Func
 * word is decided, which writers' variant is being read. */
static const char *
layout_name(const struct gotab *g)
{
	switch (g->layout) {
	case PCLN_GO_12:
		if (!g->detected)
			return "Go 1.2";
		return g->packed ? "Go 1.12-1.15 (funcID and 8-bit nfuncdata "
		    "packed in the Func's last word)" : "Go 1.2-1.11 (int32 "
		    "nfuncdata)";
	case PCLN_GO_116: return "Go 1.16";
	case PCLN_GO_118: return "Go 1.18";
	case PCLN_GO_120: return "Go 1.20";
	default: return "unknown";
	}
}

int
pcln_go_layout_of(const uint8_t *d, size_t len)
{
	uint32_t le, be;

	if (d == NULL || len < 8 || d[4] != 0 || d[5] != 0 ||
	    (d[6] != 1 && d[6] != 2 && d[6] != 4) || (d[7] != 4 && d[7] != 8))
		return PCLN_GO_UNKNOWN;
	le = pclnrt_load32(d, 0);
	be = pclnrt_load32(d, 1);
	if (le == PCLN_GO_MAGIC_12 || be == PCLN_GO_MAGIC_12)
		return PCLN_GO_12;
	if (le == PCLN_GO_MAGIC_116 || be == PCLN_GO_MAGIC_116)
		return PCLN_GO_116;
	if (le == PCLN_GO_MAGIC_118 || be == PCLN_GO_MAGIC_118)
		return PCLN_GO_118;
	if (le == PCLN_GO_MAGIC_120 || be == PCLN_GO_MAGIC_120)
		return PCLN_GO_120;
	return PCLN_GO_UNKNOWN;
}

/* --- bounded reads --- */

static int
need(const struct gotab *g, uint64_t off, uint64_t n, const char *what,
    pcln_err *err)
{
	if (off > g->len || n > g->len - off)
		return pclni_seterr(err, PCLN_ETRUNC, (int64_t)off,
		    "%s pclntab: %s at offset 0x%llx (%llu bytes) beyond "
		    "table end 0x%zx", layout_name(g), what,
		    (unsigned long long)off, (unsigned long long)n, g->len);
	return 0;
}

static int
rd32(const struct gotab *g, uint64_t off, uint32_t *v, const char *what,
    pcln_err *err)
{
	if (need(g, off, 4, what, err) < 0)
		return -1;
	*v = pclnrt_load32(g->d + off, g->big);
	return 0;
}

static int
rdptr(const struct gotab *g, uint64_t off, uint64_t *v, const char *what,
    pcln_err *err)
{
	if (need(g, off, g->ps, what, err) < 0)
		return -1;
	*v = pclnrt_loadptr(g->d + off, g->ps, g->big);
	return 0;
}

/* A functab field (entry or func offset) of size g->ftsz. */
static int
rdft(const struct gotab *g, uint64_t i, int which, uint64_t *v,
    pcln_err *err)
{
	uint64_t off = g->functab + (2 * i + (uint64_t)which) * g->ftsz;

	if (need(g, off, g->ftsz, which ? "function table func offset" :
	    "function table entry", err) < 0)
		return -1;
	*v = g->ftsz == 8 ? pclnrt_load64(g->d + off, g->big) :
	    pclnrt_load32(g->d + off, g->big);
	if (which == 0 && g->ftsz == 4 && g->layout >= PCLN_GO_118)
		*v += g->textstart;
	return 0;
}

/* The NUL-terminated string at BASE + OFF. */
static const char *
str_at(const struct gotab *g, uint64_t base, uint64_t off, const char *what,
    pcln_err *err)
{
	uint64_t at = base + off;
	const uint8_t *nul;

	if (off >= g->len || at >= g->len) {
		pclni_seterr(err, PCLN_ESTRING, (int64_t)at,
		    "%s pclntab: %s at offset 0x%llx beyond table end 0x%zx",
		    layout_name(g), what, (unsigned long long)at,
		    g->len);
		return NULL;
	}
	nul = memchr(g->d + at, 0, g->len - at);
	if (nul == NULL) {
		pclni_seterr(err, PCLN_ESTRING, (int64_t)at,
		    "%s pclntab: %s at offset 0x%llx not NUL-terminated "
		    "before table end 0x%zx", layout_name(g), what,
		    (unsigned long long)at, g->len);
		return NULL;
	}
	return (const char *)(g->d + at);
}

/* --- header --- */

static int
parse_header(struct gotab *g, const uint8_t *d, size_t len,
    uint64_t text_hint, pcln_err *err)
{
	uint64_t w[8];
	unsigned i, nw;

	memset(g, 0, sizeof *g);
	g->d = d;
	g->len = len;
	g->layout = pcln_go_layout_of(d, len);
	if (g->layout == PCLN_GO_UNKNOWN)
		return pclni_seterr(err, PCLN_EMAGIC, 0, "not a Go pclntab: "
		    "expected magic 0xfffffffb, 0xfffffffa, 0xfffffff0 or "
		    "0xfffffff1, pads 0, quantum 1/2/4 and pointer size 4/8 "
		    "in the first 8 bytes");
	g->big = (d[0] == 0xff);
	g->quantum = d[6];
	g->ps = d[7];
	g->entsz = g->layout >= PCLN_GO_118 ? 4 : g->ps;
	g->ftsz = g->layout >= PCLN_GO_118 ? 4 : g->ps;

	/* Header words after the first 8 bytes, each P bytes. */
	nw = g->layout == PCLN_GO_12 ? 1 : g->layout == PCLN_GO_116 ? 7 : 8;
	for (i = 0; i < nw; i++)
		if (rdptr(g, 8 + (uint64_t)i * g->ps, &w[i], "header word",
		    err) < 0)
			return -1;
	g->nfunc = w[0];

	if (g->layout == PCLN_GO_12) {
		uint64_t ftoff;

		g->functab = 8 + g->ps;
		g->funcbase = g->namebase = g->pcbase = 0;
		g->pcdata_at = g->ps + 32;
		g->last_at = g->ps + 28;
		if (g->nfunc > len / (2 * g->ps))
			return pclni_seterr(err, PCLN_EHEADER, 8,
			    "Go 1.2 pclntab: nfunc %llu too large for a "
			    "%zu-byte table", (unsigned long long)g->nfunc,
			    len);
		ftoff = g->functab + (2 * g->nfunc + 1) * g->ps;
		if (rd32(g, ftoff, &g->nfiletab, "file table offset",
		    err) < 0)
			return -1;
		g->go12filetab = g->nfiletab;
		if (rd32(g, g->go12filetab, &g->nfiletab,
		    "file table slot count", err) < 0)
			return -1;
		if (need(g, g->go12filetab, 4 * (uint64_t)g->nfiletab,
		    "file table", err) < 0)
			return -1;
		return 0;
	}

	/* 1.16: nfunc nfiles funcname cu file pc pcln
	 * 1.18+: nfunc nfiles textStart funcname cu file pc pcln */
	{
		unsigned k = g->layout == PCLN_GO_116 ? 2 : 3;
		static const char *const names[] = { "funcnametab", "cutab",
		    "filetab", "pctab", "functab" };
		for (i = 0; i < 5; i++)
			if (w[k + i] >= len)
				return pclni_seterr(err, PCLN_EHEADER,
				    8 + (int64_t)(k + i) * g->ps,
				    "%s pclntab: header offset of %s 0x%llx "
				    "beyond table end 0x%zx",
				    layout_name(g), names[i],
				    (unsigned long long)w[k + i], len);
		g->namebase = w[k];
		g->cutab = w[k + 1];
		g->filetab = w[k + 2];
		g->pcbase = w[k + 3];
		g->functab = g->funcbase = w[k + 4];
		if (g->layout >= PCLN_GO_118)
			g->textstart = w[2] != 0 ? w[2] : text_hint;
	}
	if (g->nfunc > len / (2 * g->ftsz))
		return pclni_seterr(err, PCLN_EHEADER, 8,
		    "%s pclntab: nfunc %llu too large for a %zu-byte table",
		    layout_name(g), (unsigned long long)g->nfunc, len);
	g->last_at = g->entsz + (g->layout == PCLN_GO_120 ? 36 : 32);
	g->pcdata_at = g->last_at + 4;
	return 0;
}

/* Go 1.2 magic only: the Go 1.12 to 1.15 linkers pack funcID (first
 * byte in memory) and an 8-bit nfuncdata (last byte) into the Func's last
 * word, where earlier linkers wrote an int32 nfuncdata (Go 1.10 and 1.11
 * put funcID in the third word instead, which the import carries as the
 * frame).  In a little-endian table the two read alike when the last byte
 * is 0, so decide once for the whole table: it is packed if any Func has
 * a nonzero byte where an int32 below 2^24 has a zero (memory byte 3
 * little-endian, byte 0 big-endian).  Error messages then name the
 * variant read. */
static int
detect_packed(struct gotab *g, pcln_err *err)
{
	uint64_t i, fo;

	for (i = 0; i < g->nfunc; i++) {
		if (rdft(g, i, 1, &fo, err) < 0)
			return -1;
		if (need(g, g->funcbase + fo, g->last_at + 4, "Func record",
		    err) < 0)
			return -1;
		if (g->d[g->funcbase + fo + g->last_at + (g->big ? 0 : 3)]) {
			g->packed = 1;
			break;
		}
	}
	g->detected = 1;
	return 0;
}

/* --- pc-value tables --- */

/* Step through the table at OFF (relative to pcbase) for a function at
 * ENTRY; store where its last row ends in *EXT (0 for an empty table). */
static int
table_extent(const struct gotab *g, uint32_t off, uint64_t entry,
    const char *tname, const char *fname, uint64_t *ext, pcln_err *err)
{
	struct pclnrt_pcstep s;
	uint64_t at = (uint64_t)g->pcbase + off;
	int rc;

	if (at >= g->len)
		return pclni_seterr(err, PCLN_EPCTAB, (int64_t)at,
		    "%s pclntab: %s table of %s at offset 0x%llx beyond table "
		    "end 0x%zx", layout_name(g), tname, fname,
		    (unsigned long long)at, g->len);
	pclnrt_pcstep_init(&s, g->d + at, g->d + g->len, entry, g->quantum);
	*ext = 0;
	while ((rc = pclnrt_pcstep(&s)) > 0)
		*ext = s.nextpc - entry;
	if (rc < 0)
		return pclni_seterr(err, rc == -1 ? PCLN_ETRUNC : PCLN_EVARINT,
		    (int64_t)(s.p - g->d), "%s pclntab: %s table of %s at "
		    "offset 0x%llx: %s varint at offset 0x%llx",
		    layout_name(g), tname, fname,
		    (unsigned long long)at, rc == -1 ? "truncated" :
		    "overflowing", (unsigned long long)(s.p - g->d));
	return 0;
}

/* The builder file number for Go file value V of a function.  Where Go
 * knows no file (value <= 0 in Go 1.2, < 0 later, a function without a
 * compilation unit, a cutab slot of ^0) Go's readers answer the empty
 * name, and so does the import: such rows get the file "". */
static long
map_file(struct gotab *g, pcln_builder *b, uint32_t cuoff, int32_t v,
    pcln_err *err)
{
	const char *name = "";
	uint32_t foff;

	if (g->layout == PCLN_GO_12) {
		if (v > 0 && (uint32_t)v < g->nfiletab) {
			if (rd32(g, g->go12filetab + 4 * (uint64_t)v, &foff,
			    "file table slot", err) < 0)
				return -1;
			name = str_at(g, 0, foff, "file name", err);
		}
	} else if (v >= 0 && cuoff != UINT32_MAX) {
		if (rd32(g, g->cutab + 4 * ((uint64_t)cuoff + (uint32_t)v),
		    &foff, "cutab slot", err) < 0)
			return -1;
		if (foff != UINT32_MAX)
			name = str_at(g, g->filetab, foff, "file name", err);
	}
	if (name == NULL)
		return -1;
	return pcln_builder_add_file(b, name, err);
}

/* Add the rows of table TAB (offset OFF) of builder function F, clipped
 * to [ENTRY, ENTRY + SIZE). */
static int
import_table(struct gotab *g, pcln_builder *b, long f, int tab, uint32_t off,
    uint64_t entry, uint64_t size, uint32_t cuoff, size_t *maxfile,
    pcln_err *err)
{
	struct pclnrt_pcstep s;
	int rc;

	pclnrt_pcstep_init(&s, g->d + g->pcbase + off, g->d + g->len, entry,
	    g->quantum);
	while ((rc = pclnrt_pcstep(&s)) > 0) {
		int32_t v = s.value;

		if (s.nextpc <= s.pc)
			continue;	/* an empty row says nothing */
		if (s.pc - entry >= size)
			break;
		if (tab == PCLN_TAB_PCFILE) {
			long n = map_file(g, b, cuoff, v, err);
			if (n < 0)
				return -1;
			if ((size_t)n > *maxfile)
				*maxfile = (size_t)n;
			v = (int32_t)n;
		}
		if (pcln_builder_add_point(b, f, tab, s.pc - entry, v,
		    err) < 0)
			return -1;
	}
	return rc < 0 ? -1 : 0;	/* table_extent already decoded it */
}

/* --- one function --- */

static int
import_func(struct gotab *g, pcln_builder *b, uint64_t i, size_t *maxfile,
    pcln_err *err)
{
	uint64_t entry, next, fo, fentry, rec, size = 0;
	uint32_t nameoff, args, frame, tabs[3], npcdata, cuoff = UINT32_MAX;
	uint32_t nfuncdata = 0, j;
	const char *name;
	long f;

	if (rdft(g, i, 0, &entry, err) < 0 || rdft(g, i + 1, 0, &next,
	    err) < 0 || rdft(g, i, 1, &fo, err) < 0)
		return -1;
	if (next <= entry)
		return pclni_seterr(err, PCLN_EORDER, (int64_t)(g->functab +
		    2 * (i + 1) * g->ftsz), "%s pclntab: function table "
		    "entry %llu (0x%llx) not above entry %llu (0x%llx)",
		    layout_name(g), (unsigned long long)i + 1,
		    (unsigned long long)next, (unsigned long long)i,
		    (unsigned long long)entry);
	rec = g->funcbase + fo;
	if (need(g, rec, g->pcdata_at, "Func record", err) < 0)
		return -1;
	if (g->entsz == 4)
		fentry = pclnrt_load32(g->d + rec, g->big) + g->textstart;
	else
		fentry = pclnrt_loadptr(g->d + rec, g->ps, g->big);
	if (fentry != entry)
		return pclni_seterr(err, PCLN_EFUNC, (int64_t)rec, "%s "
		    "pclntab: Func record %llu at offset 0x%llx: entry 0x%llx, "
		    "expected the function table's 0x%llx",
		    layout_name(g), (unsigned long long)i,
		    (unsigned long long)rec, (unsigned long long)fentry,
		    (unsigned long long)entry);
#define FIELD(n) pclnrt_load32(g->d + rec + g->entsz + 4 * (n), g->big)
	nameoff = FIELD(0);
	args = FIELD(1);
	frame = FIELD(2);
	tabs[0] = FIELD(3);
	tabs[1] = FIELD(4);
	tabs[2] = FIELD(5);
	npcdata = FIELD(6);
	if (g->layout != PCLN_GO_12)
		cuoff = FIELD(7);
#undef FIELD
	if (g->layout == PCLN_GO_12 && !g->packed)
		nfuncdata = pclnrt_load32(g->d + rec + g->last_at, g->big);
	else
		nfuncdata = g->d[rec + g->last_at + 3];

	name = str_at(g, g->namebase, nameoff, "function name", err);
	if (name == NULL)
		return -1;
	if (npcdata > PCLN_MAX_PCDATA)
		return pclni_seterr(err, PCLN_ERANGE, (int64_t)rec, "%s "
		    "pclntab: Func record of %s at offset 0x%llx: npcdata %u "
		    "above pcln's limit %d", layout_name(g), name,
		    (unsigned long long)rec, npcdata, PCLN_MAX_PCDATA);
	if (need(g, rec + g->pcdata_at, 4 * (uint64_t)npcdata,
	    "Func pcdata offsets", err) < 0)
		return -1;

	/* Extent of every present table; the first present and nonempty
	 * one in the sizing order (pclnrt_sizing_table: pcsp, pcln, pcfile,
	 * pcdata) gives the size. */
	for (j = 0; j < 3 && size == 0; j++) {
		int t = (int)pclnrt_sizing_table(j);
		if (tabs[t] != 0 && table_extent(g, tabs[t], entry,
		    pclnrt_table_name(t), name, &size, err) < 0)
			return -1;
	}
	for (j = 0; j < npcdata && size == 0; j++) {
		uint32_t off = pclnrt_load32(g->d + rec + g->pcdata_at + 4 * j,
		    g->big);
		if (off != 0 && table_extent(g, off, entry, "pcdata", name,
		    &size, err) < 0)
			return -1;
	}
	if (size == 0)
		size = next - entry;
	if (size > next - entry)
		return pclni_seterr(err, PCLN_EOVERLAP, (int64_t)rec, "%s "
		    "pclntab: tables of %s (entry 0x%llx) cover 0x%llx bytes, "
		    "past the next entry 0x%llx", layout_name(g), name,
		    (unsigned long long)entry, (unsigned long long)size,
		    (unsigned long long)next);

	f = pcln_builder_add_func(b, name, entry, size, (int32_t)args,
	    (int32_t)frame, err);
	if (f < 0)
		return -1;
	for (j = 0; j < 3; j++) {
		uint64_t ext;
		if (tabs[j] == 0)
			continue;
		if (table_extent(g, tabs[j], entry, pclnrt_table_name((int)j),
		    name, &ext, err) < 0 || import_table(g, b, f, (int)j, tabs[j], entry,
		    size, cuoff, maxfile, err) < 0)
			return -1;
	}
	for (j = 0; j < npcdata; j++) {
		uint32_t off = pclnrt_load32(g->d + rec + g->pcdata_at + 4 * j,
		    g->big);
		uint64_t ext;
		/* Go's pcdata 3 on (ArgLiveIndex, Go 1.18: the garbage
		 * collector's) are not kept: in a pcln blob those indexes
		 * are the CFA rules a walk follows (doc/FORMAT.md), and
		 * Go's values read as them send it off the stack. */
		if (off == 0 || j >= PCLN_PCDATA_CFA)
			continue;
		if (table_extent(g, off, entry, "pcdata", name, &ext,
		    err) < 0 || import_table(g, b, f, PCLN_TAB_PCDATA(j), off,
		    entry, size, cuoff, maxfile, err) < 0)
			return -1;
	}

	/* Funcdata: pointers in the 1.2 and 1.16 layouts, aligned to P after
	 * pcdata; 1.18+ store uint32 offsets into go.func.*, which mean
	 * nothing outside the binary, and are not imported. */
	if (g->layout <= PCLN_GO_116 && nfuncdata > 0) {
		uint64_t fd = pclni_align(g->pcdata_at + 4 * (uint64_t)npcdata,
		    g->ps);
		if (nfuncdata > PCLN_MAX_FUNCDATA)
			return pclni_seterr(err, PCLN_ERANGE, (int64_t)rec,
			    "%s pclntab: Func record of %s at offset 0x%llx: "
			    "nfuncdata %u above pcln's limit %d",
			    layout_name(g), name,
			    (unsigned long long)rec, nfuncdata,
			    PCLN_MAX_FUNCDATA);
		if (need(g, rec + fd, (uint64_t)nfuncdata * g->ps,
		    "Func funcdata", err) < 0)
			return -1;
		for (j = 0; j < nfuncdata; j++) {
			uint64_t v = pclnrt_loadptr(g->d + rec + fd +
			    (uint64_t)j * g->ps, g->ps, g->big);
			if (v != 0 && pcln_builder_set_funcdata(b, f, j, v,
			    err) < 0)
				return -1;
		}
	}
	return 0;
}

int
pcln_go_packed(const uint8_t *data, size_t len)
{
	struct gotab g;

	if (parse_header(&g, data, len, 0, NULL) < 0 ||
	    g.layout != PCLN_GO_12 || detect_packed(&g, NULL) < 0)
		return -1;
	return g.packed;
}

int
pcln_go_import(const uint8_t *data, size_t len, uint64_t text_start,
    pcln_builder **out, pcln_go_info *info, pcln_err *err)
{
	struct gotab g;
	pcln_target t;
	pcln_builder *b;
	size_t maxfile = 0;
	uint64_t i, first = 0, end = 0;

	pclni_clearerr(err);
	if (out == NULL || (data == NULL && len > 0))
		return pclni_seterr(err, PCLN_EINVAL, -1,
		    "pcln_go_import: NULL argument");
	*out = NULL;
	if (parse_header(&g, data, len, text_start, err) < 0)
		return -1;
	if (g.layout == PCLN_GO_12 && detect_packed(&g, err) < 0)
		return -1;
	if (rdft(&g, g.nfunc, 0, &end, err) < 0)
		return -1;
	if (g.nfunc > 0 && rdft(&g, 0, 0, &first, err) < 0)
		return -1;

	t.ptrsize = g.ps;
	t.quantum = g.quantum;
	t.bigendian = g.big;
	if ((b = pcln_builder_new(&t, err)) == NULL)
		return -1;
	for (i = 0; i < g.nfunc; i++)
		if (import_func(&g, b, i, &maxfile, err) < 0) {
			pcln_builder_free(b);
			return -1;
		}
	if (info != NULL) {
		memset(info, 0, sizeof *info);
		info->layout = g.layout;
		info->magic = pclnrt_load32(data, g.big);
		info->target = t;
		info->packed_nfuncdata = g.packed;
		info->nfunc = (size_t)g.nfunc;
		info->nfile = maxfile;
		info->text_start = g.layout >= PCLN_GO_118 ? g.textstart :
		    first;
		info->end_pc = end;
	}
	*out = b;
	return 0;
}

int
pcln_go_import_elf(const uint8_t *elf, size_t len, pcln_builder **out,
    pcln_go_info *info, pcln_err *err)
{
	pcln_elf_section pc, text;
	uint64_t textaddr = 0;
	int rc;

	pclni_clearerr(err);
	if (out == NULL)
		return pclni_seterr(err, PCLN_EINVAL, -1,
		    "pcln_go_import_elf: NULL argument");
	*out = NULL;
	/* A PIE's table is in .data.rel.ro.gopclntab, where the dynamic
	 * linker can relocate its textStart word. */
	rc = pcln_elf_find_section(elf, len, PCLN_ELF_GO_SECTION, &pc, err);
	if (rc == 0)
		rc = pcln_elf_find_section(elf, len, ".data.rel.ro.gopclntab",
		    &pc, err);
	if (rc < 0)
		return -1;
	if (rc == 0 || pc.data == NULL)
		return pclni_seterr(err, PCLN_ENOTFOUND, -1,
		    "ELF image has no %s (or .data.rel.ro.gopclntab) section "
		    "with data", PCLN_ELF_GO_SECTION);
	rc = pcln_elf_find_section(elf, len, ".text", &text, err);
	if (rc < 0)
		return -1;
	if (rc == 1)
		textaddr = text.addr;
	return pcln_go_import(pc.data, (size_t)pc.size, textaddr, out, info,
	    err);
}

int
pcln_go_convert(const uint8_t *data, size_t len, uint64_t text_start,
    unsigned flags, uint8_t **blob, size_t *bloblen, pcln_go_info *info,
    pcln_err *err)
{
	pcln_builder *b;
	int rc;

	if (blob == NULL || bloblen == NULL)
		return pclni_seterr(err, PCLN_EINVAL, -1,
		    "pcln_go_convert: NULL argument");
	*blob = NULL;
	*bloblen = 0;
	if (pcln_elf_is_elf(data, len))
		rc = pcln_go_import_elf(data, len, &b, info, err);
	else
		rc = pcln_go_import(data, len, text_start, &b, info, err);
	if (rc < 0)
		return -1;
	rc = pcln_builder_write(b, flags, blob, bloblen, err);
	pcln_builder_free(b);
	return rc;
}
