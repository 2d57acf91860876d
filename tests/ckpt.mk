## tests/ckpt.mk -- pc-value checkpoints (PCCKPT): builder, verifier,
## runtime and library lookups; included from tests/local.mk.

check_PROGRAMS += tests/check_ckpt
TESTS += tests/check_ckpt
tests_check_ckpt_SOURCES = tests/check_ckpt.c tests/trailer.h
tests_check_ckpt_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS)
tests_check_ckpt_LDADD = lib/libpcln-internal.la runtime/libpclnrt.la \
	$(CHECK_LIBS)
