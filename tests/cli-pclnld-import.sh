#!/bin/sh
# cli-pclnld-import.sh -- pclnld --go and --elf from the command line:
# a Go 1.2 table (raw, and inside an ELF .gopclntab section) re-emitted
# in our format keeps every function, file and line; target options that
# differ from the table's are a usage error (2) that writes nothing;
# bad inputs exit 1 and leave an existing output intact.

. "${top_srcdir:-.}/tests/lib.sh"
test_workdir cli-import

# expect STATUS CMD...: run CMD, check its exit status.
expect() {
	want=$1; shift
	"$@" >out.log 2>err.log
	got=$?
	[ $got -eq "$want" ] || { cat err.log >&2; fail "$*: exit $got, expected $want"; }
}

# A Go 1.2 table: our own link, without the trailer.
expect 0 "$LD" --go12 -o hello.go12 "$top_srcdir/examples/hello.pcln"
expect 0 "$LD" --go hello.go12 -o hello.pcln -v
grep -q "Go 1.2 table" err.log || fail "--go -v: no table summary"
expect 0 "$D" verify hello.pcln
"$D" functions hello.go12 >a.txt 2>&1
"$D" functions hello.pcln >b.txt 2>&1
cmp -s a.txt b.txt || { diff -u a.txt b.txt >&2; fail "--go: functions differ"; }
[ -s a.txt ] || fail "--go: no functions listed"
"$D" summary hello.pcln | grep -q '^trailer: *version' ||
	fail "--go: output has no trailer"
expect 0 "$LD" --go hello.go12 --go12 -o plain.go12
"$D" functions plain.go12 >c.txt 2>&1
cmp -s a.txt c.txt || fail "--go --go12: functions differ"
"$D" summary plain.go12 | grep -q '^trailer: *none' ||
	fail "--go --go12: output has a trailer"

# The same table in an ELF file's .gopclntab section.
if command -v objcopy >/dev/null 2>&1 && [ -f "$top_builddir/examples/crash-nopcln" ]; then
	objcopy --add-section .gopclntab=hello.go12 \
	    "$top_builddir/examples/crash-nopcln" host.elf ||
		fail "objcopy"
	expect 0 "$LD" --go host.elf -o fromelf.pcln
	cmp -s hello.pcln fromelf.pcln || fail "--go ELF: differs from --go raw"
fi

# Target options that differ from the table's: usage error, no output.
for opt in "--ptrsize 4" "--quantum 4" "--endian big"; do
	# shellcheck disable=SC2086
	expect 2 "$LD" --go hello.go12 $opt -o bad.pcln
	grep -q "differs from the target" err.log || fail "--go $opt: message"
	[ ! -e bad.pcln ] || fail "--go $opt: wrote output"
done
expect 0 "$LD" --go hello.go12 --ptrsize 8 --quantum 1 --endian little -o same.pcln
cmp -s hello.pcln same.pcln || fail "matching target options change the output"

# Usage and input errors.
echo keep >keep.pcln
expect 2 "$LD" --go hello.go12 -o keep.pcln "$top_srcdir/examples/hello.pcln"
expect 2 "$LD" --go hello.go12 --elf hello.go12 -o keep.pcln
expect 2 "$LD" --go hello.go12 --map m -o keep.pcln
expect 1 "$LD" --go nonexistent -o keep.pcln
grep -q nonexistent err.log || fail "missing file not named"
printf 'junk junk junk junk' >junk
expect 1 "$LD" --go junk -o keep.pcln
expect 1 "$LD" --elf junk -o keep.pcln
grep -q "junk" err.log || fail "--elf junk: file not named"
expect 1 "$LD" --elf nonexistent -o keep.pcln
[ "$(cat keep.pcln)" = keep ] || fail "a failed import changed the output"

# --elf on a real program, with a differing target option.
if [ -f "$top_builddir/examples/crash-nopcln" ]; then
	expect 0 "$LD" --elf "$top_builddir/examples/crash-nopcln" -o c.pcln
	expect 0 "$D" verify c.pcln
	"$D" functions c.pcln | grep -q 'crash_level3' ||
		fail "--elf: crash_level3 not found"
	expect 2 "$LD" --elf "$top_builddir/examples/crash-nopcln" --ptrsize 4 -o bad.pcln
	[ ! -e bad.pcln ] || fail "--elf --ptrsize 4: wrote output"
	# The inline tree by default; none with --no-inline, which must
	# not be accepted without --elf.
	"$D" summary c.pcln | grep -q '(INLPACK)' ||
		fail "--elf: no INLPACK section"
	expect 0 "$LD" --elf "$top_builddir/examples/crash-nopcln" \
	    --no-inline -o noinl.pcln
	expect 0 "$D" verify noinl.pcln
	"$D" summary noinl.pcln | grep -q '(INL\(TREE\|PACK\))' &&
		fail "--no-inline: inline section written"
	expect 2 "$LD" --go hello.go12 --no-inline -o bad.pcln
fi

# The DWARF fuzz target's seeds, found crashes included (regressions):
# each imports to a blob that verifies, or fails with a message; never a
# signal (and, in the sanitizer pass, no sanitizer report).
if [ -f "$top_builddir/examples/crash-nopcln" ]; then
	for f in "$top_srcdir"/fuzz/corpus/fuzz_dwarf/*.elf; do
		rc=0
		"$LD" --elf "$f" -o seed.pcln 2>err.log || rc=$?
		case $rc in
		0) "$D" verify seed.pcln >/dev/null ||
			fail "--elf $(basename "$f"): blob does not verify" ;;
		1) [ -s err.log ] || fail "--elf $(basename "$f"): no message" ;;
		*) fail "--elf $(basename "$f"): exit $rc" ;;
		esac
		rm -f seed.pcln
	done
fi
[ $fails -eq 0 ]
