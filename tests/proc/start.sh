# tests/proc/start.sh -- start tests/proc/target ($T) and wait until it is
# ready; sourced by tests/proc-stack.sh, tests/proc-a2l.sh and
# bench/proc.sh.
#
#   target_run DIR ARGS...
#	target_start with its output in DIR/target.N (N counts the runs);
#	sets pid and out; if the target does not start, says so on
#	standard error and exits 1.
#   target_kill_all
#	kill -9 every target started (a test's cleanup_hook).
#
#   target_start OUT ARGS...
#	runs "$T" ARGS in the background, its output in OUT (emptied
#	first, so no "ready" of an earlier run is taken for this one's);
#	sets target_pid and adds it to target_pids; returns 0 once the
#	target printed "ready", else 1 (it exited, or 10 s passed) with its
#	output on standard error.
target_start() {
	target_out=$1
	shift
	: >"$target_out"
	"$T" "$@" >"$target_out" 2>&1 &
	target_pid=$!
	target_pids="${target_pids:-} $target_pid"
	ts=0
	while ! grep -q '^ready ' "$target_out" 2>/dev/null; do
		ts=$((ts + 1))
		if [ $ts -gt 200 ] || ! kill -0 $target_pid 2>/dev/null; then
			cat "$target_out" >&2
			return 1
		fi
		sleep 0.05
	done
	return 0
}

target_runs=0
target_run() {
	_dir=$1
	shift
	target_runs=$((target_runs + 1))
	target_start "$_dir/target.$target_runs" "$@" ||
	    { echo "FAIL: the target did not start" >&2; exit 1; }
	pid=$target_pid
	out=$target_out
}

target_kill_all() {
	for _p in ${target_pids:-}; do kill -9 "$_p" 2>/dev/null; done
}
