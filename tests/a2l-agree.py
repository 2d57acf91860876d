#!/usr/bin/env python3
# a2l-agree.py -- compare `pclndump addr2line -a -f -i` with binutils
# `addr2line -a -f -i` and `llvm-addr2line -a -f -i` on the same
# addresses, and explain every difference by a category (tests/real-a2l.sh
# runs it; doc/IMPORT.md says why pcln answers as it does).
#
# usage: a2l-agree.py NAME OURS BINUTILS LLVM REF MIN_AGREE MIN_DISCR [C]
#   REF: "binutils" (gcc's DWARF) or "llvm" (clang's DWARF 5, whose
#   inlined calls binutils 2.40 does not read); MIN_AGREE, MIN_DISCR:
#   the fractions (e.g. 0.9999) the agreement and, for REF binutils, the
#   byte-identical output with discriminators must reach; C: "-C" if
#   the answers were demangled (llvm's through c++filt -i, so that one
#   demangler wrote all three).
# Exit 0 if both are reached and no inlined frame that binutils and llvm
# both report is missing, else 1.
import re
import sys
from collections import Counter, defaultdict


def records(path):
    """ADDR -> [(name, location)], innermost frame first."""
    out = {}
    addr, lines = None, []

    def flush():
        if addr is not None:
            out[addr] = [(lines[i], lines[i + 1])
                         for i in range(0, len(lines) - 1, 2)]
    with open(path, errors="replace") as f:
        for line in f:
            line = line.rstrip("\n")
            if line.startswith("0x") and " " not in line:
                flush()
                addr, lines = int(line, 16), []
            else:
                lines.append(line)
    flush()
    return out


def loc(s):
    """FILE:LINE without the discriminator.  An unknown line is "??:?"
    whatever the file: binutils and llvm then name the unit's file, pcln
    has no file without a line."""
    s = s.split(" (discriminator ")[0]
    if s.endswith(":0") or s.endswith(":?"):
        return "??:?"
    return s


DEMANGLED = False


def name(n):
    """With -C, the part suffix as libiberty writes it: llvm's own
    demangler writes "f() (.cold)" for libiberty's "f() [clone .cold]"."""
    if DEMANGLED:
        n = re.sub(r" \((\.[A-Za-z0-9_.]+)\)$", r" [clone \1]", n)
    return n


def plain(frames):
    return [(name(n), loc(l)) for n, l in frames]


def is_mangled(n):
    """A symbol's name, not a bare DW_AT_name: mangled, or with -C its
    demangled form (which has the parameter list)."""
    return n.startswith("_Z") or (DEMANGLED and "(" in n and
                                  not n.startswith("operator"))


def same_modulo_qualified(ours, ref):
    """Equal frame by frame, where ours may qualify a bare name of the
    reference ("ns::Cls::f" for "f": a C++ function with internal
    linkage, which gcc gives no linkage name)."""
    if len(ours) != len(ref):
        return False
    q = False
    for (on, ol), (rn, rl) in zip(ours, ref):
        if ol != rl:
            return False
        if on == rn:
            continue
        if "::" in on and on.endswith("::" + rn):
            q = True
            continue
        return False
    return q


def ctor_variant(n):
    """A mangled name with its constructor/destructor variant (C1, C2,
    D0, D1, D2: complete, base, deleting) made one."""
    return re.sub(r"([CD])[0-5](?=[EIB])", r"\1*", n) if is_mangled(n) else n


def alias_of(ours, ref):
    """Equal but for the outermost name, which is another variant of
    the same constructor or destructor (one code, several symbols)."""
    return len(ours) == len(ref) and ours[:-1] == ref[:-1] and \
        ours[-1][1] == ref[-1][1] and ours[-1][0] != ref[-1][0] and \
        ctor_variant(ours[-1][0]) == ctor_variant(ref[-1][0])


def qualifies(on, rn):
    return on == rn or ("::" in on and on.endswith("::" + rn))


def framewise(ours, b, l):
    """Every frame agrees with binutils' or llvm's frame (names modulo
    qualification), locations with both: binutils is wrong on some
    frames (the symbol of the enclosing function for an inlined one),
    llvm on others (the symbol, ".cold" and all, for a function that
    has a linkage name)."""
    if not (len(ours) == len(b) == len(l)):
        return False
    for (on, ol), (bn, bl), (ln, lc) in zip(ours, b, l):
        if ol != bl or ol != lc:
            return False
        if not (qualifies(on, bn) or qualifies(on, ln)):
            return False
    return True


def why_binutils_wrong(b, l):
    """Why binutils' answer B differs where llvm's L agrees with pcln."""
    if len(b) == len(l) and [x[1] for x in b] == [x[1] for x in l]:
        if b[-1][0] != l[-1][0] and not is_mangled(b[-1][0]) and \
                is_mangled(l[-1][0]):
            return ("bu-bare-outer", "binutils names the function of an "
                    "inline chain by its bare DW_AT_name (internal linkage, "
                    "no linkage name) where it prints the symbol elsewhere: "
                    "bfd's dwarf2.c looks the symbol up only for the first "
                    "frame; llvm and pcln print the symbol")
        if len(b) > 1 and b[0][0] == b[-1][0] and l[0][0] != l[-1][0]:
            return ("bu-inner-symbol", "binutils names an inlined call to a "
                    "function without a linkage name by the enclosing "
                    "symbol (its symbol fallback applies to the innermost "
                    "frame); llvm and pcln name the inlined function")
        if is_mangled(b[-1][0]) and is_mangled(l[-1][0]):
            return ("bu-alias", "binutils picks another of the symbols at "
                    "the function's address (a constructor's or "
                    "destructor's C1/C2, D1/D2 aliases) for a function "
                    "without a linkage name; llvm and pcln pick the same")
        return ("bu-name", "binutils prints another name for a frame")
    if len(b) != len(l):
        return ("bu-depth", "binutils reports another number of inlined "
                "frames than llvm and pcln")
    return ("bu-line", "binutils gives another file:line than llvm and "
            "pcln (another file of the unit for the same line: bfd 2.40 "
            "reads DWARF 5's file 0 and 1 as one)")


def main():
    global DEMANGLED
    title, fo, fb, fl, ref = sys.argv[1:6]
    DEMANGLED = len(sys.argv) > 8 and sys.argv[8] == "-C"
    min_agree, min_discr = float(sys.argv[6]), float(sys.argv[7])
    ours, bu, ll = records(fo), records(fb), records(fl)
    cats = Counter()
    expl = {}
    ex = defaultdict(list)
    total = agree = 0
    discr_total = discr_same = raw_same = 0
    both_inl = missing_inl = 0
    for a, o in sorted(ours.items()):
        b, l = bu.get(a), ll.get(a)
        if b is None or l is None:
            continue
        total += 1
        po, pb, pl = plain(o), plain(b), plain(l)
        # Inlined frames both binutils and llvm report: pcln must too.
        if ref == "binutils" and len(pb) == len(pl):
            k = 0
            while k < len(pb) - 1 and pb[k][1] == pl[k][1]:
                k += 1
            both_inl += k
            for i in range(k):
                if i >= len(po) - 1 or po[i][1] != pb[i][1]:
                    missing_inl += 1
        if ref == "binutils":
            raw_same += o == b
        primary = pb if ref == "binutils" else pl
        if po == primary:
            agree += 1
            if ref == "binutils":
                discr_total += 1
                discr_same += o == b
            continue
        if po == pl and len(po) == 1 and po[0][0] == "??":
            c, why = ("no-func", "a byte in no function symbol (padding "
                      "between or after functions): pcln answers ??, as llvm "
                      "does; binutils gives it to the function before")
        elif ref == "binutils" and po == pl:
            c, why = why_binutils_wrong(pb, pl)
        elif same_modulo_qualified(po, primary) or \
                same_modulo_qualified(po, pl):
            c, why = ("qualified", "pcln qualifies the name of an inlined "
                      "C++ function without a linkage name (internal "
                      "linkage) from its enclosing scopes; both references "
                      "print the bare DW_AT_name")
        elif po[-1][0] == "??" and pl[-1][0] == "??" and len(po) == 1:
            c, why = ("no-func", "a byte in no function symbol (padding "
                      "between or after functions): pcln answers ??:0 by "
                      "design; binutils gives it to the function before, "
                      "llvm the line of the row running on into it")
        elif ref == "llvm" and alias_of(po, pl):
            c, why = ("llvm-alias", "llvm names the function by a symbol "
                      "(C1 for the DWARF linkage name C2: one code, two "
                      "constructor symbols); pcln takes DWARF's linkage name, "
                      "as binutils does")
        elif ref == "binutils" and framewise(po, pb, pl):
            c, why = ("mixed", "each frame agrees with binutils or llvm "
                      "(names modulo qualification): binutils names an "
                      "inlined call by the enclosing symbol, llvm the "
                      "function by its symbol (\".cold\") where it has a "
                      "linkage name")
        else:
            if po[-1][0] != primary[-1][0]:
                c = "DIFF-name"
            elif len(po) != len(primary):
                c = "DIFF-depth"
            elif po[0][1] != primary[0][1]:
                c = "DIFF-line"
            else:
                c = "DIFF-inline"
            why = "unexplained: pcln differs from binutils and llvm"
        cats[c] += 1
        expl[c] = why
        if len(ex[c]) < 3:
            ex[c].append("0x%x ours %s | binutils %s | llvm %s" % (
                a, po, pb, pl))
    explained = sum(n for c, n in cats.items() if not c.startswith("DIFF"))
    ok = agree + explained
    frac = ok / total if total else 0.0
    print("%s: %d addresses; %d agree with %s (%.4f%%), %d differ for an "
          "explained reason, %d unexplained: %.4f%% agree or explained "
          "(need %.2f%%)" % (title, total, agree, ref,
                             100.0 * agree / max(total, 1), explained,
                             total - ok, 100.0 * frac, 100.0 * min_agree))
    for c, n in cats.most_common():
        print("  %-16s %7d  %s" % (c, n, expl[c]))
        for e in ex[c]:
            print("      " + e[:400])
    rc = 0
    if total == 0 or frac < min_agree:
        rc = 1
    if ref == "binutils":
        df = discr_same / discr_total if discr_total else 0.0
        print("  with discriminators: %d of %d agreeing addresses "
              "byte-identical to binutils (%.4f%%, need %.2f%%); of all "
              "addresses %.4f%%" % (discr_same, discr_total, 100.0 * df,
                                    100.0 * min_discr,
                                    100.0 * raw_same / max(total, 1)))
        print("  inlined frames binutils and llvm both report: %d, pcln "
              "misses %d" % (both_inl, missing_inl))
        if df < min_discr or missing_inl > 0:
            rc = 1
    return rc


if __name__ == "__main__":
    sys.exit(main())
