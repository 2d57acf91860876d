#!/bin/sh
# tests/runtime-nolibc.sh -- the runtime references nothing outside itself.
#
# Compiles every runtime source freestanding (-ffreestanding -fno-builtin,
# strict -std=c11) with the configured compiler and with clang if present,
# at -O0, -O2 and -Os, and fails if the objects together leave any symbol
# undefined (no libc, no memcpy/memset the compiler might emit, no
# libatomic, no stack protector, no libgcc helper such as __udivdi3) or
# define a global symbol without the pclnrt_ prefix.  Also for 32-bit x86
# (-m32) and, with clang, arm, aarch64 and riscv64, where the compiler can
# build for them (the _GLOBAL_OFFSET_TABLE_ of 32-bit PIC is allowed).  Then checks the objects the build really made, unless
# they were built with sanitizers (whose hooks are undefined by design).
# Prints nothing on success.
set -u
srcdir=${top_srcdir:-$(cd "$(dirname "$0")/.." && pwd)}
builddir=${top_builddir:-.}
NM=${NM:-nm}
srcs="pclnrt.c module.c codemap.c traceback.c checksum.c inline.c jit.c"

cc=
if [ -f "$builddir/Makefile" ]; then
	cc=$(sed -n 's/^CC = //p' "$builddir/Makefile" | head -n 1)
	cflags=$(sed -n 's/^CFLAGS = //p' "$builddir/Makefile" | head -n 1)
fi
cc=${cc:-${CC:-cc}}
cflags=${cflags:-}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/pclnrt-nolibc.XXXXXX") || exit 99
trap 'rm -rf "$tmp"' EXIT
fail=0

# check NAME OBJ...: undefined symbols not defined by the set, and
# global definitions without the prefix.
check() {
	what=$1
	shift
	$NM -u "$@" | awk 'NF == 2 && $1 == "U" { print $2 }' | sort -u \
	    >"$tmp/undef" || return 1
	$NM --defined-only -g "$@" | awk 'NF == 3 { print $3 }' | sort -u \
	    >"$tmp/def" || return 1
	bad=$(comm -23 "$tmp/undef" "$tmp/def" | grep -v '^_GLOBAL_OFFSET_TABLE_$')
	if [ -n "$bad" ]; then
		echo "runtime-nolibc: $what: undefined symbols:" $bad >&2
		fail=1
	fi
	# __x86.get_pc_thunk.*: hidden helpers gcc emits for 32-bit PIC.
	bad=$(grep -v -e '^pclnrt_' -e '^__x86\.get_pc_thunk\.' "$tmp/def")
	if [ -n "$bad" ]; then
		echo "runtime-nolibc: $what: unprefixed global symbols:" $bad >&2
		fail=1
	fi
}

# run_one WHAT COMPILER-AND-FLAGS...: compile all sources, check them.
run_one() {
	what=$1
	shift
	objs=
	for s in $srcs; do
		o=$tmp/${s%.c}.o
		if ! "$@" -std=c11 -ffreestanding -fno-builtin \
		    -fno-stack-protector -I"$srcdir/runtime" \
		    -c "$srcdir/runtime/$s" -o "$o"; then
			echo "runtime-nolibc: $what: cannot compile $s" >&2
			fail=1
			return
		fi
		objs="$objs $o"
	done
	check "$what" $objs
	rm -f $objs
}

# can COMPILER-AND-FLAGS...: does it build a freestanding object at all?
can() {
	echo 'int pclnrt_probe_(void); int pclnrt_probe_(void) { return 0; }' \
	    >"$tmp/probe.c"
	"$@" -std=c11 -ffreestanding -c "$tmp/probe.c" -o "$tmp/probe.o" \
	    >/dev/null 2>&1
}

compilers=$cc
if command -v clang >/dev/null 2>&1 && [ "$cc" != clang ]; then
	compilers="$compilers clang"
fi
for c in $compilers; do
	for opt in -O0 -O2 -Os; do
		run_one "$c $opt" $c $opt
	done
	if can $c -m32; then
		run_one "$c -m32 -O2" $c -m32 -O2
	fi
done
if command -v clang >/dev/null 2>&1; then
	for t in armv7-linux-gnueabihf aarch64-linux-gnu riscv64-linux-gnu; do
		if can clang --target=$t; then
			run_one "clang --target=$t -O2" clang --target=$t -O2
			run_one "clang --target=$t -O0" clang --target=$t -O0
		fi
	done
fi

# The objects of this build (libtool puts PIC objects in .libs/).
case $cflags in
*-fsanitize*|*--coverage*|*-fprofile-arcs*) ;;
*)
	for dir in "$builddir/runtime/.libs" "$builddir/runtime"; do
		built=$(ls "$dir"/runtime_libpclnrt_la-*.o 2>/dev/null)
		if [ -n "$built" ]; then
			check "built objects in $dir" $built
		fi
	done
	;;
esac
exit $fail
