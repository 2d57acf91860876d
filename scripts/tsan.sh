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
# pclndump perf's two threads (tools/dump_perf.c: two handles sharing the
# samples, pcln_perf_share and pcln_perf_open_twin, the tables found once
# for both, each block's text written out in turn) on a profile recorded
# here with perf record --call-graph dwarf: pclndump built whole under
# ThreadSanitizer in _build-tsan/tree (configure, the tools only), run
# with PCLN_PERF_THREADS=2; its text must be the one thread's; and with
# the tables taken ahead by a second thread.
if ! command -v perf >/dev/null 2>&1; then
	echo "tsan.sh: no perf: pclndump perf's threads not checked" >&2
	exit 1
fi
mkdir -p _build-tsan/tree
(cd _build-tsan/tree && { [ -f Makefile ] || "$top/configure" -q \
    CC="$CC" CFLAGS="-fsanitize=thread -O1 -g" \
    LDFLAGS="-fsanitize=thread" --disable-shared; } &&
    make -j"$(nproc)" tools/pclndump >make.log 2>&1) || {
	tail -n 20 _build-tsan/tree/make.log >&2 2>/dev/null
	echo "tsan.sh: cannot build pclndump under ThreadSanitizer" >&2
	exit 1
}
w=$top/_build-tsan/perf
rm -rf "$w"
mkdir -p "$w"
${CC_HOST:-cc} -O2 -g -o "$w/prog" "$top/tests/perf/prog.c" \
    "$top/tests/perf/work.c"
# (-N: nothing into the build-id cache under $HOME)
if ! perf record -q -N -e cpu-clock -F 4000 --call-graph dwarf \
    -o "$w/p.data" "$w/prog" 300 >"$w/record.log" 2>&1; then
	if grep -q 'perf_event_open\|Permission\|not supported' \
	    "$w/record.log"; then
		echo "tsan.sh: SKIP pclndump perf's threads: the kernel" \
		    "refuses perf record: $(tail -n 1 "$w/record.log")"
		exit 0
	fi
	cat "$w/record.log" >&2
	echo "tsan.sh: perf record failed" >&2
	exit 1
fi
XDG_CACHE_HOME=$w/cache
export XDG_CACHE_HOME
TSAN_OPTIONS="halt_on_error=1 exitcode=66 report_thread_leaks=0"
export TSAN_OPTIONS
for t in 1 2; do
	if ! PCLN_PERF_THREADS=$t $run _build-tsan/tree/tools/pclndump perf \
	    -i "$w/p.data" --stats >"$w/out$t" 2>"$w/err$t"; then
		tail -n 40 "$w/err$t" >&2
		echo "tsan.sh: pclndump perf ($t threads) failed under" \
		    "ThreadSanitizer" >&2
		exit 1
	fi
done
if ! cmp -s "$w/out1" "$w/out2" || ! grep -q ' samples: ' "$w/err2"; then
	diff "$w/out1" "$w/out2" | head -n 10 >&2
	echo "tsan.sh: pclndump perf's text in two threads differs" >&2
	exit 1
fi
# One walk again, the tables now in the cache: a second thread takes
# them while the walk starts (PCLN_PERF_AHEAD, tools/dump_perf_tables.c;
# the walk waits for it, so that it does take them).
if ! PCLN_PERF_THREADS=1 PCLN_PERF_AHEAD=wait $run \
    _build-tsan/tree/tools/pclndump perf -i "$w/p.data" --stats \
    >"$w/out3" 2>"$w/err3"; then
	tail -n 40 "$w/err3" >&2
	echo "tsan.sh: pclndump perf (tables taken ahead) failed under" \
	    "ThreadSanitizer" >&2
	exit 1
fi
if ! cmp -s "$w/out1" "$w/out3" ||
    ! grep -q '^  tables taken ahead (a second thread): [1-9]' "$w/err3"
then
	diff "$w/out1" "$w/out3" | head -n 10 >&2
	grep '^  tables' "$w/err3" >&2
	echo "tsan.sh: pclndump perf's text with tables taken ahead" \
	    "differs, or none were" >&2
	exit 1
fi
echo "tsan.sh: pclndump perf passed in two threads under ThreadSanitizer" \
    "($(sed -n 's/^pclndump: perf: [0-9]* records, \([0-9]*\) samples.*/\1/p' \
    "$w/err2") samples)"
