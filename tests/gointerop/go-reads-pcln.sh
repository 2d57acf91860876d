#!/bin/sh
# go-reads-pcln.sh -- Go's debug/gosym reads the blobs pcln writes, and
# says about every function, pc, file and line what libpcln's reader says
# (tests/gointerop/gosymcheck.go lists the checks).
#
# Blobs: seeded random links written by libpcln's builder (randblob) over
# pointer size 4/8, quantum 1/4, both byte orders, with and without the
# trailer; the examples linked by pclnld; and the synthetic Go-layout
# tables of tests/check_goimport (which so are checked against Go's own
# reader: Go 1.2 packed and unpacked, 1.16, 1.18, and 1.20 when the
# installed Go knows it).
set -eu
. "$top_srcdir/tests/gointerop/go-env.sh"

dir=$work/go-reads-pcln
rm -rf "$dir"
mkdir -p "$dir"
fails=0
n=0

check() {	# check TABLE [gosymcheck options]
	tab=$1
	shift
	n=$((n + 1))
	if ! "$pclnjson" "$tab" > "$tab.json" 2> "$tab.err"; then
		cat "$tab.err" >&2
		echo "FAIL: pclnjson $tab" >&2
		fails=$((fails + 1))
		return 0
	fi
	if ! "$gosymcheck" "$@" "$tab" "$tab.json" > "$tab.out"; then
		echo "FAIL: gosymcheck $* $tab" >&2
		fails=$((fails + 1))
	fi
}

# 1. seeded random blobs: 64 seeds over the 16 target x trailer variants
randblob=$(real "$top_builddir/tests/gointerop/randblob")
seed=1
while [ $seed -le 64 ]; do
	v=$((seed % 16))
	ps=4; [ $((v & 1)) -eq 0 ] || ps=8
	q=1; [ $((v & 2)) -eq 0 ] || q=4
	bo=le; [ $((v & 4)) -eq 0 ] || bo=be
	tr=trailer; [ $((v & 8)) -eq 0 ] || tr=go12
	f=$dir/rand-$seed-$ps-$q-$bo-$tr.pcln
	"$randblob" $seed $ps $q $bo $tr "$f"
	check "$f"
	seed=$((seed + 1))
done

# 2. the examples, linked by pclnld (with and without the trailer)
if [ -x "$pclnld" ]; then
	for ex in "$top_srcdir"/examples/*.pcln; do
		[ -f "$ex" ] || continue
		b=$dir/ex-$(basename "$ex" .pcln)
		"$pclnld" -o "$b.blob" "$ex"
		check "$b.blob"
		"$pclnld" --go12 -o "$b-go12.blob" "$ex"
		check "$b-go12.blob"
	done
else
	echo "FAIL: $pclnld not built" >&2
	fails=$((fails + 1))
fi

# 3. the synthetic Go-layout tables of check_goimport, read by Go itself
mkdir -p "$dir/golayouts"
"$top_builddir/tests/check_goimport" --write "$dir/golayouts"
for f in "$dir"/golayouts/*.tab; do
	case $(basename "$f") in
	go120-*) [ "${go_minor:-0}" -ge 20 ] || continue ;;
	esac
	check "$f" -text 0x401000
done

echo "go-reads-pcln: $n tables checked with $(go version), $fails failed"
[ $fails -eq 0 ]
