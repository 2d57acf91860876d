#!/bin/sh
# cli-badinput.sh -- bad input end to end, through pclnld and pclndump.
#
#  1. Every description in tests/badinput/*.pcln fails to link with exit 1
#     and exactly the message on its first line ("# expect: FILE:LINE:
#     ..."), leaving an existing output untouched and no temporary file.
#  2. Numbers exactly at their limits link and verify; an empty
#     description links to an empty blob; empty files are refused.
#  3. A blob whose checksum does not match is reported by pclndump (verify,
#     summary, functions);
#     truncated and corrupted ELF files (every cut, every flip) and Go
#     ELF files are refused with one message each, never a crash.
#  4. A million-function description, generated here, links and
#     verifies.
#  5. Unwritable outputs: a missing directory, a file used as a
#     directory, /proc, a file-size limit (ulimit -f, SIGXFSZ ignored), a
#     full and a read-only tmpfs (where mount works, i.e. as root), a full
#     standard output (/dev/full): each fails with exit 1 and a message
#     naming the output and the cause; the earlier output keeps its bytes
#     and no temporary file is left.
#
# The harness exports top_builddir and top_srcdir (Makefile.am).
. "${top_srcdir:-.}/tests/lib.sh"
BAD=$top_srcdir/tests/badinput
note() {
	echo "cli-badinput: $*"
}

mnt=
cleanup_hook() {
	[ -n "$mnt" ] && umount "$mnt" 2>/dev/null
}
test_workdir cli-badinput
cp "$top_srcdir/examples/hello.pcln" "$top_srcdir/examples/hello_lib.pcln" .
"$LD" -o hello.blob hello.pcln hello_lib.pcln || { fail "hello link"; exit 1; }

# --- 1. descriptions with errors ----------------------------------------
cp hello.blob out.bin
sum=$(cksum <out.bin)
n=0
for f in "$BAD"/*.pcln; do
	name=$(basename "$f")
	cp "$f" "$name"
	want="pclnld: $(sed -n '1s/^# expect: //p' "$name")"
	"$LD" -o out.bin "$name" 2>err.txt
	rc=$?
	[ "$rc" -eq 1 ] || fail "$name: exit $rc, want 1"
	[ "$(cat err.txt)" = "$want" ] ||
		fail "$name: message '$(cat err.txt)', want '$want'"
	[ "$(cksum <out.bin)" = "$sum" ] || fail "$name: output changed"
	no_temp "$name"
	rm -f "$name"
	n=$((n + 1))
done
[ "$n" -ge 30 ] || fail "only $n bad descriptions"
note "$n bad descriptions refused with their message"

# --- 2. limits that hold, and empty inputs --------------------------------
# link_ok NAME TEXT: links and verifies.
link_ok() {
	printf '%b' "$2" >"$1.pcln"
	if "$LD" -o "$1.blob" "$1.pcln" 2>err.txt; then
		"$D" verify "$1.blob" >/dev/null 2>err.txt ||
			fail "$1: does not verify: $(cat err.txt)"
	else
		fail "$1: $(cat err.txt)"
	fi
}
link_ok max-values 'func f size 0xffffffff args -2147483648 frame 2147483647\n\tpcln 0:-2147483648 4:2147483647\n\tfuncdata 0 0xffffffffffffffff\nend\n'
link_ok top-of-ptr4 'target ptrsize 4\nfunc f size 0xf entry 0xfffffff0\nend\n'
link_ok top-of-ptr8 'func f size 0x10 entry 0xffffffffffffffe0\nend\n'
link_ok max-indices 'file 1000000 a.go\nfunc f size 8\n\tpcdata 1023 0:1\n\tfuncdata 1023 1\nend\n'
link_ok max-align 'func f size 8 align 0x40000000\nend\n'
link_ok empty ''
"$D" summary empty.blob 2>&1 | grep -q '^functions: *0$' ||
	fail "empty description: not 0 functions: $("$D" summary empty.blob 2>&1)"
: >empty.bin
"$D" verify empty.bin 2>err.txt
[ $? -eq 1 ] && [ "$(cat err.txt)" = "pclndump: empty.bin: empty file" ] ||
	fail "empty blob: $(cat err.txt)"
"$LD" --go empty.bin -o x.blob 2>err.txt
[ $? -eq 1 ] && [ -s err.txt ] && [ ! -e x.blob ] || fail "--go empty: $(cat err.txt)"

# --- 3. corrupt blobs and ELF files --------------------------------------
len=$(wc -c <hello.blob)
# A checksum bit flipped: only the checksum can tell.
cp hello.blob badsum.blob
printf '\001' | dd of=badsum.blob bs=1 seek=$((len - 12)) conv=notrunc 2>/dev/null
printf '\200' | dd of=badsum.blob bs=1 seek=$((len - 12)) conv=notrunc 2>/dev/null
cmp -s hello.blob badsum.blob && fail "badsum.blob not changed"
"$D" verify badsum.blob >/dev/null 2>err.txt
[ $? -eq 1 ] && grep -q '^pclndump: badsum.blob: checksum mismatch: ' err.txt ||
	fail "checksum mismatch not reported: $(cat err.txt)"
for cmd in summary functions; do
	"$D" "$cmd" badsum.blob >/dev/null 2>err.txt
	[ $? -eq 1 ] && grep -q '^pclndump: badsum.blob: checksum mismatch: ' err.txt ||
		fail "pclndump $cmd: checksum mismatch not reported: $(cat err.txt)"
done
"$D" --json verify badsum.blob >out.json 2>/dev/null
[ $? -eq 1 ] && grep -q 'checksum' out.json ||
	fail "--json verify: checksum mismatch not reported: $(cat out.json)"
# Truncated blobs: a few cuts, each one message.
for cut in 1 8 16 40 100 $((len / 2)) $((len - 32)) $((len - 1)); do
	head -c "$cut" hello.blob >cut.blob
	"$D" verify cut.blob >/dev/null 2>err.txt
	rc=$?
	[ "$rc" -eq 1 ] && [ "$(wc -l <err.txt)" -eq 1 ] &&
	    grep -q '^pclndump: cut.blob: ' err.txt ||
		fail "blob cut at $cut: exit $rc: $(cat err.txt)"
done

if command -v objcopy >/dev/null 2>&1 && command -v python3 >/dev/null 2>&1; then
	objcopy --add-section .pcln=hello.blob \
	    "$top_srcdir/fuzz/corpus/fuzz_elf/plain64le.elf" hello.elf ||
		fail "objcopy"
	"$D" verify hello.elf >/dev/null 2>err.txt || fail "hello.elf: $(cat err.txt)"
	cat >mutate.py <<'EOF'
import sys
b = open(sys.argv[1], "rb").read()
for i in range(len(b)):
    open("%s.cut%d" % (sys.argv[2], i), "wb").write(b[:i])
    c = bytearray(b)
    c[i] ^= 0x5a
    open("%s.flip%d" % (sys.argv[2], i), "wb").write(c)
EOF
	python3 mutate.py hello.elf e
	elen=$(wc -c <hello.elf)
	# Every cut loses the section headers (at the end) or the blob.
	"$D" verify e.cut* >out.txt 2>err.txt
	rc=$?
	[ "$rc" -eq 1 ] || fail "ELF cuts: exit $rc"
	[ "$(grep -c '^pclndump: e\.cut[0-9]*: ' err.txt)" -eq "$elen" ] ||
		fail "ELF cuts: $(grep -c '^pclndump: ' err.txt) messages for $elen files"
	[ -s out.txt ] && fail "ELF cut accepted: $(head -n 3 out.txt)"
	# Flips: each file gets one answer, ok or an error; no crash.
	"$D" verify e.flip* >out.txt 2>err.txt
	rc=$?
	[ "$rc" -eq 1 ] || fail "ELF flips: exit $rc"
	nerr=$(grep -c '^pclndump: e\.flip[0-9]*: ' err.txt)
	nok=$(grep -c '^e\.flip[0-9]*: ok' out.txt)
	[ $((nerr + nok)) -eq "$elen" ] ||
		fail "ELF flips: $nerr errors + $nok ok for $elen files"
	note "ELF: $elen cuts refused, $elen flips: $nerr refused, $nok unharmed"
	rm -f e.cut* e.flip*

	# A Go 1.20 table in an ELF file, cut every 7 bytes, through --go.
	mkdir gotabs
	"$top_builddir/tests/check_goimport" --write gotabs >/dev/null 2>&1 &&
	    objcopy --add-section .gopclntab=gotabs/go120-8-1-le.tab \
	    "$top_srcdir/fuzz/corpus/fuzz_elf/plain64le.elf" go.elf ||
		fail "making go.elf"
	"$LD" --go go.elf -o go.blob 2>err.txt || fail "go.elf: $(cat err.txt)"
	glen=$(wc -c <go.elf 2>/dev/null || echo 0)
	i=0
	while [ "$i" -lt "$glen" ]; do
		head -c "$i" go.elf >gocut.elf
		"$LD" --go gocut.elf -o gocut.blob 2>err.txt
		rc=$?
		[ "$rc" -eq 1 ] && [ -s err.txt ] && [ ! -e gocut.blob ] ||
			fail "--go of go.elf cut at $i: exit $rc: $(cat err.txt)"
		i=$((i + 7))
	done
	no_temp "go cuts"
else
	note "objcopy or python3 missing: ELF cases not run"
fi

# --- 4. a million functions -----------------------------------------------
awk 'BEGIN {
	for (i = 0; i < 1000000; i++)
		printf "func f%d size 16\n\tpcsp 0:0 4:8\n\tpcln 0:%d\nend\n", i, i % 5000 + 1
}' >million.pcln
if "$LD" -o million.blob million.pcln 2>err.txt; then
	"$D" verify million.blob >out.txt 2>err.txt
	grep -q '^million.blob: ok: 1000000 functions, ' out.txt ||
		fail "million: $(cat out.txt err.txt)"
else
	fail "million: $(cat err.txt)"
fi
rm -f million.pcln million.blob

# --- 5. outputs that cannot be written -------------------------------------
# out_error NAME OUTPUT CAUSE: the link to OUTPUT fails with exit 1 and the
# message "pclnld: OUTPUT: ...CAUSE".
out_error() {
	"$LD" -o "$2" hello.pcln hello_lib.pcln 2>err.txt
	rc=$?
	[ "$rc" -eq 1 ] || fail "$1: exit $rc, want 1"
	grep -q "^pclnld: $2: .*$3\$" err.txt || fail "$1: message: $(cat err.txt)"
}
out_error missing-dir nodir/out.blob 'No such file or directory'
[ -e nodir ] && fail "missing-dir: created"
out_error file-as-dir hello.pcln/out.blob 'Not a directory'
out_error proc /proc/out.blob 'No such file or directory'
# A file-size limit: the write fails half way, the old output stays.
big_pcln big.pcln
cp hello.blob keep.blob
sum=$(cksum <keep.blob)
(
	ulimit -f 2
	trap '' XFSZ
	"$LD" -o keep.blob big.pcln 2>&1
	echo "exit $?"
) | cat >err.txt
grep -q '^pclnld: keep.blob: cannot write: File too large$' err.txt &&
    grep -q '^exit 1$' err.txt || fail "ulimit -f: $(cat err.txt)"
[ "$(cksum <keep.blob)" = "$sum" ] || fail "ulimit -f: output changed"
no_temp "ulimit -f"
# pclndump and pclnld on a full standard output.
if [ -w /dev/full ]; then
	"$D" functions hello.blob >/dev/full 2>err.txt
	rc=$?
	[ "$rc" -ne 0 ] && grep -q 'No space left on device' err.txt ||
		fail "pclndump >/dev/full: exit $rc: $(cat err.txt)"
	"$LD" -o - hello.pcln >/dev/full 2>err.txt
	rc=$?
	[ "$rc" -eq 1 ] && grep -q 'No space left on device' err.txt ||
		fail "pclnld -o - >/dev/full: exit $rc: $(cat err.txt)"
fi
# A full and a read-only file system, where we may mount one.
mkdir m
if mount -t tmpfs -o size=64k pclntest "$work/m" 2>/dev/null; then
	mnt=$work/m
	cp hello.blob m/out.blob
	sum=$(cksum <m/out.blob)
	dd if=/dev/zero of=m/fill bs=4096 2>/dev/null
	out_error full-fs m/out.blob 'No space left on device'
	[ "$(cksum <m/out.blob)" = "$sum" ] || fail "full-fs: output changed"
	no_temp full-fs m
	rm -f m/fill
	mount -o remount,ro "$mnt" 2>/dev/null || fail "remount ro"
	out_error ro-fs m/out.blob 'Read-only file system'
	[ "$(cksum <m/out.blob)" = "$sum" ] || fail "ro-fs: output changed"
	no_temp ro-fs m
	umount "$mnt" && mnt=
	note "full and read-only tmpfs checked"
else
	note "cannot mount a tmpfs (not root): full and read-only file systems not checked"
fi

if [ "$fails" -ne 0 ]; then
	echo "cli-badinput: $fails failure(s)" >&2
	exit 1
fi
exit 0
