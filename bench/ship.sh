# bench/ship.sh -- the real program as it ships (issue 15), sourced by
# bench/run.sh for the part "ship" (it uses run.sh's OUT, REAL, PCLNLD,
# DUMP, RUNS, say, median_time and median_time_short).
#
# 1. Conversion time (median of min(RUNS, 3) runs of pclnld --elf) and
#    table size for each route the debug information can take: the -g
#    build itself, compressed (zlib, zstd), stripped (strip -s) with its
#    debug file in a build-id directory or behind a .gnu_debuglink,
#    through a local debuginfod, MiniDebugInfo (symbols only), split
#    DWARF (.dwo files; a .dwp package, unpacked for libdw 0.188).  Split
#    DWARF is another compilation (g++ -gdwarf-4 -gsplit-dwarf, for
#    binutils dwp), cached in OUT/ship/split.
# 2. The first answer for the stripped program + build-id debug file:
#    pclndump addr2line cold (an empty cache: convert, store) and warm
#    (from the cache), against eu-addr2line and llvm-symbolizer given
#    the same two files (--debuginfo-path, --debug-file-directory).
#    The goal: warm under 5 ms.  Also their CPU time (perf stat), which
#    a shared machine's neighbours disturb less.

SHIP=$OUT/ship
SRUNS=$RUNS
[ "$SRUNS" -gt 3 ] && SRUNS=3
mkdir -p "$SHIP"
cp "$REAL" "$SHIP/prog"
cd "$SHIP" || exit 1
sid=$(readelf -n prog | awk '/Build ID/ { print $3 }')
sidpath=$(echo "$sid" | cut -c1-2)/$(echo "$sid" | cut -c3-).debug
objcopy --only-keep-debug prog prog.debug
strip -s prog -o prog.s
rm -rf dbg dl && mkdir -p "dbg/.build-id/$(dirname "$sidpath")" dl empty
cp prog.debug "dbg/.build-id/$sidpath"
objcopy --strip-debug --add-gnu-debuglink=prog.debug prog dl/prog
cp prog.debug dl/
objcopy --compress-debug-sections=zlib prog prog.zlib
objcopy --compress-debug-sections=zstd prog prog.zstd
sh "$S/scripts/minidebuginfo.sh" prog prog.debug prog.mini
say "ship program $(stat -c %s prog) bytes; stripped $(stat -c %s prog.s), debug file $(stat -c %s prog.debug), MiniDebugInfo $(( $(stat -c %s prog.mini) - $(stat -c %s prog.s) ))"

# The split build.
if [ ! -x split/prog ]; then
	echo "run.sh: building $SHIP/split (g++ -O2 -g -gdwarf-4 -gsplit-dwarf, a few minutes)" >&2
	G=/usr/src/googletest
	mkdir -p split
	(cd split && for f in googletest/src/gtest-all.cc \
	    googlemock/src/gmock-all.cc googlemock/test/gmock_all_test.cc; do
		g++ -O2 -g -gdwarf-4 -gsplit-dwarf -pthread \
		    -I$G/googletest/include -I$G/googletest \
		    -I$G/googlemock/include -I$G/googlemock -c "$G/$f" \
		    -o "$(basename "$f" .cc).o" || exit 1
	done && g++ -pthread -o prog gtest-all.o gmock-all.o \
	    gmock_all_test.o && dwp -e prog -o prog.dwp)
fi
rm -rf dwp && mkdir dwp && cp split/prog split/prog.dwp dwp/

# The stripped program through debuginfod on 127.0.0.1.
dport=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
rm -rf srv db.sqlite dcache && mkdir srv && cp prog.debug srv/
debuginfod -d "$SHIP/db.sqlite" -p "$dport" -F -t0 -g0 "$SHIP/srv" \
    >debuginfod.log 2>&1 &
dpid=$!
i=0
until python3 -c "import urllib.request, sys; m = urllib.request.urlopen('http://127.0.0.1:$dport/metrics', timeout=2).read().decode(); sys.exit(0 if 'ready 1' in m and 'scanned_files_total{source=\"file\"} 1' in m else 1)" 2>/dev/null; do
	i=$((i + 1))
	[ $i -lt 150 ] || break
	sleep 0.2
done

# cold DIR CMD...: the median of SRUNS wall-clock times of CMD, each
# after removing DIR (a cache), stdin from one.pc (run.sh's median_time).
cold_clear() { rm -rf "$cold_dir"; }
cold() {
	cold_dir=$1; shift
	in=$SHIP/one.pc
	[ -f "$in" ] || in=/dev/null
	cold_runs=$RUNS; RUNS=$SRUNS; MEDIAN_BEFORE=cold_clear
	median_time "$in" "$@"
	RUNS=$cold_runs; MEDIAN_BEFORE=
}

# route NAME FILE [PCLNLD-ARGS]: median conversion time (libdebuginfod's
# cache emptied each time), size, route.
route() {
	name=$1 file=$2; shift 2
	DEBUGINFOD_CACHE_PATH=$SHIP/dcache
	export DEBUGINFOD_CACHE_PATH
	say "ship $name pclnld_s $(cold "$SHIP/dcache" "$PCLNLD" --elf "$file" \
	    "$@" -o "$SHIP/$name.blob" -v 2>"$SHIP/$name.log")"
	unset DEBUGINFOD_CACHE_PATH
	say "ship $name blob_bytes $(stat -c %s "$SHIP/$name.blob")"
	say "ship $name found $(sed -n 's/^pclnld: [^:]*: build-id [0-9a-f]*; //p' "$SHIP/$name.log" | sed "s|$SHIP/||g" | head -1)"
}
route self prog
route zlib prog.zlib
route zstd prog.zstd
route build-id prog.s --debug-dir "$SHIP/dbg"
route debuglink dl/prog
DEBUGINFOD_URLS=http://127.0.0.1:$dport
export DEBUGINFOD_URLS
route debuginfod prog.s
unset DEBUGINFOD_URLS
route minidebuginfo prog.mini
route dwo split/prog
route dwp dwp/prog
kill "$dpid" 2>/dev/null
wait "$dpid" 2>/dev/null
# The answers of a route carrying everything equal the -g build's.
"$BENCH" pcs "$SHIP/self.blob" 1000 11 >"$SHIP/k.pcs"
for r in zlib zstd build-id debuglink debuginfod dwo dwp; do
	"$DUMP" addr2line -e "$SHIP/self.blob" -f -i <"$SHIP/k.pcs" >"$SHIP/k.self"
	"$DUMP" addr2line -e "$SHIP/$r.blob" -f -i <"$SHIP/k.pcs" >"$SHIP/k.$r"
	say "ship $r differing_answer_lines $(diff "$SHIP/k.self" "$SHIP/k.$r" | grep -c '^<' || true) of $(wc -l <"$SHIP/k.self")"
done

# The first answer: cold (empty cache) and warm, against the peers.
head -1 "$SHIP/k.pcs" >"$SHIP/one.pc"
say "ship first_answer_cold_s pcln $(cold "$SHIP/cache" "$DUMP" addr2line \
    --cache "$SHIP/cache" --debug-dir "$SHIP/dbg" -e "$SHIP/prog.s" -f)"
say "ship cache_entry_bytes $(stat -c %s "$SHIP/cache/$sid.pcln")"
say "ship first_answer_warm_s pcln $(median_time_short "$SHIP/one.pc" \
    "$DUMP" addr2line --cache "$SHIP/cache" --debug-dir "$SHIP/dbg" \
    -e "$SHIP/prog.s" -f)"
say "ship first_answer_s elfutils $(median_time "$SHIP/one.pc" \
    eu-addr2line --debuginfo-path="$SHIP/dbg" -e "$SHIP/prog.s" -f)"
say "ship first_answer_s llvm $(median_time "$SHIP/one.pc" \
    llvm-symbolizer --debug-file-directory="$SHIP/dbg" --obj="$SHIP/prog.s" \
    --no-demangle)"
# CPU time (perf stat's task-clock, median of 3 runs of 20; the pc as an
# argument, since the 20 runs share one standard input), which the
# neighbours of a shared machine disturb less than wall-clock time.
cpu_ms() {
	k=0; : >"$SHIP/cpu"
	while [ $k -lt 3 ]; do
		perf stat -x, -e task-clock -r 20 "$@" "$(cat "$SHIP/one.pc")" \
		    2>&1 >/dev/null | awk -F, '/task-clock/ { print $1 }' \
		    >>"$SHIP/cpu"
		k=$((k + 1))
	done
	sort -g "$SHIP/cpu" | sed -n 2p
}
if command -v perf >/dev/null 2>&1; then
	say "ship first_answer_warm_cpu_ms pcln $(cpu_ms "$DUMP" addr2line \
	    --cache "$SHIP/cache" --debug-dir "$SHIP/dbg" -e "$SHIP/prog.s" -f)"
	say "ship first_answer_blob_cpu_ms pcln $(cpu_ms "$DUMP" addr2line \
	    -e "$SHIP/cache/$sid.pcln" -f)"
	say "ship first_answer_cpu_ms elfutils $(cpu_ms eu-addr2line \
	    --debuginfo-path="$SHIP/dbg" -e "$SHIP/prog.s" -f)"
	say "ship first_answer_cpu_ms llvm $(cpu_ms llvm-symbolizer \
	    --debug-file-directory="$SHIP/dbg" --obj="$SHIP/prog.s" \
	    --no-demangle)"
fi
say "ship load $(cut -d' ' -f1-3 /proc/loadavg)"
# The same answer from all three.
"$DUMP" addr2line --cache "$SHIP/cache" --debug-dir "$SHIP/dbg" \
    -e "$SHIP/prog.s" -f <"$SHIP/one.pc" >"$SHIP/one.pcln"
eu-addr2line --debuginfo-path="$SHIP/dbg" -e "$SHIP/prog.s" -f \
    <"$SHIP/one.pc" >"$SHIP/one.eu"
say "ship first_answer pcln $(tr '\n' ' ' <"$SHIP/one.pcln"); elfutils $(tr '\n' ' ' <"$SHIP/one.eu")"
cd "$B" || exit 1
