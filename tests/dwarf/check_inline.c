/* check_inline.c -- the inline tree: pcln_builder_add_inline writes the
 * trailer's INLPACK section (INLTREE with PCLN_WRITE_INLTREE, as blobs
 * before INLPACK have it), pcln_verify checks it, pclnrt_inline reads
 * either back (innermost first, the same answers), and damage is
 * reported, not followed. */
#include <config.h>

#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "pcln.h"
#include "pclnrt.h"

/* Function A [0x1000, 0x1040): a.c; [0x10, 0x20) in inl_outer (called
 * from a.c:10), [0x20, 0x30) in inl_inner (called from b.h:20 inside
 * inl_outer).  B [0x1040, 0x1050): no inlines.  C [0x1050, 0x1060): all
 * of it in c_inl (called from a.c:30). */
struct want {
	uint64_t pc;
	size_t n;
	const char *name[2], *file[2];
	int32_t line[2];
};

static const struct want wants[] = {
	{ 0x1000, 0, { NULL }, { NULL }, { 0 } },
	{ 0x100f, 0, { NULL }, { NULL }, { 0 } },
	{ 0x1010, 1, { "inl_outer" }, { "a.c" }, { 10 } },
	{ 0x101f, 1, { "inl_outer" }, { "a.c" }, { 10 } },
	{ 0x1020, 2, { "inl_inner", "inl_outer" }, { "b.h", "a.c" },
	    { 20, 10 } },
	{ 0x102f, 2, { "inl_inner", "inl_outer" }, { "b.h", "a.c" },
	    { 20, 10 } },
	{ 0x1030, 0, { NULL }, { NULL }, { 0 } },
	{ 0x1045, 0, { NULL }, { NULL }, { 0 } },
	{ 0x1050, 1, { "c_inl" }, { "a.c" }, { 30 } },
	{ 0x105f, 1, { "c_inl" }, { "a.c" }, { 30 } },
};

/* Build the blob above; BADVALUE, if not 0, is put in A's inline pcdata
 * at 0x38. */
static pcln_builder *
make_builder(int32_t badvalue)
{
	pcln_target t = { 8, 1, 0 };
	pcln_builder *b = pcln_builder_new(&t, NULL);
	long a, bf, c, fa, fb, o, in;

	ck_assert_ptr_nonnull(b);
	fa = pcln_builder_add_file(b, "a.c", NULL);
	fb = pcln_builder_add_file(b, "b.h", NULL);
	a = pcln_builder_add_func(b, "A", 0x1000, 0x40, 0, 0, NULL);
	bf = pcln_builder_add_func(b, "B", 0x1040, 0x10, 0, 0, NULL);
	c = pcln_builder_add_func(b, "C", 0x1050, 0x10, 0, 0, NULL);
	ck_assert(fa == 1 && fb == 2 && a == 0 && bf == 1 && c == 2);
	o = pcln_builder_add_inline(b, a, -1, "inl_outer", fa, 10, NULL);
	in = pcln_builder_add_inline(b, a, o, "inl_inner", fb, 20, NULL);
	ck_assert_int_eq(o, 0);
	ck_assert_int_eq(in, 1);
	ck_assert_int_eq(pcln_builder_add_inline(b, c, -1, "c_inl", fa, 30,
	    NULL), 0);
#define PT(f, tab, off, v) \
	ck_assert_int_eq(pcln_builder_add_point(b, f, tab, off, v, NULL), 0)
	PT(a, PCLN_TAB_PCSP, 0, 0);
	PT(a, PCLN_TAB_PCFILE, 0, (int32_t)fa);
	PT(a, PCLN_TAB_PCLN, 0, 5);
	PT(a, PCLN_TAB_PCDATA(PCLN_PCDATA_INLTREE), 0, -1);
	PT(a, PCLN_TAB_PCDATA(PCLN_PCDATA_INLTREE), 0x10, (int32_t)o);
	PT(a, PCLN_TAB_PCDATA(PCLN_PCDATA_INLTREE), 0x20, (int32_t)in);
	PT(a, PCLN_TAB_PCDATA(PCLN_PCDATA_INLTREE), 0x30, -1);
	if (badvalue != 0)
		PT(a, PCLN_TAB_PCDATA(PCLN_PCDATA_INLTREE), 0x38, badvalue);
	PT(bf, PCLN_TAB_PCSP, 0, 0);
	PT(c, PCLN_TAB_PCSP, 0, 0);
	PT(c, PCLN_TAB_PCDATA(PCLN_PCDATA_INLTREE), 0, 0);
#undef PT
	return b;
}

/* Offset of section TAG of BLOB, 0 if none; its size in *SIZE. */
static uint32_t
sect_off(const uint8_t *blob, size_t len, uint32_t tag, uint32_t *size)
{
	const uint8_t *ft = blob + len - PCLN_FOOTER_SIZE;
	uint32_t dir = pclnrt_load32(ft + PCLN_FOOTER_DIROFF, 0);
	uint32_t n = pclnrt_load32(ft + PCLN_FOOTER_NSECT, 0), i;

	for (i = 0; i < n; i++) {
		const uint8_t *d = blob + dir + i * PCLN_DIRENT_SIZE;
		if (pclnrt_load32(d + PCLN_DIRENT_TAG, 0) == tag) {
			*size = pclnrt_load32(d + PCLN_DIRENT_SIZEF, 0);
			return pclnrt_load32(d + PCLN_DIRENT_OFF, 0);
		}
	}
	return 0;
}

static uint32_t
inltree_off(const uint8_t *blob, size_t len)
{
	uint32_t size;

	return sect_off(blob, len, PCLN_SECT_INLTREE, &size);
}

/* The two forms: INLPACK by default, INLTREE when asked. */
static const struct form {
	unsigned flags;
	uint32_t tag, other, size;
} forms[] = {
	/* 8 header + start[4] + 3 records of 8 */
	{ 0, PCLN_SECT_INLPACK, PCLN_SECT_INLTREE, 8 + 16 + 3 * 8 },
	/* start[4] + 3 records of 16 */
	{ PCLN_WRITE_INLTREE, PCLN_SECT_INLTREE, PCLN_SECT_INLPACK,
	    16 + 3 * 16 },
};

START_TEST(test_lookup)
{
	const struct form *fm = &forms[_i];
	pcln_builder *b = make_builder(0);
	uint8_t *blob;
	size_t len, i, k;
	uint32_t off, size;
	pclnrt_table t;
	pcln_err err;

	ck_assert_int_eq(pcln_builder_write(b, fm->flags, &blob, &len, &err),
	    0);
	ck_assert_int_eq(pcln_verify(blob, len, &err), 0);
	ck_assert_uint_ne((off = sect_off(blob, len, fm->tag, &size)), 0);
	ck_assert_uint_eq(size, fm->size);
	ck_assert_uint_eq(sect_off(blob, len, fm->other, &size), 0);
	if (fm->tag == PCLN_SECT_INLPACK) {
		/* parent + 1 <= 1, file <= 2, line <= 30; the three names
		 * lie within 64 bytes. */
		ck_assert_uint_eq(blob[off + PCLN_INLP_PBITS], 1);
		ck_assert_uint_eq(blob[off + PCLN_INLP_FBITS], 2);
		ck_assert_uint_eq(blob[off + PCLN_INLP_LBITS], 5);
		ck_assert_uint_le(blob[off + PCLN_INLP_NBITS], 6);
	}
	ck_assert_int_eq(pclnrt_init(&t, blob, len), PCLNRT_EINIT_OK);
	for (i = 0; i < sizeof wants / sizeof wants[0]; i++) {
		const struct want *w = &wants[i];
		pclnrt_inlcall calls[4];
		pclnrt_func f;
		size_t n = 99;

		ck_assert_int_eq(pclnrt_findfunc(&t, w->pc, &f), PCLNRT_OK);
		ck_assert_int_eq(pclnrt_inline(&f, w->pc, calls, 4, &n),
		    PCLNRT_OK);
		ck_assert_msg(n == w->n, "pc 0x%llx: %zu calls, want %zu",
		    (unsigned long long)w->pc, n, w->n);
		for (k = 0; k < n; k++) {
			ck_assert_str_eq(calls[k].name, w->name[k]);
			ck_assert_str_eq(calls[k].file, w->file[k]);
			ck_assert_int_eq(calls[k].line, w->line[k]);
		}
		/* MAX bounds the calls stored. */
		if (w->n == 2) {
			ck_assert_int_eq(pclnrt_inline(&f, w->pc, calls, 1,
			    &n), PCLNRT_OK);
			ck_assert_uint_eq(n, 1);
			ck_assert_str_eq(calls[0].name, w->name[0]);
		}
	}
	free(blob);
	/* Without the trailer there is no tree: no calls anywhere. */
	ck_assert_int_eq(pcln_builder_write(b, PCLN_WRITE_GO12, &blob, &len,
	    &err), 0);
	ck_assert_int_eq(pclnrt_init(&t, blob, len), PCLNRT_EINIT_OK);
	{
		pclnrt_inlcall calls[4];
		pclnrt_func f;
		size_t n = 99;
		ck_assert_int_eq(pclnrt_findfunc(&t, 0x1020, &f), PCLNRT_OK);
		ck_assert_int_eq(pclnrt_inline(&f, 0x1020, calls, 4, &n),
		    PCLNRT_OK);
		ck_assert_uint_eq(n, 0);
	}
	free(blob);
	pcln_builder_free(b);
}
END_TEST

/* Damaged records: the verifier names them; the runtime stops. */
struct damage {
	unsigned rec;		/* record number in the section */
	unsigned field;		/* PCLN_INL_* */
	uint32_t value;
	int code;		/* pcln_verify's error */
	const char *msg;	/* in its message */
};

static const struct damage damages[] = {
	{ 1, PCLN_INL_PARENT, 1, PCLN_ETRAILER, "parent 1, expected -1 to 0" },
	{ 0, PCLN_INL_PARENT, 0, PCLN_ETRAILER,
	    "parent 0, expected -1 to -1" },
	{ 0, PCLN_INL_FILE, 3, PCLN_EFILETAB, "file 3, expected 1 to 2" },
	{ 0, PCLN_INL_NAME, 0x7fffffff, PCLN_ESTRING, "name offset" },
};

START_TEST(test_damage)
{
	const struct damage *d = &damages[_i];
	pcln_builder *b = make_builder(0);
	uint8_t *blob;
	size_t len, n = 0;
	uint32_t off;
	pcln_err err;
	pclnrt_table t;
	pclnrt_func f;
	pclnrt_inlcall calls[4];

	ck_assert_int_eq(pcln_builder_write(b, PCLN_WRITE_INLTREE, &blob, &len,
	    &err), 0);
	off = inltree_off(blob, len) + 4 * 4 + PCLN_INL_SIZE * d->rec +
	    d->field;	/* 3 functions: 4 start words */
	blob[off] = (uint8_t)d->value;
	blob[off + 1] = (uint8_t)(d->value >> 8);
	blob[off + 2] = (uint8_t)(d->value >> 16);
	blob[off + 3] = (uint8_t)(d->value >> 24);
	ck_assert_int_eq(pcln_verify(blob, len, &err), -1);
	ck_assert_int_eq(err.code, d->code);
	ck_assert_msg(strstr(err.msg, d->msg) != NULL, "message '%s' lacks "
	    "'%s'", err.msg, d->msg);
	ck_assert_int_eq(pclnrt_init(&t, blob, len), PCLNRT_EINIT_OK);
	ck_assert_int_eq(pclnrt_findfunc(&t, 0x1020, &f), PCLNRT_OK);
	if (d->field == PCLN_INL_PARENT)
		ck_assert_int_eq(pclnrt_inline(&f, 0x1020, calls, 4, &n),
		    PCLNRT_CORRUPT);
	else
		ck_assert_int_eq(pclnrt_inline(&f, 0x1020, calls, 4, &n),
		    PCLNRT_OK);
	ck_assert_uint_le(n, 2);
	free(blob);
	pcln_builder_free(b);
}
END_TEST

/* Damaged INLPACK: a width out of range is refused at the header (and
 * the runtime answers CORRUPT); a parent at or above its own record is
 * named, and the runtime stops; a record of all ones names no string. */
static const struct pdamage {
	unsigned at;		/* byte offset in the section */
	unsigned nbytes;
	uint64_t value;		/* little-endian */
	int code;
	const char *msg;
	int rt;			/* pclnrt_inline at 0x1020 */
} pdamages[] = {
	{ PCLN_INLP_NBITS, 1, 33, PCLN_ETRAILER, "expected each at most 32",
	  PCLNRT_CORRUPT },
	{ PCLN_INLP_PBITS, 2, 0x2020, PCLN_ETRAILER, "at most 64 together",
	  PCLNRT_CORRUPT },
	/* record 0 all ones: parent + 1 = 1, itself */
	{ 8 + 16, 8, UINT64_MAX, PCLN_ETRAILER, "parent 0, expected -1 to -1",
	  PCLNRT_CORRUPT },
};

START_TEST(test_damage_packed)
{
	const struct pdamage *d = &pdamages[_i];
	pcln_builder *b = make_builder(0);
	pclnrt_inlcall calls[4];
	uint8_t *blob;
	size_t len, n = 0, k;
	uint32_t off, size;
	pcln_err err;
	pclnrt_table t;
	pclnrt_func f;

	ck_assert_int_eq(pcln_builder_write(b, 0, &blob, &len, &err), 0);
	off = sect_off(blob, len, PCLN_SECT_INLPACK, &size);
	ck_assert_uint_ne(off, 0);
	for (k = 0; k < d->nbytes; k++)
		blob[off + d->at + k] = (uint8_t)(d->value >> (8 * k));
	ck_assert_int_eq(pclnrt_init(&t, blob, len), PCLNRT_EINIT_OK);
	ck_assert_int_eq(pclnrt_findfunc(&t, 0x1020, &f), PCLNRT_OK);
	ck_assert_int_eq(pcln_verify(blob, len, &err), -1);
	ck_assert_int_eq(err.code, d->code);
	ck_assert_msg(strstr(err.msg, d->msg) != NULL, "message '%s' lacks "
	    "'%s'", err.msg, d->msg);
	ck_assert_int_eq(pclnrt_inline(&f, 0x1020, calls, 4, &n), d->rt);
	ck_assert_uint_le(n, 2);
	free(blob);
	pcln_builder_free(b);
}
END_TEST

START_TEST(test_builder_errors)
{
	pcln_builder *b = make_builder(0);
	pcln_err err;
	uint8_t *blob;
	size_t len;

	ck_assert_int_eq(pcln_builder_add_inline(b, 0, 2, "x", 1, 1, &err),
	    -1);
	ck_assert_int_eq(err.code, PCLN_ERANGE);
	ck_assert_int_eq(pcln_builder_add_inline(b, 0, -2, "x", 1, 1, &err),
	    -1);
	ck_assert_int_eq(err.code, PCLN_ERANGE);
	ck_assert_int_eq(pcln_builder_add_inline(b, 0, -1, "x", 3, 1, &err),
	    -1);
	ck_assert_int_eq(err.code, PCLN_ERANGE);
	ck_assert_int_eq(pcln_builder_add_inline(b, 7, -1, "x", 1, 1, &err),
	    -1);
	ck_assert_int_eq(err.code, PCLN_EINVAL);
	ck_assert_int_eq(pcln_builder_add_inline(b, 0, -1, NULL, 1, 1, &err),
	    -1);
	ck_assert_int_eq(err.code, PCLN_EINVAL);
	pcln_builder_free(b);
	/* An inline pcdata value naming no record: the write's own
	 * verification refuses it. */
	b = make_builder(2);
	ck_assert_int_eq(pcln_builder_write(b, 0, &blob, &len, &err), -1);
	ck_assert_int_eq(err.code, PCLN_EMATH);
	ck_assert_msg(strstr(err.msg, "index 2, expected -1 to 1") != NULL,
	    "%s", err.msg);
	pcln_builder_free(b);
}
END_TEST

int
main(void)
{
	Suite *s = suite_create("inline tree");
	TCase *tc = tcase_create("core");
	SRunner *sr;
	int nf;

	tcase_add_loop_test(tc, test_lookup, 0, sizeof forms / sizeof forms[0]);
	tcase_add_test(tc, test_builder_errors);
	suite_add_tcase(s, tc);
	tc = tcase_create("errors");
	tcase_add_loop_test(tc, test_damage, 0,
	    sizeof damages / sizeof damages[0]);
	tcase_add_loop_test(tc, test_damage_packed, 0,
	    sizeof pdamages / sizeof pdamages[0]);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	nf = srunner_ntests_failed(sr);
	srunner_free(sr);
	return nf == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
