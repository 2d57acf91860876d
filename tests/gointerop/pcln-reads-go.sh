#!/bin/sh
# pcln-reads-go.sh -- libpcln reads real Go binaries.  The installed Go
# builds tests/gointerop/prog for several targets (pointer size 4 and 8,
# quantum 1, 2 and 4, both byte orders, and a PIE: the first Go build
# in a fresh build tree compiles the runtime for each, about 10 s each;
# later runs take seconds); for each binary:
#   - pclnjson imports its .gopclntab (pcln_go_import_elf), writes it as a
#     pcln blob and prints what libpcln's reader says;
#   - gosymcheck: Go's debug/gosym on the binary agrees with that for every
#     function, at every row boundary, in the gaps, and for LineToPC on a
#     sample of (file, line) pairs; and debug/gosym on the re-emitted blob
#     agrees too;
#   - `go tool addr2line` on the binary, pclnjson --a2l and pclndump's
#     addr2line mode on it give the same answers at sampled pcs in every function; in gaps Go answers
#     the function before with line -1, pcln "no function".
set -eu
. "$top_srcdir/tests/gointerop/go-env.sh"

dir=$work/pcln-reads-go
rm -rf "$dir"
mkdir -p "$dir"
fails=0
n=0
fail() {
	echo "FAIL: $*" >&2
	fails=$((fails + 1))
}

native=$(go env GOARCH)
# target:   name  GOARCH  extra build flags
targets="native:$native: 386:386: ppc64:ppc64: s390x:s390x:"
[ "$native" != amd64 ] || targets="$targets pie:amd64:-buildmode=pie"

for t in $targets; do
	name=${t%%:*}
	rest=${t#*:}
	arch=${rest%%:*}
	flags=${rest#*:}
	bin=$dir/prog-$name
	# shellcheck disable=SC2086
	if ! GOARCH=$arch go build $flags -o "$bin" "$gointerop"/prog/*.go; then
		fail "go build GOARCH=$arch $flags"
		continue
	fi
	n=$((n + 1))
	if ! "$pclnjson" --out "$bin.pcln" "$bin" > "$bin.json"; then
		fail "pclnjson $bin"
		continue
	fi
	"$gosymcheck" -elf -subsetfiles -linetopc 25 -pcs "$bin.pcs" \
	    "$bin" "$bin.json" || fail "gosymcheck on $bin"
	"$gosymcheck" -linetopc 25 "$bin.pcln" "$bin.json" ||
	    fail "gosymcheck on the re-emitted $bin.pcln"
	# Go 1.19's addr2line looks for .gopclntab only and so finds nothing
	# in a PIE (whose table is .data.rel.ro.gopclntab): not compared.
	[ "$name" != pie ] || continue
	go tool addr2line "$bin" < "$bin.pcs.in" > "$bin.a2l.go"
	"$pclnjson" --a2l "$bin" < "$bin.pcs.in" > "$bin.a2l.pcln" 2>/dev/null
	cmp "$bin.a2l.go" "$bin.a2l.pcln" ||
	    fail "go tool addr2line and pcln disagree on $bin (diff $bin.a2l.go $bin.a2l.pcln)"
	[ -s "$bin.a2l.go" ] || fail "no addr2line output for $bin"
	# pclndump reads the Go binary itself (converting its table) and, in
	# addr2line mode, must print what Go's addr2line prints (Go spells
	# binutils' "??" as "?").
	"$pclndump" addr2line -f -e "$bin" < "$bin.pcs.in" |
	    sed -e 's/^??$/?/' -e 's/^??:0$/?:0/' > "$bin.a2l.dump" ||
	    fail "pclndump addr2line on $bin"
	cmp "$bin.a2l.go" "$bin.a2l.dump" ||
	    fail "go tool addr2line and pclndump disagree on $bin (diff $bin.a2l.go $bin.a2l.dump)"
	"$pclndump" verify "$bin" > /dev/null ||
	    fail "pclndump verify on $bin (converted)"
	go tool addr2line "$bin" < "$bin.pcs.gap" | cmp - "$bin.pcs.gap.go" ||
	    fail "go tool addr2line in the gaps of $bin"
	"$pclnjson" --a2l "$bin" < "$bin.pcs.gap" 2>/dev/null |
	    grep -v -x -e '?' -e '?:0' && fail "pcln finds a function in a gap of $bin"
done

# A real Go 1.15 table (Go 1.2 layout, funcID and an 8-bit nfuncdata
# packed in the Func's last word): the one debug/gosym's own tests use,
# shipped with the Go sources (golang-src).
gz=$(go env GOROOT)/src/debug/gosym/testdata/pcln115.gz
if [ -f "$gz" ]; then
	n=$((n + 1))
	gzip -dc "$gz" > "$dir/pcln115"
	if "$pclnjson" --out "$dir/pcln115.pcln" "$dir/pcln115" \
	    > "$dir/pcln115.json" 2> "$dir/pcln115.err"; then
		grep -q 'Go 12 layout (packed nfuncdata), 1025 functions' \
		    "$dir/pcln115.err" || fail "pcln115: $(cat "$dir/pcln115.err")"
		"$gosymcheck" -text 0x1001000 "$dir/pcln115" "$dir/pcln115.json" ||
		    fail "gosymcheck on Go 1.15's pcln115"
		"$gosymcheck" "$dir/pcln115.pcln" "$dir/pcln115.json" ||
		    fail "gosymcheck on pcln115 re-emitted"
	else
		fail "pclnjson on Go 1.15's pcln115: $(cat "$dir/pcln115.err")"
	fi
else
	echo "pcln-reads-go: note: $gz not found (install golang-src):" \
	    "the real Go 1.15 table is not checked" >&2
fi

echo "pcln-reads-go: $n Go binaries checked with $(go version), $fails failed"
[ $fails -eq 0 ]
