#!/bin/sh
# bench/perf.sh -- pclndump perf against perf script and perf report on
# the same perf.data, in one run (bench/run.sh's "perf" part).
#
#   top_builddir=BUILD top_srcdir=SRC sh bench/perf.sh
#
# Records tests/perf/prog.cc (built here: g++ -O2 -g, no frame pointers)
# with `perf record -e cpu-clock -F 4000 --call-graph dwarf`, then times,
# BENCH_RUNS times each (median): pclndump perf (perf script's text),
# pclndump perf --folded, perf script and perf report --stdio, all
# writing to /dev/null.  The figure is samples unwound and symbolized per
# second of wall time, and peak resident memory (GNU time's %M).  Tables
# are in pclndump's cache (one warm-up run fills it) as perf's build-id
# cache and its debug files are in place for perf: both sides warm.
# Appends "perf ..." lines to BUILD/bench-results/results.txt.
set -eu

B=${top_builddir:-$(pwd)}
S=${top_srcdir:-$(cd "$(dirname "$0")/.." && pwd)}
OUT=$B/bench-results
RUNS=${BENCH_RUNS:-5}
ROUNDS=${BENCH_PERF_ROUNDS:-150}
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
perf record -q -e cpu-clock -F 4000 --call-graph dwarf -o prog.data \
    ./prog "$ROUNDS" >/dev/null 2>&1
XDG_CACHE_HOME=$W/cache
export XDG_CACHE_HOME
"$DUMP" perf -i prog.data --no-demangle >ours.txt	# warm-up: the cache
perf script --no-demangle -i prog.data >perf.txt 2>/dev/null
n=$(grep -c ' cpu-clock: $' ours.txt)
say "perf samples $n"
say "perf data_bytes $(stat -c %s prog.data)"

# median of RUNS runs of "CMD..." > /dev/null: "wall_s cpu_s peak_kb"
# (cpu = user + system: on a shared machine the wall time also holds
# the waits for a core).
timed() {
	i=0
	: >times
	while [ "$i" -lt "$RUNS" ]; do
		/usr/bin/time -f "%e %U %S %M" -o one.time "$@" >/dev/null \
		    2>&1
		awk '{ print $1, $2 + $3, $4 }' one.time >>times
		i=$((i + 1))
	done
	sort -n times | awk '{ t[NR] = $1; c[NR] = $2; m[NR] = $3 }
	    END { k = int((NR + 1) / 2); print t[k], c[k], m[k] }'
}

base= basec=
while IFS='|' read -r name cmd; do
	# shellcheck disable=SC2086
	r=$(timed $cmd)
	t=$(echo "$r" | cut -d' ' -f1)
	cpu=$(echo "$r" | cut -d' ' -f2)
	kb=$(echo "$r" | cut -d' ' -f3)
	say "perf ${name}_s $t"
	say "perf ${name}_cpu_s $cpu"
	say "perf ${name}_samples_per_s $(awk -v n="$n" -v t="$t" \
	    'BEGIN { printf("%.0f", (t > 0) ? n / t : 0) }')"
	say "perf ${name}_samples_per_cpu_s $(awk -v n="$n" -v t="$cpu" \
	    'BEGIN { printf("%.0f", (t > 0) ? n / t : 0) }')"
	say "perf ${name}_peak_kb $kb"
	[ -n "$base" ] || { base=$t; basec=$cpu; }
	case $name in perf_*)
		say "perf ${name}_over_pclndump $(awk -v a="$t" -v b="$base" \
		    'BEGIN { printf("%.1f", (b > 0) ? a / b : 0) }')"
		say "perf ${name}_over_pclndump_cpu $(awk -v a="$cpu" \
		    -v b="$basec" 'BEGIN { printf("%.1f", (b > 0) ? a / b : 0) }')"
	esac
done <<LIST
pclndump_perf|$DUMP perf -i prog.data
pclndump_folded|$DUMP perf -i prog.data --folded
perf_script|perf script -i prog.data
perf_report|perf report --stdio -i prog.data
LIST
# The stacks agree (the test's comparison, on this profile).
python3 "$S/tests/perf/compare.py" perf.txt ours.txt 0 >agree.txt || :
sed -n '1s/^/perf agreement: /p' agree.txt | tee -a "$R"
