#!/bin/sh
# scripts/tsan.sh -- the runtime's concurrency test under ThreadSanitizer:
# build tests/rt_stress.c with the runtime's own sources (no configure,
# no libpcln) with clang -fsanitize=thread in _build-tsan, and run it:
# writer threads re-registering JIT modules in reused storage, reader
# threads and a SIGALRM handler looking up.  Then lib/perf's reader
# thread (pcln_perf_open_fd with PCLN_PERF_READAHEAD): tests/check_perffile
# built with lib/perf's reader, its config.h from _build (scripts/setup.sh
# made it).  Any report fails the run.
# TSAN_STRESS_ITER re-registrations per writer (default 500: a few
# seconds).
set -eu
cd "$(dirname "$0")/.."
top=$(pwd)
CC=${TSAN_CC:-clang}
iter=${TSAN_STRESS_ITER:-500}
if ! command -v "$CC" >/dev/null 2>&1; then
	echo "tsan.sh: $CC not found (package clang)" >&2
	exit 1
fi
mkdir -p _build-tsan
"$CC" -std=gnu11 -O1 -g -fsanitize=thread -pthread -I"$top/runtime" \
    -o _build-tsan/rt_stress "$top/tests/rt_stress.c" \
    "$top"/runtime/pclnrt.c "$top"/runtime/module.c \
    "$top"/runtime/codemap.c "$top"/runtime/traceback.c \
    "$top"/runtime/checksum.c "$top"/runtime/inline.c "$top"/runtime/jit.c
TSAN_OPTIONS="halt_on_error=1 exitcode=66 ${TSAN_OPTIONS:-}"
export TSAN_OPTIONS
# Without address-space randomisation: the clang 14 ThreadSanitizer
# refuses some high-entropy layouts ("unexpected memory mapping").
run=
if command -v setarch >/dev/null 2>&1 && setarch "$(uname -m)" -R true \
    2>/dev/null; then
	run="setarch $(uname -m) -R"
fi
if ! $run _build-tsan/rt_stress "$iter"; then
	echo "tsan.sh: the concurrency test failed under ThreadSanitizer" >&2
	exit 1
fi
echo "tsan.sh: rt_stress passed under ThreadSanitizer"
"$CC" -std=gnu11 -O1 -g -fsanitize=thread -pthread -I"$top/_build" \
    -I"$top/runtime" -I"$top/lib" -I"$top/lib/perf" \
    -o _build-tsan/check_perffile "$top/tests/check_perffile.c" \
    "$top"/lib/perf/perf_header.c "$top"/lib/perf/perf_record.c \
    "$top"/lib/perf/perf_file.c "$top"/lib/error.c "$top"/lib/grow.c \
    "$top"/lib/huge.c \
    "$top"/runtime/pclnrt.c "$top"/runtime/checksum.c \
    $(pkg-config --cflags --libs check libzstd)
# CK_FORK=no: the tests in one process, the thread's reports in it.
if ! CK_FORK=no $run _build-tsan/check_perffile; then
	echo "tsan.sh: check_perffile failed under ThreadSanitizer" >&2
	exit 1
fi
echo "tsan.sh: check_perffile passed under ThreadSanitizer"
