#!/bin/sh
# scripts/fuzz-long.sh [BUILDDIR] -- fuzzing that lasts: run every
# libFuzzer target for a set time, keep what it found.
#
# BUILDDIR (default _build-fuzz, made as scripts/fuzz.sh makes it) holds
# the targets (every fuzz/fuzz_* program built there; FUZZ_TARGETS="a b"
# picks some).  Each runs FUZZ_LONG_SECONDS seconds (default 300) from
# its committed seeds, fuzz/corpus/TARGET/ and fuzz/crashes/TARGET/,
# writing new inputs to BUILDDIR/fuzz-long/TARGET/new/.  Then:
#  - new inputs are merged into the committed corpus, minimised: libFuzzer
#    -merge=1 adds to fuzz/corpus/TARGET/ only those inputs that cover an
#    edge its files do not (-use_counters=0: hit counts do not count, which
#    keeps the corpus about a fifth of the size; the committed seeds stay
#    as they are);
#  - every crash, leak, timeout and out-of-memory input is kept as a
#    regression seed in fuzz/crashes/TARGET/ (make check replays it:
#    tests/fuzz-replay.sh) and the target is restarted for the time left
#    (at most FUZZ_LONG_RESTARTS times, default 20), from the corpus and
#    what it found; the crash seeds are seeds of the first run only (one
#    that still fails stops the target: fix it first).
# Prints per target: executions, coverage (libFuzzer's cov: at the start
# and at the end), corpus files before and after the merge, and finds;
# the logs stay in BUILDDIR/fuzz-long/TARGET/.  Exits 1 if anything was
# found (commit the seeds, then fix the bugs), else 0.  Review and commit
# fuzz/corpus and fuzz/crashes afterwards; keep the corpus small (the
# sizes are printed).  One target at a time, niced: the cores are
# shared.
set -eu
cd "$(dirname "$0")/.."
top=$(pwd)
secs=${FUZZ_LONG_SECONDS:-300}
restarts=${FUZZ_LONG_RESTARTS:-20}
maxlen=${FUZZ_MAX_LEN:-65536}
. "$top/scripts/fuzz-common.sh"
fuzz_setup "$@"
now() { date +%s; }
files() { find "$1" -maxdepth 1 -type f ! -name README 2>/dev/null | wc -l; }
kb() { du -sk --apparent-size "$1" 2>/dev/null | cut -f1; }
found=0
printf '%-14s %11s %6s %6s %7s %7s %5s\n' target executions cov0 cov1 \
    corpus0 corpus1 finds
for t in $targets; do
	exe=$b/fuzz/$t
	[ -x "$exe" ] || { echo "fuzz-long.sh: $exe not built" >&2; exit 2; }
	[ -d "$top/fuzz/corpus/$t" ] ||
	    { echo "fuzz-long.sh: no seed corpus fuzz/corpus/$t" >&2; exit 2; }
	w=$b/fuzz-long/$t
	rm -rf "$w"
	mkdir -p "$w/new" "$w/art" "$top/fuzz/crashes/$t"
	c0=$(files "$top/fuzz/corpus/$t")
	end=$(( $(now) + secs ))
	execs=0 finds=0 run=0 cov0= cov1=
	while :; do
		left=$(( end - $(now) ))
		[ "$left" -gt 0 ] && [ "$run" -le "$restarts" ] || break
		log=$w/log.$run
		rc=0
		ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1} nice -n 10 \
		"$exe" -max_total_time="$left" -timeout=10 -rss_limit_mb=2048 \
		    -max_len="$maxlen" -print_final_stats=1 \
		    -artifact_prefix="$w/art/" "$w/new" "$top/fuzz/corpus/$t" \
		    $([ "$run" -gt 0 ] || echo "$top/fuzz/crashes/$t") \
		    >"$log" 2>&1 || rc=$?
		[ -n "$cov0" ] || cov0=$(sed -n 's/.*INITED cov: \([0-9]*\).*/\1/p' "$log" | head -n 1)
		c=$(sed -n 's/.* cov: \([0-9]*\).*/\1/p' "$log" | tail -n 1)
		[ -z "$c" ] || cov1=$c
		e=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -n 1)
		[ -n "$e" ] || e=$(sed -n 's/^#\([0-9]*\).*/\1/p' "$log" | tail -n 1)
		execs=$((execs + ${e:-0}))
		run=$((run + 1))
		new=0 again=0
		for a in "$w"/art/*; do
			[ -f "$a" ] || continue
			n=${a##*/}
			if [ -e "$top/fuzz/crashes/$t/$n" ]; then
				again=1
			else
				cp "$a" "$top/fuzz/crashes/$t/$n"
				echo "fuzz-long.sh: $t: kept fuzz/crashes/$t/$n (log $log)" >&2
				grep -m1 -A12 -E 'runtime error|ERROR: |deadly signal|Timeout|out-of-memory' \
				    "$log" >&2 || true
				new=$((new + 1))
			fi
			rm -f "$a"
		done
		finds=$((finds + new))
		# Stopped without a find (time is up) or with an old one.
		if [ "$rc" -eq 0 ] || [ "$new" -eq 0 ]; then
			if [ "$again" -ne 0 ]; then
				echo "fuzz-long.sh: $t: a kept crash seed still fails" >&2
				finds=$((finds + 1))
			elif [ "$rc" -ne 0 ]; then
				echo "fuzz-long.sh: $t: exit $rc without an input:" >&2
				tail -n 20 "$log" >&2
				finds=$((finds + 1))
			fi
			break
		fi
	done
	# Merge: only inputs adding coverage join the committed corpus (a
	# crashing input is skipped: libFuzzer's merge survives crashes).
	nice -n 10 "$exe" -merge=1 -use_counters=0 -timeout=10 \
	    -rss_limit_mb=2048 \
	    -max_len="$maxlen" -artifact_prefix="$w/art/" \
	    "$top/fuzz/corpus/$t" "$w/new" >"$w/merge.log" 2>&1 ||
	    echo "fuzz-long.sh: $t: merge failed, see $w/merge.log" >&2
	rm -f "$w"/art/*
	rmdir "$top/fuzz/crashes/$t" 2>/dev/null || true
	found=$((found + finds))
	printf '%-14s %11s %6s %6s %7s %7s %5s\n' "$t" "$execs" "${cov0:-?}" \
	    "${cov1:-?}" "$c0" "$(files "$top/fuzz/corpus/$t")" "$finds"
done
echo "fuzz-long.sh: corpus $(kb "$top/fuzz/corpus") KiB, crash seeds $(find "$top/fuzz/crashes" -type f ! -name README | wc -l); $found new finds"
[ "$found" -eq 0 ]
