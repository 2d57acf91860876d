/* check_cache.c -- the table cache's API (pcln_find.h) on this very
 * program (built -g, with a build-id): pcln_table_for_file and
 * pcln_table_for_build_id, pcln_cache_lookup / _store / _evict. */
#define _GNU_SOURCE
#include <config.h>

#include <check.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "pcln_find.h"

static char dir[512], self[PATH_MAX];
static uint8_t id[PCLN_BUILDID_MAX];
static size_t idlen;

static void
setup(void)
{
	pcln_err err;
	ssize_t n;

	snprintf(dir, sizeof dir, "%s/check_cache.XXXXXX",
	    getenv("TMPDIR") != NULL ? getenv("TMPDIR") : "/tmp");
	ck_assert_ptr_nonnull(mkdtemp(dir));
	n = readlink("/proc/self/exe", self, sizeof self - 1);
	ck_assert_int_gt(n, 0);
	self[n] = 0;
	ck_assert_int_eq(pcln_file_build_id(self, id, &idlen, &err), 1);
}

static void
teardown(void)
{
	char cmd[PATH_MAX + 16];

	snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
	ck_assert_int_eq(system(cmd), 0);
}

static pcln_cache *
open_cache(const char *sub, uint64_t limit)
{
	char p[PATH_MAX + 600];
	pcln_cache_opts o = { p, limit };
	pcln_cache *c;
	pcln_err err;

	snprintf(p, sizeof p, "%s/%s", dir, sub);
	c = pcln_cache_open(&o, &err);
	ck_assert_msg(c != NULL, "%s", err.msg);
	return c;
}

START_TEST(test_file)
{
	pcln_cache *c = open_cache("a/b/cache", 0);	/* made with parents */
	pcln_cached e, e2;
	const uint8_t *tid;
	size_t tlen;
	pcln_table *t;
	pcln_err err;
	char hex[2 * PCLN_BUILDID_MAX + 1], want[PATH_MAX + 200];
	struct stat st;

	ck_assert_int_eq(pcln_table_for_file(c, self, NULL, 0, &e, &err), 0);
	ck_assert_int_eq(e.hit, 0);
	ck_assert_int_eq(e.nodwarf, 0);
	ck_assert_int_eq(e.found.route, PCLN_ROUTE_SELF);
	snprintf(want, sizeof want, "%s/%s.%s.pcln", pcln_cache_dir(c),
	    pcln_build_id_hex(id, idlen, hex), pcln_cache_maker(c));
	ck_assert_str_eq(e.path, want);
	ck_assert_int_eq(stat(want, &st), 0);
	ck_assert_uint_eq((size_t)st.st_size, e.len);
	ck_assert_int_eq(stat(pcln_cache_dir(c), &st), 0);
	ck_assert_uint_eq(st.st_mode & 0777, 0700);
	/* A second time: from the cache, the same bytes. */
	ck_assert_int_eq(pcln_table_for_file(c, self, NULL, PCLN_TABLE_VERIFY,
	    &e2, &err), 0);
	ck_assert_int_eq(e2.hit, 1);
	ck_assert_uint_eq(e2.len, e.len);
	ck_assert_mem_eq(e2.blob, e.blob, e.len);
	t = pcln_open(e2.blob, e2.len, 0, &err);
	ck_assert_ptr_nonnull(t);
	ck_assert_int_eq(pcln_get_build_id(t, &tid, &tlen), 1);
	ck_assert_mem_eq(tid, id, idlen);
	ck_assert_int_ge(pcln_find_func(t, (uint64_t)(uintptr_t)0), -1);
	pcln_close(t);
	pcln_cached_release(&e2);
	/* No cache: made, not stored. */
	ck_assert_int_eq(pcln_table_for_file(NULL, self, NULL, 0, &e2, &err),
	    0);
	ck_assert_str_eq(e2.path, "");
	ck_assert_uint_eq(e2.len, e.len);
	pcln_cached_release(&e2);
	pcln_cached_release(&e);
	pcln_cache_close(c);
}
END_TEST

START_TEST(test_store_lookup_evict)
{
	pcln_cache *c = open_cache("c", 0);
	pcln_cached e, got;
	pcln_err err;
	uint8_t other[PCLN_BUILDID_MAX];
	char p[PCLN_FIND_PATH_MAX];

	ck_assert_int_eq(pcln_cache_lookup(c, id, idlen, 1, &got, &err), 0);
	ck_assert_int_eq(pcln_table_for_file(NULL, self, NULL, 0, &e, &err),
	    0);
	/* Refused under another build-id: the blob records this one. */
	memcpy(other, id, idlen);
	other[0] ^= 0xff;
	ck_assert_int_eq(pcln_cache_store(c, other, idlen, 0, e.blob, e.len,
	    p, &err), -1);
	ck_assert_ptr_nonnull(strstr(err.msg, "BUILDID section is not its "
	    "name"));
	/* Stored as made without DWARF: found only when asked for. */
	ck_assert_int_eq(pcln_cache_store(c, id, idlen, 1, e.blob, e.len, p,
	    &err), 0);
	ck_assert_ptr_nonnull(strstr(p, ".nodwarf.pcln"));
	ck_assert_int_eq(pcln_cache_lookup(c, id, idlen, 0, &got, &err), 0);
	ck_assert_int_eq(pcln_cache_lookup(c, id, idlen, 1, &got, &err), 1);
	ck_assert_int_eq(got.nodwarf, 1);
	pcln_cached_release(&got);
	/* The full entry supersedes it. */
	ck_assert_int_eq(pcln_cache_store(c, id, idlen, 0, e.blob, e.len, p,
	    &err), 0);
	ck_assert_int_eq(access(p, R_OK), 0);
	ck_assert_int_eq(pcln_cache_lookup(c, id, idlen, 1, &got, &err), 1);
	ck_assert_int_eq(got.nodwarf, 0);
	pcln_cached_release(&got);
	/* An entry another build of libpcln made is not read (its importer
	 * may have answered otherwise), and ages out by eviction. */
	{
		char hex[2 * PCLN_BUILDID_MAX + 1], alien[PCLN_FIND_PATH_MAX];
		char plain[PCLN_FIND_PATH_MAX];
		const char *mk = pcln_cache_maker(c);
		ck_assert(mk[0] == 'L' || mk[0] == 'v');
		pcln_build_id_hex(id, idlen, hex);
		/* Another build's name, and the name without a maker. */
		snprintf(alien, sizeof alien, "%s/%s.Xother.pcln",
		    pcln_cache_dir(c), hex);
		snprintf(plain, sizeof plain, "%s/%s.pcln", pcln_cache_dir(c),
		    hex);
		ck_assert_int_eq(link(p, plain), 0);
		ck_assert_int_eq(rename(p, alien), 0);
		ck_assert_int_eq(pcln_cache_lookup(c, id, idlen, 1, &got, &err),
		    0);
		ck_assert_int_eq(access(alien, R_OK), 0);
		ck_assert_int_eq(unlink(plain), 0);
		ck_assert_int_eq(rename(alien, p), 0);
	}
	/* Evict to 1 byte: everything but the kept entry goes. */
	ck_assert_int_eq(pcln_cache_evict(c, 1, p, &err), 0);
	ck_assert_int_eq(access(p, R_OK), 0);
	ck_assert_int_eq(pcln_cache_evict(c, 1, NULL, &err), 1);
	ck_assert_int_eq(access(p, R_OK), -1);
	ck_assert_int_eq(pcln_cache_lookup(c, id, 0, 1, &got, &err), -1);
	ck_assert_int_eq(err.code, PCLN_EINVAL);
	pcln_cached_release(&e);
	pcln_cache_close(c);
}
END_TEST

/* Create DIR/NAME (a few bytes); returns its descriptor. */
static int
make_file(const char *d, const char *name)
{
	char p[PATH_MAX + 1400];
	int fd;

	snprintf(p, sizeof p, "%s/%s", d, name);
	fd = open(p, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(write(fd, "junk", 4), 4);
	return fd;
}

static int
exists(const char *d, const char *name)
{
	char p[PATH_MAX + 1400];

	snprintf(p, sizeof p, "%s/%s", d, name);
	return access(p, F_OK) == 0;
}

/* The cache's temporaries are pcln_out.h's: eviction removes those of
 * dead writers nobody locks, and nothing else that looks like one. */
START_TEST(test_stale_temporaries)
{
	pcln_cache *c = open_cache("t", 0);
	char d[PATH_MAX + 600], hex[2 * PCLN_BUILDID_MAX + 1];
	char dead[700], live[700], locked[700], old[700], other[700];
	pcln_err err;
	pid_t pid;
	int lfd;

	snprintf(d, sizeof d, "%s/t", dir);
	pcln_build_id_hex(id, idlen, hex);
	/* A pid that runs no more: a child reaped. */
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0)
		_exit(0);
	ck_assert_int_eq(waitpid(pid, NULL, 0), pid);
	snprintf(dead, sizeof dead, ".%s.pcln.pcln-%ld-aB3dE9", hex,
	    (long)pid);
	snprintf(live, sizeof live, ".%s.pcln.pcln-1-aB3dE9", hex);
	snprintf(locked, sizeof locked, ".%s.nodwarf.pcln.pcln-%ld-Zz0000",
	    hex, (long)pid);
	snprintf(old, sizeof old, ".%s.pcln.aB3dE9", hex);
	snprintf(other, sizeof other, ".notes.txt.pcln-%ld-aB3dE9",
	    (long)pid);
	close(make_file(d, dead));
	close(make_file(d, live));
	lfd = make_file(d, locked);
	ck_assert_int_eq(flock(lfd, LOCK_EX | LOCK_NB), 0);
	close(make_file(d, old));
	close(make_file(d, other));
	/* Only the dead writer's unlocked temporary of an entry goes. */
	ck_assert_int_eq(pcln_cache_evict(c, 0, NULL, &err), 1);
	ck_assert(!exists(d, dead));
	ck_assert(exists(d, live));
	ck_assert(exists(d, locked));
	ck_assert(exists(d, old));
	ck_assert(exists(d, other));
	/* Unlocked, it goes too. */
	close(lfd);
	ck_assert_int_eq(pcln_cache_evict(c, 0, NULL, &err), 1);
	ck_assert(!exists(d, locked));
	ck_assert(exists(d, live));
	pcln_cache_close(c);
}
END_TEST

START_TEST(test_build_id)
{
	pcln_cache *c = open_cache("d", 0);
	char dbg[600], link[PATH_MAX + 800], hex[2 * PCLN_BUILDID_MAX + 1];
	const char *dirs[] = { dbg, NULL };
	pcln_find_opts o = { dirs, PCLN_FIND_NO_DEFAULT |
	    PCLN_FIND_NO_DEBUGINFOD };
	pcln_cached e;
	pcln_err err;

	pcln_build_id_hex(id, idlen, hex);
	snprintf(dbg, sizeof dbg, "%s/dbg", dir);
	ck_assert_int_eq(pcln_table_for_build_id(c, id, idlen, &o, 0, &e,
	    &err), -1);
	ck_assert_int_eq(err.code, PCLN_ENOTFOUND);
	ck_assert_ptr_nonnull(strstr(err.msg, hex));
	ck_assert_int_eq(mkdir(dbg, 0700), 0);
	snprintf(link, sizeof link, "%s/.build-id", dbg);
	ck_assert_int_eq(mkdir(link, 0700), 0);
	snprintf(link, sizeof link, "%s/.build-id/%.2s", dbg, hex);
	ck_assert_int_eq(mkdir(link, 0700), 0);
	snprintf(link, sizeof link, "%s/.build-id/%.2s/%s", dbg, hex, hex + 2);
	ck_assert_int_eq(symlink(self, link), 0);
	ck_assert_int_eq(pcln_table_for_build_id(c, id, idlen, &o, 0, &e,
	    &err), 0);
	ck_assert_int_eq(e.hit, 0);
	pcln_cached_release(&e);
	ck_assert_int_eq(pcln_table_for_build_id(c, id, idlen, &o, 0, &e,
	    &err), 0);
	ck_assert_int_eq(e.hit, 1);
	pcln_cached_release(&e);
	pcln_cache_close(c);
}
END_TEST

/* PCLN_TABLE_CACHED: what the cache holds, and nothing made. */
START_TEST(test_cached_only)
{
	pcln_cache *c = open_cache("e", 0), *c2 = open_cache("f", 0);
	char hex[2 * PCLN_BUILDID_MAX + 1], want[PATH_MAX + 200];
	pcln_find_opts o = { NULL, PCLN_FIND_NO_DEFAULT |
	    PCLN_FIND_NO_DEBUGINFOD };
	pcln_cached e, e2;
	pcln_err err;
	struct stat st;

	snprintf(want, sizeof want, "%s/%s.%s.pcln", pcln_cache_dir(c),
	    pcln_build_id_hex(id, idlen, hex), pcln_cache_maker(c));
	/* Not in the cache: not found, and not imported nor stored. */
	ck_assert_int_eq(pcln_table_for_file(c, self, NULL,
	    PCLN_TABLE_CACHED, &e, &err), -1);
	ck_assert_int_eq(err.code, PCLN_ENOTFOUND);
	ck_assert_ptr_nonnull(strstr(err.msg, "not in the cache"));
	ck_assert_ptr_null(e.blob);
	ck_assert_int_ne(stat(want, &st), 0);
	ck_assert_int_eq(pcln_table_for_build_id(c, id, idlen, &o,
	    PCLN_TABLE_CACHED, &e, &err), -1);
	ck_assert_int_eq(err.code, PCLN_ENOTFOUND);
	ck_assert_ptr_nonnull(strstr(err.msg, hex));
	/* No cache at all: the same. */
	ck_assert_int_eq(pcln_table_for_file(NULL, self, NULL,
	    PCLN_TABLE_CACHED, &e, &err), -1);
	ck_assert_int_eq(err.code, PCLN_ENOTFOUND);
	/* Made once: then both calls take it from the cache. */
	ck_assert_int_eq(pcln_table_for_file(c, self, NULL, 0, &e, &err), 0);
	ck_assert_int_eq(e.hit, 0);
	ck_assert_int_eq(stat(want, &st), 0);
	ck_assert_int_eq(pcln_table_for_file(c, self, NULL, PCLN_TABLE_CACHED,
	    &e2, &err), 0);
	ck_assert_int_eq(e2.hit, 1);
	ck_assert_uint_eq(e2.len, e.len);
	ck_assert_mem_eq(e2.blob, e.blob, e.len);
	pcln_cached_release(&e2);
	ck_assert_int_eq(pcln_table_for_build_id(c, id, idlen, &o,
	    PCLN_TABLE_CACHED, &e2, &err), 0);
	ck_assert_int_eq(e2.hit, 1);
	ck_assert_mem_eq(e2.blob, e.blob, e.len);
	pcln_cached_release(&e2);
	/* Another cache, empty: still not found there. */
	ck_assert_int_eq(pcln_table_for_file(c2, self, NULL,
	    PCLN_TABLE_CACHED, &e2, &err), -1);
	ck_assert_int_eq(err.code, PCLN_ENOTFOUND);
	pcln_cached_release(&e);
	pcln_cache_close(c2);
	pcln_cache_close(c);
}
END_TEST

int
main(void)
{
	Suite *s = suite_create("cache");
	TCase *tc = tcase_create("core");
	SRunner *sr;
	int nf;

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_file);
	tcase_add_test(tc, test_store_lookup_evict);
	tcase_add_test(tc, test_stale_temporaries);
	tcase_add_test(tc, test_build_id);
	tcase_add_test(tc, test_cached_only);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	nf = srunner_ntests_failed(sr);
	srunner_free(sr);
	return nf == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
