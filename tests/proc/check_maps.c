/* check_maps.c -- the /proc/PID/maps parser and the address space's
 * mapping set (lib/proc): table-driven good and bad lines, mmap-like
 * replacement, and the set read from this process's own maps. */
#include <check.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pcln_proc.h"

struct got {
	pcln_mapping m[8];
	char path[8][256];
	int n;
};

static int
keep(void *arg, const pcln_mapping *m)
{
	struct got *g = arg;

	if (g->n == 8)
		return 1;
	g->m[g->n] = *m;
	snprintf(g->path[g->n], sizeof g->path[g->n], "%s", m->path);
	g->m[g->n].path = g->path[g->n];
	g->n++;
	return 0;
}

static void
test_line(const char *line, uint64_t start, uint64_t end, unsigned prot,
    uint64_t off, uint32_t maj, uint32_t min, uint64_t ino, const char *path,
    int deleted)
{
	struct got g;
	pcln_err err;

	memset(&g, 0, sizeof g);
	ck_assert_msg(pcln_maps_parse(line, strlen(line), keep, &g, &err) == 0,
	    "%s: %s", line, err.msg);
	ck_assert_int_eq(g.n, 1);
	ck_assert_uint_eq(g.m[0].start, start);
	ck_assert_uint_eq(g.m[0].end, end);
	ck_assert_uint_eq(g.m[0].prot, prot);
	ck_assert_uint_eq(g.m[0].offset, off);
	ck_assert_uint_eq(g.m[0].major, maj);
	ck_assert_uint_eq(g.m[0].minor, min);
	ck_assert_uint_eq(g.m[0].inode, ino);
	ck_assert_str_eq(g.m[0].path, path);
	ck_assert_int_eq(g.m[0].deleted, deleted);
	ck_assert_uint_eq(g.m[0].build_id_len, 0);
}

static void
test_line_fail(const char *text, const char *msg)
{
	struct got g;
	pcln_err err;

	memset(&g, 0, sizeof g);
	ck_assert_int_eq(pcln_maps_parse(text, strlen(text), keep, &g, &err),
	    -1);
	ck_assert_int_eq(err.code, PCLN_ESYNTAX);
	ck_assert_msg(strstr(err.msg, msg) != NULL, "'%s': got '%s', "
	    "expected '%s'", text, err.msg, msg);
}

START_TEST(test_good)
{
	test_line("55d1c5a00000-55d1c5a02000 r--p 00000000 fe:00 332835"
	    "                     /usr/bin/cat\n", 0x55d1c5a00000,
	    0x55d1c5a02000, PCLN_MAP_READ, 0, 0xfe, 0, 332835,
	    "/usr/bin/cat", 0);
	test_line("7f33-7f34 r-xp 00026000 08:01 1 /lib/libc.so.6",
	    0x7f33, 0x7f34, PCLN_MAP_READ | PCLN_MAP_EXEC, 0x26000, 8, 1, 1,
	    "/lib/libc.so.6", 0);
	test_line("7ffd1000-7ffd3000 rw-p 00000000 00:00 0 [stack]",
	    0x7ffd1000, 0x7ffd3000, PCLN_MAP_READ | PCLN_MAP_WRITE, 0, 0, 0,
	    0, "[stack]", 0);
	/* Anonymous: no path, with or without the padding. */
	test_line("1000-2000 ---p 00000000 00:00 0", 0x1000, 0x2000, 0, 0, 0,
	    0, 0, "", 0);
	test_line("1000-2000 rwxs 00000000 00:00 0                  \n",
	    0x1000, 0x2000, PCLN_MAP_READ | PCLN_MAP_WRITE | PCLN_MAP_EXEC |
	    PCLN_MAP_SHARED, 0, 0, 0, 0, "", 0);
	/* Deleted, and a path with blanks. */
	test_line("1000-2000 r-xp 00001000 fe:00 77 /tmp/a b/libx.so "
	    "(deleted)\n", 0x1000, 0x2000, PCLN_MAP_READ | PCLN_MAP_EXEC,
	    0x1000, 0xfe, 0, 77, "/tmp/a b/libx.so", 1);
	test_line("ffffffffff600000-ffffffffff601000 --xp 00000000 00:00 0"
	    "                  [vsyscall]", 0xffffffffff600000ull,
	    0xffffffffff601000ull, PCLN_MAP_EXEC, 0, 0, 0, 0, "[vsyscall]",
	    0);
	test_line("1000-2000 r--p 00000000 103:0a 18446744073709551615 /x",
	    0x1000, 0x2000, PCLN_MAP_READ, 0, 0x103, 0xa, UINT64_MAX, "/x",
	    0);
}
END_TEST

START_TEST(test_bad)
{
	test_line_fail("x000-2000 r--p 0 00:00 0\n", "line 1, column 1: "
	    "expected the start address in hex");
	test_line_fail("1000-2000 r--p 00000000 00:00 0\n\n",
	    "line 2, column 1: expected the start address");
	test_line_fail("1000 r--p 0 00:00 0", "column 5: expected '-'");
	test_line_fail("2000-1000 r--p 0 00:00 0", "end address above");
	test_line_fail("1000-1000 r--p 0 00:00 0", "end address above");
	test_line_fail("1000-2000 rw-q 0 00:00 0", "column 14: expected 'p' "
	    "or 's'");
	test_line_fail("1000-2000 q--p 0 00:00 0", "column 11: expected 'r'");
	test_line_fail("1000-2000 r--p 0 0000 0", "':' in the device");
	test_line_fail("1000-2000 r--p 0 00:00 x", "the inode in decimal");
	test_line_fail("1000-2000 r--p 0 00:00 18446744073709551616",
	    "the inode in decimal");
	test_line_fail("11112222333344445-2000 r--p 0 00:00 0",
	    "the start address in hex");
	test_line_fail("1000-2000 r--p 0 00:00 12x /a", "a blank or the end");
	test_line_fail("1000-2000", "a blank after the addresses");
	test_line_fail("1000-2000 r-", "'x' or '-'");
}
END_TEST

START_TEST(test_nul_and_long)
{
	static const char nul[] = "1000-2000 r--p 0 00:00 5 /a\0b\n";
	char *big;
	size_t n = 9000;
	pcln_err err;

	ck_assert_int_eq(pcln_maps_parse(nul, sizeof nul - 1, NULL, NULL,
	    &err), -1);
	ck_assert_msg(strstr(err.msg, "without NUL") != NULL, "%s", err.msg);
	big = malloc(n + 1);
	ck_assert_ptr_nonnull(big);
	memset(big, 'a', n);
	memcpy(big, "1000-2000 r--p 0 00:00 5 /", 26);
	ck_assert_int_eq(pcln_maps_parse(big, n, NULL, NULL, &err), -1);
	ck_assert_msg(strstr(err.msg, "at most 8192") != NULL, "%s", err.msg);
	free(big);
	/* Empty text: nothing, no error. */
	ck_assert_int_eq(pcln_maps_parse("", 0, NULL, NULL, &err), 0);
}
END_TEST

/* A callback's stop value comes back, after the lines before it. */
static int
stop_at_second(void *arg, const pcln_mapping *m)
{
	int *n = arg;

	(void)m;
	return ++*n == 2 ? 7 : 0;
}

START_TEST(test_cb_stop)
{
	static const char t[] = "1000-2000 r--p 0 00:00 0\n"
	    "2000-3000 r--p 0 00:00 0\n3000-4000 r--p 0 00:00 0\n";
	int n = 0;

	ck_assert_int_eq(pcln_maps_parse(t, sizeof t - 1, stop_at_second, &n,
	    NULL), 7);
	ck_assert_int_eq(n, 2);
}
END_TEST

static pcln_mapping
mk(uint64_t start, uint64_t end, uint64_t off, const char *path)
{
	pcln_mapping m;

	memset(&m, 0, sizeof m);
	m.start = start;
	m.end = end;
	m.offset = off;
	m.prot = PCLN_MAP_READ | PCLN_MAP_EXEC;
	m.path = path;
	return m;
}

static void
expect_map(pcln_aspace *as, size_t i, uint64_t start, uint64_t end,
    uint64_t off, const char *path)
{
	const pcln_mapping *m = pcln_aspace_map(as, i);

	ck_assert_ptr_nonnull(m);
	ck_assert_uint_eq(m->start, start);
	ck_assert_uint_eq(m->end, end);
	ck_assert_uint_eq(m->offset, off);
	ck_assert_str_eq(m->path, path);
}

/* A mapping replaces what it overlaps, as mmap does; the file offsets
 * of the parts left move with their starts. */
START_TEST(test_add_replaces)
{
	pcln_aspace *as = pcln_aspace_new(0, NULL, 0, NULL);
	pcln_mapping m;

	ck_assert_ptr_nonnull(as);
	m = mk(0x1000, 0x9000, 0, "/a");
	ck_assert_int_eq(pcln_aspace_add(as, &m, NULL), 0);
	m = mk(0x3000, 0x5000, 0x100000, "/b");
	ck_assert_int_eq(pcln_aspace_add(as, &m, NULL), 0);
	ck_assert_uint_eq(pcln_aspace_nmaps(as), 3);
	expect_map(as, 0, 0x1000, 0x3000, 0, "/a");
	expect_map(as, 1, 0x3000, 0x5000, 0x100000, "/b");
	expect_map(as, 2, 0x5000, 0x9000, 0x4000, "/a");
	m = mk(0x0, 0x4000, 0, "");
	ck_assert_int_eq(pcln_aspace_add(as, &m, NULL), 0);
	ck_assert_uint_eq(pcln_aspace_nmaps(as), 3);
	expect_map(as, 0, 0x0, 0x4000, 0, "");
	expect_map(as, 1, 0x4000, 0x5000, 0x101000, "/b");
	ck_assert_ptr_null(pcln_aspace_find(as, 0x9000));
	ck_assert_str_eq(pcln_aspace_find(as, 0x8fff)->path, "/a");
	/* Anonymous: no object, no function. */
	ck_assert_ptr_null(pcln_aspace_object(as, 0x10, NULL));
	m = mk(0x2000, 0x1000, 0, "/bad");
	ck_assert_int_eq(pcln_aspace_add(as, &m, NULL), -1);
	pcln_aspace_free(as);
}
END_TEST

/* Overlapping lines are refused, and the set is then unchanged. */
START_TEST(test_set_maps)
{
	static const char ok[] = "1000-2000 r-xp 0 00:00 0 /x\n"
	    "3000-4000 r-xp 0 00:00 0 /y\n";
	static const char overlap[] = "1000-3000 r-xp 0 00:00 0 /x\n"
	    "2000-4000 r-xp 0 00:00 0 /y\n";
	pcln_aspace *as = pcln_aspace_new(0, NULL, 0, NULL);
	pcln_err err;

	ck_assert_int_eq(pcln_aspace_set_maps(as, ok, sizeof ok - 1, &err),
	    0);
	ck_assert_uint_eq(pcln_aspace_nmaps(as), 2);
	ck_assert_int_eq(pcln_aspace_set_maps(as, overlap, sizeof overlap - 1,
	    &err), -1);
	ck_assert_msg(strstr(err.msg, "overlaps") != NULL, "%s", err.msg);
	ck_assert_uint_eq(pcln_aspace_nmaps(as), 2);
	expect_map(as, 1, 0x3000, 0x4000, 0, "/y");
	ck_assert_int_eq(pcln_aspace_read_maps(as, &err), -1);
	ck_assert_int_eq(err.code, PCLN_EINVAL);
	pcln_aspace_free(as);
}
END_TEST

/* This process's own maps: our code is in an executable mapping of our
 * own file, at the load bias that maps a function to itself. */
START_TEST(test_self)
{
	pcln_aspace *as = pcln_aspace_new((int)getpid(), NULL, 0, NULL);
	pcln_err err;
	const pcln_mapping *m;
	uint64_t here = (uint64_t)(uintptr_t)&test_line;

	ck_assert_int_eq(pcln_aspace_read_maps(as, &err), 0);
	ck_assert_uint_gt(pcln_aspace_nmaps(as), 4);
	m = pcln_aspace_find(as, here);
	ck_assert_ptr_nonnull(m);
	ck_assert(m->prot & PCLN_MAP_EXEC);
	ck_assert_ptr_nonnull(strstr(m->path, "check_maps"));
	pcln_aspace_free(as);
	as = pcln_aspace_new(999999999, NULL, 0, NULL);
	ck_assert_int_eq(pcln_aspace_read_maps(as, &err), -1);
	ck_assert_int_eq(err.code, PCLN_ENOTFOUND);
	ck_assert_msg(strstr(err.msg, "no such process") != NULL, "%s",
	    err.msg);
	pcln_aspace_free(as);
}
END_TEST

static Suite *
maps_suite(void)
{
	Suite *s = suite_create("maps");
	TCase *tc = tcase_create("parse");

	tcase_add_test(tc, test_good);
	tcase_add_test(tc, test_bad);
	tcase_add_test(tc, test_nul_and_long);
	tcase_add_test(tc, test_cb_stop);
	suite_add_tcase(s, tc);
	tc = tcase_create("aspace");
	tcase_add_test(tc, test_add_replaces);
	tcase_add_test(tc, test_set_maps);
	tcase_add_test(tc, test_self);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	SRunner *sr = srunner_create(maps_suite());
	int nf;

	srunner_run_all(sr, CK_NORMAL);
	nf = srunner_ntests_failed(sr);
	srunner_free(sr);
	return nf == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
