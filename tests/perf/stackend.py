#!/usr/bin/env python3
"""stackend.py IN OUT -- a sample whose stack copy ends at a return
address the walk reads: at its last byte, and one byte before.

Reads pairs "TIME PC" on standard input, TIME a sample's time as perf
script and pclndump perf print it (seconds, a dot, six digits) and PC
the pc printed for the sample's outermost user frame: its caller's
return address less one.  Takes the first pair whose sample, in the
file IN (perf record's file mode, one attribute or several of the same
sample_type, with REGS_USER and STACK_USER), holds that return address
in exactly one 8-byte word of its stack copy (at offset K, below the
copy's dyn_size): the word the walk read; and whose ip and sp, and
words into code (an executable MMAP or MMAP2) up to K + 8 and where,
came in a sample before it, whose walk pclndump perf can then have
remembered (the walk's return addresses are such words).  Writes
OUT.at, IN with that
sample's dyn_size K + 8 (the copy ends with the word), and OUT.short,
with K + 7 (the copy ends one byte inside it); the file's layout is
unchanged, the bytes past dyn_size are left as they are.

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


def die(msg):
    sys.stderr.write('stackend.py: %s\n' % msg)
    sys.exit(1)


def samples(data, code):
    """(time in ns, offset of the copy, its size, offset of dyn_size,
    (sp, ip)) of every sample with a stack copy; CODE gets the ranges of
    the executable mappings as they come."""
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
    if not regs >> 7 & 1 or not regs >> 8 & 1:
        die('no sp and ip in the user registers')
    nregs = bin(regs).count('1')
    at_sp = bin(regs & ((1 << 7) - 1)).count('1')
    at_ip = bin(regs & ((1 << 8) - 1)).count('1')
    if st & ~KNOWN or st & (READ | BRANCH_STACK):
        die('sample_type 0x%x: fields this script does not read' % st)
    if not st & REGS_USER or not st & STACK_USER or not st & TIME:
        die('no times, user registers and stack copies')
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
            q = off + 8
            for bit in (IDENTIFIER, IP, TID):
                if st & bit:
                    q += 8
            time, = struct.unpack_from('<Q', data, q)
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
            ipsp = (struct.unpack_from('<QQ', data, q + 8 * at_sp)[0],
                    struct.unpack_from('<Q', data, q + 8 * at_ip)[0]) \
                if abi != 0 else None
            if abi != 0:
                q += 8 * nregs
            n, = struct.unpack_from('<Q', data, q)
            q += 8
            if n > 0:
                yield time, q, n, q + n, ipsp
        off += size


def main():
    if len(sys.argv) != 3:
        die('usage: stackend.py IN OUT')
    data = bytearray(open(sys.argv[1], 'rb').read())
    if data[:8] != b'PERFILE2':
        die('not a perf.data file in file mode')
    want = {}
    for line in sys.stdin:
        f = line.split()
        if len(f) != 2:
            continue
        sec, _, usec = f[0].rstrip(':').partition('.')
        want.setdefault(int(sec) * 1000000 + int(usec), int(f[1], 16))
    # the return addresses wanted, as the copies hold them
    ras = set(pc + 1 for pc in want.values())
    seen = set()
    code = []
    for time, q, n, dynat, ipsp in samples(data, code):
        dyn, = struct.unpack_from('<Q', data, dynat)
        dyn = min(dyn, n)
        pc = want.get(time // 1000)
        # the words into code, and where; a key for each prefix that
        # ends with one of the return addresses wanted
        words = []
        keys = {}
        for o in range(0, dyn - 7, 8):
            w, = struct.unpack_from('<Q', data, q + o)
            if any(a <= w < b for a, b in code):
                words.append((o, w))
                if w in ras:
                    keys.setdefault(w, []).append((ipsp, tuple(words)))
        k = None
        if pc is not None and ipsp is not None and \
                len(keys.get(pc + 1, ())) == 1 and keys[pc + 1][0] in seen:
            k = keys[pc + 1][0][1][-1][0]
        for ks in keys.values():
            seen.update(ks)
        if k is None:
            continue
        for suffix, d in (('.at', k + 8), ('.short', k + 7)):
            struct.pack_into('<Q', data, dynat, d)
            open(sys.argv[2] + suffix, 'wb').write(data)
        print('%d.%06d %d %d' % (time // 1000000000,
                                 time // 1000 % 1000000, k, dyn))
        return
    sys.stderr.write('stackend.py: no sample holds its outermost return '
                     'address in exactly one word of its copy, with its '
                     'ip, sp and copy up to there seen before\n')
    sys.exit(2)


main()
