#!/usr/bin/env python3
# crash-frames.py OURS BT SRC -- tests/crash-gdb.sh's comparison for the C++
# crash example: the frames the handler printed (OURS: "NAME<TAB>FILE:LINE"
# lines) against gdb's `bt` (BT, gdb's whole output), frame by frame, for
# the frames gdb places in the source file SRC.
#
# gdb names a C++ frame partly from the demangled symbol and partly from
# DWARF ("operator()", "apply<main(int, char**)::<lambda(int)> >", clang's
# "main::$_0"), so a frame matches when file:line are equal and so is the
# unqualified name, template and parameter lists taken out ("fault",
# "operator", "run", "apply", "main").  Prints one line per frame; exit 1
# on any difference.
import re
import sys


def strip_groups(s):
    """S without its (...) and <...> groups, [clone ...] and cv words."""
    s = re.sub(r" \[clone [^]]*\]", "", s)
    out, depth = [], 0
    for c in s:
        if c in "(<":
            depth += 1
        elif c in ")>" and depth > 0:
            depth -= 1
        elif depth == 0:
            out.append(c)
    return re.sub(r"\s+(const|volatile)\b", "", "".join(out)).strip()


def key(name):
    """The unqualified name: the last "::" part, without a return type."""
    words = strip_groups(name).split("::")[-1].split()
    return words[-1] if words else ""


def drop_args(name):
    """gdb's "NAME (ARGS)": NAME, the last balanced (...) taken off."""
    depth = 0
    for i in range(len(name) - 1, -1, -1):
        if name[i] == ")":
            depth += 1
        elif name[i] == "(":
            depth -= 1
            if depth == 0:
                return name[:i].rstrip()
    return name


def main():
    ours_path, bt_path, src = sys.argv[1:4]
    ours = [l.rstrip("\n").split("\t") for l in open(ours_path) if "\t" in l]
    gdb = []
    for l in open(bt_path):
        m = re.match(r"#\d+\s+(?:0x[0-9a-f]+ in )?(.*) at (\S+):(\d+)$",
                     l.strip())
        if m and m.group(2).split("/")[-1] == src:
            gdb.append((drop_args(m.group(1)),
                        "%s:%s" % (src, m.group(3))))
    bad = not ours or len(ours) != len(gdb)
    for k in range(max(len(ours), len(gdb))):
        o = ours[k] if k < len(ours) else ("-", "-")
        g = gdb[k] if k < len(gdb) else ("-", "-")
        same = key(o[0]) == key(g[0]) and o[1] == g[1]
        bad = bad or not same
        print("  %s %-10s %-18s ours: %s | gdb: %s"
              % ("==" if same else "!=", key(o[0]), o[1], o[0], g[0]))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
