/* test_build.c -- the builder: the Go 1.2 design-document vector, the
 * canonical encoding, deduplication, statistics, determinism and errors. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pcln.h"
#include "pclnrt.h"
#include "pclnrt_format.h"
#include "golden.h"
#include "suites_lib.h"

/* Store V at P, little-endian. */
static void
pclni_test_store32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)v;
	p[1] = (uint8_t)(v >> 8);
	p[2] = (uint8_t)(v >> 16);
	p[3] = (uint8_t)(v >> 24);
}

/* A builder for the target (PS, Q, BIG), which must be valid. */
static pcln_builder *
new_builder(unsigned ps, unsigned q, int big)
{
	pcln_target t = { ps, q, big };
	pcln_err err;
	pcln_builder *b = pcln_builder_new(&t, &err);

	ck_assert_msg(b != NULL, "pcln_builder_new: %s", err.msg);
	return b;
}

/* Write B with FLAGS: it must succeed, and the blob verify.  The blob is
 * the caller's to free. */
static uint8_t *
write_ok(pcln_builder *b, unsigned flags, size_t *len)
{
	uint8_t *blob;
	pcln_err err;

	ck_assert_msg(pcln_builder_write(b, flags, &blob, len, &err) == 0,
	    "pcln_builder_write: %s", err.msg);
	ck_assert_msg(pcln_verify(blob, *len, &err) == 0, "pcln_verify: %s",
	    err.msg);
	return blob;
}

/* From the Go 1.2 runtime symbol table design document: the pcsp table
 * of a function at 0x2000, quantum 1. */
static const uint8_t go12_pcsp[] = {
	0x02, 0x19, 0x40, 0x52, 0x10, 0x02, 0x10, 0x06, 0x0f, 0x01, 0x0f, 0x27,
	0x3f, 0x01, 0x00
};
static const struct {
	uint64_t start, end;
	int32_t value;
} go12_rows[] = {
	{ 0x2000, 0x2019, 0 }, { 0x2019, 0x206b, 32 }, { 0x206b, 0x206d, 40 },
	{ 0x206d, 0x2073, 48 }, { 0x2073, 0x2074, 40 }, { 0x2074, 0x209b, 32 },
	{ 0x209b, 0x209c, 0 },
};
#define GO12_NROWS (sizeof go12_rows / sizeof go12_rows[0])

START_TEST(test_go12_decode)
{
	struct pclnrt_pcstep s;
	size_t n = 0;
	int rc;

	pclnrt_pcstep_init(&s, go12_pcsp, go12_pcsp + sizeof go12_pcsp,
	    0x2000, 1);
	while ((rc = pclnrt_pcstep(&s)) == 1) {
		ck_assert_uint_lt(n, GO12_NROWS);
		ck_assert_uint_eq(s.pc, go12_rows[n].start);
		ck_assert_uint_eq(s.nextpc, go12_rows[n].end);
		ck_assert_int_eq(s.value, go12_rows[n].value);
		n++;
	}
	ck_assert_int_eq(rc, 0);
	ck_assert_uint_eq(n, GO12_NROWS);
	ck_assert_ptr_eq(s.p, go12_pcsp + sizeof go12_pcsp);
}
END_TEST

/* Build one function at 0x2000 (size 0x9c, quantum 1) and return the
 * bytes of its pcsp table. */
static void
check_go12_pcsp(pcln_builder *b, long f)
{
	const pcln_func_layout *lo;
	uint8_t *blob;
	size_t len;

	blob = write_ok(b, 0, &len);
	lo = pcln_builder_layout(b, f);
	ck_assert_ptr_nonnull(lo);
	ck_assert_uint_eq(lo->entry, 0x2000);
	ck_assert_uint_eq(lo->size, 0x9c);
	ck_assert_uint_eq(lo->tab_len[PCLN_TAB_PCSP], sizeof go12_pcsp);
	ck_assert_uint_le(lo->tab_off[PCLN_TAB_PCSP] + sizeof go12_pcsp,
	    len);
	ck_assert_mem_eq(blob + lo->tab_off[PCLN_TAB_PCSP], go12_pcsp,
	    sizeof go12_pcsp);
	ck_assert_uint_eq(lo->tab_off[PCLN_TAB_PCFILE], 0);
	ck_assert_uint_eq(lo->tab_off[PCLN_TAB_PCLN], 0);
	free(blob);
}

START_TEST(test_go12_encode)
{
	pcln_builder *b = new_builder(8, 1, 0);
	pcln_err err;
	long f;
	size_t i;

	f = pcln_builder_add_func(b, "go12.f", 0x2000, 0x9c, 0, 48, &err);
	ck_assert_int_eq(f, 0);
	for (i = 0; i < GO12_NROWS; i++)
		ck_assert_int_eq(pcln_builder_add_point(b, f, PCLN_TAB_PCSP,
		    go12_rows[i].start - 0x2000, go12_rows[i].value, &err), 0);
	check_go12_pcsp(b, f);
	pcln_builder_free(b);
}
END_TEST

START_TEST(test_go12_set_bytes)
{
	pcln_builder *b = new_builder(4, 1, 1);
	pcln_err err;
	long f = pcln_builder_add_func(b, "go12.f", 0x2000, 0x9c, 0, 48, &err);

	ck_assert_int_eq(f, 0);
	ck_assert_int_eq(pcln_builder_set_table_bytes(b, f, PCLN_TAB_PCSP,
	    go12_pcsp, sizeof go12_pcsp, &err), 0);
	check_go12_pcsp(b, f);
	pcln_builder_free(b);
}
END_TEST

/* Encoding of one table given as points: (pcoff, value) pairs. */
static const struct {
	uint32_t size, q;
	size_t npt;
	uint32_t off[4];
	int32_t val[4];
	size_t nbytes;
	uint8_t bytes[12];
} enc[] = {
	/* One row from 0: value 5 = delta +6 -> zz 12. */
	{ 0x10, 1, 1, { 0 }, { 5 }, 3, { 12, 0x10, 0 } },
	/* Equal consecutive values merge into one row. */
	{ 0x10, 1, 3, { 0, 4, 8 }, { 5, 5, 5 }, 3, { 12, 0x10, 0 } },
	{ 0x10, 1, 3, { 0, 4, 8 }, { 5, 5, 7 }, 5, { 12, 8, 4, 8, 0 } },
	/* A first point above 0: -1 before it (first delta 0 is legal). */
	{ 0x10, 1, 1, { 4 }, { 1 }, 5, { 0, 4, 4, 12, 0 } },
	/* ... and a first point of -1 above 0 is just one -1 row. */
	{ 0x10, 1, 2, { 4, 8 }, { -1, 3 }, 5, { 0, 8, 8, 8, 0 } },
	/* Pc deltas are divided by the quantum. */
	{ 0x40, 4, 2, { 0, 0x10 }, { 0, -3 }, 5, { 2, 4, 5, 12, 0 } },
	{ 0x40, 2, 2, { 0, 0x10 }, { 0, -3 }, 5, { 2, 8, 5, 24, 0 } },
	/* Large deltas take more varint bytes. */
	{ 0x400, 1, 2, { 0, 0x100 }, { 0, 1000 }, 8,
	    { 2, 0x80, 0x02, 0xd0, 0x0f, 0x80, 0x06, 0 } },
};

START_TEST(test_encode)
{
	pcln_builder *b = new_builder(8, enc[_i].q, 0);
	pcln_err err;
	const pcln_func_layout *lo;
	uint8_t *blob;
	size_t len, k;
	long f = pcln_builder_add_func(b, "f", 0x1000, enc[_i].size, 0, 0,
	    &err);

	ck_assert_int_eq(f, 0);
	for (k = 0; k < enc[_i].npt; k++)
		ck_assert_int_eq(pcln_builder_add_point(b, f, PCLN_TAB_PCLN,
		    enc[_i].off[k], enc[_i].val[k], &err), 0);
	blob = write_ok(b, 0, &len);
	lo = pcln_builder_layout(b, f);
	ck_assert_uint_eq(lo->tab_len[PCLN_TAB_PCLN], enc[_i].nbytes);
	ck_assert_mem_eq(blob + lo->tab_off[PCLN_TAB_PCLN], enc[_i].bytes,
	    enc[_i].nbytes);
	free(blob);
	pcln_builder_free(b);
}
END_TEST

START_TEST(test_dedupe_and_stats)
{
	pcln_target t = { 8, 1, 0 };
	pcln_builder *b;
	const pcln_build_stats *st;
	const pcln_func_layout *helper, *odd, *mainf;
	uint8_t *blob;
	size_t len, sum;
	pcln_err err;

	ck_assert_int_eq(sample_build(&t, 0, &blob, &len, &b, &err), 0);
	st = pcln_builder_stats(b);
	ck_assert_uint_eq(st->nfunc, SAMPLE_NFUNC);
	ck_assert_uint_eq(st->nfile, SAMPLE_NFILE);
	ck_assert_uint_eq(st->total, len);
	sum = st->header + st->functab + st->funcs + st->names + st->filetab +
	    st->pcsp + st->pcfile + st->pcln + st->pcdata + st->padding +
	    st->trailer;
	ck_assert_uint_eq(sum, len);
	ck_assert_uint_eq(st->header, 16);
	ck_assert_uint_eq(st->functab, 2 * 8 * SAMPLE_NFUNC + 8 + 4);
	ck_assert_uint_eq(st->filetab, 4 * (SAMPLE_NFILE + 1));
	ck_assert_uint_eq(st->trailer, 4 * SAMPLE_NFUNC + 12 + 32);
	/* helper and odd (handles 2 and 4) share one pcsp table; leaf has
	 * none: 4 pcsp + 5 pcfile + 5 pcln + 2 pcdata tables. */
	helper = pcln_builder_layout(b, 2);
	odd = pcln_builder_layout(b, SAMPLE_VARINT_FUNC);
	mainf = pcln_builder_layout(b, 1);
	ck_assert_uint_eq(helper->tab_off[0], odd->tab_off[0]);
	ck_assert_uint_ne(helper->tab_off[0], mainf->tab_off[0]);
	ck_assert_uint_eq(pcln_builder_layout(b, 3)->tab_off[0], 0);
	ck_assert_uint_eq(st->ntables, 16);
	ck_assert_uint_eq(st->ntables_unique, 15);
	ck_assert_uint_eq(st->dedupe_saved, helper->tab_len[0]);
	ck_assert_uint_eq(st->nnames, SAMPLE_NFUNC);
	ck_assert_uint_eq(st->nnames_unique, SAMPLE_NFUNC);
	ck_assert_ptr_null(pcln_builder_layout(b, SAMPLE_NFUNC));
	ck_assert_ptr_null(pcln_builder_layout(b, -1));
	free(blob);
	pcln_builder_free(b);
}
END_TEST

START_TEST(test_name_dedupe)
{
	pcln_builder *b = new_builder(4, 1, 0);
	pcln_err err;
	const pcln_build_stats *st;
	uint8_t *blob;
	size_t len;
	uint32_t n0, n1, n2;

	ck_assert_int_eq(pcln_builder_add_func(b, "static_fn", 0x100, 4, 0, 0,
	    &err), 0);
	ck_assert_int_eq(pcln_builder_add_func(b, "static_fn", 0x200, 4, 0, 0,
	    &err), 1);
	ck_assert_int_eq(pcln_builder_add_func(b, "other", 0x300, 4, 0, 0,
	    &err), 2);
	blob = write_ok(b, PCLN_WRITE_GO12, &len);
	st = pcln_builder_stats(b);
	ck_assert_uint_eq(st->nnames, 3);
	ck_assert_uint_eq(st->nnames_unique, 2);
	ck_assert_uint_eq(st->dedupe_saved, sizeof "static_fn");
	ck_assert_uint_eq(st->names, sizeof "static_fn" + sizeof "other");
	n0 = pclnrt_load32(blob + pcln_builder_layout(b, 0)->funcoff +
	    PCLN_FUNC_NAMEOFF(4), 0);
	n1 = pclnrt_load32(blob + pcln_builder_layout(b, 1)->funcoff +
	    PCLN_FUNC_NAMEOFF(4), 0);
	n2 = pclnrt_load32(blob + pcln_builder_layout(b, 2)->funcoff +
	    PCLN_FUNC_NAMEOFF(4), 0);
	ck_assert_uint_eq(n0, n1);
	ck_assert_uint_ne(n0, n2);
	ck_assert_str_eq((const char *)blob + n0, "static_fn");
	ck_assert_str_eq((const char *)blob + n2, "other");
	free(blob);
	pcln_builder_free(b);
}
END_TEST

START_TEST(test_deterministic)
{
	pcln_target t = { 8, 2, 1 };
	pcln_builder *b;
	uint8_t *a, *c;
	size_t la, lc;
	pcln_err err;

	/* Twice from one builder, and once from a fresh one. */
	ck_assert_int_eq(sample_build(&t, 0, &a, &la, &b, &err), 0);
	ck_assert_int_eq(pcln_builder_write(b, 0, &c, &lc, &err), 0);
	ck_assert_uint_eq(la, lc);
	ck_assert_mem_eq(a, c, la);
	free(c);
	pcln_builder_free(b);
	ck_assert_int_eq(sample_build(&t, 0, &c, &lc, NULL, &err), 0);
	ck_assert_uint_eq(la, lc);
	ck_assert_mem_eq(a, c, la);
	free(a);
	free(c);
}
END_TEST

START_TEST(test_sorted)
{
	pcln_target t = { 4, 1, 0 };
	pcln_builder *b;
	uint8_t *blob;
	size_t len, i;
	pcln_err err;
	uint64_t prev = 0;

	ck_assert_int_eq(sample_build(&t, PCLN_WRITE_GO12, &blob, &len, &b,
	    &err), 0);
	ck_assert_uint_eq(pclnrt_load32(blob + 8, 0), SAMPLE_NFUNC);
	for (i = 0; i < SAMPLE_NFUNC; i++) {
		uint64_t e = pclnrt_load32(blob + PCLN_FTAB_ENTRY(4, i), 0);
		uint32_t fo = pclnrt_load32(blob + PCLN_FTAB_FUNCOFF(4, i), 0);
		ck_assert_uint_gt(e, prev);
		ck_assert_uint_eq(fo % 4, 0);
		ck_assert_uint_eq(pclnrt_load32(blob + fo, 0), e);
		prev = e;
	}
	/* Sentinel: the last function's end; then the file table offset. */
	ck_assert_uint_eq(pclnrt_load32(blob + PCLN_FTAB_END(4, SAMPLE_NFUNC),
	    0), SAMPLE_BASE + 0xe0);
	ck_assert_uint_eq(pclnrt_load32(blob + pclnrt_load32(blob +
	    PCLN_FILETABOFF_OFF(4, SAMPLE_NFUNC), 0), 0), SAMPLE_NFILE + 1);
	free(blob);
	pcln_builder_free(b);
}
END_TEST

START_TEST(test_empty)
{
	pcln_builder *b = new_builder(8, 1, 0);
	uint8_t *blob;
	size_t len;

	blob = write_ok(b, PCLN_WRITE_GO12, &len);
	ck_assert_uint_eq(len, 8 + 8 + 8 + 4 + 4 + 4);	/* pad to 8 */
	free(blob);
	free(write_ok(b, 0, &len));
	pcln_builder_free(b);
}
END_TEST

START_TEST(test_many_functions)
{
	/* 200000 functions with three tables each: the layout scales. */
	pcln_builder *b = new_builder(8, 4, 0);
	pcln_err err;
	const pcln_build_stats *st;
	size_t len;
	long i, n = 200000;
	char name[32];

	ck_assert_int_eq(pcln_builder_add_file(b, "big.c", &err), 1);
	for (i = 0; i < n; i++) {
		long f;
		snprintf(name, sizeof name, "f%ld", i);
		f = pcln_builder_add_func(b, name, 0x10000 + 0x40 * (uint64_t)i,
		    0x40, 0, 0, &err);
		ck_assert_int_eq(f, i);
		pcln_builder_add_point(b, f, PCLN_TAB_PCSP, 0, 0, &err);
		pcln_builder_add_point(b, f, PCLN_TAB_PCSP, 4, 16, &err);
		pcln_builder_add_point(b, f, PCLN_TAB_PCFILE, 0, 1, &err);
		ck_assert_int_eq(pcln_builder_add_point(b, f, PCLN_TAB_PCLN,
		    0, (int32_t)i + 1000, &err), 0);
	}
	free(write_ok(b, 0, &len));
	st = pcln_builder_stats(b);
	ck_assert_uint_eq(st->nfunc, (size_t)n);
	ck_assert_uint_eq(st->ntables, 3 * (size_t)n);
	/* pcsp and pcfile are the same for all: two unique + n pcln. */
	ck_assert_uint_eq(st->ntables_unique, (size_t)n + 2);
	pcln_builder_free(b);
}
END_TEST

/* --- errors ------------------------------------------------------------ */

START_TEST(test_bad_target)
{
	static const pcln_target bad[] = {
		{ 2, 1, 0 }, { 16, 1, 0 }, { 8, 3, 0 }, { 4, 0, 0 }, { 4, 8, 1 }
	};
	pcln_err err;

	ck_assert_ptr_null(pcln_builder_new(&bad[_i], &err));
	ck_assert_int_eq(err.code, PCLN_EINVAL);
	ck_assert_ptr_nonnull(strstr(err.msg, "target"));
}
END_TEST

static const struct {
	unsigned ps, q;
	uint64_t entry, size;
	int code;
} bad_funcs[] = {
	{ 8, 1, 0x1000, 0, PCLN_ERANGE },		/* empty */
	{ 8, 1, 0x1000, 0x100000000ull, PCLN_ERANGE },	/* > 4 GiB */
	{ 8, 4, 0x1002, 0x10, PCLN_ERANGE },		/* entry % q */
	{ 8, 2, 0x1000, 0x11, PCLN_ERANGE },		/* size % q */
	{ 4, 1, 0xfffffff0u, 0x10, PCLN_ERANGE },	/* end = 2^32 */
	{ 4, 1, 0x100000000ull, 0x10, PCLN_ERANGE },	/* entry > 2^32 */
	{ 8, 1, UINT64_MAX - 8, 0x10, PCLN_ERANGE },
};

START_TEST(test_bad_func)
{
	pcln_builder *b = new_builder(bad_funcs[_i].ps, bad_funcs[_i].q, 0);
	pcln_err err;

	ck_assert_int_eq(pcln_builder_add_func(b, "bad", bad_funcs[_i].entry,
	    bad_funcs[_i].size, 0, 0, &err), -1);
	ck_assert_int_eq(err.code, bad_funcs[_i].code);
	ck_assert_ptr_nonnull(strstr(err.msg, "bad"));
	/* The last address that still fits is fine. */
	ck_assert_int_eq(pcln_builder_add_func(b, "ok", bad_funcs[_i].ps == 4 ?
	    0xffffffe0u : UINT64_MAX - 0x1f, 0x10, 0, 0, &err), 0);
	pcln_builder_free(b);
}
END_TEST

START_TEST(test_point_errors)
{
	static const uint8_t trunc[] = { 0x02, 0x90 };
	static const uint8_t shortcov[] = { 0x02, 0x02, 0x00 };
	static const uint8_t longcov[] = { 0x02, 0x20, 0x00 };
	static const uint8_t trailing[] = { 0x02, 0x04, 0x00, 0x00 };
	static const uint8_t ovf[] = { 0x02, 0xff, 0xff, 0xff, 0xff, 0x7f };
	static const uint8_t nofile[] = { 0x00, 0x04, 0x00 };
	pcln_builder *b = new_builder(8, 4, 0);
	pcln_err err;
	long f = pcln_builder_add_func(b, "g", 0x1000, 0x10, 0, 0, &err);

	ck_assert_int_eq(pcln_builder_add_file(b, "a.c", &err), 1);
	ck_assert_int_eq(pcln_builder_add_file(b, "b.c", &err), 2);
	ck_assert_int_eq(pcln_builder_add_file(b, "a.c", &err), 1);
	ck_assert_int_eq(pcln_builder_add_point(b, f, PCLN_TAB_PCLN, 0x10,
	    1, &err), -1);
	ck_assert_int_eq(err.code, PCLN_ERANGE);
	ck_assert_int_eq(pcln_builder_add_point(b, f, PCLN_TAB_PCLN, 2, 1,
	    &err), -1);
	ck_assert_int_eq(err.code, PCLN_ERANGE);
	ck_assert_int_eq(pcln_builder_add_point(b, f, PCLN_TAB_PCLN, 4, 1,
	    &err), 0);
	ck_assert_int_eq(pcln_builder_add_point(b, f, PCLN_TAB_PCLN, 4, 2,
	    &err), -1);
	ck_assert_int_eq(err.code, PCLN_EORDER);
	ck_assert_int_eq(pcln_builder_add_point(b, f, PCLN_TAB_PCFILE, 0, 3,
	    &err), -1);
	ck_assert_int_eq(err.code, PCLN_ERANGE);
	ck_assert_int_eq(pcln_builder_add_point(b, f, PCLN_TAB_PCFILE, 4, 1,
	    &err), -1);
	ck_assert_int_eq(err.code, PCLN_ERANGE);
	ck_assert_int_eq(pcln_builder_add_point(b, f, -1, 0, 1, &err), -1);
	ck_assert_int_eq(err.code, PCLN_ERANGE);
	ck_assert_int_eq(pcln_builder_add_point(b, f,
	    PCLN_TAB_PCDATA(PCLN_MAX_PCDATA), 0, 1, &err), -1);
	ck_assert_int_eq(err.code, PCLN_ERANGE);
	ck_assert_int_eq(pcln_builder_add_point(b, 7, 0, 0, 1, &err), -1);
	ck_assert_int_eq(err.code, PCLN_EINVAL);
	ck_assert_int_eq(pcln_builder_set_funcdata(b, f, PCLN_MAX_FUNCDATA, 1,
	    &err), -1);
	ck_assert_int_eq(err.code, PCLN_ERANGE);

	ck_assert_int_eq(pcln_builder_set_table_bytes(b, f, PCLN_TAB_PCSP,
	    trunc, sizeof trunc, &err), -1);
	ck_assert_int_eq(err.code, PCLN_ETRUNC);
	ck_assert_int_eq(pcln_builder_set_table_bytes(b, f, PCLN_TAB_PCSP,
	    shortcov, sizeof shortcov, &err), -1);
	ck_assert_int_eq(err.code, PCLN_EPCTAB);
	ck_assert_ptr_nonnull(strstr(err.msg, "covers"));
	ck_assert_int_eq(pcln_builder_set_table_bytes(b, f, PCLN_TAB_PCSP,
	    longcov, sizeof longcov, &err), -1);
	ck_assert_int_eq(err.code, PCLN_EPCTAB);
	ck_assert_int_eq(pcln_builder_set_table_bytes(b, f, PCLN_TAB_PCSP,
	    trailing, sizeof trailing, &err), -1);
	ck_assert_int_eq(err.code, PCLN_EPCTAB);
	ck_assert_int_eq(err.offset, 3);
	ck_assert_int_eq(pcln_builder_set_table_bytes(b, f, PCLN_TAB_PCSP,
	    ovf, sizeof ovf, &err), -1);
	ck_assert_int_eq(err.code, PCLN_EVARINT);
	ck_assert_int_eq(pcln_builder_set_table_bytes(b, f, PCLN_TAB_PCFILE,
	    nofile, sizeof nofile, &err), -1);
	ck_assert_int_eq(err.code, PCLN_ERANGE);
	/* 0x10 / quantum 4 = 4 units: the right coverage. */
	{
		static const uint8_t good[] = { 0x02, 0x04, 0x00 };
		ck_assert_int_eq(pcln_builder_set_table_bytes(b, f,
		    PCLN_TAB_PCSP, good, sizeof good, &err), 0);
	}
	pcln_builder_free(b);
}
END_TEST

/* Two functions (A at AE, AS bytes, then B) written: the result. */
static int
write_two(uint64_t ae, uint64_t as, uint64_t be, uint64_t bs, pcln_err *err)
{
	pcln_builder *b = new_builder(8, 1, 0);
	uint8_t *blob = NULL;
	size_t len = 0;
	int rc;

	pcln_builder_add_func(b, "later", ae, as, 0, 0, err);
	pcln_builder_add_func(b, "first", be, bs, 0, 0, err);
	rc = pcln_builder_write(b, 0, &blob, &len, err);
	ck_assert(rc == 0 ? blob != NULL : blob == NULL);
	free(blob);
	pcln_builder_free(b);
	return rc;
}

START_TEST(test_overlap)
{
	pcln_err err;

	ck_assert_int_eq(write_two(0x2000, 0x10, 0x1000, 0x1001, &err), -1);
	ck_assert_int_eq(err.code, PCLN_EOVERLAP);
	ck_assert_ptr_nonnull(strstr(err.msg, "first"));
	ck_assert_ptr_nonnull(strstr(err.msg, "later"));
	ck_assert_ptr_nonnull(strstr(err.msg, "0x2001"));
	/* The same entry twice overlaps too. */
	ck_assert_int_eq(write_two(0x1000, 0x10, 0x1000, 0x10, &err), -1);
	ck_assert_int_eq(err.code, PCLN_EOVERLAP);
	/* Touching is fine. */
	ck_assert_int_eq(write_two(0x1000, 0x10, 0x1010, 0x10, &err), 0);
}
END_TEST

START_TEST(test_write_args)
{
	pcln_builder *b = new_builder(8, 1, 0);
	pcln_err err;
	uint8_t *blob;
	size_t len;

	ck_assert_int_eq(pcln_builder_write(b, 0x80, &blob, &len, &err), -1);
	ck_assert_int_eq(err.code, PCLN_EINVAL);
	ck_assert_int_eq(pcln_builder_write(b, 0, NULL, &len, &err), -1);
	ck_assert_int_eq(err.code, PCLN_EINVAL);
	ck_assert_int_eq(pcln_builder_add_func(b, NULL, 0, 1, 0, 0, &err), -1);
	ck_assert_int_eq(err.code, PCLN_EINVAL);
	pcln_builder_free(b);
	pcln_builder_free(NULL);
	ck_assert_str_eq(pcln_strerror(PCLN_EOVERLAP), "functions overlap");
	ck_assert_str_eq(pcln_strerror(-1), "unknown error");
	ck_assert_str_eq(pcln_strerror(PCLN_NERRORS), "unknown error");
}
END_TEST

/* The SYMNAME section (doc/FORMAT.md): a record for each function whose
 * symbol table names it otherwise, in function-table order; none for one
 * given its own name; the runtime's name for a function with a record
 * is the record's, else its own; the verifier rejects a damaged record
 * and the runtime does not take its name. */
static const char *
symname_at(const uint8_t *blob, size_t len, uint64_t pc)
{
	static pclnrt_table t;
	pclnrt_func f;

	ck_assert_int_eq(pclnrt_init(&t, blob, len), PCLNRT_EINIT_OK);
	ck_assert_int_eq(pclnrt_findfunc(&t, pc, &f), PCLNRT_OK);
	return pclnrt_symname(&f);
}

START_TEST(test_symname)
{
	pcln_builder *b = new_builder(8, 1, 0);
	pclnrt_table t;
	pcln_err err;
	uint8_t *blob, *bad;
	size_t len, glen;
	uint64_t sect = 0, k;

	/* (added out of entry order: the records are by sorted position) */
	ck_assert_int_eq(pcln_builder_add_func(b, "__memcpy_x", 0x300, 16, 0,
	    0, &err), 0);
	ck_assert_int_eq(pcln_builder_add_func(b, "plain", 0x100, 16, 0, 0,
	    &err), 1);
	ck_assert_int_eq(pcln_builder_add_func(b, "__qsort_r", 0x200, 16, 0,
	    0, &err), 2);
	ck_assert_int_eq(pcln_builder_set_symname(b, 0, "__memmove_x", &err),
	    0);
	ck_assert_int_eq(pcln_builder_set_symname(b, 1, "plain", &err), 0);
	ck_assert_int_eq(pcln_builder_set_symname(b, 2, "__GI___qsort_r",
	    &err), 0);
	ck_assert_int_eq(pcln_builder_set_symname(b, 3, "x", &err), -1);
	ck_assert_int_eq(err.code, PCLN_EINVAL);
	blob = write_ok(b, 0, &len);
	ck_assert_int_eq(pclnrt_init(&t, blob, len), PCLNRT_EINIT_OK);
	ck_assert_uint_eq(t.nsymname, 2);
	ck_assert_uint_eq(pclnrt_load32(t.symname, 0), 1);
	ck_assert_uint_eq(pclnrt_load32(t.symname + PCLN_SYMN_SIZE, 0), 2);
	ck_assert_str_eq(symname_at(blob, len, 0x105), "plain");
	ck_assert_str_eq(symname_at(blob, len, 0x20f), "__GI___qsort_r");
	ck_assert_str_eq(symname_at(blob, len, 0x300), "__memmove_x");
	sect = (uint64_t)(t.symname - blob) - PCLN_SYMN_HDR;
	ck_assert_uint_eq(pclnrt_load32(blob + sect, 0), 2);
	for (k = 0; k < 3; k++)
		ck_assert_int_eq(pcln_verify_func(blob, len, k, &err), 0);

	/* Damaged: each fault its own report, from both verifiers; the
	 * runtime then names the function by its own name. */
	bad = malloc(len);
	memcpy(bad, blob, len);
	pclni_test_store32(bad + sect + PCLN_SYMN_HDR + PCLN_SYMN_SIZE, 1);
	ck_assert_int_eq(pcln_verify(bad, len, &err), -1);
	ck_assert_int_eq(err.code, PCLN_ETRAILER);
	ck_assert_int_eq(err.offset, (int64_t)(sect + PCLN_SYMN_HDR +
	    PCLN_SYMN_SIZE));
	ck_assert_msg(strstr(err.msg, "SYMNAME record 1") != NULL &&
	    strstr(err.msg, "expected above 1") != NULL, "%s", err.msg);
	memcpy(bad, blob, len);
	pclni_test_store32(bad + sect + PCLN_SYMN_HDR + 4, (uint32_t)len);
	ck_assert_int_eq(pcln_verify(bad, len, &err), -1);
	ck_assert_msg(strstr(err.msg, "is not a NUL-terminated string") !=
	    NULL, "%s", err.msg);
	ck_assert_int_eq(pcln_verify_func(bad, len, 1, &err), -1);
	ck_assert_int_eq(pcln_verify_func(bad, len, 0, &err), 0);
	ck_assert_str_eq(symname_at(bad, len, 0x200), "__qsort_r");
	memcpy(bad, blob, len);
	pclni_test_store32(bad + sect + 4, 7);
	ck_assert_int_eq(pcln_verify(bad, len, &err), -1);
	ck_assert_msg(strstr(err.msg, "reserved word 0x7") != NULL, "%s",
	    err.msg);
	memcpy(bad, blob, len);
	pclni_test_store32(bad + sect, 3);
	ck_assert_int_eq(pcln_verify(bad, len, &err), -1);
	ck_assert_msg(strstr(err.msg, "count 3 in 24 bytes") != NULL, "%s",
	    err.msg);
	/* (a count its size does not hold: the runtime takes no record) */
	ck_assert_int_eq(pclnrt_init(&t, bad, len), PCLNRT_EINIT_OK);
	ck_assert_ptr_null(t.symname);
	ck_assert_str_eq(symname_at(bad, len, 0x300), "__memcpy_x");
	free(bad);
	free(blob);

	/* A plain Go 1.2 blob has no trailer: the functions' own names. */
	blob = write_ok(b, PCLN_WRITE_GO12, &glen);
	ck_assert_str_eq(symname_at(blob, glen, 0x300), "__memcpy_x");
	free(blob);
	/* None but its own name: no section. */
	ck_assert_int_eq(pcln_builder_set_symname(b, 0, NULL, &err), 0);
	ck_assert_int_eq(pcln_builder_set_symname(b, 2, "__qsort_r", &err), 0);
	blob = write_ok(b, 0, &len);
	ck_assert_int_eq(pclnrt_init(&t, blob, len), PCLNRT_EINIT_OK);
	ck_assert_ptr_null(t.symname);
	free(blob);
	pcln_builder_free(b);
}
END_TEST

Suite *
build_suite(void)
{
	Suite *s = suite_create("build");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, test_go12_decode);
	tcase_add_test(tc, test_go12_encode);
	tcase_add_test(tc, test_go12_set_bytes);
	tcase_add_loop_test(tc, test_encode, 0, sizeof enc / sizeof enc[0]);
	tcase_add_test(tc, test_dedupe_and_stats);
	tcase_add_test(tc, test_name_dedupe);
	tcase_add_test(tc, test_deterministic);
	tcase_add_test(tc, test_sorted);
	tcase_add_test(tc, test_empty);
	tcase_add_test(tc, test_symname);
	suite_add_tcase(s, tc);
	tc = tcase_create("limits");
	tcase_add_test(tc, test_many_functions);
	suite_add_tcase(s, tc);
	tc = tcase_create("errors");
	tcase_add_loop_test(tc, test_bad_target, 0, 5);
	tcase_add_loop_test(tc, test_bad_func, 0,
	    sizeof bad_funcs / sizeof bad_funcs[0]);
	tcase_add_test(tc, test_point_errors);
	tcase_add_test(tc, test_overlap);
	tcase_add_test(tc, test_write_args);
	suite_add_tcase(s, tc);
	return s;
}
