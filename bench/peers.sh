#!/bin/sh
# bench/peers.sh -- pcln beside the symbolizers a program would otherwise
# embed, in one run, on the same programs and the same pcs (bench/run.sh's
# "peers" part; doc/PERFORMANCE.md explains the figures):
#
#   top_builddir=BUILD top_srcdir=SRC sh bench/peers.sh
#
# Peers, each answering in process:
#   libdw         elfutils' libdwfl (bench/pcln-bench-libdw, built by make)
#   libbacktrace  GCC's libbacktrace, built here from the source in
#                 Debian's gcc-12-source package (never committed)
#   addr2line     gimli's Rust addr2line crate, built here offline with
#                 Debian's cargo and the crates of librust-addr2line-dev
#   gsym          LLVM's GSYM: llvm-gsymutil --convert makes the .gsym,
#                 llvm::gsym::GsymReader (Debian's llvm-dev) answers
# Programs: googletest + googlemock's gmock_all_test (g++ -O2 -g, as
# run.sh builds it) and the SQLite shell (gcc -O2 -g of shell.c and the
# sqlite3.c amalgamation, made from Debian's sqlite3 source package,
# fetched with apt-get source into a private apt state in BUILD).
#
# For each program: the table's build (time, peak memory, size) for pcln
# (pclnld --elf) and GSYM (llvm-gsymutil); then, per tool and kind, ns per
# lookup over BENCH_PEERS_NPCS random pcs (and sorted), instructions per
# lookup (callgrind: the difference of two runs), set-up and first answer,
# and peak memory of a process answering the pcs.  Kinds:
#   funcline  function name + file:line (pcln: findfunc + funcline)
#   inline    every frame of the inline chain with its name and file:line
#             (pcln: + pclnrt_inline; libbacktrace backtrace_pcinfo;
#             addr2line find_frames; GSYM lookup)
#   line      file:line alone (libdw dwfl_module_getsrc; addr2line
#             find_location)
#   cfa       the frame's CFA rule (pcln: pcsp; libdw dwarf_cfi_addrframe)
# Appends "peers ..." lines to BUILD/bench-results/results.txt, the
# ratios last.
#
# Environment: BENCH_PEERS_PROGRAMS (default "gmock sqlite"),
# BENCH_PEERS_NPCS (default 1000000; GSYM gets a 50th of them, at ~0.1 ms
# a lookup), BENCH_PEERS_IR_N (default 65536: lookups per callgrind run,
# at least once over every pc, so lazy peers have parsed what they need).
set -eu

B=${top_builddir:-$(pwd)}
S=${top_srcdir:-$(cd "$(dirname "$0")/.." && pwd)}
OUT=$B/bench-results
P=$OUT/peers
PROGRAMS=${BENCH_PEERS_PROGRAMS:-gmock sqlite}
NPCS=${BENCH_PEERS_NPCS:-1000000}
IRN=${BENCH_PEERS_IR_N:-65536}
R=$OUT/results.txt
BENCH=$B/bench/pcln-bench
LIBDW=$B/bench/pcln-bench-libdw
PCLNLD=$B/tools/pclnld
DUMP=$B/tools/pclndump
if [ -x "$B/tools/.libs/pclndump" ]; then	# the program, not libtool's script
	DUMP=$B/tools/.libs/pclndump
	LD_LIBRARY_PATH=$B/lib/.libs${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
	export LD_LIBRARY_PATH
fi
mkdir -p "$P"
say() { echo "$*" | tee -a "$R"; }

need=
command -v valgrind >/dev/null 2>&1 || need="$need valgrind"
command -v llvm-gsymutil-14 >/dev/null 2>&1 || need="$need llvm"
[ -f /usr/lib/llvm-14/include/llvm/DebugInfo/GSYM/GsymReader.h ] ||
	need="$need llvm-dev"
[ -x /usr/bin/cargo ] || need="$need cargo"
[ -d /usr/share/cargo/registry ] && ls -d /usr/share/cargo/registry/addr2line-* \
    >/dev/null 2>&1 || need="$need librust-addr2line-dev"
ls /usr/src/gcc-12/gcc-12.*.tar.* >/dev/null 2>&1 || need="$need gcc-12-source"
command -v g++ >/dev/null 2>&1 || need="$need g++"
command -v tclsh >/dev/null 2>&1 || need="$need tcl"
[ -d /usr/src/googletest ] || need="$need googletest"
if [ -n "$need" ]; then
	echo "peers.sh: installing$need" >&2
	apt-get update -qq
	apt-get -o DPkg::Lock::Timeout=900 install -y -qq $need >/dev/null
fi

# --- the peers, built once into bench-results/peers/ ---
if [ ! -f "$P/libbacktrace/.libs/libbacktrace.a" ]; then
	echo "peers.sh: building libbacktrace from gcc-12-source" >&2
	rm -rf "$P/gcc-src" "$P/libbacktrace"
	mkdir -p "$P/gcc-src" "$P/libbacktrace"
	tarball=$(ls /usr/src/gcc-12/gcc-12.*.tar.* | head -1)
	top=$(tar tf "$tarball" | head -1 | cut -d/ -f1)
	tar xf "$tarball" -C "$P/gcc-src" "$top/libbacktrace" "$top/include" \
	    "$top/config.guess" "$top/config.sub" "$top/install-sh" \
	    "$top/ltmain.sh" "$top/missing" "$top/config-ml.in" \
	    "$top/mkinstalldirs"
	(cd "$P/libbacktrace" &&
	    "$P/gcc-src/$top/libbacktrace/configure" CFLAGS="-O2 -g" \
	        >configure.log 2>&1 &&
	    make libbacktrace.la >make.log 2>&1)
	echo "$P/gcc-src/$top/libbacktrace" > "$P/libbacktrace/srcdir"
fi
LBT=$P/pcln-bench-libbacktrace
if [ ! -x "$LBT" ] || [ "$S/bench/peer-libbacktrace.c" -nt "$LBT" ]; then
	${CC:-gcc} -O2 -g -no-pie -I"$P/libbacktrace" \
	    -I"$(cat "$P/libbacktrace/srcdir")" -I"$S/bench" -o "$LBT" \
	    "$S/bench/peer-libbacktrace.c" "$P/libbacktrace/.libs/libbacktrace.a"
fi
A2L=$P/addr2line-target/release/pcln-bench-addr2line
if [ ! -x "$A2L" ] || [ "$S/bench/peer-addr2line/src/main.rs" -nt "$A2L" ]; then
	echo "peers.sh: building the addr2line peer (cargo, offline)" >&2
	mkdir -p "$P/cargo-home"
	cat > "$P/cargo-home/config.toml" <<EOF
[source.crates-io]
replace-with = "debian"
[source.debian]
directory = "/usr/share/cargo/registry"
[net]
offline = true
EOF
	# A copy: cargo writes Cargo.lock beside the manifest, and the
	# source tree may be read-only (make distcheck).
	rm -rf "$P/addr2line-src"
	cp -R "$S/bench/peer-addr2line" "$P/addr2line-src"
	chmod -R u+w "$P/addr2line-src"
	CARGO_HOME=$P/cargo-home RUSTC=/usr/bin/rustc /usr/bin/cargo build -q \
	    --release --manifest-path "$P/addr2line-src/Cargo.toml" \
	    --target-dir "$P/addr2line-target"
fi
GSYM=$P/pcln-bench-gsym
if [ ! -x "$GSYM" ] || [ "$S/bench/peer-gsym.cc" -nt "$GSYM" ]; then
	${CXX:-g++} -O2 -g -std=c++17 \
	    -I"$(llvm-config-14 --includedir)" -I"$S/bench" -o "$GSYM" \
	    "$S/bench/peer-gsym.cc" -L"$(llvm-config-14 --libdir)" -lLLVM-14 \
	    -Wl,-rpath,"$(llvm-config-14 --libdir)" || GSYM=
fi

# --- the programs ---
prog_gmock() {
	G=/usr/src/googletest
	if [ ! -x "$OUT/gmock_all_test" ]; then
		echo "peers.sh: building gmock_all_test (g++ -O2 -g)" >&2
		g++ -O2 -g -pthread -I$G/googletest/include -I$G/googletest \
		    -I$G/googlemock/include -I$G/googlemock \
		    $G/googletest/src/gtest-all.cc $G/googlemock/src/gmock-all.cc \
		    $G/googlemock/test/gmock_all_test.cc -o "$OUT/gmock_all_test"
	fi
	echo "$OUT/gmock_all_test"
}
prog_sqlite() {
	Q=$P/sqlite
	if [ ! -x "$Q/sqlite3" ]; then
		echo "peers.sh: building the SQLite shell from Debian's source" >&2
		rm -rf "$Q"
		mkdir -p "$Q/apt/lists/partial" "$Q/apt/cache/archives/partial"
		echo "deb-src http://deb.debian.org/debian bookworm main" \
		    > "$Q/apt/sources.list"
		set -- -o Dir::Etc::SourceList="$Q/apt/sources.list" \
		    -o Dir::Etc::SourceParts=/dev/null \
		    -o Dir::State::Lists="$Q/apt/lists" \
		    -o Dir::Cache="$Q/apt/cache"
		apt-get "$@" update -qq >&2
		(cd "$Q" && apt-get "$@" source --download-only -qq sqlite3 >&2)
		tar xf "$(ls "$Q"/sqlite3_*.orig.tar.* | head -1)" -C "$Q"
		src=$(ls -d "$Q"/sqlite3-*/ | head -1)
		mkdir -p "$Q/bld"
		(cd "$Q/bld" && "$src/configure" --disable-tcl >configure.log 2>&1 &&
		    make sqlite3.c shell.c >make.log 2>&1 &&
		    ${CC:-gcc} -O2 -g -o "$Q/sqlite3" shell.c sqlite3.c -lm)
	fi
	echo "$Q/sqlite3"
}

# Peak resident KB and wall s of a command: "S KB".
timed() {
	/usr/bin/time -f "%e %M" -o "$P/time" "$@" > /dev/null
	cat "$P/time"
}

# Instructions per lookup: callgrind, N and 2N lookups of KIND.
ir() {	# PROGRAM-ARGS... (the lookup count last is appended)
	a=$(valgrind --tool=callgrind --callgrind-out-file=/dev/null "$@" \
	    "$IRN" 2>&1 | sed -n 's/.*Collected : //p')
	b=$(valgrind --tool=callgrind --callgrind-out-file=/dev/null "$@" \
	    $((IRN * 2)) 2>&1 | sed -n 's/.*Collected : //p')
	awk -v a="$a" -v b="$b" -v n="$IRN" 'BEGIN { printf "%d\n", (b - a) / n }'
}

say "peers load $(cut -d' ' -f1-3 /proc/loadavg)"
for prog in $PROGRAMS; do
	elf=$(prog_$prog)
	say "peers $prog elf_bytes $(stat -c %s "$elf")"
	for sec in .text .debug_info .debug_line .debug_str .debug_ranges \
	    .debug_rnglists .debug_abbrev .eh_frame; do
		sz=$(readelf -SW "$elf" | sed -n 's/^ *\[ *[0-9]*\] //p' |
		    awk -v s="$sec" '$1 == s { print $5 }')
		[ -n "$sz" ] && say "peers $prog section$sec $(printf %d "0x$sz")"
	done
	# The tables: build time, peak memory, size.
	blob=$P/$prog.blob
	g=$P/$prog.gsym
	say "peers $prog pcln_build_s_kb $(timed "$PCLNLD" -o "$blob" --elf "$elf")"
	say "peers $prog pcln_bytes $(stat -c %s "$blob")"
	"$PCLNLD" -v -o "$blob" --elf "$elf" 2>&1 |
	    sed -n 's/^pclnld: *\(names\|functab\|funcs\|pcsp\|pcfile\|pcln\|pcdata\|trailer\) *\([0-9]*\) bytes$/\1 \2/p' |
	    while read -r part n; do say "peers $prog pcln_part_$part $n"; done
	say "peers $prog gsym_build_s_kb $(timed llvm-gsymutil-14 --convert "$elf" --out-file="$g")"
	say "peers $prog gsym_bytes $(stat -c %s "$g")"
	pcs=$P/$prog.pcs
	"$BENCH" pcs "$blob" "$NPCS" 7 > "$pcs"
	gn=$((NPCS / 50))
	head -"$gn" "$pcs" > "$P/$prog.gsym.pcs"
	# Per lookup, in process.
	"$BENCH" lookups "$blob" "$NPCS" 7 funcline,inline,pcsp,first |
	    sed "s/^/peers $prog pcln_/" | tee -a "$R"
	for k in funcline inline pcsp; do
		say "peers $prog pcln_${k}_ir $(ir "$BENCH" loop "$blob" "$k")"
	done
	say "peers $prog pcln_first_answer_s_kb $(timed sh -c "head -1 '$pcs' | '$DUMP' addr2line -f -i -e '$blob'")"
	say "peers $prog pcln_process_s_kb $(timed sh -c "'$DUMP' addr2line -f -i -e '$blob' < '$pcs'")"
	if [ -x "$LIBDW" ]; then
		"$LIBDW" "$elf" "$pcs" "$NPCS" first line cfa |
		    sed "s/^/peers $prog /" | tee -a "$R"
		say "peers $prog libdw_line_ir $(ir "$LIBDW" -loop "$elf" "$pcs" line)"
		say "peers $prog libdw_cfa_ir $(ir "$LIBDW" -loop "$elf" "$pcs" cfa)"
		say "peers $prog libdw_process_s_kb $(timed "$LIBDW" "$elf" "$pcs" "$NPCS" line cfa)"
	fi
	"$LBT" "$elf" "$pcs" "$NPCS" first inline name |
	    sed "s/^/peers $prog /" | tee -a "$R"
	say "peers $prog libbacktrace_inline_ir $(ir "$LBT" -loop "$elf" "$pcs" inline)"
	say "peers $prog libbacktrace_process_s_kb $(timed "$LBT" "$elf" "$pcs" "$NPCS" inline)"
	"$A2L" "$elf" "$pcs" "$NPCS" first line inline |
	    sed "s/^/peers $prog /" | tee -a "$R"
	say "peers $prog addr2line_line_ir $(ir "$A2L" -loop "$elf" "$pcs" line)"
	say "peers $prog addr2line_inline_ir $(ir "$A2L" -loop "$elf" "$pcs" inline)"
	say "peers $prog addr2line_process_s_kb $(timed "$A2L" "$elf" "$pcs" "$NPCS" inline)"
	if [ -n "$GSYM" ]; then
		"$GSYM" "$g" "$P/$prog.gsym.pcs" "$gn" first inline |
		    sed "s/^/peers $prog /" | tee -a "$R"
		say "peers $prog gsym_inline_ir $(IRN=200 && ir "$GSYM" -loop "$g" "$P/$prog.gsym.pcs" inline)"
		say "peers $prog gsym_process_s_kb $(timed "$GSYM" "$g" "$P/$prog.gsym.pcs" "$gn" inline)"
	fi
	rm -f "$P/time"
done

# Ratios, peer over pcln, from the lines above.
awk '$1 == "peers" {
	v[$2 " " $3] = $4
} END {
	n = split("gmock sqlite", ps, " ")
	for (i = 1; i <= n; i++) {
		p = ps[i]
		if (!((p " pcln_bytes") in v)) continue
		printf "peers %s ratio size_gsym_over_pcln %.3f\n", p, v[p " gsym_bytes"] / v[p " pcln_bytes"]
		split("libbacktrace_inline addr2line_inline gsym_inline", ks, " ")
		for (j = 1; j <= 3; j++) {
			k = ks[j]
			if ((p " " k "_random_ns") in v)
				printf "peers %s ratio %s_random_over_pcln_inline %.1f\n", p, k, v[p " " k "_random_ns"] / v[p " pcln_inline_random_ns"]
			if ((p " " k "_ir") in v)
				printf "peers %s ratio %s_ir_over_pcln_inline %.2f\n", p, k, v[p " " k "_ir"] / v[p " pcln_inline_ir"]
		}
		if ((p " libdw_cfa_random_ns") in v)
			printf "peers %s ratio libdw_cfa_random_over_pcln_pcsp %.1f\n", p, v[p " libdw_cfa_random_ns"] / v[p " pcln_pcsp_random_ns"]
		if ((p " libdw_line_random_ns") in v)
			printf "peers %s ratio libdw_line_random_over_pcln_funcline %.1f\n", p, v[p " libdw_line_random_ns"] / v[p " pcln_funcline_random_ns"]
	}
}' "$R" | tee -a "$R.ratios"
cat "$R.ratios" >> "$R"
rm -f "$R.ratios"
echo "peers.sh: results in $R" >&2
