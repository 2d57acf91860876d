## tests/pclnld.mk -- tests of the description reader, the link and
## pclnld, included by tests/local.mk.

check_PROGRAMS += tests/check_desc
tests_check_desc_SOURCES = tests/check_desc.c
tests_check_desc_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS)
tests_check_desc_LDADD = lib/libpcln-internal.la $(CHECK_LIBS)

TESTS += tests/check_desc tests/cli-pclnld.sh
dist_check_SCRIPTS += tests/cli-pclnld.sh
dist_check_DATA += tests/pclnld/map.expected tests/pclnld/stats.expected \
	tests/pclnld/errors.expected
EXTRA_DIST += examples/hello.pcln examples/hello_lib.pcln

check_PROGRAMS += tests/verify_blob
tests_verify_blob_SOURCES = tests/verify_blob.c
tests_verify_blob_LDADD = lib/libpcln.la
