#!/bin/sh
# proc-a2l.sh -- pclndump addr2line --pid on a live process
# (tests/proc/target): against eu-addr2line --pid on 2000 addresses
# sampled from its executable mappings (tests/proc-a2l.py), identical in
# the test's own objects (the PIE program, its shared library, its
# plugin) but where pcln puts an address in no function (padding), the
# other differences counted by kind; the text form (the object line with
# its build-id) and JSON; the vDSO, read from the process's memory; an
# address in [stack]; a plugin whose file was deleted since it was mapped
# (found through /proc/PID/map_files), and one whose path was given to
# another file (renamed over it, as a package upgrade does: the answers
# and the build-id are still the mapped object's); a mapping that
# disappears while pclndump runs (a
# deleted plugin unloaded: "??", a clear message, exit 1); bad input.

. "${top_srcdir:-.}/tests/lib.sh"
use_real_tools
T=$top_builddir/tests/proc/target
P=$top_builddir/tests/proc/target-plugin.so

for t in eu-addr2line python3 nm readelf; do
	command -v $t >/dev/null 2>&1 || { fail "no $t (run scripts/setup.sh)"; exit 1; }
done
test_workdir proc-a2l
. "$top_srcdir/tests/proc/start.sh"
cleanup_hook() { target_kill_all; }
# Start the target with ARGS; sets $pid and $out (its announcements).
start() { target_run "$work" "$@"; }
# The run-time address of SYMBOL of the object mapped from FILE in $pid.
addr_of() {
	file=$(readlink -f "$1")
	base=$(awk -v f="$file" '$6 == f && $3 == "00000000" { split($1, a, "-"); print a[1]; exit }' /proc/$pid/maps)
	off=$(nm "$1" | awk -v s="$2" '$3 == s { print $1; exit }')
	[ -n "$base" ] && [ -n "$off" ] || { fail "no $2 in $1 mapped"; echo 0; return; }
	printf '0x%x\n' $((0x$base + 0x$off + 4))
}

# --- against eu-addr2line ---------------------------------------------------
start -s
python3 "$top_srcdir/tests/proc-a2l.py" sample $pid 2000 16 >addrs
rc=0
"$D" --json addr2line --pid $pid -f -i <addrs >ours.jl 2>ours.err || rc=$?
[ $rc -le 1 ] || { cat ours.err; fail "addr2line --pid: exit $rc"; }
# (eu-addr2line exits 1 when an address is in no module it knows: the
# sanitizers' shadow mappings, say; its answers are still printed.)
eu-addr2line --pid=$pid -a -f -i <addrs >eu.txt 2>eu.err || true
[ -s eu.txt ] || { cat eu.err; fail "eu-addr2line answered nothing"; }
python3 "$top_srcdir/tests/proc-a2l.py" compare ours.jl eu.txt \
    --strict target libtarget.so target-plugin.so ||
    fail "answers differ from eu-addr2line's in the test's own objects"

# Text: the object line, with the build-id readelf sees.
a=$(addr_of "$top_builddir/tests/proc/libtarget.so" target_lib_wait)
"$D" addr2line --pid $pid -a -f $a >text.out || fail "addr2line --pid (text)"
id=$(readelf -n "$top_builddir/tests/proc/libtarget.so" | awk '/Build ID/ { print $3 }')
sed -n 2p text.out | grep -q "libtarget.so+0x[0-9a-f]* (build-id $id)\$" ||
    { cat text.out; fail "text: no 'OBJECT+0xADDR (build-id $id)' line"; }
[ "$(sed -n 3p text.out)" = target_lib_wait ] ||
    { cat text.out; fail "text: not target_lib_wait"; }
"$D" addr2line --pid $pid -p -f $a | grep -q '^target_lib_wait at .*target_lib.c:[0-9]* in .*libtarget.so+0x' ||
    fail "text -p: not 'NAME at FILE:LINE in OBJECT+0xADDR'"

# The vDSO, from the process's memory.
vdso=$(awk '$6 == "[vdso]" { split($1, a, "-"); print a[1] }' /proc/$pid/maps)
dd if=/proc/$pid/mem of=vdso.so bs=4096 skip=$((0x$vdso / 4096)) count=2 2>/dev/null
off=$(nm -D vdso.so | awk '$3 ~ /^__vdso_clock_gettime/ { print $1; exit }')
if [ -z "$off" ]; then
	fail "vdso: no __vdso_clock_gettime in the image read from memory"
else
	va=$(printf '0x%x' $((0x$vdso + 0x$off + 8)))
	"$D" --json addr2line --pid $pid -f $va >vdso.jl
	python3 - <<'PY' || fail "vdso: not __vdso_clock_gettime in [vdso]"
import json
d = json.loads(open("vdso.jl").readline())
assert d["function"] in ("__vdso_clock_gettime", "clock_gettime"), d
assert d["object"]["path"] == "[vdso]" and d["object"]["build_id"], d
print("vdso: %s in %s (build-id %s)" % (d["function"], d["object"]["file"],
      d["object"]["build_id"]))
PY
fi

# An address in [stack]: "??" after naming the mapping.
st=$(awk '$6 == "[stack]" { split($1, a, "-"); print a[1] }' /proc/$pid/maps)
rc=0; "$D" addr2line --pid $pid -f 0x$st >stack.out 2>stack.err || rc=$?
[ $rc -eq 0 ] || fail "[stack]: exit $rc"
printf '[stack] 0x%s-0x[0-9a-f]* rw-p\n??\n??:0\n' "$st" >stack.want
grep -q "^\[stack\] 0x$st-0x[0-9a-f]* rw-p\$" stack.out &&
    [ "$(sed -n '2,3p' stack.out | tr '\n' ' ')" = "?? ??:0 " ] ||
    { cat stack.out; fail "[stack]: not the mapping then ?? and ??:0"; }
kill $pid

# --- deleted and replaced files ---------------------------------------------
# Deleted (removed, or renamed over as package upgrades do: the kernel
# says "(deleted)" either way): found through /proc/PID/map_files.
cp "$P" deleted.so
start -s -x "$work/deleted.so"
a=$(addr_of "$work/deleted.so" target_plugin_run)
rm deleted.so
"$D" --json addr2line --pid $pid -f $a >deleted.jl 2>deleted.err ||
    { cat deleted.err; fail "deleted: exit status"; }
python3 - <<'PY' || fail "deleted: not the plugin's function through map_files"
import json
d = json.loads(open("deleted.jl").readline())
o = d["object"]
assert d["function"] == "target_plugin_run", d
assert o["deleted"] is True and "/map_files/" in o["file"], o
assert d["frames"][0]["file"].endswith("target_plugin.c"), d
print("deleted: %s at %s:%s, from %s" % (d["function"], d["frames"][0]["file"],
      d["frames"][0]["line"], o["file"]))
PY
kill $pid
# Replaced as a package upgrade does (a new file renamed over the path):
# the answer and the build-id are the mapped object's, not the new file's.
cp "$P" replaced.so
start -s -x "$work/replaced.so"
a=$(addr_of "$work/replaced.so" target_plugin_run)
cp "$top_builddir/tests/proc/libtarget.so" new.so && mv new.so replaced.so
id=$(readelf -n "$P" | awk '/Build ID/ { print $3 }')
"$D" --json addr2line --pid $pid -f $a >replaced.jl 2>replaced.err ||
    { cat replaced.err; fail "replaced: exit status"; }
python3 - "$id" <<'PY' || fail "replaced: not answered from the mapped object"
import json, sys
d = json.loads(open("replaced.jl").readline())
o = d["object"]
assert d["function"] == "target_plugin_run", d
assert o["build_id"] == sys.argv[1] and "/map_files/" in o["file"], o
print("replaced: %s, build-id %s, from %s" % (d["function"], o["build_id"],
      o["file"]))
PY
kill $pid

# --- a mapping that disappears ------------------------------------------------
cp "$P" gone.so
start -s -x "$work/gone.so"
a=$(addr_of "$work/gone.so" target_plugin_run)
b=$(addr_of "$T" main)
rm gone.so
rc=0
{
	echo "$b"
	sleep 0.3
	kill -USR2 $pid
	i=0
	while ! grep -q '^unloaded' "$out" && [ $i -lt 100 ]; do
		sleep 0.05; i=$((i + 1))
	done
	echo "$a"
} | "$D" addr2line --pid $pid -f >gone.out 2>gone.err || rc=$?
[ $rc -eq 1 ] || fail "mapping gone: exit $rc, expected 1"
grep -q "gone.so: no table: .*map_files.*: No such file or directory; its addresses answer \"??\"" gone.err ||
    { cat gone.err; fail "mapping gone: no clear message"; }
[ "$(sed -n 2p gone.out)" = main ] && [ "$(sed -n 5p gone.out)" = "??" ] ||
    { cat gone.out; fail "mapping gone: not main, then ??"; }
echo "mapping gone: $(cat gone.err)"

# --- bad input --------------------------------------------------------------
bad() {	# STATUS PATTERN ARGS...
	want=$1 pat=$2
	shift 2
	rc=0
	"$D" "$@" >bad.out 2>bad.err </dev/null || rc=$?
	[ $rc -eq "$want" ] || fail "$*: exit $rc, expected $want"
	grep -q -- "$pat" bad.err || { cat bad.err; fail "$*: no message '$pat'"; }
}
bad 3 "no such process" addr2line --pid 999999999 0x1000
bad 2 "expected a process id" addr2line --pid 12x 0x1000
bad 2 "exclude each other" addr2line -e "$T" --pid $pid 0x1000
bad 2 "needs --pid" --json addr2line -e "$T" 0x1000
bad 1 "expected an address in hex" addr2line --pid $pid zz
if [ "$fails" -eq 0 ]; then
	echo "proc-a2l: ok"
	exit 0
fi
exit 1
