#!/bin/sh
# bpf-unwind.sh -- a perf-event BPF program (bpf/unwind.bpf.c) unwinds
# the user stacks of a running process built without frame pointers
# (bpf/spin, -O2 -g -fomit-frame-pointer), with the process's pcln table
# (pclnld --elf) in BPF maps, as profilers do with their own tables; its
# stacks must be the program's call chains and agree with perf record
# --call-graph dwarf on the same program:
#  - most samples in the table's code, and the two most frequent stacks
#    leaf_b;mid_b;chain_b;run;main and leaf_a;chain_a;run;main for both;
#  - at least 95% of the BPF unwinder's samples have a stack perf also
#    reports (perf's kernel frames left out: the BPF program skips
#    samples that interrupted the kernel).
# Skips (77) off x86-64 and where the kernel refuses BPF or perf events.
. "${top_srcdir:-.}/tests/lib.sh"
UNWIND=$top_builddir/bpf/unwind
OBJ=$top_builddir/bpf/unwind.bpf.o
SPIN=$top_builddir/bpf/spin

case $(uname -m) in
x86_64) ;;
*) echo "SKIP: the BPF unwinder reads x86-64 registers only"; exit 77 ;;
esac
if [ ! -x "$UNWIND" ] || [ ! -f "$OBJ" ]; then
	echo "SKIP: configured without the BPF program (libbpf-dev or a" \
	    "clang that targets bpf missing at configure time)"
	exit 77
fi
test_workdir pcln-unwind
"$LD" --elf "$(real "$SPIN")" -o spin.pcln 2>err || {
	cat err >&2
	echo "FAIL: pclnld --elf bpf/spin" >&2
	exit 1
}

# The BPF unwinder.
"$UNWIND" "$OBJ" spin.pcln "$(real "$SPIN")" 1.5 >bpf.out 2>bpf.err
rc=$?
grep -v '^libbpf' bpf.err
cat bpf.out
[ "$rc" -eq 77 ] && exit 77
[ "$rc" -eq 0 ] || fail "unwind exited $rc"
grep -E '^[0-9]+ ' bpf.out >bpf.stacks

# perf's DWARF unwinder, kernel frames left out, up to main.
if ! perf record -e cpu-clock -F 997 --call-graph dwarf -o perf.data -- \
    "$(real "$SPIN")" 1.5 >/dev/null 2>perf.err; then
	if grep -qi 'permission\|not supported\|perf_event_paranoid' perf.err
	then
		echo "SKIP: the kernel refuses perf record"
		exit 77
	fi
	cat perf.err >&2
	fail "perf record failed"
	exit 1
fi
perf script -i perf.data -F ip,sym 2>/dev/null | awk '
	BEGIN { RS = "" }
	{ s = ""; n = split($0, L, "\n")
	  for (i = 1; i <= n; i++) {
		split(L[i], f, " ")
		if (length(f[1]) == 16 && f[1] ~ /^ffff/) continue
		s = s (s == "" ? "" : ";") f[2]
		if (f[2] == "main") break
	  }
	  c[s]++ }
	END { for (k in c) print c[k], k }' | sort -rn >perf.stacks
echo "perf --call-graph dwarf:"
sed -n '1,4p' perf.stacks

total=$(awk '{ n += $1 } END { print n + 0 }' bpf.stacks)
known=$(sed -n 's/^samples: [0-9]*, \([0-9]*\) in the table.*/\1/p' bpf.out)
[ "$total" -ge 50 ] || fail "only $total samples from the BPF unwinder"
[ $((known * 100)) -ge $((total * 95)) ] ||
	fail "only $known of $total samples in the table's code"
want='leaf_a;chain_a;run;main
leaf_b;mid_b;chain_b;run;main'
top() { sed -n '1,2p' "$1" | cut -d' ' -f2 | sort; }
[ "$(top bpf.stacks)" = "$want" ] ||
	fail "the BPF unwinder's two commonest stacks are not the program's chains"
[ "$(top perf.stacks)" = "$want" ] ||
	fail "perf's two commonest stacks are not the program's chains"
cut -d' ' -f2 perf.stacks >perf.set
agree=$(awk 'NR == FNR { ok[$1] = 1; next } ($2 in ok) { n += $1 }
    END { print n + 0 }' perf.set bpf.stacks)
echo "agreement: $agree of $total BPF samples have a stack perf reports"
[ $((agree * 100)) -ge $((total * 95)) ] ||
	fail "only $agree of $total BPF stacks are among perf's"
exit $((fails > 0))
