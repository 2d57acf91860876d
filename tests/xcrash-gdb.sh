#!/bin/sh
# xcrash-gdb.sh -- a crash across objects, symbolized from the program's
# own signal handler (examples/xcrash: crash_handler.c with
# -DCRASH_PROCESS, every object's table from pcln_self_open), against
# gdb's bt for the same crash in the same run (the program runs under
# gdb; the handler's output goes to a file; gdb's frames come from its
# Python API, tests/xcrash-gdb.py):
#
#   lib     the fault in libxcrash.so's qsort comparator (an inlined
#           function in it), called back through libc's qsort;
#   plugin  the fault in a plugin loaded with dlopen after start-up
#           (pcln_self_refresh gave it a table);
#   unload  the plugin loaded and unloaded again (its table left the
#           registry), then as lib;
#
# and the C++ variant examples/xcrash-cxx (a class template's comparator
# lambda, a function template in the plugin; names demangled in the
# handler).  tests/xcrash-frames.py compares frame by frame up to main:
# the same pcs in the same order, the same names, file:line and inlined
# frames in the example's objects; in libc the names pcln has (from
# .dynsym) and the frames, with what pcln cannot know without libc's debug
# file counted by kind, as are gdb's tail-call frames (not on the stack).
# Every walk must reach the outermost frame (_start), and the handler
# must not allocate (breakpoints on malloc, calloc, realloc and free once
# the signal arrived are never hit).

. "${top_srcdir:-.}/tests/lib.sh"
XC=$top_builddir/examples/xcrash
XCXX=$top_builddir/examples/xcrash-cxx

case $(uname -m) in
x86_64) ;;
*) echo "SKIP: the crash examples walk x86-64 stacks only"; exit 77 ;;
esac
if nm "$XC" 2>/dev/null | grep -q '__asan_init\|__ubsan_handle'; then
	echo "SKIP: examples/xcrash is built with sanitizers, which take the signal first"
	exit 77
fi
for t in gdb python3; do
	command -v $t >/dev/null 2>&1 || { fail "no $t (run scripts/setup.sh)"; exit 1; }
done
test_workdir xcrash-gdb

# PROG MODE TAG [--cxx]: run under gdb, compare.
compare() {
	prog=$1 mode=$2 tag=$3 opt=${4:-}
	gdb -q -nx -batch -ex "run $mode 2>$work/$tag.ours" \
	    -x "$top_srcdir/tests/xcrash-gdb.py" -ex continue \
	    --args "$prog" >"$work/$tag.gdb" 2>&1
	echo "== $tag: the handler's traceback"
	cat "$work/$tag.ours"
	grep -q '^\[walk stopped: outermost frame' "$work/$tag.ours" ||
	    fail "$tag: the walk did not reach the outermost frame"
	grep -q '^FRAME' "$work/$tag.gdb" ||
	    { cat "$work/$tag.gdb"; fail "$tag: gdb printed no frames"; return; }
	echo "== $tag: against gdb"
	python3 "$top_srcdir/tests/xcrash-frames.py" "$work/$tag.ours" \
	    "$work/$tag.gdb" $opt "$(basename "$prog")" libxcrash.so \
	    xcrash-plugin.so libxcrash-cxx.so xcrash-cxx-plugin.so ||
	    fail "$tag: the handler's frames differ from gdb's"
}

# The chain of names the handler printed, innermost first, to main.
chain() {
	awk '/^\t/ { print prev } { prev = $0 }' "$work/$1.ours" |
	    sed 's/ \[inlined\]$//; s/(\.\.\.)$//' |
	    awk '{ print } $0 == "main" { exit }' | tr '\n' ' '
}

for mode in lib plugin unload; do
	compare "$XC" $mode $mode
done
c=$(chain lib)
case $c in
"key_of key_of compare "*"qsort_r xcrash_lib_sort run_lib main ") ;;
*) fail "lib: frames '$c'" ;;
esac
c=$(chain plugin)
[ "$c" = "plugin_fault plugin_step xcrash_plugin_run run_plugin main " ] ||
    fail "plugin: frames '$c'"
grep -q 'xcrash-plugin.so' "$work/unload.ours" &&
    fail "unload: a frame in the unloaded plugin"
loaded=$(sed -n 's/.*plugin loaded: \([0-9]*\) objects.*/\1/p' "$work/unload.ours")
left=$(sed -n 's/.*plugin unloaded: \([0-9]*\) objects.*/\1/p' "$work/unload.ours")
[ -n "$loaded" ] && [ -n "$left" ] && [ "$left" -eq $((loaded - 1)) ] ||
    fail "unload: $loaded objects with the plugin, $left after dlclose"

# No allocation in the handler.
gdb -q -nx -batch -ex 'run lib 2>/dev/null' -ex 'break malloc' \
    -ex 'break calloc' -ex 'break realloc' -ex 'break free' \
    -ex continue -ex continue -ex continue -ex continue \
    --args "$XC" >"$work/noalloc" 2>&1
if ! grep -q '^Breakpoint 1 at ' "$work/noalloc"; then
	cat "$work/noalloc"
	fail "noalloc: no breakpoint on malloc"
elif grep '^Breakpoint [0-9.]*, ' "$work/noalloc"; then
	fail "noalloc: the handler allocates or frees"
else
	echo "noalloc: the handler called none of malloc, calloc, realloc, free"
fi

if [ -x "$XCXX" ]; then
	compare "$XCXX" lib cxx-lib --cxx
	compare "$XCXX" plugin cxx-plugin --cxx
	grep -q '^_Z' "$work/cxx-lib.ours" "$work/cxx-plugin.ours" &&
	    fail "cxx: a name left mangled"
	for want in 'pcln_xdemo::Sorter<int>::compare(void const\*, void const\*)' \
	    'pcln_xdemo::Sorter<int>::sort(int\*, int) const' \
	    'int pcln_xdemo::plugin::step<short>(short)'; do
		grep -q "^$want\$" "$work/cxx-lib.ours" "$work/cxx-plugin.ours" ||
		    fail "cxx: no frame '$want'"
	done
else
	echo "note: examples/xcrash-cxx not built (configure found no C++ compiler)"
fi
if [ "$fails" -eq 0 ]; then
	echo "xcrash-gdb: ok"
	exit 0
fi
exit 1
