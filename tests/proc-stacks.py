#!/usr/bin/env python3
# proc-stacks.py OURS EU GDB SKIP... -- tests/proc-stack.sh's comparison
# of a live process's stacks: `pclndump --json stack --pid` (OURS)
# against `eu-stack -p` (EU: its text) and gdb (GDB: tests/proc-gdb.py's
# lines), thread by thread, for every thread but the SKIP tids (a running
# thread's stack changes between the tools' looks).
#
# Per thread, the frames (inlined calls aside) must have the same pcs as
# eu-stack's, all of them (both walk to _start or __clone3), and as gdb's
# up to where gdb stops (main; gdb's tail-call frames left out, as
# tests/xcrash-frames.py says why).  A name pcln knows must be eu-stack's
# and gdb's, or another name of the same function (symbol versions and
# __GI_ aside); unnamed frames (local functions of an object without its
# debug file) are counted.  Where pcln has lines for a frame, its inlined
# calls are gdb's.  Exit 1 on a difference.
import importlib.util
import json
import os
import re
import sys

from frame_names import alias_key, clone_of

here = os.path.dirname(os.path.abspath(__file__))
spec = importlib.util.spec_from_file_location(
    "xcrash_frames", os.path.join(here, "xcrash-frames.py"))
xf = importlib.util.module_from_spec(spec)
spec.loader.exec_module(xf)


def eu_threads(path):
    th, cur = {}, None
    for line in open(path, errors="replace"):
        m = re.match(r"TID (\d+):", line)
        if m:
            cur = th.setdefault(int(m.group(1)), [])
            continue
        m = re.match(r"#\d+\s+(0x[0-9a-f]+)(?: - 1)?\s*(\S*)", line)
        if m and cur is not None:
            cur.append((int(m.group(1), 16), m.group(2) or "??"))
    return th


def gdb_threads(path):
    th, cur = {}, None
    for line in open(path, errors="replace"):
        f = line.rstrip("\n").split("\t")
        if f[0] == "THREAD":
            cur = th.setdefault(int(f[1]), [])
        elif f[0] == "FRAME" and len(f) == 6 and cur is not None:
            cur.append((f[1], int(f[2], 16), f[3], f[4], int(f[5])))
    return th


def main():
    ours_path, eu_path, gdb_path = sys.argv[1:4]
    skip = set(int(t) for t in sys.argv[4:])
    ours = json.load(open(ours_path))
    eu = eu_threads(eu_path)
    gdb = gdb_threads(gdb_path)
    bad = 0
    kinds = {}

    def count(k, n=1):
        kinds[k] = kinds.get(k, 0) + n

    def wrong(msg):
        nonlocal bad
        bad += 1
        print("  DIFFERENT: " + msg)

    nthreads = 0
    for t in ours["threads"]:
        tid = t["tid"]
        if tid in skip:
            continue
        nthreads += 1
        if not t["stop"] or not t["stop"]["complete"]:
            wrong("thread %d: the walk stopped: %s" % (tid, t["stop"]))
        phys, chains, cur = [], [], []
        for f in t["frames"]:
            cur.append(f)
            if not f["inlined"]:
                phys.append(f)
                chains.append(cur)
                cur = []
        e = eu.get(tid)
        if e is None:
            wrong("thread %d: not in eu-stack's output" % tid)
            continue
        print("TID %d: %d frames; eu-stack %d" % (tid, len(phys), len(e)))
        if [int(f["pc"], 16) for f in phys] != [pc for pc, _ in e]:
            wrong("thread %d: pcs %s, eu-stack's %s" % (
                tid, [f["pc"] for f in phys], [hex(pc) for pc, _ in e]))
        for f, (pc, en) in zip(phys, e):
            n = f["function"]
            if n is None or n == "":
                count("unnamed by pcln (eu-stack: %s)" % en)
            elif alias_key(n) != alias_key(en) and en != "??":
                if re.sub(r"@.*", "", en) != n:
                    wrong("thread %d, pc %s: %s, eu-stack's %s" % (
                        tid, f["pc"], n, en))
            elif n != re.sub(r"@.*", "", en):
                count("another name of the same function (%s, eu-stack "
                      "%s)" % (n, en))
        g = [x for x in gdb.get(tid, []) if x[0] != "tailcall"]
        count("tail-call frames gdb makes", len(gdb.get(tid, [])) - len(g))
        if not g:
            wrong("thread %d: not in gdb's output" % tid)
            continue
        gchains, cur = [], []
        for x in g:
            cur.append(x)
            if x[0] != "inline":
                gchains.append(cur)
                cur = []
        if len(gchains) > len(chains):
            wrong("thread %d: gdb has %d frames, pcln %d" % (
                tid, len(gchains), len(chains)))
        for oc, gc in zip(chains, gchains):
            pc = int(oc[-1]["pc"], 16)
            if pc != gc[-1][1]:
                wrong("thread %d: pc %#x, gdb's %#x" % (tid, pc, gc[-1][1]))
                break
            if oc[-1]["file"] is None:
                count("inlined frames pcln cannot see (no debug file)",
                      len(gc) - 1)
                continue
            # (gdb names a C++ unit's function with its parameters, and
            # a GCC clone -- f.part.0, its symbol -- by its DWARF name.)
            if [(clone_of(f["function"]), f["line"]) for f in oc] != \
                    [(clone_of(xf.crash_frames.drop_args(x[2])), x[4])
                     for x in gc]:
                wrong("thread %d, pc %#x: %s, gdb's %s" % (
                    tid, pc, [(f["function"], f["line"]) for f in oc],
                    [(x[2], x[4]) for x in gc]))
            else:
                count("frames with file:line and inlined calls as gdb's",
                      len(gc))
    for k in sorted(kinds):
        if kinds[k]:
            print("  %4d %s" % (kinds[k], k))
    print("%d threads compared, %d differences" % (nthreads, bad))
    return 1 if bad or nthreads == 0 else 0


if __name__ == "__main__":
    sys.exit(main())
