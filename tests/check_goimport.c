/* check_goimport.c -- the Go pclntab importer (lib/go/goimport.c).
 *
 * A small generator below writes one model program (three functions, a
 * gap, three files in two compilation units, an unknown file, a pcdata
 * table starting at -1, funcdata) in each Go layout exactly as Go's
 * linkers lay it out (cmd/link/internal/ld/pcln.go; runtime/symtab.go of
 * Go 1.2, 1.16, 1.18 and 1.20), for pointer sizes 4 and 8, quantum 1 and
 * 4, both byte orders.  Each table is imported, written as a pcln blob,
 * opened (which verifies it) and compared with the model row by row.
 * The generator can also write its tables to files (argument --write DIR)
 * so that tests/gointerop checks them with Go's own debug/gosym.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pcln.h"
#include "pcln_go.h"
#include "pclnrt_format.h"

#define TEXT	0x401000u

/* --- the model --- */

struct pt {
	uint32_t off;
	int32_t value;
};

#define MAXPT 6
struct mtab {
	int n;
	struct pt p[MAXPT];
};

struct mfunc {
	const char *name;
	uint32_t off, size;
	int32_t args;
	uint32_t defret;
	int cu;			/* -1: none */
	uint8_t funcid;
	struct mtab tab[3];	/* pcsp, pcfile (global file numbers, 0 =
				 * unknown), pcln */
	uint32_t npcdata;
	struct mtab pcdata0;	/* pcdata[0] if npcdata > 0 */
	uint32_t nfd;
	uint64_t fd[2];
};

static const char *const files[] = { "", "/src/a.go", "/src/b.go",
    "/src/c.go" };

/* Compilation units of the 1.16+ layouts: their file slots as global
 * file numbers; 0 is a slot whose file the linker dropped (^0). */
static const int cu0[] = { 1, 2 };
static const int cu1[] = { 3, 0, 1 };
static const int *const cus[] = { cu0, cu1 };
static const int ncu[] = { 2, 3 };

static const struct mfunc model[] = {
	{ "main.main", 0x00, 0x40, 8, 0x30, 0, 0,
	  { { 3, { { 0, 0 }, { 4, 16 }, { 0x3c, 0 } } },
	    { 2, { { 0, 1 }, { 0x20, 2 } } },
	    { 4, { { 0, 10 }, { 8, 11 }, { 0x20, 40 }, { 0x30, 12 } } } },
	  1, { 3, { { 0, -1 }, { 0x10, 0 }, { 0x18, -1 } } },
	  2, { 0x1000, 0 } },
	/* a gap of 0x20 before it */
	{ "main.f", 0x60, 0x20, 0, 0, 1, 0,
	  { { 3, { { 0, 0 }, { 4, 8 }, { 0x1c, 0 } } },
	    { 3, { { 0, 3 }, { 0x10, 1 }, { 0x18, 0 } } },
	    { 2, { { 0, 5 }, { 0x10, 99 } } } },
	  2, { 0, { { 0, 0 } } },
	  0, { 0, 0 } },
	/* no table at all: extends to the end pc */
	{ "runtime.asm", 0x80, 0x10, 0, 0, -1, 7,
	  { { 0, { { 0, 0 } } }, { 0, { { 0, 0 } } }, { 0, { { 0, 0 } } } },
	  0, { 0, { { 0, 0 } } },
	  0, { 0, 0 } },
};
#define NFUNC (sizeof model / sizeof model[0])
#define ENDOFF 0x90u

/* --- a growable output buffer --- */

struct out {
	uint8_t *b;
	size_t len, cap;
	int big;
	unsigned ps, q;
};

static void
grow(struct out *o, size_t n)
{
	if (o->len + n > o->cap) {
		size_t cap = o->cap ? o->cap * 2 : 4096;
		while (cap < o->len + n)
			cap *= 2;
		/* no ck_assert: the generator also runs outside Check */
		if ((o->b = realloc(o->b, cap)) == NULL)
			abort();
		memset(o->b + o->cap, 0, cap - o->cap);
		o->cap = cap;
	}
}

static void
set32(struct out *o, size_t at, uint32_t v)
{
	int i;
	for (i = 0; i < 4; i++)
		o->b[at + (size_t)i] = (uint8_t)(v >> (o->big ? 24 - 8 * i :
		    8 * i));
}

static void
setptr(struct out *o, size_t at, uint64_t v)
{
	if (o->ps == 4) {
		set32(o, at, (uint32_t)v);
	} else if (o->big) {
		set32(o, at, (uint32_t)(v >> 32));
		set32(o, at + 4, (uint32_t)v);
	} else {
		set32(o, at, (uint32_t)v);
		set32(o, at + 4, (uint32_t)(v >> 32));
	}
}

static size_t
put8(struct out *o, uint8_t v)
{
	grow(o, 1);
	o->b[o->len] = v;
	return o->len++;
}

static size_t
put32(struct out *o, uint32_t v)
{
	grow(o, 4);
	set32(o, o->len, v);
	o->len += 4;
	return o->len - 4;
}

static size_t
putptr(struct out *o, uint64_t v)
{
	grow(o, o->ps);
	setptr(o, o->len, v);
	o->len += o->ps;
	return o->len - o->ps;
}

static void
align(struct out *o, size_t a)
{
	while (o->len % a)
		put8(o, 0);
}

static size_t
putstr(struct out *o, const char *s)
{
	size_t at = o->len, n = strlen(s) + 1;
	grow(o, n);
	memcpy(o->b + o->len, s, n);
	o->len += n;
	return at;
}

/* Encode table T of a function of SIZE bytes, its values mapped by MAP
 * (NULL: as they are) with argument CU; return its offset. */
static size_t
puttab(struct out *o, const struct mtab *t, uint32_t size,
    int32_t (*map)(int, int32_t), int cu)
{
	uint8_t buf[8];
	size_t at = o->len, n, k;
	int32_t prev = -1;
	int i;

	for (i = 0; i < t->n; i++) {
		int32_t v = map ? map(cu, t->p[i].value) : t->p[i].value;
		uint32_t end = i + 1 < t->n ? t->p[i + 1].off : size;
		n = pcln_put_uvarint(buf, pcln_zigzag(v - prev));
		for (k = 0; k < n; k++)
			put8(o, buf[k]);
		n = pcln_put_uvarint(buf, (end - t->p[i].off) / o->q);
		for (k = 0; k < n; k++)
			put8(o, buf[k]);
		prev = v;
	}
	put8(o, 0);
	return at;
}

/* Global file number G as a slot of compilation unit CU. */
static int32_t
cu_local(int cu, int32_t g)
{
	int i;
	for (i = 0; i < ncu[cu]; i++)
		if (cus[cu][i] == g)
			return i;
	abort();	/* the model is wrong */
}

/* --- the generator --- */

struct gen {
	int layout;		/* 12, 116, 118, 120 */
	int packed;		/* Go 1.2 layout: funcID/nfuncdata word */
	unsigned ps, q;
	int big;
	int textzero;		/* 1.18+: header textStart 0 (PIE-like) */
};

static uint32_t
go_magic(int layout)
{
	switch (layout) {
	case 12: return PCLN_GO_MAGIC_12;
	case 116: return PCLN_GO_MAGIC_116;
	case 118: return PCLN_GO_MAGIC_118;
	default: return PCLN_GO_MAGIC_120;
	}
}

static void
put_header8(struct out *o, const struct gen *g)
{
	put32(o, go_magic(g->layout));
	put8(o, 0);
	put8(o, 0);
	put8(o, (uint8_t)g->q);
	put8(o, (uint8_t)g->ps);
}

/* The last word of a Func: funcID, flag, pad, nfuncdata in memory order
 * (Go 1.12 on), or an int32 nfuncdata (Go 1.2 to 1.11). */
static void
put_lastword(struct out *o, const struct gen *g, const struct mfunc *f)
{
	if (g->layout == 12 && !g->packed) {
		put32(o, f->nfd);
		return;
	}
	put8(o, f->funcid);
	put8(o, 0);
	put8(o, 0);
	put8(o, (uint8_t)f->nfd);
}

static void
gen_go12(struct out *o, const struct gen *g)
{
	size_t ft, fto, rec[NFUNC], i;

	put_header8(o, g);
	putptr(o, NFUNC);
	ft = o->len;
	for (i = 0; i < NFUNC; i++) {
		putptr(o, TEXT + model[i].off);
		putptr(o, 0);
	}
	putptr(o, TEXT + ENDOFF);
	fto = put32(o, 0);
	for (i = 0; i < NFUNC; i++) {
		const struct mfunc *f = &model[i];
		uint32_t j;
		align(o, o->ps);
		rec[i] = o->len;
		setptr(o, ft + (2 * i + 1) * o->ps, rec[i]);
		putptr(o, TEXT + f->off);
		put32(o, 0);		/* nameoff */
		put32(o, (uint32_t)f->args);
		put32(o, f->defret);
		put32(o, 0);		/* pcsp */
		put32(o, 0);		/* pcfile */
		put32(o, 0);		/* pcln */
		put32(o, f->npcdata);
		put_lastword(o, g, f);
		for (j = 0; j < f->npcdata; j++)
			put32(o, 0);
		if (f->nfd > 0) {
			align(o, o->ps);
			for (j = 0; j < f->nfd; j++)
				putptr(o, f->fd[j]);
		}
	}
	for (i = 0; i < NFUNC; i++) {
		const struct mfunc *f = &model[i];
		size_t r = rec[i] + o->ps;
		int j;
		set32(o, r, (uint32_t)putstr(o, f->name));
		for (j = 0; j < 3; j++)
			if (f->tab[j].n > 0)
				set32(o, r + 12 + 4 * (size_t)j,
				    (uint32_t)puttab(o, &f->tab[j], f->size,
				    NULL, 0));
		if (f->npcdata > 0 && f->pcdata0.n > 0)
			set32(o, r + 32, (uint32_t)puttab(o, &f->pcdata0,
			    f->size, NULL, 0));
	}
	{
		size_t names[4], ftab;
		int k;
		for (k = 1; k < 4; k++)
			names[k] = putstr(o, files[k]);
		align(o, 4);
		ftab = put32(o, 4);	/* nslots = files + 1 */
		for (k = 1; k < 4; k++)
			put32(o, (uint32_t)names[k]);
		set32(o, fto, (uint32_t)ftab);
	}
}

static void
gen_split(struct out *o, const struct gen *g)
{
	size_t hdr, nametab, cutab, filetab, pctab, pcln, i;
	size_t nameoff[NFUNC], taboff[NFUNC][4], fileoff[4], cuoff[2];
	size_t ft, rec;
	int k, c;
	unsigned w = 0;
	int off18 = g->layout >= 118;

	put_header8(o, g);
	hdr = o->len;
	for (k = 0; k < (off18 ? 8 : 7); k++)
		putptr(o, 0);

	nametab = o->len;
	for (i = 0; i < NFUNC; i++)
		nameoff[i] = putstr(o, model[i].name) - nametab;

	/* cutab is written after filetab's offsets are known: reserve it. */
	cutab = o->len;
	for (c = 0; c < 2; c++) {
		cuoff[c] = (o->len - cutab) / 4;
		for (k = 0; k < ncu[c]; k++)
			put32(o, 0);
	}
	filetab = o->len;
	for (k = 1; k < 4; k++)
		fileoff[k] = putstr(o, files[k]) - filetab;
	for (c = 0; c < 2; c++)
		for (k = 0; k < ncu[c]; k++)
			set32(o, cutab + 4 * (cuoff[c] + (size_t)k),
			    cus[c][k] ? (uint32_t)fileoff[cus[c][k]] :
			    UINT32_MAX);

	pctab = o->len;
	put8(o, 0);		/* offset 0 means "no table" */
	for (i = 0; i < NFUNC; i++) {
		const struct mfunc *f = &model[i];
		for (k = 0; k < 3; k++)
			taboff[i][k] = f->tab[k].n == 0 ? 0 :
			    puttab(o, &f->tab[k], f->size,
			    k == 1 ? cu_local : NULL, f->cu) - pctab;
		taboff[i][3] = f->npcdata > 0 && f->pcdata0.n > 0 ?
		    puttab(o, &f->pcdata0, f->size, NULL, 0) - pctab : 0;
	}

	align(o, o->ps);
	pcln = o->len;
	ft = o->len;
	for (i = 0; i < NFUNC; i++) {
		if (off18) {
			put32(o, model[i].off);
			put32(o, 0);
		} else {
			putptr(o, TEXT + model[i].off);
			putptr(o, 0);
		}
	}
	if (off18)
		put32(o, ENDOFF);
	else
		putptr(o, TEXT + ENDOFF);
	for (i = 0; i < NFUNC; i++) {
		const struct mfunc *f = &model[i];
		uint32_t j;
		align(o, off18 ? 4 : o->ps);
		rec = o->len;
		if (off18) {
			set32(o, ft + (2 * i + 1) * 4, (uint32_t)(rec - pcln));
			put32(o, f->off);
		} else {
			setptr(o, ft + (2 * i + 1) * o->ps, rec - pcln);
			putptr(o, TEXT + f->off);
		}
		put32(o, (uint32_t)nameoff[i]);
		put32(o, (uint32_t)f->args);
		put32(o, f->defret);
		for (k = 0; k < 3; k++)
			put32(o, (uint32_t)taboff[i][k]);
		put32(o, f->npcdata);
		put32(o, f->cu < 0 ? UINT32_MAX : (uint32_t)cuoff[f->cu]);
		if (g->layout == 120)
			put32(o, 1000 + (uint32_t)i);	/* startLine */
		put_lastword(o, g, f);
		for (j = 0; j < f->npcdata; j++)
			put32(o, j == 0 ? (uint32_t)taboff[i][3] : 0);
		if (off18) {
			for (j = 0; j < f->nfd; j++)
				put32(o, f->fd[j] ? (uint32_t)f->fd[j] :
				    UINT32_MAX);
		} else if (f->nfd > 0) {
			align(o, o->ps);
			for (j = 0; j < f->nfd; j++)
				putptr(o, f->fd[j]);
		}
	}

	setptr(o, hdr + o->ps * w++, NFUNC);
	setptr(o, hdr + o->ps * w++, 3);	/* nfiles */
	if (off18)
		setptr(o, hdr + o->ps * w++, g->textzero ? 0 : TEXT);
	setptr(o, hdr + o->ps * w++, nametab);
	setptr(o, hdr + o->ps * w++, cutab);
	setptr(o, hdr + o->ps * w++, filetab);
	setptr(o, hdr + o->ps * w++, pctab);
	setptr(o, hdr + o->ps * w++, pcln);
}

static uint8_t *
gen(const struct gen *g, size_t *len)
{
	struct out o;

	memset(&o, 0, sizeof o);
	o.big = g->big;
	o.ps = g->ps;
	o.q = g->q;
	if (g->layout == 12)
		gen_go12(&o, g);
	else
		gen_split(&o, g);
	*len = o.len;
	return o.b;
}

/* --- checks --- */

static const char *
expect_file(int32_t gfile)
{
	return files[gfile];	/* 0: unknown, which Go calls "" */
}

static void
check_rows(const pcln_table *t, size_t fi, int table, const struct mtab *m,
    const struct mfunc *f, const char *what)
{
	pcln_rowiter it;
	pcln_row row;
	int i, rc;

	ck_assert_int_eq(pcln_rows_begin(&it, t, fi, table), 0);
	for (i = 0; (rc = pcln_rows_next(&it, &row)) == 1; i++) {
		uint32_t end = i + 1 < m->n ? m->p[i + 1].off : f->size;
		ck_assert_msg(i < m->n, "%s: %s table %d: extra row", what,
		    f->name, table);
		ck_assert_uint_eq(row.start, TEXT + f->off + m->p[i].off);
		ck_assert_uint_eq(row.end, TEXT + f->off + end);
		if (table == PCLN_TAB_PCFILE)
			ck_assert_str_eq(pcln_file_name(t,
			    (uint32_t)row.value), expect_file(m->p[i].value));
		else
			ck_assert_int_eq(row.value, m->p[i].value);
	}
	ck_assert_int_eq(rc, 0);
	ck_assert_msg(i == m->n, "%s: %s table %d: %d rows, expected %d",
	    what, f->name, table, i, m->n);
}

static void
check_import(const struct gen *g)
{
	uint8_t *go, *blob;
	size_t golen, bloblen, i;
	pcln_builder *b;
	pcln_go_info info;
	pcln_table *t;
	pcln_info ti;
	pcln_err err;
	char what[96];

	snprintf(what, sizeof what, "layout %d%s ps %u q %u %s%s", g->layout,
	    g->packed ? " packed" : "", g->ps, g->q, g->big ? "BE" : "LE",
	    g->textzero ? " textStart 0" : "");
	go = gen(g, &golen);
	ck_assert_int_eq(pcln_go_layout_of(go, golen), g->layout);
	ck_assert_msg(pcln_go_import(go, golen, TEXT, &b, &info, &err) == 0,
	    "%s: %s", what, err.msg);
	ck_assert_int_eq(info.layout, g->layout);
	ck_assert_uint_eq(info.magic, go_magic(g->layout));
	ck_assert_uint_eq(info.target.ptrsize, g->ps);
	ck_assert_uint_eq(info.target.quantum, g->q);
	ck_assert_int_eq(info.target.bigendian, g->big);
	ck_assert_int_eq(info.packed_nfuncdata, g->layout == 12 && g->packed);
	ck_assert_uint_eq(info.nfunc, NFUNC);
	ck_assert_uint_eq(info.nfile, 4);	/* a, b, c and "" */
	ck_assert_uint_eq(info.text_start, TEXT);
	ck_assert_uint_eq(info.end_pc, TEXT + ENDOFF);
	ck_assert_msg(pcln_builder_write(b, 0, &blob, &bloblen, &err) == 0,
	    "%s: write: %s", what, err.msg);
	pcln_builder_free(b);
	t = pcln_open(blob, bloblen, 0, &err);
	ck_assert_msg(t != NULL, "%s: open: %s", what, err.msg);
	pcln_get_info(t, &ti);
	ck_assert_uint_eq(ti.target.ptrsize, g->ps);
	ck_assert_uint_eq(ti.target.quantum, g->q);
	ck_assert_int_eq(ti.target.bigendian, g->big);
	ck_assert_uint_eq(pcln_nfunc(t), NFUNC);
	for (i = 0; i < NFUNC; i++) {
		const struct mfunc *f = &model[i];
		pcln_func pf;
		int k;

		ck_assert_int_eq(pcln_get_func(t, i, &pf), 0);
		ck_assert_str_eq(pf.name, f->name);
		ck_assert_uint_eq(pf.entry, TEXT + f->off);
		ck_assert_uint_eq(pf.end, TEXT + f->off + f->size);
		ck_assert_int_eq(pf.args, f->args);
		ck_assert_int_eq(pf.frame, (int32_t)f->defret);
		for (k = 0; k < 3; k++)
			check_rows(t, i, k, &f->tab[k], f, what);
		if (f->pcdata0.n > 0)
			check_rows(t, i, PCLN_TAB_PCDATA(0), &f->pcdata0, f,
			    what);
		else
			ck_assert_uint_eq(pcln_table_offset(t, i,
			    PCLN_TAB_PCDATA(0)), 0);
		/* funcdata are pointers up to Go 1.17 and imported as they
		 * are; 1.18+ offsets into go.func.* are not imported. */
		ck_assert_uint_eq(pcln_funcdata(t, i, 0),
		    g->layout <= 116 ? f->fd[0] : 0);
		ck_assert_uint_eq(pcln_funcdata(t, i, 1), 0);
	}
	/* the gap after main.main is no function's */
	ck_assert_int_eq(pcln_find_func(t, TEXT + 0x40), -1);
	ck_assert_int_eq(pcln_find_func(t, TEXT + 0x5c), -1);
	ck_assert_int_eq(pcln_find_func(t, TEXT + 0x60), 1);
	ck_assert_int_eq(pcln_find_func(t, TEXT + 0x8f), 2);
	pcln_close(t);
	free(blob);
	free(go);
}

static const int layouts[][2] = { { 12, 0 }, { 12, 1 }, { 116, 0 },
    { 118, 0 }, { 120, 0 } };
#define NLAYOUT (sizeof layouts / sizeof layouts[0])

/* _i runs over layout x ptrsize x quantum x byte order. */
static void
gen_of(int i, struct gen *g)
{
	memset(g, 0, sizeof *g);
	g->layout = layouts[i % (int)NLAYOUT][0];
	g->packed = layouts[i % (int)NLAYOUT][1];
	i /= (int)NLAYOUT;
	g->ps = i & 1 ? 8 : 4;
	g->q = i & 2 ? 4 : 1;
	g->big = (i & 4) != 0;
}
#define NGEN ((int)NLAYOUT * 8)

START_TEST(test_layouts)
{
	struct gen g;

	gen_of(_i, &g);
	check_import(&g);
}
END_TEST

/* 1.18+ with a header textStart of 0 (as in a PIE before relocation):
 * the caller's text start is used. */
START_TEST(test_textstart_hint)
{
	struct gen g;

	gen_of(_i, &g);
	if (g.layout < 118)
		return;
	g.textzero = 1;
	check_import(&g);
}
END_TEST

/* Our own Go 1.2 output imports to the same model: import, write without
 * trailer, import that, write again: the bytes are identical. */
START_TEST(test_roundtrip_go12)
{
	struct gen g;
	uint8_t *go, *b1, *b2;
	size_t golen, l1, l2;
	pcln_builder *b;
	pcln_go_info info;
	pcln_err err;

	gen_of(_i, &g);
	go = gen(&g, &golen);
	ck_assert_int_eq(pcln_go_convert(go, golen, TEXT, PCLN_WRITE_GO12,
	    &b1, &l1, &info, &err), 0);
	ck_assert_int_eq(pcln_go_layout_of(b1, l1), PCLN_GO_12);
	ck_assert_int_eq(pcln_go_import(b1, l1, 0, &b, &info, &err), 0);
	ck_assert_int_eq(info.packed_nfuncdata, 0);
	ck_assert_int_eq(pcln_builder_write(b, PCLN_WRITE_GO12, &b2, &l2,
	    &err), 0);
	ck_assert_uint_eq(l1, l2);
	ck_assert_mem_eq(b1, b2, l1);
	pcln_builder_free(b);
	free(b1);
	free(b2);
	free(go);
}
END_TEST

/* --- an ELF image around a table (no Go toolchain needed) --- */

static void
set16(struct out *o, size_t at, uint16_t v)
{
	o->b[at + (o->big ? 1 : 0)] = (uint8_t)v;
	o->b[at + (o->big ? 0 : 1)] = (uint8_t)(v >> 8);
}

/* An ELF file (class from the pointer size, byte order from G) with
 * sections .text at TEXT (SHT_NOBITS), SECNAME holding TAB, .shstrtab. */
static uint8_t *
gen_elf(const struct gen *g, const char *secname, const uint8_t *tab,
    size_t tablen, size_t *len)
{
	static const char shstr0[] = "\0.text\0.shstrtab\0";
	struct out o;
	size_t ehsize = g->ps == 8 ? 64 : 52, shent = g->ps == 8 ? 64 : 40;
	size_t taboff, stroff, shoff, namelen = strlen(secname) + 1, k;
	/* per section: name offset, type, addr, offset, size */
	uint64_t sec[4][5];

	memset(&o, 0, sizeof o);
	o.big = g->big;
	o.ps = g->ps;
	o.q = 1;
	grow(&o, ehsize);
	o.len = ehsize;
	memcpy(o.b, "\177ELF", 4);
	o.b[4] = g->ps == 8 ? 2 : 1;
	o.b[5] = g->big ? 2 : 1;
	o.b[6] = 1;
	taboff = o.len;
	grow(&o, tablen);
	memcpy(o.b + o.len, tab, tablen);
	o.len += tablen;
	stroff = o.len;
	grow(&o, sizeof shstr0 + namelen);
	memcpy(o.b + o.len, shstr0, sizeof shstr0 - 1);
	memcpy(o.b + o.len + sizeof shstr0 - 1, secname, namelen);
	o.len += sizeof shstr0 - 1 + namelen;
	align(&o, 8);
	shoff = o.len;
	memset(sec, 0, sizeof sec);
	sec[1][0] = 1;  sec[1][1] = 8; sec[1][2] = TEXT;	/* .text */
	sec[1][4] = ENDOFF;
	sec[2][0] = 7;  sec[2][1] = 3; sec[2][3] = stroff;	/* .shstrtab */
	sec[2][4] = sizeof shstr0 - 1 + namelen;
	sec[3][0] = sizeof shstr0 - 1; sec[3][1] = 1;		/* the table */
	sec[3][2] = 0x500000; sec[3][3] = taboff; sec[3][4] = tablen;
	grow(&o, 4 * shent);
	for (k = 0; k < 4; k++) {
		size_t at = shoff + k * shent;
		set32(&o, at, (uint32_t)sec[k][0]);
		set32(&o, at + 4, (uint32_t)sec[k][1]);
		setptr(&o, at + 8 + o.ps, sec[k][2]);		/* addr */
		setptr(&o, at + 8 + 2 * o.ps, sec[k][3]);	/* offset */
		setptr(&o, at + 8 + 3 * o.ps, sec[k][4]);	/* size */
	}
	o.len += 4 * shent;
	set16(&o, 16, 2);				/* ET_EXEC */
	set16(&o, 18, g->ps == 8 ? 62 : 20);		/* x86-64, ppc */
	set32(&o, 20, 1);				/* EV_CURRENT */
	setptr(&o, 24 + 2 * o.ps, shoff);		/* e_shoff */
	set16(&o, 28 + 3 * o.ps, (uint16_t)ehsize);	/* e_ehsize */
	set16(&o, 28 + 3 * o.ps + 6, (uint16_t)shent);	/* e_shentsize */
	set16(&o, 28 + 3 * o.ps + 8, 4);		/* e_shnum */
	set16(&o, 28 + 3 * o.ps + 10, 2);		/* e_shstrndx */
	*len = o.len;
	return o.b;
}

/* pcln_go_import_elf finds the table (.gopclntab, or a PIE's
 * .data.rel.ro.gopclntab) and, for a 1.18+ table whose textStart is 0,
 * takes the text start from .text. */
START_TEST(test_elf)
{
	static const char *const names[] = { ".gopclntab",
	    ".data.rel.ro.gopclntab" };
	struct gen g;
	uint8_t *go, *elf, *blob;
	size_t golen, elflen, bloblen;
	pcln_builder *b;
	pcln_go_info info;
	pcln_table *t;
	pcln_func f;
	pcln_err err;

	gen_of(_i, &g);
	g.textzero = 1;
	go = gen(&g, &golen);
	elf = gen_elf(&g, names[_i & 1], go, golen, &elflen);
	ck_assert_msg(pcln_go_import_elf(elf, elflen, &b, &info, &err) == 0,
	    "%s", err.msg);
	ck_assert_int_eq(info.layout, g.layout);
	ck_assert_uint_eq(info.text_start, TEXT);
	ck_assert_uint_eq(info.nfunc, NFUNC);
	pcln_builder_free(b);
	/* pcln_go_convert tells ELF from a raw table by itself */
	ck_assert_int_eq(pcln_go_convert(elf, elflen, 0, 0, &blob, &bloblen,
	    &info, &err), 0);
	ck_assert_ptr_nonnull(t = pcln_open(blob, bloblen, 0, &err));
	ck_assert_int_eq(pcln_get_func(t, 1, &f), 0);
	ck_assert_str_eq(f.name, "main.f");
	ck_assert_uint_eq(f.entry, TEXT + 0x60);
	pcln_close(t);
	free(blob);
	/* no Go table in it */
	free(elf);
	elf = gen_elf(&g, ".data", go, golen, &elflen);
	ck_assert_int_eq(pcln_go_import_elf(elf, elflen, &b, &info, &err), -1);
	ck_assert_int_eq(err.code, PCLN_ENOTFOUND);
	ck_assert_ptr_nonnull(strstr(err.msg, ".gopclntab"));
	free(elf);
	free(go);
}
END_TEST

/* --- bad input --- */

static void
expect_fail(const uint8_t *d, size_t len, int code, const char *needle)
{
	pcln_builder *b = (pcln_builder *)1;
	pcln_err err;

	ck_assert_int_eq(pcln_go_import(d, len, TEXT, &b, NULL, &err), -1);
	ck_assert_ptr_null(b);
	ck_assert_msg(err.code == code, "code %d (%s), expected %d: %s",
	    err.code, pcln_strerror(err.code), code, err.msg);
	ck_assert_msg(strstr(err.msg, needle) != NULL,
	    "message \"%s\" lacks \"%s\"", err.msg, needle);
}

START_TEST(test_errors)
{
	struct gen g;
	uint8_t *go;
	size_t len;
	static const uint8_t junk[16] = { 0xfb, 0xff, 0xff, 0xff, 0, 0, 3, 8 };

	expect_fail(junk, sizeof junk, PCLN_EMAGIC, "not a Go pclntab");
	expect_fail(junk, 4, PCLN_EMAGIC, "not a Go pclntab");

	/* Go 1.18, little-endian, P = 8 */
	gen_of(3, &g);
	g.ps = 8;
	go = gen(&g, &len);
	/* nfunc far too large */
	go[8 + 3] = 0x40;
	expect_fail(go, len, PCLN_EHEADER, "nfunc");
	go[8 + 3] = 0;
	/* pctab offset beyond the end */
	go[8 + 6 * 8 + 3] = 0x40;
	expect_fail(go, len, PCLN_EHEADER, "pctab");
	go[8 + 6 * 8 + 3] = 0;
	free(go);

	/* Go 1.2, big-endian, P = 4: swap two functab entries */
	gen_of(0, &g);
	g.big = 1;
	go = gen(&g, &len);
	go[12 + 8 + 3] = 0x00;	/* entry of function 1 -> 0x401000 */
	go[12 + 8 + 2] = 0x10;
	expect_fail(go, len, PCLN_EORDER, "not above entry");
	free(go);

	/* Go 1.2: Func entry differs from the functab's */
	gen_of(0, &g);
	go = gen(&g, &len);
	{
		uint32_t fo = pclnrt_load32(go + 12 + 4, 0);
		go[fo] ^= 4;
	}
	expect_fail(go, len, PCLN_EFUNC, "expected the function table's");
	free(go);
}
END_TEST

/* Every truncation and every single-byte corruption of every layout
 * imports or fails cleanly (run under ASan/UBSan by --enable-sanitizers
 * to prove no read leaves the buffer). */
START_TEST(test_fuzz)
{
	struct gen g;
	uint8_t *go, *copy;
	size_t len, n;

	gen_of(_i, &g);
	go = gen(&g, &len);
	for (n = 0; n < len; n++) {
		pcln_builder *b = NULL;
		pcln_err err;
		copy = malloc(n ? n : 1);
		ck_assert_ptr_nonnull(copy);
		memcpy(copy, go, n);
		if (pcln_go_import(copy, n, TEXT, &b, NULL, &err) == 0)
			pcln_builder_free(b);
		else
			ck_assert_int_ne(err.code, PCLN_OK);
		free(copy);
	}
	copy = malloc(len);
	ck_assert_ptr_nonnull(copy);
	for (n = 0; n < len; n++) {
		pcln_builder *b = NULL;
		pcln_err err;
		memcpy(copy, go, len);
		copy[n] ^= 0xa5;
		if (pcln_go_import(copy, len, TEXT, &b, NULL, &err) == 0)
			pcln_builder_free(b);
	}
	free(copy);
	free(go);
}
END_TEST

static Suite *
goimport_suite(void)
{
	Suite *s = suite_create("goimport");
	TCase *tc;

	tc = tcase_create("layouts");
	tcase_add_loop_test(tc, test_layouts, 0, NGEN);
	tcase_add_loop_test(tc, test_textstart_hint, 0, NGEN);
	tcase_add_loop_test(tc, test_roundtrip_go12, 0, NGEN);
	suite_add_tcase(s, tc);
	tc = tcase_create("elf");
	tcase_add_loop_test(tc, test_elf, 0, NGEN);
	suite_add_tcase(s, tc);
	tc = tcase_create("errors");
	tcase_add_test(tc, test_errors);
	tcase_add_loop_test(tc, test_fuzz, 0, NGEN);
	suite_add_tcase(s, tc);
	return s;
}

/* With --write DIR, write every generated table to
 * DIR/go<layout>[p]-<ps>-<q>-<le|be>.tab for tests/gointerop. */
static int
write_tables(const char *dir)
{
	int i;

	for (i = 0; i < NGEN; i++) {
		struct gen g;
		char path[512];
		uint8_t *go;
		size_t len;
		FILE *fp;

		gen_of(i, &g);
		go = gen(&g, &len);
		snprintf(path, sizeof path, "%s/go%d%s-%u-%u-%s.tab", dir,
		    g.layout, g.packed ? "p" : "", g.ps, g.q,
		    g.big ? "be" : "le");
		if ((fp = fopen(path, "wb")) == NULL ||
		    fwrite(go, 1, len, fp) != len || fclose(fp) != 0) {
			perror(path);
			free(go);
			return 1;
		}
		free(go);
	}
	return 0;
}

int
main(int argc, char **argv)
{
	SRunner *sr;
	int nfail;

	if (argc == 3 && strcmp(argv[1], "--write") == 0)
		return write_tables(argv[2]);
	sr = srunner_create(goimport_suite());
	srunner_run_all(sr, CK_NORMAL);
	nfail = srunner_ntests_failed(sr);
	srunner_free(sr);
	return nfail == 0 ? 0 : 1;
}
