#!/bin/sh
# scripts/sanitize.sh -- the whole test suite under AddressSanitizer,
# UndefinedBehaviorSanitizer and LeakSanitizer: configure in _build-san
# with --enable-sanitizers (every object, the tools the CLI tests run
# included) and run `make check`.  Any sanitizer report, a leak included,
# makes the program that hit it fail, and so the run.  The Go interop
# tests run too (they need Go; they skip without it).
set -eu
cd "$(dirname "$0")/.."
top=$(pwd)
if [ ! -x configure ] || [ configure.ac -nt configure ] || [ ! -f Makefile.in ]; then
	autoreconf -fi
fi
mkdir -p _build-san
cd _build-san
if [ ! -f Makefile ] || [ ../configure -nt config.status ]; then
	"$top/configure" --enable-sanitizers --enable-werror -q
fi
ASAN_OPTIONS=detect_leaks=1:abort_on_error=0:strict_string_checks=1:detect_stack_use_after_return=1
UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
export ASAN_OPTIONS UBSAN_OPTIONS
rc=0
make -j"$(nproc)" check || rc=$?
"$top/scripts/summary.sh" . || true
if [ "$rc" -ne 0 ]; then
	echo "sanitize.sh: make check failed under the sanitizers" >&2
	exit "$rc"
fi
echo "sanitize.sh: make check passed under ASan, UBSan and LSan"
