## tests/find.mk -- finding debug information and the table cache
## (lib/find, issue 15), included by tests/local.mk.
##
## tests/find-routes.sh: one program built every way it may ship
##   (stripped, build-id directory, debuglink, compressed, MiniDebugInfo,
##   .dwo, .dwp) answers as its -g build.
## tests/find-debuginfod.sh: the same through a real debuginfod server,
##   and a server that is down, slow or answers 404.
## tests/find-cache.sh: stale tables refused (runtime, --table, cache);
##   damaged entries, concurrent fillers, eviction.
## tests/find-libc.sh: Debian's libc.so.6 with libc6-dbg, through the
##   cache, against eu-addr2line and gdb.

EXTRA_DIST += tests/find/prog.h tests/find/prog.c tests/find/prog_util.c \
	tests/find/selfcheck.c
dist_check_SCRIPTS += tests/find-routes.sh tests/find-debuginfod.sh \
	tests/find-libc.sh tests/find-cache.sh
if HAVE_LIBDW
TESTS += tests/find-routes.sh tests/find-debuginfod.sh \
	tests/find-libc.sh tests/find-cache.sh
endif

## tests/find/check_buildid: the BUILDID section and the build-id
##   comparisons (builder, verifier, reader, runtime, note walkers).
check_PROGRAMS += tests/find/check_buildid
tests_find_check_buildid_SOURCES = tests/find/check_buildid.c
tests_find_check_buildid_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS)
tests_find_check_buildid_LDADD = lib/libpcln.la $(CHECK_LIBS)
TESTS += tests/find/check_buildid

## tests/find/check_cache: the cache's API on the test program itself.
EXTRA_DIST += tests/find/check_cache.c
if HAVE_LIBDW
check_PROGRAMS += tests/find/check_cache
tests_find_check_cache_SOURCES = tests/find/check_cache.c
tests_find_check_cache_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS)
tests_find_check_cache_LDADD = lib/libpcln.la $(CHECK_LIBS)
TESTS += tests/find/check_cache
endif
