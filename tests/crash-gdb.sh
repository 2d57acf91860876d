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
#
# examples/crash-cxx (C++, built when configure finds a C++ compiler)
# crashes through a namespace, an anonymous namespace, a class template's
# method, a lambda in it, a function template and main's lambda; its
# handler demangles the names (libiberty's cplus_demangle_v3_callback).
# Its frames are compared with gdb's by file:line and unqualified name
# (tests/crash-frames.py says why), and its full names must be demangled
# ones: none left as _Z..., the class template's method and its lambda
# spelled out.
#
# The handler must not allocate: under gdb, with breakpoints on malloc,
# calloc, realloc and free set once the signal arrived, the handler runs
# and hits none of them (both programs).

. "${top_srcdir:-.}/tests/lib.sh"
CRASH=$top_builddir/examples/crash
CRASHCXX=$top_builddir/examples/crash-cxx

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

# Our frames, "NAME<TAB>FILE-BASENAME:LINE" each: the handler prints a
# frame as its name (demangled, or NAME(...)) and a tab-indented
# FILE:LINE.  PROG KIND TAG.
ours() {
	"$1" "$2" 2>"$work/$3.err" >/dev/null
	rc=$?
	[ $rc -gt 128 ] || fail "$3: exit status $rc, expected death by signal"
	awk '/^\t/ { if (name != "") { loc = substr($0, 2); sub(/ .*/, "", loc)
		sub(/.*\//, "", loc); print name "\t" loc }; name = ""; next }
	     { name = $0; sub(/ \[inlined\]$/, "", name)
		sub(/\(\.\.\.\)$/, "", name); sub(/\.cold$/, "", name) }' \
	    "$work/$3.err"
}

# No allocation in the handler: PROG KIND TAG.
noalloc() {
	gdb -q -nx -batch -ex run -ex 'break malloc' -ex 'break calloc' \
	    -ex 'break realloc' -ex 'break free' -ex continue -ex continue \
	    -ex continue -ex continue -ex continue -ex continue \
	    --args "$1" "$2" >"$work/$3.noalloc" 2>&1
	if ! grep -q '^Breakpoint 1 at ' "$work/$3.noalloc" ||
	    ! grep -q '^\[walk stopped: ' "$work/$3.noalloc"; then
		cat "$work/$3.noalloc"
		fail "$3: no breakpoint on malloc, or the handler did not run"
	elif grep '^Breakpoint [0-9.]*, ' "$work/$3.noalloc"; then
		fail "$3: the handler allocates or frees"
	else
		echo "$3: the handler called none of malloc, calloc, realloc, free"
	fi
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
	ours "$CRASH" $kind $kind | tr '\t' ' ' >"$work/$kind.ours"
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
[ $have_gdb = 0 ] || noalloc "$CRASH" segv crash

# --- the C++ program -------------------------------------------------------
if [ ! -x "$CRASHCXX" ]; then
	echo "note: examples/crash-cxx not built (configure found no C++ compiler)"
else
	nm -S "$CRASHCXX-nopcln" | grep ' [Tt] ' | sort >"$work/cxx1"
	nm -S "$CRASHCXX" | grep ' [Tt] ' | sort >"$work/cxx2"
	cmp -s "$work/cxx1" "$work/cxx2" ||
	    fail "crash-cxx: functions moved between the two links"
	for kind in segv fpe abrt; do
		ours "$CRASHCXX" $kind cxx-$kind >"$work/cxx-$kind.ours"
		echo "== cxx $kind: traceback printed by the handler"
		cat "$work/cxx-$kind.err"
		cut -f1 "$work/cxx-$kind.ours" >"$work/cxx-$kind.names"
		grep -q '^_Z' "$work/cxx-$kind.names" &&
		    fail "cxx $kind: a name left mangled"
		for want in 'pcln_demo::Stage<long>::run(int, long) const' \
		    'pcln_demo::Stage<long>::run(int, long) const::{lambda(int)#1}::operator()(int) const'; do
			grep -qxF "$want" "$work/cxx-$kind.names" ||
			    fail "cxx $kind: no frame '$want'"
		done
		[ "$(wc -l <"$work/cxx-$kind.ours")" -eq 6 ] ||
		    fail "cxx $kind: $(wc -l <"$work/cxx-$kind.ours") frames, expected 6"
		[ $have_gdb = 1 ] || continue
		gdb -q -nx -batch -ex run -ex bt --args "$CRASHCXX" $kind \
		    >"$work/cxx-$kind.bt" 2>&1
		echo "== cxx $kind: against gdb's bt"
		python3 "$top_srcdir/tests/crash-frames.py" \
		    "$work/cxx-$kind.ours" "$work/cxx-$kind.bt" crash_cxx.cc ||
		    { grep '^#' "$work/cxx-$kind.bt"
		      fail "cxx $kind: handler frames differ from gdb's bt"; }
	done
	[ $have_gdb = 0 ] || noalloc "$CRASHCXX" segv crash-cxx
fi
[ $fails -eq 0 ] || exit 1
if [ $have_gdb = 0 ]; then
	echo "SKIP: gdb not found; the handler's frames were checked alone"
	exit 77
fi
exit 0
