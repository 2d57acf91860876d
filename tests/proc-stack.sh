#!/bin/sh
# proc-stack.sh -- pclndump stack --pid on a live process
# (tests/proc/target: a PIE program, its shared library, a plugin loaded
# with dlopen, a thread blocked in read(2), one in pthread_cond_wait
# inside the library with an inlined call, one sleeping in the plugin,
# one running), against eu-stack -p and gdb attached to the same process:
# the same frames, thread by thread (tests/proc-stacks.py); a Go program
# (tests/perf/prog.go), walked with its own table.  Then bad
# input, each a clear message, a non-zero exit and a target that runs on
# afterwards (never killed, never left stopped):
#   - a pid that does not exist;
#   - no ptrace permission (pclndump run as user nobody), and a process
#     traced already (by a child of its own);
#   - a corrupt stack (a thread wrote over its return address): that
#     thread's walk stops there, saying why, the others are complete;
#   - a mapping that disappears (the plugin unloaded under a sleeping
#     thread): that walk stops at a return address in no mapping;
#   - the process killed while its threads are stopped
#     (PCLNDUMP_TEST_STOPPED_MS holds them): exit 3, "exited during the
#     walk", and the target's threads were in tracing stop meanwhile.

. "${top_srcdir:-.}/tests/lib.sh"
use_real_tools
T=$top_builddir/tests/proc/target

case $(uname -m) in
x86_64) ;;
*) echo "SKIP: the walk is tested on x86-64 stacks only"; exit 77 ;;
esac
for t in eu-stack gdb python3; do
	command -v $t >/dev/null 2>&1 || { fail "no $t (run scripts/setup.sh)"; exit 1; }
done
test_workdir proc-stack
. "$top_srcdir/tests/proc/start.sh"
cleanup_hook() { target_kill_all; }
# Start the target with ARGS; sets $pid and $out (its announcements).
start() { target_run "$work" "$@"; }

# Is every thread of $1 running (no tracing stop), the process alive?
running() {
	kill -0 "$1" 2>/dev/null || return 1
	for s in /proc/"$1"/task/*/stat; do
		st=$(sed 's/.*) \(.\).*/\1/' "$s" 2>/dev/null)
		case $st in t|T|Z|X) return 1 ;; esac
	done
	return 0
}

# --- against eu-stack and gdb ---------------------------------------------
start -n 1
spin=$(awk '$3 == "spin" { print $2 }' "$out")
rc=0
"$D" --json stack --pid $pid >ours.json 2>ours.err || rc=$?
[ $rc -eq 0 ] || { cat ours.err; fail "stack --pid: exit $rc, expected 0"; }
running $pid || fail "the target is not running after pclndump stack"
"$D" stack --pid $pid >ours.txt 2>&1 || fail "stack --pid (text) failed"
head -2 ours.txt | grep -q "^PID $pid - process" ||
    fail "text: no 'PID $pid - process' line"
[ "$(grep -c '^TID ' ours.txt)" -eq "$(ls /proc/$pid/task | wc -l)" ] ||
    fail "text: not one TID line per thread"
grep -q 'lib_inlined \[inlined\] at .*target_lib.c:' ours.txt ||
    fail "text: the inlined call in the library is missing"
eu-stack -p $pid >eu.txt 2>eu.err || { cat eu.err; fail "eu-stack failed"; }
gdb -q -nx -batch -p $pid -x "$top_srcdir/tests/proc-gdb.py" >gdb.txt 2>&1
running $pid || fail "the target is not running after eu-stack and gdb"
python3 "$top_srcdir/tests/proc-stacks.py" ours.json eu.txt gdb.txt $spin ||
    fail "the stacks differ from eu-stack's or gdb's"
# The running thread: whatever its pc, its walk is complete.
python3 - "$spin" <<'PY' || fail "the running thread's walk"
import json, sys
t = [t for t in json.load(open("ours.json"))["threads"]
     if t["tid"] == int(sys.argv[1])][0]
names = [f["function"] for f in t["frames"]]
assert t["stop"]["complete"], t["stop"]
assert "t_spin" in names, names
print("the running thread: %s" % " < ".join(n or "??" for n in names))
PY

# --- a Go program ---------------------------------------------------------
# Its table is its .gopclntab, converted; the walk of the thread running
# main.fib reaches runtime.goexit (Go's own pcdata 3, read as a CFA rule,
# once sent it off the stack at the first frame).
ncase=$((ncase + 1))
if ! use_go "walking a Go program"; then
	:
elif ! (cd "$top_srcdir/tests/perf" && go build -o "$work/goprog" \
    prog.go) >gobuild.log 2>&1; then
	fail "go build: $(tail -n 3 gobuild.log)"
else
	"$work/goprog" >/dev/null &
	gopid=$!
	sleep 0.2
	"$D" --json stack --pid $gopid >go.json 2>go.err ||
		fail "Go: stack --pid exited $?: $(cat go.err)"
	kill $gopid 2>/dev/null
	wait $gopid 2>/dev/null
	python3 - <<'PY' || fail "Go: no thread walked from main.fib to runtime.goexit"
import json
want = ["main.work", "main.main", "runtime.main", "runtime.goexit"]
for t in json.load(open("go.json"))["threads"]:
    names = [f["function"] for f in t["frames"]]
    if names and names[0] == "main.fib":
        rest = [n for n in names if n != "main.fib"]
        assert rest == want and t["stop"]["complete"], (names, t["stop"])
        print("Go: %d frames: main.fib ... %s" % (len(names), " < ".join(rest)))
        break
else:
    raise SystemExit("no thread in main.fib")
PY
fi

# --- bad input --------------------------------------------------------------
check_bad() {	# TAG EXPECTED-STATUS MESSAGE-PATTERN; output in bad.out/err
	tag=$1 want=$2 pat=$3
	if [ "$rc" -ne "$want" ]; then
		fail "$tag: exit $rc, expected $want"
	fi
	grep -q -- "$pat" bad.err || { cat bad.err; fail "$tag: no message matching '$pat'"; }
	echo "$tag: exit $rc: $(head -1 bad.err)"
}

rc=0; "$D" stack --pid 999999999 >bad.out 2>bad.err || rc=$?
check_bad "no such pid" 3 "no such process"
rc=0; "$D" stack >bad.out 2>bad.err || rc=$?
check_bad "no --pid" 2 "\-\-pid PID is required"
rc=0; "$D" stack --pid 12x >bad.out 2>bad.err || rc=$?
check_bad "a bad pid" 2 "expected a process id"

if command -v setpriv >/dev/null 2>&1 && [ "$(id -u)" -eq 0 ]; then
	rc=0
	setpriv --reuid=65534 --regid=65534 --clear-groups \
	    "$D" stack --pid $pid >bad.out 2>bad.err || rc=$?
	check_bad "no ptrace permission" 3 "Permission denied (another user's process"
	running $pid || fail "no permission: the target is not running"
else
	echo "note: not root or no setpriv: the no-permission case is not run"
fi

kill $pid
start -s -q -t
grep -q '^tracer ' "$out" || fail "the target's tracer did not start"
rc=0; "$D" stack --pid $pid >bad.out 2>bad.err || rc=$?
check_bad "traced already" 3 "PTRACE_SEIZE.*Operation not permitted (the process .*traced already"
running $pid || fail "traced already: the target is not running"
kill $pid

start -s -c
corrupt=$(awk '$3 == "corrupt" { print $2 }' "$out")
plugin=$(awk '$3 == "plugin" { print $2 }' "$out")
rc=0; "$D" stack --pid $pid >bad.out 2>bad.err || rc=$?
[ $rc -eq 1 ] || fail "corrupt stack: exit $rc, expected 1"
awk -v t="$corrupt" '$1 == "TID" { on = ($2 == t ":") } on' bad.out >corrupt.txt
grep -q 'corrupt_and_wait' corrupt.txt &&
    grep -q 'walk stopped: pc in no known function at pc 0xdead0000beef.*a bad return address' corrupt.txt ||
    { cat corrupt.txt; fail "corrupt stack: no frame, or no reason"; }
[ "$(grep -c 'walk stopped' bad.out)" -eq 1 ] ||
    fail "corrupt stack: other threads' walks stopped too"
running $pid || fail "corrupt stack: the target is not running"
echo "corrupt stack: $(grep 'walk stopped' corrupt.txt)"

kill -USR2 $pid
i=0
while ! grep -q '^unloaded' "$out"; do
	i=$((i + 1)); [ $i -le 100 ] || { fail "the plugin was not unloaded"; break; }
	sleep 0.05
done
rc=0; "$D" stack --pid $pid >bad.out 2>bad.err || rc=$?
[ $rc -eq 1 ] || fail "unloaded plugin: exit $rc, expected 1"
awk -v t="$plugin" '$1 == "TID" { on = ($2 == t ":") } on' bad.out >plugin.txt
grep -q 'walk stopped: pc in no known function.*in no mapping' plugin.txt ||
    { cat plugin.txt; fail "unloaded plugin: no stop reason"; }
running $pid || fail "unloaded plugin: the target is not running"
echo "mapping gone: $(grep 'walk stopped' plugin.txt)"

rc=0
PCLNDUMP_TEST_STOPPED_MS=1500 "$D" stack --pid $pid >bad.out 2>bad.err &
dpid=$!
i=0
while ! grep -q 'threads stopped' bad.err 2>/dev/null; do
	i=$((i + 1)); [ $i -le 100 ] || break
	sleep 0.02
done
st=$(sed 's/.*) \(.\).*/\1/' /proc/$pid/stat)
[ "$st" = t ] || fail "while held: the target's state is '$st', expected t (tracing stop)"
kill -9 $pid
wait $dpid || rc=$?
check_bad "exits mid-walk" 3 "exited during the walk"

if [ "$fails" -eq 0 ]; then
	echo "proc-stack: ok"
	exit 0
fi
exit 1
