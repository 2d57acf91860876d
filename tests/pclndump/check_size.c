/* check_size.c -- pclndump's size breakdown (tools/dump_size.c) on blobs
 * with an inline tree: the names of inlined functions are function
 * names, not padding, and every part equals the builder's statistics.
 * Blobs are built here with pcln_builder_add_inline, written to a file
 * and opened the way pclndump opens them (dump_open). */
#include <config.h>

#include <check.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pcln.h"
#include "pclnrt_format.h"
#include "dump.h"

struct size_case {
	const char *what;
	pcln_target target;
	unsigned flags;		/* pcln_builder_write flags */
	int inlines;		/* add the inline tree */
	/* expected */
	uint64_t nfuncnames, ninlnames, nfilenames;
	uint64_t funcnames, filenames;	/* bytes */
};

/* main [0x1000, 0x1040), helper [0x1040, 0x1060); files a.c, b.h.
 * Inline tree: in main, helper (a real function's name too), inl_x and
 * inside it inl_y; in helper, inl_x again (one string). */
static const struct size_case cases[] = {
	{ "le64 inline", { 8, 1, 0 }, 0, 1, 4, 2, 2,
	  sizeof "main" + sizeof "helper" + sizeof "inl_x" + sizeof "inl_y",
	  sizeof "a.c" + sizeof "b.h" },
	{ "be32 q4 inline", { 4, 4, 1 }, 0, 1, 4, 2, 2,
	  sizeof "main" + sizeof "helper" + sizeof "inl_x" + sizeof "inl_y",
	  sizeof "a.c" + sizeof "b.h" },
	{ "le64 no inline", { 8, 1, 0 }, 0, 0, 2, 0, 2,
	  sizeof "main" + sizeof "helper", sizeof "a.c" + sizeof "b.h" },
	{ "le64 go12", { 8, 1, 0 }, PCLN_WRITE_GO12, 0, 2, 0, 2,
	  sizeof "main" + sizeof "helper", sizeof "a.c" + sizeof "b.h" },
};

static pcln_builder *
make(const struct size_case *c)
{
	pcln_builder *b = pcln_builder_new(&c->target, NULL);
	long m, h, fa, fb, x;
	int inl = PCLN_TAB_PCDATA(PCLN_PCDATA_INLTREE);

	ck_assert_ptr_nonnull(b);
	m = pcln_builder_add_func(b, "main", 0x1000, 0x40, 0, 8, NULL);
	h = pcln_builder_add_func(b, "helper", 0x1040, 0x20, 0, 0, NULL);
	fa = pcln_builder_add_file(b, "a.c", NULL);
	fb = pcln_builder_add_file(b, "b.h", NULL);
	ck_assert(m == 0 && h == 1 && fa == 1 && fb == 2);
#define PT(f, tab, off, v) \
	ck_assert_int_eq(pcln_builder_add_point(b, f, tab, off, v, NULL), 0)
	PT(m, PCLN_TAB_PCSP, 0, 0);
	PT(m, PCLN_TAB_PCFILE, 0, fa);
	PT(m, PCLN_TAB_PCFILE, 0x10, fb);
	PT(m, PCLN_TAB_PCLN, 0, 10);
	PT(m, PCLN_TAB_PCLN, 0x10, 3);
	PT(h, PCLN_TAB_PCSP, 0, 0);
	PT(h, PCLN_TAB_PCFILE, 0, fb);
	PT(h, PCLN_TAB_PCLN, 0, 20);
	if (c->inlines) {
		ck_assert_int_eq(pcln_builder_add_inline(b, m, -1, "helper",
		    fa, 11, NULL), 0);
		x = pcln_builder_add_inline(b, m, -1, "inl_x", fa, 12, NULL);
		ck_assert_int_eq(x, 1);
		ck_assert_int_eq(pcln_builder_add_inline(b, m, x, "inl_y", fb,
		    4, NULL), 2);
		ck_assert_int_eq(pcln_builder_add_inline(b, h, -1, "inl_x",
		    fb, 21, NULL), 0);
		PT(m, inl, 0, -1);
		PT(m, inl, 0x10, 0);
		PT(m, inl, 0x20, 1);
		PT(m, inl, 0x28, 2);
		PT(m, inl, 0x30, -1);
		PT(h, inl, 0, 0);
	}
#undef PT
	return b;
}

START_TEST(test_sizes)
{
	const struct size_case *c = &cases[_i];
	char path[] = "/tmp/check_size.XXXXXX";
	const pcln_build_stats *st;
	pcln_builder *b = make(c);
	dump_input in;
	dump_sizes sz;
	pcln_err err;
	uint8_t *blob;
	size_t len;
	uint64_t sum = 0;
	FILE *f;
	int fd, k;

	ck_assert_int_eq(pcln_builder_write(b, c->flags, &blob, &len, &err),
	    0);
	st = pcln_builder_stats(b);
	fd = mkstemp(path);
	ck_assert_int_ge(fd, 0);
	f = fdopen(fd, "wb");
	ck_assert_ptr_nonnull(f);
	ck_assert_uint_eq(fwrite(blob, 1, len, f), len);
	ck_assert_int_eq(fclose(f), 0);
	ck_assert_int_eq(dump_open(&in, path), 0);
	unlink(path);
	memset(&err, 0, sizeof err);
	ck_assert_int_eq(dump_compute_sizes(&in, &sz, &err), 0);

	ck_assert_uint_eq(sz.nfuncnames, c->nfuncnames);
	ck_assert_uint_eq(sz.ninlnames, c->ninlnames);
	ck_assert_uint_eq(sz.nfilenames, c->nfilenames);
	ck_assert_uint_eq(sz.bytes[PART_FUNCNAMES], c->funcnames);
	ck_assert_uint_eq(sz.bytes[PART_FILENAMES], c->filenames);
	/* The builder's view of the same blob, part by part. */
	ck_assert_uint_eq(sz.bytes[PART_FUNCNAMES] + sz.bytes[PART_FILENAMES],
	    st->names);
	ck_assert_uint_eq(sz.bytes[PART_HEADER] + sz.bytes[PART_FUNCTAB],
	    st->header + st->functab);
	ck_assert_uint_eq(sz.bytes[PART_FUNCS], st->funcs);
	ck_assert_uint_eq(sz.bytes[PART_FILETAB], st->filetab);
	ck_assert_uint_eq(sz.bytes[PART_PCSP], st->pcsp);
	ck_assert_uint_eq(sz.bytes[PART_PCFILE], st->pcfile);
	ck_assert_uint_eq(sz.bytes[PART_PCLN], st->pcln);
	ck_assert_uint_eq(sz.bytes[PART_PCDATA], st->pcdata);
	ck_assert_uint_eq(sz.bytes[PART_TRAILER], st->trailer);
	ck_assert_uint_eq(sz.bytes[PART_PADDING], st->padding);
	for (k = 0; k < PART_N; k++)
		sum += sz.bytes[k];
	ck_assert_uint_eq(sum, len);
	ck_assert_uint_eq(sz.total, len);
	dump_close(&in);
	free(blob);
	pcln_builder_free(b);
}
END_TEST

static Suite *
size_suite(void)
{
	Suite *s = suite_create("dump_size");
	TCase *tc = tcase_create("core");

	tcase_add_loop_test(tc, test_sizes, 0,
	    (int)(sizeof cases / sizeof cases[0]));
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	SRunner *sr = srunner_create(size_suite());
	int nfail;

	srunner_run_all(sr, CK_NORMAL);
	nfail = srunner_ntests_failed(sr);
	srunner_free(sr);
	return nfail == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
