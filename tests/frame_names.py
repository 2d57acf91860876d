"""frame_names.py -- the rules for when two tools name one function,
shared by the tests that compare frames with gdb, eu-stack and
eu-addr2line (tests/xcrash-frames.py, tests/proc-stacks.py,
tests/proc-a2l.py)."""
import re


def clone_of(name):
    """NAME without GCC's clone suffixes (.part.0, .constprop.0, ...)."""
    if name is None:
        return name
    return re.sub(r"\.(part|constprop|isra|cold)\.?\d*", "", name)


def alias_key(name):
    """NAME as the function it names: no symbol version, no clone suffix,
    no glibc internal prefix."""
    n = clone_of(re.sub(r"@.*$", "", name or ""))
    while n.startswith("__GI_"):
        n = n[5:]
    # glibc's own names of its functions: __libc_X and X_impl are X
    # (libc_hidden_def, versioned_symbol; eu-stack prints the exported
    # name, the debug file's DWARF the internal one).
    n = n.lstrip("_")
    if n.startswith("libc_"):
        n = n[5:]
    n = re.sub(r"_impl$", "", n)
    return n.lstrip("_")
