## fuzz/local.mk -- libFuzzer targets, included by Makefile.am.
##
## Built only with --enable-fuzzing (CC=clang).  `make fuzz` builds them
## and runs scripts/fuzz.sh: each target FUZZ_SECONDS seconds (default
## 30) from its seed corpus fuzz/corpus/<target>/, printing executions and
## crashes; it fails on a crash.  Seeds: fuzz/corpus/README.

fuzz_targets = fuzz/fuzz_blob fuzz/fuzz_runtime fuzz/fuzz_desc \
	fuzz/fuzz_varint fuzz/fuzz_elf fuzz/fuzz_goimport fuzz/fuzz_perf
if HAVE_LIBDW
fuzz_targets += fuzz/fuzz_dwarf fuzz/fuzz_dwp
endif

if FUZZING
noinst_PROGRAMS += $(fuzz_targets)
endif

fuzz_libs = lib/libpcln-internal.la $(XXHASH_LIBS)

fuzz_fuzz_blob_SOURCES = fuzz/fuzz_blob.c fuzz/fuzz.h
fuzz_fuzz_blob_LDFLAGS = $(FUZZ_LDFLAGS)
fuzz_fuzz_blob_LDADD = $(fuzz_libs)
fuzz_fuzz_runtime_SOURCES = fuzz/fuzz_runtime.c fuzz/fuzz.h
fuzz_fuzz_runtime_LDFLAGS = $(FUZZ_LDFLAGS)
fuzz_fuzz_runtime_LDADD = runtime/libpclnrt.la
fuzz_fuzz_desc_SOURCES = fuzz/fuzz_desc.c fuzz/fuzz.h
fuzz_fuzz_desc_LDFLAGS = $(FUZZ_LDFLAGS)
fuzz_fuzz_desc_LDADD = $(fuzz_libs)
fuzz_fuzz_varint_SOURCES = fuzz/fuzz_varint.c fuzz/fuzz.h
fuzz_fuzz_varint_LDFLAGS = $(FUZZ_LDFLAGS)
fuzz_fuzz_varint_LDADD = $(fuzz_libs)
fuzz_fuzz_elf_SOURCES = fuzz/fuzz_elf.c fuzz/fuzz.h
fuzz_fuzz_elf_LDFLAGS = $(FUZZ_LDFLAGS)
fuzz_fuzz_elf_LDADD = $(fuzz_libs)
fuzz_fuzz_goimport_SOURCES = fuzz/fuzz_goimport.c fuzz/fuzz.h
fuzz_fuzz_goimport_LDFLAGS = $(FUZZ_LDFLAGS)
fuzz_fuzz_goimport_LDADD = $(fuzz_libs)

fuzz_fuzz_perf_SOURCES = fuzz/fuzz_perf.c fuzz/fuzz.h
fuzz_fuzz_perf_LDFLAGS = $(FUZZ_LDFLAGS)
fuzz_fuzz_perf_LDADD = $(fuzz_libs)

fuzz_fuzz_dwarf_SOURCES = fuzz/fuzz_dwarf.c fuzz/fuzz.h
fuzz_fuzz_dwarf_LDFLAGS = $(FUZZ_LDFLAGS)
fuzz_fuzz_dwarf_LDADD = $(fuzz_libs) $(LIBDW_LIBS)

fuzz_fuzz_dwp_SOURCES = fuzz/fuzz_dwp.c fuzz/fuzz.h
fuzz_fuzz_dwp_LDFLAGS = $(FUZZ_LDFLAGS)
fuzz_fuzz_dwp_LDADD = $(fuzz_libs) $(LIBDW_LIBS)

EXTRA_DIST += fuzz/corpus scripts/fuzz.sh scripts/sanitize.sh

.PHONY: fuzz
if FUZZING
fuzz: $(fuzz_targets)
	$(SHELL) $(srcdir)/scripts/fuzz.sh '$(abs_top_builddir)'
else
fuzz:
	@echo "make fuzz: configure with CC=clang --enable-fuzzing" >&2; exit 1
endif
