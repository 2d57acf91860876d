#!/bin/sh
# find-debuginfod.sh -- pclnld --elf on stripped programs whose debug
# files only a debuginfod server has: a real elfutils debuginfod, started
# here on a free port and asked on 127.0.0.1, indexing a folder of debug
# files made here (debuginfod 0.188 has no option to listen on 127.0.0.1
# alone; it serves those test files for the few seconds the test runs).
#
#   found:  the table answers as the unstripped -g build at every
#           instruction start; a second import with the server gone is
#           served from libdebuginfod's cache
#   404:    a program whose debug file the server lacks
#   down:   nothing listening on the port
#   slow:   a server that accepts and never answers (DEBUGINFOD_TIMEOUT=1)
# Each failure gives a table without lines, exit 0, and a warning naming
# the build-id and what debuginfod said; none takes more than 20 s.

. "${top_srcdir:-.}/tests/lib.sh"
use_real_tools ld
test_workdir find-debuginfod

for t in debuginfod objcopy objdump strip readelf python3; do
	command -v $t >/dev/null 2>&1 || { echo "SKIP: no $t (Debian package: ${t%%objdump})"; exit 77; }
done
src=$top_srcdir/tests/find
pids=
cleanup_hook() {
	for p in $pids; do
		kill "$p" 2>/dev/null
	done
	wait 2>/dev/null
}

free_port() {
	python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

# Wait (at most 30 s) until the server at port $1 has scanned $2 files.
wait_ready() {
	python3 - "$1" "$2" <<'EOF'
import sys, time, urllib.request
port, want = sys.argv[1], int(sys.argv[2])
end = time.time() + 30
while time.time() < end:
    try:
        m = urllib.request.urlopen("http://127.0.0.1:%s/metrics" % port,
                                   timeout=2).read().decode()
        n = sum(float(l.split()[-1]) for l in m.splitlines()
                if l.startswith('scanned_files_total{source="file"}'))
        if "ready 1" in m and n >= want:
            sys.exit(0)
    except Exception:
        pass
    time.sleep(0.2)
sys.exit(1)
EOF
}

build() {
	$CC -O2 -g "$@" -rdynamic -I"$src" -o prog "$src/prog.c" "$src/prog_util.c"
}

answers() {
	"$D" addr2line -a -f -i -e "$1" <pcs && xargs "$D" lookup "$1" <pcs
}

# imp NAME BIN CACHE URLS: pclnld --elf BIN with the server at URLS,
# libdebuginfod's cache in CACHE; its time in NAME.time (s).
imp() {
	t0=$(date +%s)
	DEBUGINFOD_URLS=$4 DEBUGINFOD_CACHE_PATH=$3 DEBUGINFOD_TIMEOUT=1 \
	    DEBUGINFOD_RETRY_LIMIT=0 DEBUGINFOD_PROGRESS= \
	    "$LD" --elf "$2" -o "$1.pcln" -v 2>"$1.log"
	rc=$?
	echo $(( $(date +%s) - t0 )) >"$1.time"
	if [ "$(cat "$1.time")" -gt 20 ]; then
		fail "$1: pclnld took $(cat "$1.time") s"
	fi
	return $rc
}

# refused NAME BIN CACHE URLS PATTERN: the import succeeds with a table
# without lines and a warning matching PATTERN.
refused() {
	ncase=$((ncase + 1))
	if imp "$1" "$2" "$3" "$4"; then
		answers "$1.pcln" >"$1.ans"
		if ! grep -q "$5" "$1.log"; then
			cat "$1.log" >&2
			fail "$1: no clear warning"
		elif grep -q '\.c:[1-9]' "$1.ans"; then
			fail "$1: the table has lines"
		else
			echo "ok: $1 in $(cat "$1.time") s: $(grep -o 'debuginfod (.*' "$1.log")"
		fi
	else
		cat "$1.log" >&2
		fail "$1: pclnld failed"
	fi
}

build || { fail "cannot build the test program"; exit 1; }
id=$(readelf -n prog | awk '/Build ID/ { print $3 }')
objdump -d --no-show-raw-insn -j .text prog |
    awk '/^ *[0-9a-f]+:\t/ { a = $1; sub(/:$/, "", a); print "0x" a }' >pcs
"$LD" --elf prog -o ref.pcln && answers ref.pcln >ref.ans
mkdir srv
objcopy --only-keep-debug prog srv/prog.debug
strip -s prog -o prog.s
# Another program (another build-id) the server does not have.
build -DPROG_OTHER=2 -fno-inline && strip -g prog -o other.s
otherid=$(readelf -n other.s | awk '/Build ID/ { print $3 }')

port=
for try in 1 2 3; do
	port=$(free_port)
	debuginfod -d "$work/db.sqlite" -p "$port" -F -t0 -g0 "$work/srv" \
	    >debuginfod.log 2>&1 &
	pid=$!
	pids="$pids $pid"
	if wait_ready "$port" 1; then
		break
	fi
	kill "$pid" 2>/dev/null
	port=
done
if [ -z "$port" ]; then
	cat debuginfod.log >&2
	fail "debuginfod did not start"
	exit 1
fi
url=http://127.0.0.1:$port

# Found: every answer as the -g build's.
ncase=$((ncase + 1))
if imp found prog.s "$work/cache" "$url"; then
	grep -q "DWARF: debuginfod $work/cache/$id/debuginfo" found.log ||
		{ cat found.log >&2; fail "found: not fetched through debuginfod"; }
	answers found.pcln >found.ans
	cmp -s ref.ans found.ans ||
		fail "found: $(diff ref.ans found.ans | grep -c '^>') answers differ from the -g build's"
	echo "ok: found: $(wc -l <pcs) pcs answered as the -g build"
else
	cat found.log >&2
	fail "found: pclnld failed"
fi
grep -q "GET /buildid/$id/debuginfo 200" debuginfod.log ||
	fail "found: the server saw no request for $id"

# 404.
refused notfound other.s "$work/cache404" "$url" \
    "no DWARF found.*debuginfod (DEBUGINFOD_URLS=$url) for build-id $otherid: no such file there (404)"

# The server gone: the first fetch is in libdebuginfod's cache.
cleanup_hook
pids=
ncase=$((ncase + 1))
if imp cached prog.s "$work/cache" "$url" &&
    grep -q "DWARF: debuginfod" cached.log; then
	echo "ok: cached: served from libdebuginfod's cache with the server down"
else
	cat cached.log >&2
	fail "cached: not served from the cache"
fi

# Down: nothing listens there now.
refused down prog.s "$work/cachedown" "$url" \
    "for build-id $id: connection refused (is the server down?)"

# Slow: a server that accepts connections and never answers.
sport=$(free_port)
python3 -c '
import socket, sys, time
s = socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(("127.0.0.1", int(sys.argv[1]))); s.listen(8)
held = []
end = time.time() + 60
s.settimeout(0.5)
while time.time() < end:
    try: held.append(s.accept())
    except OSError: pass
' "$sport" &
pids="$pids $!"
# Until it accepts connections (at most 20 s).
python3 - "$sport" <<'EOF' || fail "slow: the silent server did not start"
import socket, sys, time
end = time.time() + 20
while time.time() < end:
    try:
        socket.create_connection(("127.0.0.1", int(sys.argv[1])), 1).close()
        sys.exit(0)
    except OSError:
        time.sleep(0.1)
sys.exit(1)
EOF
refused slow prog.s "$work/cacheslow" "http://127.0.0.1:$sport" \
    "for build-id $id: timed out"

echo "$ncase cases, $fails failed"
[ "$fails" -eq 0 ]
