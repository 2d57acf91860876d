#!/bin/sh
# elf-cfi.sh -- the pcsp table pclnld --elf makes agrees with the CFI at
# every instruction start of .text where the CFA is sp-based: pcsp =
# K - 8 where `readelf --debug-dump=frames-interp` says the CFA is
# rsp+K (x86-64: the return address is at sp + pcsp, the runtime's
# PCLNRT_CONV_STACK convention).  Where the CFA is rbp+K, pcsp must be -1
# (unknown) and pcdata 3 (PCLN_PCDATA_CFA) K; where rbp is saved at
# CFA-M, pcdata 4 (PCLN_PCDATA_FPSAVE) must be M, else 0 or absent, in
# a program without an rbp-based CFA too (a whole-process walk may need
# it to reach another object's).
# Other rules must read pcsp -1 and no CFA rule; counts are printed.

. "${top_srcdir:-.}/tests/lib.sh"

[ "$(uname -m)" = x86_64 ] || { echo "SKIP: x86-64 only"; exit 77; }
for t in objdump readelf; do
	command -v $t >/dev/null 2>&1 || { echo "SKIP: no $t"; exit 77; }
done
test_workdir elf-cfi

check() {
	name=$1 bin=$2
	"$LD" --elf "$bin" -o "$work/$name.pcln" || { fail "$name: pclnld"; return; }
	# CFI rows: START END PCSP CFA FPSAVE expected (x: neither rule).
	readelf --debug-dump=frames-interp "$bin" | awk '
	function hex(h,   i, n) { n = 0; h = tolower(h)
		for (i = 1; i <= length(h); i++) n = n * 16 + index("0123456789abcdef", substr(h, i, 1)) - 1
		return n }
	function flush() { if (nrow == 0 && fde) { rs[0] = lo; rv[0] = cie[ciep]; nrow = 1 }
		for (i = 0; i < nrow; i++)
			if (rv[i] != "")
				printf "%.0f %.0f %s\n", rs[i], (i + 1 < nrow ? rs[i + 1] : hi), rv[i]
		nrow = 0; fde = 0 }
	# "PCSP CFA FPSAVE" for a row: CFA column C, rbp column R.
	function val(c, r,   k, sv) {
		sv = 0; if (r ~ /^c-[0-9]+$/) { sv = r; sub(/^c-/, "", sv) }
		if (c ~ /^rsp\+[0-9]+$/) { k = c; sub(/^rsp\+/, "", k); return (k - 8) " 0 " sv }
		if (c ~ /^rbp\+[0-9]+$/) { k = c; sub(/^rbp\+/, "", k); return "-1 " k " " sv }
		return "x x " sv }
	$1 == "LOC" { rbpcol = 0; for (i = 1; i <= NF; i++) if ($i == "rbp") rbpcol = i; next }
	# .eh_frame and .debug_frame number their CIEs separately.
	/^Contents of the / { flush(); sect++; next }
	/ CIE / { flush(); incie = 1; cieoff = sect ":" $1; rbpcol = 0; next }
	/ FDE / { flush(); incie = 0; fde = 1; ciep = $4; sub(/^cie=/, "", ciep); ciep = sect ":" ciep; rbpcol = 0
		r = $5; sub(/^pc=/, "", r); split(r, p, /\.\./)
		lo = hex(p[1]); hi = hex(p[2]); next }
	/^[0-9a-f]+ / && NF >= 2 && $1 != "LOC" {
		r = rbpcol ? $rbpcol : "u"
		if (incie) { if (!(cieoff in cie)) cie[cieoff] = val($2, r); next }
		if (fde) { rs[nrow] = hex($1); rv[nrow] = val($2, r); nrow++ } }
	END { flush() }' 2>"$work/awk.err" | sort -n -k1,1 >"$work/$name.rows"
	if [ -s "$work/awk.err" ]; then
		fail "$name: awk: $(cat "$work/awk.err")"
		return
	fi
	objdump -d --no-show-raw-insn -j .text "$bin" |
	    awk '/^ *[0-9a-f]+:\t/ { a = $1; sub(/:$/, "", a); print a }' |
	    while read -r a; do echo $((0x$a)); done >"$work/$name.insns"
	# Each instruction with its CFI row's expectation.
	awk 'NR == FNR { s[NR] = $1; e[NR] = $2; v[NR] = $3 " " $4 " " $5; n = NR; next }
	     { while (i < n && e[i + 1] <= $1) i++
	       if (i < n && s[i + 1] <= $1) printf "0x%x %s\n", $1, v[i + 1] }' \
	    i=0 "$work/$name.rows" "$work/$name.insns" >"$work/$name.exp"
	# Got: PCSP CFA FPSAVE from pclndump lookup (? for an absent table).
	cut -d' ' -f1 "$work/$name.exp" | "$D" lookup "$work/$name.pcln" |
	    awk '{ sp = "none"; c = "?"; f = "?"
		for (i = 1; i <= NF; i++) {
			if ($i ~ /^sp=/) { sp = $i; sub(/^sp=/, "", sp) }
			if ($i ~ /^pcdata\[3\]=/) { c = $i; sub(/^.*=/, "", c) }
			if ($i ~ /^pcdata\[4\]=/) { f = $i; sub(/^.*=/, "", f) } }
		print sp, c, f }' >"$work/$name.got"
	# FPSAVE is written wherever a function saves rbp, in every
	# program (a whole-process walk may need it in another object's).
	paste -d' ' "$work/$name.exp" "$work/$name.got" |
	    awk -v name="$name" '
	function z(v) { return v == "?" ? 0 : v }
	{ total++; ok = 1 }
	$2 == "x" { other++; ok = ($5 == -1 && z($6) == 0) }
	$2 != "x" && $2 != -1 { spb++; ok = ($2 == $5 && z($6) == 0) }
	$2 == -1 { fpb++; ok = ($5 == -1 && $6 == $3) }
	{ if (z($7) != $4) ok = 0; if ($4 != 0) saves++ }
	!ok { bad++; if (bad <= 5) print "  pc, expected pcsp cfa fpsave, got: " $0 }
	END { printf "%s: %d instructions with CFI: %d sp-based, %d rbp-based, %d neither; %d with rbp saved; %d wrong\n",
		name, total, spb, fpb, other, saves, bad
	      exit (bad > 0 || total == 0) }' || fail "$name: pcsp or the CFA rules disagree with the CFI"
}

check crash "$top_builddir/examples/crash-nopcln"
check pclndump "$(real "$top_builddir/tools/pclndump")"
so=$(real "$top_builddir/lib/libpcln.la" | sed 's/\.la$/.so/')
[ -f "$so" ] && check libpcln "$so"
[ $fails -eq 0 ]
