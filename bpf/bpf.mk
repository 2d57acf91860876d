## bpf/bpf.mk -- the runtime's lookups as a BPF program, and its test,
## included by Makefile.am.
##
## bpf/pclnrt.bpf.o is runtime/pclnrt.c and runtime/rt_codemap.h
## compiled by clang -target bpf (whatever CC is) through the
## portability layer of runtime/pclnrt_format.h; bpf/check_bpf loads it
## with libbpf and compares its answers with the C runtime's
## (tests/bpf-verifier.sh).  Only with libbpf and a clang that targets
## bpf (configure: "BPF program").

EXTRA_DIST += bpf/pclnrt.bpf.c bpf/pcln_bpf.h bpf/check_bpf.c
TESTS += tests/bpf-verifier.sh
dist_check_SCRIPTS += tests/bpf-verifier.sh

if HAVE_BPF
check_PROGRAMS += bpf/check_bpf
bpf_check_bpf_SOURCES = bpf/check_bpf.c bpf/pcln_bpf.h
bpf_check_bpf_CFLAGS = $(AM_CFLAGS) $(LIBBPF_CFLAGS) -I$(srcdir)/bpf
bpf_check_bpf_LDADD = runtime/libpclnrt.la $(LIBBPF_LIBS)

check_DATA += bpf/pclnrt.bpf.o
bpf_sources = $(srcdir)/bpf/pclnrt.bpf.c $(srcdir)/bpf/pcln_bpf.h \
	$(srcdir)/runtime/pclnrt.c $(srcdir)/runtime/pclnrt.h \
	$(srcdir)/runtime/pclnrt_format.h $(srcdir)/runtime/rt_private.h \
	$(srcdir)/runtime/rt_codemap.h
bpf/pclnrt.bpf.o: $(bpf_sources)
	@$(MKDIR_P) bpf
	$(AM_V_GEN)$(BPF_CLANG) -O2 -g -target bpf -ffreestanding \
	    -Wall -Wno-unused-function -Werror $(BPF_CPPFLAGS) \
	    $(LIBBPF_CFLAGS) -I$(srcdir)/runtime -I$(srcdir)/bpf \
	    -c $(srcdir)/bpf/pclnrt.bpf.c -o $@
CLEANFILES += bpf/pclnrt.bpf.o
endif
