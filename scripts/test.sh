#!/bin/sh
# scripts/test.sh -- the whole test suite from a fresh Debian 12 machine:
# set-up (scripts/setup.sh), then `make check` and `make distcheck`, the
# in-tree build of a fresh clone (scripts/intree.sh), then the suite again
# under ASan/UBSan/LSan (scripts/sanitize.sh, in _build-san), the
# runtime's concurrency test under ThreadSanitizer (scripts/tsan.sh, in
# _build-tsan) and a short run of every fuzz target (scripts/fuzz.sh, in
# _build-fuzz, FUZZ_SECONDS each, here 20 unless set: the whole run took
# 32 minutes on a slow day of this guest with 30, and CI aims at 30).
set -eu
cd "$(dirname "$0")/.."
# Each step's time, printed as it ends and again at the end ("test.sh:
# times: setup 95 s, check 480 s, ..."), for a run that is too slow.
times=
t0=$(date +%s)
took() {	# STEP: the time since the last step ended
	t1=$(date +%s)
	times="$times${times:+, }$1 $((t1 - t0)) s"
	echo "test.sh: $1 took $((t1 - t0)) s"
	t0=$t1
}
./scripts/setup.sh
took setup
cd _build
rc=0
make -j"$(nproc)" check || rc=$?
../scripts/summary.sh . || true
if [ "$rc" -ne 0 ]; then
	echo "test.sh: make check failed" >&2
	exit "$rc"
fi
took check
make -j"$(nproc)" distcheck
took distcheck
cd ..
./scripts/intree.sh
took intree
./scripts/sanitize.sh
took sanitize
./scripts/tsan.sh
took tsan
FUZZ_SECONDS=${FUZZ_SECONDS:-20} ./scripts/fuzz.sh
took fuzz
echo "test.sh: times: $times"
# The closing line: the main build's count (every later step passed, or
# set -e would have stopped us).
./scripts/summary.sh _build | tail -n 1
