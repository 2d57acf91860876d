#!/usr/bin/env python3
"""compare.py PERF_SCRIPT_OUT PCLNDUMP_OUT [MIN_PERCENT]

Compare, sample by sample, the stacks of `perf script` and of `pclndump
perf` (both in perf script's text form), as tests/perf-record.sh does.

Samples are matched by thread and time.  A stack is its list of function
names, innermost first, inlined frames included.  Both sides are
normalized the same way:
  - "+0x..." offsets and the "(object)" / "(inlined)" columns go;
  - gcc's clone suffixes go (f.constprop.0, f.isra.0, f.part.0, f.cold,
    f.lto_priv.0: the same function as DWARF names it);
  - "[unknown]" frames at the outer end of a stack go (perf prints the
    garbage a walk ends in as [unknown] frames);
  - versioned symbol names lose their "@..." part (a PLT entry keeps
    "@plt");
  - a PLT entry perf cannot name (perf 6.1 prints "@plt" for the entries
    of IFUNCs, memcpy's in libc, whose relocations name no symbol) is
    perf's unknown frame there: it equals pcln's name for the entry at
    the same place (object, and offset in the page: perf prints these
    addresses relative to the object), counted and said apart.  Some 0.4 % of a test
    program's samples are in memcpy@plt, and the tests' 99 % then
    depended on how many happened to be: 18 of 1,586 (1.1 %) once.
Prints the share of samples whose stacks are equal and every other
sample's difference by kind; exits 1 if the share is below MIN_PERCENT
(default 99).
"""
import re
import sys
from collections import Counter

HEAD = re.compile(r'^ *(\S.*?)\s+(\d+)\s+(?:\[\d+\]\s+)?(\d+\.\d+):')
FRAME = re.compile(r'^\s+([0-9a-f]+)\s+(.*?)\s*\(([^()]*)\)\s*$')
ONELINE = re.compile(r'^\s*(?:\d+\s+)?\S+:\s+([0-9a-f]+)\s+(.*?)\s*\(([^()]*)\)\s*$')
CLONE = re.compile(r'(\.(constprop|isra|part|cold|lto_priv|localalias)(\.\d+)?)+$')


def norm(name):
    name = re.sub(r'\+0x[0-9a-f]+$', '', name)
    plt = name.endswith('@plt')
    name = name.split('@')[0] if not name.startswith('@') else name
    return CLONE.sub('', name) + ('@plt' if plt and name != '@plt' else '')


def parse(path):
    samples = {}
    cur = None
    with open(path, errors='replace') as f:
        for line in f:
            line = line.rstrip('\n')
            if not line.strip():
                cur = None
                continue
            m = HEAD.match(line)
            if m and not line.startswith('\t'):
                cur = (m.group(2), m.group(3))
                samples[cur] = []
                # Without call chains a sample is one line, its pc's
                # function after the event.
                one = ONELINE.match(line[m.end():])
                if one:
                    samples[cur].append((norm(one.group(2)), one.group(3),
                                         one.group(1)))
                continue
            if cur is None:
                continue
            m = FRAME.match(line)
            if not m:
                continue
            name, where = m.group(2), m.group(3)
            samples[cur].append((norm(name), where, m.group(1)))
    for k, st in samples.items():
        while st and st[-1][0] == '[unknown]':
            st.pop()
    return samples


def frame_same(x, y):
    """Perf's frame X is ours Y: the same name, or X a PLT entry perf
    has no name for and Y ours for the entry at the same place: in the
    same object, at the same offset in the page (perf prints such a
    frame's address relative to its object, pcln the run-time one; an
    object is mapped at a page's start)."""
    return x[0] == y[0] or (x[0] == '@plt' and y[0].endswith('@plt') and
                            x[1] == y[1] and
                            int(x[2], 16) % 4096 == int(y[2], 16) % 4096)


def stacks_same(a, b):
    """0: they differ; 1: equal; 2: equal once perf's nameless PLT
    entries take our names."""
    if [x[0] for x in a] == [x[0] for x in b]:
        return 1
    if len(a) == len(b) and all(frame_same(x, y) for x, y in zip(a, b)):
        return 2
    return 0


def kind(a, b):
    """What differs between perf's stack A and ours B."""
    n = min(len(a), len(b))
    for i in range(n):
        if a[i][0] != b[i][0]:
            wa, wb = a[i][1], b[i][1]
            if a[i][0] == '[unknown]':
                return 'perf unknown, pcln names it (%s)' % wb
            if b[i][0] == '[unknown]':
                return 'pcln unknown, perf names it (%s)' % wa
            if wa == 'inlined' or wb == 'inlined':
                return 'inlined frames differ'
            if a[i][0].endswith('@plt') or b[i][0].endswith('@plt'):
                # perf before 6.3 names the i-th PLT entry after the
                # i-th .rela.plt relocation; pcln after the relocation
                # of the GOT slot the entry jumps through (objdump's).
                return 'PLT entry named otherwise (%s)' % wa
            return 'name differs (%s)' % (wa if wa != 'inlined' else wb)
    if len(a) > len(b):
        return 'pcln stack shorter (stops before %s in %s)' % (a[n][0], a[n][1])
    return 'pcln stack longer (%s in %s beyond)' % (b[n][0], b[n][1])


def main():
    ref = parse(sys.argv[1])
    ours = parse(sys.argv[2])
    minpct = float(sys.argv[3]) if len(sys.argv) > 3 else 99.0
    equal = 0
    kinds = Counter()
    examples = {}
    missing = 0
    plt_named = 0
    for key, a in ref.items():
        b = ours.get(key)
        if b is None:
            missing += 1
            kinds['sample missing in pcln'] += 1
            continue
        same = stacks_same(a, b)
        if same:
            equal += 1
            plt_named += same == 2
            continue
        k = kind(a, b)
        kinds[k] += 1
        if k not in examples:
            examples[k] = (key, a, b)
    extra = len(set(ours) - set(ref))
    total = len(ref)
    pct = 100.0 * equal / total if total else 0.0
    print('samples: perf %d, pcln %d (%d only in pcln); equal stacks: '
          '%d (%.2f%%)' % (total, len(ours), extra, equal, pct))
    if plt_named:
        print('  (%d of them with a PLT entry perf names "@plt" and pcln '
              'names, at the same place)' % plt_named)
    for k, n in kinds.most_common():
        print('  %6d  %s' % (n, k))
        key, a, b = examples.get(k, (None, [], []))
        if key:
            print('          e.g. tid %s time %s' % key)
            print('          perf: %s' % ';'.join(x[0] for x in a))
            print('          pcln: %s' % ';'.join(x[0] for x in b))
    if total == 0 or pct < minpct:
        print('FAIL: %.2f%% of samples equal, expected at least %.1f%%'
              % (pct, minpct))
        return 1
    return 0


if __name__ == '__main__':
    sys.exit(main())
