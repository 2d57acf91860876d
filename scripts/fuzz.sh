#!/bin/sh
# scripts/fuzz.sh [BUILDDIR] -- a short run of every libFuzzer target.
#
# BUILDDIR (default _build-fuzz) is configured with CC=clang
# --enable-fuzzing; without BUILDDIR the script makes it from scratch.
# Each target (every fuzz/fuzz_* program built in BUILDDIR) runs
# FUZZ_SECONDS seconds (default 30), FUZZ_JOBS targets at a time (default:
# the number of processors), on a scratch copy of its seed corpus
# fuzz/corpus/<target>/ and its crash seeds fuzz/crashes/<target>/ (the
# committed files are never changed; scripts/fuzz-long.sh adds to them).
# Prints one line per target: executions, corpus size and crashes; a
# crash, leak or timeout leaves its input in BUILDDIR/fuzz-out/<target>/,
# prints it in base64 (up to 16 KiB: a CI log is enough to replay it) and
# makes the script fail.  To turn a crash into a regression test, see the
# README's "Reliability" section.
set -eu
cd "$(dirname "$0")/.."
top=$(pwd)
secs=${FUZZ_SECONDS:-30}
. "$top/scripts/fuzz-common.sh"
fuzz_setup "$@"
out=$b/fuzz-out
rm -rf "$out"
for t in $targets; do
	[ -x "$b/fuzz/$t" ] || { echo "fuzz.sh: $b/fuzz/$t not built" >&2; exit 2; }
done

# run_target T: fuzz T; its summary line goes to $out/T/.line, and if it
# failed, the report (its log's error, its inputs) to $out/T/.report.
run_target() {
	t=$1
	mkdir -p "$out/$t/corpus"
	cp "$top/fuzz/corpus/$t/"* "$out/$t/corpus/" 2>/dev/null || true
	cp "$top/fuzz/crashes/$t/"* "$out/$t/corpus/" 2>/dev/null || true
	nseed=$(ls "$out/$t/corpus" | wc -l)
	rc=0
	ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1} \
	"$b/fuzz/$t" -max_total_time="$secs" -timeout=10 -rss_limit_mb=2048 \
	    -max_len=65536 -print_final_stats=1 \
	    -artifact_prefix="$out/$t/" "$out/$t/corpus" \
	    >"$out/$t/log" 2>&1 || rc=$?
	execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$out/$t/log" | tail -n 1)
	crashes=$(find "$out/$t" -maxdepth 1 -type f \( -name 'crash-*' -o \
	    -name 'leak-*' -o -name 'timeout-*' -o -name 'oom-*' \) | wc -l)
	ncorp=$(ls "$out/$t/corpus" | wc -l)
	printf '%-14s %9s executions in %ss, corpus %s -> %s, %s crashes\n' \
	    "$t" "${execs:-?}" "$secs" "$nseed" "$ncorp" "$crashes" \
	    >"$out/$t/.line"
	echo "${execs:-0}" >"$out/$t/.execs"
	[ "$rc" -eq 0 ] && [ "$crashes" -eq 0 ] && return 0
	{
		echo "fuzz.sh: $t failed (exit $rc); its log:"
		grep -A30 -m1 -E 'runtime error|ERROR: |deadly signal|Timeout' \
		    "$out/$t/log" || tail -n 40 "$out/$t/log"
		ls "$out/$t/"
		# The inputs themselves, so that a failure seen only in a
		# CI log can be replayed: base64 -d > FILE.
		for f in "$out/$t"/crash-* "$out/$t"/leak-* \
		    "$out/$t"/timeout-* "$out/$t"/oom-*; do
			[ -f "$f" ] || continue
			if [ "$(wc -c < "$f")" -le 16384 ]; then
				echo "fuzz.sh: ${f##*/}, base64:"
				base64 "$f"
			else
				echo "fuzz.sh: ${f##*/}: $(wc -c < "$f") bytes, not shown"
			fi
		done
	} >"$out/$t/.report" 2>&1
}

# FUZZ_JOBS targets at a time (default: one a processor), each on its
# own processor for its FUZZ_SECONDS; the lines come out in order.
jobs=${FUZZ_JOBS:-$(nproc)}
g=0
while [ "$g" -lt "$jobs" ]; do
	(
		k=0
		for t in $targets; do
			[ $((k % jobs)) -eq "$g" ] && run_target "$t"
			k=$((k + 1))
		done
		exit 0
	) &
	g=$((g + 1))
done
wait
fails=0
total=0
for t in $targets; do
	if [ ! -f "$out/$t/.line" ]; then
		echo "fuzz.sh: $t did not run" >&2
		fails=$((fails + 1))
		continue
	fi
	cat "$out/$t/.line"
	total=$((total + $(cat "$out/$t/.execs")))
	if [ -f "$out/$t/.report" ]; then
		fails=$((fails + 1))
		cat "$out/$t/.report" >&2
	fi
done
echo "fuzz.sh: $total executions, $fails target(s) with crashes"
[ "$fails" -eq 0 ]
