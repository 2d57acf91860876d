/* check_maps.c -- the /proc/PID/maps parser and the address space's
 * mapping set (lib/proc): table-driven good and bad lines, mmap-like
 * replacement, the set read from this process's own maps; and objects
 * from a provider (as lib/perf's are): their bias, symbols and a walk
 * over a synthetic stack; this process's objects (pcln_self) across a
 * plugin's dlopen and dlclose. */
#include <check.h>
#include <dlfcn.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pcln.h"
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

/* The splice: a mapping over several, one inside another, ones that
 * only touch, at either end, and a heap growing at the same start. */
START_TEST(test_add_splice)
{
	pcln_aspace *as = pcln_aspace_new(0, NULL, 0, NULL);
	pcln_mapping m;
	int i;

	ck_assert_ptr_nonnull(as);
	m = mk(0x10000, 0x20000, 0, "/a");
	ck_assert_int_eq(pcln_aspace_add(as, &m, NULL), 0);
	m = mk(0x30000, 0x40000, 0, "/c");
	ck_assert_int_eq(pcln_aspace_add(as, &m, NULL), 0);
	m = mk(0x20000, 0x30000, 0, "/b");	/* touches both */
	ck_assert_int_eq(pcln_aspace_add(as, &m, NULL), 0);
	m = mk(0x1000, 0x2000, 0, "/first");
	ck_assert_int_eq(pcln_aspace_add(as, &m, NULL), 0);
	m = mk(0x50000, 0x51000, 0, "/last");
	ck_assert_int_eq(pcln_aspace_add(as, &m, NULL), 0);
	ck_assert_uint_eq(pcln_aspace_nmaps(as), 5);
	expect_map(as, 0, 0x1000, 0x2000, 0, "/first");
	expect_map(as, 1, 0x10000, 0x20000, 0, "/a");
	expect_map(as, 2, 0x20000, 0x30000, 0, "/b");
	expect_map(as, 3, 0x30000, 0x40000, 0, "/c");
	expect_map(as, 4, 0x50000, 0x51000, 0, "/last");
	/* From inside /a to inside /c: /b goes, /a and /c are cut. */
	m = mk(0x18000, 0x38000, 0, "/x");
	ck_assert_int_eq(pcln_aspace_add(as, &m, NULL), 0);
	ck_assert_uint_eq(pcln_aspace_nmaps(as), 5);
	expect_map(as, 1, 0x10000, 0x18000, 0, "/a");
	expect_map(as, 2, 0x18000, 0x38000, 0, "/x");
	expect_map(as, 3, 0x38000, 0x40000, 0x8000, "/c");
	expect_map(as, 4, 0x50000, 0x51000, 0, "/last");
	/* Inside /x: three parts. */
	m = mk(0x20000, 0x21000, 0, "/y");
	ck_assert_int_eq(pcln_aspace_add(as, &m, NULL), 0);
	ck_assert_uint_eq(pcln_aspace_nmaps(as), 7);
	expect_map(as, 2, 0x18000, 0x20000, 0, "/x");
	expect_map(as, 3, 0x20000, 0x21000, 0, "/y");
	expect_map(as, 4, 0x21000, 0x38000, 0x9000, "/x");
	/* Over everything. */
	m = mk(0x0, 0x100000, 0, "[heap]");
	ck_assert_int_eq(pcln_aspace_add(as, &m, NULL), 0);
	ck_assert_uint_eq(pcln_aspace_nmaps(as), 1);
	expect_map(as, 0, 0x0, 0x100000, 0, "[heap]");
	/* A heap growing, as brk reports it: one mapping throughout. */
	for (i = 1; i <= 100; i++) {
		m = mk(0x100000, 0x100000 + 0x1000 * (uint64_t)i, 0, "[heap]");
		ck_assert_int_eq(pcln_aspace_add(as, &m, NULL), 0);
	}
	ck_assert_uint_eq(pcln_aspace_nmaps(as), 2);
	expect_map(as, 1, 0x100000, 0x164000, 0, "[heap]");
	ck_assert_str_eq(pcln_aspace_find(as, 0x163fff)->path, "[heap]");
	ck_assert_ptr_null(pcln_aspace_find(as, 0x164000));
	pcln_aspace_free(as);
}
END_TEST

/* pcln_aspace_version: a new number where a lookup may find otherwise
 * (a mapping replaced, the set read again, a mapping resolved), none
 * where it cannot (a mapping where there was none), and no number of
 * another address space; lookups right after every change (the
 * mappings found last are tried first). */
START_TEST(test_version)
{
	static const char text[] = "1000-2000 r-xp 0 00:00 0 /x\n";
	pcln_aspace *as = pcln_aspace_new(0, NULL, 0, NULL);
	pcln_aspace *other = pcln_aspace_new(0, NULL, 0, NULL);
	pcln_mapping m;
	uint64_t v0, v1, v2;

	ck_assert_ptr_nonnull(as);
	ck_assert_ptr_nonnull(other);
	v0 = pcln_aspace_version(as);
	ck_assert_uint_ne(v0, 0);
	ck_assert_uint_ne(v0, pcln_aspace_version(other));
	m = mk(0x10000, 0x20000, 0, "/a");
	ck_assert_int_eq(pcln_aspace_add(as, &m, NULL), 0);
	m = mk(0x30000, 0x40000, 0, "/b");
	ck_assert_int_eq(pcln_aspace_add(as, &m, NULL), 0);
	ck_assert_uint_eq(pcln_aspace_version(as), v0);
	ck_assert_str_eq(pcln_aspace_find(as, 0x10000)->path, "/a");
	ck_assert_str_eq(pcln_aspace_find(as, 0x3ffff)->path, "/b");
	ck_assert_str_eq(pcln_aspace_find(as, 0x10000)->path, "/a");
	ck_assert_ptr_null(pcln_aspace_find(as, 0x20000));
	/* Over /a's end: /a cut, the lookups see it. */
	m = mk(0x18000, 0x28000, 0, "/c");
	ck_assert_int_eq(pcln_aspace_add(as, &m, NULL), 0);
	v1 = pcln_aspace_version(as);
	ck_assert_uint_ne(v1, v0);
	ck_assert_str_eq(pcln_aspace_find(as, 0x10000)->path, "/a");
	ck_assert_str_eq(pcln_aspace_find(as, 0x18000)->path, "/c");
	ck_assert_str_eq(pcln_aspace_find(as, 0x20000)->path, "/c");
	ck_assert_str_eq(pcln_aspace_find(as, 0x30000)->path, "/b");
	ck_assert_ptr_null(pcln_aspace_find(as, 0x28000));
	/* Resolving a mapping (no object here: a path that is none). */
	(void)pcln_aspace_object(as, 0x18000, NULL);
	v2 = pcln_aspace_version(as);
	ck_assert_uint_ne(v2, v1);
	(void)pcln_aspace_object(as, 0x18000, NULL);
	ck_assert_uint_eq(pcln_aspace_version(as), v2);
	ck_assert_int_eq(pcln_aspace_set_maps(as, text, sizeof text - 1, NULL),
	    0);
	ck_assert_uint_ne(pcln_aspace_version(as), v2);
	ck_assert_ptr_null(pcln_aspace_find(as, 0x10000));
	ck_assert_str_eq(pcln_aspace_find(as, 0x1000)->path, "/x");
	pcln_aspace_free(as);
	pcln_aspace_free(other);
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

#ifdef CHECK_MAPS_PLUGIN
/* pcln_self: a plugin's module appears after dlopen and a refresh, and
 * goes after dlclose and a refresh; a reader record inside a bracket
 * holds it (not reusable, not freed) until it exits; loaded again, the
 * plugin is registered again. */
START_TEST(test_self_dlclose)
{
	pcln_err err;
	pcln_self *s = pcln_self_open(0, &err);
	pclnrt_registry *r;
	pclnrt_reader *rd;
	const pclnrt_module *m, *m2;
	void *h, *fn;
	uint64_t pc;
	size_t n0;

	ck_assert_msg(s != NULL, "%s", err.msg);
	r = pcln_self_registry(s);
	/* Finding the tables may have loaded libraries (libdw dlopens
	 * libdebuginfod when a debug file is not found locally): those
	 * first, so that the plugin is the one change below. */
	ck_assert_int_ge(pcln_self_refresh(s, &err), 0);
	n0 = pcln_self_nobjects(s);
	h = dlopen(CHECK_MAPS_PLUGIN, RTLD_NOW | RTLD_LOCAL);
	ck_assert_msg(h != NULL, "%s", dlerror());
	ck_assert_ptr_nonnull(fn = dlsym(h, "target_plugin_run"));
	pc = (uint64_t)(uintptr_t)fn;
	ck_assert_int_eq(pclnrt_registry_find(r, pc, &m), PCLNRT_NOTFOUND);
	ck_assert_int_eq(pcln_self_refresh(s, &err), 1);
	ck_assert_uint_eq(pcln_self_nobjects(s), n0 + 1);
	ck_assert_int_eq(pclnrt_registry_find(r, pc, &m), PCLNRT_OK);
	ck_assert_ptr_nonnull(strstr(m->name, "target-plugin.so"));

	ck_assert_ptr_nonnull(rd = pclnrt_reader_claim(r));
	pclnrt_read_enter(r, rd);
	ck_assert_int_eq(pclnrt_registry_find(r, pc, &m), PCLNRT_OK);
	ck_assert_int_eq(dlclose(h), 0);
	ck_assert_int_eq(pcln_self_refresh(s, &err), 1);
	ck_assert_uint_eq(pcln_self_nobjects(s), n0);
	ck_assert_int_eq(pclnrt_registry_find(r, pc, &m2), PCLNRT_NOTFOUND);
	/* Still ours (AddressSanitizer would see a freed one). */
	ck_assert_ptr_nonnull(strstr(m->name, "target-plugin.so"));
	ck_assert_int_eq(pclnrt_module_reusable(r, m), 0);
	ck_assert_int_eq(pcln_self_refresh(s, &err), 0);
	ck_assert_ptr_nonnull(strstr(m->name, "target-plugin.so"));
	pclnrt_read_exit(r, rd);
	pclnrt_reader_release(r, rd);
	ck_assert_int_eq(pclnrt_module_reusable(r, m), 1);

	h = dlopen(CHECK_MAPS_PLUGIN, RTLD_NOW | RTLD_LOCAL);
	ck_assert_msg(h != NULL, "%s", dlerror());
	ck_assert_ptr_nonnull(fn = dlsym(h, "target_plugin_run"));
	pc = (uint64_t)(uintptr_t)fn;
	ck_assert_int_eq(pcln_self_refresh(s, &err), 1);
	ck_assert_int_eq(pclnrt_registry_find(r, pc, &m), PCLNRT_OK);
	ck_assert_ptr_nonnull(strstr(m->name, "target-plugin.so"));
	pcln_self_close(s);
	ck_assert_int_eq(dlclose(h), 0);
}
END_TEST
#endif

/* --- a provider's objects: bias, symbols, a walk ---------------------- */

/* F [0x1100, 0x1140): pushes 8 bytes at 0x1104; calls G (returning to
 * 0x1120).  G [0x1200, 0x1240): pcsp 0 at entry, 16 from 0x1204. */
static uint8_t *
provider_blob(size_t *len)
{
	pcln_target t = { 8, 1, 0 };
	pcln_builder *b = pcln_builder_new(&t, NULL);
	uint8_t *blob;
	long f, g;

	ck_assert_ptr_nonnull(b);
	f = pcln_builder_add_func(b, "f", 0x1100, 0x40, 0, 8, NULL);
	g = pcln_builder_add_func(b, "g", 0x1200, 0x40, 0, 16, NULL);
	ck_assert_int_eq(pcln_builder_add_point(b, f, PCLN_TAB_PCSP, 0, 0,
	    NULL), 0);
	ck_assert_int_eq(pcln_builder_add_point(b, f, PCLN_TAB_PCSP, 4, 8,
	    NULL), 0);
	ck_assert_int_eq(pcln_builder_add_point(b, f, PCLN_TAB_PCSP, 0x30,
	    PCLN_PCSP_OUTERMOST, NULL), 0);
	ck_assert_int_eq(pcln_builder_add_point(b, g, PCLN_TAB_PCSP, 0, 0,
	    NULL), 0);
	ck_assert_int_eq(pcln_builder_add_point(b, g, PCLN_TAB_PCSP, 4, 16,
	    NULL), 0);
	ck_assert_int_eq(pcln_builder_write(b, 0, &blob, len, NULL), 0);
	pcln_builder_free(b);
	return blob;
}

struct prov {
	uint8_t *blob;
	size_t len;
	int calls;
	int user;
};

static int
provide(void *arg, const char *path, const uint8_t *id, size_t idlen,
    pcln_objtable *t)
{
	struct prov *p = arg;

	p->calls++;
	ck_assert_uint_eq(idlen, 2);
	ck_assert(id[0] == 0xab && id[1] == 0xcd);
	if (strcmp(path, "/fake/lib.so") != 0) {
		t->note = "not ours";
		return -1;
	}
	t->blob = p->blob;
	t->len = p->len;
	t->vaddr_minus_offset = 0;
	t->user = &p->user;
	return 0;
}

#define STACK	0x7ffd0000u
static uint8_t stackmem[64];

static int
read_stack(void *arg, uint64_t addr, uint8_t *buf, size_t len)
{
	(void)arg;
	if (addr < STACK || addr + len > STACK + sizeof stackmem)
		return -1;
	memcpy(buf, stackmem + (addr - STACK), len);
	return 0;
}

/* The code of /fake/lib.so (build-id ab cd) mapped at 0x7f0000001000
 * from file offset 0x1000, into AS. */
static void
map_lib(pcln_aspace *as)
{
	pcln_mapping m = mk(0x7f0000001000ull, 0x7f0000002000ull, 0x1000,
	    "/fake/lib.so");

	m.build_id[0] = 0xab;
	m.build_id[1] = 0xcd;
	m.build_id_len = 2;
	ck_assert_int_eq(pcln_aspace_add(as, &m, NULL), 0);
}

START_TEST(test_provider)
{
	struct prov pv;
	pcln_objstore *st;
	pcln_aspace *as;
	pcln_mapping m;
	pcln_symbol sym;
	pcln_regs r;
	pclnrt_frame fr[8];
	pclnrt_stopinfo stop;
	size_t n, nobj, nwith, nsteps;
	uint64_t ret = 0x7f0000001121ull, bias, hits, misses, hits2, misses2;
	int i;

	memset(&pv, 0, sizeof pv);
	pv.blob = provider_blob(&pv.len);
	st = pcln_objstore_new_provider(provide, &pv, NULL);
	ck_assert_ptr_nonnull(st);
	as = pcln_aspace_new(0, st, 0, NULL);
	ck_assert_ptr_nonnull(as);
	/* The code mapped at 0x7f0000001000 from file offset 0x1000: with
	 * p_vaddr - p_offset 0 the bias is 0x7f0000000000. */
	map_lib(as);
	m = mk(0x7f0000003000ull, 0x7f0000004000ull, 0, "/fake/other.so");
	m.build_id[0] = 0xab;
	m.build_id[1] = 0xcd;
	m.build_id_len = 2;
	ck_assert_int_eq(pcln_aspace_add(as, &m, NULL), 0);
	ck_assert_int_eq(pcln_aspace_symbolize(as, 0x7f0000001110ull, 0,
	    &sym), 0);
	ck_assert_str_eq(sym.function, "f");
	ck_assert_uint_eq(sym.objaddr, 0x1110);
	ck_assert_uint_eq(sym.bias, 0x7f0000000000ull);
	ck_assert_ptr_eq(sym.obj->user, &pv.user);
	ck_assert_int_eq(sym.obj->source, PCLN_OBJ_PROVIDED);
	/* A return address: looked up at the call. */
	ck_assert_int_eq(pcln_aspace_symbolize(as, 0x7f0000001200ull,
	    PCLN_SYM_RETADDR, &sym), 1);	/* 0x11ff: in no function */
	ck_assert_int_eq(pcln_aspace_symbolize(as, 0x7f0000003010ull, 0,
	    &sym), 1);
	ck_assert_ptr_nonnull(sym.obj);
	ck_assert_ptr_null(sym.obj->table);
	ck_assert_ptr_nonnull(strstr(sym.obj->note, "not ours"));
	ck_assert_ptr_nonnull(pcln_aspace_object(as, 0x7f0000001000ull,
	    &bias));
	ck_assert_uint_eq(bias, 0x7f0000000000ull);
	/* g at 0x1210 (pcsp 16): its return address, at sp + 16, is f's
	 * 0x1121 (caller sp + 24); f there (looked up at 0x1120, pcsp 8)
	 * returns from sp + 32 to 0x1131, where f's pcsp says outermost. */
	memset(stackmem, 0, sizeof stackmem);
	for (i = 0; i < 8; i++) {
		stackmem[16 + i] = (uint8_t)(ret >> (8 * i));
		stackmem[32 + i] = (uint8_t)(0x7f0000001131ull >> (8 * i));
	}
	memset(&r, 0, sizeof r);
	r.pc = 0x7f0000001210ull;
	r.sp = STACK;
	n = pcln_aspace_unwind(as, &r, 0, read_stack, NULL, fr, 8, &stop);
	ck_assert_uint_eq(n, 3);
	ck_assert_str_eq(fr[0].func.name, "g");
	ck_assert_str_eq(fr[1].func.name, "f");
	ck_assert_uint_eq(fr[1].pc, ret);
	ck_assert_uint_eq(fr[1].sp, STACK + 24);
	ck_assert_str_eq(fr[2].func.name, "f");
	ck_assert_int_eq(stop.reason, PCLNRT_STOP_OUTERMOST);
	ck_assert_ptr_eq(pcln_aspace_frame_object(as, &fr[1])->user, &pv.user);
	/* Each object asked for once. */
	(void)pcln_aspace_symbolize(as, 0x7f0000001110ull, 0, &sym);
	ck_assert_int_eq(pv.calls, 2);
	pcln_objstore_counts(st, &nobj, &nwith);
	ck_assert_uint_eq(nobj, 2);
	ck_assert_uint_eq(nwith, 1);
	/* The code mapped again where it was (a library loaded again, a
	 * mapping recorded again): the same object at the same bias,
	 * walked the same. */
	for (i = 0; i < 3; i++) {
		map_lib(as);
		n = pcln_aspace_unwind(as, &r, 0, read_stack, NULL, fr, 8,
		    &stop);
		ck_assert_msg(n == 3, "walk %d: %zu frames, stop %d", i, n,
		    (int)stop.reason);
		ck_assert_str_eq(fr[1].func.name, "f");
		ck_assert_uint_eq(fr[1].sp, STACK + 24);
	}
	ck_assert_int_eq(pv.calls, 2);
	/* The step cache: the same walk again, all three steps answered
	 * from it. */
	pcln_objstore_steps(st, &hits, &misses, &nsteps);
	ck_assert_uint_eq(nsteps, 1024);
	ck_assert_uint_eq(pcln_aspace_unwind(as, &r, 0, read_stack, NULL, fr,
	    8, &stop), 3);
	pcln_objstore_steps(st, &hits2, &misses2, NULL);
	ck_assert_uint_eq(misses2, misses);
	ck_assert_uint_eq(hits2, hits + 3);
	/* Mapped again, the registry is made again, and every step
	 * misses.  After 512 misses (half its entries) the cache grows
	 * four times, after 2,048 more four times again, and the walks go
	 * on the same. */
	for (i = 0; nsteps == 1024 && i < 1000; i++) {
		map_lib(as);
		ck_assert_uint_eq(pcln_aspace_unwind(as, &r, 0, read_stack,
		    NULL, fr, 8, &stop), 3);
		ck_assert_str_eq(fr[1].func.name, "f");
		pcln_objstore_steps(st, &hits2, &misses2, &nsteps);
		ck_assert_uint_eq(misses2, misses + 3 * (uint64_t)(i + 1));
	}
	ck_assert_uint_eq(nsteps, 4096);
	ck_assert_uint_ge(misses2, 512);
	ck_assert_uint_lt(misses2, 512 + 6);
	misses = misses2;
	for (i = 0; nsteps == 4096 && i < 1000; i++) {
		map_lib(as);
		ck_assert_uint_eq(pcln_aspace_unwind(as, &r, 0, read_stack,
		    NULL, fr, 8, &stop), 3);
		pcln_objstore_steps(st, &hits2, &misses2, &nsteps);
	}
	ck_assert_uint_eq(nsteps, 16384);
	ck_assert_uint_ge(misses2 - misses, 2048);
	ck_assert_uint_lt(misses2 - misses, 2048 + 6);
	ck_assert_uint_eq(pcln_aspace_unwind(as, &r, 0, read_stack, NULL, fr,
	    8, &stop), 3);
	ck_assert_uint_eq(fr[1].sp, STACK + 24);
	pcln_aspace_free(as);
	pcln_objstore_free(st);
	free(pv.blob);
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
	tcase_add_test(tc, test_add_splice);
	tcase_add_test(tc, test_set_maps);
	tcase_add_test(tc, test_version);
	tcase_add_test(tc, test_self);
#ifdef CHECK_MAPS_PLUGIN
	tcase_add_test(tc, test_self_dlclose);
#endif
	suite_add_tcase(s, tc);
	tc = tcase_create("provider");
	tcase_add_test(tc, test_provider);
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
