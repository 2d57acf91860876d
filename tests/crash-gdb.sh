#!/bin/sh
# crash-gdb.sh -- examples/crash prints, from its signal handler, the same
# frames as gdb's `bt` for the same crash: function names in the same
# order and the same file:line, inlined frames included (crash_inlined,
# marked "[inlined]" by the handler), for SIGSEGV, SIGFPE and SIGABRT,
# and SIGSEGV in a function that calls alloca ("vla": its CFA is rbp +
# 16, so the walk follows the CFA-rule pcdata, PCLNRT_TB_FP).
#
# examples/crash embeds its own table (examples/crash.mk).  For SIGABRT
# the pc is inside libc, for which the program has no table: gdb's libc
# frames (and frames from any file but crash.c) are left out, and gcc's
# split-off part "crash_abrt.cold" is compared as "crash_abrt", the name
# gdb gives it from DWARF.  Without gdb the program's own output is still
# checked against the expected call chain, then the test is skipped (77).

. "${top_srcdir:-.}/tests/lib.sh"
CRASH=$top_builddir/examples/crash

case $(uname -m) in
x86_64) ;;
*) echo "SKIP: the crash example walks x86-64 stacks only"; exit 77 ;;
esac

# Under --enable-sanitizers (or fuzzing builds) UBSan/ASan catch the
# fault before the example's own handler runs: nothing to compare.
if nm "$CRASH" 2>/dev/null | grep -q '__asan_init\|__ubsan_handle'; then
	echo "SKIP: examples/crash is built with sanitizers, which take the signal first"
	exit 77
fi

test_workdir crash-gdb

# Our frames: "NAME FILE-BASENAME:LINE" per frame.
ours() {
	"$CRASH" "$1" 2>"$work/$1.err" >/dev/null
	rc=$?
	[ $rc -gt 128 ] || fail "$1: exit status $rc, expected death by signal"
	awk '/^[^\t\[].*\(\.\.\.\)( \[inlined\])?$/ { name = $0
		sub(/\(\.\.\.\).*$/, "", name); sub(/\.cold$/, "", name); next }
	     /^\t/ && name != "" { loc = $1; sub(/.*\//, "", loc)
		print name, loc; name = "" }' "$work/$1.err"
}

# gdb's frames in crash.c, the same way.
theirs() {
	gdb -q -nx -batch -ex run -ex bt --args "$CRASH" "$1" 2>&1 |
	sed -n 's/^#[0-9][0-9]* *\(0x[0-9a-f]* in \)\{0,1\}\([^ ]*\) (.* at \(.*\):\([0-9][0-9]*\)$/\2 \3:\4/p' |
	sed 's/ .*\// /' | grep ' crash\.c:'
}

# The recipe's premise: the second link (with the table) placed every
# function where the first link (whose table it is) did.
nm -S "$top_builddir/examples/crash-nopcln" | grep ' [Tt] ' | sort >"$work/syms1"
nm -S "$CRASH" | grep ' [Tt] ' | sort >"$work/syms2"
if ! cmp -s "$work/syms1" "$work/syms2"; then
	diff -u "$work/syms1" "$work/syms2" | head -20
	fail "functions moved between the two links"
elif [ ! -s "$work/syms1" ]; then
	fail "no function symbols in examples/crash-nopcln"
else
	echo "the two links place all $(wc -l <"$work/syms1") functions alike"
fi

expected_chain="crash_level3 crash_inlined crash_level2 crash_level1 main"
have_gdb=1
command -v gdb >/dev/null 2>&1 || have_gdb=0
for kind in segv fpe abrt vla; do
	ours $kind >"$work/$kind.ours"
	echo "== $kind: traceback printed by the handler"
	cat "$work/$kind.err"
	names=$(awk '{ printf "%s%s", sep, $1; sep = " " }' "$work/$kind.ours")
	[ "$names" = "crash_$kind $expected_chain" ] ||
		fail "$kind: frames '$names', expected 'crash_$kind $expected_chain'"
	grep -q ' crash\.c:[1-9]' "$work/$kind.ours" ||
		fail "$kind: no file:line in the frames"
	[ $have_gdb = 1 ] || continue
	theirs $kind >"$work/$kind.gdb"
	echo "== $kind: gdb bt (frames in crash.c)"
	cat "$work/$kind.gdb"
	[ -s "$work/$kind.gdb" ] || fail "$kind: gdb printed no frames"
	if ! diff -u "$work/$kind.gdb" "$work/$kind.ours"; then
		fail "$kind: handler frames differ from gdb's bt"
	else
		echo "$kind: $(wc -l <"$work/$kind.ours") frames equal gdb's"
	fi
done
[ $fails -eq 0 ] || exit 1
if [ $have_gdb = 0 ]; then
	echo "SKIP: gdb not found; the handler's frames were checked alone"
	exit 77
fi
exit 0
