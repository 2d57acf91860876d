## tests/local.mk -- rules for tests/, included by Makefile.am.
## Each test group keeps its rules in its own .mk file.

## The longest tests come first in TESTS: make check -j starts them in
## that order, and a long one started last leaves the run waiting on it
## alone (scripts/summary.sh prints the slowest).  Their groups list
## them below.
## check_ckpt and perf-badinput.sh are the longest under the sanitizers
## (scripts/sanitize.sh: 196 s and 139 s, against 36 s and 15 s).
if HAVE_LIBDW
TESTS += tests/real-a2l.sh
endif
TESTS += tests/check_ckpt tests/perf-badinput.sh tests/gointerop/go-raw.sh
TESTS += tests/check_lib
if HAVE_LIBDW
TESTS += tests/perf-record.sh
endif
TESTS += tests/gointerop/pcln-reads-go.sh

include $(srcdir)/tests/lib.mk
include $(srcdir)/tests/runtime.mk
include $(srcdir)/tests/pclnld.mk
include $(srcdir)/tests/pclndump.mk
include $(srcdir)/tests/go.mk
include $(srcdir)/tests/reliability.mk
include $(srcdir)/tests/dwarf.mk
include $(srcdir)/tests/index.mk
include $(srcdir)/tests/ckpt.mk
include $(srcdir)/tests/find.mk
include $(srcdir)/tests/proc.mk

# The preamble the CLI test scripts source.
dist_check_DATA += tests/lib.sh tests/lazy.sh tests/elfpatch.py
include $(srcdir)/tests/demangle.mk
include $(srcdir)/tests/perf.mk
