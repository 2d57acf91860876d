## tests/reliability.mk -- reliability tests, included by tests/local.mk:
## allocation failure swept over every N, the runtime's checksum against
## libxxhash, bad input end to end through the tools, output files and
## signals.

# Every allocation of the code linked in statically goes through the
# failing allocator (tests/failmalloc.c), by ld's --wrap.
pcln_failmalloc_flags = -Wl,--wrap=malloc,--wrap=calloc,--wrap=realloc \
	-Wl,--wrap=free,--wrap=strdup

check_PROGRAMS += tests/check_alloc tests/check_checksum
TESTS += tests/check_alloc tests/check_checksum
tests_check_alloc_SOURCES = tests/check_alloc.c tests/failmalloc.c \
	tests/failmalloc.h
tests_check_alloc_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS)
tests_check_alloc_CPPFLAGS = $(AM_CPPFLAGS) \
	-DPCLN_TOP_SRCDIR='"$(abs_top_srcdir)"'
tests_check_alloc_LDFLAGS = $(pcln_failmalloc_flags)
tests_check_alloc_LDADD = lib/libpcln-internal.la $(CHECK_LIBS) \
	$(XXHASH_LIBS)

tests_check_checksum_SOURCES = tests/check_checksum.c
tests_check_checksum_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS) $(XXHASH_CFLAGS)
tests_check_checksum_CPPFLAGS = $(AM_CPPFLAGS) \
	-DPCLN_TOP_SRCDIR='"$(abs_top_srcdir)"'
tests_check_checksum_LDADD = runtime/libpclnrt.la $(CHECK_LIBS) \
	$(XXHASH_LIBS)

# Bad input end to end: tests/badinput/*.pcln (first line: the expected
# message), corrupt blobs and ELF files, limits, unwritable outputs.
TESTS += tests/cli-badinput.sh
dist_check_SCRIPTS += tests/cli-badinput.sh
EXTRA_DIST += tests/badinput

# Output files: kinds, modes, links, the same file twice, every write
# error of every output; signals during a write and stale temporaries.
TESTS += tests/cli-outputs.sh tests/cli-signals.sh
dist_check_SCRIPTS += tests/cli-outputs.sh tests/cli-signals.sh
