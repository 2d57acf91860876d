#!/bin/sh
# elf-import.sh -- pclnld --elf on small programs made to show one thing
# each (doc/IMPORT.md):
#  - COMDAT: two units with the same inline function, compiled to code of
#    the same size but different bytes and lines: the answer comes from
#    the copy the linker kept, whichever order the units are linked in;
#  - a sequence's empty last row at the address where the next function
#    starts (tests/dwarf/seqend.s) does not leak into that function;
#  - names: a C++ function with internal linkage is named by its symbol,
#    an inlined one by its qualified name; C by DW_AT_name;
#  - discriminators: printed as binutils prints them, byte for byte;
#  - damaged .debug_line, .debug_info, .debug_abbrev, .debug_str,
#    .eh_frame: a warning naming the section and byte offset, exit 0; with
#    --strict exit 1 and the earlier output untouched;
#  - a .text whose header claims 2^40 bytes keeps every function, with a
#    warning; the summary line is printed without -v;
#  - an FDE that reads well but whose instructions libdw cannot execute:
#    a warning naming the FDE's byte offset and the function, exit 0;
#  - labels (STT_NOTYPE, as ld.so's _start): a function of their own
#    outside every function symbol, not within one or at one's address,
#    as binutils' addr2line names them.

. "${top_srcdir:-.}/tests/lib.sh"
DUMP=$D

for t in gcc g++ addr2line objdump python3; do
	command -v $t >/dev/null 2>&1 || { echo "SKIP: no $t"; exit 77; }
done
test_workdir elf-import

# a2l BLOB ADDR...: pclndump's "-f" answer, one line per address.
a2l() {
	b=$1; shift
	"$DUMP" addr2line -f -e "$b" "$@" | paste -d' ' - -
}

# --- COMDAT ---------------------------------------------------------------
cat >h.h <<'EOF'
#ifdef SECOND
#line 500
#endif
inline __attribute__((noinline)) int f(int x)
{
	return x * K;
}
EOF
printf '#define K 3\n#include "h.h"\nint a(int x) { return f(x) + 1; }\n' >a.cc
printf '#define K 5\n#define SECOND\n#include "h.h"\nint b(int x) { return f(x) + 2; }\n' >b.cc
printf 'int a(int), b(int);\nint main(int c, char **v) { return a(c) + b(c); }\n' >m.cc
for o in ab ba; do
	if [ $o = ab ]; then set -- a.cc b.cc; else set -- b.cc a.cc; fi
	g++ -O2 -g -o comdat-$o m.cc "$@" || { fail "comdat: g++"; continue; }
	"$LD" --elf comdat-$o -o comdat-$o.pcln -v 2>ld.log ||
		{ cat ld.log >&2; fail "comdat-$o: pclnld"; continue; }
	grep -q ', 1 also described by a unit whose copy was not kept' ld.log ||
		fail "comdat-$o: the folded copy is not counted"
	entry=$(nm comdat-$o | awk '$3 == "_Z1fi" { print "0x" $1 }')
	# Which copy is there: x*3 is lea (r,r,2), x*5 lea (r,r,4).
	if objdump -d comdat-$o | awk '/<_Z1fi>:/ { p = 1; next } p && /^$/ { exit }
	    p' | grep -q ',2)'; then want=6; else want=503; fi
	got=$(a2l comdat-$o.pcln "$entry")
	case "$got" in
	*"h.h:$want") ;;
	*) fail "comdat-$o: f at $entry is '$got', expected line $want (the kept copy)" ;;
	esac
done

# --- a sequence's empty last row ------------------------------------------
if gcc -c "$top_srcdir/tests/dwarf/seqend.s" -o seqend.o &&
    gcc -nostdlib -static -Wl,-e,main seqend.o -o seqend; then
	"$LD" --elf seqend -o seqend.pcln 2>/dev/null || fail "seqend: pclnld"
	f=$(nm seqend | awk '$3 == "f" { print "0x" $1 }')
	got=$(a2l seqend.pcln "$f")
	[ "$got" = "f seqend.c:20" ] ||
		fail "seqend: f's first byte is '$got', expected 'f seqend.c:20' (main's empty last row leaked)"
else
	fail "seqend: cannot assemble tests/dwarf/seqend.s"
fi

# --- names ----------------------------------------------------------------
cat >names.cc <<'EOF'
#include <cstdio>
namespace {
struct Counter {
	int n;
	__attribute__((noinline)) int bump(int x) { std::printf("%d\n", x); return n += x; }
	__attribute__((always_inline)) int twice(int x) { return bump(x) + bump(x); }
};
}
__attribute__((noinline)) int use(int x) { Counter c = { x }; return c.twice(x); }
int main(int argc, char **) { return use(argc); }
EOF
g++ -O2 -g -o names names.cc && "$LD" --elf names -o names.pcln 2>/dev/null ||
	fail "names: build"
bump=$(nm names | awk '$3 ~ /Counter4bump/ { print $3 }')
"$DUMP" functions names.pcln | grep -q " $bump " ||
	fail "names: internal-linkage Counter::bump is not named by its symbol ($bump)"
pc=$(objdump -d --no-show-raw-insn names | awk '/<_Z3usei>:/ { p = 1; next }
    p && /call/ { sub(/:$/, "", $1); print "0x" $1; exit }')
"$DUMP" addr2line -f -i -e names.pcln "$pc" >names.out
grep -qx '(anonymous namespace)::Counter::twice' names.out ||
	{ cat names.out >&2; fail "names: the inlined twice() is not qualified"; }
printf 'static int sq(int x) { return x * x; }\nint main(int c, char **v) { return sq(c); }\n' >c.c
gcc -O0 -g -o cprog c.c && "$LD" --elf cprog -o cprog.pcln 2>/dev/null &&
	"$DUMP" functions cprog.pcln | grep -q ' sq ' || fail "names: C function sq"

# --- discriminators -------------------------------------------------------
cat >d.c <<'EOF'
extern int g(int);
int
sum(const int *a, int n, int m)
{
	int s = 0, i;
	for (i = 0; i < n; i++) { if (a[i] > m) s += g(a[i]); else s -= g(-a[i]); }
	return s;
}
int g(int x) { return x * 3 + 1; }
int main(int c, char **v) { int a[4] = { c, 2, 3, 4 }; return sum(a, 4, c); }
EOF
gcc -O2 -fno-inline -g -o disc d.c && "$LD" --elf disc -o disc.pcln 2>/dev/null || fail "disc: build"
objdump -d --no-show-raw-insn -j .text disc | awk '/^ *[0-9a-f]+:\t/ {
    a = $1; sub(/:$/, "", a); print "0x" a }' >disc.addrs
"$DUMP" addr2line -a -f -i -e disc.pcln <disc.addrs >disc.ours
addr2line -a -f -i -e disc <disc.addrs >disc.bu
grep -q '(discriminator [0-9]*)$' disc.bu || fail "disc: gcc wrote no discriminator"
grep -c discriminator disc.bu | grep -qx "$(grep -c discriminator disc.ours)" ||
	fail "disc: $(grep -c discriminator disc.ours) discriminators, binutils $(grep -c discriminator disc.bu)"
# Byte for byte where both know the function (padding between functions
# is in no pcln function by design).
paste -d'\t' disc.ours disc.bu | awk -F'\t' '$1 != $2 && $1 !~ /^\?\?/ { n++; if (n < 4) print }
    END { exit n > 0 }' || fail "disc: pclndump differs from binutils"

# --- damaged sections -----------------------------------------------------
gcc -O2 -g -o victim d.c || fail "victim: gcc"
damage() {	# NAME SECTION PATCH-ARGS...: expect a warning naming SECTION
	name=$1 sec=$2; shift 2
	cp victim $name
	python3 "$top_srcdir/tests/elfpatch.py" $name "$@" || { fail "$name: cannot patch"; return; }
	"$LD" --elf $name -o $name.pcln 2>$name.err
	rc=$?
	[ $rc -eq 0 ] || { cat $name.err >&2; fail "$name: exit $rc, expected 0 (a warning)"; }
	grep -q "warning: .*$sec at byte offset 0x" $name.err ||
		{ cat $name.err >&2; fail "$name: no warning naming $sec and a byte offset"; }
	grep -q 'functions (.* with lines), .* line rows, .* inlined calls' $name.err ||
		fail "$name: no summary line"
	echo keep >$name.strict
	"$LD" --elf $name --strict -o $name.strict 2>$name.err2
	rc=$?
	[ $rc -eq 1 ] || fail "$name --strict: exit $rc, expected 1"
	grep -q "$sec at byte offset 0x.*--strict" $name.err2 ||
		{ cat $name.err2 >&2; fail "$name --strict: no error naming $sec"; }
	[ "$(cat $name.strict)" = keep ] || fail "$name --strict: output replaced"
}
damage bad-line .debug_line .debug_line 4 ff00
damage bad-info .debug_info .debug_info 4 ff00
damage bad-abbrev .debug_abbrev .debug_abbrev --size 1
damage bad-str .debug_str .debug_str --size 1
damage bad-eh .eh_frame .eh_frame 0 f0ffff7f
"$LD" --elf victim -o victim.pcln 2>victim.err || fail "victim: pclnld"
grep -q warning victim.err && { cat victim.err >&2; fail "victim: a warning on a sound program"; }
grep -q '^pclnld: victim: [0-9]* functions' victim.err || fail "victim: no summary line"

# --- a .text claiming 2^40 bytes ------------------------------------------
cp victim huge
python3 "$top_srcdir/tests/elfpatch.py" huge .text --size 0x10000000000 || fail "huge: cannot patch"
"$LD" --elf huge -o huge.pcln 2>huge.err || { cat huge.err >&2; fail "huge: pclnld"; }
grep -q 'warning: .*\.text claims 0x10000000000 bytes' huge.err ||
	{ cat huge.err >&2; fail "huge: no warning about .text"; }
n0=$("$DUMP" functions victim.pcln | wc -l)
n1=$("$DUMP" functions huge.pcln | wc -l)
[ "$n0" -eq "$n1" ] || fail "huge: $n1 functions listed, the sound program $n0"

# --- an FDE whose instructions cannot be executed -------------------------
# badcfi's FDE holds DW_CFA 0x3f (user-defined, which libdw refuses) after
# its first row: pcsp is known at the entry, unknown (-1) after it.
cat >badcfi.s <<'EOF'
	.text
	.globl	badcfi
	.type	badcfi, @function
badcfi:
	.cfi_startproc
	pushq	%rbp
	.cfi_def_cfa_offset 16
	.cfi_escape 0x3f
	movq	%rsp, %rbp
	popq	%rbp
	.cfi_def_cfa_offset 8
	ret
	.cfi_endproc
	.size	badcfi, .-badcfi
	.section .note.GNU-stack,"",@progbits
EOF
printf 'int badcfi(void);\nint main(void) { return badcfi(); }\n' >badcfi-main.c
if gcc -O2 -g -o badcfi badcfi-main.c badcfi.s 2>badcfi.cc.err; then
	entry=$(nm badcfi | awk '$3 == "badcfi" { print $1 }')
	fde=$(readelf -wf badcfi | awk -v e="$entry" '
	    $4 == "FDE" && $6 ~ "^pc=0*" e "[.][.]" { print $1; exit }' |
	    sed 's/^0*//')
	at=$(printf %x $((0x$entry + 1)))
	"$LD" --elf badcfi -o badcfi.pcln 2>badcfi.err ||
		{ cat badcfi.err >&2; fail "badcfi: pclnld exit $?, expected 0"; }
	grep -q "warning: badcfi: .eh_frame at byte offset 0x$fde: the FDE of badcfi cannot be executed at 0x$at " badcfi.err ||
		{ cat badcfi.err >&2; fail "badcfi: no warning naming the FDE at 0x$fde and 0x$at"; }
	got=$("$DUMP" func badcfi.pcln badcfi | awk '/^  pcsp/ { p = 1; next }
	    p && /^  [a-z]/ { exit } p { print $NF }' | tr '\n' ' ')
	[ "$got" = "0 -1 " ] || fail "badcfi: pcsp values '$got', expected '0 -1 '"
	"$LD" --elf badcfi --strict -o badcfi.strict 2>/dev/null
	[ $? -eq 1 ] || fail "badcfi --strict: exit status not 1"
else
	cat badcfi.cc.err >&2
	fail "badcfi: gcc"
fi

# --- labels ---------------------------------------------------------------
# "untyped" has no .type (ld.so's _start and _dl_start_user are such);
# "inner" is a label within sized's code, "alias_label" one at fn2's
# address: both name nothing.
cat >labels.s <<'EOF'
	.text
	.globl	sized
	.type	sized, @function
sized:
	nop
	nop
inner:
	nop
	ret
	.size	sized, .-sized
	.globl	untyped
untyped:
	nop
	nop
	ret
alias_label:
	.globl	fn2
	.type	fn2, @function
fn2:
	nop
	ret
	.size	fn2, .-fn2
	.section .note.GNU-stack,"",@progbits
EOF
printf 'void sized(void), untyped(void), fn2(void);\nint main(void) { sized(); untyped(); fn2(); return 0; }\n' >labels-main.c
if gcc -O2 -g -o labels labels-main.c labels.s 2>labels.cc.err; then
	"$LD" --elf labels -o labels.pcln -v 2>labels.err ||
		{ cat labels.err >&2; fail "labels: pclnld exit $?"; }
	grep -q ', 1 labels;' labels.err ||
		fail "labels: not one label made a function: $(sed -n 2p labels.err)"
	for s in sized:sized inner:sized untyped:untyped alias_label:fn2; do
		sym=${s%%:*} want=${s#*:}
		at=$(nm labels | awk -v s="$sym" '$3 == s { print $1 }')
		at=0x$(printf %x $((0x$at + 1)))
		got=$(a2l labels.pcln "$at")
		ref=$(addr2line -f -e labels "$at" | head -n 1)
		case "$got" in
		"$want "*) ;;
		*) fail "labels: $sym+1 ($at) is '$got', expected $want";;
		esac
		[ "$ref" = "$want" ] ||
			fail "labels: addr2line says $ref at $sym+1, the test $want"
	done
else
	cat labels.cc.err >&2
	fail "labels: gcc"
fi

[ $fails -eq 0 ]
