#!/bin/sh
# examples.sh -- the README's main job, checked: link the bundled example
# with pclnld, verify it with pclndump, and query it through the runtime
# (examples/rtlookup), asserting every answer: inside functions, at their
# last byte, in the gap after main.main (padding before the fixed
# main.init), before the first function and past the end.
set -eu
: "${top_builddir:?}" "${top_srcdir:?}"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
blob=$tmp/hello.blob
"$top_builddir/tools/pclnld" -o "$blob" "$top_srcdir/examples/hello.pcln" \
    "$top_srcdir/examples/hello_lib.pcln"
"$top_builddir/tools/pclndump" verify "$blob" >/dev/null
rc=0
"$top_builddir/examples/rtlookup" "$blob" 0x1000 0x1009 0x105f 0x1060 \
    0x1085 0x10a0 0x10cc 0x113f 0xfff 0x1140 >"$tmp/got" || rc=$?
cat >"$tmp/want" <<'WANT'
0x1000 main.main+0x0 hello.go:5 spdelta=0x0
0x1009 main.main+0x9 hello.go:6 spdelta=0x28
0x105f main.main+0x5f hello.go:8 spdelta=0x0
0x1060 ?
0x1085 main.init+0x5 hello.go:3 spdelta=0x0
0x10a0 main.greet+0x10 fmt/print.go:93 spdelta=0x18
0x10cc runtime.procyield+0x4 runtime/asm_amd64.s:100 spdelta=0x0
0x113f runtime.morestack+0x1f runtime/asm_amd64.s:101 spdelta=0x0
0xfff ?
0x1140 ?
WANT
diff -u "$tmp/want" "$tmp/got"
# Some pcs were in no function: rtlookup says so with exit status 1.
[ "$rc" -eq 1 ] || { echo "rtlookup exit $rc, want 1" >&2; exit 1; }
echo "examples: 10 runtime answers as expected"
