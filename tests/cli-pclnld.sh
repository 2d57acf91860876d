#!/bin/sh
# cli-pclnld.sh -- pclnld from the command line: the examples link and
# verify; --map and -v match tests/pclnld/*.expected; every error exits 1,
# writes nothing and leaves an existing output intact; a generated
# 100k-function input links; same inputs give the same bytes; --index,
# --no-index and --checkpoints write what they say.
#
# The harness exports top_builddir and top_srcdir (Makefile.am).
# To refresh the expected files after a deliberate change, run with
# PCLNLD_REGEN=1 and review the diff.

. "${top_srcdir:-.}/tests/lib.sh"
VERIFY=$top_builddir/tests/verify_blob
EXP=$top_srcdir/tests/pclnld
test_workdir cli-pclnld
cp "$top_srcdir/examples/hello.pcln" "$top_srcdir/examples/hello_lib.pcln" .

# Compare FILE with the expected file NAME (or regenerate it).
check_expected() {
	if [ "${PCLNLD_REGEN:-}" = 1 ]; then
		cp "$1" "$EXP/$2"
	elif ! diff -u "$EXP/$2" "$1" >&2; then
		fail "$2 differs"
	fi
}

verify() {
	"$VERIFY" "$@" >verify.log 2>&1 || { cat verify.log >&2; fail "verify $*"; }
}

# --- the example: link, map, stats, verify, determinism ----------------
if "$LD" -o hello.out --map hello.map -v hello.pcln hello_lib.pcln \
    2>stats.txt; then
	verify hello.out
	check_expected hello.map map.expected
	check_expected stats.txt stats.expected
else
	cat stats.txt >&2
	fail "example link"
fi
"$LD" -o hello2.out hello.pcln hello_lib.pcln || fail "second link"
cmp -s hello.out hello2.out || fail "output differs between two runs"
"$LD" -o hello-go12.out --go12 hello.pcln hello_lib.pcln || fail "--go12"
verify hello-go12.out
[ "$(wc -c <hello-go12.out)" -lt "$(wc -c <hello.out)" ] ||
	fail "--go12 output not smaller than with the trailer"
"$LD" -o lib-be.out --map be.map --endian big --ptrsize 8 --quantum 1 \
    --text-base 0x400000 hello_lib.pcln 2>err.txt ||
	fail "explicit target options: $(cat err.txt)"
verify lib-be.out
grep -q '^0x400000 0x400040 0x40 0x[0-9a-f]* .* fmt.Println hello_lib.pcln:7 pcdata 2=0x[0-9a-f]*+5$' \
    be.map || fail "--text-base: $(cat be.map)"
grep -q '^# target: ptrsize 8, quantum 1, big endian$' be.map ||
	fail "--endian big: $(cat be.map)"
"$LD" -o - hello.pcln hello_lib.pcln >stdout.out || fail "-o -"
cmp -s hello.out stdout.out || fail "-o - differs from -o FILE"
"$LD" --help | grep -q '^Usage: pclnld' || fail "--help"
"$LD" --version | grep -q '^pclnld (pcln) ' || fail "--version"

# --- errors: exit 1, message, nothing written, old output intact -------
: >errors.log
printf 'previous contents\n' >out.bin
sum_before=$(cksum <out.bin)

# run_error NAME ARGS...: pclnld must fail with status 1.
run_error() {
	name=$1
	shift
	rm -f out.map
	"$LD" -o out.bin --map out.map "$@" 2>err.txt
	rc=$?
	[ $rc -eq 1 ] || fail "$name: exit status $rc, want 1"
	[ "$(cksum <out.bin)" = "$sum_before" ] ||
		fail "$name: existing output changed"
	[ -e out.map ] && fail "$name: map written"
	ls -a | grep -q '^\.out\.' && fail "$name: temporary left behind"
	echo "## $name" >>errors.log
	cat err.txt >>errors.log
	# Without an earlier output, none appears.
	"$LD" -o fresh.bin "$@" 2>/dev/null && fail "$name: linked"
	[ -e fresh.bin ] && fail "$name: fresh output written"
}

cat >syntax.pcln <<'EOF'
func f size 8
	pcsp 0:0
	bogus 1 2
end
EOF
run_error syntax syntax.pcln

cat >range.pcln <<'EOF'
func f size 8
	pcln 0:99999999999
end
EOF
run_error value-range range.pcln

cat >beyond.pcln <<'EOF'
func f size 8
	pcsp 0:0 8:4
end
EOF
run_error point-beyond-size beyond.pcln

cat >order.pcln <<'EOF'
func f size 8
	pcsp 0:0 4:4
	pcsp 2:8
end
EOF
run_error not-increasing order.pcln

cat >fix1.pcln <<'EOF'
func first entry 0x2000 size 0x20
end
EOF
cat >fix2.pcln <<'EOF'
# overlaps first
func second entry 0x2010 size 0x20
end
EOF
run_error overlap fix1.pcln fix2.pcln

cat >dup.pcln <<'EOF'
func main.main size 4
end
EOF
run_error duplicate hello.pcln dup.pcln

cat >t4.pcln <<'EOF'
target ptrsize 4 quantum 1
EOF
run_error target-conflict hello.pcln t4.pcln
run_error target-cmdline --quantum 4 hello.pcln

cat >undef.pcln <<'EOF'
func f size 8
	funcdata 0 gclocals.nowhere+16
end
EOF
run_error undefined-symbol undef.pcln

cat >badhex.pcln <<'EOF'
func f size 0x20
	pcsp hex 02 10 00
end
EOF
run_error bad-hex-table badhex.pcln

run_error unreadable-input hello.pcln missing.pcln
if [ "$(id -u)" != 0 ]; then
	cp hello.pcln noread.pcln && chmod 000 noread.pcln
	"$LD" -o out.bin noread.pcln 2>err.txt && fail "unreadable: linked"
	grep -q 'noread.pcln: cannot open: Permission denied' err.txt ||
		fail "unreadable: $(cat err.txt)"
	[ "$(cksum <out.bin)" = "$sum_before" ] || fail "unreadable: output"
fi
check_expected errors.log errors.expected

# Unwritable output: a missing directory, and (not as root) a read-only
# one holding an old output.
"$LD" -o nodir/out.bin hello.pcln 2>err.txt && fail "nodir: linked"
grep -q '^pclnld: nodir/out.bin: cannot create a temporary file in its directory: No such file or directory$' err.txt ||
	fail "nodir: $(cat err.txt)"
[ -e nodir ] && fail "nodir: created"
if [ "$(id -u)" != 0 ]; then
	mkdir ro && cp out.bin ro/out.bin && chmod 555 ro
	"$LD" -o ro/out.bin hello.pcln 2>err.txt && fail "ro: linked"
	grep -q 'Permission denied' err.txt || fail "ro: $(cat err.txt)"
	[ "$(cksum <ro/out.bin)" = "$sum_before" ] || fail "ro: output changed"
	[ "$(ls -a ro | wc -l)" -eq 3 ] || fail "ro: temporary left behind"
fi
# Unwritable map: neither the map nor the blob is written.
"$LD" -o map-ok.out --map nodir/x.map hello.pcln 2>err.txt &&
	fail "map nodir: linked"
grep -q 'nodir/x.map: cannot create' err.txt || fail "map: $(cat err.txt)"
[ -e map-ok.out ] && fail "map nodir: blob written"
ls -a | grep -q '^\.map-ok' && fail "map nodir: temporary left behind"

# Usage errors: status 2.
"$LD" -o x.out --ptrsize 5 hello.pcln 2>/dev/null
[ $? -eq 2 ] || fail "bad --ptrsize: status not 2"
"$LD" hello.pcln 2>/dev/null
[ $? -eq 2 ] || fail "no -o: status not 2"
"$LD" -o x.out 2>/dev/null
[ $? -eq 2 ] || fail "no inputs: status not 2"
[ -e x.out ] && fail "usage error wrote output"

# --- large: 100k functions, generated ----------------------------------
awk 'BEGIN {
	print "target ptrsize 8 quantum 4"
	for (i = 0; i < 100000; i++) {
		printf "func pkg%d.f%d size %d align 16\n", i % 97, i, 32 + (i % 8) * 16
		print "\tpcsp 0:0 4:32 28:0"
		printf "\tpcfile 0:src/file%d.go\n", i % 50
		printf "\tpcln 0:%d 8:%d 16:%d\n", i % 1000, i % 1000 + 1, i % 1000 + 2
		if (i % 3 == 0)
			printf "\tpcdata 1 0:%d\n", i % 5
		print "end"
	}
}' >big.pcln
if "$LD" -v -o big.out big.pcln 2>big-stats.txt; then
	verify big.out
	grep -q '^pclnld: 100000 functions (0 fixed, 100000 placed' \
	    big-stats.txt || fail "big: $(cat big-stats.txt)"
	grep -q ', 50 files,' big-stats.txt || fail "big: file count"
	grep -q 'ok 100000 functions' verify.log || fail "big: verify count"
else
	cat big-stats.txt >&2
	fail "big link"
fi

# --- index and checkpoint options ---------------------------------------
# A function whose pcln table has 40 rows: with --checkpoints 8 it gets
# (40 - 1) / 8 = 4 checkpoints (header 16, start[] 8, block 4 + 12 + 32:
# 72 bytes), with
# 0 or 64 none; the index appears
# with --index below 256 functions and not with --no-index at 100k.
awk 'BEGIN {
	print "target ptrsize 8 quantum 1"
	print "func long size 400"
	printf "\tpcfile 0:a.c\n\tpcln"
	for (i = 0; i < 40; i++)
		printf " %d:%d", i * 10, 100 + (i % 2 ? i : -i)
	print "\nend"
}' >long.pcln
ckpt_of() {	# ARGS...: print "FUNCINDEX-bytes PCCKPT-bytes checkpoints"
	"$LD" -v -o opt.out "$@" 2>opt.txt || { cat opt.txt >&2; return 1; }
	verify opt.out
	sed -n 's/^pclnld: in the trailer: FUNCINDEX \([0-9]*\) bytes, PCCKPT \([0-9]*\) bytes (\([0-9]*\) checkpoints for \([0-9]*\) tables)$/\1 \2 \3 \4/p' opt.txt
}
[ "$(ckpt_of --checkpoints 8 long.pcln)" = "0 72 4 1" ] ||
	fail "--checkpoints 8: $(cat opt.txt)"
[ "$(ckpt_of long.pcln)" = "0 56 2 1" ] ||
	fail "default stride 16: $(cat opt.txt)"
[ "$(ckpt_of --checkpoints 0 long.pcln)" = "0 0 0 0" ] ||
	fail "--checkpoints 0: $(cat opt.txt)"
[ "$(ckpt_of --checkpoints 64 long.pcln)" = "0 0 0 0" ] ||
	fail "--checkpoints 64: $(cat opt.txt)"
[ "$(ckpt_of --index --checkpoints 0 long.pcln)" = "36 0 0 0" ] ||
	fail "--index: $(cat opt.txt)"
[ "$(ckpt_of --no-index big.pcln | cut -d' ' -f1)" = 0 ] ||
	fail "--no-index: $(cat opt.txt)"
[ "$(ckpt_of big.pcln | cut -d' ' -f1)" -gt 0 ] ||
	fail "default index at 100k functions: $(cat opt.txt)"
"$LD" -o x.out --checkpoints 65537 long.pcln 2>err.txt
[ $? -eq 2 ] || fail "bad --checkpoints: status not 2"
grep -q "checkpoints" err.txt || fail "bad --checkpoints: $(cat err.txt)"
"$LD" -o x.out --no-inline long.pcln 2>err.txt
[ $? -eq 2 ] || fail "--no-inline without --elf: status not 2"
[ -e x.out ] && fail "usage error wrote output"

if [ $fails -ne 0 ]; then
	echo "$fails failure(s)" >&2
	exit 1
fi
exit 0
