#!/bin/sh
# cli-pclndump.sh -- pclndump from the command line.
#
# 1. Golden outputs: every command, text and JSON, on the examples' blob
#    (linked by pclnld from examples/*.pcln), raw and inside an ELF file;
#    each case's stdout, stderr and exit status are compared with
#    tests/pclndump/NAME.out, and JSON is checked with python3's json.
# 2. addr2line mode against binutils addr2line: a tiny program built with
#    $CC -g gets a .pcln section (objcopy --add-section) whose blob is made
#    from addr2line's own answers for every pc of its functions; then both
#    tools answer the same addresses (known, unknown, symbolic, garbage)
#    with several flag combinations, and the outputs must be identical.
# 3. Bad inputs: truncation at every length, flipped bytes, empty file,
#    garbage, missing file, bad ELF: each gives its exit status and one
#    error line, never a crash.
#
# The harness exports top_builddir and top_srcdir (Makefile.am).  To
# refresh the golden files after a deliberate change, run with
# PCLNDUMP_REGEN=1 and review the diff.

. "${top_srcdir:-.}/tests/lib.sh"
GOLD=$top_srcdir/tests/pclndump
use_real_tools
test_workdir cli-pclndump

have_python=no
python3 -c 'import json' 2>/dev/null && have_python=yes

# golden NAME CMD...: run CMD; its stdout, then stderr and exit status,
# must equal tests/pclndump/NAME.out.
golden() {
	name=$1
	shift
	ncase=$((ncase + 1))
	"$@" >"$name.stdout" 2>"$name.stderr"
	rc=$?
	{
		cat "$name.stdout"
		if [ -s "$name.stderr" ]; then
			echo "--- stderr"
			cat "$name.stderr"
		fi
		echo "--- exit $rc"
	} >"$name.got"
	if [ "${PCLNDUMP_REGEN:-}" = 1 ]; then
		cp "$name.got" "$GOLD/$name.out"
	elif ! diff -u "$GOLD/$name.out" "$name.got" >&2; then
		fail "$name: output differs from tests/pclndump/$name.out"
	fi
}

# json_ok NAME [--json-lines]: NAME.stdout is valid JSON.
json_ok() {
	[ "$have_python" = yes ] || return 0
	if [ "${2:-}" = --json-lines ]; then
		python3 -c 'import json, sys
for line in sys.stdin:
    json.loads(line)' <"$1.stdout" || fail "$1: invalid JSON lines"
	else
		python3 -m json.tool <"$1.stdout" >/dev/null ||
		    fail "$1: invalid JSON"
	fi
}

# --- the blobs -----------------------------------------------------------
cp "$top_srcdir/examples/hello.pcln" "$top_srcdir/examples/hello_lib.pcln" .
"$LD" -o hello.blob hello.pcln hello_lib.pcln ||
    { echo "FAIL: pclnld hello" >&2; exit 1; }
"$LD" --go12 -o hello12.blob hello.pcln hello_lib.pcln ||
    { echo "FAIL: pclnld --go12 hello" >&2; exit 1; }
"$LD" -o hello-be32.blob "$GOLD/be32.pcln" || { echo "FAIL: pclnld be32" >&2; exit 1; }

# --- 1. golden outputs ---------------------------------------------------
golden summary "$D" summary hello.blob
golden summary-json "$D" --json summary hello.blob
json_ok summary-json
golden summary-go12 "$D" summary hello12.blob
golden summary-be32 "$D" summary hello-be32.blob
golden functions "$D" functions hello.blob
golden functions-json "$D" functions --json hello.blob
json_ok functions-json
golden functions-name "$D" functions --name='main.*' hello.blob
golden functions-range "$D" functions --range=0x1080:0x10d0 hello.blob
golden functions-none "$D" functions --name='nosuch*' hello.blob
golden functions-be32 "$D" functions hello-be32.blob
golden func "$D" func hello.blob main.main main.greet fmt.Println
golden func-json "$D" --json func hello.blob main.main fmt.Println
json_ok func-json
golden func-addr "$D" func hello.blob 0x10a0 'runtime.*' 0x1070 nosuch
golden lookup "$D" lookup hello.blob 0x1000 0x1010 0x1030 0x105f 0x1060 \
    0x1075 0x10a0 0x10e0 0x112f 0x1130 0xfff 0
golden lookup-json "$D" --json lookup hello.blob 0x1000 0x10e0 0x1075
json_ok lookup-json --json-lines
printf '0x1000\n  0x10a0  \n\nzz\n0x1130\n' >pcs.txt
golden lookup-stdin "$D" lookup hello.blob <pcs.txt
printf '0x1000\n0x10a0\n0x1130\n' >pcs2.txt
golden lookup-stdin-json "$D" lookup --json hello.blob <pcs2.txt
json_ok lookup-stdin-json --json-lines
golden line "$D" line hello.blob hello.go:12 print.go:93 fmt/print.go:274 \
    runtime/asm_amd64.s:100 nope.go:1 bad
golden line-json "$D" line --json hello.blob hello.go:5 fmt/print.go:93
json_ok line-json
# Awkward names: escaped in JSON, invalid UTF-8 as U+FFFD.
if "$LD" -o names.blob "$GOLD/names.pcln"; then
	golden names-json "$D" --json functions names.blob
	json_ok names-json
	[ "$have_python" = yes ] && { python3 -c 'import json, sys
d = json.load(sys.stdin)
got = [(f["name"], f["file"]) for f in d]
want = [("q\"uote", "dir\\back\\slash.c"),
        ("new\nline\ttab", "h\u00e9llo/\u65e5\u672c.go"),
        ("ctl\x01del\x7f", "bad\ufffdbyte\ufffd\ufffd\ufffdsurrogate\ufffd\ufffd")]
assert got == want, got' <names-json.stdout || fail "names-json: names"; }
else
	fail "pclnld names.pcln"
fi
golden verify "$D" verify hello.blob hello12.blob hello-be32.blob
golden verify-json "$D" --json verify hello.blob
json_ok verify-json
printf '0x1000\n1010\nmain.greet+0x10\nmain.greet\n0x1075\nzz\n\n' >a2l.txt
golden a2l "$D" addr2line -e hello.blob <a2l.txt
golden a2l-fapsi "$D" addr2line -e hello.blob -fapsi <a2l.txt
golden a2l-fa "$D" addr2line --exe=hello.blob -f -a 0x1000 0x1075 0x10e0
golden a2l-be32 "$D" addr2line -e hello-be32.blob -fa 0x1000 0x1100000000
golden usage-nocmd "$D"
golden usage-badcmd "$D" frobnicate hello.blob
golden usage-nofile "$D" summary
golden usage-func "$D" func hello.blob
golden usage-range "$D" functions --range=0x10:0x5 hello.blob
golden usage-opt "$D" lookup --name=x hello.blob

# --help and --version go to stdout and succeed.
"$D" --help >help.txt 2>&1 && grep -q '^Usage: pclndump' help.txt ||
    fail "--help"
"$D" --version >version.txt 2>&1 && grep -q '^pclndump (pcln) ' version.txt ||
    fail "--version"

# The blob in an ELF file: .pcln and .gopclntab give the raw answers.
printf 'int main(void) { return 0; }\n' >tiny.c
if "$CC" -o tiny tiny.c 2>cc.log && objcopy --version >/dev/null 2>&1; then
	objcopy --add-section .pcln=hello.blob tiny tiny.pcln &&
	objcopy --add-section .gopclntab=hello.blob tiny tiny.go ||
	    fail "objcopy"
	for f in tiny.pcln tiny.go; do
		"$D" functions "$f" >"$f.functions" 2>&1 ||
		    fail "functions $f"
		"$D" functions hello.blob | diff - "$f.functions" >&2 ||
		    fail "functions $f differs from the raw blob's"
		"$D" summary "$f" >"$f.summary" 2>&1 || fail "summary $f"
		grep -q '^container:     ELF64 little-endian, section \.' \
		    "$f.summary" || fail "summary $f: container"
		"$D" verify "$f" >/dev/null 2>&1 || fail "verify $f"
	done
	grep -q 'section \.pcln ' tiny.pcln.summary || fail ".pcln name"
	grep -q 'section \.gopclntab ' tiny.go.summary || fail ".gopclntab name"
	# ELF32 and ELF64, little- and big-endian containers.
	for t in elf32-little elf32-big elf64-little elf64-big; do
		objcopy -I binary -O "$t" --rename-section .data=.gopclntab \
		    hello.blob "hello-$t.o" || { fail "objcopy $t"; continue; }
		"$D" functions "hello-$t.o" >"$t.functions" 2>&1 ||
		    fail "functions $t"
		"$D" functions hello.blob | diff - "$t.functions" >&2 ||
		    fail "functions $t differs from the raw blob's"
		"$D" --json summary "hello-$t.o" >"$t.json" 2>&1 ||
		    fail "summary $t"
		class=${t%-*}
		class=${class#elf}
		order=${t#*-}-endian
		grep -q "\"elfclass\": $class," "$t.json" &&
		    grep -q "\"byteorder\": \"$order\"," "$t.json" ||
		    fail "summary $t: container $(head -12 "$t.json")"
	done
	# A .pcln section without data in the file (SHT_NOBITS).
	printf '\t.section .pcln,"aw",@nobits\n\t.zero 64\n' >nobits.s
	if "$CC" -c -o nobits.o nobits.s 2>/dev/null; then
		"$D" summary nobits.o >nobits.out 2>nobits.err
		rc=$?
		[ "$rc" -eq 1 ] && grep -q '^pclndump: nobits.o: bad ELF file: section \.pcln (index [0-9]*) has no data in the file (SHT_NOBITS)$' nobits.err ||
		    fail "SHT_NOBITS section: exit $rc: $(cat nobits.err)"
	fi
	# No pcln section at all, and no function symbols or FDEs to make a
	# table from (tests/find-*.sh test the tables made from symbols and
	# DWARF, tests/elf-stripped.sh those made from FDEs alone).
	strip -s -R .eh_frame -R .eh_frame_hdr tiny -o tiny.s
	golden elf-nosection "$D" --no-cache summary tiny.s
	# A Go 1.16+ pclntab is refused by its magic.
	printf '\361\377\377\377\000\000\001\010' >go120.bin
	head -c 64 /dev/zero >>go120.bin
	objcopy --add-section .gopclntab=go120.bin tiny tiny.go120 ||
	    fail "objcopy go120"
	golden elf-go120 "$D" summary tiny.go120
	printf 'PK\003\004 not a pclntab at all' >junk.bin
	objcopy --add-section .gopclntab=junk.bin tiny tiny.junk ||
	    fail "objcopy junk"
	golden elf-gojunk "$D" summary tiny.junk
	golden raw-go116 sh -c "printf '\372\377\377\377\000\000\001\010' |
	    \"$D\" summary -"
	# A truncated ELF file.
	# (Where the section headers are depends on the toolchain.)
	head -c 200 tiny.pcln >tiny.trunc
	"$D" summary tiny.trunc >trunc.out 2>trunc.err
	rc=$?
	[ "$rc" -eq 1 ] && [ ! -s trunc.out ] && grep -q '^pclndump: tiny.trunc: bad ELF file: section header table at offset 0x[0-9a-f]* runs past the file end 0xc8$' trunc.err ||
	    fail "truncated ELF: exit $rc: $(cat trunc.err)"
else
	fail "cannot build an ELF file with $CC and objcopy"
	cat cc.log >&2
fi

# --- 2. addr2line mode against binutils addr2line -----------------------
# a2l_blob PROG PTRSIZE: make PROG.pcln, a description whose functions are
# PROG's own (from nm) and whose pcfile/pcln rows are binutils addr2line's
# answers for every pc of them; link it to PROG.blob and put it in a .pcln
# section of PROG.elf.  The pcs go to PROG.pcs.
a2l_blob() {
	nm -S --defined-only "$1" |
	    awk '($3 == "t" || $3 == "T") && NF == 4 && $4 !~ /^_/ {
		print $4, $1, $2 }' >"$1.funcs"
	while read -r name entry size; do
		e=$(printf '%d' "0x$entry")
		s=$(printf '%d' "0x$size")
		i=0
		while [ "$i" -lt "$s" ]; do
			printf '%s %s %s %d %x\n' "$name" "$entry" "$size" \
			    "$i" $((e + i))
			i=$((i + 1))
		done
	done <"$1.funcs" >"$1.all"
	cut -d' ' -f5 "$1.all" >"$1.pcs"
	addr2line -e "$1" <"$1.pcs" >"$1.lines"
	paste -d' ' "$1.all" "$1.lines" | awk -v ps="$2" '
	BEGIN { print "target ptrsize " ps " quantum 1 endian little" }
	$1 != cur {
		if (cur != "") print "end"
		cur = $1
		printf "func %s entry 0x%s size 0x%s\n", $1, $2, $3
		printf "\tpcsp 0:0\n"
		lf = ""; ll = ""
	}
	{
		n = split($6, part, ":")
		line = part[n]
		file = substr($6, 1, length($6) - length(line) - 1)
		if (file != lf) { printf "\tpcfile %d:\"%s\"\n", $4, file; lf = file }
		if (line != ll) { printf "\tpcln %d:%s\n", $4, line; ll = line }
	}
	END { if (cur != "") print "end" }' >"$1.pcln"
	"$LD" -o "$1.blob" "$1.pcln" 2>"$1.ldlog" &&
	    objcopy --add-section .pcln="$1.blob" "$1" "$1.elf" ||
	    { cat "$1.ldlog" >&2; fail "$1: cannot make the pcln copy"; }
}

# a2l_compare ELF ADDRS: both tools, every flag combination, same output.
a2l_compare() {
	for flags in "" -f -a -p -s -fa -fp -ap -fap -fps -fapsi -fC -i; do
		ncase=$((ncase + 1))
		# shellcheck disable=SC2086
		addr2line -e "$1" $flags <"$2" >want.txt 2>&1
		# shellcheck disable=SC2086
		"$D" addr2line -e "$1" $flags <"$2" >got.txt 2>&1
		diff -u want.txt got.txt >&2 ||
		    fail "$1: addr2line $flags differs from binutils"
	done
}

if command -v addr2line >/dev/null 2>&1 && command -v nm >/dev/null 2>&1 &&
    "$CC" -g -O0 -o a2l "$GOLD/a2l.c" 2>cc.log; then
	a2l_blob a2l 8
	# Known pcs, symbols, and addresses neither tool knows.
	cp a2l.pcs addrs.txt
	cat >>addrs.txt <<-'EOF'
	0
	5
	+5
	0x0
	deadbeef000
	ffffffffffffffff
	10000000000000000
	zz
	-5
	+++f
	++1

	main
	main+4
	helper+0x10
	twice 
	nosuch+1
	  0x1
	111111111111111111111111111111111111111111111111111111111111111111111111111111111111111111111111111111111111111111111
	EOF
	a2l_compare a2l.elf addrs.txt
	# Addresses as arguments, and the pcln-addr2line name.
	ln -s "$D" pcln-addr2line
	addr2line -e a2l.elf -f -a main 0 zz >want.txt 2>&1
	./pcln-addr2line -e a2l.elf -f -a main 0 zz >got.txt 2>&1
	diff -u want.txt got.txt >&2 || fail "pcln-addr2line"
	# A co-process: each answer comes before the next question.
	rm -f fifo.in
	mkfifo fifo.in
	: >coproc.out
	"$D" addr2line -e a2l.elf -f >coproc.out <fifo.in &
	pid=$!
	exec 9>fifo.in
	echo main >&9
	n=0
	while [ "$n" -lt 50 ] && [ "$(wc -l <coproc.out)" -lt 2 ]; do
		sleep 0.1
		n=$((n + 1))
	done
	[ "$(wc -l <coproc.out)" -eq 2 ] ||
	    fail "addr2line does not answer before the next line"
	exec 9>&-
	wait "$pid" || fail "addr2line co-process exit"
	# ELF32 (a relocatable object is enough): 8-digit addresses, and
	# addresses cut to 32 bits.
	if "$CC" -m32 -g -O0 -c -o a2l32.o "$GOLD/a2l.c" 2>/dev/null; then
		a2l_blob a2l32.o 4
		cp a2l32.o.pcs addrs32.txt
		printf '%s\n' 1000 ffffffff 100000005 fffffffffffffff0 main+1 \
		    zz >>addrs32.txt
		a2l_compare a2l32.o.elf addrs32.txt
	else
		echo "note: $CC -m32 -c fails here; ELF32 addr2line not compared"
	fi
else
	fail "cannot build the addr2line test program (needs $CC, nm, addr2line)"
	cat cc.log >&2 2>/dev/null
fi

# --- 3. bad inputs ---------------------------------------------------------
: >empty.blob
golden err-empty "$D" summary empty.blob
golden err-missing "$D" summary no-such-file
golden err-dir "$D" functions .
printf 'this is not a blob at all\n' >garbage.blob
golden err-garbage "$D" summary garbage.blob
printf '\177ELF\002\001\001' >badelf.blob
golden err-badelf "$D" summary badelf.blob
for n in 3 8 16 100 400 700 759; do
	head -c "$n" hello.blob >"trunc$n.blob"
done
golden err-trunc "$D" verify trunc3.blob trunc8.blob trunc16.blob \
    trunc100.blob trunc400.blob trunc700.blob trunc759.blob
golden err-trunc-json "$D" --json verify trunc400.blob
json_ok err-trunc-json

# Every truncation and every single-byte flip of a blob, checked in one
# run of "verify" over all the files: each must fail (exit 1) with one
# "pclndump: FILE: ..." line, or, only where the bytes are not covered by
# the checksum, may pass; never a crash.  Then a sample through "summary"
# (the reader's path) and, without a trailer, where nothing covers the
# bytes, "func '*'" over every flip.
# mutate.py BLOB: write cutN.blob (first N bytes) and flipN.blob (byte N
# xor 0x5a) for every N.
cat >mutate.py <<'EOF'
import sys
b = open(sys.argv[1], "rb").read()
for i in range(len(b)):
    open("cut%d.blob" % i, "wb").write(b[:i])
    c = bytearray(b)
    c[i] ^= 0x5a
    open("flip%d.blob" % i, "wb").write(c)
EOF
# sweep BLOB KIND FIRST_UNCOVERED [GO12SIZE]: verify every KIND (cut/flip)
# file; only from FIRST_UNCOVERED on, or a cut at exactly GO12SIZE (which
# leaves the plain Go 1.2 part), may one pass.
sweep() {
	len=$(wc -c <"$1")
	files=
	i=0
	while [ "$i" -lt "$len" ]; do
		files="$files $2$i.blob"
		i=$((i + 1))
	done
	# shellcheck disable=SC2086
	"$D" verify $files >sweep.out 2>sweep.err
	rc=$?
	[ "$rc" -eq 1 ] || fail "$1: $2 sweep: exit $rc"
	awk -v kind="$2" -v len="$len" -v first="$3" -v go12="${4:--1}" '
	FILENAME == "sweep.err" && index($0, "pclndump: " kind) == 1 {
		f = substr($0, length("pclndump: " kind) + 1)
		sub(/\.blob: .*/, "", f)
		err[f]++
	}
	FILENAME == "sweep.out" && index($0, kind) == 1 && /\.blob: ok/ {
		f = substr($0, length(kind) + 1)
		sub(/\.blob: ok.*/, "", f)
		ok[f]++
	}
	END {
		for (i = 0; i < len; i++) {
			if (err[i] == 1 && ok[i] == 0)
				continue
			if (err[i] == 0 && ok[i] == 1 && (i >= first || i == go12))
				continue
			printf "%s at %d: %d error lines, %d ok lines\n", kind, i,
			    err[i], ok[i]
		}
	}' sweep.err sweep.out >sweep.bad
	[ -s sweep.bad ] && fail "$1: $(cat sweep.bad)"
	[ "$(wc -l <sweep.err)" -le "$len" ] || fail "$1: $2: extra messages"
}
if [ "$have_python" = yes ]; then
	python3 mutate.py hello.blob
	len=$(wc -c <hello.blob)
	# Only the footer's last 16 bytes (checksum, magic) are unchecksummed;
	# a cut inside the footer may leave a valid plain Go 1.2 blob.
	go12=$("$D" summary hello.blob | sed -n 's/^Go 1.2 part: *\([0-9]*\) bytes$/\1/p')
	sweep hello.blob cut $((len - 32)) "$go12"
	sweep hello.blob flip $((len - 16))
	for i in 0 7 8 17 40 130 300 600 $((len - 20)); do
		"$D" summary "flip$i.blob" >/dev/null 2>err.txt
		rc=$?
		[ "$rc" -eq 1 ] && grep -q "^pclndump: flip$i.blob: " err.txt ||
		    fail "summary of flip at $i: exit $rc: $(cat err.txt)"
	done
	rm -f cut*.blob flip*.blob
	python3 mutate.py hello12.blob
	len=$(wc -c <hello12.blob)
	sweep hello12.blob cut "$len"
	# Flips are not all detectable here; "verify" must still answer each,
	# and the reader must survive those it accepts (every 7th shown).
	files=
	i=0
	while [ "$i" -lt "$len" ]; do
		files="$files flip$i.blob"
		i=$((i + 1))
	done
	# shellcheck disable=SC2086
	"$D" verify $files >sweep.out 2>sweep.err
	[ $? -le 1 ] || fail "hello12.blob: flip sweep: exit $?"
	[ $(($(wc -l <sweep.out) + $(wc -l <sweep.err))) -eq "$len" ] ||
	    fail "hello12.blob: flip sweep: not one line per file"
	i=0
	while [ "$i" -lt "$len" ]; do
		"$D" func "flip$i.blob" '*' >/dev/null 2>err.txt
		rc=$?
		[ "$rc" -le 4 ] || fail "go12 flip at $i: exit $rc"
		i=$((i + 7))
	done
	rm -f cut*.blob flip*.blob
	# The ELF reader: every cut of an ELF32 big-endian container fails;
	# every flip gets one answer line, never a crash.
	if [ -f hello-elf32-big.o ]; then
		python3 mutate.py hello-elf32-big.o
		len=$(wc -c <hello-elf32-big.o)
		sweep hello-elf32-big.o cut "$len"
		files=
		i=0
		while [ "$i" -lt "$len" ]; do
			files="$files flip$i.blob"
			i=$((i + 1))
		done
		# shellcheck disable=SC2086
		"$D" verify $files >sweep.out 2>sweep.err
		rc=$?
		[ "$rc" -le 1 ] || fail "ELF flip sweep: exit $rc"
		[ $(($(wc -l <sweep.out) + $(wc -l <sweep.err))) -eq "$len" ] ||
		    fail "ELF flip sweep: not one line per file"
		rm -f cut*.blob flip*.blob
	fi
fi

echo "cli-pclndump: $ncase golden/compare cases, $fails failures"
[ "$fails" -eq 0 ]
