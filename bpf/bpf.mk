## bpf/bpf.mk -- the runtime's lookups as a BPF program, and its test,
## included by Makefile.am.
##
## bpf/runtime.bpf.h is runtime/pclnrt.c and runtime/rt_codemap.h for
## BPF programs, compiled by clang -target bpf (whatever CC is) through
## the portability layer of runtime/pclnrt_format.h.  bpf/pclnrt.bpf.o
## answers batches of pcs: bpf/check_bpf loads it with libbpf and
## compares its answers with the C runtime's (tests/bpf-verifier.sh).
## bpf/unwind.bpf.o unwinds user stacks from perf events: bpf/unwind
## profiles bpf/spin with it (tests/bpf-unwind.sh, against perf).  Only
## with libbpf and a clang that targets bpf (configure: "BPF program").

EXTRA_DIST += bpf/pclnrt.bpf.c bpf/unwind.bpf.c bpf/runtime.bpf.h \
	bpf/pcln_bpf.h bpf/maps.h bpf/maps.c bpf/check_bpf.c bpf/unwind.c \
	bpf/spin.c
TESTS += tests/bpf-verifier.sh tests/bpf-unwind.sh
dist_check_SCRIPTS += tests/bpf-verifier.sh tests/bpf-unwind.sh

if HAVE_BPF
check_PROGRAMS += bpf/check_bpf bpf/unwind bpf/spin
bpf_check_bpf_SOURCES = bpf/check_bpf.c bpf/maps.c bpf/maps.h \
	bpf/pcln_bpf.h
bpf_check_bpf_CFLAGS = $(AM_CFLAGS) $(LIBBPF_CFLAGS) -I$(srcdir)/bpf
bpf_check_bpf_LDADD = runtime/libpclnrt.la $(LIBBPF_LIBS)
bpf_unwind_SOURCES = bpf/unwind.c bpf/maps.c bpf/maps.h bpf/pcln_bpf.h
bpf_unwind_CFLAGS = $(AM_CFLAGS) $(LIBBPF_CFLAGS) -I$(srcdir)/bpf
bpf_unwind_LDADD = runtime/libpclnrt.la $(LIBBPF_LIBS)
## The unwinder's workload: no frame pointers, and no sanitizer (its
## stacks are compared with perf's).
bpf_spin_SOURCES = bpf/spin.c
bpf_spin_CFLAGS = -O2 -g -fomit-frame-pointer

check_DATA += bpf/pclnrt.bpf.o bpf/unwind.bpf.o
bpf_sources = $(srcdir)/bpf/runtime.bpf.h $(srcdir)/bpf/pcln_bpf.h \
	$(srcdir)/runtime/pclnrt.c $(srcdir)/runtime/pclnrt.h \
	$(srcdir)/runtime/pclnrt_format.h $(srcdir)/runtime/rt_private.h \
	$(srcdir)/runtime/rt_codemap.h
BPF_COMPILE = $(BPF_CLANG) -O2 -g -target bpf -ffreestanding -Wall \
	-Wno-unused-function -Werror $(BPF_CPPFLAGS) $(LIBBPF_CFLAGS) \
	-I$(srcdir)/runtime -I$(srcdir)/bpf
bpf/pclnrt.bpf.o: $(srcdir)/bpf/pclnrt.bpf.c $(bpf_sources)
	@$(MKDIR_P) bpf
	$(AM_V_GEN)$(BPF_COMPILE) -c $(srcdir)/bpf/pclnrt.bpf.c -o $@
bpf/unwind.bpf.o: $(srcdir)/bpf/unwind.bpf.c $(bpf_sources)
	@$(MKDIR_P) bpf
	$(AM_V_GEN)$(BPF_COMPILE) -c $(srcdir)/bpf/unwind.bpf.c -o $@
CLEANFILES += bpf/pclnrt.bpf.o bpf/unwind.bpf.o
endif
