#!/bin/sh
# fuzz-replay.sh -- every committed fuzz input through its target, on
# every build: the seed corpus fuzz/corpus/TARGET/ and the crash seeds
# fuzz/crashes/TARGET/ (what scripts/fuzz-long.sh kept) go through
# fuzz/replay_TARGET, the target's LLVMFuzzerTestOneInput linked without
# libFuzzer (fuzz/replay.c).  A target that crashes, aborts or trips a
# sanitizer on any of them fails the test; so does a target without a
# seed corpus, or a crash seed of a target that does not exist.
set -eu
: "${top_builddir:?}" "${top_srcdir:?}"
n=0
for exe in "$top_builddir"/fuzz/replay_fuzz_*; do
	[ -x "$exe" ] || continue
	t=${exe##*/replay_}
	corpus=$top_srcdir/fuzz/corpus/$t
	[ -d "$corpus" ] || { echo "fuzz-replay: no seed corpus $corpus" >&2; exit 1; }
	set -- "$corpus"
	[ ! -d "$top_srcdir/fuzz/crashes/$t" ] || set -- "$@" "$top_srcdir/fuzz/crashes/$t"
	out=$("$exe" "$@") || { echo "fuzz-replay: $t failed on $*" >&2; exit 1; }
	echo "$t: $out"
	case $out in "0 inputs") echo "fuzz-replay: $t: no input" >&2; exit 1 ;; esac
	n=$((n + 1))
done
[ "$n" -ge 6 ] || { echo "fuzz-replay: only $n targets built" >&2; exit 1; }
# Every target's seeds and crash seeds are replayed: a corpus or crash
# folder without its replay program is a target left out of make check.
for d in "$top_srcdir"/fuzz/crashes/*/ "$top_srcdir"/fuzz/corpus/*/; do
	[ -d "$d" ] || continue
	t=$(basename "$d")
	[ -x "$top_builddir/fuzz/replay_$t" ] || [ "$t" = fuzz_dwarf ] ||
	    { echo "fuzz-replay: seeds for $t, which has no fuzz/replay_$t" >&2; exit 1; }
done
echo "fuzz-replay: $n targets"
