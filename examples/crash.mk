## examples/crash.mk -- programs that print their own crash traceback
## from their signal handler (examples/crash_handler.c), with their pcln
## table embedded (included from examples/local.mk): crash (C,
## examples/crash.c) and crash-cxx (C++, examples/crash_cxx.cc, its names
## demangled in the handler with libiberty).  The embedding recipe, in
## two links:
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
crash_sources = examples/crash_handler.c examples/crash_handler.h \
	examples/pcln_blob.c

check_PROGRAMS += examples/crash-nopcln examples/crash
examples_crash_nopcln_SOURCES = examples/crash.c $(crash_sources)
examples_crash_nopcln_CFLAGS = $(crash_cflags)
examples_crash_nopcln_LDADD = runtime/libpclnrt.la

examples_crash_SOURCES =
examples_crash_CFLAGS = $(crash_cflags)
examples_crash_LDADD = examples/crash_nopcln-crash.$(OBJEXT) \
	examples/crash_nopcln-crash_handler.$(OBJEXT) \
	examples/crash-blob.$(OBJEXT) runtime/libpclnrt.la

examples/crash.blob: examples/crash-nopcln$(EXEEXT) tools/pclnld$(EXEEXT)
	$(AM_V_GEN)tools/pclnld --elf examples/crash-nopcln$(EXEEXT) -o $@

examples/crash-blob.$(OBJEXT): examples/crash.blob $(srcdir)/examples/pcln_blob.c
	$(AM_V_CC)$(COMPILE) -DPCLN_BLOB='"examples/crash.blob"' -c \
	    -o $@ $(srcdir)/examples/pcln_blob.c

CLEANFILES += examples/crash.blob examples/crash-blob.$(OBJEXT)

if HAVE_CXX
# The C++ variant: the same handler with -DCRASH_DEMANGLE, libiberty
# (a static library, linked into the program; not PIC, which a PIE
# executable does not need).
crash_cxxflags = -O2 -g -fomit-frame-pointer -I$(srcdir)/runtime

check_PROGRAMS += examples/crash-cxx-nopcln examples/crash-cxx
examples_crash_cxx_nopcln_SOURCES = examples/crash_cxx.cc $(crash_sources)
examples_crash_cxx_nopcln_CFLAGS = $(crash_cflags) -DCRASH_DEMANGLE
examples_crash_cxx_nopcln_CXXFLAGS = $(crash_cxxflags)
examples_crash_cxx_nopcln_LDADD = runtime/libpclnrt.la $(LIBIBERTY_LIBS)

examples_crash_cxx_SOURCES =
# (C++ objects: link with the C++ compiler.)
nodist_EXTRA_examples_crash_cxx_SOURCES = examples/crash-cxx-link.cc
examples_crash_cxx_LDADD = \
	examples/crash_cxx_nopcln-crash_cxx.$(OBJEXT) \
	examples/crash_cxx_nopcln-crash_handler.$(OBJEXT) \
	examples/crash-cxx-blob.$(OBJEXT) runtime/libpclnrt.la \
	$(LIBIBERTY_LIBS)

examples/crash-cxx.blob: examples/crash-cxx-nopcln$(EXEEXT) tools/pclnld$(EXEEXT)
	$(AM_V_GEN)tools/pclnld --elf examples/crash-cxx-nopcln$(EXEEXT) -o $@

examples/crash-cxx-blob.$(OBJEXT): examples/crash-cxx.blob $(srcdir)/examples/pcln_blob.c
	$(AM_V_CC)$(COMPILE) -DPCLN_BLOB='"examples/crash-cxx.blob"' -c \
	    -o $@ $(srcdir)/examples/pcln_blob.c

CLEANFILES += examples/crash-cxx.blob examples/crash-cxx-blob.$(OBJEXT)
endif
endif
EXTRA_DIST += examples/crash.c examples/crash_cxx.cc \
	examples/crash_handler.c examples/crash_handler.h examples/pcln_blob.c
