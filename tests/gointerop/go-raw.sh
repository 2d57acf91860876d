#!/bin/sh
# go-raw.sh -- raw Go tables: a .gopclntab dumped to a file with
# `objcopy -O binary -j .gopclntab`, as tools and test suites keep them,
# in every layout, read by every pclndump command and by pclnld --go,
# their answers asserted against Go's own readers.
#
# Tables: tests/gointerop/prog built here by the installed Go for amd64,
# 386 and ppc64 (big-endian), then dumped raw; Go 1.15's own table from the
# Go sources (debug/gosym/testdata/pcln115.gz: the Go 1.2 magic with the
# Go 1.12-1.15 Func, funcID and nfuncdata packed, which pcln's verifier
# refuses and pclndump used to call damaged); and the synthetic tables of
# every layout tests/check_goimport writes (Go 1.2 with the int32 and the
# packed Func, 1.16, 1.18, 1.20; pointer size 4 and 8, quantum 1 and 4,
# both byte orders).  For each table T:
#   - gosymcheck: debug/gosym on T agrees with libpcln's reading of it
#     (pclnjson) at every row boundary, and picks sample pcs;
#   - pclndump addr2line on T prints what debug/gosym answers at those
#     pcs (gosyma2l, `go tool addr2line` for a raw table), and for a
#     table taken from a binary `go tool addr2line` on the binary agrees;
#   - lookup (text and JSON) gives the same function and file:line there;
#     functions lists every function gosym knows (names compared); func
#     prints the first one; line finds a pc of a sampled line; summary
#     names the layout; verify passes;
#   - pclnld --go T writes a blob that debug/gosym reads the same way and
#     on which pclndump answers the same.
# Then damage: a raw Go 1.15 table with a broken pc table fails every
# command with a message naming both layouts tried, and a pcln blob whose
# trailer was cut is still called damaged (no Go retry).
set -u
. "$top_srcdir/tests/gointerop/go-env.sh"

dir=$work/go-raw
rm -rf "$dir"
mkdir -p "$dir"
fails=0
fail() {
	echo "FAIL: $*" >&2
	fails=$((fails + 1))
}
gosyma2l=$work/gosyma2l-go-raw
go build -o "$gosyma2l" "$gointerop/gosyma2l.go" ||
    { echo "go-raw: cannot build gosyma2l" >&2; exit 1; }

# The text start of table $1 for gosym: the header's textStart word for
# the 1.18+ layouts (magic 0xfffffff0/1), else 0.
textstart() {
	python3 - "$1" <<'EOF'
import struct, sys
b = open(sys.argv[1], "rb").read(64)
big = b[0] == 0xff
magic = struct.unpack(">I" if big else "<I", b[:4])[0]
ps = b[7]
if magic in (0xfffffff0, 0xfffffff1):
    w = b[8 + 2 * ps:8 + 3 * ps]
    print("0x%x" % int.from_bytes(w, "big" if big else "little"))
else:
    print("0x0")
EOF
}

tables=
# --- tables from Go binaries built here -----------------------------------
for t in native:$(go env GOARCH):elf64-little 386:386:elf32-little \
    ppc64:ppc64:elf64-big; do
	name=${t%%:*}; rest=${t#*:}; arch=${rest%%:*}; bfd=${rest#*:}
	bin=$dir/prog-$name
	GOARCH=$arch go build -o "$bin" "$gointerop"/prog/*.go ||
	    { fail "go build GOARCH=$arch"; continue; }
	objcopy -I "$bfd" -O binary -j .gopclntab "$bin" "$bin.gopclntab" ||
	    { fail "objcopy -O binary -j .gopclntab $bin"; continue; }
	tables="$tables $bin.gopclntab"
done
# --- Go 1.15's own table --------------------------------------------------
gz=$(go env GOROOT)/src/debug/gosym/testdata/pcln115.gz
if [ -f "$gz" ]; then
	gzip -dc "$gz" >"$dir/pcln115"
	tables="$tables $dir/pcln115"
else
	echo "go-raw: note: $gz not found (golang-src): the real Go 1.15 table is not read" >&2
fi
# --- synthetic tables of every layout -------------------------------------
mkdir "$dir/synth"
"$top_builddir/tests/check_goimport" --write "$dir/synth" >/dev/null 2>&1 ||
    fail "check_goimport --write"
tables="$tables $(ls "$dir"/synth/*.tab)"

n=0
for T in $tables; do
	n=$((n + 1))
	tag=$(basename "$T")
	text=$(textstart "$T")
	"$pclnjson" --text "$text" "$T" >"$T.json" 2>"$T.err" ||
	    { fail "$tag: pclnjson: $(cat "$T.err")"; continue; }
	if [ "$(od -An -tx1 -N4 "$T" | tr -d ' ')" != f1ffffff ] &&
	    [ "$(od -An -tx1 -N4 "$T" | tr -d ' ')" != fffffff1 ] ||
	    [ "$go_minor" -ge 20 ]; then
		"$gosymcheck" -text "$text" -subsetfiles -pcs "$T.pcs" "$T" \
		    "$T.json" >"$T.gosym" 2>&1 ||
		    { cat "$T.gosym" >&2; fail "$tag: gosymcheck"; continue; }
		"$gosyma2l" -text "$text" "$T" <"$T.pcs.in" >"$T.a2l.go" ||
		    { fail "$tag: gosyma2l"; continue; }
	else
		# Go 1.19's debug/gosym does not know the Go 1.20 layout:
		# the reference is then libpcln's own import (pclnjson --a2l,
		# whose values tests/check_goimport asserts), at the start of
		# every row.
		python3 -c 'import json, sys
for f in json.load(open(sys.argv[1]))["funcs"]:
    for r in f.get("pcln", []) + f.get("pcfile", []):
        print("0x%x" % r[0])' "$T.json" | sort -u >"$T.pcs.in"
		"$pclnjson" --a2l --text "$text" "$T" <"$T.pcs.in" \
		    >"$T.a2l.go" 2>/dev/null || { fail "$tag: pclnjson --a2l"; continue; }
		echo "go-raw: $tag: $(go version | cut -d' ' -f3) cannot read the Go 1.20 layout; compared with libpcln's import"
	fi
	[ -s "$T.a2l.go" ] || fail "$tag: no sample pcs"
	case $tag in
	prog-*) go tool addr2line "${T%.gopclntab}" <"$T.pcs.in" |
		    cmp -s - "$T.a2l.go" ||
		    fail "$tag: go tool addr2line on the binary and debug/gosym on the raw table differ" ;;
	esac

	# Go's answers in binutils' spelling, which pclndump addr2line uses:
	# "??" for no function, "??" for no file, "?" for a line <= 0 (Go
	# answers -1, or a number decoded from offset 0 for a function
	# without a pcln table).
	python3 - "$T.a2l.go" >"$T.a2l.ref" <<'EOF'
import sys
lines = [l.rstrip("\n") for l in open(sys.argv[1])]
for i in range(0, len(lines), 2):
    fn, loc = lines[i], lines[i + 1]
    if fn == "?":
        print("??\n??:0")
        continue
    f, _, n = loc.rpartition(":")
    print("%s\n%s:%s" % (fn, f or "??", n if int(n) > 0 else "?"))
EOF
	"$pclndump" addr2line -f -e "$T" <"$T.pcs.in" >"$T.a2l.dump" 2>"$T.err"
	rc=$?
	[ $rc -eq 0 ] && [ ! -s "$T.err" ] && cmp -s "$T.a2l.ref" "$T.a2l.dump" ||
	    { diff "$T.a2l.ref" "$T.a2l.dump" | head -6 >&2
	      fail "$tag: pclndump addr2line: exit $rc, $(head -c 300 "$T.err")"; }
	# lookup, text and JSON lines: function and file:line as gosym says.
	"$pclndump" lookup "$T" <"$T.pcs.in" >"$T.lookup" 2>"$T.err" ||
	    fail "$tag: lookup: $(head -c 300 "$T.err")"
	"$pclndump" --json lookup "$T" <"$T.pcs.in" >"$T.lookup.json" \
	    2>"$T.err" || fail "$tag: lookup --json: $(head -c 300 "$T.err")"
	"$pclndump" --json functions "$T" >"$T.functions.json" 2>"$T.err" ||
	    fail "$tag: functions --json: $(head -c 300 "$T.err")"
	"$pclndump" functions "$T" >"$T.functions" 2>"$T.err" ||
	    fail "$tag: functions: $(head -c 300 "$T.err")"
	python3 - "$T" <<'EOF' || fail "$tag: lookup or functions differ from debug/gosym"
import json, sys
T = sys.argv[1]
pcs = [l.strip() for l in open(T + ".pcs.in")]
a2l = [l.rstrip("\n") for l in open(T + ".a2l.ref")]
ref = [(a2l[2 * i], a2l[2 * i + 1]) for i in range(len(pcs))]
bad = 0
for i, line in enumerate(open(T + ".lookup.json")):
    o = json.loads(line)
    got = ("??", "??:0") if o["func"] is None else \
        (o["func"], "%s:%s" % (o["file"] or "??", o["line"] or "?"))
    if got != ref[i]:
        print("lookup %s: %r, gosym %r" % (pcs[i], got, ref[i])); bad += 1
text = open(T + ".lookup").read().splitlines()
if len(text) != len(pcs):
    print("lookup: %d lines for %d pcs" % (len(text), len(pcs))); bad += 1
for i, l in enumerate(text):
    fn = ref[i][0]
    if fn != "??" and (" %s+0x" % fn) not in l:
        print("lookup text %s: %r, gosym %s" % (pcs[i], l, fn)); bad += 1
names = [f["name"] for f in json.load(open(T + ".functions.json"))]
want = [f["name"] for f in json.load(open(T + ".json"))["funcs"]]
if names != want:
    print("functions: %d names, libpcln %d" % (len(names), len(want))); bad += 1
if len(open(T + ".functions").read().splitlines()) != len(want) + 1:
    print("functions: text listing is not one line per function"); bad += 1
sys.exit(1 if bad else 0)
EOF
	first=$(sed -n 1p "$T.a2l.go")
	"$pclndump" func "$T" "$first" >"$T.func" 2>"$T.err" &&
	    awk -v f="$first" 'sub(/^function [0-9]+: /, "") && $0 == f { ok = 1 }
		END { exit !ok }' "$T.func" ||
	    fail "$tag: func '$first': $(head -c 300 "$T.err")"
	# line: the first sampled pc with a real line is among its ranges.
	set -- $(paste -d' ' "$T.pcs.in" - - <"$T.a2l.ref" |
	    awk '$3 ~ /:[1-9][0-9]*$/ { print $1, $3; exit }')
	if [ $# -eq 2 ]; then
		"$pclndump" --json line "$T" "$2" >"$T.line.json" 2>"$T.err" &&
		    python3 -c 'import json, sys
pc = int(sys.argv[2], 16)
r = json.load(open(sys.argv[1]))[0]["ranges"]
sys.exit(0 if any(int(x["start"], 16) <= pc < int(x["end"], 16) for x in r) else 1)' \
		    "$T.line.json" "$1" ||
		    fail "$tag: line $2 lacks pc $1: $(head -c 300 "$T.err")"
	fi
	"$pclndump" summary "$T" >"$T.summary" 2>"$T.err" ||
	    fail "$tag: summary: $(head -c 300 "$T.err")"
	grep -q "^functions: *$(python3 -c 'import json, sys; print(len(json.load(open(sys.argv[1]))["funcs"]))' "$T.json")\$" \
	    "$T.summary" || fail "$tag: summary's function count"
	case $tag in
	pcln115|go12p-*) grep -q '^source: *Go 1.12 pclntab (magic 0xfffffffb, funcID and nfuncdata packed' "$T.summary" ||
		fail "$tag: summary does not name the packed layout: $(grep source "$T.summary")" ;;
	esac
	"$pclndump" verify "$T" >"$T.verify" 2>"$T.err" ||
	    fail "$tag: verify: $(head -c 300 "$T.err")"
	# pclnld --go, and Go reads what it wrote.
	if "$pclnld" --go "$T" -o "$T.blob" 2>"$T.err"; then
		"$gosymcheck" "$T.blob" "$T.json" >"$T.gosym2" 2>&1 ||
		    { cat "$T.gosym2" >&2; fail "$tag: gosymcheck on pclnld --go's blob"; }
		"$pclndump" addr2line -f -e "$T.blob" <"$T.pcs.in" |
		    cmp -s - "$T.a2l.ref" ||
		    fail "$tag: pclndump addr2line on pclnld --go's blob"
	else
		fail "$tag: pclnld --go: $(cat "$T.err")"
	fi
	echo "go-raw: $tag: $(sed -n 's/^source: *\(Go [0-9.]* pclntab\).*/\1/p' "$T.summary" | grep . || echo 'a valid pcln blob'), $(sed -n 's/^functions: *//p' "$T.summary") functions; $(wc -l <"$T.pcs.in") pcs compared"
done
[ $n -ge 40 ] || fail "only $n tables"

# --- damage ---------------------------------------------------------------
if [ -f "$dir/pcln115" ]; then
	# Overwrite bytes in the pc tables: an overflowing varint.
	cp "$dir/pcln115" "$dir/bad115"
	printf '\377\377\377\377\377\377\377\377\377\377\377' |
	    dd of="$dir/bad115" bs=1 seek=120000 conv=notrunc 2>/dev/null
	for cmd in summary functions "func main.main" lookup line verify \
	    addr2line; do
		case $cmd in
		lookup) args="lookup $dir/bad115 0x1001000" ;;
		line) args="line $dir/bad115 x.go:1" ;;
		addr2line) args="addr2line -e $dir/bad115 0x1001000" ;;
		"func main.main") args="func $dir/bad115 main.main" ;;
		*) args="$cmd $dir/bad115" ;;
		esac
		# shellcheck disable=SC2086
		"$pclndump" $args >"$dir/bad.out" 2>"$dir/bad.err"
		rc=$?
		[ $rc -eq 1 ] && [ ! -s "$dir/bad.out" ] &&
		    grep -q 'Go 1.12-1.15 (funcID and 8-bit nfuncdata packed in the Func'"'"'s last word) pclntab: .*; also read as a pcln blob (the Go 1.2-1.11 layout): ' "$dir/bad.err" ||
		    fail "damaged Go 1.15 table, $cmd: exit $rc: $(cat "$dir/bad.err" "$dir/bad.out" | head -c 400)"
	done
	"$pclnld" --go "$dir/bad115" -o "$dir/bad.blob" 2>"$dir/bad.err"
	rc=$?
	[ $rc -eq 1 ] && grep -q 'Go 1.12-1.15 (funcID' "$dir/bad.err" &&
	    [ ! -e "$dir/bad.blob" ] ||
	    fail "pclnld --go on a damaged Go 1.15 table: exit $rc: $(cat "$dir/bad.err")"
	echo "go-raw: a damaged Go 1.15 table is refused by every command, naming both layouts"
fi
# A pcln blob whose trailer was cut is damaged, not a Go table.
"$pclnld" -o "$dir/hello.blob" "$top_srcdir/examples/hello.pcln" ||
    fail "pclnld hello"
len=$(wc -c <"$dir/hello.blob")
head -c $((len - 5)) "$dir/hello.blob" >"$dir/cut.blob"
"$pclndump" functions "$dir/cut.blob" >/dev/null 2>"$dir/bad.err"
rc=$?
[ $rc -eq 1 ] && grep -q 'bad trailer' "$dir/bad.err" &&
    ! grep -q "Go's own" "$dir/bad.err" ||
    fail "a cut pcln blob: exit $rc: $(cat "$dir/bad.err")"

echo "go-raw: $n raw tables read by every pclndump command and pclnld --go, $(go version), $fails failed"
[ $fails -eq 0 ]
