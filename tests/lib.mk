## tests/lib.mk -- the libpcln Check suites, included by tests/local.mk.
##
## tests/check_lib runs every suite (varint, build, read, verify, golden).
## tests/gen_golden rewrites the golden blobs; see tests/gen_golden.c.

pcln_test_libs = lib/libpcln-internal.la $(CHECK_LIBS) $(XXHASH_LIBS)
pcln_test_cflags = $(AM_CFLAGS) $(CHECK_CFLAGS) $(XXHASH_CFLAGS)

check_PROGRAMS += tests/check_lib tests/gen_golden
# (check_lib is in TESTS from tests/local.mk, with the longest.)

## tests/pkgconfig.sh: libpcln.pc's Requires.private lets a program link
## the static library with pkg-config --static's libraries alone.
TESTS += tests/pkgconfig.sh
dist_check_SCRIPTS += tests/pkgconfig.sh

tests_check_lib_SOURCES = \
	tests/check_lib.c \
	tests/suites_lib.h \
	tests/golden.h \
	tests/golden.c \
	tests/test_varint.c \
	tests/test_build.c \
	tests/test_read.c \
	tests/test_verify.c \
	tests/test_golden.c
tests_check_lib_CFLAGS = $(pcln_test_cflags)
tests_check_lib_CPPFLAGS = $(AM_CPPFLAGS) -DPCLN_TOP_SRCDIR='"$(abs_top_srcdir)"'
tests_check_lib_LDADD = $(pcln_test_libs)

tests_gen_golden_SOURCES = tests/gen_golden.c tests/golden.h tests/golden.c
tests_gen_golden_CFLAGS = $(AM_CFLAGS) $(XXHASH_CFLAGS)
tests_gen_golden_LDADD = lib/libpcln-internal.la $(XXHASH_LIBS)

EXTRA_DIST += \
	tests/golden/le64-trailer.bin \
	tests/golden/be32-q4-go12.bin \
	tests/golden/le32-q2-trailer.bin
