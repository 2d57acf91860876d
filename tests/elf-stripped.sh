#!/bin/sh
# elf-stripped.sh -- a shared object stripped to .dynsym and .eh_frame (as
# Debian ships libc) still gets a function, and its pcsp, for every FDE:
# at every instruction of .text, the table of the stripped object has the
# same function extent and sp delta as the table of the unstripped one;
# a function the stripped object exports keeps its name, a static one is
# unnamed ("??", as gdb says without debug information), never another
# function's name; code without CFI (crtstuff's) has no FDE and so no
# function.  Lines are gone (nothing invented).

. "${top_srcdir:-.}/tests/lib.sh"
use_real_tools ld
test_workdir elf-stripped

for t in objdump strip; do
	command -v $t >/dev/null 2>&1 || { fail "no $t (run scripts/setup.sh)"; exit 1; }
done
cat >lib.c <<'SRC'
#include <stdlib.h>
static int *volatile np;
__attribute__((noinline)) static int helper(int x) { return x * 3 + (np != 0); }
__attribute__((noinline)) static int cmp(const void *a, const void *b)
{ return helper(*(const int *)a) - helper(*(const int *)b); }
__attribute__((noinline)) int lib_sort(int *v, int n)
{ int buf[64], i; for (i = 0; i < n && i < 64; i++) buf[i] = v[i];
  qsort(buf, (size_t)i, sizeof *buf, cmp); return buf[0] + helper(n); }
int lib_other(int x) { return helper(x) + 1; }
SRC
$CC -O2 -g -fomit-frame-pointer -fPIC -shared -o full.so lib.c ||
    { fail "cc"; exit 1; }
strip --strip-all -o stripped.so full.so
"$LD" --elf full.so -o full.pcln || { fail "pclnld full.so"; exit 1; }
"$LD" -v --elf stripped.so -o stripped.pcln 2>stats ||
    { cat stats >&2; fail "pclnld stripped.so"; exit 1; }
grep -q "unnamed from FDEs" stats || fail "no FDE statistics: $(cat stats)"
nfde=$(sed -n 's/.*DWARF, \([0-9]*\) unnamed from FDEs.*/\1/p' stats)
[ "${nfde:-0}" -ge 2 ] || fail "expected at least 2 unnamed functions (helper, cmp), got '${nfde:-}'"
objdump -d --no-show-raw-insn -j .text full.so |
    awk '/^ *[0-9a-f]+:\t/ { a = $1; sub(/:$/, "", a); print "0x" a }' >pcs
"$D" lookup full.pcln <pcs >full.out
"$D" lookup stripped.pcln <pcs >stripped.out
# Per pc: function+offset and sp= of each; the stripped one's file:line
# must be unknown.
paste -d'|' full.out stripped.out | awk -F'|' '
function f(s, k,   n, a, i) { n = split(s, a, /  +/)
	if (k == "name") return a[2]
	for (i = 1; i <= n; i++) if (a[i] ~ /^sp=/) return a[i]
	return "sp=none" }
{ total++
  fn = f($1, "name"); sn = f($2, "name"); fs = f($1, "sp"); ss = f($2, "sp")
  split(fn, x, "+"); split(sn, y, "+")
  if (fn == "??") next	# padding: no function in either
  known++
  # Code without CFI (crtstuff) has no FDE: no function when stripped.
  if (sn == "??" && fs == "sp=-1") { nocfi++; next }
  if (fs != ss) { bad++; if (bad < 6) print "sp differs: " $0 }
  if (x[2] != y[2]) { bad++; if (bad < 6) print "extent differs: " $0 }
  if (y[1] != x[1] && y[1] != "??") { bad++; if (bad < 6) print "name invented: " $0 }
  if (y[1] == "??") unnamed++
  if ($2 !~ /  \?\?:\?  /) { bad++; if (bad < 6) print "a line invented: " $0 } }
END { printf "%d pcs, %d in functions, %d of them unnamed when stripped, %d without CFI, %d wrong\n", total, known, unnamed, nocfi, bad
      exit (bad > 0 || unnamed == 0 || known == 0) }' || fail "the stripped table differs"
# The exported functions keep their names.
for fn in lib_sort lib_other; do
	grep -q " $fn+0x0 " stripped.out || fail "$fn lost its name"
done
if [ "$fails" -eq 0 ]; then
	echo "elf-stripped: ok"
	exit 0
fi
exit 1
