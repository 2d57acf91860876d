#!/usr/bin/env python3
"""mkperf.py OUT [CASE] -- write a small perf.data file by hand.

The layout is perf's (tools/perf/Documentation/perf.data-file-format.txt,
<linux/perf_event.h>), written field by field so that tests and fuzz seeds
need no perf: a header, one attribute (cpu-clock; samples with IP, TID,
TIME, PERIOD, CALLCHAIN, REGS_USER (bp, sp, ip) and STACK_USER, and a
sample_id trailer of TID and TIME on other records), then COMM, FORK,
MMAP2, a SAMPLE with a kernel and a user call chain part and a 64-byte
stack copy, LOST (5 events), LOST_SAMPLES (2), EXIT; the BUILD_ID and
HOSTNAME features.

CASE (default "good") damages it on purpose:
  good          as above
  zero-size     the second record's size is 0
  huge-size     the second record's size runs past the data section
  bad-chain     the SAMPLE's call chain claims 2^40 entries
  no-nul        the COMM's name has no NUL
  data-past-eof the header says the data section is longer than the file
  pipe          good as a pipe-mode stream (perf record -o -): a 16-byte
                header, then HEADER_ATTR, HEADER_FEATURE (HOSTNAME) and
                EVENT_UPDATE (the name "cpu-clock") records before the
                others
  cpu           good with the cpu in samples and trailers (SAMPLE_CPU, as
                perf record -a writes them): cpu 3
  tracepoint    good's attribute a tracepoint's (type 2, config 316)
  tracing       good's attribute tracepoint 7 ("test:myev", fields value
                and a __data_loc string name) with RAW data in its
                sample (value 42, name "hello") and the TRACING_DATA
                feature, the events' formats
  tracing-cut   the same, its tracing data cut inside the event's format
  tracing-fpe   the same, its print format "...", __get_st%(name): what
                libtraceevent 1.7 divides by zero on (SIGFPE)
  pipe-noattr   a pipe-mode stream without its HEADER_ATTR record
  pipe-bad-attr the HEADER_ATTR record's attr says it is 12 bytes long
  bad-attr-size attr_size 12
  bad-sample-type  sample_type with a bit no perf has
  rounds        six SAMPLEs in three rounds (PERF_RECORD_FINISHED_ROUND),
                their times (us) 300 100 | 200 400 | 350 250: the 250 is
                older than the newest before the round before (300), so
                perf, which sorts a round at a time, puts it after 300
  compressed    good's records as perf record -z writes them: one zstd
                stream (made by the zstd command) cut into three
                PERF_RECORD_COMPRESSED records, the cuts inside records
  compressed-bad   the stream's first bytes (the zstd magic) damaged
  compressed-cut   the stream ends inside the last record
Prints the byte offset of the damaged field (or -1) on stdout.
"""
import struct
import subprocess
import sys

SAMPLE_TYPE = (1 << 0) | (1 << 1) | (1 << 2) | (1 << 5) | (1 << 8) | \
    (1 << 12) | (1 << 13)          # IP TID TIME CALLCHAIN PERIOD REGS STACK
REGS = (1 << 6) | (1 << 7) | (1 << 8)  # bp, sp, ip
FLAGS = (1 << 10) | (1 << 18) | (1 << 23)  # freq, sample_id_all, mmap2
PID = 4242
SP = 0x7ffd00001000


CPU = False


def tracing_data(cut, fpe=False):
    """perf's tracing data (tools/perf/util/trace-event-info.c): one
    event, test:myev, ID 7."""
    fmt = (b'name: myev\nID: 7\nformat:\n'
           b'\tfield:unsigned short common_type;\toffset:0;\tsize:2;'
           b'\tsigned:0;\n'
           b'\tfield:unsigned char common_flags;\toffset:2;\tsize:1;'
           b'\tsigned:0;\n'
           b'\tfield:unsigned char common_preempt_count;\toffset:3;'
           b'\tsize:1;\tsigned:0;\n'
           b'\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n\n'
           b'\tfield:int value;\toffset:8;\tsize:4;\tsigned:1;\n'
           b'\tfield:__data_loc char[] name;\toffset:12;\tsize:4;'
           b'\tsigned:1;\n\n'
           b'print fmt: "value=%d name=%s", REC->value, ' +
           (b'__get_st%(name)\n' if fpe else b'__get_str(name)\n'))
    hp = (b'\tfield: u64 timestamp;\toffset:0;\tsize:8;\tsigned:0;\n'
          b'\tfield: local_t commit;\toffset:8;\tsize:8;\tsigned:1;\n'
          b'\tfield: int overwrite;\toffset:8;\tsize:1;\tsigned:1;\n'
          b'\tfield: char data;\toffset:16;\tsize:4080;\tsigned:1;\n')
    d = b'\027\010\104tracing0.6\0' + bytes([0, 8]) + \
        struct.pack('<I', 4096)
    d += b'header_page\0' + struct.pack('<Q', len(hp)) + hp
    d += b'header_event\0' + struct.pack('<Q', 0)
    d += struct.pack('<I', 0)
    d += struct.pack('<I', 1) + b'test\0' + struct.pack('<I', 1) + \
        struct.pack('<Q', len(fmt)) + (fmt if not cut else fmt[:40])
    if not cut:
        d += struct.pack('<II', 0, 0) + struct.pack('<Q', 0)
    return d


def raw_data():
    """test:myev's fields: value 42, name "hello" (at 16, 6 bytes)."""
    r = struct.pack('<HBBiiI', 7, 0, 0, PID, 42, (6 << 16) | 16) + \
        b'hello\0'
    while (len(r) + 4) % 8:
        r += b'\0'
    return struct.pack('<I', len(r)) + r


def rec(rtype, misc, body, time):
    body += struct.pack('<II', PID, PID) + struct.pack('<Q', time)
    if CPU:
        body += struct.pack('<II', 3, 0)
    while (len(body) + 8) % 8:
        body += b'\0'
    return struct.pack('<IHH', rtype, misc, len(body) + 8) + body


def cstr(s, align=8):
    b = s.encode() + b'\0'
    while len(b) % align:
        b += b'\0'
    return b


def build(case):
    global CPU
    CPU = case == 'cpu'
    tracing = case.startswith('tracing')
    stype = SAMPLE_TYPE | ((1 << 7) if CPU else 0) | \
        ((1 << 10) if tracing else 0)
    atype, aconfig = (2, 316) if case == 'tracepoint' else \
        (2, 7) if tracing else (1, 0)
    attr = struct.pack('<IIQQQQQ', atype, 128, aconfig, 4000, stype, 0,
                       FLAGS)
    attr += b'\0' * (72 - len(attr))
    attr += struct.pack('<QQIi', 0, REGS, 64, 0)   # branch, regs, stack
    attr += b'\0' * (128 - len(attr))
    if case == 'bad-sample-type':
        attr = attr[:24] + struct.pack('<Q', SAMPLE_TYPE | (1 << 40)) + \
            attr[32:]
    attr_size = 128 + 16
    hdr_size = 104
    attr_off = hdr_size
    ids_off = attr_off + attr_size
    data_off = ids_off + 8
    attr_entry = attr + struct.pack('<QQ', ids_off, 8)

    records = []
    records.append(rec(3, 1 << 13, struct.pack('<II', PID, PID) +
                       (b'prog\0\0\0\0' if case != 'no-nul' else b'progprog'),
                       1000))
    records.append(rec(7, 0, struct.pack('<IIIIQ', PID, 1, PID, 1, 1500),
                       1500))
    records.append(rec(10, 0, struct.pack('<IIQQQIIQQII', PID, PID,
                                          0x400000, 0x1000, 0, 8, 1, 99, 0,
                                          5, 2) + cstr('/nonexistent/prog'),
                       2000))
    chain = [(1 << 64) - 128, 0xffffffff81000010, (1 << 64) - 512, 0x400010]
    stack = bytes(range(64))

    def sample_rec(time):
        sample = struct.pack('<QIIQ', 0x400010, PID, PID, time)
        if CPU:
            sample += struct.pack('<II', 3, 0)
        sample += struct.pack('<Q', 250000)
        nr = len(chain) if case != 'bad-chain' else 1 << 40
        sample += struct.pack('<Q', nr) + b''.join(struct.pack('<Q', c)
                                                    for c in chain)
        if tracing:
            sample += raw_data()
        sample += struct.pack('<QQQQ', 2, 0, SP, 0x400010)  # abi bp sp ip
        sample += struct.pack('<Q', 64) + stack + struct.pack('<Q', 64)
        return struct.pack('<IHH', 9, 2, len(sample) + 8) + sample

    if case == 'rounds':
        finished_round = struct.pack('<IHH', 68, 0, 8)
        for t in (300, 100, None, 200, 400, None, 350, 250):
            records.append(finished_round if t is None else
                           sample_rec(t * 1000))
    else:
        records.append(sample_rec(4000))
    if case != 'rounds':
        records.append(rec(2, 0, struct.pack('<QQ', 1, 5), 5000))
        records.append(rec(13, 0, struct.pack('<Q', 2), 5500))
        records.append(rec(4, 0, struct.pack('<IIIIQ', PID, 1, PID, 1,
                                             6000), 6000))
    damage = -1
    if case in ('zero-size', 'huge-size'):
        r = bytearray(records[1])
        struct.pack_into('<H', r, 6, 0 if case == 'zero-size' else 0xfff8)
        records[1] = bytes(r)
        damage = data_off + len(records[0])
    if case == 'bad-chain':
        damage = data_off + sum(len(r) for r in records[:3])
    if case == 'no-nul':
        damage = data_off
    data = b''.join(records)
    if case.startswith('compressed'):
        plain = data if case != 'compressed-cut' else data[:-20]
        z = subprocess.run(['zstd', '-q', '-c', '-3'], input=plain,
                           stdout=subprocess.PIPE, check=True).stdout
        if case == 'compressed-bad':
            z = b'\xff\xff\xff\xff' + z[4:]
        cuts = [0, len(z) // 3, 2 * len(z) // 3, len(z)]
        data = b''.join(struct.pack('<IHH', 81, 0, 8 + cuts[i + 1] -
                                    cuts[i]) + z[cuts[i]:cuts[i + 1]]
                        for i in range(3))
        if case == 'compressed-bad':
            damage = data_off

    feat_off = data_off + len(data)
    bidbody = struct.pack('<i', PID) + bytes(range(1, 21)) + b'\0' * 4 + \
        cstr('/nonexistent/prog', 8)
    bid = struct.pack('<IHH', 0, 0, 8 + len(bidbody)) + bidbody
    host = struct.pack('<I', len(cstr('testhost'))) + cstr('testhost')
    sects = [bid, host]
    features = (1 << 2) | (1 << 3)
    if tracing:
        sects.insert(0, tracing_data(case == 'tracing-cut',
                                     case == 'tracing-fpe'))
        features |= 1 << 1
    sect_off = feat_off + len(sects) * 16
    feats = b''
    for x in sects:
        feats += struct.pack('<QQ', sect_off, len(x))
        sect_off += len(x)
    feats += b''.join(sects)

    data_size = len(data)
    if case == 'data-past-eof':
        data_size += 1 << 20
        damage = 48
    if case.startswith('pipe'):
        a = attr if case != 'pipe-bad-attr' else \
            attr[:4] + struct.pack('<I', 12) + attr[8:]
        hattr = struct.pack('<IHH', 64, 0, 8 + len(a) + 8) + a + \
            struct.pack('<Q', 1)
        hbody = struct.pack('<Q', 3) + host
        hfeat = struct.pack('<IHH', 80, 0, 8 + len(hbody)) + hbody
        ubody = struct.pack('<QQ', 2, 1) + cstr('cpu-clock')
        upd = struct.pack('<IHH', 78, 0, 8 + len(ubody)) + ubody
        first = [hattr, hfeat, upd] if case != 'pipe-noattr' else []
        if case == 'pipe-noattr':
            damage = 16
        if case == 'pipe-bad-attr':
            damage = 16 + 12
        return (b'PERFILE2' + struct.pack('<Q', 16) + b''.join(first) +
                data, damage)
    hs = hdr_size
    asz = attr_size if case != 'bad-attr-size' else 12
    if case == 'bad-attr-size':
        damage = 16
    header = b'PERFILE2' + struct.pack('<QQQQQQQQ', hs, asz, attr_off,
                                       attr_size, data_off, data_size, 0, 0)
    header += struct.pack('<QQQQ', features, 0, 0, 0)
    out = header + attr_entry + struct.pack('<Q', 1) + data + feats
    if case == 'data-past-eof':
        out = header + attr_entry + struct.pack('<Q', 1) + data
    return out, damage


def main():
    case = sys.argv[2] if len(sys.argv) > 2 else 'good'
    out, damage = build(case)
    with open(sys.argv[1], 'wb') as f:
        f.write(out)
    print(damage)


if __name__ == '__main__':
    main()
