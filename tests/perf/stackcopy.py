#!/usr/bin/env python3
"""stackcopy.py -- perf.data files with one sample's stack copy changed
in place (the file's layout unchanged), for tests/perf-record.sh.

The file is perf record's file mode (tools/perf/Documentation/
perf.data-file-format.txt, <linux/perf_event.h>): one attribute, or
several of the same sample_type and user register mask, with REGS_USER
and STACK_USER.

stackcopy.py zero IN OUT N: a perf.data file with part of one sample's
stack copy zeroed, where a walk remembered would be taken if the walk
checked nothing but its key.

Finds in the file IN the first sample whose ip, sp and first N words that point into an executable
mapping (MMAP2 with PROT_EXEC, or MMAP) come again at least three
times; the third time they come, the bytes of its stack copy past its
N-th such word are overwritten with zeros, in place (the file's layout
is unchanged), and the result written to OUT.  (Not by ip and sp
alone: in a recursion, samples with one ip and sp can have different
callers.)  pclndump remembers what a walk found beyond a sample's first
frame the second time that frame's caller is met: with N the first
frame's return address (the first such word, or a later one where the
frame keeps a function pointer), the key of the walk remembered (that
return address, and the sp past it) fits and the words further up do
not (tests/perf-record.sh tries a few N and
compares the output with and without the walks remembered).

Prints the times (ns) of the second occurrence and of the changed one;
exits 2 if no sample's words come three times, 1 on other errors.

stackcopy.py end IN OUT: a sample whose stack copy ends at a return
address the walk reads: at its last byte, and one byte before.

Reads pairs "TIME PC" on standard input, TIME a sample's time as perf
script and pclndump perf print it (seconds, a dot, six digits) and PC
the pc printed for the sample's outermost user frame: its caller's
return address less one.  Takes the first pair whose sample, in the
file IN, holds that return address in exactly one 8-byte word of its stack copy (at offset K, below the
copy's dyn_size): the word the walk read; and whose ip and sp, and
words into code (an executable MMAP or MMAP2) up to K + 8 and where,
came in a sample before it, whose walk pclndump perf can then have
remembered (the walk's return addresses are such words).  Writes
OUT.at, IN with that sample's dyn_size K + 8 (the copy ends with the
word), and OUT.short, with K + 7 (the copy ends one byte inside it);
the bytes past dyn_size are left as they are.

Prints "TIME K DYN" (DYN the sample's dyn_size before); exits 2 if no
pair fits, 1 on other errors.  (perf 6.1's libunwind access_mem refuses
a word whose end is the copy's end; tests/perf-record.sh checks that
pclndump perf reads it, and stops one byte short of it.)
"""
import struct
import sys

# PERF_SAMPLE_* bits read here, in perf's order.
IDENTIFIER, IP, TID, TIME, ADDR, READ, CALLCHAIN, ID, CPU, PERIOD, \
    STREAM_ID, RAW, BRANCH_STACK, REGS_USER, STACK_USER = \
    1 << 16, 1 << 0, 1 << 1, 1 << 2, 1 << 3, 1 << 4, 1 << 5, 1 << 6, \
    1 << 7, 1 << 8, 1 << 9, 1 << 10, 1 << 11, 1 << 12, 1 << 13
KNOWN = IDENTIFIER | IP | TID | TIME | ADDR | CALLCHAIN | ID | CPU | \
    PERIOD | STREAM_ID | RAW | REGS_USER | STACK_USER | (1 << 15) | \
    (1 << 19) | (1 << 14) | (1 << 17) | (1 << 18) | (1 << 20) | (1 << 21)
# (WEIGHT, TRANSACTION, DATA_SRC, REGS_INTR, PHYS_ADDR, CGROUP come
# after the stack copy: never read)


class Sample:
    """One sample: TIME (ns), IP and SP (None without user registers),
    its stack copy at byte STACK of the file, SIZE bytes, the copy's
    dyn_size at byte DYNAT (None without a copy); DYN, what of the copy
    perf filled, at most SIZE."""
    __slots__ = ('time', 'ip', 'sp', 'stack', 'size', 'dynat', 'dyn')


def samples(data, code, die):
    """Every SAMPLE record of DATA (the whole file), in the file's
    order; CODE gets the range [start, end) of each executable mapping
    (MMAP, MMAP2 with PROT_EXEC) as it comes.  DIE(message) on a file
    this cannot read."""
    if data[:8] != b'PERFILE2':
        die('not a perf.data file in file mode')
    attr_size, = struct.unpack_from('<Q', data, 16)
    attrs_off, attrs_len = struct.unpack_from('<QQ', data, 24)
    data_off, data_len = struct.unpack_from('<QQ', data, 40)
    types = set()
    regs_masks = set()
    for a in range(attrs_off, attrs_off + attrs_len, attr_size):
        types.add(struct.unpack_from('<Q', data, a + 24)[0])
        regs_masks.add(struct.unpack_from('<Q', data, a + 80)[0])
    if len(types) != 1 or len(regs_masks) != 1:
        die('attributes of different sample types')
    st = types.pop()
    regs = regs_masks.pop()
    if st & ~KNOWN or st & (READ | BRANCH_STACK):
        die('sample_type 0x%x: fields this script does not read' % st)
    if not st & REGS_USER or not st & STACK_USER:
        die('no user registers and stack copies')
    if not regs >> 7 & 1 or not regs >> 8 & 1:
        die('no sp and ip in the user registers')
    nregs = bin(regs).count('1')
    at_sp = bin(regs & ((1 << 7) - 1)).count('1')
    at_ip = bin(regs & ((1 << 8) - 1)).count('1')

    off = data_off
    end = data_off + data_len
    while off + 8 <= end:
        rtype, _, size = struct.unpack_from('<IHH', data, off)
        if size < 8:
            die('record of size %d at 0x%x' % (size, off))
        if rtype == 1 and size >= 40:          # MMAP: executable
            addr, ln = struct.unpack_from('<QQ', data, off + 16)
            code.append((addr, addr + ln))
        if rtype == 10 and size >= 72:         # MMAP2
            addr, ln = struct.unpack_from('<QQ', data, off + 16)
            if struct.unpack_from('<I', data, off + 64)[0] & 4:
                code.append((addr, addr + ln))
        if rtype == 9:
            s = Sample()
            s.time = 0
            q = off + 8
            for bit in (IDENTIFIER, IP, TID):
                if st & bit:
                    q += 8
            if st & TIME:
                s.time, = struct.unpack_from('<Q', data, q)
                q += 8
            for bit in (ADDR, ID, STREAM_ID, CPU, PERIOD):
                if st & bit:
                    q += 8
            if st & CALLCHAIN:
                nr, = struct.unpack_from('<Q', data, q)
                q += 8 + 8 * nr
            if st & RAW:
                n, = struct.unpack_from('<I', data, q)
                q += 4 + n
            abi, = struct.unpack_from('<Q', data, q)
            q += 8
            s.ip = s.sp = None
            if abi != 0:
                s.sp, = struct.unpack_from('<Q', data, q + 8 * at_sp)
                s.ip, = struct.unpack_from('<Q', data, q + 8 * at_ip)
                q += 8 * nregs
            s.size, = struct.unpack_from('<Q', data, q)
            s.stack = q + 8
            s.dynat = s.dyn = None
            if s.size > 0:
                s.dynat = s.stack + s.size
                s.dyn = min(struct.unpack_from('<Q', data, s.dynat)[0],
                            s.size)
            yield s
        off += size


def die(msg):
    sys.stderr.write('stackcopy.py: %s\n' % msg)
    sys.exit(1)


def zero(path, out, nth):
    data = bytearray(open(path, 'rb').read())
    seen = {}
    code = []
    for s in samples(data, code, die):
        if s.ip is None or not s.size:
            continue
        # the sample's first NTH words into code, and where
        words = []
        for o in range(0, s.dyn - 7, 8):
            w, = struct.unpack_from('<Q', data, s.stack + o)
            if any(a <= w < b for a, b in code):
                words.append(w)
                if len(words) == nth:
                    break
        if len(words) != nth:
            continue
        times = seen.setdefault((s.ip, s.sp) + tuple(words), [])
        times.append(s.time)
        if len(times) == 3:
            cut = o + 8
            data[s.stack + cut:s.stack + s.size] = bytes(s.size - cut)
            open(out, 'wb').write(data)
            print(times[1], times[2])
            return
    sys.stderr.write('stackcopy.py: no sample\'s (ip, sp) and first %d '
                     'words into code come three times\n' % nth)
    sys.exit(2)


def end(path, out):
    data = bytearray(open(path, 'rb').read())
    want = {}
    for line in sys.stdin:
        f = line.split()
        if len(f) != 2:
            continue
        sec, _, usec = f[0].rstrip(':').partition('.')
        want.setdefault(int(sec) * 1000000 + int(usec), int(f[1], 16))
    # the return addresses wanted
    ras = set(pc + 1 for pc in want.values())
    seen = set()
    code = []
    for s in samples(data, code, die):
        if s.ip is None or not s.size:
            continue
        pc = want.get(s.time // 1000)
        # the words into code, and where; a key for each prefix that
        # ends with one of the return addresses wanted
        words = []
        keys = {}
        for o in range(0, s.dyn - 7, 8):
            w, = struct.unpack_from('<Q', data, s.stack + o)
            if any(a <= w < b for a, b in code):
                words.append((o, w))
                if w in ras:
                    keys.setdefault(w, []).append(((s.ip, s.sp),
                                                   tuple(words)))
        k = None
        if pc is not None and len(keys.get(pc + 1, ())) == 1 and \
                keys[pc + 1][0] in seen:
            k = keys[pc + 1][0][1][-1][0]
        for ks in keys.values():
            seen.update(ks)
        if k is None:
            continue
        for suffix, d in (('.at', k + 8), ('.short', k + 7)):
            struct.pack_into('<Q', data, s.dynat, d)
            open(out + suffix, 'wb').write(data)
        print('%d.%06d %d %d' % (s.time // 1000000000,
                                 s.time // 1000 % 1000000, k, s.dyn))
        return
    sys.stderr.write('stackcopy.py: no sample holds its outermost return '
                     'address in exactly one word of its copy, with its '
                     'ip, sp and copy up to there seen before\n')
    sys.exit(2)


def main():
    a = sys.argv[1:]
    if len(a) == 4 and a[0] == 'zero':
        zero(a[1], a[2], int(a[3]))
    elif len(a) == 3 and a[0] == 'end':
        end(a[1], a[2])
    else:
        die('usage: stackcopy.py zero IN OUT N | end IN OUT')


main()
