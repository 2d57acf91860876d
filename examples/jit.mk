## examples/jit.mk -- a tiny JIT (x86-64) whose functions the runtime
## sees, with the program's own table embedded and the crash handler as
## in crash.mk (two links; included from examples/local.mk).
## tests/jit-example.sh checks its crash traceback and perf's names for
## its code.

if HAVE_LIBDW
jit_cflags = $(AM_CFLAGS) -O2 -g -fomit-frame-pointer -I$(srcdir)/runtime

check_PROGRAMS += examples/jit-nopcln examples/jit
examples_jit_nopcln_SOURCES = examples/jit.c examples/crash_handler.c \
	examples/crash_handler.h examples/pcln_blob.c
examples_jit_nopcln_CFLAGS = $(jit_cflags)
examples_jit_nopcln_LDADD = runtime/libpclnrt.la
examples_jit_nopcln_LDFLAGS = -Wl,-z,now

examples_jit_SOURCES =
examples_jit_CFLAGS = $(jit_cflags)
examples_jit_LDADD = examples/jit_nopcln-jit.$(OBJEXT) \
	examples/jit_nopcln-crash_handler.$(OBJEXT) \
	examples/jit-blob.$(OBJEXT) runtime/libpclnrt.la
examples_jit_LDFLAGS = -Wl,-z,now

examples/jit.blob: examples/jit-nopcln$(EXEEXT) tools/pclnld$(EXEEXT)
	$(AM_V_GEN)tools/pclnld --elf examples/jit-nopcln$(EXEEXT) -o $@

examples/jit-blob.$(OBJEXT): examples/jit.blob $(srcdir)/examples/pcln_blob.c
	$(AM_V_CC)$(COMPILE) -DPCLN_BLOB='"examples/jit.blob"' -c \
	    -o $@ $(srcdir)/examples/pcln_blob.c

CLEANFILES += examples/jit.blob examples/jit-blob.$(OBJEXT)
endif
EXTRA_DIST += examples/jit.c
TESTS += tests/jit-example.sh
dist_check_SCRIPTS += tests/jit-example.sh
