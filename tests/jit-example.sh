#!/bin/sh
# jit-example.sh -- examples/jit, a tiny x86-64 JIT whose functions are
# described to the runtime (pclnrt_jit_module):
#  - its code generator computes what the program says (run mode);
#  - dying of SIGFPE in JIT code, its handler's traceback passes through
#    JIT frames and C frames with the right names, files and lines:
#    divide [jit] <- c_scale <- compute [jit] <- run <- main;
#  - perf record + perf report name the JIT functions, from the
#    /tmp/perf-PID.map it writes.
# Skips (77) off x86-64, and the perf part only if the kernel refuses
# perf_event_open.
. "${top_srcdir:-.}/tests/lib.sh"
JIT=$top_builddir/examples/jit
SRC=$top_srcdir/examples/jit.c

case $(uname -m) in
x86_64) ;;
*) echo "SKIP: the JIT example emits x86-64 code only"; exit 77 ;;
esac
if [ ! -x "$JIT" ]; then
	echo "SKIP: examples/jit not built (it needs libdw for its own table)"
	exit 77
fi
map=
cleanup_hook() { [ -z "$map" ] || rm -f "$map"; }
test_workdir pcln-jit
tmp=$work

# The code generator: compute(x) = 2 (1000 / (x - 3)) + 1 + (x + 1)^2 -
# 7 (x & 3), in 64-bit integers.
"$JIT" run 1 4 100 -200 >"$tmp/run" 2>"$tmp/maps" ||
    fail "jit run exited $?"
printf '%s\n' 'compute(1) = -1002' 'compute(4) = 2026' \
    'compute(100) = 10222' 'compute(-200) = 39594' >"$tmp/run.want"
cmp -s "$tmp/run" "$tmp/run.want" || {
	fail "jit run: wrong results"
	diff "$tmp/run.want" "$tmp/run" >&2
}

# The crash: status 128 + SIGFPE, and the frames.
"$JIT" crash >"$tmp/out" 2>"$tmp/err"
st=$?
[ "$st" -eq $((128 + 8)) ] || fail "jit crash: exit status $st, want 136"
cat "$tmp/err"
grep -q '^SIGFPE: arithmetic exception$' "$tmp/err" ||
    fail "no SIGFPE reported"
# name, [jit] or not, file suffix, line: the lines of the C frames are
# where the source says.
cline() { grep -n "$1" "$SRC" | head -n 1 | cut -d: -f1; }
{
	echo "divide [jit] prog.expr 4"
	echo "c_scale - examples/jit.c $(cline 'return 2 \* divide(x) + 1;')"
	echo "compute [jit] prog.expr 7"
	echo "run - examples/jit.c $(cline 'return fn(x) + 1;')"
	echo "main - examples/jit.c $(cline 'printf("compute(3) = %ld')"
} >"$tmp/want"
awk '/^[^ \t[].*\(\.\.\.\)/ { name = $1; sub(/\(\.\.\.\)/, "", name);
	tag = $2 == "[jit]" ? "[jit]" : "-"; next }
     /^\t/ && name != "" { split($1, a, ":"); file = a[1];
	sub(/.*examples\//, "examples/", file);
	print name, tag, file, a[2]; name = "" }' "$tmp/err" >"$tmp/got"
cmp -s "$tmp/want" "$tmp/got" || {
	fail "the traceback differs (want, got):"
	cat "$tmp/want" "$tmp/got" >&2
}
# Every run leaves its /tmp/perf-PID.map ("jit: perf map PATH").
cat "$tmp/err" >>"$tmp/maps"
for m in $(sed -n 's/^jit: perf map \(\/tmp\/perf-[0-9]*\.map\)$/\1/p' \
    "$tmp/maps"); do
	rm -f "$m"
done

# perf: the samples in JIT code are named from /tmp/perf-PID.map.
if ! command -v perf >/dev/null 2>&1; then
	fail "perf not found (package linux-perf)"
elif ! perf record -e cpu-clock -o "$tmp/perf.data" -- "$JIT" loop 0.5 \
    >"$tmp/loop" 2>"$tmp/perr"; then
	if grep -qi 'permission\|not supported\|perf_event_paranoid\|No such device' \
	    "$tmp/perr"; then
		cat "$tmp/perr"
		echo "SKIP (perf part): the kernel refuses perf_event_open"
		[ "$fails" -eq 0 ] && exit 77
	else
		fail "perf record failed:"
		cat "$tmp/perr" >&2
	fi
else
	map=$(sed -n 's/^jit: perf map \(\/tmp\/perf-[0-9]*\.map\)$/\1/p' \
	    "$tmp/perr")
	[ -n "$map" ] && [ -f "$map" ] || fail "no perf map written"
	perf report -i "$tmp/perf.data" --stdio --sort sym 2>/dev/null |
	    grep -v '^#' >"$tmp/report"
	sed -n '1,8p' "$tmp/report"
	for f in divide compute square; do
		grep -Eq "\] $f\$" "$tmp/report" ||
			fail "perf report does not name the JIT function $f"
		grep -q " $f\$" "$map" || fail "$f is not in $map"
	done
fi
exit $((fails > 0))
