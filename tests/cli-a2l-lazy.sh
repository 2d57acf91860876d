#!/bin/sh
# cli-a2l-lazy.sh -- pclndump addr2line opens a blob without the verifier.
#
# 1. On sound blobs (with a trailer, plain Go 1.2, big-endian 32-bit, and
#    one with an inline tree from pclnld --elf when libdw is there) the
#    lazy default and --verify give identical answers for every pc of the
#    text (and around it), with -f -a -i, and both exit 0.
# 2. Lazy really skips the verifier: a blob whose checksum is wrong is
#    answered (exit 0), --verify refuses it.
# 3. One function's pcln table damaged: its pcs answer "??" / "??:0", every
#    other pc answers as on the sound blob, one warning names the file,
#    the function and the damage, and the exit status is 1; --verify
#    refuses up front with the verifier's message and prints nothing.
# 4. Single-byte flips and cuts of blobs, answered lazily over all their
#    pcs: exit 0 or 1 (never a crash or a hang), 1 with a warning, and no
#    answer names a function a warning called damaged.  A blob without a
#    trailer (plain Go 1.2, as Go's linkers write) is verified first, since
#    it may be a Go table only the whole check tells apart: its flips and
#    cuts are answered as with --verify (same output and exit status).

. "${top_srcdir:-.}/tests/lib.sh"
use_real_tools ld
test_workdir cli-a2l-lazy

. "$top_srcdir/tests/lazy.sh"

# pcs BLOB: text_pcs, then a few symbols.
pcs() {
	text_pcs "$1"
	"$D" functions "$1" | awk 'NR > 1 { print $7; print $7 "+4" }'
}

# same BLOB: lazy and --verify agree on every pc, exit 0, no stderr.
same() {
	pcs "$1" >"$1.pcs"
	[ "$(wc -l <"$1.pcs")" -gt 40 ] || fail "$1: too few pcs"
	for flags in -f -fai -fpi; do
		ncase=$((ncase + 1))
		"$D" addr2line -e "$1" $flags <"$1.pcs" >lazy.out 2>lazy.err
		rc=$?
		"$D" addr2line --verify -e "$1" $flags <"$1.pcs" >ver.out \
		    2>ver.err
		vrc=$?
		[ "$rc" -eq 0 ] && [ "$vrc" -eq 0 ] && [ ! -s lazy.err ] &&
		    [ ! -s ver.err ] ||
		    fail "$1 $flags: exit $rc/$vrc: $(cat lazy.err ver.err)"
		cmp -s lazy.out ver.out ||
		    { diff -u ver.out lazy.out | head -20 >&2
		      fail "$1 $flags: lazy answers differ from --verify"; }
		grep -qv '^??' lazy.out || fail "$1 $flags: no pc known"
	done
}

# --- the blobs -----------------------------------------------------------
lazy_blobs

# --- 1. lazy = --verify on sound blobs ------------------------------------
same hello.blob
same hello12.blob
same be32.blob
cat >inl.c <<'EOF'
static int k;
static inline int sq(int x) { k++; return x * x; }
static inline int add3(int x) { return sq(x) + 3; }
int g(int);
int g(int y) { return add3(y) * 2; }
int main(int argc, char **argv) { (void)argv; return g(argc) + add3(argc) + k; }
EOF
if "$CC" -O2 -g -o inl inl.c 2>/dev/null && "$LD" --elf inl -o inl.blob \
    2>/dev/null; then
	"$D" summary inl.blob >inl.summary
	grep -q '(INLPACK)' inl.summary || fail "inl.blob: no INLPACK section"
	# (pclndump summary: sq and add3 exist only inlined; their names
	# count as function names, not padding: tests/pclndump/check_size.)
	grep -q '^distinct names: [0-9]* function ([1-9][0-9]* of them inlined-only), 1 file$' \
	    inl.summary || fail "inl.blob: summary: $(grep names inl.summary)"
	same inl.blob
	# Damage INLPACK record 0 (its file bits become 0): the function
	# it belongs to is damaged, the others are not.
	ioff=$(sed -n 's/^  section 6 (INLPACK): offset \(0x[0-9a-f]*\), .*/\1/p' inl.summary)
	nfunc=$(sed -n 's/^functions: *\([0-9]*\)$/\1/p' inl.summary)
	python3 - inl.blob "$ioff" "$nfunc" <<'EOF' || fail "badinl.blob"
import struct, sys
off, n = int(sys.argv[2], 0), int(sys.argv[3])
b = bytearray(open(sys.argv[1], 'rb').read())
pb, fb = b[off], b[off + 1]	# pbits, fbits (runtime/pclnrt_format.h)
r = off + 8 + ((4 * (n + 1) + 7) & ~7)	# record 0
v = struct.unpack_from('<Q', b, r)[0] & ~(((1 << fb) - 1) << pb)
struct.pack_into('<Q', b, r, v)
open('badinl.blob', 'wb').write(b)
EOF
	ncase=$((ncase + 1))
	"$D" addr2line -e inl.blob -fi <inl.blob.pcs >good.out
	"$D" addr2line -e badinl.blob -fi <inl.blob.pcs >bad.out 2>bad.err
	rc=$?
	sed -n 's/^pclndump: badinl.blob: function [0-9]* (\(.*\)) at 0x[0-9a-f]*: damaged tables: INLPACK record 0 of function [0-9]* at 0x[0-9a-f]*: file 0, expected 1 to [0-9]*; .*/\1/p' \
	    bad.err >warned.txt
	[ "$rc" -eq 1 ] && [ "$(wc -l <bad.err)" -eq 1 ] &&
	    [ -s warned.txt ] && ! grep -Fxqf warned.txt bad.out ||
	    fail "badinl.blob: exit $rc: $(cat bad.err)"
	# Only the damaged function's answers changed, to "??".
	diff good.out bad.out | grep '^>' | grep -v '^> ??' &&
	    fail "badinl.blob: other answers changed"
	"$D" addr2line --verify -e badinl.blob -f 0 >/dev/null 2>ver.err &&
	    fail "badinl.blob: --verify answers"
	# In an ELF .pcln section too.
	if objcopy --add-section .pcln=inl.blob inl inl.elf 2>/dev/null; then
		same inl.elf
	fi
else
	echo "note: no pclnld --elf here (libdw); inline tree not compared"
fi

# --- 2. lazy skips the verifier: a wrong checksum --------------------------
ncase=$((ncase + 1))
"$D" verify badsum.blob >/dev/null 2>&1 && fail "badsum.blob: verify passes"
"$D" addr2line -e badsum.blob -f <hello.blob.pcs >lazy.out 2>lazy.err
rc=$?
"$D" addr2line -e hello.blob -f <hello.blob.pcs >good.out 2>/dev/null
[ "$rc" -eq 0 ] && [ ! -s lazy.err ] && cmp -s good.out lazy.out ||
    fail "badsum.blob: lazy mode: exit $rc: $(cat lazy.err)"
"$D" addr2line --verify -e badsum.blob -f 0x1000 >ver.out 2>ver.err
rc=$?
[ "$rc" -eq 1 ] && [ ! -s ver.out ] &&
    grep -q '^pclndump: badsum.blob: checksum mismatch' ver.err ||
    fail "badsum.blob: --verify: exit $rc: $(cat ver.out ver.err)"

# --- 3. one function's pcln table damaged (bad.blob: main.greet) ----------
"$D" verify bad.blob >/dev/null 2>verify.err &&
    fail "bad.blob: verify passes"
grep -q "function 2 pcln table at $off" verify.err ||
    fail "bad.blob: verify: $(cat verify.err)"
for flags in -f -fai; do
	ncase=$((ncase + 1))
	"$D" addr2line -e hello.blob $flags <hello.blob.pcs >good.out
	"$D" addr2line -e bad.blob $flags <hello.blob.pcs >bad.out 2>bad.err
	rc=$?
	[ "$rc" -eq 1 ] || fail "bad.blob $flags: exit $rc, expected 1"
	[ "$(wc -l <bad.err)" -eq 1 ] &&
	    grep -q "^pclndump: bad.blob: function 2 (main\.greet) at 0x1090: damaged tables: function 2 pcln table at $off: .*; its pcs are answered as unknown, \"??\"; run 'pclndump verify bad.blob' for a full check\$" bad.err ||
	    fail "bad.blob $flags: warning: $(cat bad.err)"
	# Answer by answer: main.greet's pcs are unknown, the rest as before.
	awk -v flags="$flags" '
	FILENAME == ARGV[1] { pc[NR] = $1; n = NR; next }
	FILENAME == ARGV[2] { good[++g] = $0; next }
	{ bad[++b] = $0 }
	END {
		per = flags == "-f" ? 2 : 3	# -a adds the address line
		if (g != n * per || b != g) {
			print "line counts: " n " pcs, " g " good, " b " bad"
			exit 1
		}
		for (i = 1; i <= n; i++) {
			p = pc[i]
			ingreet = p ~ /^0x/ && p >= "0x1090" && p < "0x10c8" &&
			    length(p) == 6 || p ~ /^main\.greet/
			for (k = 1; k <= per; k++) {
				j = (i - 1) * per + k
				want = good[j]
				if (ingreet && k == per)
					want = "??:0"
				else if (ingreet && k == per - 1)
					want = "??"
				if (bad[j] != want) {
					print "pc " p ": got \"" bad[j] "\", want \"" want "\""
					bad_n++
				}
			}
			if (ingreet) seen++
		}
		if (seen != 58 || bad_n) {
			print seen " pcs of main.greet, " bad_n " wrong lines"
			exit 1
		}
	}' hello.blob.pcs good.out bad.out >check.txt ||
	    fail "bad.blob $flags: $(head -5 check.txt)"
done
# --verify refuses up front with the verifier's message, answers nothing.
ncase=$((ncase + 1))
"$D" addr2line --verify -e bad.blob -f 0x1000 0x10d0 >ver.out 2>ver.err
rc=$?
"$D" summary bad.blob >/dev/null 2>summary.err
[ "$rc" -eq 1 ] && [ ! -s ver.out ] && [ "$(wc -l <ver.err)" -eq 1 ] &&
    cmp -s ver.err summary.err ||
    fail "bad.blob --verify: exit $rc: $(cat ver.out ver.err)"
# --verify before the command, too.
"$D" --verify addr2line -e bad.blob -f 0x1000 >ver.out 2>ver.err
rc=$?
[ "$rc" -eq 1 ] && [ ! -s ver.out ] && cmp -s ver.err summary.err ||
    fail "pclndump --verify addr2line bad.blob: exit $rc: $(cat ver.out ver.err)"
# Arguments instead of stdin; a pc in a sound function alone: exit 0.
"$D" addr2line -e bad.blob -f 0x1000 >one.out 2>one.err
rc=$?
[ "$rc" -eq 0 ] && [ ! -s one.err ] &&
    [ "$(cat one.out)" = "main.main
hello.go:5" ] || fail "bad.blob 0x1000 alone: exit $rc: $(cat one.out one.err)"
# --verify is accepted (and harmless) by the other commands.
"$D" summary --verify hello.blob >/dev/null 2>&1 ||
    fail "summary --verify"

# --- 4. flips and cuts: an answer, never a crash ----------------------------
if python3 -c '' 2>/dev/null; then
	# Every 3rd flip of the blob with a trailer, every 5th of the plain
	# one; every 16th cut (a few seconds in all).
	for spec in hello.blob:3 hello12.blob:5; do
		blob=${spec%:*}
		nwarn=0
		for i in $(flips "$blob" "${spec#*:}"); do
			for f in flip$i.blob cut$i.blob; do
				case $f in
				cut*) [ $((i % 16)) -eq 0 ] || continue ;;
				esac
				timeout 10 "$D" addr2line -e "$f" -f \
				    <hello.blob.pcs >f.out 2>f.err
				rc=$?
				if [ "$rc" -gt 1 ]; then
					fail "$blob $f: exit $rc: $(head -2 f.err)"
					continue
				fi
				if [ "$blob" = hello12.blob ]; then
					timeout 10 "$D" addr2line --verify \
					    -e "$f" -f <hello.blob.pcs \
					    >v.out 2>v.err
					[ $? -eq "$rc" ] && cmp -s f.out v.out ||
					    fail "$blob $f: lazy differs from --verify"
					nwarn=$((nwarn + 1))
					continue
				fi
				[ -s f.err ] || continue
				# A warned-about function answers no pc.
				sed -n "s/^pclndump: $f: function [0-9]* (\(.*\)) at 0x[0-9a-f]*: damaged tables: .*/\1/p" \
				    f.err >warned.txt
				[ -s warned.txt ] || continue
				nwarn=$((nwarn + 1))
				[ "$rc" -eq 1 ] || fail "$blob $f: warned, exit 0"
				grep -Fxf warned.txt f.out >named.txt &&
				    fail "$blob $f: answers with damaged $(head -1 named.txt)"
			done
		done
		ncase=$((ncase + 1))
		# The sweep must have met damaged functions.
		[ "$nwarn" -gt 10 ] || fail "$blob: only $nwarn damaged files seen"
		rm -f flip*.blob cut*.blob
	done
else
	echo "note: no python3; flip sweep skipped"
fi

echo "cli-a2l-lazy: $ncase cases, $fails failures"
[ "$fails" -eq 0 ]
