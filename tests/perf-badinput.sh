#!/bin/sh
# tests/perf-badinput.sh -- pclndump perf on damaged, truncated and odd
# perf.data files (made by tests/perf/mkperf.py, no perf needed): each is
# read as far as it can be, what was lost is counted, a damaged file is
# reported with the byte offset of the damage and exit status 1, and
# nothing crashes.
. "${top_srcdir:-.}/tests/lib.sh"
test_workdir pcln-perfbad
use_real_tools

command -v python3 >/dev/null 2>&1 || {
	echo "SKIP: python3 is not installed"; exit 77; }
mk=$top_srcdir/tests/perf/mkperf.py

# expect CASE STATUS PATTERN: pclndump perf on mkperf's CASE exits STATUS
# and says PATTERN (an ERE, "@OFF@" standing for the damage's offset in
# hex) on stderr.
expect() {
	case=$1 want=$2 pat=$3
	ncase=$((ncase + 1))
	off=$(python3 "$mk" "$case.data" "$case") || { fail "$case: mkperf"; \
	    return; }
	hex=$(printf '%x' "$off" 2>/dev/null)
	pat=$(printf '%s' "$pat" | sed "s/@OFF@/0x$hex/g")
	rc=0
	"$D" perf -i "$case.data" >"$case.out" 2>"$case.err" || rc=$?
	[ "$rc" -eq "$want" ] ||
		fail "$case: exit $rc, expected $want: $(cat "$case.err")"
	grep -Eq -- "$pat" "$case.err" ||
		fail "$case: expected /$pat/ on stderr, got: $(cat "$case.err")"
	# In two threads (each a share of the samples, pcln_perf_share):
	# the same text, the same messages, the same status.
	rc2=0
	PCLN_PERF_THREADS=2 "$D" perf -i "$case.data" >"$case.out2" \
	    2>"$case.err2" || rc2=$?
	[ "$rc2" -eq "$rc" ] && cmp -s "$case.out" "$case.out2" &&
	    cmp -s "$case.err" "$case.err2" ||
		fail "$case: two threads: exit $rc2 (one: $rc), $(diff \
		    "$case.out" "$case.out2" | head -n 3) $(diff "$case.err" \
		    "$case.err2" | head -n 3)"
}

# A sound file: the sample is printed (its kernel frame, its user frame
# in an object that cannot be found), the lost events are reported.
expect good 0 '5 events lost \(1 LOST records\), 2 samples lost'
ncase=$((ncase + 1))
grep -q '^prog  4242 ' good.out && grep -q '\[unknown\] (/nonexistent/prog)' \
    good.out || fail "good: sample not printed: $(cat good.out)"
"$D" perf -i good.data --header >good.hdr 2>&1 || fail "good: --header"
for want in 'hostname: testhost' \
    'build-id 0102030405060708090a0b0c0d0e0f1011121314 /nonexistent/prog' \
    'attr 0: name ?, type 1, config 0, sample_type 0x3127'; do
	grep -qF "$want" good.hdr || fail "good: --header lacks '$want'"
done
# A failed write is an error (exit 3, with the reason), not exit 0.
if [ -w /dev/full ]; then
	ncase=$((ncase + 1))
	rc=0
	"$D" perf -i good.data >/dev/full 2>full.err || rc=$?
	[ "$rc" = 3 ] && grep -q 'cannot write the output: No space left' \
	    full.err || fail "good >/dev/full: exit $rc: $(cat full.err)"
	rc=0
	PCLN_PERF_THREADS=2 "$D" perf -i good.data >/dev/full 2>full2.err ||
	    rc=$?
	[ "$rc" = 3 ] && grep -q 'cannot write the output: No space left' \
	    full2.err || fail "good >/dev/full, two threads: exit $rc: $(cat \
	    full2.err)"
fi
# Folded, with kernel symbols from --kallsyms: the process, the kernel
# frame; the unknown user frame the walk ended in is no flame-graph
# frame.
printf 'ffffffff81000000 T kfunc\nffffffff81001000 t other\n' >ksyms
"$D" perf -i good.data --folded --kallsyms ksyms >good.folded 2>/dev/null &&
    [ "$(cat good.folded)" = "prog;kfunc 1" ] ||
	fail "good: --folded: $(cat good.folded)"

# Samples that record the cpu (perf record -a): "[003]" after the
# thread, as perf script prints it.
ncase=$((ncase + 1))
python3 "$mk" cpu.data cpu >/dev/null || fail "cpu: mkperf"
"$D" perf -i cpu.data >cpu.out 2>cpu.err || fail "cpu: exit $?: $(cat cpu.err)"
grep -q '^prog  4242 \[003\]     0\.000004:     250000 cpu-clock: $' cpu.out ||
	fail "cpu: $(head -n 1 cpu.out)"

# A tracepoint's sample line has no period (perf script prints the
# event's fields there; pclndump does not read them).
ncase=$((ncase + 1))
python3 "$mk" tp.data tracepoint >/dev/null || fail "tracepoint: mkperf"
"$D" perf -i tp.data >tp.out 2>tp.err || fail "tracepoint: exit $?: $(cat tp.err)"
grep -q '^prog  4242     0\.000004: event-2:316: $' tp.out ||
	fail "tracepoint: $(head -n 1 tp.out)"

# A tracepoint's fields (libtraceevent, from the TRACING_DATA feature):
# its event named from its format, its fields printed by its print
# format, a __data_loc string among them.  Tracing data cut short is
# said once, and the samples are printed without fields; so is a format
# libtraceevent crashes on.
if grep -q '^#define HAVE_LIBTRACEEVENT 1' "$top_builddir/config.h"; then
	ncase=$((ncase + 1))
	python3 "$mk" tracing.data tracing >/dev/null || fail "tracing: mkperf"
	"$D" perf -i tracing.data >tracing.out 2>tracing.err ||
		fail "tracing: exit $?: $(cat tracing.err)"
	grep -q '^prog  4242     0\.000004: test:myev: value=42 name=hello$' \
	    tracing.out || fail "tracing: $(head -n 1 tracing.out)"
	expect tracing-cut 0 'the tracing data: the event formats are cut short: tracepoints. fields are not printed'
	ncase=$((ncase + 1))
	grep -q '^prog  4242     0\.000004: event-2:7: $' tracing-cut.out ||
		fail "tracing-cut: $(head -n 1 tracing-cut.out)"
	# libtraceevent runs in a child process: a format it crashes on
	# (SIGFPE in 1.7.1) costs the fields, not the run.
	ncase=$((ncase + 1))
	python3 "$mk" fpe.data tracing-fpe >/dev/null || fail "fpe: mkperf"
	rc=0
	"$D" perf -i fpe.data >fpe.out 2>fpe.err || rc=$?
	[ "$rc" = 0 ] && grep -q '^prog  4242     0\.000004: ' fpe.out ||
		fail "tracing-fpe: exit $rc: $(cat fpe.err)"
	if grep -q 'libtraceevent failed on it (signal' fpe.err; then
		grep -q ': event-2:7: $' fpe.out ||
			fail "tracing-fpe: $(head -n 1 fpe.out)"
	fi
fi

# Records in time order a round at a time, as perf sorts them: the
# sample two rounds late (250 us, after the round in which 300 went out)
# comes after 300.
ncase=$((ncase + 1))
python3 "$mk" rounds.data rounds >/dev/null || fail "rounds: mkperf"
"$D" perf -i rounds.data --no-kernel >rounds.out 2>rounds.err ||
	fail "rounds: exit $?: $(cat rounds.err)"
got=$(sed -n 's/^prog  4242 *\([0-9.]*\): .*/\1/p' rounds.out | tr '\n' ' ')
[ "$got" = "0.000100 0.000200 0.000300 0.000250 0.000350 0.000400 " ] ||
	fail "rounds: samples in the order $got"

# perf record -z: the records in a zstd stream cut into COMPRESSED
# records (inside records): read as if they were not compressed; a
# stream that is not zstd, or that ends inside a record, is damage at
# its offset, after the records before it.  A build without libzstd says
# it cannot read them.
if ! command -v zstd >/dev/null 2>&1; then
	fail "the compressed cases need the zstd command (Debian: zstd)"
elif grep -q '^#define HAVE_LIBZSTD 1' "$top_builddir/config.h"; then
	expect compressed 0 '5 events lost \(1 LOST records\), 2 samples lost'
	ncase=$((ncase + 1))
	cmp -s good.out compressed.out ||
		fail "compressed: not good's output: $(diff good.out \
		    compressed.out | head -n 4)"
	"$D" perf -i compressed.data --stats >/dev/null 2>compressed.stats
	grep -q ' 3 compressed records (perf record -z), 7 records in them' \
	    compressed.stats ||
		fail "compressed: --stats: $(head -n 2 compressed.stats)"
	expect compressed-bad 1 'COMPRESSED record at offset @OFF@: zstd: Unknown frame descriptor'
	expect compressed-cut 1 'the COMPRESSED records end inside a record \(28 bytes of it\)'
	ncase=$((ncase + 1))
	grep -q '^prog  4242 ' compressed-cut.out ||
		fail "compressed-cut: the sample before the cut is not printed"
else
	expect compressed 0 '3 compressed records \(perf record -z\) not read: pclndump was built without libzstd'
fi

# Framing damage ends the walk at the record, with its offset.
expect zero-size 1 'record at offset @OFF@: size 0, expected at least 8'
expect huge-size 1 'record at offset @OFF@: size 65528 runs past the data'
# A record whose fields are damaged is skipped and counted.
expect bad-chain 0 '1 damaged records skipped; the first: SAMPLE record at offset @OFF@ .*call chain of 1099511627776 entries does not fit'
expect no-nul 0 'COMM record at offset @OFF@ .*command name without its NUL'
# A file cut short is read up to the cut.
expect data-past-eof 0 'ends past the file.s end .*truncated'
ncase=$((ncase + 1))
grep -q '^prog  4242 ' data-past-eof.out ||
	fail "data-past-eof: the sample before the cut is not printed"
# A pipe-mode stream (perf record -o -), from a file and from a pipe:
# good's samples; its attribute's name from its EVENT_UPDATE record, its
# host from its HEADER_FEATURE record.
expect pipe 0 '5 events lost \(1 LOST records\), 2 samples lost'
ncase=$((ncase + 1))
cmp -s good.out pipe.out ||
	fail "pipe: not good's output: $(diff good.out pipe.out | head -n 4)"
cat pipe.data | "$D" perf -i - >pipe-stdin.out 2>pipe-stdin.err ||
	fail "pipe: -i - exited $?: $(cat pipe-stdin.err)"
cmp -s good.out pipe-stdin.out ||
	fail "pipe: -i - is not good's output: $(head -n 3 pipe-stdin.out)"
"$D" perf -i pipe.data --header >pipe.hdr 2>&1 || fail "pipe: --header"
for want in 'hostname: testhost' 'attr 0: name cpu-clock, type 1'; do
	grep -qF "$want" pipe.hdr || fail "pipe: --header lacks '$want'"
done
rc=0; "$D" perf -i - </dev/null 2>stdin-empty.err || rc=$?
[ "$rc" -eq 1 ] && grep -q 'empty input' stdin-empty.err ||
	fail "-i - </dev/null: exit $rc: $(cat stdin-empty.err)"
expect pipe-noattr 1 'a pipe-mode stream \(header size 16\) without a HEADER_ATTR record'
expect pipe-bad-attr 1 'HEADER_ATTR record at offset 0x10 \([0-9]+ bytes\): attr size 12'
# Headers that cannot be read.
expect bad-attr-size 1 'offset 0x10: attr_size 12, expected'
expect bad-sample-type 1 'sample_type 0x[0-9a-f]+ has fields this reader does not know'

# Not a perf.data file; an empty one; a missing one.
ncase=$((ncase + 1))
printf 'PERFFILX' >magic.data
rc=0; "$D" perf -i magic.data 2>magic.err || rc=$?
[ "$rc" -eq 1 ] && grep -q 'offset 0: not a perf.data file' magic.err ||
	fail "bad magic: exit $rc: $(cat magic.err)"
: >empty.data
rc=0; "$D" perf -i empty.data 2>empty.err || rc=$?
[ "$rc" -eq 1 ] && grep -q 'empty file' empty.err ||
	fail "empty: exit $rc: $(cat empty.err)"
rc=0; "$D" perf -i missing.data 2>missing.err || rc=$?
[ "$rc" -eq 3 ] && grep -q 'cannot open' missing.err ||
	fail "missing: exit $rc: $(cat missing.err)"

# Every truncation of the sound file, and every single-byte change of
# it, of its compressed form and of the one with tracing data (whose
# formats libtraceevent parses): never a crash (a signal gives a status
# above 128).
ncase=$((ncase + 1))
len=$(wc -c <good.data)
i=0
while [ "$i" -lt "$len" ]; do
	head -c "$i" good.data >cut.data
	rc=0; "$D" perf -i cut.data --no-kernel >/dev/null 2>cut.err || rc=$?
	if [ "$rc" -ge 128 ] || { [ "$rc" -ne 0 ] && [ "$rc" -ne 1 ]; }; then
		fail "cut at $i: exit $rc: $(cat cut.err)"
		break
	fi
	i=$((i + 7))
done
[ -f compressed.data ] || cp good.data compressed.data
[ -f tracing.data ] || cp good.data tracing.data
for f in good compressed tracing; do
python3 - $f.data "$D" <<'EOF' || fail "flipped bytes of $f.data: a crash"
import subprocess, sys
data = open(sys.argv[1], 'rb').read()
for off in range(0, len(data), 3):
    b = bytearray(data)
    b[off] ^= 0xff
    open('flip.data', 'wb').write(b)
    r = subprocess.run([sys.argv[2], 'perf', '-i', 'flip.data', '--stats',
                        '--no-kernel'],
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    if r.returncode < 0 or r.returncode > 3:
        print('offset %d: exit %d' % (off, r.returncode))
        sys.exit(1)
EOF
done

# --svg into a directory that does not exist: an error, no file.
ncase=$((ncase + 1))
rc=0; "$D" perf -i good.data --svg nodir/x.svg 2>svg.err || rc=$?
[ "$rc" -eq 3 ] && [ ! -e nodir ] ||
	fail "--svg nodir/x.svg: exit $rc: $(cat svg.err)"

echo "perf-badinput: $ncase cases, $fails failures"
[ "$fails" -eq 0 ]
