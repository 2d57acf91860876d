#!/bin/sh
# find-routes.sh -- one program (tests/find/prog*.c) built every way a
# binary ships, imported with pclnld --elf: every instruction start must
# answer exactly as the unsplit -g build does (pclndump addr2line -a -f -i,
# every inlined frame, and pclndump lookup: function, offset, file:line,
# pcsp, inline index), or, where the route carries less, exactly what it
# carries.
#
#   the file itself:   -g; compressed zlib (SHF_COMPRESSED), zstd
#                      (objcopy), .zdebug_* (zlib-gnu)
#   separate file:     build-id directory (strip -g, and strip -s: the
#                      debug file's .symtab), .gnu_debuglink beside the
#                      file, in .debug/ and under a global directory;
#                      without a build-id the link's CRC is checked
#   split DWARF:       gcc -gsplit-dwarf .dwo; a .dwp package from
#                      binutils dwp (gcc DWARF 4, index version 2) and
#                      llvm-dwp (clang DWARF 5, version 5)
#   symbols only:      MiniDebugInfo (.dynsym + xz .symtab) and
#                      strip -g (.symtab): the same functions and pcsp,
#                      no lines; .dynsym alone: its functions, ?? elsewhere
# Refused: a debug file of another build at the build-id path, a debuglink
# file whose CRC does not match; both leave a table without lines and a
# warning saying where pclnld looked.  (debuginfod: tests/find-debuginfod.sh.)

. "${top_srcdir:-.}/tests/lib.sh"
use_real_tools ld
test_workdir find-routes

for t in objcopy objdump strip readelf nm xz python3; do
	command -v $t >/dev/null 2>&1 || { echo "SKIP: no $t"; exit 77; }
done
src=$top_srcdir/tests/find

# build DIR OUT CFLAGS...: compile each file in DIR (so .dwo files land
# there) and link OUT with every global function in .dynsym.
build() {
	dir=$1 out=$2; shift 2
	mkdir -p "$dir"
	(cd "$dir" && $CC -O2 "$@" -I"$src" -c "$src/prog.c" -o prog.o &&
	    $CC -O2 "$@" -I"$src" -c "$src/prog_util.c" -o prog_util.o &&
	    $CC "$@" -rdynamic -o "$out" prog.o prog_util.o) ||
	    { fail "cannot build $dir/$out with $*"; return 1; }
}

# The instruction starts of .text.
insns() {
	objdump -d --no-show-raw-insn -j .text "$1" |
	    awk '/^ *[0-9a-f]+:\t/ { a = $1; sub(/:$/, "", a); print "0x" a }'
}

# Every answer of BLOB at the pcs in PCS.
answers() {
	"$D" addr2line -a -f -i -e "$1" <"$2" &&
	    xargs "$D" lookup "$1" <"$2"
}

# The .text bytes and address, to be sure two builds have the same code.
text_of() {
	readelf -SW "$1" | awk '$2 == ".text" { print $4, $6 }'
	objcopy -O binary --only-section=.text "$1" /dev/stdout | cksum
}

same_code() {
	if [ "$(text_of "$1")" != "$(text_of "$2")" ]; then
		fail "$2: its .text differs from $1's; the builds cannot be compared"
		return 1
	fi
}

# route NAME BIN ROUTE REF [PCLNLD-ARGS...]: import BIN, expect "DWARF:
# ROUTE" in pclnld -v, and every answer equal to REF's (a file of
# answers).
route() {
	name=$1 bin=$2 want=$3 ref=$4; shift 4
	ncase=$((ncase + 1))
	if ! "$LD" --elf "$bin" "$@" -o "$name.pcln" -v 2>"$name.log"; then
		cat "$name.log" >&2
		fail "$name: pclnld --elf failed"
		return
	fi
	got=$(sed -n 's/.*; DWARF: \([a-z-]*\).*/\1/p' "$name.log")
	if [ "$got" != "$want" ]; then
		grep -v '^pclnld: [0-9]' "$name.log" >&2
		fail "$name: DWARF found by '$got', expected '$want'"
	fi
	answers "$name.pcln" pcs >"$name.ans" 2>&1
	if ! cmp -s "$ref" "$name.ans"; then
		n=$(diff "$ref" "$name.ans" | grep -c '^>')
		fail "$name: $n answers differ from $ref:"
		diff "$ref" "$name.ans" | sed -n '1,12p' >&2
		return
	fi
	echo "ok: $name ($want): $(wc -l <pcs) pcs answered as $ref"
}

# The reference: the unsplit -g build.
build ref prog -g || exit 1
cp ref/prog prog
insns prog >pcs
"$LD" --elf prog -o ref.pcln || { fail "pclnld on the -g build"; exit 1; }
answers ref.pcln pcs >ref.ans
# It must be worth comparing against: lines, inlined frames, pcsp.
nline=$(grep -c '/prog.*\.c:[1-9]' ref.ans)
ninl=$(grep -c 'prog_mix' ref.ans)
nsp=$(grep -c 'sp=[1-9]' ref.ans)
echo "reference: $(wc -l <pcs) instruction starts; $nline answers with a line, $ninl in inlined prog_mix, $nsp with sp > 0"
if [ "$nline" -lt 50 ] || [ "$ninl" -lt 5 ] || [ "$nsp" -lt 5 ]; then
	fail "the reference build has too few lines, inlined calls or frames"
fi
id=$(readelf -n prog | awk '/Build ID/ { print $3 }')
[ -n "$id" ] || { fail "the -g build has no build-id"; exit 1; }
idpath=$(echo "$id" | cut -c1-2)/$(echo "$id" | cut -c3-).debug

# What routes without DWARF carry: the -g build stripped of its debug
# sections, symbols (.symtab) and CFI left.
strip -g prog -o prog.nodebug
"$LD" --elf prog.nodebug -o r0.pcln 2>r0.log
grep -q 'no DWARF found' r0.log || fail "strip -g: no warning about the missing DWARF"
answers r0.pcln pcs >r0.ans
if grep -q '\.c:[1-9]' r0.ans; then
	fail "strip -g: lines invented"
fi
[ "$(grep -c 'sp=[1-9]' r0.ans)" -eq "$nsp" ] ||
	fail "strip -g: pcsp differs from the -g build's"

objcopy --only-keep-debug prog prog.debug

# 1. The file's own DWARF, compressed.
for z in zlib zlib-gnu zstd; do
	objcopy --compress-debug-sections=$z prog prog.$z
	route "compressed-$z" prog.$z self ref.ans
done
if $CC -gz=zlib -x c -c -o /dev/null /dev/null 2>/dev/null; then
	build gz prog -g -gz=zlib && same_code prog gz/prog &&
	    route "gcc-gz-zlib" gz/prog self ref.ans
fi
readelf -t prog.zstd | grep -q ZSTD ||
	fail "objcopy made no zstd-compressed section"
# A zstd section whose header claims 4 GiB (its data holds a few KB): a
# clear warning, no DWARF from it, and no 4 GiB taken (the buffer grows
# with what the data gives, not with what the header claims).
ncase=$((ncase + 1))
# The compression header's ch_size (Elf64_Chdr: type, reserved, size).
cp prog.zstd prog.zbig
python3 "$top_srcdir/tests/elfpatch.py" prog.zbig .debug_info 8 0000f0ff00000000 ||
	fail "cannot patch prog.zbig"
# Under 1 GiB of address space (not under the sanitizers, whose shadow
# memory needs more), where a buffer of the claimed size cannot be had.
lim=
[ -n "${ASAN_OPTIONS:-}${TSAN_OPTIONS:-}" ] || lim="ulimit -v 1048576;"
if sh -c "$lim"' exec "$@"' sh "$LD" --elf prog.zbig -o zbig.pcln -v \
    2>zbig.log &&
    grep -q "section .debug_info: bad zstd data: shorter than its header says" zbig.log; then
	echo "ok: a zstd header claiming 4 GiB${lim:+ (in 1 GiB)}: $(grep -o 'section .debug_info: bad zstd[^;]*' zbig.log)"
else
	fail "zstd header claiming 4 GiB: $(cat zbig.log)"
fi

# 2. A build-id directory.
mkdir -p bid/.build-id/$(dirname "$idpath")
cp prog.debug "bid/.build-id/$idpath"
strip -g prog -o prog.g
strip -s prog -o prog.s
route build-id prog.g build-id ref.ans --debug-dir bid
route build-id-stripped prog.s build-id ref.ans --debug-dir empty --debug-dir bid
grep -q "symbols: debug file's .symtab" build-id-stripped.log ||
	fail "strip -s: symbols not from the debug file"

# ... a debug file of another program there is refused.
build other prog -g -DPROG_OTHER=1 -fno-inline || exit 1
objcopy --only-keep-debug other/prog other.debug
mkdir -p wrong/.build-id/$(dirname "$idpath")
cp other.debug "wrong/.build-id/$idpath"
route wrong-build-id prog.g none r0.ans --debug-dir wrong
grep -q "no DWARF found.*build-id $id" wrong-build-id.log ||
	fail "wrong build-id: the warning does not name the build-id"

# 3. .gnu_debuglink: beside, in .debug/, under a global directory.
mkdir -p dl/.debug "glob$(pwd)/dl"
objcopy --strip-debug --add-gnu-debuglink=prog.debug prog dl/prog
cp prog.debug dl/
route debuglink-beside dl/prog debuglink ref.ans
mv dl/prog.debug dl/.debug/
route debuglink-dotdebug dl/prog debuglink ref.ans
mv dl/.debug/prog.debug "glob$(pwd)/dl/"
route debuglink-global dl/prog debuglink ref.ans --debug-dir glob
grep -q "glob$(pwd)/dl/prog.debug" debuglink-global.log ||
	fail "debuglink-global: not the file under the global directory"

# ... without a build-id, the CRC decides.
build nb prog -g -Wl,--build-id=none || exit 1
cp nb/prog prognb
insns prognb >pcsnb
"$LD" --elf prognb -o refnb.pcln
answers refnb.pcln pcsnb >refnb.ans
objcopy --only-keep-debug prognb nbl.debug
mkdir -p nbl && objcopy --strip-debug --add-gnu-debuglink=nbl.debug prognb nbl/prog
cp nbl.debug nbl/
cp pcs pcs.keep; cp pcsnb pcs
route debuglink-crc nbl/prog debuglink refnb.ans
printf 'x' >>nbl/nbl.debug
strip -g prognb -o prognb.nodebug
"$LD" --elf prognb.nodebug -o r0nb.pcln 2>/dev/null
answers r0nb.pcln pcs >r0nb.ans
route debuglink-bad-crc nbl/prog none r0nb.ans
grep -q "no file 'nbl.debug' with CRC 0x" debuglink-bad-crc.log ||
	fail "bad CRC: the warning does not name the link and its CRC"
cp pcs.keep pcs

# 4. Symbols only: MiniDebugInfo (Fedora's recipe), strip -g, .dynsym.
sh "$top_srcdir/scripts/minidebuginfo.sh" prog prog.debug prog.mini
route minidebuginfo prog.mini none r0.ans
grep -q 'symbols: .dynsym + MiniDebugInfo' minidebuginfo.log ||
	fail "minidebuginfo: not read"
route symtab-only prog.nodebug none r0.ans
# .dynsym alone: each pc in an exported function answers as with
# .symtab, every other pc ?? (no name invented; its FDE makes it an
# unnamed function, so addr2line says ??:? -- in a function, line
# unknown -- not ??:0).  The answers file is N addr2line records of 3
# lines (no inlined frames without DWARF), then N lookup lines.
nm -D -S --defined-only prog | awk '$3 == "T" { print $4 }' | sort -u >exported
strip -s prog -o prog.dyn
readelf --debug-dump=frames prog.dyn |
    sed -n 's/.* pc=\([0-9a-f]*\)\.\.\([0-9a-f]*\)$/\1 \2/p' >fdes
python3 - "$(wc -l <pcs)" exported fdes r0.ans >dynsym.expected <<'PYEOF'
import sys
n = int(sys.argv[1])
ex = set(open(sys.argv[2]).read().split())
fdes = [tuple(int(x, 16) for x in l.split()) for l in open(sys.argv[3])]
lines = open(sys.argv[4]).read().split("\n")
out = []
for i in range(n):
    a, f, loc = lines[3 * i:3 * i + 3]
    if f in ex:
        out += [a, f, loc]
    else:
        infde = any(lo <= int(a, 16) < hi for lo, hi in fdes)
        out += [a, "??", "??:?" if infde else "??:0"]
for l in lines[3 * n:]:
    if not l:
        continue
    w = l.split("  ")
    if w[1].split("+0x")[0] in ex:
        out.append(l)
        continue
    pc = int(w[0], 16)
    lo = [lo for lo, hi in fdes if lo <= pc < hi]
    # In an FDE: an unnamed function from the FDE's start, with the
    # pcsp and pcdata of the .symtab build; else in no function.
    out.append("  ".join([w[0], "??+0x%x" % (pc - lo[0])] + w[2:])
               if lo else w[0] + "  ??")
print("\n".join(out))
PYEOF
nexp=$(wc -l <exported)
nq=$(grep -c '  ??$' dynsym.expected)
if [ "$nexp" -lt 3 ] || [ "$nq" -lt 10 ]; then
	fail ".dynsym: $nexp exported functions, $nq pcs outside them: not a real test"
fi
route dynsym prog.dyn none dynsym.expected
grep -q 'symbols: .dynsym$' dynsym.log || fail "dynsym: not .dynsym"

# 5. Split DWARF.
build split prog -g -gsplit-dwarf || exit 1
same_code prog split/prog && route dwo split/prog self ref.ans
grep -q '2 split-DWARF units, 2 of them read' dwo.log ||
	fail "dwo: the .dwo files were not read"
# Without them: the skeletons' lines, no inlined calls, and functions
# named by their symbols (no DWARF names): the lines of --no-inline, the
# names of strip -g.
"$LD" --elf prog --no-inline -o noinl.pcln && answers noinl.pcln pcs >noinl.tmp
awk -v n="$(wc -l <pcs)" 'NR == FNR { r[FNR] = $0; next }
    FNR <= 3 * n && FNR % 3 == 2 { print r[FNR]; next }
    FNR > 3 * n { split(r[FNR], w, "  "); $0 = $0; sub(/  [^ ]+/, "  " w[2]) }
    { print }' r0.ans noinl.tmp >noinl.ans
mkdir -p split/hide && mv split/*.dwo split/hide/
route dwo-missing split/prog self noinl.ans
grep -q '2 of 2 split-DWARF units not found' dwo-missing.log ||
	fail "dwo-missing: no warning"
mv split/hide/*.dwo split/
# package NAME DIR TOOL REF: pack DIR/prog's .dwo files with TOOL,
# remove them, and expect REF's answers from the package.
package() {
	if (cd "$2" && timeout 60 $3 -e prog -o prog.dwp) 2>dwp.log; then
		rm "$2"/*.dwo
		route "$1" "$2/prog" self "$4"
		grep -q '2 units from .*prog.dwp' "$1.log" ||
			fail "$1: the package was not read"
	else
		fail "$3 failed: $(cat dwp.log)"
	fi
}
if command -v dwp >/dev/null 2>&1; then
	build split4 prog -g -gdwarf-4 -gsplit-dwarf || exit 1
	same_code prog split4/prog && package dwp-v2 split4 dwp ref.ans
else
	echo "note: no binutils dwp; the version 2 package is not tested"
fi
if command -v clang >/dev/null 2>&1 && command -v llvm-dwp >/dev/null 2>&1; then
	# clang's DWARF 5: its own reference, and a version 5 package.
	keep=$CC; CC=clang
	build cref prog -g && build csplit prog -g -gsplit-dwarf
	CC=$keep
	cp cref/prog cprog
	insns cprog >pcs
	"$LD" --elf cprog -o cref.pcln && answers cref.pcln pcs >cref.ans
	same_code cprog csplit/prog && package dwp-v5 csplit llvm-dwp cref.ans
else
	echo "note: no clang or llvm-dwp; the version 5 package is not tested"
fi

echo "$ncase routes, $fails failed"
[ "$fails" -eq 0 ]
