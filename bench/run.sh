#!/bin/sh
# bench/run.sh -- pcln's benchmarks (doc/PERFORMANCE.md explains them).
#
# Run by `make bench` in a build directory (never by `make check`):
#   top_builddir=BUILD top_srcdir=SRC sh bench/run.sh
# Results: BUILD/bench-results/results.txt ("name value" lines) and the
# inputs it made (real program, blobs, pcs).  Takes ~15 minutes with
# BENCH_RUNS=3, plus 4 to build the real program the first time.
#
# Environment:
#   BENCH_SIZES (default "10000 100000 1000000") synthetic table sizes;
#   BENCH_NPCS (default 1000000) pcs per in-process measurement, and for
#     pclndump's whole-process run;
#   BENCH_RUNS (default 5) whole-process runs per median;
#   BENCH_PEER_NPCS (default 10000) pcs for binutils addr2line and
#     llvm-symbolizer (binutils takes ~1 ms a pc on gmock_all_test, so 1M
#     pcs would take ~17 minutes a run), and for libdw's function names;
#   BENCH_ELFUTILS_NPCS (default 1000) pcs for eu-addr2line, which takes
#     ~64 ms a pc there;
#   BENCH_PARTS (default "real synth perf import codemap proc ship peers")
#     which parts to run ("perf": bench/perf.sh, pclndump perf against
#     perf script and perf report; "import": the importer's scaling,
#     bench/gen-dwarf.sh; "codemap": the code map, JIT functions,
#     concurrency; "proc": bench/proc.sh, a live process, addr2line
#     --pid and stack --pid against elfutils, BENCH_PROC_NADDR
#     addresses, default 100000; "ship": bench/ship.sh, the real program
#     stripped, split, compressed, found by build-id or debuginfod;
#     needs "real"; "peers": bench/peers.sh, pcln beside libdw,
#     libbacktrace, gimli's addr2line and LLVM's GSYM on googlemock's
#     tests and the SQLite shell);
#   BENCH_IMPORT_SCALE (default 8) how much larger the second input of
#     each import scaling benchmark is than the first;
#   BENCH_CODEMAP_MAX (default 1000000) the most modules in the code map
#     part (pc -> module at 1, 10^3, 10^5 and this many);
#   BENCH_STRIDES (default "0 4 8 16 32 64") checkpoint strides compared
#     on the real program, over BENCH_STRIDE_NPCS (default 200000) pcs.
set -eu

B=${top_builddir:-$(pwd)}
S=${top_srcdir:-$(cd "$(dirname "$0")/.." && pwd)}
OUT=$B/bench-results
SIZES=${BENCH_SIZES:-10000 100000 1000000}
NPCS=${BENCH_NPCS:-1000000}
PNPCS=${BENCH_PEER_NPCS:-10000}
ENPCS=${BENCH_ELFUTILS_NPCS:-1000}
RUNS=${BENCH_RUNS:-5}
PARTS=${BENCH_PARTS:-real synth perf import codemap proc ship peers}
ISCALE=${BENCH_IMPORT_SCALE:-8}
CMAX=${BENCH_CODEMAP_MAX:-1000000}
STRIDES=${BENCH_STRIDES:-0 4 8 16 32 64}
SNPCS=${BENCH_STRIDE_NPCS:-200000}
BENCH=$B/bench/pcln-bench
GEN=$B/bench/pcln-bench-gen
PCLNLD=$B/tools/pclnld
DUMP=$B/tools/pclndump
# Time the program itself, as installed, not libtool's wrapper script
# (a shell script that costs ~10 ms before pclndump starts).
if [ -x "$B/tools/.libs/pclndump" ]; then
	DUMP=$B/tools/.libs/pclndump
	LD_LIBRARY_PATH=$B/lib/.libs${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
	export LD_LIBRARY_PATH
fi
mkdir -p "$OUT"
R=$OUT/results.txt
: > "$R"

say() { echo "$*" | tee -a "$R"; }

# Peers: binutils addr2line, elfutils eu-addr2line, llvm-symbolizer.
need=
command -v addr2line >/dev/null 2>&1 || need="$need binutils"
command -v eu-addr2line >/dev/null 2>&1 || need="$need elfutils"
command -v llvm-symbolizer >/dev/null 2>&1 || need="$need llvm"
command -v valgrind >/dev/null 2>&1 || need="$need valgrind"
command -v g++ >/dev/null 2>&1 || need="$need g++"
[ -d /usr/src/googletest ] || need="$need googletest"
command -v debuginfod >/dev/null 2>&1 || need="$need debuginfod"
command -v xz >/dev/null 2>&1 || need="$need xz-utils"
# bench/peers.sh's and bench/perf.sh's: /usr/bin/time, tclsh (the SQLite
# shell's amalgamation, bench/sqlite.sh), LLVM's
# GsymReader headers, Debian's cargo and gimli's addr2line crate (built
# offline), libbacktrace's source inside gcc-12-source.  Not in
# scripts/setup.sh: make check and CI need none of them.
for p in time tcl llvm-14-dev cargo librust-addr2line+std-object-dev \
    gcc-12-source; do
	dpkg-query -W -f='${Status}\n' "$p" 2>/dev/null |
	    grep -q 'ok installed' || need="$need $p"
done
if [ -n "$need" ]; then
	echo "run.sh: installing$need" >&2
	apt-get update -qq && apt-get install -y -qq $need >/dev/null
fi

# Median of RUNS wall-clock times (s) of a command (stdin from $1).  If
# MEDIAN_BEFORE names a command, it runs before each run, untimed.
median_time() {
	in=$1; shift
	i=0; : > "$OUT/times"
	while [ $i -lt "$RUNS" ]; do
		${MEDIAN_BEFORE:-:}
		t0=$(date +%s.%N)
		"$@" < "$in" > /dev/null
		t1=$(date +%s.%N)
		awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.4f\n", b - a }' \
		    >> "$OUT/times"
		i=$((i + 1))
	done
	sort -g "$OUT/times" | sed -n "$(( (RUNS + 1) / 2 ))p"
}

# Median of RUNS times (s) of one run of a command, each time the mean of
# 20 back-to-back runs (stdin from $1): for commands that take about as
# long as starting `date`.
median_time_short() {
	in=$1; shift
	i=0; : > "$OUT/times"
	while [ $i -lt "$RUNS" ]; do
		t0=$(date +%s.%N)
		j=0
		while [ $j -lt 20 ]; do
			"$@" < "$in" > /dev/null
			j=$((j + 1))
		done
		t1=$(date +%s.%N)
		awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.5f\n", (b - a) / 20 }' \
		    >> "$OUT/times"
		i=$((i + 1))
	done
	sort -g "$OUT/times" | sed -n "$(( (RUNS + 1) / 2 ))p"
}

# Instructions per call of pcln-bench loop KIND on BLOB (callgrind,
# difference of 100000 and 200000 lookups); a third argument loop-stacks
# runs over the stack-shaped pcs (for the cache: mostly hits).
ir_per() {
	a=$(valgrind --tool=callgrind --callgrind-out-file=/dev/null \
	    "$BENCH" "${3:-loop}" "$1" "$2" 100000 2>&1 | sed -n 's/.*Collected : //p')
	b=$(valgrind --tool=callgrind --callgrind-out-file=/dev/null \
	    "$BENCH" "${3:-loop}" "$1" "$2" 200000 2>&1 | sed -n 's/.*Collected : //p')
	awk -v a="$a" -v b="$b" 'BEGIN { printf "%d\n", (b - a) / 100000 }'
}

lookups() {	# NAME BLOB
	"$BENCH" lookups "$2" "$NPCS" | sed "s/^/$1 /" | tee -a "$R"
	for k in bsearch index funcline pcsp pcdata lib-index frame \
	    frame-cached; do
		say "$1 ${k}_ir $(ir_per "$2" "$k")"
	done
	say "$1 frame_stacks_ir $(ir_per "$2" frame loop-stacks)"
	say "$1 frame-cached_stacks_ir $(ir_per "$2" frame-cached loop-stacks)"
}

say "machine $(grep -m1 'model name' /proc/cpuinfo | sed 's/.*: //'), $(nproc) cores, $(free -g | awk '/Mem:/ {print $2}') GiB"
say "kernel $(uname -r); cc $(${CC:-cc} --version | head -1)"
say "load $(cut -d' ' -f1-3 /proc/loadavg)"

# --- the real program: googletest+googlemock's gmock_all_test, -O2 -g ---
# (parts real, ship and peers)
G=/usr/src/googletest
REAL=$OUT/gmock_all_test
case " $PARTS " in *" real "*|*" peers "*) build=yes ;; *) build=no ;; esac
if [ "$build" = yes ] && [ ! -x "$REAL" ]; then
	echo "run.sh: building $REAL (g++ -O2 -g, a few minutes)" >&2
	g++ -O2 -g -pthread -I$G/googletest/include -I$G/googletest \
	    -I$G/googlemock/include -I$G/googlemock \
	    $G/googletest/src/gtest-all.cc $G/googlemock/src/gmock-all.cc \
	    $G/googlemock/test/gmock_all_test.cc -o "$REAL"
fi
case " $PARTS " in *" real "*) ;; *) REALPART=no ;; esac
if [ "${REALPART:-yes}" = yes ]; then
say "real_program gmock_all_test $(stat -c %s "$REAL") bytes"
/usr/bin/time -f "%e %M" -o "$OUT/ld.time" "$PCLNLD" -o "$OUT/real.blob" \
    --elf "$REAL"
say "real pclnld_s $(cut -d' ' -f1 "$OUT/ld.time")"
say "real pclnld_peak_kb $(cut -d' ' -f2 "$OUT/ld.time")"
for sec in .debug_line .eh_frame .eh_frame_hdr .debug_info .text; do
	sz=$(readelf -SW "$REAL" | sed -n 's/^ *\[ *[0-9]*\] //p' |
	    awk -v s="$sec" '$1 == s { print $5 }')
	say "real section$sec $(printf %d "0x${sz:-0}")"
done
say "real blob_file_bytes $(stat -c %s "$OUT/real.blob")"
lookups real "$OUT/real.blob"

# Without inline information (what .debug_line + .eh_frame describe).
"$PCLNLD" -o "$OUT/real-noinl.blob" --elf "$REAL" --no-inline
say "real blob_noinline_bytes $(stat -c %s "$OUT/real-noinl.blob")"
rm -f "$OUT/real-noinl.blob"

# The checkpoint stride K (default 16; 0: none): size, time and
# instructions of funcline + name for each.
for k in $STRIDES; do
	"$PCLNLD" -v -o "$OUT/real-k.blob" --elf "$REAL" --checkpoints "$k" \
	    2> "$OUT/k.log"
	say "real k$k blob_bytes $(stat -c %s "$OUT/real-k.blob")"
	say "real k$k ckpt_bytes $(sed -n 's/.*PCCKPT \([0-9]*\) bytes (\([0-9]*\) checkpoints.*/\1 \2/p' "$OUT/k.log")"
	"$BENCH" lookups "$OUT/real-k.blob" "$SNPCS" 1 funcline,frame |
	    sed -n "s/^\(funcline\|frame\)_/real k$k &/p" | tee -a "$R"
	say "real k$k funcline_ir $(ir_per "$OUT/real-k.blob" funcline)"
done
rm -f "$OUT/real-k.blob" "$OUT/k.log"

# Whole process: NPCS random pcs, pclndump addr2line vs the peers.
"$BENCH" pcs "$OUT/real.blob" "$NPCS" 7 > "$OUT/real.pcs"

# In process, the peer: libdw on the ELF itself (built only with libdw).
# Its function name (dwfl_module_addrinfo) scans the symbol table, ~0.4 ms
# a pc here, so funcline and name get PNPCS pcs; line and cfa get NPCS.
LIBDW=$B/bench/pcln-bench-libdw
ir_libdw() {	# KIND N: instructions per lookup, difference of N and 2N
	a=$(valgrind --tool=callgrind --callgrind-out-file=/dev/null "$LIBDW" \
	    -loop "$REAL" "$OUT/real.pcs" "$1" "$2" 2>&1 | sed -n 's/.*Collected : //p')
	b=$(valgrind --tool=callgrind --callgrind-out-file=/dev/null "$LIBDW" \
	    -loop "$REAL" "$OUT/real.pcs" "$1" $(($2 * 2)) 2>&1 | sed -n 's/.*Collected : //p')
	awk -v a="$a" -v b="$b" -v n="$2" 'BEGIN { printf "%d\n", (b - a) / n }'
}
if [ -x "$LIBDW" ]; then
	"$LIBDW" "$REAL" "$OUT/real.pcs" "$NPCS" first line cfa |
	    sed 's/^/real /' | tee -a "$R"
	"$LIBDW" "$REAL" "$OUT/real.pcs" "$PNPCS" funcline name |
	    sed 's/^/real /' | tee -a "$R"
	say "real libdw_line_ir $(ir_libdw line 100000)"
	say "real libdw_cfa_ir $(ir_libdw cfa 100000)"
	say "real libdw_funcline_ir $(ir_libdw funcline 200)"
fi
head -1 "$OUT/real.pcs" > "$OUT/one.pc"
head -"$PNPCS" "$OUT/real.pcs" > "$OUT/peer.pcs"
head -"$ENPCS" "$OUT/real.pcs" > "$OUT/elfutils.pcs"
for t in pcln binutils elfutils llvm; do
	case $t in
	pcln)     set -- "$DUMP" addr2line -e "$OUT/real.blob" -f ;;
	binutils) set -- addr2line -e "$REAL" -f ;;
	elfutils) set -- eu-addr2line -e "$REAL" -f ;;
	llvm)     set -- llvm-symbolizer --obj="$REAL" --no-inlines --no-demangle ;;
	esac
	if [ $t = pcln ]; then
		say "real a2l_first_s $t $(median_time_short "$OUT/one.pc" "$@")"
	else
		say "real a2l_first_s $t $(median_time "$OUT/one.pc" "$@")"
	fi
	if [ $t = elfutils ]; then
		say "real a2l_${ENPCS}_s $t $(median_time "$OUT/elfutils.pcs" "$@")"
	else
		say "real a2l_${PNPCS}_s $t $(median_time "$OUT/peer.pcs" "$@")"
	fi
	if [ $t = pcln ]; then
		say "real a2l_${NPCS}_s $t $(median_time "$OUT/real.pcs" "$@")"
	fi
done
# Agreement on the first 1000 pcs (function names and file:line).
head -1000 "$OUT/real.pcs" > "$OUT/k.pcs"
"$DUMP" addr2line -e "$OUT/real.blob" -f < "$OUT/k.pcs" > "$OUT/k.pcln"
addr2line -e "$REAL" -f < "$OUT/k.pcs" > "$OUT/k.binutils"
say "real a2l_differing_lines $(diff "$OUT/k.pcln" "$OUT/k.binutils" | grep -c '^<' || true) of $(wc -l < "$OUT/k.pcln")"

fi

# --- the real program as it ships: bench/ship.sh ---
case " $PARTS " in
*" ship "*) if [ "${REALPART:-yes}" = yes ]; then . "$S/bench/ship.sh"; fi ;;
esac

# pclndump's commands that read few functions, for one pc of BLOB: time
# (median) and peak memory of lookup PC, func 0xPC, func NAME and line
# FILE:LINE of that pc, checking only what they read (the default)
# against verifying the whole blob first (--verify, what they all did
# before).  dump_lazy NAME BLOB PC
dump_lazy() {
	loc=$("$DUMP" lookup "$2" "$3")
	fn=$(echo "$loc" | awk '{ sub(/\+.*/, "", $2); print $2 }')
	fl=$(echo "$loc" | awk '{ print $3 }')
	for q in "lookup:$3" "func_addr:$3" "func_name:$fn" "line:$fl"; do
		k=${q%%:*}
		c=${k%_*}
		for mode in lazy verify; do
			v=
			[ $mode = verify ] && v=--verify
			if [ $mode = lazy ] && [ "$k" != line ]; then
				t=$(median_time_short /dev/null "$DUMP" $v "$c" "$2" "${q#*:}")
			else
				t=$(median_time /dev/null "$DUMP" $v "$c" "$2" "${q#*:}")
			fi
			/usr/bin/time -f %M -o "$OUT/rss" "$DUMP" $v "$c" "$2" \
			    "${q#*:}" >/dev/null
			say "$1 dump_${k}_s $mode $t"
			say "$1 dump_${k}_peak_kb $mode $(cat "$OUT/rss")"
		done
	done
}

# The link of description DESC into BLOB: medians of min(RUNS, 3) runs
# of elapsed, CPU (user + sys), user, sys seconds and peak RSS (KiB), as
# "s N pclnld_..." lines; and, up to 100 k functions, the instructions
# callgrind counts (the figure the machine's load does not move).
# link_time NAME DESC BLOB
link_time() {
	# The program itself, not libtool's wrapper (as DUMP).
	ld=$PCLNLD
	[ -x "$B/tools/.libs/pclnld" ] && ld=$B/tools/.libs/pclnld
	lr=$RUNS
	[ "$lr" -gt 3 ] && lr=3
	i=0; : > "$OUT/ld.times"
	while [ $i -lt "$lr" ]; do
		/usr/bin/time -f "%e %U %S %M" -o "$OUT/ld.time" "$ld" \
		    -o "$3" "$2"
		awk '{ printf "%s %.2f %s %s %s\n", $1, $2 + $3, $2, $3, $4 }' \
		    "$OUT/ld.time" >> "$OUT/ld.times"
		i=$((i + 1))
	done
	k=1
	for m in s cpu_s user_s sys_s peak_kb; do
		say "$1 pclnld_$m $(awk -v k=$k '{ print $k }' "$OUT/ld.times" |
		    sort -g | sed -n "$(( (lr + 1) / 2 ))p")"
		k=$((k + 1))
	done
	say "$1 pclnld_peak_mib $(awk '{ print $5 }' "$OUT/ld.times" |
	    sort -g | sed -n "$(( (lr + 1) / 2 ))p" |
	    awk '{ printf "%.0f\n", $1 / 1024 }')"
	if [ "$(grep -c '^func ' "$2")" -le 100000 ] &&
	    command -v valgrind >/dev/null 2>&1; then
		valgrind --tool=callgrind --callgrind-out-file="$OUT/ld.cg" \
		    "$ld" -o "$3" "$2" 2> "$OUT/ld.cglog" >/dev/null
		say "$1 pclnld_instr $(sed -n 's/.*Collected : *//p' \
		    "$OUT/ld.cglog")"
		rm -f "$OUT/ld.cg"
	fi
}

# --- synthetic tables ---
case " $PARTS " in *" synth "*) ;; *) SIZES= ;; esac
for n in $SIZES; do
	"$GEN" "$n" > "$OUT/s$n.pcln"
	say "s$n desc_bytes $(stat -c %s "$OUT/s$n.pcln")"
	link_time "s$n" "$OUT/s$n.pcln" "$OUT/s$n.blob"
	rm -f "$OUT/s$n.pcln"
	lookups "s$n" "$OUT/s$n.blob"
	"$BENCH" pcs "$OUT/s$n.blob" 1 3 > "$OUT/one.pc"
	say "s$n a2l_first_s $(median_time_short "$OUT/one.pc" "$DUMP" addr2line -e "$OUT/s$n.blob" -f)"
	dump_lazy "s$n" "$OUT/s$n.blob" "$(cat "$OUT/one.pc")"
done
case " $PARTS " in *" perf "*)
	top_builddir=$B top_srcdir=$S BENCH_RUNS=$RUNS sh "$S/bench/perf.sh" ;;
esac

# --- the importer's scaling (bench/gen-dwarf.sh) ---
# Two inputs, the second ISCALE times the first; the ratio of the times
# says linear (~ISCALE) or quadratic (~ISCALE^2).  ranges: one unit with a
# range per function (-ffunction-sections), 16 k and 128 k functions;
# inline: one function with E inlined calls each covering it, 512 KiB
# with 2 k calls and 4 MiB with 16 k.  Before (main of 2026-11-30): ranges
# 0.21 s -> 7.91 s (x38), inline 0.46 s -> 24.9 s (x54); doc/IMPORT.md.
import_scale() {	# NAME GEN-ARGS-SMALL GEN-ARGS-LARGE
	name=$1
	for size in small large; do
		if [ $size = small ]; then args=$2; else args=$3; fi
		# shellcheck disable=SC2086
		sh "$S/bench/gen-dwarf.sh" $args > "$OUT/imp.s"
		gcc -nostdlib -static -Wl,-e,f0 "$OUT/imp.s" -o "$OUT/imp-$size"
		: > "$OUT/times"
		i=0
		while [ $i -lt "$RUNS" ]; do
			/usr/bin/time -f "%e" -o "$OUT/ld.time" "$PCLNLD" --elf \
			    "$OUT/imp-$size" -o "$OUT/imp.blob" 2>/dev/null
			cat "$OUT/ld.time" >> "$OUT/times"
			i=$((i + 1))
		done
		eval "t_$size=\$(sort -g \"\$OUT/times\" | sed -n \"\$(( (RUNS + 1) / 2 ))p\")"
	done
	# shellcheck disable=SC2154
	say "import_${name}_s $t_small $t_large ratio $(awk -v a="$t_small" \
	    -v b="$t_large" 'BEGIN { printf "%.1f", (a > 0 ? b / a : 0) }') (inputs x$ISCALE)"
	rm -f "$OUT/imp.s" "$OUT/imp-small" "$OUT/imp-large" "$OUT/imp.blob"
}
case " $PARTS " in *" import "*)
	import_scale ranges "ranges 16000" "ranges $((16000 * ISCALE))"
	import_scale inline "inline 524288 2048" \
	    "inline $((524288 * ISCALE)) $((2048 * ISCALE))"
	;;
esac

# --- the code map (pc -> module, JIT functions, concurrency) ---
case " $PARTS " in *" codemap "*)
	CM=$B/bench/pcln-bench-codemap
	"$CM" "$CMAX" | sed 's/^/codemap /' | tee -a "$R"
	# Instructions per lookup (callgrind, lookup_loop only): the same
	# at every size once two modules share the root.
	for n in 1 1000 100000 $CMAX; do
		ir=$(valgrind --tool=callgrind --callgrind-out-file=/dev/null \
		    --toggle-collect=lookup_loop "$CM" ir "$n" 100000 2>&1 |
		    sed -n 's/.*Collected : //p')
		say "codemap codemap_ir_$n $(awk -v a="$ir" 'BEGIN { printf "%.1f", a / 100000 }')"
	done
	# JIT functions: instructions to describe one (10^5 of them), and
	# per lookup at 10^6 (findfunc; + pcsp; + funcline).
	cg() {	# FUNCTION ARGS...: instructions of FUNCTION
		f=$1; shift
		valgrind --tool=callgrind --callgrind-out-file=/dev/null \
		    --toggle-collect="$f" "$CM" "$@" 2>&1 |
		    sed -n 's/.*Collected : //p'
	}
	say "codemap jit_encode_ir $(awk -v a="$(cg jit_encode_all irjit 100000 1 0)" 'BEGIN { printf "%.1f", a / 100000 }')"
	for w in 0 1 2; do
		ir=$(cg jit_loop irjit "$CMAX" 100000 $w)
		say "codemap jit_lookup${w}_ir $(awk -v a="$ir" 'BEGIN { printf "%.1f", a / 100000 }')"
	done
	;;
esac

# --- a whole live process: bench/proc.sh ---
case " $PARTS " in *" proc "*) . "$S/bench/proc.sh" ;; esac
case " $PARTS " in *" peers "*)
	top_builddir=$B top_srcdir=$S sh "$S/bench/peers.sh" ;;
esac
echo "run.sh: results in $R" >&2
