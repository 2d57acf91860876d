#!/bin/sh
# elf-a2l.sh -- pclnld --elf on real programs, then pclndump's addr2line
# mode against binutils `addr2line -f` at every instruction start of
# .text: function name and file:line must match for at least 99.9% of
# addresses; every difference is counted by category and explained.
#
# Programs: the project's own shared library and pclndump, as built here
# (by the configured compiler, -O2 -g by default), and examples/crash.c
# with the runtime built by the other compiler (clang if we were built by
# gcc and it is installed, else gcc) with -gdwarf-4, so DWARF 4 and 5,
# gcc and clang are all read.  The reference is binutils addr2line, but
# llvm-addr2line for clang's DWARF 5 (see reference() below).
#
# Compared: the whole `addr2line -f -i` answer, every frame (inlined
# calls innermost first, then the real function) with its file:line.
# Also printed: the blob's size against .debug_line + .debug_info +
# .eh_frame of the same program.

. "${top_srcdir:-.}/tests/lib.sh"

for t in addr2line objdump readelf; do
	command -v $t >/dev/null 2>&1 || { echo "SKIP: no $t"; exit 77; }
done

test_workdir elf-a2l

secsize() {
	h=$(readelf -SW "$1" | awk -v s="$2" '{ for (i = 1; i < NF; i++)
	    if ($i == s) { print $(i + 4); exit } }')
	[ -n "$h" ] && echo $((0x$h)) || echo 0
}

# compare NAME PROGRAM REFERENCE: REFERENCE is addr2line or llvm-addr2line.
compare() {
	name=$1 bin=$2 ref=$3
	blob=$work/$name.pcln
	if ! "$LD" --elf "$bin" -o "$blob" -v 2>"$work/$name.ld"; then
		cat "$work/$name.ld" >&2
		fail "$name: pclnld --elf failed"
		return
	fi
	objdump -d --no-show-raw-insn -j .text "$bin" |
	    awk '/^ *[0-9a-f]+:\t/ { a = $1; sub(/:$/, "", a)
		print "0x" a >"'"$work/$name.addrs"'"
		print "0x" a, ($2 ~ /^(nop|int3|xchg|data16|cs)/ ? "pad" : "-") }' \
	    >"$work/$name.insns"
	# One line per address: ADDR NAME@LOC|NAME@LOC|... innermost first.
	records='function out() { if (a != "") print a, r }
		/^0x[0-9a-f]+$/ { out(); a = $1; r = ""; n = 0; next }
		{ n++ }
		n % 2 == 1 { fn = $1; next }
		{ loc = $1; if (loc ~ /:[?0]$/) loc = "?:?"
		  r = r (r == "" ? "" : "|") fn "@" loc }
		END { out() }'
	"$D" addr2line -a -f -i -e "$blob" <"$work/$name.addrs" |
	    awk "$records" >"$work/$name.ours"
	"$ref" -a -f -i -e "$bin" <"$work/$name.addrs" |
	    awk "$records" >"$work/$name.theirs"
	# A second opinion where binutils differs: binutils 2.40 names the
	# compile unit's own file for the rows of a separately placed
	# function (an out-of-line copy of a header's static inline
	# function, a .cold part) whose lines are in a header, where the
	# decoded line table (objdump --dwarf=decodedline) and
	# llvm-addr2line name the header.
	if [ "$ref" = addr2line ] && command -v llvm-addr2line >/dev/null 2>&1
	then
		llvm-addr2line -a -f -i -e "$bin" <"$work/$name.addrs" |
		    awk "$records" >"$work/$name.second"
	else
		cp "$work/$name.theirs" "$work/$name.second"
	fi
	paste -d' ' "$work/$name.ours" "$work/$name.theirs" "$work/$name.insns" \
	    "$work/$name.second" |
	    awk -v name="$name" -v ref="$ref" '
	function norm(a) { sub(/^0x0*/, "", a); return a }
	function cat_(c, why, line) {
		n[c]++; expl[c] = why
		if (n[c] <= 5) ex[c] = ex[c] "    " line "\n"
	}
	function outer(r,   k, p) { k = split(r, p, "|"); return p[k] }
	{
		oa = $1; o = $2; ta = $3; t = $4
		if (norm(oa) != norm(ta) || norm(oa) != norm($5)) { bad++; print "address mismatch: " $0; next }
		if (o ~ /^\?\?@/ && $6 == "pad") { pad++; next }
		total++
		if (o == t) { ok++; if (o ~ /@\?:\?$/) noline++; if (o ~ /\|/) inl++; next }
		if (norm($7) == norm(oa) && o == $8) { ok++; second++; next }
		line = oa " ours " o " " ref " " t
		split(outer(o), of, "@"); split(outer(t), tf, "@")
		split(o, oi, "[@|]"); split(t, ti, "[@|]")
		if (t ~ /^\?\?@/)
			cat_("noname", "addr2line knows no function there", line)
		else if (of[1] != tf[1])
			cat_("name", "different (outermost) function", line)
		else if (oi[2] != ti[2])
			cat_("line", "different file:line at the pc", line)
		else
			cat_("inline", "different inline chain (names or " \
			    "call sites)", line)
	}
	END {
		diff = total - ok
		printf "%s: %d addresses, %d match (%.3f%%), %d differ " \
		    "(not counted: %d padding instructions between " \
		    "functions, in no pcln function by design, that " \
		    "addr2line gives to the function before)\n",
		    name, total, ok, total ? 100 * ok / total : 0, diff, pad
		printf "  compared with %s: every frame of `-f -i` (function " \
		    "and file:line); %d matches are in inlined code, %d have " \
		    "no line on either side (addr2line then names the " \
		    "unit'"'"'s file, pcln none)\n", ref, inl, noline
		if (second > 0)
			printf "  %d of the matches are where %s differs and " \
			    "llvm-addr2line agrees with pcln\n", second, ref
		for (c in n)
			printf "  %-7s %6d  %s\n%s", c, n[c], expl[c], ex[c]
		if (total == 0 || bad > 0 || diff * 1000 > total)
			exit 1
	}' || fail "$name: below 99.9% (or no addresses)"
	blobsz=$(wc -c <"$blob")
	dl=$(secsize "$bin" .debug_line); di=$(secsize "$bin" .debug_info)
	eh=$(secsize "$bin" .eh_frame)
	echo "$name: blob $blobsz bytes; .debug_line ${dl:-0} + .debug_info ${di:-0} + .eh_frame ${eh:-0} = $(( ${dl:-0} + ${di:-0} + ${eh:-0} )) bytes"
	sed 's/^/  /' "$work/$name.ld"
}

# The reference for a program: binutils addr2line, except for clang's
# DWARF 5, whose inlined calls binutils 2.40 does not see (it names the
# outer function with the inlined function's line); llvm-addr2line reads
# them (and agrees with gdb).
reference() {
	if readelf -p .comment "$1" 2>/dev/null | grep -q clang &&
	    readelf --debug-dump=info "$1" 2>/dev/null |
	    grep -q '^ *Version: *5'; then
		if command -v llvm-addr2line >/dev/null 2>&1; then
			echo llvm-addr2line
		else
			echo none
		fi
	else
		echo addr2line
	fi
}

for prog in "libpcln $(real "$top_builddir/lib/libpcln.la" | sed 's/\.la$/.so/')" \
    "pclndump $(real "$top_builddir/tools/pclndump")"; do
	set -- $prog
	[ -f "$2" ] || { echo "note: $2 not built (static-only build?)"; continue; }
	ref=$(reference "$2")
	if [ "$ref" = none ]; then
		echo "note: $1 is clang DWARF 5 and llvm-addr2line is not installed; not compared"
		continue
	fi
	compare "$1" "$2" "$ref"
done

# A second compiler.
other=
if readelf -p .comment "$(real "$top_builddir/tools/pclndump")" 2>/dev/null |
    grep -q clang; then
	command -v gcc >/dev/null 2>&1 && other=gcc
else
	command -v clang >/dev/null 2>&1 && other=clang
fi
if [ -n "$other" ]; then
	if $other -O2 -g -gdwarf-4 -fomit-frame-pointer \
	    -I"$top_srcdir/runtime" -o "$work/crash-$other" \
	    "$top_srcdir/examples/crash.c" "$top_srcdir/examples/crash_handler.c" \
	    "$top_srcdir/examples/pcln_blob.c" \
	    "$top_srcdir"/runtime/*.c 2>"$work/cc.log"; then
		compare "crash-$other" "$work/crash-$other" addr2line
	else
		cat "$work/cc.log" >&2
		fail "cannot build examples/crash.c with $other"
	fi
else
	echo "note: no second compiler (gcc/clang) found; one compiler tested"
fi
[ $fails -eq 0 ]
