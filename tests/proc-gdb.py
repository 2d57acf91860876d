# proc-gdb.py -- run by gdb attached to a live process (gdb -p PID -batch
# -x): every thread's frames, "THREAD<TAB>TID" then one
# "FRAME<TAB>TYPE<TAB>PC<TAB>NAME<TAB>FILE<TAB>LINE" line a frame, as
# tests/xcrash-gdb.py prints them; for tests/proc-stacks.py.
import gdb

names = {gdb.NORMAL_FRAME: "normal", gdb.INLINE_FRAME: "inline",
         gdb.TAILCALL_FRAME: "tailcall", gdb.SIGTRAMP_FRAME: "sigtramp"}
for th in sorted(gdb.selected_inferior().threads(), key=lambda t: t.ptid[1]):
    th.switch()
    print("THREAD\t%d" % th.ptid[1])
    f = gdb.newest_frame()
    n = 0
    while f is not None and n < 256:
        sal = f.find_sal()
        fn = f.function()
        name = fn.name if fn is not None else (f.name() or "??")
        src = sal.symtab.filename if sal.symtab is not None else "??"
        print("FRAME\t%s\t%#x\t%s\t%s\t%d" % (
            names.get(f.type(), str(f.type())), f.pc(), name, src, sal.line))
        f = f.older()
        n += 1
