## tests/runtime.mk -- the runtime's tests, included from tests/local.mk.

# The runtime references no symbol outside itself.
TESTS += tests/runtime-nolibc.sh
dist_check_SCRIPTS += tests/runtime-nolibc.sh

# Check suites: lookups against a model and the lib reader, tracebacks,
# corrupt blobs behind a guard page, the code map, JIT functions.
check_PROGRAMS += tests/check_runtime
TESTS += tests/check_runtime
tests_check_runtime_SOURCES = tests/check_runtime.c tests/test_rt.h \
	tests/test_rt_util.c tests/test_rt_lookup.c \
	tests/test_rt_traceback.c tests/test_rt_corrupt.c \
	tests/test_rt_module.c tests/test_rt_jit.c
tests_check_runtime_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS) -pthread
tests_check_runtime_LDADD = lib/libpcln-internal.la runtime/libpclnrt.la \
	$(CHECK_LIBS) -lpthread

# The code map under threads and signals (scripts/tsan.sh runs it under
# ThreadSanitizer too).
check_PROGRAMS += tests/rt_stress
TESTS += tests/rt_stress
tests_rt_stress_SOURCES = tests/rt_stress.c
tests_rt_stress_CFLAGS = $(AM_CFLAGS) -pthread
tests_rt_stress_LDADD = runtime/libpclnrt.la -lpthread
