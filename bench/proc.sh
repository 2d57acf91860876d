# bench/proc.sh -- a whole live process (issue 16), sourced by
# bench/run.sh (part "proc"; uses its say, median_time, $B, $S, $DUMP,
# $OUT, $RUNS).  The process is tests/proc/target: a PIE program, its
# shared library, a plugin, libc, threads blocked in read(2),
# pthread_cond_wait and nanosleep.
#
#   proc_a2l_*: pclndump addr2line --pid against eu-addr2line --pid on
#     BENCH_PROC_NADDR (default 100000) addresses sampled from the
#     process's executable mappings (tests/proc-a2l.py sample): the
#     differences by kind, the throughput (addresses a second, both
#     reading the addresses from standard input), and the time to the
#     first answer (one address in libc, each a fresh process: maps read,
#     the object's table found or made, answered);
#   proc_stack_*: pclndump stack --pid against eu-stack -p on the process
#     with 10 threads: the time per stack (a whole run's time over its 10
#     stacks, median of RUNS), and how long the process is stopped,
#     measured alike for both tools from the kernel's scheduler events
#     (perf record -a -e sched:sched_switch around each run;
#     bench/proc-stopped.py): a thread is held from its switch-out in
#     tracing stop to its next switch-in; the span is the first thread's
#     stop to the last one's return, and the longest hold of one thread.
# BENCH_PROC_PARTS (default "a2l stack") runs only some.

NADDR=${BENCH_PROC_NADDR:-100000}
PPARTS=${BENCH_PROC_PARTS:-a2l stack}	# which of the two to run
T=$B/tests/proc/target	# (tests/proc/start.sh runs $T)
make -C "$B" tests/proc/target >/dev/null
. "$S/tests/proc/start.sh"
proc_start() {	# ARGS: start the target; $ppid, $pout
	target_run "$OUT" "$@"
	ppid=$pid
	pout=$out
}

# --- addr2line --pid --------------------------------------------------------
case " $PPARTS " in *" a2l "*)
proc_start -s
python3 "$S/tests/proc-a2l.py" sample $ppid "$NADDR" 1 >"$OUT/proc.addrs"
n=$(wc -l <"$OUT/proc.addrs")
"$DUMP" --json addr2line --pid $ppid -f -i <"$OUT/proc.addrs" \
    >"$OUT/proc.ours.jl" 2>/dev/null || true
eu-addr2line --pid=$ppid -a -f -i <"$OUT/proc.addrs" >"$OUT/proc.eu.txt"
say "proc_a2l_addresses $n"
python3 "$S/tests/proc-a2l.py" compare "$OUT/proc.ours.jl" \
    "$OUT/proc.eu.txt" | tee "$OUT/proc.kinds" | sed 's/^/proc_a2l_kinds: /' |
    tee -a "$R"
t_ours=$(median_time "$OUT/proc.addrs" "$DUMP" addr2line --pid $ppid -f -i)
t_eu=$(median_time "$OUT/proc.addrs" eu-addr2line --pid=$ppid -a -f -i)
say "proc_a2l_pcln_s $t_ours"
say "proc_a2l_eu_s $t_eu"
say "proc_a2l_pcln_per_s $(awk -v n=$n -v t=$t_ours 'BEGIN { printf "%.0f", n / t }')"
say "proc_a2l_eu_per_s $(awk -v n=$n -v t=$t_eu 'BEGIN { printf "%.0f", n / t }')"
say "proc_a2l_speedup $(awk -v a=$t_eu -v b=$t_ours 'BEGIN { printf "%.1f", a / b }')"
libc=$(awk '$6 ~ /libc\.so/ && $2 ~ /x/ { split($1, a, "-"); print a[1]; exit }' /proc/$ppid/maps)
one=$(printf '0x%x' $((0x$libc + 0x1234)))
f_ours=$(median_time /dev/null "$DUMP" addr2line --pid $ppid -f $one)
f_eu=$(median_time /dev/null eu-addr2line --pid=$ppid -f $one)
say "proc_a2l_first_pcln_s $f_ours"
say "proc_a2l_first_eu_s $f_eu"
kill $ppid
;; esac

# --- stack --pid --------------------------------------------------------------
# 10 threads: main, read, lib, plugin, 6 idle.
case " $PPARTS " in *" stack "*)
proc_start -s -n 6
nth=$(ls /proc/$ppid/task | wc -l)
say "proc_stack_threads $nth"
: >"$OUT/held.pcln"; : >"$OUT/held.eu"; : >"$OUT/stopped.pcln"
k=0
while [ $k -lt "$RUNS" ]; do
	perf record -q -a -e sched:sched_switch -o "$OUT/perf.pcln" -- \
	    "$DUMP" stack --pid $ppid --stats >/dev/null 2>"$OUT/stats"
	sed -n 's/.* stopped \([0-9]*\) us.*/\1/p' "$OUT/stats" >>"$OUT/stopped.pcln"
	perf script -i "$OUT/perf.pcln" -F tid,time,trace 2>/dev/null |
	    python3 "$S/bench/proc-stopped.py" $ppid >>"$OUT/held.pcln"
	perf record -q -a -e sched:sched_switch -o "$OUT/perf.eu" -- \
	    eu-stack -p $ppid >/dev/null 2>&1
	perf script -i "$OUT/perf.eu" -F tid,time,trace 2>/dev/null |
	    python3 "$S/bench/proc-stopped.py" $ppid >>"$OUT/held.eu"
	k=$((k + 1))
done
med() {	# FILE [COLUMN]: the median of a column
	awk -v c="${2:-1}" '{ print $c }' "$1" | sort -g |
	    sed -n "$(( ($(wc -l <"$1") + 1) / 2 ))p"
}
t_ours=$(median_time /dev/null "$DUMP" stack --pid $ppid)
t_eu=$(median_time /dev/null eu-stack -p $ppid)
say "proc_stack_pcln_s $t_ours"
say "proc_stack_eu_s $t_eu"
say "proc_stack_pcln_ms_per_stack $(awk -v t=$t_ours -v n=$nth 'BEGIN { printf "%.2f", 1000 * t / n }')"
say "proc_stack_eu_ms_per_stack $(awk -v t=$t_eu -v n=$nth 'BEGIN { printf "%.2f", 1000 * t / n }')"
say "proc_stack_pcln_stopped_own_us $(med "$OUT/stopped.pcln")"
say "proc_stack_pcln_stopped_span_us $(med "$OUT/held.pcln" 1)"
say "proc_stack_eu_stopped_span_us $(med "$OUT/held.eu" 1)"
say "proc_stack_pcln_longest_hold_us $(med "$OUT/held.pcln" 2)"
say "proc_stack_eu_longest_hold_us $(med "$OUT/held.eu" 2)"
say "proc_stack_pcln_holds $(med "$OUT/held.pcln" 4)"
say "proc_stack_eu_holds $(med "$OUT/held.eu" 4)"
kill $ppid
;; esac
