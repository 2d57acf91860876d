#!/bin/sh
# real-a2l.sh -- pclnld --elf on real third-party programs built here from
# Debian's source packages, then `pclndump addr2line -a -f -i` against
# binutils `addr2line -a -f -i` (and llvm-addr2line, the reference where
# binutils is demonstrably wrong) at the instruction starts of .text.
#
# Programs (each with gcc and clang, -O2 -g):
#   gmock: googletest + googlemock (Debian "googletest", /usr/src) with
#     googlemock's gmock-spec-builders_test.cc: C++17 templates, lambdas,
#     anonymous namespaces, COMDAT code, heavy inlining;
#   stb: Sean Barrett's single-file C libraries (Debian "libstb-dev"),
#     every implementation in one program: large static C functions.
# The gcc builds are compared with binutils (4 of every 5 instruction
# starts of gmock, >= 100 k, as binutils needs ~0.1 ms a pc; every one of
# stb); clang 14 writes DWARF 5, whose inlined calls binutils 2.40 does
# not read, so its builds are compared with llvm-addr2line at every
# instruction start.  tests/a2l-agree.py classifies each difference and
# prints the count per category: >= 99.99% must agree or differ for an
# explained reason, the gcc answers with discriminators must be
# byte-identical to binutils at >= 99.9% of the addresses that agree,
# and no inlined frame that binutils and llvm both report may be missing.
# Then all again with -C (demangled) against addr2line -C.

. "${top_srcdir:-.}/tests/lib.sh"
DUMP=$D
G=/usr/src/googletest
STB=/usr/include/stb
for t in addr2line llvm-addr2line c++filt objdump python3 gcc g++ clang clang++; do
	command -v $t >/dev/null 2>&1 || { echo "SKIP: no $t (scripts/setup.sh installs it)"; exit 77; }
done
[ -f $G/googlemock/src/gmock-all.cc ] ||
	{ echo "SKIP: no $G (Debian package googletest; scripts/setup.sh)"; exit 77; }
[ -f $STB/stb_image.h ] ||
	{ echo "SKIP: no $STB (Debian package libstb-dev; scripts/setup.sh)"; exit 77; }

test_workdir real-a2l

# --- the programs ---------------------------------------------------------
# googlemock's three files take two minutes to compile, and the suite runs
# four times in CI (check, distcheck, in-tree, sanitized) with the same
# compilers and flags: with ccache (scripts/setup.sh installs it) they
# are compiled once.  Their paths are absolute and outside the test's
# directory, so the cache is not told the directory (CCACHE_NOHASHDIR):
# the objects are the same but for DW_AT_comp_dir, which no answer here
# depends on.  PCLN_TEST_CCACHE_DIR moves the cache; =off compiles.
gmock_cc=
ccdir=${PCLN_TEST_CCACHE_DIR:-${TMPDIR:-/tmp}/pcln-test-ccache}
if [ "$ccdir" != off ] && command -v ccache >/dev/null 2>&1; then
	gmock_cc=ccache
	CCACHE_DIR=$ccdir CCACHE_NOHASHDIR=1
	export CCACHE_DIR CCACHE_NOHASHDIR
	unset CCACHE_DISABLE CCACHE_BASEDIR || true
fi

gmock_build() {	# CXX OUT
	inc="-I$G/googletest/include -I$G/googletest -I$G/googlemock/include -I$G/googlemock"
	# Two compilers' jobs at a time on the two cores CI has.
	$gmock_cc $1 -O2 -g -pthread $inc -c $G/googletest/src/gtest-all.cc \
	    -o "$2.1.o" &
	p1=$!
	$gmock_cc $1 -O2 -g -pthread $inc -c $G/googlemock/src/gmock-all.cc \
	    -o "$2.2.o" &
	p2=$!
	$gmock_cc $1 -O2 -g -pthread $inc -c \
	    $G/googlemock/test/gmock-spec-builders_test.cc -o "$2.3.o" ||
	    return 1
	wait $p1 && wait $p2 && $1 -pthread "$2.1.o" "$2.2.o" "$2.3.o" -o "$2"
}

stb_build() {	# CC OUT
	cat >"$work/stbprog.c" <<'EOF'
/* Every stb implementation Debian ships, in one program. */
#define STB_IMAGE_IMPLEMENTATION
#define STB_IMAGE_WRITE_IMPLEMENTATION
#define STB_IMAGE_RESIZE_IMPLEMENTATION
#define STB_TRUETYPE_IMPLEMENTATION
#define STB_RECT_PACK_IMPLEMENTATION
#define STB_DS_IMPLEMENTATION
#define STB_SPRINTF_IMPLEMENTATION
#define STB_PERLIN_IMPLEMENTATION
#define STB_DXT_IMPLEMENTATION
#define STB_C_LEXER_IMPLEMENTATION
#define STB_DIVIDE_IMPLEMENTATION
#define STB_HEXWAVE_IMPLEMENTATION
#define STB_INCLUDE_IMPLEMENTATION
#define STB_HERRINGBONE_WANG_TILE_IMPLEMENTATION
#define STB_CONNECTED_COMPONENTS_IMPLEMENTATION
#define STBCC_GRID_COUNT_X_LOG2 10
#define STBCC_GRID_COUNT_Y_LOG2 10
#include <stb_rect_pack.h>
#include <stb_image.h>
#include <stb_image_write.h>
#include <stb_image_resize.h>
#include <stb_truetype.h>
#include <stb_ds.h>
#include <stb_sprintf.h>
#include <stb_perlin.h>
#include <stb_dxt.h>
#include <stb_c_lexer.h>
#include <stb_divide.h>
#include <stb_hexwave.h>
#include <stb_include.h>
#include <stb_herringbone_wang_tile.h>
#include <stb_connected_components.h>
#include <stb_vorbis.h>
int
main(int argc, char **argv)
{
	int w, h, n;
	return argc > 1 && stbi_load(argv[1], &w, &h, &n, 0) != 0;
}
EOF
	$1 -O2 -g -I$STB -w "$work/stbprog.c" -o "$2" -lm
}

# --- one comparison -------------------------------------------------------
# compare NAME PROGRAM REF KEEP: REF binutils or llvm; KEEP: keep K of
# every 5 instruction starts.
compare() {
	name=$1 bin=$2 ref=$3 keep=$4
	w=$work/$name
	if ! "$LD" --elf "$bin" -o "$w.pcln" 2>"$w.ld"; then
		cat "$w.ld" >&2
		fail "$name: pclnld --elf failed"
		return
	fi
	sed 's/^/  /' "$w.ld"
	# The inline tree is packed: INLPACK, 8 bytes a call after its
	# header and start[] (doc/FORMAT.md), not INLTREE's 16.
	ninl=$(sed -n 's/.* \([0-9]*\) inlined calls$/\1/p' "$w.ld" | tail -n 1)
	"$DUMP" summary "$w.pcln" >"$w.sum"
	nfunc=$(sed -n 's/^functions: *\([0-9]*\)$/\1/p' "$w.sum")
	isz=$(sed -n 's/^  section 6 (INLPACK): offset 0x[0-9a-f]*, \([0-9]*\) bytes$/\1/p' "$w.sum")
	want=$((8 + (4 * (nfunc + 1) + 7) / 8 * 8 + 8 * ${ninl:-0}))
	[ -n "$ninl" ] && [ "$ninl" -gt 0 ] && [ "$isz" = "$want" ] &&
	    ! grep -q '(INLTREE)' "$w.sum" ||
	    fail "$name: INLPACK ${isz:-absent}, expected $want bytes for $ninl inlined calls"
	objdump -d --no-show-raw-insn -j .text "$bin" |
	    awk -v k="$keep" '/^ *[0-9a-f]+:\t/ { if (n++ % 5 < k) {
		a = $1; sub(/:$/, "", a); print "0x" a } }' >"$w.addrs"
	"$DUMP" addr2line -a -f -i -e "$w.pcln" <"$w.addrs" >"$w.ours" ||
	    fail "$name: pclndump addr2line failed"
	llvm-addr2line -a -f -i -e "$bin" <"$w.addrs" >"$w.llvm"
	if [ "$ref" = binutils ]; then
		addr2line -a -f -i -e "$bin" <"$w.addrs" >"$w.bu"
	else
		cp "$w.llvm" "$w.bu"
	fi
	python3 "$top_srcdir/tests/a2l-agree.py" "$name" "$w.ours" "$w.bu" \
	    "$w.llvm" "$ref" 0.9999 0.999 ||
	    fail "$name: below the agreement bar (see the categories above)"
	# The same, demangled: ours and binutils' with -C (libiberty, the
	# same flags); llvm's own demangler writes other text for the same
	# names ("'lambda'()", return types), so its mangled answers go
	# through c++filt -i, libiberty without the verbose expansions, as
	# addr2line -C prints them.
	"$DUMP" addr2line -C -a -f -i -e "$w.pcln" <"$w.addrs" >"$w.oursC" ||
	    fail "$name: pclndump addr2line -C failed"
	c++filt -i <"$w.llvm" >"$w.llvmC"
	if [ "$ref" = binutils ]; then
		addr2line -C -a -f -i -e "$bin" <"$w.addrs" >"$w.buC"
	else
		cp "$w.llvmC" "$w.buC"
	fi
	python3 "$top_srcdir/tests/a2l-agree.py" "$name -C" "$w.oursC" \
	    "$w.buC" "$w.llvmC" "$ref" 0.9999 0.999 -C ||
	    fail "$name -C: below the agreement bar (see the categories above)"
}

start=$(date +%s)
gmock_build g++ "$work/gmock-gcc" || fail "cannot build googlemock with g++"
gmock_build clang++ "$work/gmock-clang" || fail "cannot build googlemock with clang++"
stb_build gcc "$work/stb-gcc" || fail "cannot build stb with gcc"
stb_build clang "$work/stb-clang" || fail "cannot build stb with clang"
echo "built in $(( $(date +%s) - start )) s${gmock_cc:+ (googlemock through ccache, $CCACHE_DIR)}"
[ -f "$work/gmock-gcc" ] && compare gmock-gcc "$work/gmock-gcc" binutils 4
[ -f "$work/gmock-clang" ] && compare gmock-clang "$work/gmock-clang" llvm 5
[ -f "$work/stb-gcc" ] && compare stb-gcc "$work/stb-gcc" binutils 5
[ -f "$work/stb-clang" ] && compare stb-clang "$work/stb-clang" llvm 5
echo "took $(( $(date +%s) - start )) s"
[ $fails -eq 0 ]
