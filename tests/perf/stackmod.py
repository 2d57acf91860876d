#!/usr/bin/env python3
"""stackmod.py IN OUT N -- a perf.data file with part of one sample's
stack copy zeroed, where a walk remembered would be taken if the walk
checked nothing but its key.

Reads the file IN (perf record's file mode, one attribute or several of
the same sample_type, with REGS_USER and STACK_USER) and finds the first
sample whose ip, sp and first N words that point into an executable
mapping (MMAP2 with PROT_EXEC, or MMAP) come again at least three
times; the third time they come, the bytes of its stack copy past its
N-th such word are overwritten with zeros, in place (the file's layout
is unchanged), and the result written to OUT.  (Not by ip and sp
alone: in a recursion, samples with one ip and sp can have different
callers.)  pclndump remembers what a walk found beyond a sample's first
frame the second time that frame's caller is met: with N the first
frame's return address (the first such word, or a later one where the
frame keeps a function pointer), the key of
the walk remembered (that return address, and the sp past it) fits and
the words further up do not (tests/perf-record.sh tries a few N and
compares the output with and without the walks remembered).

Prints the times (ns) of the second occurrence and of the changed one;
exits 2 if no sample's words come three times, 1 on other errors.
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


def die(msg):
    sys.stderr.write('stackmod.py: %s\n' % msg)
    sys.exit(1)


def main():
    if len(sys.argv) != 4:
        die('usage: stackmod.py IN OUT N')
    nth = int(sys.argv[3])
    data = bytearray(open(sys.argv[1], 'rb').read())
    if data[:8] != b'PERFILE2':
        die('not a perf.data file in file mode')
    attr_size, = struct.unpack_from('<Q', data, 16)
    attrs_off, attrs_len = struct.unpack_from('<QQ', data, 24)
    data_off, data_len = struct.unpack_from('<QQ', data, 40)
    types = set()
    regs_masks = set()
    for a in range(attrs_off, attrs_off + attrs_len, attr_size):
        size, = struct.unpack_from('<I', data, a + 4)
        st, = struct.unpack_from('<Q', data, a + 24)
        regs, = struct.unpack_from('<Q', data, a + 80)
        types.add(st)
        regs_masks.add(regs)
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

    seen = {}
    code = []
    off = data_off
    end = data_off + data_len
    while off + 8 <= end:
        rtype, misc, size = struct.unpack_from('<IHH', data, off)
        if size < 8:
            die('record of size %d at 0x%x' % (size, off))
        if rtype == 1 and size >= 40:          # MMAP: executable
            addr, ln = struct.unpack_from('<QQ', data, off + 16)
            code.append((addr, addr + ln))
        if rtype == 10 and size >= 72:         # MMAP2
            addr, ln = struct.unpack_from('<QQ', data, off + 16)
            prot, = struct.unpack_from('<I', data, off + 64)
            if prot & 4:
                code.append((addr, addr + ln))
        if rtype == 9:
            q = off + 8
            time = 0
            if st & IDENTIFIER:
                q += 8
            if st & IP:
                q += 8
            if st & TID:
                q += 8
            if st & TIME:
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
            ip = sp = None
            if abi != 0:
                sp, = struct.unpack_from('<Q', data, q + 8 * at_sp)
                ip, = struct.unpack_from('<Q', data, q + 8 * at_ip)
                q += 8 * nregs
            n, = struct.unpack_from('<Q', data, q)
            q += 8
            if ip is not None and n > 0:
                dyn, = struct.unpack_from('<Q', data, q + n)
                # the sample's first NTH words into code, and where
                words = []
                for o in range(0, min(dyn, n) - 7, 8):
                    w, = struct.unpack_from('<Q', data, q + o)
                    if any(a <= w < b for a, b in code):
                        words.append(w)
                        if len(words) == nth:
                            break
                if len(words) == nth:
                    key = (ip, sp) + tuple(words)
                    times = seen.setdefault(key, [])
                    times.append(time)
                    if len(times) == 3:
                        cut = o + 8
                        data[q + cut:q + n] = bytes(n - cut)
                        open(sys.argv[2], 'wb').write(data)
                        print(times[1], times[2])
                        return
        off += size
    sys.stderr.write('stackmod.py: no sample\'s (ip, sp) and first %d '
                     'words into code come three times\n' % nth)
    sys.exit(2)


main()
