#!/bin/sh
# scripts/summary.sh BUILDDIR -- print every failing test's log, the ten
# slowest tests, then one closing line "N passed, N failed" counted from
# the automake .trs files.  A test's time is from its .log's birth (the
# harness makes it as the test starts) to its .trs's last change (written
# as it ends); where the file system keeps no birth time, none is shown.
dir=${1:-.}
pass=0; fail=0
for trs in $(find "$dir" -name '*.trs' -not -path '*/pcln-*/*'); do
	r=$(sed -n 's/^:test-result: //p' "$trs" | head -n 1)
	case "$r" in
	PASS|XFAIL|SKIP) pass=$((pass + 1)) ;;
	*) fail=$((fail + 1)); echo "=== FAILED: ${trs%.trs}.log"; cat "${trs%.trs}.log" ;;
	esac
done
for trs in $(find "$dir" -name '*.trs' -not -path '*/pcln-*/*'); do
	b=$(stat -c %W "${trs%.trs}.log" 2>/dev/null) || continue
	e=$(stat -c %Y "$trs") || continue
	[ "$b" -gt 0 ] 2>/dev/null && echo "$((e - b)) ${trs#"$dir"/}"
done | sort -rn | head -n 10 |
    awk '{ printf "%s%s %d s", n++ ? ", " : "tests: slowest: ", substr($2, 1, length($2) - 4), $1 } END { if (n) print "" }'
echo "tests: $pass passed, $fail failed"
