/* test_golden.c -- the builder's output, byte for byte, against the
 * checked-in blobs of tests/golden/ (made by tests/gen_golden.c). */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pcln.h"
#include "golden.h"
#include "suites_lib.h"

/* Read SRCDIR/tests/golden/NAME; $top_srcdir comes from the harness
 * (AM_TESTS_ENVIRONMENT), PCLN_TOP_SRCDIR from the build. */
static uint8_t *
read_golden(const char *name, size_t *len)
{
	const char *top = getenv("top_srcdir");
	char path[4096];
	uint8_t *buf;
	long n;
	FILE *f;

	if (top == NULL)
		top = PCLN_TOP_SRCDIR;
	snprintf(path, sizeof path, "%s/tests/golden/%s", top, name);
	f = fopen(path, "rb");
	ck_assert_msg(f != NULL, "cannot open %s", path);
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	rewind(f);
	ck_assert_int_gt(n, 0);
	buf = malloc((size_t)n);
	ck_assert_uint_eq(fread(buf, 1, (size_t)n, f), (size_t)n);
	fclose(f);
	*len = (size_t)n;
	return buf;
}

START_TEST(test_golden)
{
	const struct golden *g = &golden_blobs[_i];
	uint8_t *want, *got;
	size_t lw, lg, k;
	pcln_err err;
	pcln_table *t;
	pcln_info info;

	want = read_golden(g->file, &lw);
	ck_assert_int_eq(sample_build(&g->target, g->flags, &got, &lg, NULL,
	    &err), 0);
	ck_assert_msg(lg == lw, "%s: built %zu bytes, golden has %zu "
	    "(regenerate with tests/gen_golden if the change is intended)",
	    g->file, lg, lw);
	for (k = 0; k < lw; k++)
		ck_assert_msg(got[k] == want[k], "%s: byte 0x%zx is 0x%02x, "
		    "golden 0x%02x", g->file, k, got[k], want[k]);
	/* The checked-in blob is valid and says what it should. */
	t = pcln_open(want, lw, 0, &err);
	ck_assert_msg(t != NULL, "%s: %s", g->file, err.msg);
	pcln_get_info(t, &info);
	ck_assert_uint_eq(info.target.ptrsize, g->target.ptrsize);
	ck_assert_uint_eq(info.target.quantum, g->target.quantum);
	ck_assert_int_eq(info.target.bigendian, g->target.bigendian);
	ck_assert_int_eq(info.has_trailer, !(g->flags & PCLN_WRITE_GO12));
	ck_assert_uint_eq(info.nfunc, SAMPLE_NFUNC);
	ck_assert_uint_eq(info.nfile, SAMPLE_NFILE);
	pcln_close(t);
	free(want);
	free(got);
}
END_TEST

Suite *
golden_suite(void)
{
	Suite *s = suite_create("golden");
	TCase *tc = tcase_create("core");

	tcase_add_loop_test(tc, test_golden, 0, GOLDEN_N);
	suite_add_tcase(s, tc);
	return s;
}
