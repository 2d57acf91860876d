#!/bin/sh
# cli-signals.sh -- no temporary survives a catchable signal, and stale
# ones are removed only when provably pclnld's own (lib/pcln_out.h).
#
#  1. SIGTERM, SIGINT, SIGHUP, SIGQUIT and SIGPIPE while pclnld holds its
#     temporary (it has written the blob's and waits to write the map to
#     a FIFO nobody reads), and SIGXFSZ from a file-size limit during the
#     write: pclnld dies of the signal (status 128 + N), the temporary is
#     gone and the earlier output keeps its bytes.
#  2. A million-function link (bench/gen.c's input) killed with SIGTERM
#     while it writes its 200 MB blob: nothing is left.
#  3. SIGKILL cannot be caught: its temporary stays, and the next pclnld
#     writing that output removes it.  Of planted look-alikes it removes
#     only the unlocked one of a dead pid; it keeps those of a running
#     pid, one locked by a live process, another output's, another
#     user's, a symbolic link, a directory and other names.
#
# The harness exports top_builddir and top_srcdir (Makefile.am).
. "${top_srcdir:-.}/tests/lib.sh"
GEN=$top_builddir/bench/pcln-bench-gen
note() {
	echo "cli-signals: $*"
}
pids=
cleanup_hook() {
	for p in $pids; do
		kill -KILL "$p" 2>/dev/null
	done
}
test_workdir cli-signals
cp "$top_srcdir/examples/hello.pcln" "$top_srcdir/examples/hello_lib.pcln" .
"$LD" -o ref.blob hello.pcln hello_lib.pcln || { fail "reference link"; exit 1; }
sum() { cksum <"$1"; }
temps() { ls -a "${1:-.}" | grep '\.pcln-[0-9]*-' ; }

# Wait up to SECS (default 30) seconds for a temporary of pclnld PID in
# the current directory.
wait_temp() {
	i=0
	while [ "$i" -lt "$(( ${2:-30} * 100 ))" ]; do
		ls -a | grep -q "\\.pcln-$1-" && return 0
		kill -0 "$1" 2>/dev/null || return 1
		sleep 0.01
		i=$((i + 1))
	done
	return 1
}

# Send SIG to PID and wait for it, at most 60 s (a signal that does not
# kill it would hang the test): its exit status, 137 if it had to be
# killed.
kill_wait() {
	kill "-$1" "$2"
	( sleep 60; kill -KILL "$2" 2>/dev/null ) &
	dog=$!
	wait "$2"
	st=$?
	kill "$dog" 2>/dev/null
	wait "$dog" 2>/dev/null
	return "$st"
}

# The signal's number (Linux), for the exit status 128 + N.
signum() {
	case $1 in
	HUP) echo 1 ;; INT) echo 2 ;; QUIT) echo 3 ;; PIPE) echo 13 ;;
	TERM) echo 15 ;; XFSZ) echo 25 ;; *) echo 0 ;;
	esac
}

# --- 1. catchable signals --------------------------------------------------
mkfifo fifo
for sig in TERM INT HUP QUIT; do
	cp ref.blob out.blob
	s0=$(sum out.blob)
	# A background command of a shell without job control starts with
	# SIGINT and SIGQUIT ignored, under nohup SIGHUP is ignored, and
	# pclnld keeps a signal ignored on entry ignored: give every signal
	# its default.
	(ulimit -c 0; exec env --default-signal "$LD" -o out.blob \
	    --map fifo hello.pcln hello_lib.pcln) 2>err.txt &
	p=$!
	pids="$pids $p"
	if ! wait_temp "$p"; then
		fail "SIG$sig: no temporary seen: $(cat err.txt)"
		continue
	fi
	kill_wait "$sig" "$p"
	rc=$?
	want=$((128 + $(signum "$sig")))
	[ "$rc" -eq "$want" ] || fail "SIG$sig: exit $rc, want $want: $(cat err.txt)"
	[ -z "$(temps)" ] || fail "SIG$sig: temporary left: $(temps)"
	[ "$(sum out.blob)" = "$s0" ] || fail "SIG$sig: out.blob changed"
done
# SIGPIPE: the map to a pipe whose reader has gone.
cp ref.blob out.blob
s0=$(sum out.blob)
rcfile=$work/pipe.rc
{ sleep 0.3; env --default-signal "$LD" -o out.blob --map - \
    hello.pcln hello_lib.pcln 2>err.txt; echo $? >"$rcfile"; } | true
rc=$(cat "$rcfile")
[ "$rc" -eq $((128 + $(signum PIPE))) ] || fail "SIGPIPE: exit $rc: $(cat err.txt)"
[ -z "$(temps)" ] || fail "SIGPIPE: temporary left: $(temps)"
[ "$(sum out.blob)" = "$s0" ] || fail "SIGPIPE: out.blob changed"
# SIGXFSZ, by the kernel, in the middle of the blob's write (16 KiB).
big_pcln big.pcln
(ulimit -f 8; exec env --default-signal "$LD" -o out.blob big.pcln) 2>err.txt
rc=$?
[ "$rc" -eq $((128 + $(signum XFSZ))) ] || fail "SIGXFSZ: exit $rc: $(cat err.txt)"
[ -z "$(temps)" ] || fail "SIGXFSZ: temporary left: $(temps)"
[ "$(sum out.blob)" = "$s0" ] || fail "SIGXFSZ: out.blob changed"

# --- 2. a million functions, killed while writing --------------------------
if [ -x "$GEN" ]; then
	"$GEN" 1000000 >million.pcln || fail "gen"
	cp ref.blob million.blob
	s0=$(sum million.blob)
	env --default-signal "$LD" -o million.blob --map fifo million.pcln \
	    2>err.txt &
	p=$!
	pids="$pids $p"
	if wait_temp "$p" 300; then
		t=$(temps)
		size=$(stat -c %s "$t" 2>/dev/null || echo 0)
		kill_wait TERM "$p"
		rc=$?
		[ "$rc" -eq $((128 + $(signum TERM))) ] || fail "million: exit $rc: $(cat err.txt)"
		[ -z "$(temps)" ] || fail "million: temporary left: $(temps)"
		[ "$(sum million.blob)" = "$s0" ] || fail "million: output changed"
		note "a million functions: killed with $size bytes of the temporary written"
	else
		fail "million: no temporary seen: $(cat err.txt)"
	fi
	rm -f million.pcln million.blob
else
	note "bench/pcln-bench-gen not built: the million-function case not run"
fi

# --- 3. stale temporaries --------------------------------------------------
cp ref.blob out.blob
"$LD" -o out.blob --map fifo hello.pcln hello_lib.pcln 2>err.txt &
p=$!
pids="$pids $p"
wait_temp "$p" || fail "SIGKILL: no temporary seen"
killed=$(temps)
kill -KILL "$p"
wait "$p" 2>/dev/null
[ -n "$(temps)" ] || fail "SIGKILL: the temporary went (it cannot be caught)"
# A pid that surely is no process: one that has just ended.
sh -c 'echo $$ >dead.pid'
dead=$(cat dead.pid)
kill -0 "$dead" 2>/dev/null && fail "pid $dead still runs"
sleep 300 &
live=$!
pids="$pids $live"
echo x >".out.blob.pcln-$dead-aaaaaa"			# stale: removed
echo x >".out.blob.pcln-$live-bbbbbb"			# a running pid
echo x >".out.blob.pcln-$dead-cccccc"			# locked: by us
exec 9>>".out.blob.pcln-$dead-cccccc"
flock -n 9 || fail "cannot lock"
echo x >".other.blob.pcln-$dead-dddddd"			# another output
echo x >".out.blob.pcln-$dead-eeeeee.bak"		# another name
echo x >".out.blob.pcln-x$dead-ffffff"			# another name
ln -s out.blob ".out.blob.pcln-$dead-gggggg"		# a link
mkdir ".out.blob.pcln-$dead-hhhhhh"			# a directory
keep=".out.blob.pcln-$live-bbbbbb .out.blob.pcln-$dead-cccccc
.other.blob.pcln-$dead-dddddd .out.blob.pcln-$dead-eeeeee.bak
.out.blob.pcln-x$dead-ffffff .out.blob.pcln-$dead-gggggg
.out.blob.pcln-$dead-hhhhhh"
if [ "$(id -u)" -eq 0 ]; then
	echo x >".out.blob.pcln-$dead-iiiiii"		# another user's
	chown 65534 ".out.blob.pcln-$dead-iiiiii"
	keep="$keep .out.blob.pcln-$dead-iiiiii"
fi
"$LD" -o out.blob hello.pcln hello_lib.pcln || fail "the run after SIGKILL: exit $?"
cmp -s out.blob ref.blob || fail "the run after SIGKILL: wrong output"
[ -e "$killed" ] && fail "SIGKILL's temporary $killed was not removed"
[ -e ".out.blob.pcln-$dead-aaaaaa" ] && fail "a stale temporary was not removed"
for f in $keep; do
	[ -e "$f" ] || [ -L "$f" ] || fail "$f was removed"
done
exec 9>&-

if [ "$fails" -ne 0 ]; then
	echo "cli-signals: $fails failure(s)" >&2
	exit 1
fi
exit 0
