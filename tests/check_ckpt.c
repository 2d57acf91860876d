/* check_ckpt.c -- bounded pc-value lookups: checkpoints and the cache.
 *
 * pc-value checkpoints (the PCCKPT trailer section,
 * doc/FORMAT.md 8): the builder writes one checkpoint per STRIDE rows of
 * every longer table (narrow and wide arrays, in a block per function),
 * the verifier checks every one of them, and pclnrt_pcvalue and
 * pcln_pcvalue give with them exactly the answers of a decode from the
 * entry, for every pc, on both byte orders, both pointer sizes and
 * quanta 1 and 4.  A lookup really resumes at the checkpoint (damage
 * before it does not change the answer), and a damaged section is
 * refused by the verifier and never makes the unchecked readers fault. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pcln.h"
#include "pclnrt.h"
#include "pclnrt_format.h"
#include "trailer.h"

#define NF	5
#define NTAB	6		/* pcsp, pcfile, pcln, pcdata[0..2] */

/* One generated table: NPT points (pcoff, value); the first at FIRST. */
struct gtab {
	size_t npt;
	uint32_t *off;
	int32_t *val;
};

struct gfunc {
	uint64_t entry, size;
	struct gtab tab[NTAB];
};

struct cfg {
	unsigned ptrsize, quantum, big;
};

static const struct cfg cfgs[] = {
	{ 8, 1, 0 }, { 4, 4, 1 }, { 8, 4, 1 }, { 4, 1, 0 },
};

static uint64_t
lcg(uint64_t *s)
{
	*s = *s * 6364136223846793005ull + 1442695040888963407ull;
	return *s >> 33;
}

/* NPT points over [FIRST, SIZE) in steps of the quantum Q, each value
 * different from the one before; pcfile (KIND 1) values 1..3, pcln
 * values jumping both ways, others small. */
static void
gen_tab(struct gtab *t, size_t npt, uint64_t first, uint64_t size,
    unsigned q, int kind, uint64_t *seed)
{
	uint64_t slots = (size - first) / q, k;
	size_t i;
	int32_t prev = -1;

	t->npt = npt;
	t->off = calloc(npt ? npt : 1, sizeof *t->off);
	t->val = calloc(npt ? npt : 1, sizeof *t->val);
	ck_assert(npt <= slots);
	/* Evenly spread offsets with a little jitter, strictly increasing. */
	for (i = 0; i < npt; i++) {
		k = slots * i / npt;
		if (i > 0 && slots / npt > 2)
			k += lcg(seed) % (slots / npt - 1);
		t->off[i] = (uint32_t)(first + k * q);
	}
	for (i = 0; i < npt; i++) {
		int32_t v;
		do {
			if (kind == PCLN_TAB_PCFILE)
				v = 1 + (int32_t)(lcg(seed) % 3);
			else if (kind == PCLN_TAB_PCLN)
				v = 1 + (int32_t)(lcg(seed) % 100000);
			else
				v = (int32_t)(lcg(seed) % 64) - 8;
		} while (v == prev);
		t->val[i] = prev = v;
	}
}

static struct gfunc fn[NF];

/* Five functions: a short one (no checkpoints), a long one, its twin
 * (equal tables: shared), one over 64 KiB (wide entries) and one whose
 * tables start late (a -1 row first). */
static void
gen_funcs(unsigned q)
{
	static const size_t npts[NF][NTAB] = {
		{ 3, 2, 10, 0, 0, 0 },
		{ 100, 40, 1000, 300, 0, 50 },
		{ 100, 40, 1000, 300, 0, 50 },
		{ 20, 5, 2000, 0, 17, 0 },
		{ 30, 0, 400, 33, 0, 0 },
	};
	static const uint64_t sizes[NF] = { 200, 8000, 8000, 0x30000, 3000 };
	uint64_t pc = 0x10000, seed;
	int i, j;

	memset(fn, 0, sizeof fn);
	for (i = 0; i < NF; i++) {
		fn[i].entry = pc;
		fn[i].size = sizes[i];
		seed = 7 + (uint64_t)(i == 2 ? 1 : i);	/* twin tables */
		for (j = 0; j < NTAB; j++) {
			uint64_t first = i == 4 && j != PCLN_TAB_PCFILE ?
			    16 * q : 0;
			if (j == PCLN_TAB_PCFILE && npts[i][j] > 0)
				first = 0;	/* pcfile starts at 0 */
			gen_tab(&fn[i].tab[j], npts[i][j], first, sizes[i], q,
			    j, &seed);
		}
		pc += sizes[i] + 64;
	}
}

static void
free_funcs(void)
{
	int i, j;

	for (i = 0; i < NF; i++)
		for (j = 0; j < NTAB; j++) {
			free(fn[i].tab[j].off);
			free(fn[i].tab[j].val);
		}
}

/* Rows the builder encodes for a table: one per point, plus a -1 row
 * before a first point above 0. */
static size_t
rows_of(const struct gtab *t)
{
	return t->npt == 0 ? 0 : t->npt + (t->off[0] > 0);
}

static uint8_t *
build(const struct cfg *c, unsigned stride, size_t *len,
    pcln_build_stats *st)
{
	pcln_target t;
	pcln_builder *b;
	pcln_err err;
	uint8_t *out = NULL;
	int i, j;
	size_t k;

	memset(&t, 0, sizeof t);
	t.ptrsize = c->ptrsize;
	t.quantum = c->quantum;
	t.bigendian = c->big;
	b = pcln_builder_new(&t, &err);
	ck_assert_ptr_nonnull(b);
	ck_assert_int_eq(pcln_builder_set_checkpoints(b, stride, &err), 0);
	for (k = 1; k <= 3; k++) {
		char path[32];
		snprintf(path, sizeof path, "file%zu.c", k);
		ck_assert_int_eq(pcln_builder_add_file(b, path, &err),
		    (long)k);
	}
	for (i = 0; i < NF; i++) {
		char name[16];
		long h;
		snprintf(name, sizeof name, "f%d", i);
		h = pcln_builder_add_func(b, name, fn[i].entry, fn[i].size,
		    0, 0, &err);
		ck_assert_int_eq(h, i);
		for (j = 0; j < NTAB; j++)
			for (k = 0; k < fn[i].tab[j].npt; k++)
				ck_assert_msg(pcln_builder_add_point(b, h, j,
				    fn[i].tab[j].off[k], fn[i].tab[j].val[k],
				    &err) == 0, "%s", err.msg);
	}
	ck_assert_msg(pcln_builder_write(b, 0, &out, len, &err) == 0, "%s",
	    err.msg);
	if (st != NULL)
		*st = *pcln_builder_stats(b);
	pcln_builder_free(b);
	return out;
}

/* The reference: value of T at PCOFF and its row [*S, *E) (offsets). */
static int32_t
ref(const struct gtab *t, uint64_t size, uint64_t pcoff, uint64_t *s,
    uint64_t *e)
{
	size_t lo = 0, hi = t->npt;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (t->off[mid] <= pcoff)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == 0) {
		*s = 0;
		*e = t->off[0];
		return -1;
	}
	*s = t->off[lo - 1];
	*e = lo < t->npt ? t->off[lo] : size;
	return t->val[lo - 1];
}

/* Every table of every function, at every pc (every 61st quantum in the
 * wide function, plus its row edges), through both readers. */
static void
check_all(const uint8_t *blob, size_t len, unsigned q)
{
	pclnrt_table rt;
	pcln_table *lt;
	pcln_err err;
	int i, j;

	ck_assert_int_eq(pclnrt_init(&rt, blob, len), PCLNRT_EINIT_OK);
	lt = pcln_open(blob, len, 0, &err);
	ck_assert_msg(lt != NULL, "%s", err.msg);
	for (i = 0; i < NF; i++) {
		for (j = 0; j < NTAB; j++) {
			const struct gtab *t = &fn[i].tab[j];
			uint64_t off, step = fn[i].size > 0x10000 ? 61 * q : q;
			size_t k;

			if (t->npt == 0)
				continue;
			for (off = 0; off < fn[i].size; off += step) {
				for (k = 0; k < 3; k++) {
					uint64_t o = off, s, e, gs = 0, ge = 0;
					int32_t want, got = 0;
					pclnrt_func f;
					pcln_row row;
					if (k == 1 || k == 2) {
						/* the row edges around OFF */
						if (step == q)
							break;
						ref(t, fn[i].size, off, &s, &e);
						o = k == 1 ? s : e - q;
					}
					want = ref(t, fn[i].size, o, &s, &e);
					ck_assert_int_eq(pclnrt_findfunc(&rt,
					    fn[i].entry + o, &f), PCLNRT_OK);
					ck_assert_int_eq(pclnrt_pcvalue(&f, j,
					    fn[i].entry + o, &got, &gs, &ge),
					    PCLNRT_OK);
					ck_assert_msg(got == want && gs ==
					    fn[i].entry + s && ge ==
					    fn[i].entry + e, "f%d table %d pc "
					    "+0x%llx: %d [+0x%llx, +0x%llx), "
					    "expected %d [+0x%llx, +0x%llx)",
					    i, j, (unsigned long long)o, got,
					    (unsigned long long)(gs -
					    fn[i].entry), (unsigned long long)
					    (ge - fn[i].entry), want,
					    (unsigned long long)s,
					    (unsigned long long)e);
					got = 0;
					ck_assert_int_eq(pcln_pcvalue(lt,
					    (size_t)i, j, fn[i].entry + o, &got,
					    &row), 0);
					ck_assert_int_eq(got, want);
					ck_assert_uint_eq(row.start,
					    fn[i].entry + s);
					ck_assert_uint_eq(row.end,
					    fn[i].entry + e);
				}
			}
		}
	}
	pcln_close(lt);
}

static const unsigned strides[] = { 0, 1, 2, 7, 16, 64, 5000 };

/* Expected checkpoints and descriptors, and the section's size: a
 * block per function with long tables, wide in f3 (over 64 KiB). */
static size_t
want_nckpt(unsigned stride, size_t *ndesc, size_t *size)
{
	size_t n = 0, blk = 0;
	int i, j;

	*ndesc = 0;
	for (i = 0; i < NF; i++) {
		size_t nd = 0, arr = 0;
		for (j = 0; j < NTAB; j++) {
			size_t r = rows_of(&fn[i].tab[j]), c;
			if (stride == 0 || r <= stride)
				continue;
			nd++;
			c = (r - 1) / stride;
			n += c;
			arr += (size_t)PCLN_CKPT_ARRAYS(c, i == 3 ? 4 : 2);
		}
		*ndesc += nd;
		if (nd > 0)
			blk += 4 + PCLN_CKPT_DESC * nd + arr;
	}
	*size = n ? PCLN_CKPT_HDR + 4 * (NF + 1) + blk : 0;
	return n;
}

START_TEST(test_ckpt_lookup)
{
	const struct cfg *c = &cfgs[_i / 7];
	unsigned stride = strides[_i % 7];
	pcln_build_stats st;
	size_t len, nd, want, size;
	uint8_t *blob;
	pcln_err err;

	gen_funcs(c->quantum);
	blob = build(c, stride, &len, &st);
	ck_assert_msg(pcln_verify(blob, len, &err) == 0, "%s", err.msg);
	want = want_nckpt(stride, &nd, &size);
	ck_assert_uint_eq(st.nckpt, want);
	ck_assert_uint_eq(st.nckdesc, nd);
	ck_assert_uint_eq(st.ckpt, size);
	check_all(blob, len, c->quantum);
	free(blob);
	free_funcs();
}
END_TEST

/* Damaging the first bytes of f1's pcln table (its first rows) leaves
 * the answers after its first checkpoint right, because the lookup
 * resumes there; without checkpoints the same damage shows. */
START_TEST(test_ckpt_resumes)
{
	static const struct cfg c = { 8, 1, 0 };
	pclnrt_table rt;
	pclnrt_func f;
	uint64_t pc, s, e, first;
	int32_t v, want;
	size_t len, k;
	uint8_t *blob;
	unsigned stride;
	int wrong;

	gen_funcs(1);
	for (stride = 0; stride <= 16; stride += 16) {
		const struct gtab *t = &fn[1].tab[PCLN_TAB_PCLN];
		blob = build(&c, stride, &len, NULL);
		ck_assert_int_eq(pclnrt_init(&rt, blob, len), PCLNRT_EINIT_OK);
		ck_assert_int_eq(pclnrt_findfunc(&rt, fn[1].entry, &f),
		    PCLNRT_OK);
		/* the table's offset, from the Func record */
		k = pclnrt_load32(blob + f.funcoff + PCLN_FUNC_PCLN(8), 0);
		memset(blob + k, 0x7e, 4);	/* the first two rows */
		first = t->off[stride ? stride : 1];	/* checkpoint 1 */
		wrong = 0;
		for (pc = fn[1].entry + first; pc < fn[1].entry + fn[1].size;
		    pc++) {
			want = ref(t, fn[1].size, pc - fn[1].entry, &s, &e);
			if (pclnrt_pcvalue(&f, PCLN_TAB_PCLN, pc, &v, NULL,
			    NULL) != PCLNRT_OK || v != want)
				wrong++;
		}
		if (stride)
			ck_assert_int_eq(wrong, 0);
		else
			ck_assert_int_gt(wrong, 0);
		free(blob);
	}
	free_funcs();
}
END_TEST

/* Damage to the section, resealed so that the verifier reports the
 * section itself.  OFF is from: 0 the section's start, 1 f1's block, 2
 * its first table's pcoff array, 3 its byteoff array, 4 its values. */
struct damage {
	const char *what;
	long off;
	int from;
	int width;		/* 4 or 2 bytes */
	uint32_t value;
	int add;		/* add VALUE instead of storing it */
	const char *msg;
};

static const struct damage damages[] = {
	{ "stride 0", PCLN_CKPT_STRIDE, 0, 4, 0, 0, "stride 0 reserved" },
	{ "stride + 1", PCLN_CKPT_STRIDE, 0, 4, 1, 1, "expected form 1 or 2, "
	    "(rows - 1)" },
	{ "reserved0", PCLN_CKPT_RESERVED0, 0, 4, 1, 0, "reserved 1 0" },
	{ "reserved", PCLN_CKPT_RESERVED, 0, 4, 1, 0, "reserved 0 1" },
	{ "blkbytes", PCLN_CKPT_BLKBYTES, 0, 4, 4, 1, "block bytes in" },
	{ "start[0]", PCLN_CKPT_HDR, 0, 4, 4, 0, "start[0]" },
	{ "start[2]", PCLN_CKPT_HDR + 8, 0, 4, 1000000, 0, "start[2]" },
	{ "start[2] odd", PCLN_CKPT_HDR + 8, 0, 4, 2, 1, "start[2]" },
	{ "ndesc 0", 0, 1, 4, 0, 0, "0 descriptors, expected 1" },
	{ "ndesc + 1", 0, 1, 4, 1, 1, "expected form 1 or 2, (rows - 1)" },
	{ "table", 4, 1, 2, 9, 0, "no descriptor for function 1 table 0" },
	{ "table twice", 4 + PCLN_CKPT_DESC, 1, 2, 0, 0, "no descriptor for "
	    "function 1 table 1" },
	{ "form", 6, 1, 2, 3, 0, "form 3" },
	{ "first", 8, 1, 4, 4, 1, "expected form 1 or 2, (rows - 1)" },
	{ "count", 12, 1, 4, 1, 1, "expected form 1 or 2, (rows - 1)" },
	{ "pcoff", 0, 2, 2, 1, 1, "checkpoint 0 of function 1" },
	{ "byteoff", 0, 3, 2, 1, 1, "checkpoint 0 of function 1" },
	{ "value", 0, 4, 4, 1, 1, "checkpoint 0 of function 1" },
};

static void
store_be(uint8_t *p, uint32_t v, int width)
{
	int k;

	for (k = 0; k < width; k++)
		p[k] = (uint8_t)(v >> (8 * (width - 1 - k)));
}

/* Apply damage D to the big-endian stride-16 blob B[0..LEN) of
 * gen_funcs(1); return the PCCKPT section (its size in *SIZE). */
static uint8_t *
apply_damage(uint8_t *b, size_t len, const struct damage *d, uint32_t *size)
{
	uint8_t *ck, *blk, *p;
	uint32_t cnt, aw;

	ck = trailer_section(b, len, 1, PCLN_SECT_PCCKPT, size);
	ck_assert_ptr_nonnull(ck);
	/* f1's block; its first descriptor (pcsp, narrow) and arrays */
	blk = ck + PCLN_CKPT_HDR + 4 * (NF + 1) +
	    pclnrt_load32(ck + PCLN_CKPT_HDR + 4, 1);
	ck_assert_uint_eq(pclnrt_load32(blk, 1), 5);
	ck_assert_uint_eq(pclnrt_load16(blk + 6, 1), PCLN_CKPT_NARROW);
	cnt = pclnrt_load32(blk + 12, 1);
	ck_assert_uint_eq(cnt, (100 - 1) / 16);
	aw = (2 * cnt + 3) & ~3u;
	p = (d->from == 0 ? ck : blk) + d->off;
	if (d->from >= 2)
		p = blk + pclnrt_load32(blk + 8, 1) + (uint32_t)(d->from - 2) *
		    aw;
	if (d->width == 4)
		store_be(p, (d->add ? pclnrt_load32(p, 1) : 0) + d->value, 4);
	else
		store_be(p, (d->add ? pclnrt_load16(p, 1) : 0) + d->value, 2);
	return ck;
}

START_TEST(test_ckpt_damage)
{
	static const struct cfg c = { 8, 1, 1 };
	const struct damage *d = &damages[_i];
	uint32_t size = 0;
	size_t len;
	uint8_t *blob, *ck;
	pcln_err err;

	gen_funcs(1);
	blob = build(&c, 16, &len, NULL);
	ck = apply_damage(blob, len, d, &size);
	trailer_reseal(blob, len);
	ck_assert_int_eq(pcln_verify(blob, len, &err), -1);
	ck_assert_int_eq(err.code, PCLN_ETRAILER);
	ck_assert_msg(strstr(err.msg, d->msg) != NULL, "%s: %s", d->what,
	    err.msg);
	ck_assert_int_ge(err.offset, (int64_t)(ck - blob));
	ck_assert_int_lt(err.offset, (int64_t)(ck - blob + size));
	free(blob);
	free_funcs();
}
END_TEST

/* pcln_verify_func: every function of a good blob passes; a damaged
 * checkpoint block or table fails for its own function only, with the
 * whole verifier's message; a function index out of range is EINVAL. */
START_TEST(test_verify_func)
{
	static const struct cfg c = { 8, 1, 1 };
	const struct damage *d = &damages[_i];
	uint32_t size = 0;
	size_t len, i;
	uint8_t *blob;
	pcln_err err, ferr;

	gen_funcs(1);
	blob = build(&c, 16, &len, NULL);
	for (i = 0; i < NF; i++)
		ck_assert_msg(pcln_verify_func(blob, len, i, &err) == 0,
		    "%zu: %s", i, err.msg);
	ck_assert_int_eq(pcln_verify_func(blob, len, NF, &err), -1);
	ck_assert_int_eq(err.code, PCLN_EINVAL);
	(void)apply_damage(blob, len, d, &size);
	ck_assert_int_eq(pcln_verify(blob, len, &err), -1);
	/* The damage is in f1's block or the section's header (every
	 * function sees it), or a start[] (f1 or f2). */
	ck_assert_int_eq(pcln_verify_func(blob, len, 1, &ferr) == 0 &&
	    pcln_verify_func(blob, len, 2, &ferr) == 0, 0);
	ck_assert_str_eq(ferr.msg, err.msg);
	if (d->from >= 1)
		ck_assert_int_eq(pcln_verify_func(blob, len, 3, &ferr), 0);
	free(blob);
	free_funcs();
}
END_TEST

/* A damaged pcln table fails only its own function's check. */
START_TEST(test_verify_func_table)
{
	static const struct cfg c = { 8, 1, 0 };
	pclnrt_table rt;
	pclnrt_func f;
	size_t len, i;
	uint8_t *blob;
	uint32_t off;
	pcln_err err;

	gen_funcs(1);
	blob = build(&c, 0, &len, NULL);
	ck_assert_int_eq(pclnrt_init(&rt, blob, len), PCLNRT_EINIT_OK);
	ck_assert_int_eq(pclnrt_findfunc(&rt, fn[4].entry, &f), PCLNRT_OK);
	off = pclnrt_load32(blob + f.funcoff + PCLN_FUNC_PCLN(8), 0);
	memset(blob + off, 0xff, 8);	/* an overlong varint */
	for (i = 0; i < NF; i++) {
		int rc = pcln_verify_func(blob, len, i, &err);
		ck_assert_int_eq(rc, i == 4 ? -1 : 0);
		if (i == 4)
			ck_assert_int_eq(err.code, PCLN_EVARINT);
	}
	free(blob);
	free_funcs();
}
END_TEST

/* Every byte of the section flipped: the unchecked readers answer (right
 * or wrong) without reading outside the blob (the sanitizer run checks
 * that) and without hanging. */
START_TEST(test_ckpt_flip)
{
	static const struct cfg c = { 4, 1, 0 };
	uint32_t size = 0, k;
	size_t len;
	uint8_t *blob, *ck, *copy;
	int i;

	gen_funcs(1);
	blob = build(&c, 8, &len, NULL);
	ck = trailer_section(blob, len, 0, PCLN_SECT_PCCKPT, &size);
	ck_assert_ptr_nonnull(ck);
	copy = malloc(len);
	for (k = 0; k < size; k++) {
		pclnrt_table rt;
		pcln_table *lt;
		memcpy(copy, blob, len);
		copy[(ck - blob) + k] ^= 0xa5;
		ck_assert_int_eq(pclnrt_init(&rt, copy, len), PCLNRT_EINIT_OK);
		lt = pcln_open(copy, len, PCLN_OPEN_TRUSTED, NULL);
		ck_assert_ptr_nonnull(lt);
		for (i = 1; i < NF; i++) {
			uint64_t pc;
			for (pc = fn[i].entry; pc < fn[i].entry + fn[i].size;
			    pc += 997) {
				pclnrt_func f;
				int32_t v;
				int j;
				if (pclnrt_findfunc(&rt, pc, &f) != PCLNRT_OK)
					continue;
				for (j = 0; j < NTAB; j++) {
					(void)pclnrt_pcvalue(&f, j, pc, &v,
					    NULL, NULL);
					(void)pcln_pcvalue(lt, (size_t)i, j,
					    pc, &v, NULL);
				}
			}
		}
		pcln_close(lt);
	}
	free(copy);
	free(blob);
	free_funcs();
}
END_TEST

START_TEST(test_ckpt_api)
{
	pcln_target t;
	pcln_builder *b;
	pcln_err err;

	memset(&t, 0, sizeof t);
	t.ptrsize = 8;
	t.quantum = 1;
	b = pcln_builder_new(&t, &err);
	ck_assert_int_eq(pcln_builder_set_checkpoints(b,
	    PCLN_CKPT_STRIDE_MAX + 1, &err), -1);
	ck_assert_int_eq(err.code, PCLN_EINVAL);
	ck_assert_int_eq(pcln_builder_set_checkpoints(NULL, 4, &err), -1);
	ck_assert_int_eq(pcln_builder_set_checkpoints(b,
	    PCLN_CKPT_STRIDE_MAX, &err), 0);
	pcln_builder_free(b);
}
END_TEST

/* The default stride is PCLN_CKPT_DEFAULT; plain Go 1.2 output has no
 * trailer and so no checkpoints. */
START_TEST(test_ckpt_default)
{
	pcln_target t;
	pcln_builder *b;
	pcln_err err;
	uint8_t *out;
	size_t len, nd, sz;
	uint32_t size;
	int i;

	gen_funcs(1);
	memset(&t, 0, sizeof t);
	t.ptrsize = 8;
	t.quantum = 1;
	b = pcln_builder_new(&t, &err);
	pcln_builder_add_file(b, "a.c", &err);
	pcln_builder_add_file(b, "b.c", &err);
	pcln_builder_add_file(b, "c.c", &err);
	for (i = 0; i < NF; i++) {
		size_t k;
		int j;
		long h = pcln_builder_add_func(b, "f", fn[i].entry, fn[i].size,
		    0, 0, &err);
		for (j = 0; j < NTAB; j++)
			for (k = 0; k < fn[i].tab[j].npt; k++)
				pcln_builder_add_point(b, h, j,
				    fn[i].tab[j].off[k], fn[i].tab[j].val[k],
				    &err);
	}
	ck_assert_int_eq(pcln_builder_write(b, 0, &out, &len, &err), 0);
	ck_assert_ptr_nonnull(trailer_section(out, len, 0, PCLN_SECT_PCCKPT, &size));
	ck_assert_uint_eq(pcln_builder_stats(b)->nckpt,
	    want_nckpt(PCLN_CKPT_DEFAULT, &nd, &sz));
	ck_assert_uint_eq(pcln_builder_stats(b)->ckpt, sz);
	ck_assert_uint_eq(size, sz);
	free(out);
	ck_assert_int_eq(pcln_builder_write(b, PCLN_WRITE_GO12, &out, &len,
	    &err), 0);
	ck_assert_uint_eq(pcln_builder_stats(b)->ckpt, 0);
	ck_assert_uint_eq(pcln_builder_stats(b)->nckpt, 0);
	free(out);
	pcln_builder_free(b);
	free_funcs();
}
END_TEST

/* The cache gives the uncached answers, for pcs in random order with
 * repeats; a pc in a cached row hits; the same offset in the twin
 * function, whose tables are shared, does not (its checkpoints might
 * differ in a damaged blob) but gets the same answer. */
START_TEST(test_pccache)
{
	static const struct cfg c = { 8, 1, 0 };
	pclnrt_pccache cache;
	pclnrt_table rt;
	pclnrt_func f, g;
	uint64_t seed = 99, h;
	size_t len;
	uint8_t *blob;
	int k, j;

	gen_funcs(1);
	blob = build(&c, 16, &len, NULL);
	ck_assert_int_eq(pclnrt_init(&rt, blob, len), PCLNRT_EINIT_OK);
	pclnrt_pccache_init(&cache);
	for (k = 0; k < 20000; k++) {
		int i = 1 + (int)(lcg(&seed) % (NF - 1));
		/* few distinct pcs, so that they repeat */
		uint64_t pc = fn[i].entry + (lcg(&seed) % 64) * (fn[i].size /
		    64);
		const char *p1, *p2;
		int32_t l1, l2;
		ck_assert_int_eq(pclnrt_findfunc(&rt, pc, &f), PCLNRT_OK);
		for (j = 0; j < NTAB + 1; j++) {
			int32_t a = 7, b = 7;
			int ra = pclnrt_pcvalue(&f, j, pc, &a, NULL, NULL);
			int rb = pclnrt_pcvalue_cached(&f, j, pc, &b, &cache);
			ck_assert_int_eq(ra, rb);
			ck_assert_int_eq(a, b);
		}
		ck_assert_int_eq(pclnrt_funcline(&f, pc, &p1, &l1),
		    pclnrt_funcline_cached(&f, pc, &p2, &l2, &cache));
		ck_assert_ptr_eq(p1, p2);
		ck_assert_int_eq(l1, l2);
	}
	ck_assert_uint_gt(cache.hits, 0);
	/* Two pcs of f1 over and over (a hot loop): at most 2 x 5 rows
	 * (its present tables) miss, the rest hit. */
	pclnrt_pccache_init(&cache);
	for (k = 0; k < 100; k++) {
		uint64_t pc = fn[1].entry + (k % 2 ? 1000 : 5000);
		ck_assert_int_eq(pclnrt_findfunc(&rt, pc, &f), PCLNRT_OK);
		for (j = 0; j < NTAB; j++) {
			int32_t b;
			(void)pclnrt_pcvalue_cached(&f, j, pc, &b, &cache);
		}
	}
	ck_assert_uint_le(cache.misses, 10);
	ck_assert_uint_eq(cache.hits + cache.misses, 100 * 5);
	/* Same row of the shared pcln table, from the twin: its own entry. */
	pclnrt_pccache_init(&cache);
	ck_assert_int_eq(pclnrt_findfunc(&rt, fn[1].entry + 100, &f),
	    PCLNRT_OK);
	ck_assert_int_eq(pclnrt_findfunc(&rt, fn[2].entry + 100, &g),
	    PCLNRT_OK);
	{
		int32_t a, b;
		ck_assert_int_eq(pclnrt_pcvalue_cached(&f, PCLN_TAB_PCLN,
		    fn[1].entry + 100, &a, &cache), PCLNRT_OK);
		h = cache.hits;
		ck_assert_int_eq(pclnrt_pcvalue_cached(&g, PCLN_TAB_PCLN,
		    fn[2].entry + 100, &b, &cache), PCLNRT_OK);
		ck_assert_int_eq(a, b);
		ck_assert_uint_eq(cache.hits, h);
		ck_assert_int_eq(pclnrt_pcvalue_cached(&g, PCLN_TAB_PCLN,
		    fn[2].entry + 101, &b, &cache), PCLNRT_OK);
		ck_assert_int_eq(a, b);
		ck_assert_uint_eq(cache.hits, h + 1);
		/* NULL cache: plain lookups */
		ck_assert_int_eq(pclnrt_pcvalue_cached(&g, PCLN_TAB_PCLN,
		    fn[2].entry + 100, &b, NULL), PCLNRT_OK);
		ck_assert_int_eq(a, b);
		/* outside the function: not found, nothing cached */
		ck_assert_int_eq(pclnrt_pcvalue_cached(&g, PCLN_TAB_PCLN,
		    fn[2].entry + fn[2].size, &b, &cache), PCLNRT_NOTFOUND);
	}
	free(blob);
	free_funcs();
}
END_TEST

static Suite *
ckpt_suite(void)
{
	Suite *s = suite_create("ckpt");
	TCase *tc = tcase_create("ckpt");

	tcase_set_timeout(tc, 120);
	tcase_add_loop_test(tc, test_ckpt_lookup, 0,
	    (int)(sizeof cfgs / sizeof cfgs[0]) * 7);
	tcase_add_test(tc, test_ckpt_resumes);
	tcase_add_loop_test(tc, test_ckpt_damage, 0,
	    (int)(sizeof damages / sizeof damages[0]));
	tcase_add_test(tc, test_ckpt_flip);
	tcase_add_loop_test(tc, test_verify_func, 0,
	    (int)(sizeof damages / sizeof damages[0]));
	tcase_add_test(tc, test_verify_func_table);
	tcase_add_test(tc, test_ckpt_api);
	tcase_add_test(tc, test_ckpt_default);
	tcase_add_test(tc, test_pccache);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	SRunner *sr = srunner_create(ckpt_suite());
	int nfail;

	srunner_run_all(sr, CK_NORMAL);
	nfail = srunner_ntests_failed(sr);
	srunner_free(sr);
	return nfail == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
