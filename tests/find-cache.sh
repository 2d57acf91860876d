#!/bin/sh
# find-cache.sh -- the table cache and stale tables.
#
#   stale: a program rebuilt after its table was made gets its old
#     table refused, naming both build-ids: by the runtime alone
#     (tests/find/selfcheck.c checks a table against its own
#     NT_GNU_BUILD_ID, found through dl_iterate_phdr) and by pclndump
#     --table; through the cache the rebuilt program gets a new entry and
#     its own answers, never the old table's;
#   damaged and mismatched entries: a flipped byte (checksum) and another
#     build's entry under this build's name (BUILDID) are each noticed,
#     removed and remade, and the answers stay right;
#   concurrent fillers: 8 pclndump processes filling one entry at once
#     all answer alike and leave one sound entry, no temporaries;
#   eviction: with --cache-limit, the least recently used entries go;
#   a table made without DWARF is not searched for again while nothing
#   the search reads changes, and is remade once the debug file appears
#   (by build-id or beside the program, by .gnu_debuglink).

. "${top_srcdir:-.}/tests/lib.sh"
use_real_tools ld
test_workdir find-cache

src=$top_srcdir/tests/find
export XDG_CACHE_HOME=$work/xdg
C=$XDG_CACHE_HOME/pcln

build() {	# build OUT CFLAGS...: the test program
	out=$1; shift
	$CC -O2 -g "$@" -I"$src" -o "$out" "$src/prog.c" "$src/prog_util.c" ||
	    { fail "cannot build $out"; exit 1; }
}
bid() { readelf -n "$1" | awk '/Build ID/ { print $3 }'; }
pcs_of() {
	objdump -d --no-show-raw-insn -j .text "$1" |
	    awk '/^ *[0-9a-f]+:\t/ { a = $1; sub(/:$/, "", a); print "0x" a }'
}
a2l() { "$D" addr2line -a -f -i "$@"; }

# --- stale tables, refused by the runtime and by pclndump --table ----------
ncase=$((ncase + 1))
$CC -O2 -g -I"$top_srcdir/runtime" -o selfcheck "$src/selfcheck.c" \
    "$top_srcdir"/runtime/*.c || { fail "cannot build selfcheck"; exit 1; }
"$LD" --elf selfcheck -o self1.pcln || fail "pclnld on selfcheck"
id1=$(bid selfcheck)
out=$(./selfcheck self1.pcln) && echo "$out" | grep -q "^ok: .*$id1" ||
    fail "selfcheck refused its own table: $out"
cp selfcheck selfcheck.v1
$CC -O2 -g -DSELFCHECK_V2 -I"$top_srcdir/runtime" -o selfcheck \
    "$src/selfcheck.c" "$top_srcdir"/runtime/*.c
id2=$(bid selfcheck)
[ "$id1" != "$id2" ] || fail "the rebuild kept its build-id"
out=$(./selfcheck self1.pcln)
rc=$?
if [ $rc -eq 1 ] && [ "$out" = "refused: the table is for build-id $id1, this program is $id2" ]; then
	echo "ok: the runtime refuses the stale table: $out"
else
	fail "selfcheck on a stale table: exit $rc: $out"
fi

build p1
build p2 -DPROG_OTHER=1 -fno-inline
"$LD" --elf p1 -o p1.pcln
p1id=$(bid p1); p2id=$(bid p2)
ncase=$((ncase + 1))
a2l -e p1 --table p1.pcln 0x1000 >/dev/null 2>t.err ||
    fail "--table with the right table: $(cat t.err)"
if a2l -e p2 --table p1.pcln 0x1000 >t.out 2>t.err; then
	fail "--table: a stale table was used"
elif grep -q "^pclndump: p1.pcln: not the table of p2: table is for build-id $p1id; the object's is $p2id (rebuilt since the table was made?)$" t.err &&
    [ ! -s t.out ]; then
	echo "ok: pclndump --table refuses: $(cat t.err)"
else
	fail "--table, stale: $(cat t.err)"
fi

# --- the cache: a rebuilt program gets its own entry -----------------------
ncase=$((ncase + 1))
cp p1 prog
pcs_of p1 >pcs1
a2l -e prog <pcs1 >c1.out 2>c1.err || fail "cache, first build: $(cat c1.err)"
a2l -e p1.pcln <pcs1 >d1.out
cmp -s c1.out d1.out || fail "cache: the first build's answers differ from its table's"
# Entries are BUILDID.MAKER.pcln, MAKER the build of libpcln that made
# them (pcln_cache_maker): take it from the first one.
M=$(ls "$C" | sed -n "s/^$p1id\.\([Lv][^.]*\)\.pcln\$/\1/p")
[ -n "$M" ] && [ -f "$C/$p1id.$M.pcln" ] ||
    fail "cache: no entry $p1id.MAKER.pcln: $(ls "$C")"
cp p2 prog		# rebuilt in place
pcs_of p2 >pcs2
a2l -e prog <pcs2 >c2.out 2>c2.err || fail "cache, rebuilt: $(cat c2.err)"
"$LD" --elf p2 -o p2.pcln
a2l -e p2.pcln <pcs2 >d2.out
if cmp -s c2.out d2.out && [ -f "$C/$p2id.$M.pcln" ] && ! cmp -s c2.out c1.out; then
	echo "ok: the rebuilt program has its own entry ($p2id) and answers"
else
	fail "cache: the rebuilt program did not get its own table"
fi

# --- damaged and mismatched entries ----------------------------------------
ncase=$((ncase + 1))
printf '\377' | dd of="$C/$p2id.$M.pcln" bs=1 seek=200 conv=notrunc 2>/dev/null
a2l -e prog <pcs2 >c3.out 2>c3.err
if cmp -s c3.out d2.out && grep -q "cache entry $C/$p2id.$M.pcln removed: no trailer, or its checksum does not match" c3.err &&
    "$D" verify "$C/$p2id.$M.pcln" >/dev/null; then
	echo "ok: a damaged entry: $(cat c3.err)"
else
	fail "damaged entry: $(cat c3.err)"
fi
ncase=$((ncase + 1))
cp "$C/$p1id.$M.pcln" "$C/$p2id.$M.pcln"
a2l -e prog <pcs2 >c4.out 2>c4.err
if cmp -s c4.out d2.out && grep -q "removed: its BUILDID section is not its name" c4.err; then
	echo "ok: another build's entry under this name: $(cat c4.err)"
else
	fail "mismatched entry: $(cat c4.err)"
fi

# A hit leaves the entry stamped (user.pcln.checked: its size and the
# modification time the hit set, to the nanosecond), and a later hit
# does not read its checksum.  A byte changed right after a hit, in
# place and within the same clock tick or so, changes that time: the
# entry is refused.  (Where the file system keeps no user attributes
# the stamp is not made and every hit checks: then only the refusal
# is asked for.)
ncase=$((ncase + 1))
a2l -e prog <pcs2 >c5.out 2>c5.err
st=$(python3 -c '
import os, sys
p = sys.argv[1]
try:
    v = os.getxattr(p, "user.pcln.checked").decode()
except OSError:
    print("none"); sys.exit(0)
s = os.stat(p)
print("ok" if v == "%d %d.%09d" % (s.st_size, s.st_mtime_ns // 10**9,
      s.st_mtime_ns % 10**9) else "wrong: " + v)' "$C/$p2id.$M.pcln")
case $st in
ok|none) ;;
*) fail "checked stamp: $st";;
esac
# A hit less than a second after the last one leaves the entry as it is
# (no new time, no new stamp); the eviction case below has a hit more
# than a second later renew it.
ncase=$((ncase + 1))
m0=$(stat -c %.9Y "$C/$p2id.$M.pcln")
a2l -e prog <pcs2 >c5b.out 2>c5b.err
m1=$(stat -c %.9Y "$C/$p2id.$M.pcln")
if [ "$st" = none ]; then
	echo "ok: no stamps kept here, so every hit renews"
elif ! cmp -s c5b.out d2.out; then
	fail "a second hit answered differently: $(cat c5b.err)"
elif [ "$m0" = "$m1" ]; then
	echo "ok: a hit within a second kept the entry's time ($m0)"
elif python3 -c 'import sys; sys.exit(0 if float(sys.argv[2]) - float(sys.argv[1]) >= 1 else 1)' "$m0" "$m1"; then
	echo "ok: the second hit came more than a second later and renewed it"
else
	fail "a hit within a second changed the entry's time: $m0 -> $m1"
fi
a2l -e prog <pcs2 >c6.out 2>c6.err &&
    python3 -c '
import sys
with open(sys.argv[1], "r+b") as f:
    f.seek(300)
    b = f.read(1)
    f.seek(300)
    f.write(bytes([b[0] ^ 0x40]))' "$C/$p2id.$M.pcln"
a2l -e prog <pcs2 >c7.out 2>c7.err
if [ "$st" != none ] && [ -n "$(cat c6.err)" ]; then
	fail "a stamped hit said: $(cat c6.err)"
elif cmp -s c7.out d2.out && grep -q "cache entry $C/$p2id.$M.pcln removed: no trailer, or its checksum does not match" c7.err; then
	echo "ok: stamped ($st), and changed after a hit: $(cat c7.err)"
else
	fail "an entry changed after a hit: $(cat c7.err)"
fi

# --- concurrent fillers ----------------------------------------------------
ncase=$((ncase + 1))
rm -rf "$C"
i=0
while [ $i -lt 8 ]; do
	a2l -e prog <pcs2 >par$i.out 2>par$i.err &
	i=$((i + 1))
done
wait
i=0
while [ $i -lt 8 ]; do
	cmp -s par$i.out d2.out || fail "concurrent filler $i answered differently: $(cat par$i.err)"
	i=$((i + 1))
done
n=$(ls -A "$C" | wc -l)
if [ "$n" -eq 1 ] && "$D" verify "$C/$p2id.$M.pcln" >/dev/null; then
	echo "ok: 8 concurrent fillers, one sound entry, no temporaries"
else
	fail "concurrent fillers left: $(ls -A "$C")"
fi

# --- eviction --------------------------------------------------------------
ncase=$((ncase + 1))
build p3 -DPROG_OTHER=3
p3id=$(bid p3)
sz=$(wc -c <"$C/$p2id.$M.pcln")
a2l -e p1 0x1000 >/dev/null 2>&1
sleep 1
a2l -e p3 0x1000 >/dev/null 2>&1
sleep 1
# Touch p2's entry (a hit renews it), then store p1's again within a
# limit for two entries: p3's, the least recently used, goes.
a2l -e prog 0x1000 >/dev/null 2>&1
rm "$C/$p1id.$M.pcln"
a2l --cache-limit $((2 * sz + sz / 2)) -e p1 0x1000 >/dev/null 2>&1
if [ -f "$C/$p1id.$M.pcln" ] && [ -f "$C/$p2id.$M.pcln" ] && [ ! -f "$C/$p3id.$M.pcln" ]; then
	echo "ok: eviction to the limit took the least recently used entry"
else
	fail "eviction: left $(ls "$C")"
fi

# --- a table without DWARF is remade when the debug file turns up -----------
# It is kept with the stamp of the search that found nothing: while
# nothing that search reads changes, it is not run again; a debug file
# put where the search looks (by build-id, or by .gnu_debuglink beside
# the file) changes the stamp, and the table is remade with the DWARF.
ncase=$((ncase + 1))
rm -rf "$C" dbg
mkdir dbg
strip -g p1 -o p1.s
objcopy --only-keep-debug p1 p1.debug
a2l --debug-dir dbg -e p1.s <pcs1 >n1.out 2>n1.err
[ -f "$C/$p1id.$M.nodwarf.pcln" ] || fail "no .nodwarf entry: $(ls "$C")"
[ -f "$C/$p1id.$M.nodwarf.stamp" ] || fail "no stamp: $(ls "$C")"
grep -q '??:?' n1.out || fail "a table without DWARF has lines"
grep -q "not searched again" n1.err && fail "the first run did not search"
a2l --debug-dir dbg -e p1.s <pcs1 >n1b.out 2>n1b.err
if cmp -s n1.out n1b.out && grep -q "not searched again" n1b.err; then
	echo "ok: an unchanged search is not run again"
else
	fail "second run without DWARF: $(cat n1b.err)"
fi
mkdir -p dbg/.build-id/$(echo "$p1id" | cut -c1-2)
cp p1.debug "dbg/.build-id/$(echo "$p1id" | cut -c1-2)/$(echo "$p1id" | cut -c3-).debug"
a2l --debug-dir dbg -e p1.s <pcs1 >n2.out 2>n2.err
if cmp -s n2.out d1.out && [ -f "$C/$p1id.$M.pcln" ] &&
    [ ! -f "$C/$p1id.$M.nodwarf.pcln" ] &&
    [ ! -f "$C/$p1id.$M.nodwarf.stamp" ]; then
	echo "ok: the table without DWARF was remade with the debug file"
else
	fail "nodwarf entry not remade: $(ls "$C") $(cat n2.err)"
fi
ncase=$((ncase + 1))
rm -rf "$C" dl
mkdir dl
objcopy --add-gnu-debuglink=p1.debug p1.s dl/p1.l
a2l -e dl/p1.l <pcs1 >n3.out 2>n3.err
a2l -e dl/p1.l <pcs1 >n3b.out 2>n3b.err
grep -q "not searched again" n3b.err || fail "debuglink, unchanged: $(cat n3b.err)"
cp p1.debug dl/
a2l -e dl/p1.l <pcs1 >n4.out 2>n4.err
if cmp -s n4.out d1.out && [ -f "$C/$p1id.$M.pcln" ] &&
    [ ! -f "$C/$p1id.$M.nodwarf.pcln" ]; then
	echo "ok: the debuglink's file beside the program remade the table"
else
	fail "debuglink: not remade: $(ls "$C") $(cat n4.err)"
fi

echo "$ncase cases, $fails failed"
[ "$fails" -eq 0 ]
