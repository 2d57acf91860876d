## tests/ckpt.mk -- pc-value checkpoints (PCCKPT): builder, verifier,
## runtime and library lookups; included from tests/local.mk.

check_PROGRAMS += tests/check_ckpt
# (check_ckpt is in TESTS from tests/local.mk, with the longest.)
tests_check_ckpt_SOURCES = tests/check_ckpt.c tests/trailer.h
tests_check_ckpt_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS)
tests_check_ckpt_LDADD = lib/libpcln-internal.la runtime/libpclnrt.la \
	$(CHECK_LIBS)

# The pc-value cache gives exactly the uncached answers, on any blob.
check_PROGRAMS += tests/check_pccache
TESTS += tests/check_pccache
tests_check_pccache_SOURCES = tests/check_pccache.c tests/trailer.h
tests_check_pccache_CPPFLAGS = $(AM_CPPFLAGS) \
	-DPCLN_TOP_SRCDIR='"$(abs_top_srcdir)"'
tests_check_pccache_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS)
tests_check_pccache_LDADD = lib/libpcln-internal.la runtime/libpclnrt.la \
	$(CHECK_LIBS)
