#!/usr/bin/env python3
# proc-stopped.py PID < `perf script -F tid,time,trace` of sched:sched_switch
# -- how long a tracer kept process PID's threads stopped, from the
# kernel's scheduler events: a thread is held from its switch-out in
# tracing stop (prev_state=t) to its next switch-in.  Prints
# "SPAN_US MAX_US SUM_US N": from the first thread's stop to the last
# one's return (the time the process was not all running), the longest a
# single thread was held, the sum over threads, and how many holds.
import os
import re
import sys

pid = int(sys.argv[1])
tids = set(int(t) for t in os.listdir("/proc/%d/task" % pid))
held = {}	# tid -> time it stopped
spans = []
ev = re.compile(r"\s*(\d+)\s+([\d.]+):.*prev_pid=(\d+) .*prev_state=(\S+) "
                r"==> .*next_pid=(\d+)")
for line in sys.stdin:
    m = ev.match(line)
    if not m:
        continue
    t = float(m.group(2))
    prev, state, nxt = int(m.group(3)), m.group(4), int(m.group(5))
    if prev in tids and state.startswith("t"):
        held[prev] = t
    if nxt in held:
        spans.append((held.pop(nxt), t))
if not spans:
    print("0 0 0 0")
else:
    first = min(a for a, _ in spans)
    last = max(b for _, b in spans)
    print("%.0f %.0f %.0f %d" % ((last - first) * 1e6,
          max(b - a for a, b in spans) * 1e6,
          sum(b - a for a, b in spans) * 1e6, len(spans)))
