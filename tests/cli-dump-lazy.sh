#!/bin/sh
# cli-dump-lazy.sh -- pclndump lookup, func and line check only the
# functions they read (as addr2line does: tests/cli-a2l-lazy.sh), and
# verify the whole blob first with --verify; summary, functions and
# verify always verify.
#
# 1. On sound blobs (with a trailer, plain Go 1.2, big-endian 32-bit) the
#    lazy default and --verify print the same bytes, text and JSON, for
#    lookup of every pc of the text, func of every function by name and
#    by address, and line of every FILE:LINE the blob has.
# 2. Lazy skips the verifier: with a wrong checksum lookup, func and line
#    answer (exit 0); with --verify, and summary, functions and verify,
#    they refuse (exit 1).
# 3. One function's pcln table damaged: lookup answers its pcs "??" and
#    the others as before, func shows the others, line answers from the
#    others; each warns once naming the function and the damage and
#    exits 1; a query that reads only sound functions (lookup, func)
#    exits 0 silently; --verify refuses up front with the verifier's
#    message and prints nothing.
# 4. Single-byte flips and cuts: exit 0, 1 or 4, never a crash or hang.

. "${top_srcdir:-.}/tests/lib.sh"
use_real_tools ld
test_workdir cli-dump-lazy

. "$top_srcdir/tests/lazy.sh"

# both NAME CMD...: CMD lazily and with --verify: the same output and
# status, no message.
both() {
	name=$1
	shift
	ncase=$((ncase + 1))
	"$D" "$@" >lazy.out 2>lazy.err
	rc=$?
	"$D" --verify "$@" >ver.out 2>ver.err
	vrc=$?
	[ "$rc" -eq "$vrc" ] && [ ! -s lazy.err ] && [ ! -s ver.err ] ||
		fail "$name: exit $rc/$vrc: $(cat lazy.err ver.err)"
	cmp -s lazy.out ver.out ||
		{ diff -u ver.out lazy.out | head -10 >&2
		  fail "$name: lazy output differs from --verify"; }
	[ -s lazy.out ] || fail "$name: no output"
}

same() {
	b=$1
	text_pcs "$b" >"$b.pcs"
	for j in "" --json; do
		ncase=$((ncase + 1))
		"$D" $j lookup "$b" <"$b.pcs" >lazy.out 2>lazy.err
		rc=$?
		"$D" $j lookup --verify "$b" <"$b.pcs" >ver.out 2>ver.err
		vrc=$?
		[ "$rc" -eq 0 ] && [ "$vrc" -eq 0 ] && [ ! -s lazy.err ] &&
		    cmp -s lazy.out ver.out ||
		    fail "$b $j lookup: exit $rc/$vrc: $(cat lazy.err ver.err)"
		"$D" functions "$b" | awk 'NR > 1 { print $7 }' >names
		"$D" functions "$b" | awk 'NR > 1 { print $2 }' >addrs
		[ -s names ] || fail "$b: no functions"
		# shellcheck disable=SC2046
		both "$b $j func NAMES" $j func "$b" $(cat names)
		# shellcheck disable=SC2046
		both "$b $j func ADDRS" $j func "$b" $(cat addrs)
		# Every FILE:LINE: from the lookups' answers.
		"$D" lookup "$b" <"$b.pcs" | awk '$2 != "??" { print $3 }' |
		    grep -v '?' | sort -u >lines
		[ -s lines ] || fail "$b: no lines"
		# shellcheck disable=SC2046
		both "$b $j line" $j line "$b" $(cat lines)
	done
}

lazy_blobs

# --- 1. lazy = --verify on sound blobs ------------------------------------
same hello.blob
same hello12.blob
same be32.blob

# --- 2. a wrong checksum (badsum.blob) -------------------------------------
for c in "lookup badsum.blob 0x1009" "func badsum.blob main.main" \
    "line badsum.blob hello.go:6"; do
	ncase=$((ncase + 1))
	# shellcheck disable=SC2086
	"$D" $c >lazy.out 2>lazy.err
	rc=$?
	[ "$rc" -eq 0 ] && [ ! -s lazy.err ] && [ -s lazy.out ] ||
		fail "badsum $c: exit $rc: $(cat lazy.err)"
	# shellcheck disable=SC2086
	"$D" --verify $c >ver.out 2>ver.err
	rc=$?
	[ "$rc" -eq 1 ] && [ ! -s ver.out ] &&
	    grep -q '^pclndump: badsum.blob: checksum mismatch' ver.err ||
	    fail "badsum --verify $c: exit $rc: $(cat ver.out ver.err)"
done
for c in summary functions verify; do
	ncase=$((ncase + 1))
	"$D" "$c" badsum.blob >/dev/null 2>&1 && fail "badsum: $c passes"
done

# --- 3. one function's pcln table damaged (bad.blob: main.greet) ----------
"$D" summary bad.blob >/dev/null 2>summary.err && fail "bad.blob: summary passes"
warn="^pclndump: bad.blob: function 2 (main\\.greet) at 0x1090: damaged tables: function 2 pcln table at $off: "
# damaged NAME WANT-OUTPUT-FILE CMD...: exit 1, one warning, the output.
damaged() {
	name=$1 want=$2
	shift 2
	ncase=$((ncase + 1))
	"$D" "$@" >bad.out 2>bad.err
	rc=$?
	[ "$rc" -eq 1 ] && [ "$(wc -l <bad.err)" -eq 1 ] &&
	    grep -q "$warn" bad.err ||
	    fail "$name: exit $rc: $(cat bad.err)"
	cmp -s bad.out "$want" ||
		{ diff -u "$want" bad.out | head -10 >&2; fail "$name: output"; }
	"$D" --verify "$@" >ver.out 2>ver.err
	rc=$?
	[ "$rc" -eq 1 ] && [ ! -s ver.out ] && cmp -s ver.err summary.err ||
		fail "$name --verify: exit $rc: $(cat ver.out ver.err)"
}
# lookup: main.greet's pcs are "??", the others as before.
"$D" lookup hello.blob <hello.blob.pcs |
    awk '$2 ~ /^main\.greet\+/ { print $1 "  ??"; next } { print }' >want.txt
damaged "lookup bad.blob" want.txt lookup bad.blob <hello.blob.pcs
"$D" lookup hello.blob 0x1009 >want.txt
ncase=$((ncase + 1))
"$D" lookup bad.blob 0x1009 >got.txt 2>err.txt
rc=$?
[ "$rc" -eq 0 ] && [ ! -s err.txt ] && cmp -s got.txt want.txt ||
	fail "lookup bad.blob 0x1009 (main.main): exit $rc: $(cat err.txt)"
# func: main.greet is not shown.
"$D" func hello.blob main.main >want.txt
damaged "func bad.blob main.greet main.main" want.txt func bad.blob \
    main.greet main.main
ncase=$((ncase + 1))
"$D" func bad.blob main.main 0x1000 >got.txt 2>err.txt
rc=$?
"$D" func hello.blob main.main 0x1000 >want.txt
[ "$rc" -eq 0 ] && [ ! -s err.txt ] && cmp -s got.txt want.txt ||
	fail "func bad.blob main.main: exit $rc: $(cat err.txt)"
# line: every function is read, so main.greet is met and left out.
"$D" line hello.blob hello.go:6 >want.txt
damaged "line bad.blob hello.go:6" want.txt line bad.blob hello.go:6
"$D" --json line hello.blob hello.go:6 >want.txt
damaged "--json line bad.blob hello.go:6" want.txt --json line bad.blob hello.go:6

# --- 4. flips and cuts ----------------------------------------------------
if python3 -c '' 2>/dev/null; then
	nwarn=0
	for i in $(flips hello.blob 4); do
		for f in flip$i.blob cut$i.blob; do
			case $f in
			cut*) [ $((i % 32)) -eq 0 ] || continue ;;
			esac
			for c in "lookup $f 0x1009 0x1095 0x10d0" \
			    "func $f main.greet 0x1000" "line $f hello.go:6"; do
				# shellcheck disable=SC2086
				timeout 10 "$D" $c >f.out 2>f.err
				rc=$?
				case $rc in
				0|4) ;;
				1) grep -q 'damaged tables' f.err &&
				       nwarn=$((nwarn + 1)) ;;
				*) fail "$c: exit $rc: $(head -2 f.err)" ;;
				esac
			done
		done
	done
	ncase=$((ncase + 1))
	[ "$nwarn" -gt 10 ] || fail "flips: only $nwarn damaged functions met"
	rm -f flip*.blob cut*.blob
else
	echo "note: no python3; flip sweep skipped"
fi

echo "cli-dump-lazy: $ncase cases, $fails failures"
[ "$fails" -eq 0 ]
