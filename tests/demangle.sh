#!/bin/sh
# demangle.sh -- pclndump -C / --demangle prints names as binutils
# addr2line -C prints them (both use libiberty's demangler; pcln must pass
# the same flags and wrap the name as bfd_demangle does).
#
# 1. Names from real compilers: every _Z symbol g++ and clang++ make of
#    tests/demangle/names.cc (templates, an anonymous namespace,
#    operators, lambdas, constructors, clones such as .isra.0, the
#    std::string abbreviations addr2line prints and c++filt does not),
#    plus Rust legacy and v0 and D names (tests/demangle/foreign.txt),
#    become the assembler names of C functions in one program (gcc then
#    writes each as DW_AT_linkage_name, which binutils reads, and as the
#    symbol, which pclnld --elf reads).  At every function, pclndump
#    addr2line must print what addr2line prints, byte for byte, with -f
#    -C and the other flags, --demangle=STYLE and -r; and the output must
#    hold the demangled forms (so demangling happened on both sides).
# 2. The other commands (functions, func, lookup, line; text and JSON):
#    the demangled name of each function equals addr2line -C's, the JSON
#    has "demangled" only with --demangle, and --name / func match it.
# 3. The real C++ program (g++ and clang++ -O2 -g), at every instruction
#    start: wherever pclndump's `-f -i` answer equals addr2line's, its
#    `-f -i -C` answer does too (names the importer gives differently from
#    binutils are tests/elf-a2l.sh's business, not this test's).

. "${top_srcdir:-.}/tests/lib.sh"
DUMP=$D
DATA=$top_srcdir/tests/demangle

for t in addr2line nm objdump g++ gcc python3; do
	command -v $t >/dev/null 2>&1 || { echo "SKIP: no $t"; exit 77; }
done

test_workdir demangle

compilers="g++"
if command -v clang++ >/dev/null 2>&1; then
	compilers="g++ clang++"
else
	echo "note: clang++ not found; names from g++ only"
fi

# --- 1. the names, as the assembler names of C functions ---------------
for cxx in $compilers; do
	$cxx -O2 -g -o "$work/names-$cxx" "$DATA/names.cc" ||
	    fail "$cxx cannot build names.cc"
	$cxx -O2 -g -c -o "$work/names-$cxx.o" "$DATA/names.cc" &&
	    nm --defined-only "$work/names-$cxx.o" |
	    awk '$2 ~ /^[TtWV]$/ && $3 ~ /^_Z/ { print $3 }'
done >"$work/cxx.names"
ncxx=$(sort -u "$work/cxx.names" | wc -l)
[ "$ncxx" -ge 30 ] || fail "only $ncxx C++ names from the compilers"
{
	sort -u "$work/cxx.names"
	# bfd_demangle sets leading dots aside and puts them back.
	echo "._ZN5outer5inner7CounterlsEi"
	grep -v '^#' "$DATA/foreign.txt"
} >"$work/all.names"

awk 'BEGIN { print "int main(void) { return 0; }" }
     { printf "void f%d(void) __asm__(\"%s\");\n", NR, $0
       printf "__attribute__((noinline, used)) void f%d(void) " \
	   "{ __asm__ volatile(\"\"); }\n", NR }' \
    "$work/all.names" >"$work/syms.c"
gcc -O0 -g -o "$work/syms" "$work/syms.c" || fail "cannot build syms.c"
"$LD" --elf "$work/syms" -o "$work/syms.blob" ||
    fail "pclnld --elf syms failed"
# Every named function's entry, and one more byte into it.
nm -P "$work/syms" | awk 'NR == FNR { want[$0] = 1; next }
    ($1 in want) && $2 ~ /^[Tt]$/ { printf "0x%s\n", $3 }' \
    "$work/all.names" - | sort -u >"$work/entries"
nsyms=$(wc -l <"$work/entries")
[ "$nsyms" -eq "$(wc -l <"$work/all.names")" ] ||
    fail "$nsyms functions in syms, expected $(wc -l <"$work/all.names")"
while read -r a; do
	printf '%s\n0x%x\n' "$a" $((a + 1))
done <"$work/entries" >"$work/addrs"
echo 0x0 >>"$work/addrs"

for flags in "-f" "-f -C" "-f -C -i -p -a" "-a -f -C -s -p" "--demangle -f" \
    "-f --demangle=auto" "-f --demangle=gnu-v3" "-f --demangle=rust" \
    "-f --demangle=dlang" "-f -C -r" "-f -C -R"; do
	# shellcheck disable=SC2086
	addr2line $flags -e "$work/syms" <"$work/addrs" >"$work/theirs" 2>&1
	# shellcheck disable=SC2086
	"$DUMP" addr2line $flags -e "$work/syms.blob" <"$work/addrs" \
	    >"$work/ours" 2>&1
	if cmp -s "$work/theirs" "$work/ours"; then
		echo "addr2line $flags: $(wc -l <"$work/ours") lines equal binutils'"
	else
		diff "$work/theirs" "$work/ours" | head -10
		fail "addr2line $flags differs from binutils"
	fi
	cp "$work/ours" "$work/ours$(printf '%s' "$flags" | tr -c 'a-zA-Z0-9-' _)"
done
raw=$work/ours-f
dem=$work/ours-f_-C
changed=$(paste -d'\n' "$raw" "$dem" | awk 'NR % 2 { r = $0; next } r != $0' | wc -l)
echo "-C changed $changed of $(wc -l <"$raw") lines"
# Both addresses of each function, but the D names (auto style).
[ "$changed" -ge $(( (nsyms - 3) * 2 )) ] ||
    fail "-C demangled only $changed lines"
for want in \
    "(anonymous namespace)::hidden(char const*, std::vector<int, std::allocator<int> >&)" \
    "outer::inner::Box<double, 3>::operator+=(outer::inner::Box<double, 3> const&)" \
    "outer::inner::Box<double, 3>::operator()(int) const" \
    "outer::inner::Box<double, 3>::operator bool() const" \
    "outer::inner::Counter::operator<<(int)" \
    "outer::inner::Counter::~Counter()" \
    "outer::inner::Counter::twice(int (*)(int), int)" \
    "apply<main::{lambda(int)#1}>(main::{lambda(int)#1}, int)" \
    "[clone .isra.0]" \
    "sumv(int, ...)" \
    ".outer::inner::Counter::operator<<(int)" \
    "m::shapes::Sq<T>::side" \
    "m::main::{{closure}}" \
    "<i32 as core::iter::range::Step>::steps_between" \
    "m::apply::<m::main::{closure#0}>" \
    "<m::shapes::Sq<f64> as m::shapes::Area>::area" \
    "<core::fmt::Arguments>::new::<10, 3>"; do
	grep -qxF "$want" "$dem" || grep -qF "$want" "$dem" ||
	    fail "-C output lacks '$want'"
done
# addr2line's flags, not c++filt's: no Rust hashes, std::string kept short.
grep -q '::h[0-9a-f]\{16\}$' "$dem" && fail "-C printed a Rust hash"
grep -qF 'test.foo(int)' "$work/ours-f_--demangle_dlang" ||
    fail "--demangle=dlang did not demangle _D4test3fooFiZi"
grep -qF 'test.foo(int)' "$dem" &&
    fail "auto style demangled a D name (binutils does not)"
"$DUMP" addr2line --demangle=nonesuch -e "$work/syms.blob" 0 \
    >/dev/null 2>"$work/err"
rc=$?
[ $rc -eq 2 ] && grep -q "unknown demangling style 'nonesuch'" "$work/err" ||
    fail "--demangle=nonesuch: exit $rc, $(cat "$work/err")"

# --- 2. the other commands ----------------------------------------------
# ENTRY NAME pairs from addr2line -C (the reference) for the JSON check.
addr2line -a -f -C -e "$work/syms" <"$work/entries" |
    paste - - - >"$work/ref.tsv"
"$DUMP" --json --demangle functions "$work/syms.blob" >"$work/fn-dm.json" ||
    fail "functions --json --demangle"
"$DUMP" functions --json "$work/syms.blob" >"$work/fn.json" ||
    fail "functions --json"
"$DUMP" functions -C "$work/syms.blob" >"$work/fn-dm.txt" ||
    fail "functions -C"
"$DUMP" --json lookup -C "$work/syms.blob" <"$work/entries" \
    >"$work/lookup.json" || fail "lookup --json -C"
"$DUMP" lookup --demangle "$work/syms.blob" <"$work/entries" \
    >"$work/lookup.txt" || fail "lookup --demangle"
hline=$(grep -n 'f1(void)' "$work/syms.c" | sed -n 2p | cut -d: -f1)
python3 - "$work" <<'EOF' || fail "demangled names in JSON and text differ from addr2line -C"
import json, sys
w = sys.argv[1]
ref = {}
for l in open(w + "/ref.tsv"):
    a, name, _ = l.rstrip("\n").split("\t")
    ref[int(a, 16)] = name
bad = 0
fns = json.load(open(w + "/fn-dm.json"))
raw = {f["name"]: f for f in json.load(open(w + "/fn.json"))}
text = open(w + "/fn-dm.txt").read()
n = 0
for f in fns:
    e = int(f["entry"], 16)
    if e not in ref:
        continue
    n += 1
    want = ref[e] if ref[e] != f["name"] else None
    if f.get("demangled", "missing") != want:
        print("functions: %s: demangled %r, addr2line -C %r" % (f["name"], f.get("demangled"), want)); bad += 1
    if "demangled" in raw[f["name"]]:
        print("functions without --demangle has a demangled field"); bad += 1
    if "  %s  " % ref[e] not in text:
        print("functions -C text lacks %r" % ref[e]); bad += 1
for l in open(w + "/lookup.json"):
    o = json.loads(l)
    e = int(o["pc"], 16)
    want = ref[e] if ref[e] != o["func"] else None
    if o.get("demangled", "missing") != want:
        print("lookup: %s: demangled %r, want %r" % (o["pc"], o.get("demangled"), want)); bad += 1
lt = open(w + "/lookup.txt").read()
for e, name in ref.items():
    if "  %s+0x0  " % name not in lt:
        print("lookup --demangle text lacks %r" % name); bad += 1
print("functions/lookup: %d functions' demangled names equal addr2line -C's" % n)
sys.exit(1 if bad or n < 30 else 0)
EOF
# --name and func match the demangled name too (only with -C).
"$DUMP" functions -C --name='(anonymous namespace)::hidden*' \
    "$work/syms.blob" >"$work/out" &&
    grep -qF '(anonymous namespace)::hidden(char const*' "$work/out" ||
    fail "functions -C --name= does not match a demangled name"
"$DUMP" functions --name='(anonymous namespace)::hidden*' \
    "$work/syms.blob" >/dev/null
[ $? -eq 4 ] || fail "functions --name= matched a demangled name without -C"
"$DUMP" func --demangle "$work/syms.blob" 'outer::inner::Counter::operator<<(int)' \
    >"$work/out" &&
    grep -qx 'function [0-9]*: outer::inner::Counter::operator<<(int)' "$work/out" &&
    grep -qx '  mangled: _ZN5outer5inner7CounterlsEi' "$work/out" ||
    fail "func --demangle by demangled name"
"$DUMP" --json line --demangle "$work/syms.blob" "$work/syms.c:$hline" \
    >"$work/line.json" &&
    python3 -c 'import json, sys
r = json.load(open(sys.argv[1]))[0]["ranges"]
sys.exit(0 if r and all("demangled" in x for x in r) else 1)' "$work/line.json" ||
    fail "line --json --demangle has no demangled field"
"$DUMP" line -C "$work/syms.blob" "$work/syms.c:$hline" >"$work/out" &&
    [ -s "$work/out" ] || fail "line -C"

# --- 3. a real C++ program, at every instruction --------------------------
for cxx in $compilers; do
	bin=$work/names-$cxx
	"$LD" --elf "$bin" -o "$bin.blob" || { fail "pclnld --elf $bin"; continue; }
	objdump -d --no-show-raw-insn -j .text "$bin" |
	    awk '/^ *[0-9a-f]+:\t/ { a = $1; sub(/:$/, "", a); print "0x" a }' \
	    >"$bin.addrs"
	for f in "" "-C"; do
		# shellcheck disable=SC2086
		addr2line -a -f -i $f -e "$bin" <"$bin.addrs" >"$bin.theirs$f"
		# shellcheck disable=SC2086
		"$DUMP" addr2line -a -f -i $f -e "$bin.blob" <"$bin.addrs" \
		    >"$bin.ours$f"
	done
	python3 - "$bin" "$cxx" <<'EOF' || fail "$cxx: -C breaks answers that agree without it"
import sys
b, cxx = sys.argv[1], sys.argv[2]
def recs(p):
    out, cur = [], None
    for l in open(p):
        if l.startswith("0x"):
            cur = []; out.append(cur)
        else:
            cur.append(l)
    return out
o, t, od, td = (recs(b + s) for s in (".ours", ".theirs", ".ours-C", ".theirs-C"))
assert len(o) == len(t) == len(od) == len(td) > 0
agree = [i for i in range(len(o)) if o[i] == t[i]]
bad = [i for i in agree if od[i] != td[i]]
dem = [i for i in agree if od[i] != o[i]]
print("%s: %d instructions, %d answers agree without -C; with -C %d of them "
      "still agree (%d changed by demangling), %d do not"
      % (cxx, len(o), len(agree), len(agree) - len(bad), len(dem), len(bad)))
for i in bad[:5]:
    print("  ours: %r\n  addr2line: %r" % ("".join(od[i]), "".join(td[i])))
sys.exit(1 if bad or len(dem) < 50 else 0)
EOF
done

[ $fails -eq 0 ]
