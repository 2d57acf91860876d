#!/bin/sh
# bench/perf.sh -- pclndump perf against perf script and perf report on
# the same perf.data, in one run (bench/run.sh's "perf" part).
#
#   top_builddir=BUILD top_srcdir=SRC sh bench/perf.sh
#
# Four profiles, recorded here with `perf record -e cpu-clock -F 4000
# --call-graph dwarf` of programs built here (-O2 -g, no frame
# pointers): tests/perf/prog.cc twice, the second run BENCH_PERF_LONG
# (10) times as long ("short", "long"), the short one with -z as well
# ("shortz": its records compressed), and the SQLite 3 shell (built
# from Debian's source by bench/sqlite.sh; skipped, saying why, where it
# cannot be) running bench/sqlite-work.sql ("sqlite": a real program,
# deeper stacks, far more distinct pcs).  On each it times, BENCH_RUNS
# times (median): pclndump perf (perf script's text; in two threads
# where the data section is 16 MiB or more and not perf record -z's: the
# short, long and SQLite profiles), the same in one walk
# (PCLN_PERF_THREADS=1), pclndump perf --folded, perf script and
# perf report --stdio, all writing to /dev/null, taking turns (a round
# runs each once).  The figures are samples unwound and symbolized per
# second of wall time (from fork to wait4: bench/timecmd.c) and peak
# resident memory; and from the two prog.cc profiles, what one more
# sample costs each tool beyond its fixed start (reading kernel
# symbols, starting perf's or pclndump's machinery), with the ratio of
# those marginal costs.  The floors
# (bench/mapfloor.c: read the file as pclndump does, pread a MiB at a
# time, and nothing else; and map it and touch each page, as pclndump did
# before) are timed too.  Tables are in pclndump's cache (one
# warm-up run fills it) as perf's build-id cache and its debug files
# are in place for perf: both sides warm.  Appends "perf ..." lines to
# BUILD/bench-results/results.txt.
set -eu

B=${top_builddir:-$(pwd)}
S=${top_srcdir:-$(cd "$(dirname "$0")/.." && pwd)}
OUT=$B/bench-results
RUNS=${BENCH_RUNS:-5}
ROUNDS=${BENCH_PERF_ROUNDS:-150}
LONG=${BENCH_PERF_LONG:-10}
R=$OUT/results.txt
mkdir -p "$OUT"
DUMP=$B/tools/pclndump
if [ -x "$B/tools/.libs/pclndump" ] && [ "$(head -c 2 "$DUMP")" = "#!" ]; then
	DUMP=$B/tools/.libs/pclndump
	LD_LIBRARY_PATH=$B/lib/.libs${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
	export LD_LIBRARY_PATH
fi
say() { echo "$*" | tee -a "$R"; }

command -v perf >/dev/null 2>&1 || { echo "perf.sh: no perf" >&2; exit 0; }
# Not under /tmp/perf-*: perf takes such files for JIT maps.
W=$OUT/perfbench
rm -rf "$W"
mkdir -p "$W"
cd "$W"
${CXX:-g++} -O2 -g -fomit-frame-pointer -o prog "$S/tests/perf/prog.cc"
XDG_CACHE_HOME=$W/cache
export XDG_CACHE_HOME

# One run of "CMD..." > /dev/null: "wall_s cpu_s peak_kb"
# (bench/timecmd.c: wall time from fork to wait4, to the microsecond,
# and that run's user + system time and peak resident memory; a shell's
# date and /usr/bin/time around each run would add some 4 ms to both
# sides, a third of pclndump's time on the short profiles).
timed() {
	"$B/bench/pcln-bench-time" 1 "$@"
}

# The commands measured on each profile: NAME|COMMAND (SIZE.data).
commands() {
	cat <<LIST
pclndump_perf|$DUMP perf -i $1.data
pclndump_perf_1thread|$DUMP perf -i $1.data
pclndump_folded|$DUMP perf -i $1.data --folded
perf_script|perf script -i $1.data
perf_report|perf report --stdio -i $1.data
read_floor|$B/bench/pcln-bench-mapfloor $1.data
map_floor|$B/bench/pcln-bench-mapfloor --map $1.data
LIST
}

# measure NAME: the tools on NAME.data, and their stacks' agreement.
# The commands take turns, RUNS rounds of one run each, each round in
# another order (shuffled, the same from run to run), and each one's
# median run (by wall time) is reported: a machine shared with others
# is slower at some times than at others, and a slow minute then counts
# against all of them, not against whichever ran in it; and none always
# runs after the same one (a run of pclndump just after another is
# faster than one after a pause, or after perf report).
measure() {
	size=$1
	# warm-up: the cache (tables, kernel symbols)
	"$DUMP" perf -i "$size.data" --no-demangle >"ours-$size.txt"
	"$DUMP" perf -i "$size.data" >/dev/null
	n=$(grep -c ' cpu-clock: $' "ours-$size.txt")
	eval "n_$size=$n"
	say "perf $size samples $n"
	say "perf $size data_bytes $(stat -c %s "$size.data")"
	rm -f runs-*.txt
	round=0
	while [ "$round" -lt "$RUNS" ]; do
		round=$((round + 1))
		while IFS='|' read -r name cmd; do
			# shellcheck disable=SC2086
			case $name in
			*_1thread) PCLN_PERF_THREADS=1 timed $cmd ;;
			*) timed $cmd ;;
			esac >>"runs-$name.txt"
		done <<LIST
$(commands "$size" | awk -v r="$round" '{ c[NR] = $0 }
    END { srand(r); for (i = NR; i > 1; i--) { j = int(rand() * i) + 1;
        t = c[i]; c[i] = c[j]; c[j] = t }
        for (i = 1; i <= NR; i++) print c[i] }')
LIST
	done
	base= basec=
	while IFS='|' read -r name cmd; do
		r=$(sort -n "runs-$name.txt" | sed -n "$(((RUNS + 1) / 2))p")
		t=$(echo "$r" | cut -d' ' -f1)
		cpu=$(echo "$r" | cut -d' ' -f2)
		kb=$(echo "$r" | cut -d' ' -f3)
		eval "t_${size}_$name=$t"
		say "perf $size ${name}_s $t"
		say "perf $size ${name}_cpu_s $cpu"
		say "perf $size ${name}_samples_per_s $(awk -v n="$n" \
		    -v t="$t" 'BEGIN { printf("%.0f", (t > 0) ? n / t : 0) }')"
		say "perf $size ${name}_peak_kb $kb"
		[ -n "$base" ] || { base=$t; basec=$cpu; }
		case $name in perf_*)
			say "perf $size ${name}_over_pclndump $(awk -v a="$t" \
			    -v b="$base" 'BEGIN { printf("%.1f",
			    (b > 0) ? a / b : 0) }')"
			say "perf $size ${name}_over_pclndump_cpu $(awk \
			    -v a="$cpu" -v b="$basec" 'BEGIN { printf("%.1f",
			    (b > 0) ? a / b : 0) }')"
		esac
	done <<LIST
$(commands "$size")
LIST
	# The stacks agree (the test's comparison, on this profile).
	perf script --no-demangle -i "$size.data" >"perf-$size.txt" \
	    2>/dev/null
	python3 "$S/tests/perf/compare.py" "perf-$size.txt" \
	    "ours-$size.txt" 0 >agree.txt || :
	sed -n "1s/^/perf $size agreement: /p" agree.txt | tee -a "$R"
}

# Two profiles of prog.cc, the second LONG times longer: the whole runs,
# and what a sample costs beyond the fixed start (the difference of the
# two runs over the difference of their samples).
for size in short long; do
	rounds=$ROUNDS
	[ "$size" = long ] && rounds=$((ROUNDS * LONG))
	perf record -q -e cpu-clock -F 4000 --call-graph dwarf \
	    -o "$size.data" ./prog "$rounds" >/dev/null 2>&1
	measure "$size"
done
# The short one again with -z (its records one zstd stream): both tools
# decompress it.
perf record -q -z -e cpu-clock -F 4000 --call-graph dwarf \
    -o shortz.data ./prog "$ROUNDS" >/dev/null 2>&1
measure shortz
# A real program: the SQLite shell.
rc=0
sq=$(sh "$S/bench/sqlite.sh" "$OUT/sqlite" 2>sqlite.err) || rc=$?
if [ "$rc" = 0 ]; then
	perf record -q -e cpu-clock -F 4000 --call-graph dwarf \
	    -o sqlite.data "$sq" :memory: <"$S/bench/sqlite-work.sql" \
	    >/dev/null 2>&1
	measure sqlite
elif [ "$rc" = 77 ]; then
	say "perf sqlite skipped: $(tail -n 1 sqlite.err)"
else
	cat sqlite.err >&2
	exit 1
fi
# Microseconds a sample beyond the fixed start, each tool, and the ratio.
for name in pclndump_perf pclndump_perf_1thread pclndump_folded perf_script \
    perf_report read_floor map_floor; do
	eval "a=\$t_short_$name b=\$t_long_$name"
	say "perf marginal ${name}_us_per_sample $(awk -v a="$a" -v b="$b" \
	    -v n="$n_short" -v m="$n_long" 'BEGIN { printf("%.2f",
	    (m > n) ? 1e6 * (b - a) / (m - n) : 0) }')"
done
eval "a=\$t_short_pclndump_perf b=\$t_long_pclndump_perf"
eval "c=\$t_short_perf_script d=\$t_long_perf_script"
say "perf marginal perf_script_over_pclndump $(awk -v a="$a" -v b="$b" \
    -v c="$c" -v d="$d" 'BEGIN { printf("%.1f",
    (b > a) ? (d - c) / (b - a) : 0) }')"
# (mawk, Debian's awk, takes no line break after a '?'.)
