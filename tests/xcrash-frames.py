#!/usr/bin/env python3
# xcrash-frames.py OURS GDB [--cxx] -- tests/xcrash-gdb.sh's comparison:
# the frames the whole-process crash handler printed (OURS: the handler's
# output, examples/crash_handler.c with -DCRASH_PROCESS) against gdb's
# (GDB: "FRAME<TAB>TYPE<TAB>PC<TAB>NAME<TAB>FILE<TAB>LINE" lines that
# tests/xcrash-gdb.py printed from gdb's Python API), up to main.
#
# Both are grouped into physical frames by pc: the inlined calls at a pc,
# innermost first, then the function itself.  Then, frame by frame:
#   - the pcs are equal (the same frames in the same order);
#   - gdb's tail-call frames are left out first: gdb makes them from DWARF
#     call-site information (qsort jumps to qsort_r); they are not on the
#     stack and no unwinder sees them;
#   - in the example's own objects (named on the command line by their
#     basenames), names, file:line and every inlined frame are equal (C++
#     names compared as tests/crash-frames.py compares them, with --cxx);
#   - in other objects (libc), a name pcln knows equals gdb's (or is one
#     of its aliases: __GI_ and leading underscores aside); where pcln has
#     no debug information for the object it has no lines, no inlined
#     frames, and no names for local functions: those are counted, by
#     kind, and so is any frame they differ in.
# Prints a line per frame and the counts; exits 1 on a difference that is
# not of those kinds.
import importlib.util
import os
import re
import sys

from frame_names import alias_key

here = os.path.dirname(os.path.abspath(__file__))
spec = importlib.util.spec_from_file_location(
    "crash_frames", os.path.join(here, "crash-frames.py"))
crash_frames = importlib.util.module_from_spec(spec)
spec.loader.exec_module(crash_frames)


def ours_frames(path):
    """[(pc, object, [(name, file, line, inlined)...])], innermost first:
    the handler prints a frame as its name line, then a tab-indented
    "FILE:LINE +OFF in OBJECT at PC" (only "FILE:LINE" if inlined)."""
    out, pending, prev = [], [], None
    for line in open(path, errors="replace"):
        line = line.rstrip("\n")
        if not line.startswith("\t"):
            prev = line
            continue
        m = re.match(r"\t(\S+):(-?\d+)(?: \+0x[0-9a-f]+ in (\S+) at "
                     r"(0x[0-9a-f]+))?$", line)
        if not m or prev is None:
            continue
        inl = prev.endswith(" [inlined]")
        n = prev[:-len(" [inlined]")] if inl else prev
        if n.endswith("(...)"):
            n = n[:-5]
        pending.append((n, m.group(1), int(m.group(2)), inl))
        if m.group(4) is not None:
            out.append((int(m.group(4), 16), m.group(3), pending))
            pending = []
        prev = None
    return out


def gdb_frames(path):
    out, pending = [], []
    for line in open(path, errors="replace"):
        f = line.rstrip("\n").split("\t")
        if len(f) != 6 or f[0] != "FRAME":
            continue
        typ, pc, name, src, ln = f[1], int(f[2], 16), f[3], f[4], int(f[5])
        if typ == "tailcall":
            out.append((pc, "tailcall", [(name, src, ln, False)]))
            continue
        pending.append((name, src, ln, typ == "inline"))
        if typ != "inline":
            out.append((pc, typ, pending))
            pending = []
    return out


def base(p):
    return p.split("/")[-1]


def same_name(a, b, cxx):
    if a == b:
        return True
    return cxx and crash_frames.key(a) == crash_frames.key(b)


def main():
    ours_path, gdb_path = sys.argv[1:3]
    cxx = "--cxx" in sys.argv[3:]
    own = set(a for a in sys.argv[3:] if not a.startswith("--"))
    ours = ours_frames(ours_path)
    gdb = gdb_frames(gdb_path)
    kinds = {}
    bad = 0

    def count(kind):
        kinds[kind] = kinds.get(kind, 0) + 1

    def wrong(msg):
        nonlocal bad
        bad += 1
        print("  DIFFERENT: " + msg)

    tail = [g for g in gdb if g[1] == "tailcall"]
    for g in tail:
        count("tail-call frames gdb makes from DWARF call sites (%s)"
              % g[2][0][0])
    gdb = [g for g in gdb if g[1] != "tailcall"]
    if not gdb or gdb[-1][2][-1][0] != "main":
        wrong("gdb's frames do not reach main")
    if len(ours) < len(gdb):
        wrong("%d frames, gdb has %d up to main" % (len(ours), len(gdb)))
    for i, g in enumerate(gdb):
        if i >= len(ours):
            break
        pc, obj, ochain = ours[i]
        gpc, _, gchain = g
        mine = base(obj) in own
        print("#%d %#x %s: ours %s | gdb %s" % (
            i, pc, base(obj), " < ".join(c[0] or "??" for c in ochain),
            " < ".join(c[0] for c in gchain)))
        if pc != gpc:
            wrong("frame %d: pc %#x, gdb's %#x" % (i, pc, gpc))
            continue
        lines = ochain[-1][1] != "??"
        if mine and not lines:
            wrong("frame %d in %s: no file:line" % (i, base(obj)))
        if lines:
            if len(ochain) != len(gchain):
                wrong("frame %d: %d inlined calls, gdb %d" % (
                    i, len(ochain) - 1, len(gchain) - 1))
                continue
            pairs = list(zip(ochain, gchain))
        else:
            extra = len(gchain) - 1
            if extra:
                kinds["inlined frames in objects without debug "
                      "information for pcln"] = kinds.get(
                    "inlined frames in objects without debug information "
                    "for pcln", 0) + extra
            pairs = [(ochain[-1], gchain[-1])]
        for (on, of, ol, oi), (gn, gf, gl, gi) in pairs:
            if oi != gi:
                wrong("frame %d: %s inlined %s, gdb's %s inlined %s" % (
                    i, on, oi, gn, gi))
            if on == "" or on == "??":
                if mine:
                    wrong("frame %d: unnamed in %s" % (i, base(obj)))
                else:
                    count("unnamed: a local function without a symbol "
                          "(gdb: %s)" % gn)
            elif not same_name(on, gn, cxx):
                if not mine and alias_key(on) == alias_key(gn):
                    count("another name of the same function (%s, gdb "
                          "%s)" % (on, gn))
                else:
                    wrong("frame %d: %s, gdb's %s" % (i, on, gn))
            if of == "??":
                if not mine:
                    count("no file:line (no debug information for pcln)")
            elif base(of) != base(gf) or ol != gl:
                wrong("frame %d (%s): %s:%d, gdb's %s:%d" % (
                    i, on, base(of), ol, base(gf), gl))
    for k in sorted(kinds):
        print("  %4d %s" % (kinds[k], k))
    print("%d frames compared, %d different" % (min(len(ours), len(gdb)),
                                                bad))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
