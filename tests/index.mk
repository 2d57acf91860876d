## tests/index.mk -- the FUNCINDEX section: builder, verifier, runtime
## and library lookups; included from tests/local.mk.

check_PROGRAMS += tests/check_index
TESTS += tests/check_index
tests_check_index_SOURCES = tests/check_index.c tests/trailer.h
tests_check_index_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS)
tests_check_index_LDADD = lib/libpcln-internal.la runtime/libpclnrt.la \
	$(CHECK_LIBS)
