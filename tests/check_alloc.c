/* check_alloc.c -- every allocation failure gives a clean PCLN_ENOMEM.
 *
 * Each test sweeps the failing allocator (tests/failmalloc.c) over every
 * N: the N-th allocation of the whole operation fails, and the operation
 * must return its error with code PCLN_ENOMEM, leave nothing allocated
 * once its handles are freed, and not crash.  The first N at which no
 * allocation fails must give the right answer, which ends the sweep.
 * Operations: a link of examples/hello.pcln + hello_lib.pcln, a builder
 * from new to write, an open (with verification) plus a reverse line
 * lookup, a Go import + write of a Go 1.2 table, and pcln_write_files
 * of a new and an existing file (which also must leave no temporary and
 * the existing file as it was).
 */
#include <config.h>

#include <check.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "failmalloc.h"
#include "pcln.h"
#include "pcln_go.h"
#include "pcln_link.h"
#include "pcln_out.h"
#include <unistd.h>

#define MAXSWEEP 200000

static uint8_t *
slurp(const char *rel, size_t *len)
{
	char path[4096];
	FILE *fp;
	uint8_t *buf;
	long n;

	snprintf(path, sizeof path, "%s/%s", PCLN_TOP_SRCDIR, rel);
	fp = fopen(path, "rb");
	ck_assert_msg(fp != NULL, "cannot open %s", path);
	ck_assert_int_eq(fseek(fp, 0, SEEK_END), 0);
	n = ftell(fp);
	ck_assert_int_gt(n, 0);
	rewind(fp);
	buf = malloc((size_t)n);
	ck_assert_ptr_nonnull(buf);
	ck_assert_uint_eq(fread(buf, 1, (size_t)n, fp), (size_t)n);
	fclose(fp);
	*len = (size_t)n;
	return buf;
}

/* After one run at N: returns 1 when the sweep is over (no allocation
 * failed), after checking the error otherwise. */
static int
sweep_step(long n, int rc, const pcln_err *err, const char *what)
{
	failmalloc_disarm();
	if (!failmalloc_failed()) {
		ck_assert_msg(rc == 0, "%s: n=%ld: no allocation failed but "
		    "error %d: %s", what, n, err->code, err->msg);
		return 1;
	}
	ck_assert_msg(rc == -1, "%s: n=%ld: allocation failed, call "
	    "succeeded", what, n);
	ck_assert_msg(err->code == PCLN_ENOMEM, "%s: n=%ld: code %d (%s)",
	    what, n, err->code, err->msg);
	return 0;
}

/* Blocks live before the operation (the Check library, linked
 * statically, allocates through the wrappers too). */
static long base;

static void
assert_no_leak(long n, const char *what)
{
	long now = failmalloc_outstanding();

	ck_assert_int_ge(base, 0);
	ck_assert_msg(now == base, "%s: n=%ld: %ld blocks leaked", what, n,
	    now - base);
}

START_TEST(test_link)
{
	long n;

	for (n = 1; n < MAXSWEEP; n++) {
		pcln_link *l;
		uint8_t *blob = NULL;
		size_t len = 0;
		pcln_err err;
		int rc = -1, done;

		memset(&err, 0, sizeof err);
		base = failmalloc_outstanding();
		failmalloc_arm(n);
		l = pcln_link_new(NULL, &err);
		if (l != NULL &&
		    pcln_link_add_file(l, PCLN_TOP_SRCDIR
		    "/examples/hello.pcln", &err) == 0 &&
		    pcln_link_add_file(l, PCLN_TOP_SRCDIR
		    "/examples/hello_lib.pcln", &err) == 0)
			rc = pcln_link_run(l, &blob, &len, &err);
		done = sweep_step(n, rc, &err, "link");
		if (done) {
			pcln_table *t = pcln_open(blob, len, 0, &err);

			ck_assert_ptr_nonnull(t);
			ck_assert_uint_gt(pcln_nfunc(t), 3);
			pcln_close(t);
			free(blob);
		} else {
			ck_assert_ptr_null(blob);
		}
		pcln_link_free(l);
		assert_no_leak(n, "link");
		if (done)
			break;
	}
	ck_assert_int_gt(n, 20);
	ck_assert_int_lt(n, MAXSWEEP);
	printf("check_alloc: link: %ld allocations, each failed once\n",
	    n - 1);
}
END_TEST

/* Build a small blob: 40 functions, 3 files, pcsp/pcfile/pcln/pcdata
 * points, funcdata. */
static int
build(pcln_builder **bp, unsigned flags, uint8_t **out, size_t *len,
    pcln_err *err)
{
	static const pcln_target t = { 8, 1, 0 };
	static const char *const files[] = { "/src/a.c", "/src/b.c",
	    "/src/c.c" };
	pcln_builder *b;
	long fno[3];
	int i, k;

	if ((*bp = b = pcln_builder_new(&t, err)) == NULL)
		return -1;
	for (k = 0; k < 3; k++)
		if ((fno[k] = pcln_builder_add_file(b, files[k], err)) < 0)
			return -1;
	for (i = 0; i < 40; i++) {
		char name[32];
		long f;

		snprintf(name, sizeof name, "pkg.f%d", i % 30);
		if (i >= 30)
			snprintf(name, sizeof name, "pkg.g%d", i);
		f = pcln_builder_add_func(b, name, 0x1000 + 0x40 * (uint64_t)i,
		    0x30, 8, 16, err);
		if (f < 0)
			return -1;
		for (k = 0; k < 3; k++)
			if (pcln_builder_add_point(b, f, PCLN_TAB_PCSP,
			    (uint64_t)k * 8, k * 8, err) < 0 ||
			    pcln_builder_add_point(b, f, PCLN_TAB_PCFILE,
			    (uint64_t)k * 16, (int32_t)fno[(i + k) % 3],
			    err) < 0 ||
			    pcln_builder_add_point(b, f, PCLN_TAB_PCLN,
			    (uint64_t)k * 4, 10 + i + k, err) < 0 ||
			    pcln_builder_add_point(b, f, PCLN_TAB_PCDATA(1),
			    (uint64_t)k * 12, k, err) < 0)
				return -1;
		if (pcln_builder_set_funcdata(b, f, 2, 0x9000 + (uint64_t)i,
		    err) < 0)
			return -1;
	}
	return pcln_builder_write(b, flags, out, len, err);
}

START_TEST(test_builder)
{
	unsigned flags = _i ? PCLN_WRITE_GO12 : 0;
	long n;

	for (n = 1; n < MAXSWEEP; n++) {
		pcln_builder *b = NULL;
		uint8_t *blob = NULL;
		size_t len = 0;
		pcln_err err;
		int rc, done;

		memset(&err, 0, sizeof err);
		base = failmalloc_outstanding();
		failmalloc_arm(n);
		rc = build(&b, flags, &blob, &len, &err);
		done = sweep_step(n, rc, &err, "builder");
		if (done) {
			pcln_table *t = pcln_open(blob, len, 0, &err);

			ck_assert_ptr_nonnull(t);
			ck_assert_uint_eq(pcln_nfunc(t), 40);
			ck_assert_uint_eq(pcln_nfile(t), 3);
			pcln_close(t);
			free(blob);
		} else {
			ck_assert_ptr_null(blob);
		}
		pcln_builder_free(b);
		assert_no_leak(n, "builder");
		if (done)
			break;
	}
	ck_assert_int_gt(n, 10);
	ck_assert_int_lt(n, MAXSWEEP);
	printf("check_alloc: builder%s: %ld allocations, each failed once\n",
	    _i ? " (Go 1.2)" : "", n - 1);
}
END_TEST

static const char *const golden[] = {
	"tests/golden/le64-trailer.bin",
	"tests/golden/be32-q4-go12.bin",
	"tests/golden/le32-q2-trailer.bin",
};

static int
count_cb(void *arg, size_t func, uint64_t start, uint64_t end)
{
	(*(long *)arg)++;
	return 0;
}

START_TEST(test_open)
{
	size_t len;
	uint8_t *blob = slurp(golden[_i], &len);
	long n, want = -1;

	for (n = 1; n < MAXSWEEP; n++) {
		pcln_table *t;
		pcln_err err;
		long got = -1, cbs = 0;
		int done;

		memset(&err, 0, sizeof err);
		base = failmalloc_outstanding();
		failmalloc_arm(n);
		t = pcln_open(blob, len, 0, &err);
		/* No ck_assert while armed: Check allocates in them. */
		if (t != NULL)
			got = pcln_line_to_pcs(t, pcln_file_name(t, 1), 1,
			    count_cb, &cbs);
		failmalloc_disarm();
		done = !failmalloc_failed();
		if (done) {
			ck_assert_msg(t != NULL, "%s: %s", golden[_i], err.msg);
			ck_assert_int_ge(got, 0);
			ck_assert_int_eq(got, cbs);
			want = got;
		} else if (t == NULL) {
			ck_assert_msg(err.code == PCLN_ENOMEM, "n=%ld: code %d "
			    "(%s)", n, err.code, err.msg);
		} else {
			/* open succeeded, the line lookup's allocation
			 * failed: -1, no callback. */
			ck_assert_int_eq(got, -1);
			ck_assert_int_eq(cbs, 0);
		}
		pcln_close(t);
		assert_no_leak(n, golden[_i]);
		if (done)
			break;
	}
	ck_assert_int_ge(want, 0);
	ck_assert_int_lt(n, MAXSWEEP);
	printf("check_alloc: open %s: %ld allocations, each failed once\n",
	    golden[_i], n - 1);
	free(blob);
}
END_TEST

START_TEST(test_goimport)
{
	size_t len;
	uint8_t *go12 = slurp("tests/golden/be32-q4-go12.bin", &len);
	long n;

	for (n = 1; n < MAXSWEEP; n++) {
		uint8_t *blob = NULL;
		size_t bloblen = 0;
		pcln_go_info info;
		pcln_err err;
		int rc, done;

		memset(&err, 0, sizeof err);
		base = failmalloc_outstanding();
		failmalloc_arm(n);
		rc = pcln_go_convert(go12, len, 0, PCLN_WRITE_GO12, &blob,
		    &bloblen, &info, &err);
		done = sweep_step(n, rc, &err, "go import");
		if (done) {
			/* Go 1.2 in, Go 1.2 out: the same functions. */
			pcln_table *a = pcln_open(go12, len, 0, &err);
			pcln_table *b = pcln_open(blob, bloblen, 0, &err);
			size_t i;

			ck_assert_ptr_nonnull(a);
			ck_assert_ptr_nonnull(b);
			ck_assert_int_eq(info.layout, PCLN_GO_12);
			ck_assert_uint_eq(pcln_nfunc(b), pcln_nfunc(a));
			ck_assert_uint_eq(pcln_nfile(b), pcln_nfile(a));
			for (i = 0; i < pcln_nfunc(a); i++) {
				pcln_func fa, fb;

				ck_assert_int_eq(pcln_get_func(a, i, &fa), 0);
				ck_assert_int_eq(pcln_get_func(b, i, &fb), 0);
				ck_assert_uint_eq(fa.entry, fb.entry);
				ck_assert_uint_eq(fa.end, fb.end);
				ck_assert_str_eq(fa.name, fb.name);
			}
			pcln_close(a);
			pcln_close(b);
			free(blob);
		} else {
			ck_assert_ptr_null(blob);
		}
		assert_no_leak(n, "go import");
		if (done)
			break;
	}
	ck_assert_int_gt(n, 5);
	ck_assert_int_lt(n, MAXSWEEP);
	printf("check_alloc: go import: %ld allocations, each failed once\n",
	    n - 1);
	free(go12);
}
END_TEST

/* The files in DIR, "." and ".." not counted. */
static int
nfiles(const char *dir)
{
	struct dirent *e;
	DIR *d = opendir(dir);
	int n = 0;

	ck_assert_ptr_nonnull(d);
	while ((e = readdir(d)) != NULL)
		n += e->d_name[0] != '.' || (e->d_name[1] != 0 &&
		    (e->d_name[1] != '.' || e->d_name[2] != 0));
	closedir(d);
	return n;
}

static void
contents(const char *path, const char *want)
{
	char buf[64];
	size_t n;
	FILE *fp = fopen(path, "rb");

	ck_assert_ptr_nonnull(fp);
	n = fread(buf, 1, sizeof buf - 1, fp);
	fclose(fp);
	buf[n] = 0;
	ck_assert_str_eq(buf, want);
}

START_TEST(test_write_files)
{
	char dir[] = "/tmp/check_alloc.XXXXXX", a[64], b[64];
	long n;

	ck_assert_ptr_nonnull(mkdtemp(dir));
	snprintf(a, sizeof a, "%s/new.blob", dir);
	snprintf(b, sizeof b, "%s/old.map", dir);
	for (n = 1; n < MAXSWEEP; n++) {
		pcln_outbuf o[2] = { { a, "blob", 4 }, { b, "map", 3 } };
		pcln_err err;
		int rc, done;
		FILE *fp;

		ck_assert_ptr_nonnull(fp = fopen(b, "w"));
		fputs("old", fp);
		fclose(fp);
		unlink(a);
		memset(&err, 0, sizeof err);
		base = failmalloc_outstanding();
		failmalloc_arm(n);
		rc = pcln_write_files(o, 2, &err);
		done = sweep_step(n, rc, &err, "write files");
		assert_no_leak(n, "write files");
		if (done) {
			contents(a, "blob");
			contents(b, "map");
			break;
		}
		/* Nothing changed: the old file, no temporary. */
		contents(b, "old");
		ck_assert_int_eq(nfiles(dir), 1);
	}
	ck_assert_int_gt(n, 5);
	ck_assert_int_lt(n, MAXSWEEP);
	printf("check_alloc: write files: %ld allocations, each failed "
	    "once\n", n - 1);
	unlink(a);
	unlink(b);
	ck_assert_int_eq(rmdir(dir), 0);
}
END_TEST

static Suite *
alloc_suite(void)
{
	Suite *s = suite_create("alloc");
	TCase *tc = tcase_create("nomem");

	tcase_set_timeout(tc, 300);
	tcase_add_test(tc, test_link);
	tcase_add_loop_test(tc, test_builder, 0, 2);
	tcase_add_loop_test(tc, test_open, 0, 3);
	tcase_add_test(tc, test_goimport);
	tcase_add_test(tc, test_write_files);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	SRunner *sr = srunner_create(alloc_suite());
	int nfail;

	srunner_run_all(sr, CK_NORMAL);
	nfail = srunner_ntests_failed(sr);
	srunner_free(sr);
	return nfail == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
