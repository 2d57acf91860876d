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
# For pcln also the simulated cache misses per lookup (D1, and the L2 as
# callgrind's last level) and the same per function of the lookup, in
# BUILD/bench-results/peers/PROGRAM.pcln_KIND.functions.  Appends
# "peers ..." lines to BUILD/bench-results/results.txt, the ratios last
# (peer over pcln).  A peer whose Debian package is missing is skipped
# with a "peers skipped PEER (why)" line; bench/run.sh installs them all.
#
# Environment: BENCH_PEERS_PROGRAMS (default "gmock sqlite"),
# BENCH_PEERS_NPCS (default 1000000; GSYM gets a 50th of them, at
# 10-70 us a lookup), BENCH_PEERS_IR_N (default 65536: lookups per callgrind run,
# at least once over every pc, so lazy peers have parsed what they need),
# BENCH_PEERS_RUNS (default 3: runs of each in-process timing, each
# itself the median of 5 passes; the figure is the median of the runs,
# followed by the lowest and highest, "min..max").
set -eu

B=${top_builddir:-$(pwd)}
S=${top_srcdir:-$(cd "$(dirname "$0")/.." && pwd)}
OUT=$B/bench-results
P=$OUT/peers
PROGRAMS=${BENCH_PEERS_PROGRAMS:-gmock sqlite}
NPCS=${BENCH_PEERS_NPCS:-1000000}
IRN=${BENCH_PEERS_IR_N:-65536}
RUNS=${BENCH_PEERS_RUNS:-3}
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

# What pcln's side needs (scripts/setup.sh installs it all).
installed() { dpkg-query -W -f='${Status}\n' "$1" 2>/dev/null | grep -q 'ok installed'; }
need=
for pkg in valgrind time g++ googletest; do
	installed "$pkg" || need="$need $pkg"
done
if [ -n "$need" ]; then
	echo "peers.sh: needs$need (scripts/setup.sh installs them)" >&2
	exit 1
fi
# Each peer needs its Debian package; one that is missing is skipped,
# saying which package would bring it.
skip() {	# PEER REASON
	say "peers skipped $1 ($2)"
	echo "peers.sh: skipping $1: $2" >&2
}
missing() {	# PACKAGE...: the first one not installed, if any
	for pkg; do
		installed "$pkg" || { echo "$pkg"; return; }
	done
}

# --- the peers, built once into bench-results/peers/ ---
LBT=$P/pcln-bench-libbacktrace
m=$(missing gcc-12-source)
if [ -n "$m" ]; then
	skip libbacktrace "$m is not installed"; LBT=
elif [ ! -f "$P/libbacktrace/.libs/libbacktrace.a" ]; then
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
	    make libbacktrace.la >make.log 2>&1) || {
		echo "peers.sh: libbacktrace did not build; see $P/libbacktrace/*.log" >&2
		exit 1
	}
	echo "$P/gcc-src/$top/libbacktrace" > "$P/libbacktrace/srcdir"
fi
if [ -n "$LBT" ] && { [ ! -x "$LBT" ] || [ "$S/bench/peer-libbacktrace.c" -nt "$LBT" ] ||
    [ "$S/bench/bench.h" -nt "$LBT" ]; }; then
	${CC:-gcc} -O2 -g -no-pie -I"$P/libbacktrace" \
	    -I"$(cat "$P/libbacktrace/srcdir")" -I"$S/bench" -o "$LBT" \
	    "$S/bench/peer-libbacktrace.c" "$P/libbacktrace/.libs/libbacktrace.a"
fi
A2L=$P/addr2line-target/release/pcln-bench-addr2line
m=$(missing cargo librust-addr2line+std-object-dev)
if [ -n "$m" ]; then
	skip addr2line "$m is not installed"; A2L=
elif [ ! -x "$A2L" ] || [ "$S/bench/peer-addr2line/src/main.rs" -nt "$A2L" ] ||
    [ "$S/bench/peer-addr2line/Cargo.toml" -nt "$A2L" ]; then
	echo "peers.sh: building the addr2line peer (Debian's cargo, offline)" >&2
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
	# Debian's cargo and rustc, never a rustup toolchain on PATH.
	CARGO_HOME=$P/cargo-home RUSTC=/usr/bin/rustc /usr/bin/cargo build -q \
	    --release --manifest-path "$P/addr2line-src/Cargo.toml" \
	    --target-dir "$P/addr2line-target"
fi
GSYM=$P/pcln-bench-gsym
GSYMUTIL=llvm-gsymutil-14
m=$(missing llvm-14)
if [ -n "$m" ]; then
	skip gsym "$m is not installed (llvm-gsymutil-14)"; GSYM=; GSYMUTIL=
else
	m=$(missing llvm-14-dev)
	if [ -n "$m" ]; then
		skip gsym_reader "$m is not installed: GSYM's size only"; GSYM=
	elif [ ! -x "$GSYM" ] || [ "$S/bench/peer-gsym.cc" -nt "$GSYM" ] ||
	    [ "$S/bench/bench.h" -nt "$GSYM" ]; then
		${CXX:-g++} -O2 -g -std=c++17 \
		    -I"$(llvm-config-14 --includedir)" -I"$S/bench" -o "$GSYM" \
		    "$S/bench/peer-gsym.cc" -L"$(llvm-config-14 --libdir)" \
		    -lLLVM-14 -Wl,-rpath,"$(llvm-config-14 --libdir)"
	fi
fi

# --- the programs ---
prog_gmock() {	# built by bench/run.sh (parts real and peers)
	if [ ! -x "$OUT/gmock_all_test" ]; then
		echo "peers.sh: no $OUT/gmock_all_test: run BENCH_PARTS=peers make bench" >&2
		exit 1
	fi
	echo "$OUT/gmock_all_test"
}
prog_sqlite() {	# bench/sqlite.sh: 77 and the reason if it cannot be had
	rc=0
	sh "$S/bench/sqlite.sh" "$OUT/sqlite" 2>"$P/skip.reason" || rc=$?
	[ "$rc" -eq 0 ] || [ "$rc" -eq 77 ] || {
		cat "$P/skip.reason" >&2; exit 1; }
	return "$rc"
}

# Peak resident KB and wall s of a command: "S KB".
timed() {
	/usr/bin/time -f "%e %M" -o "$P/time" "$@" > /dev/null
	cat "$P/time"
}

# Per lookup, from callgrind runs of IRN and 2*IRN lookups (the
# difference is the lookups alone, set-up cancels out): instructions;
# with CS=1 also D1 read misses and "LL" read misses, LL simulated as
# the machine's L2 (what misses it goes to the L3 or memory, ~20-40 ns
# a miss; callgrind simulates only two levels).  With FN=FILE, also the
# same per function, to FILE.
c2=/sys/devices/system/cpu/cpu0/cache/index2
L2=1048576,8,64
if [ -r "$c2/size" ] && [ -r "$c2/ways_of_associativity" ]; then
	L2=$(($(sed 's/K$//' "$c2/size") * 1024)),$(cat "$c2/ways_of_associativity"),64
fi
ir() {	# PROGRAM-ARGS... (the lookup count last is appended)
	set -- --tool=callgrind "$@"
	[ "${CS:-0}" = 1 ] && set -- --cache-sim=yes --LL="$L2" "$@"
	valgrind --callgrind-out-file="$P/cg.1" "$@" "$IRN" > "$P/cg.1.err" 2>&1
	valgrind --callgrind-out-file="$P/cg.2" "$@" $((IRN * 2)) > "$P/cg.2.err" 2>&1
	a=$(sed -n 's/.*Collected : //p' "$P/cg.1.err")
	b=$(sed -n 's/.*Collected : //p' "$P/cg.2.err")
	awk -v a="$a" -v b="$b" -v n="$IRN" -v cs="${CS:-0}" 'BEGIN {
		split(a, x, " "); split(b, y, " ")
		# Events: Ir Dr Dw I1mr D1mr D1mw ILmr DLmr DLmw
		if (cs) printf "%d %.2f %.2f\n", (y[1] - x[1]) / n, (y[5] - x[5]) / n, (y[8] - x[8]) / n
		else printf "%d\n", (y[1] - x[1]) / n
	}'
	if [ -n "${FN:-}" ]; then
		# Per function (self cost, inlined code under the file it
		# comes from): the same difference.
		for i in 1 2; do
			callgrind_annotate --auto=no --threshold=100 "$P/cg.$i" |
			    awk '/file:function/ { f = 1; getline; next }
				f && NF == 0 { exit }
				f { print }' |
			    sed 's/ *( *[0-9.]*%)//g; s/,//g; s/ \[[^]]*\]$//' |
			    awk '{ for (i = 1; i < NF; i++) if ($i == ".") $i = 0
				k = $NF; sub(/.*\//, "", k); $NF = k; print }' \
			    > "$P/cg.$i.fn"
		done
		awk -v n="$IRN" -v cs="${CS:-0}" '
		FNR == 1 { f++ }
		{ k = $NF
		  if (f == 1) { a[k] = $1; am[k] = $5; al[k] = $8 }
		  else { b[k] = $1; bm[k] = $5; bl[k] = $8 } }
		END {
			for (k in b) {
				d = (b[k] - a[k]) / n
				if (d < 1) continue
				if (cs) printf "%s %.1f %.3f %.3f\n", k, d, (bm[k] - am[k]) / n, (bl[k] - al[k]) / n
				else printf "%s %.1f\n", k, d
			}
		}' "$P/cg.1.fn" "$P/cg.2.fn" | sort -k2,2 -rn > "$FN"
	fi
	rm -f "$P"/cg.[12] "$P"/cg.[12].err "$P"/cg.[12].fn
}

# Run a timing command RUNS times; each "name value" line it prints
# becomes "name median min..max" (lines whose value is not a number are
# kept from the first run).
runs() {
	i=0
	while [ $i -lt "$RUNS" ]; do
		"$@"
		i=$((i + 1))
	done | awk '
	{ if (!($1 in n)) order[++k] = $1
	  v[$1, ++n[$1]] = $2 }
	END {
		for (j = 1; j <= k; j++) {
			key = order[j]; m = n[key]
			if (v[key, 1] !~ /^-?[0-9.]+$/) { print key, v[key, 1]; continue }
			for (a = 1; a <= m; a++) x[a] = v[key, a] + 0
			for (a = 2; a <= m; a++)	# insertion sort
				for (b = a; b > 1 && x[b - 1] > x[b]; b--) {
					t = x[b]; x[b] = x[b - 1]; x[b - 1] = t
				}
			med = m % 2 ? x[(m + 1) / 2] : (x[m / 2] + x[m / 2 + 1]) / 2
			print key, med, x[1] ".." x[m]
		}
	}'
}

# One in-process peer on program $prog: the times of KINDS (median of
# RUNS runs), the instructions of IRKINDS (IRN lookups a callgrind run),
# and the peak memory of a process answering the pcs with PROCKINDS.
peer() {	# NAME IRN PROGRAM INPUT PCSFILE N KINDS IRKINDS PROCKINDS
	name=$1 irn=$2 exe=$3 in=$4 pf=$5 n=$6
	runs "$exe" "$in" "$pf" "$n" first $7 | sed "s/^/peers $prog /" |
	    tee -a "$R"
	for k in $8; do
		say "peers $prog ${name}_${k}_ir $(IRN=$irn; ir "$exe" -loop "$in" "$pf" "$k")"
	done
	say "peers $prog ${name}_process_s_kb $(timed "$exe" "$in" "$pf" "$n" $9)"
}

say "peers load $(cut -d' ' -f1-3 /proc/loadavg)"
say "peers l2_simulated $L2"
say "peers runs $RUNS"
for prog in $PROGRAMS; do
	rc=0
	elf=$(prog_$prog) || rc=$?
	if [ "$rc" = 77 ]; then
		skip "$prog" "$(cat "$P/skip.reason")"
		continue
	elif [ "$rc" != 0 ]; then
		exit "$rc"
	fi
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
	"$DUMP" summary "$blob" |
	    sed -n 's/^ *section [0-9]* (\([A-Z]*\)): offset [0-9a-fx]*, \([0-9]*\) bytes$/\1 \2/p' |
	    while read -r sec n; do say "peers $prog pcln_section_$sec $n"; done
	# What size would be without the checkpoints, and without inline
	# data (the goal is the full table; these say where the bytes are).
	"$PCLNLD" -o "$P/$prog.ck0.blob" --checkpoints 0 --elf "$elf"
	say "peers $prog pcln_bytes_no_checkpoints $(stat -c %s "$P/$prog.ck0.blob")"
	"$PCLNLD" -o "$P/$prog.noinl.blob" --no-inline --elf "$elf"
	say "peers $prog pcln_bytes_no_inline $(stat -c %s "$P/$prog.noinl.blob")"
	rm -f "$P/$prog.ck0.blob" "$P/$prog.noinl.blob"
	if [ -n "$GSYMUTIL" ]; then
		say "peers $prog gsym_build_s_kb $(timed "$GSYMUTIL" --convert "$elf" --out-file="$g")"
		say "peers $prog gsym_bytes $(stat -c %s "$g")"
	fi
	pcs=$P/$prog.pcs
	"$BENCH" pcs "$blob" "$NPCS" 7 > "$pcs"
	gn=$((NPCS / 50))
	head -"$gn" "$pcs" > "$P/$prog.gsym.pcs"
	# Per lookup, in process.
	runs "$BENCH" lookups "$blob" "$NPCS" 7 funcline,inline,pcsp,first |
	    sed "s/^/peers $prog pcln_/" | tee -a "$R"
	for k in funcline inline pcsp; do
		set -- $(CS=1 FN="$P/$prog.pcln_$k.functions" ir "$BENCH" loop "$blob" "$k")
		say "peers $prog pcln_${k}_ir $1"
		say "peers $prog pcln_${k}_d1mr $2"
		say "peers $prog pcln_${k}_l2mr $3"
	done
	say "peers $prog pcln_first_answer_s_kb $(timed sh -c "head -1 '$pcs' | '$DUMP' addr2line -f -i -e '$blob'")"
	say "peers $prog pcln_process_s_kb $(timed sh -c "'$DUMP' addr2line -f -i -e '$blob' < '$pcs'")"
	if [ -x "$LIBDW" ]; then
		peer libdw "$IRN" "$LIBDW" "$elf" "$pcs" "$NPCS" "line cfa" \
		    "line cfa" "line cfa"
	else
		skip libdw "pcln-bench-libdw was not built (configure found no libdw)"
	fi
	[ -z "$LBT" ] || peer libbacktrace "$IRN" "$LBT" "$elf" "$pcs" "$NPCS" \
	    "inline name" inline inline
	[ -z "$A2L" ] || peer addr2line "$IRN" "$A2L" "$elf" "$pcs" "$NPCS" \
	    "line inline" "line inline" inline
	[ -z "$GSYM" ] || peer gsym 200 "$GSYM" "$g" "$P/$prog.gsym.pcs" "$gn" \
	    inline inline inline
	rm -f "$P/time"
done

# Ratios, peer over pcln (above 1: pcln is faster, does less, is smaller),
# from the lines above: each peer's kind against pcln's kind that answers
# as much or more (file:line alone against funcline + name; the full
# inline chain against pcln's; libdw's CFA against pcsp).
awk '$1 == "peers" { v[$2 " " $3] = $4; w[$2 " " $3] = $5 }
function r(p, name, a, b) {
	if ((p " " a) in v && (p " " b) in v && v[p " " b] > 0)
		printf "peers %s ratio %s %.2f\n", p, name, v[p " " a] / v[p " " b]
}
function m(p, name, a, b) {	# the second field (peak KB of "s KB")
	if ((p " " a) in w && (p " " b) in w && w[p " " b] > 0)
		printf "peers %s ratio %s %.2f\n", p, name, w[p " " a] / w[p " " b]
}
END {
	n = split("gmock sqlite", ps, " ")
	np = split("libdw_line:funcline addr2line_line:funcline " \
	    "libbacktrace_inline:inline addr2line_inline:inline " \
	    "gsym_inline:inline libdw_cfa:pcsp", pairs, " ")
	for (i = 1; i <= n; i++) {
		p = ps[i]
		if (!((p " pcln_bytes") in v)) continue
		r(p, "size_gsym_over_pcln", "gsym_bytes", "pcln_bytes")
		for (j = 1; j <= np; j++) {
			split(pairs[j], pk, ":")
			k = pk[1]; q = "pcln_" pk[2]
			r(p, k "_random_over_" q, k "_random_ns", q "_random_ns")
			r(p, k "_seq_over_" q, k "_seq_ns", q "_seq_ns")
			r(p, k "_ir_over_" q, k "_ir", q "_ir")
		}
		split("libdw libbacktrace addr2line gsym", tools, " ")
		for (j = 1; j <= 4; j++) {
			t = tools[j]
			r(p, t "_first_over_pcln", t "_first_lookup_ns", "pcln_first_lookup_ns")
			m(p, t "_peak_kb_over_pcln", t "_process_s_kb", "pcln_process_s_kb")
		}
	}
}' "$R" > "$P/ratios"
while read -r line; do say "$line"; done < "$P/ratios"
echo "peers.sh: results in $R" >&2
