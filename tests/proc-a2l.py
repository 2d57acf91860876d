#!/usr/bin/env python3
# proc-a2l.py sample PID N SEED > ADDRS
# proc-a2l.py compare OURS EU [--strict BASENAME...]
#
# sample: N addresses from the executable mappings of live process PID
# (/proc/PID/maps), spread over its objects in proportion to their size
# with at least N/50 in each, plus a few in [stack], in an anonymous
# mapping and in no mapping, each once; the same SEED gives the same
# addresses.
#
# compare: `pclndump --json addr2line --pid PID -f -i` (OURS, JSON lines)
# against `eu-addr2line --pid=PID -a -f -i` (EU) on the same addresses:
# per address the function, file:line and the inlined-by chain.  Prints
# the differences by kind, with the objects they are in, and one example
# of each; exit 1 if any address of a --strict object (the test's own,
# built -g) differs in any way but "pcln: in no function", or if the two
# answered different address lists.
import json
import random
import re
import sys

from frame_names import alias_key


def sample(pid, n, seed):
    maps = []
    for line in open("/proc/%d/maps" % pid):
        f = line.split()
        lo, hi = (int(x, 16) for x in f[0].split("-"))
        path = f[5] if len(f) > 5 else ""
        maps.append((lo, hi, f[1], path))
    ex = [m for m in maps if "x" in m[2] and m[3] != "[vsyscall]"]
    total = sum(hi - lo for lo, hi, _, _ in ex)
    rnd = random.Random(seed)
    out = []
    for lo, hi, _, _ in ex:
        k = max(n // 50, n * (hi - lo) // total)
        out += [rnd.randrange(lo, hi) for _ in range(k)]
    for lo, hi, p, path in maps:
        if path == "[stack]" or (path == "" and "w" in p):
            out += [rnd.randrange(lo, hi) for _ in range(3)]
    out += [0x10, 0x7ff0]
    rnd.shuffle(out)
    seen = set()
    for a in out:
        if a not in seen and len(seen) < n + 64:
            seen.add(a)
            print("%#x" % a)


def norm_loc(file, line):
    if not file or file == "??" or not line or line <= 0:
        return None
    return "%s:%d" % (file, line)


def ours_records(path):
    recs = {}
    for line in open(path):
        d = json.loads(line)
        obj = d["object"]["path"] if d["object"] else (
            d["mapping"]["path"] or "[anon]") if d["mapping"] else "-"
        chain = [(f["function"], norm_loc(f["file"], f["line"]))
                 for f in d["frames"]]
        recs[int(d["address"], 16)] = (obj, d["function"], chain)
    return recs


def eu_records(path):
    recs, cur, addr = {}, None, None
    for line in open(path, errors="replace"):
        line = line.rstrip("\n")
        if re.fullmatch(r"0x[0-9a-f]+", line):
            addr = int(line, 16)
            cur = recs.setdefault(addr, [])
        elif cur is not None:
            cur.append(line)
    out = {}
    for a, lines in recs.items():
        chain = []
        for i in range(0, len(lines) - 1, 2):
            # "NAME inlined at FILE:LINE:COL in CALLER" for an inlined
            # call; FILE:LINE or FILE:LINE:COL.
            fn = re.sub(r" inlined at .* in .*$", "", lines[i])
            loc = lines[i + 1]
            m = re.fullmatch(r"(.*):(\d+):\d+", loc) or \
                re.fullmatch(r"(.*):(\d+)", loc)
            l = norm_loc(m.group(1), int(m.group(2))) if m else None
            chain.append((None if fn == "??" else fn, l))
        out[a] = chain
    return out


def kind_of(fn, chain, eu):
    efn = eu[0][0] if eu else None
    if fn is None and efn is None:
        return "same"
    if fn is None:
        return "pcln: in no function (eu-addr2line: a symbol)"
    if efn is None:
        return "eu-addr2line: in no function (pcln: a function)"
    # Compare the outermost function (addr2line -f -i prints innermost
    # first: the last entry is the function itself).
    ofn, efn_out = chain[-1][0], eu[-1][0]
    if ofn == "":
        kind = "pcln: an unnamed function (no symbol; eu-addr2line: %s)"
        return kind % ("a name" if efn_out else "none")
    if ofn != efn_out and alias_key(ofn) != alias_key(efn_out):
        return "another function"
    if chain == eu:
        return "same"
    if [c[0] for c in chain] == [c[0] for c in eu]:
        if all(c[1] is None for c in chain) and any(c[1] for c in eu):
            return "pcln: no lines (no debug information for the object)"
        if ofn != efn_out:
            return "another name of the same function"
        return "another line"
    if len(chain) < len(eu) and all(c[1] is None for c in chain):
        return "pcln: no inlined calls, no lines (no debug information)"
    if ofn != efn_out:
        return "another name of the same function"
    return "other inlined calls"


def compare(ours_path, eu_path, strict):
    ours = ours_records(ours_path)
    eu = eu_records(eu_path)
    bad = 0
    if set(ours) != set(eu):
        print("DIFFERENT: the address lists differ (%d vs %d)" %
              (len(ours), len(eu)))
        bad += 1
    kinds = {}
    for a in sorted(ours):
        if a not in eu:
            continue
        obj, fn, chain = ours[a]
        k = kind_of(fn, chain, eu[a])
        base = obj.split("/")[-1]
        e = kinds.setdefault(k, {"n": 0, "objs": {}, "ex": None})
        e["n"] += 1
        e["objs"][base] = e["objs"].get(base, 0) + 1
        if e["ex"] is None:
            e["ex"] = "%#x in %s: pcln %s | eu-addr2line %s" % (
                a, base, chain or fn, eu[a])
        if base in strict and k not in (
                "same", "pcln: in no function (eu-addr2line: a symbol)"):
            bad += 1
            if bad < 10:
                print("DIFFERENT (%s): %s" % (k, e["ex"] if e["n"] == 1
                      else "%#x: pcln %s | eu %s" % (a, chain, eu[a])))
    n = sum(e["n"] for e in kinds.values())
    print("%d addresses:" % n)
    for k in sorted(kinds, key=lambda k: -kinds[k]["n"]):
        e = kinds[k]
        objs = ", ".join("%s %d" % (o, c) for o, c in
                         sorted(e["objs"].items(), key=lambda x: -x[1]))
        print("  %6d %5.1f%%  %s  [%s]" % (e["n"], 100.0 * e["n"] / n, k,
                                         objs))
        if k != "same":
            print("          e.g. %s" % e["ex"])
    return 1 if bad else 0


def main():
    if sys.argv[1] == "sample":
        sample(int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4]))
        return 0
    strict = set(sys.argv[sys.argv.index("--strict") + 1:]) \
        if "--strict" in sys.argv else set()
    return compare(sys.argv[2], sys.argv[3], strict)


if __name__ == "__main__":
    sys.exit(main())
