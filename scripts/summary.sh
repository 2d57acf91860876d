#!/bin/sh
# scripts/summary.sh BUILDDIR -- print every failing test's log, then one
# closing line "N passed, N failed" counted from the automake .trs files.
dir=${1:-.}
pass=0; fail=0
for trs in $(find "$dir" -name '*.trs' -not -path '*/pcln-*/*'); do
	r=$(sed -n 's/^:test-result: //p' "$trs" | head -n 1)
	case "$r" in
	PASS|XFAIL|SKIP) pass=$((pass + 1)) ;;
	*) fail=$((fail + 1)); echo "=== FAILED: ${trs%.trs}.log"; cat "${trs%.trs}.log" ;;
	esac
done
echo "tests: $pass passed, $fail failed"
