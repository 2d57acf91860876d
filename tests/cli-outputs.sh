#!/bin/sh
# cli-outputs.sh -- what an output path names decides how it is written
# (lib/pcln_out.h, pclnld(1) OUTPUT FILES), and no tool exits 0 after a
# failed write.
#
#  1. Kinds: standard output and a FIFO get the bytes in place; a private
#     null device (mknod) stays a device; a symbolic link stays a link and
#     its target (through a chain, into another directory, or dangling) is
#     written; a directory is refused.
#  2. An existing output keeps its mode (0600, 0640, 0755) and, as root,
#     its owner; a new one gets 0666 less the umask.
#  3. The same file named twice (-o X --map X, through ./X, a linked
#     directory, a link, standard output redirected to it, "-" twice) is
#     an error: exit 1, nothing written; a null device twice is fine.
#     Devices are private ones made with mknod (root only), so that a
#     regression cannot replace the machine's /dev/null or /dev/full.
#  4. Every output of every tool checked on write, flush and close, alone
#     and in combination: pclnld's blob, its map and standard output on
#     /dev/full, a full tmpfs and a file-size limit (ulimit -f, SIGXFSZ
#     ignored), and pclndump's text and JSON of every command: exit 1
#     (pclnld) or 3 (pclndump) with a message naming the output and the
#     cause; no existing output changes and no temporary is left.
#
# The harness exports top_builddir and top_srcdir (Makefile.am).
. "${top_srcdir:-.}/tests/lib.sh"
note() {
	echo "cli-outputs: $*"
}
mnt=
cleanup_hook() {
	[ -n "$mnt" ] && umount "$mnt" 2>/dev/null
}
test_workdir cli-outputs
cp "$top_srcdir/examples/hello.pcln" "$top_srcdir/examples/hello_lib.pcln" .
IN="hello.pcln hello_lib.pcln"
# shellcheck disable=SC2086
"$LD" -o ref.blob --map ref.map $IN || { fail "reference link"; exit 1; }
big_pcln big.pcln

mode() { stat -c %a "$1"; }
sum() { cksum <"$1"; }

# --- 1. kinds of outputs ------------------------------------------------
# shellcheck disable=SC2086
"$LD" -o - $IN >stdout.blob || fail "-o -: exit $?"
cmp -s stdout.blob ref.blob || fail "-o -: bytes differ"
mkfifo fifo
cat fifo >fifo.out &
reader=$!
# shellcheck disable=SC2086
"$LD" -o fifo $IN || fail "FIFO: exit $?"
wait "$reader"
[ -p fifo ] || fail "FIFO: no longer a FIFO"
cmp -s fifo.out ref.blob || fail "FIFO: the reader did not get the blob"
if mknod null c 1 3 2>/dev/null; then
	# shellcheck disable=SC2086
	"$LD" -o null --map null.map $IN || fail "device: exit $?"
	[ -c null ] || fail "device: replaced by $(stat -c %F null)"
	cmp -s null.map ref.map || fail "device: the map is wrong"
	note "a private null device stays a device"
else
	note "mknod refused (not root): the device case not run"
fi
echo old >target
ln -s target link1
ln -s link1 link2
# shellcheck disable=SC2086
"$LD" -o link2 $IN || fail "symlink chain: exit $?"
[ -L link2 ] && [ -L link1 ] || fail "symlink chain: a link was replaced"
cmp -s target ref.blob || fail "symlink chain: the target was not written"
mkdir sub
echo old >sub/t
ln -s sub/t relink
# shellcheck disable=SC2086
"$LD" -o relink $IN || fail "link into sub/: exit $?"
[ -L relink ] && cmp -s sub/t ref.blob || fail "link into sub/: not written through"
no_temp "link into sub/" sub
ln -s nowhere dangling
# shellcheck disable=SC2086
"$LD" -o dangling $IN || fail "dangling link: exit $?"
[ -L dangling ] && cmp -s nowhere ref.blob || fail "dangling link: target not created"
mkdir adir
# shellcheck disable=SC2086
"$LD" -o adir $IN 2>err.txt
rc=$?
[ "$rc" -eq 1 ] && grep -q '^pclnld: adir: cannot write: Is a directory$' err.txt ||
	fail "directory: exit $rc: $(cat err.txt)"
[ -d adir ] || fail "directory: replaced"
no_temp kinds

# --- 2. modes and owners --------------------------------------------------
for m in 600 640 755; do
	echo old >m$m
	chmod "$m" "m$m"
	# shellcheck disable=SC2086
	"$LD" -o "m$m" --map "m$m.map" $IN || fail "mode $m: exit $?"
	[ "$(mode "m$m")" = "$m" ] || fail "mode $m: now $(mode "m$m")"
	cmp -s "m$m" ref.blob || fail "mode $m: bytes"
done
(
	umask 027
	# shellcheck disable=SC2086
	"$LD" -o new.blob $IN
)
[ "$(mode new.blob)" = 640 ] || fail "new file under umask 027: mode $(mode new.blob)"
if [ "$(id -u)" -eq 0 ]; then
	echo old >owned
	chown 65534:65534 owned
	chmod 640 owned
	# shellcheck disable=SC2086
	"$LD" -o owned $IN || fail "owner: exit $?"
	[ "$(stat -c %u:%g:%a owned)" = 65534:65534:640 ] ||
		fail "owner: now $(stat -c %u:%g:%a owned)"
fi
no_temp modes

# --- 3. the same file named twice -----------------------------------------
# twice NAME OUT MAP [REDIRECT]: exit 1, the message, nothing written.
twice() {
	cp ref.blob X
	sumx=$(sum X)
	if [ -n "${4:-}" ]; then
		# shellcheck disable=SC2086
		"$LD" -o "$2" --map "$3" $IN >>"$4" 2>err.txt
	else
		# shellcheck disable=SC2086
		"$LD" -o "$2" --map "$3" $IN 2>err.txt
	fi
	rc=$?
	[ "$rc" -eq 1 ] && grep -q 'pclnld: .*\(named twice\|name the same file\)$' err.txt ||
		fail "twice $1: exit $rc: $(cat err.txt)"
	[ "$(sum X)" = "$sumx" ] || fail "twice $1: X changed"
	no_temp "twice $1"
}
twice same X X
twice dot X ./X
ln -s . here
twice linked-dir here/X X
ln -s X Xlink
twice link X Xlink
twice stdout - X X	# >>X: the shell does not truncate it
twice dashes - -
rm -f Y
twice new-file Y ./Y
[ -e Y ] && fail "twice new-file: Y created"
if [ -c null ]; then
	# shellcheck disable=SC2086
	"$LD" -o null --map null $IN || fail "a null device twice: exit $?"
fi

# --- 4. failed writes ----------------------------------------------------
# refused NAME STATUS CAUSE CMD...: CMD exits STATUS with a message ending
# in CAUSE.
refused() {
	name=$1 want=$2 cause=$3
	shift 3
	"$@" 2>err.txt
	rc=$?
	[ "$rc" -eq "$want" ] || fail "$name: exit $rc, want $want: $(cat err.txt)"
	grep -q "$cause\$" err.txt || fail "$name: message: $(cat err.txt)"
}
cp ref.blob keep.blob
cp ref.map keep.map
keep() {
	cmp -s keep.blob ref.blob && cmp -s keep.map ref.map ||
		fail "$1: an existing output changed"
	no_temp "$1"
}
if [ -w /dev/full ]; then
	# shellcheck disable=SC2086
	refused "blob to full stdout" 1 'standard output: cannot write: No space left on device' \
	    sh -c "exec '$LD' -o - $IN >/dev/full"
	# shellcheck disable=SC2086
	refused "blob to full stdout, map to a file" 1 'No space left on device' \
	    sh -c "exec '$LD' -o - --map keep.map $IN >/dev/full"
	keep "blob to full stdout, map to a file"
	# shellcheck disable=SC2086
	refused "map to full stdout, blob to a file" 1 'No space left on device' \
	    sh -c "exec '$LD' -o keep.blob --map - $IN >/dev/full"
	keep "map to full stdout, blob to a file"
	# A private full device (never /dev/full itself: a regression would
	# replace the machine's device node).
	if mknod full c 1 7 2>/dev/null; then
		# shellcheck disable=SC2086
		refused "blob to a full device" 1 'pclnld: full: cannot write: No space left on device' \
		    "$LD" -o full --map keep.map $IN
		keep "blob to a full device"
		# shellcheck disable=SC2086
		refused "map to a full device" 1 'pclnld: full: cannot write: No space left on device' \
		    "$LD" -o keep.blob --map full $IN
		keep "map to a full device"
		[ -c full ] || fail "full device: replaced"
	fi
	refused "pclnld --help to full stdout" 1 'No space left on device' \
	    sh -c "exec '$LD' --help >/dev/full"
	# pclndump: every command, text and JSON.
	for j in "" --json; do
		for c in "summary ref.blob" "functions ref.blob" \
		    "func ref.blob main.main" "lookup ref.blob 0x1009" \
		    "line ref.blob hello.go:6" "verify ref.blob"; do
			[ "$j" = --json ] && [ "${c%% *}" = verify ] && continue
			refused "pclndump $j $c to full stdout" 3 'No space left on device' \
			    sh -c "exec '$D' $j $c >/dev/full"
		done
	done
	refused "pclndump addr2line to full stdout" 3 'No space left on device' \
	    sh -c "exec '$D' addr2line -e ref.blob 0x1009 >/dev/full"
	refused "pclndump addr2line from stdin to full stdout" 3 'No space left on device' \
	    sh -c "echo 0x1009 | exec '$D' addr2line -e ref.blob >/dev/full"
	refused "pclndump --help to full stdout" 3 'No space left on device' \
	    sh -c "exec '$D' --help >/dev/full"
else
	note "no writable /dev/full: those cases not run"
fi

# A file-size limit of 8 blocks (4 KiB in dash, 8 KiB in bash): the
# hello blob (828 bytes) fits, the 300-function blob and map do not.
# limited STATUS CMD...: CMD under the limit, SIGXFSZ ignored.
limited() {
	(
		ulimit -f 8
		trap '' XFSZ
		"$@"
	)
}
refused "big blob over ulimit -f" 1 'pclnld: keep.blob: cannot write: File too large' \
    limited "$LD" -o keep.blob --map keep.map big.pcln
keep "big blob over ulimit -f"
# The other output to a FIFO (the limit applies to files and devices, not
# to pipes) read from outside the limit.
mkfifo sink
cat sink >/dev/null &
reader=$!
refused "big map over ulimit -f, blob to a FIFO" 1 'pclnld: keep.map: cannot write: File too large' \
    limited "$LD" -o sink --map keep.map big.pcln
keep "big map over ulimit -f, blob to a FIFO"
refused "blob to stdout over ulimit -f, map to a FIFO" 1 'standard output: cannot write: File too large' \
    limited sh -c "exec '$LD' -o - --map sink big.pcln >>out.bin"
keep "blob to stdout over ulimit -f, map to a FIFO"
kill "$reader" 2>/dev/null
wait "$reader" 2>/dev/null
"$LD" -o big.blob big.pcln || fail "big link"
refused "pclndump over ulimit -f" 3 'File too large' \
    limited sh -c "exec '$D' functions big.blob >out.txt"
refused "pclndump --json over ulimit -f" 3 'File too large' \
    limited sh -c "exec '$D' --json functions big.blob >out.txt"
rm -f out.bin out.txt

# A full tmpfs, where we may mount one (root).
mkdir m
if mount -t tmpfs -o size=64k pclnout "$work/m" 2>/dev/null; then
	mnt=$work/m
	cp ref.blob m/keep.blob
	cp ref.map m/keep.map
	dd if=/dev/zero of=m/fill bs=4096 2>/dev/null
	fullkeep() {
		cmp -s m/keep.blob ref.blob && cmp -s m/keep.map ref.map &&
		    cmp -s keep.blob ref.blob && cmp -s keep.map ref.map ||
			fail "$1: an existing output changed"
		no_temp "$1" m
		no_temp "$1"
	}
	refused "blob on a full tmpfs" 1 'pclnld: m/keep.blob: cannot write: No space left on device' \
	    "$LD" -o m/keep.blob big.pcln
	fullkeep "blob on a full tmpfs"
	refused "map on a full tmpfs, blob elsewhere" 1 'pclnld: m/keep.map: cannot write: No space left on device' \
	    "$LD" -o keep.blob --map m/keep.map big.pcln
	fullkeep "map on a full tmpfs, blob elsewhere"
	refused "both on a full tmpfs" 1 'No space left on device' \
	    "$LD" -o m/keep.blob --map m/keep.map big.pcln
	fullkeep "both on a full tmpfs"
	refused "blob to stdout, map on a full tmpfs" 1 'pclnld: m/keep.map: cannot write: No space left on device' \
	    sh -c "exec '$LD' -o - --map m/keep.map big.pcln >out.bin"
	[ -s out.bin ] && fail "blob to stdout, map on a full tmpfs: the blob was written"
	fullkeep "blob to stdout, map on a full tmpfs"
	refused "stdout on a full tmpfs" 1 'standard output: cannot write: No space left on device' \
	    sh -c "exec '$LD' -o - --map keep.map big.pcln >m/out.bin"
	fullkeep "stdout on a full tmpfs"
	refused "pclndump on a full tmpfs" 3 'No space left on device' \
	    sh -c "exec '$D' functions big.blob >m/out.txt"
	refused "pclndump --json on a full tmpfs" 3 'No space left on device' \
	    sh -c "exec '$D' --json summary big.blob >m/out.txt"
	rm -f m/out.bin m/out.txt
	umount "$mnt" && mnt=
	note "full tmpfs checked"
else
	note "cannot mount a tmpfs (not root): the full file system not checked"
fi

if [ "$fails" -ne 0 ]; then
	echo "cli-outputs: $fails failure(s)" >&2
	exit 1
fi
exit 0
