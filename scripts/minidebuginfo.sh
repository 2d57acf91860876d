#!/bin/sh
# scripts/minidebuginfo.sh PROGRAM DEBUGFILE OUT -- OUT is PROGRAM
# stripped (strip -s) with MiniDebugInfo added: a .gnu_debugdata section
# holding, xz-compressed, DEBUGFILE's symbols for the functions .dynsym
# lacks (Fedora's recipe, as its find-debuginfo does it).  Used by
# tests/find-routes.sh and bench/ship.sh.
set -eu
prog=$1 debug=$2 out=$3
tmp=$(mktemp -d "${TMPDIR:-/tmp}/minidebuginfo.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
nm -D "$prog" --format=posix --defined-only | awk '{ print $1 }' |
    sort >"$tmp/dynsyms"
nm "$prog" --format=posix --defined-only |
    awk '$2 == "T" || $2 == "t" { print $1 }' | sort >"$tmp/funcsyms"
comm -13 "$tmp/dynsyms" "$tmp/funcsyms" >"$tmp/keep"
objcopy -S --remove-section .gdb_index --remove-section .comment \
    --keep-symbols="$tmp/keep" "$debug" "$tmp/mini"
xz "$tmp/mini"
strip -s "$prog" -o "$out"
objcopy --add-section .gnu_debugdata="$tmp/mini.xz" "$out"
