## examples/crash.mk -- a program that prints its own crash traceback
## from its signal handler, with its pcln table embedded (included from
## examples/local.mk).  The embedding recipe, in two links:
##   1. link the program with an empty table (pcln_blob.c, no PCLN_BLOB);
##   2. pclnld --elf on that program makes its table, crash.blob;
##   3. compile pcln_blob.c with -DPCLN_BLOB='"examples/crash.blob"'
##      (.incbin into a section .pcln, which the linker puts after the
##      code) and link the same objects again with it.
## The code does not move between the links; tests/crash-gdb.sh checks
## the printed frames against gdb's.

if HAVE_LIBDW
crash_cflags = $(AM_CFLAGS) -O2 -g -fomit-frame-pointer \
	-I$(srcdir)/runtime

check_PROGRAMS += examples/crash-nopcln examples/crash
examples_crash_nopcln_SOURCES = examples/crash.c examples/pcln_blob.c
examples_crash_nopcln_CFLAGS = $(crash_cflags)
examples_crash_nopcln_LDADD = runtime/libpclnrt.la

examples_crash_SOURCES =
examples_crash_CFLAGS = $(crash_cflags)
examples_crash_LDADD = examples/crash_nopcln-crash.$(OBJEXT) \
	examples/crash-blob.$(OBJEXT) runtime/libpclnrt.la

examples/crash.blob: examples/crash-nopcln$(EXEEXT) tools/pclnld$(EXEEXT)
	$(AM_V_GEN)tools/pclnld --elf examples/crash-nopcln$(EXEEXT) -o $@

examples/crash-blob.$(OBJEXT): examples/crash.blob $(srcdir)/examples/pcln_blob.c
	$(AM_V_CC)$(COMPILE) -DPCLN_BLOB='"examples/crash.blob"' -c \
	    -o $@ $(srcdir)/examples/pcln_blob.c

CLEANFILES += examples/crash.blob examples/crash-blob.$(OBJEXT)
endif
EXTRA_DIST += examples/crash.c examples/pcln_blob.c
