# xcrash-gdb.py -- run by gdb (-x) after the crash: every frame from the
# innermost to main, one "FRAME<TAB>TYPE<TAB>PC<TAB>NAME<TAB>FILE<TAB>LINE"
# line each, TYPE normal, inline, tailcall or sigtramp (gdb's frame
# types), NAME from DWARF else the symbol, FILE:LINE from gdb's lookup
# (at pc - 1 for a caller); for tests/xcrash-frames.py.
import gdb
names = {gdb.NORMAL_FRAME: "normal", gdb.INLINE_FRAME: "inline",
         gdb.TAILCALL_FRAME: "tailcall", gdb.SIGTRAMP_FRAME: "sigtramp"}
f = gdb.newest_frame()
while f is not None:
    sal = f.find_sal()
    fn = f.function()
    name = fn.name if fn is not None else (f.name() or "??")
    src = sal.symtab.filename if sal.symtab is not None else "??"
    print("FRAME\t%s\t%#x\t%s\t%s\t%d" % (names.get(f.type(), str(f.type())), f.pc(), name, src, sal.line))
    if name == "main":
        break
    f = f.older()
