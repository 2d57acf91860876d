#!/bin/sh
# scripts/example.sh -- the main job on the bundled example, from a fresh
# Debian 12 machine: set-up (scripts/setup.sh), then
#   1. link examples/hello.pcln and examples/hello_lib.pcln with pclnld,
#   2. verify the blob and dump it with pclndump,
#   3. query it through the runtime alone (examples/rtlookup),
#   4. walk a stack image through the runtime's traceback routine.
set -eu
cd "$(dirname "$0")/.."
./scripts/setup.sh >/dev/null
b=_build
out=$b/hello.blob
run() { echo "\$ $*"; "$@"; echo; }
run $b/tools/pclnld -v -o "$out" --map $b/hello.map examples/hello.pcln examples/hello_lib.pcln
run cat $b/hello.map
run $b/tools/pclndump verify "$out"
run $b/tools/pclndump summary "$out"
run $b/tools/pclndump functions "$out"
run $b/tools/pclndump func "$out" main.greet
run $b/tools/pclndump addr2line -f -p -a -e "$out" 0x1009 0x10a0 0x1060
rc=0
echo "\$ $b/examples/rtlookup $out 0x1009 0x10a0 0x1060"
$b/examples/rtlookup "$out" 0x1009 0x10a0 0x1060 || rc=$?
# 0x1060 is in the gap after main.main: rtlookup says "?" and exits 1.
[ "$rc" -eq 1 ] || { echo "example.sh: rtlookup exit $rc, want 1" >&2; exit 1; }
echo
run $b/examples/traceback examples/traceback.pcln
