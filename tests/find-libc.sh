#!/bin/sh
# find-libc.sh -- a real third-party case: Debian's stripped libc.so.6,
# whose debug file libc6-dbg installs under /usr/lib/debug/.build-id.
# `pclndump addr2line -f -i -e libc.so.6` (which has no table: it is made
# through the cache) must answer as eu-addr2line and gdb do.
#
#   eu-addr2line -f -i, every 97th instruction of libc (~3,500 pcs),
#     every inlined frame and file:line: identical, except where the
#     difference is by design and named: a pc in padding after a
#     function (nop; pcln gives it to no function, eu-addr2line names
#     the line), or another name of the same address (an alias; pcln
#     folds aliases by its own rule, pcln_dwarf.h);
#   gdb (its Python API: the block at the pc, its function and the
#     outermost function, else `info symbol`): the innermost and the
#     outermost function at the same pcs (gdb's lines are counted, not
#     compared: gdb reads only is_stmt rows);
#   the second run answers from the cache entry the first one stored,
#     identically.
# Needs libc6-dbg, elfutils (eu-addr2line), gdb and binutils (setup.sh
# installs them); missing, the test fails, saying which.

. "${top_srcdir:-.}/tests/lib.sh"
use_real_tools
test_workdir find-libc

libc=$($CC -print-file-name=libc.so.6)
case $libc in /*) ;; *) libc=/lib/x86_64-linux-gnu/libc.so.6 ;; esac
libc=$(readlink -f "$libc")
for t in eu-addr2line gdb objdump readelf addr2line; do
	command -v $t >/dev/null 2>&1 || { fail "no $t (run scripts/setup.sh)"; exit 1; }
done
id=$(readelf -n "$libc" | awk '/Build ID/ { print $3 }')
dbg=/usr/lib/debug/.build-id/$(echo "$id" | cut -c1-2)/$(echo "$id" | cut -c3-).debug
if [ ! -f "$dbg" ]; then
	fail "$libc: no $dbg (install libc6-dbg: scripts/setup.sh)"
	exit 1
fi
export XDG_CACHE_HOME=$work/xdg
objdump -d --no-show-raw-insn "$libc" | awk '/^ *[0-9a-f]+:\t/ {
	n++; a = $1; sub(/:$/, "", a)
	ins[a] = ($2 ~ /^(nop|int3|xchg|data16|cs|hlt)/) ? "pad" : "-"
	if (n % 97 == 0) { print "0x" a; print a, ins[a] > "insns" } }' >pcs
echo "$libc ($id): $(wc -l <pcs) pcs"

# One line per pc: ADDR NAME@FILE:LINE|... innermost first; eu-addr2line's
# ":COL" and " inlined at ..." dropped, an unknown line as "??".
records='function out() { if (a != "") print a, r }
	/^0x[0-9a-f]+$/ { out(); a = $1; sub(/^0x0*/, "", a); r = ""; n = 0; next }
	{ n++ }
	n % 2 == 1 { fn = $1; next }
	{ loc = $1; if (loc ~ /:[0-9]+:[0-9]+$/) sub(/:[0-9]+$/, "", loc)
	  if (loc ~ /:(0|\?)$/) loc = "??"
	  r = r (r == "" ? "" : "|") fn "@" loc }
	END { out() }'

t0=$(date +%s.%N)
"$D" addr2line -a -f -i -e "$libc" <pcs >cold.out 2>cold.err ||
    { cat cold.err >&2; fail "pclndump addr2line (cold) failed"; exit 1; }
t1=$(date +%s.%N)
"$D" addr2line -a -f -i -e "$libc" <pcs >warm.out 2>warm.err ||
    { cat warm.err >&2; fail "pclndump addr2line (warm) failed"; }
t2=$(date +%s.%N)
ncase=$((ncase + 1))
cmp -s cold.out warm.out || fail "the cached table answers differently"
if ent=$(cache_entry "$id"); then
	echo "ok: cache entry $ent, $(wc -c <"$ent") bytes; cold $(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.3f", b - a }') s, warm $(awk -v a="$t1" -v b="$t2" 'BEGIN { printf "%.3f", b - a }') s"
else
	fail "no cache entry for $id: $(cat cold.err)"
fi
[ -s cold.err ] && { echo "pclndump said:"; cat cold.err; }

eu-addr2line -a -f -i -e "$libc" <pcs >eu.out
awk "$records" cold.out >ours.rec
awk "$records" eu.out >eu.rec
# Names at one address (aliases), from the debug file's symbols.
nm "$dbg" | awk '$2 ~ /^[tTwWiI]$/ { a = $1; sub(/^0*/, "", a); print a, $3 }' >aliases
ncase=$((ncase + 1))
paste -d' ' ours.rec eu.rec insns | awk '
	NR == FNR { at[$2] = $1; next }
	function outer(r,   k, p) { k = split(r, p, "|"); split(p[k], q, "@"); return q[1] }
	function but_outer(r) { sub(/[^|@]*@[^|]*$/, "", r); return r }
	function loc(r,   k, p) { k = split(r, p, "|"); sub(/^[^@]*/, "", p[k]); return p[k] }
	{
		t++
		if ($1 != $3 || $1 != $5) { bad++; print "address mismatch: " $0; next }
		if ($2 == $4) { ok++; next }
		if ($2 == "??@??" && $6 == "pad") { pad++; next }
		# Only the outermost name differs, and both are names of
		# one address: an alias.
		a = outer($2); b = outer($4)
		if (but_outer($2) == but_outer($4) && loc($2) == loc($4) &&
		    a in at && b in at && at[a] == at[b]) { alias++; next }
		bad++
		if (bad <= 10) print "  differs: " $1 " ours " $2 " eu-addr2line " $4
	}
	END {
		printf "eu-addr2line: %d pcs, %d identical (%.2f%%), %d in padding (pcln: no function), %d another name of the same address (an alias), %d other\n", t, ok, 100 * ok / t, pad, alias, bad
		exit !(t > 1000 && bad == 0 && ok * 100 >= 97 * t)
	}' aliases - || fail "eu-addr2line: answers differ beyond padding and aliases"

# gdb at the same pcs: the innermost and outermost functions.
cat >gdb.py <<'EOF'
import gdb
for l in open("pcs"):
    pc = int(l, 16)
    sal = gdb.find_pc_line(pc)
    b = gdb.block_for_pc(pc)
    inner = outer = None
    while b is not None:
        if b.function is not None:
            inner = inner or b.function.name
            outer = b.function.name
        b = b.superblock
    if inner is None:
        s = gdb.execute("info symbol 0x%x" % pc, to_string=True).split()
        inner = outer = s[0] if len(s) > 1 and s[1] in ("+", "in") else "??"
    loc = "%s:%d" % (sal.symtab.filename.split("/")[-1], sal.line) \
        if sal.symtab and sal.line else "??"
    print("%x %s %s %s" % (pc, inner, outer, loc))
EOF
gdb -nx -batch -ex 'python exec(open("gdb.py").read())' "$libc" >gdb.out 2>gdb.err ||
    { cat gdb.err >&2; fail "gdb failed"; }
ncase=$((ncase + 1))
awk '
	FILENAME == "aliases" { at[$2] = $1; next }
	FILENAME == "ours.rec" { n = split($2, f, "|"); split(f[1], x, "@"); split(f[n], y, "@")
		inner[FNR] = x[1]; outer[FNR] = y[1]; line[FNR] = x[2]; addr[FNR] = $1; next }
	function same(a, b) { return a == b || (a in at && b in at && at[a] == at[b]) }
	{ i = FNR
	  if (addr[i] != $1) { bad++; print "gdb: address mismatch " addr[i] " " $1; next }
	  t++
	  if (inner[i] == "??" && $2 == "??") { fok++; next }
	  if (inner[i] == "??" && $2 ~ /@plt$/) { plt++; next }
	  if (same(inner[i], $2) && same(outer[i], $3)) fok++
	  else if (fbad++ < 5) print "  gdb names " $2 " in " $3 ", pcln " inner[i] " in " outer[i] " at 0x" $1
	  l = line[i]; sub(/.*\//, "", l)
	  if (l != "??" && $4 != "??") { lt++; if (l == $4) lok++ } }
	END {
		printf "gdb: %d pcs, functions agree at %d (%.2f%%; aliases count as agreeing), %d PLT stubs gdb names and pcln does not; file:line agrees at %d of %d (%.1f%%: gdb reads only is_stmt rows and picks among rows at one address its own way; not compared)\n", t, fok, 100 * fok / t, plt, lok, lt, 100 * lok / lt
		exit !(bad == 0 && t > 1000 && fok + plt == t)
	}' aliases ours.rec gdb.out || fail "gdb: functions differ"

echo "$ncase checks, $fails failed"
[ "$fails" -eq 0 ]
