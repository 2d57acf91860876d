# tests/lazy.sh -- the blobs and pcs the lazy-checking tests share
# (cli-a2l-lazy.sh, cli-dump-lazy.sh); sourced after tests/lib.sh, in the
# work directory.
#
# lazy_blobs: link hello.blob (with a trailer), hello12.blob (plain Go
# 1.2) and be32.blob (big-endian 32-bit), and make from hello.blob
#   badsum.blob  the checksum wrong (bytes [len - 16, len - 8) of the
#                footer), nothing else;
#   bad.blob     main.greet [0x1090, 0x10c8)'s pcln table damaged: its
#                first row becomes (value delta, pc delta 0x7f), which runs
#                past the function's end; $off is the table's offset.
# text_pcs BLOB: every pc from 16 bytes before BLOB's text to 16 after it,
# one per line, in hex.
# flips BLOB STEP: write flipN.blob (byte N xor 0x5a) and cutN.blob (the
# first N bytes) for every STEP-th N; print the Ns (needs python3).

lazy_blobs() {
	cp "$top_srcdir/examples/hello.pcln" "$top_srcdir/examples/hello_lib.pcln" .
	"$LD" -o hello.blob hello.pcln hello_lib.pcln &&
	    "$LD" --go12 -o hello12.blob hello.pcln hello_lib.pcln &&
	    "$LD" -o be32.blob "$top_srcdir/tests/pclndump/be32.pcln" ||
	    { echo "FAIL: pclnld" >&2; exit 1; }
	len=$(wc -c <hello.blob)
	cp hello.blob badsum.blob
	printf '\125' | dd of=badsum.blob bs=1 seek=$((len - 12)) \
	    conv=notrunc 2>/dev/null
	off=$("$D" func hello.blob main.greet | sed -n 's/^  pcln (table at \(0x[0-9a-f]*\)):$/\1/p')
	[ -n "$off" ] || { echo "FAIL: no pcln table offset for main.greet" >&2; exit 1; }
	[ "$("$D" func hello.blob '*' | grep -c "(table at $off)")" -eq 1 ] ||
	    fail "main.greet's pcln table at $off is shared"
	cp hello.blob bad.blob
	printf '\177' | dd of=bad.blob bs=1 seek=$((off + 1)) conv=notrunc \
	    2>/dev/null
}

text_pcs() {
	"$D" summary "$1" | sed -n 's/^text: *\[0x\([0-9a-f]*\), 0x\([0-9a-f]*\))$/\1 \2/p' |
	    { read -r lo hi
	      i=$((0x$lo - 16))
	      while [ "$i" -lt $((0x$hi + 16)) ]; do
		printf '0x%x\n' "$i"
		i=$((i + 1))
	      done; }
}

flips() {
	python3 - "$1" "$2" <<'PY'
import sys
b = open(sys.argv[1], "rb").read()
for i in range(0, len(b), int(sys.argv[2])):
    c = bytearray(b)
    c[i] ^= 0x5a
    open("flip%d.blob" % i, "wb").write(c)
    open("cut%d.blob" % i, "wb").write(b[:i])
    print(i)
PY
}
