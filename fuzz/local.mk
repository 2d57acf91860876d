## fuzz/local.mk -- libFuzzer targets, included by Makefile.am.
##
## Built only with --enable-fuzzing (CC=clang).  `make fuzz` builds them
## and runs scripts/fuzz.sh: each target FUZZ_SECONDS seconds (default
## 30) from its seed corpus fuzz/corpus/<target>/ and crash seeds
## fuzz/crashes/<target>/, printing executions and crashes; it fails on
## a crash.  `make fuzz-long` runs scripts/fuzz-long.sh: each target
## FUZZ_LONG_SECONDS (default 300), new inputs merged (minimised) into
## fuzz/corpus/<target>/, every crash kept in fuzz/crashes/<target>/.
## Seeds: fuzz/corpus/README.
##
## Every build (fuzzing configured or not) also links each target with
## fuzz/replay.c into fuzz/replay_<target>, and make check replays every
## committed input through it (tests/fuzz-replay.sh).
##
## A new target fuzz/fuzz_X.c: add fuzz/fuzz_X to fuzz_targets and
## fuzz/replay_fuzz_X to fuzz_replays with their SOURCES and LDADD as
## below, and give it a seed folder fuzz/corpus/fuzz_X/.  The scripts
## find the targets by these names.

fuzz_targets = fuzz/fuzz_blob fuzz/fuzz_runtime fuzz/fuzz_desc \
	fuzz/fuzz_varint fuzz/fuzz_elf fuzz/fuzz_goimport fuzz/fuzz_perf \
	fuzz/fuzz_maps
fuzz_targets += fuzz/fuzz_codemap
if HAVE_LIBDW
fuzz_targets += fuzz/fuzz_dwarf fuzz/fuzz_dwp
endif

fuzz_replays = fuzz/replay_fuzz_blob fuzz/replay_fuzz_runtime \
	fuzz/replay_fuzz_desc fuzz/replay_fuzz_varint fuzz/replay_fuzz_elf \
	fuzz/replay_fuzz_goimport fuzz/replay_fuzz_perf
fuzz_replays += fuzz/replay_fuzz_codemap fuzz/replay_fuzz_maps
if HAVE_LIBDW
fuzz_replays += fuzz/replay_fuzz_dwarf fuzz/replay_fuzz_dwp
endif

if FUZZING
noinst_PROGRAMS += $(fuzz_targets)
endif
check_PROGRAMS += $(fuzz_replays)

fuzz_libs = lib/libpcln-internal.la $(XXHASH_LIBS)

fuzz_fuzz_blob_SOURCES = fuzz/fuzz_blob.c fuzz/fuzz.h
fuzz_fuzz_blob_LDFLAGS = $(FUZZ_LDFLAGS)
fuzz_fuzz_blob_LDADD = $(fuzz_libs)
fuzz_fuzz_runtime_SOURCES = fuzz/fuzz_runtime.c fuzz/fuzz.h
fuzz_fuzz_runtime_LDFLAGS = $(FUZZ_LDFLAGS)
fuzz_fuzz_runtime_LDADD = runtime/libpclnrt.la
fuzz_fuzz_codemap_SOURCES = fuzz/fuzz_codemap.c fuzz/fuzz.h
fuzz_fuzz_codemap_LDFLAGS = $(FUZZ_LDFLAGS)
fuzz_fuzz_codemap_LDADD = runtime/libpclnrt.la
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

fuzz_fuzz_maps_SOURCES = fuzz/fuzz_maps.c fuzz/fuzz.h
fuzz_fuzz_maps_LDFLAGS = $(FUZZ_LDFLAGS)
fuzz_fuzz_maps_LDADD = $(fuzz_libs) $(LIBDW_LIBS)

fuzz_fuzz_dwarf_SOURCES = fuzz/fuzz_dwarf.c fuzz/fuzz.h
fuzz_fuzz_dwarf_LDFLAGS = $(FUZZ_LDFLAGS)
fuzz_fuzz_dwarf_LDADD = $(fuzz_libs) $(LIBDW_LIBS)

fuzz_fuzz_dwp_SOURCES = fuzz/fuzz_dwp.c fuzz/fuzz.h
fuzz_fuzz_dwp_LDFLAGS = $(FUZZ_LDFLAGS)
fuzz_fuzz_dwp_LDADD = $(fuzz_libs) $(LIBDW_LIBS)

fuzz_replay_fuzz_blob_SOURCES = fuzz/replay.c fuzz/fuzz_blob.c fuzz/fuzz.h
fuzz_replay_fuzz_blob_LDADD = $(fuzz_libs)
fuzz_replay_fuzz_runtime_SOURCES = fuzz/replay.c fuzz/fuzz_runtime.c \
	fuzz/fuzz.h
fuzz_replay_fuzz_runtime_LDADD = runtime/libpclnrt.la
fuzz_replay_fuzz_codemap_SOURCES = fuzz/replay.c fuzz/fuzz_codemap.c \
	fuzz/fuzz.h
fuzz_replay_fuzz_codemap_LDADD = runtime/libpclnrt.la
fuzz_replay_fuzz_desc_SOURCES = fuzz/replay.c fuzz/fuzz_desc.c fuzz/fuzz.h
fuzz_replay_fuzz_desc_LDADD = $(fuzz_libs)
fuzz_replay_fuzz_varint_SOURCES = fuzz/replay.c fuzz/fuzz_varint.c \
	fuzz/fuzz.h
fuzz_replay_fuzz_varint_LDADD = $(fuzz_libs)
fuzz_replay_fuzz_elf_SOURCES = fuzz/replay.c fuzz/fuzz_elf.c fuzz/fuzz.h
fuzz_replay_fuzz_elf_LDADD = $(fuzz_libs)
fuzz_replay_fuzz_goimport_SOURCES = fuzz/replay.c fuzz/fuzz_goimport.c \
	fuzz/fuzz.h
fuzz_replay_fuzz_goimport_LDADD = $(fuzz_libs)
fuzz_replay_fuzz_perf_SOURCES = fuzz/replay.c fuzz/fuzz_perf.c fuzz/fuzz.h
fuzz_replay_fuzz_perf_LDADD = $(fuzz_libs)
fuzz_replay_fuzz_maps_SOURCES = fuzz/replay.c fuzz/fuzz_maps.c fuzz/fuzz.h
fuzz_replay_fuzz_maps_LDADD = $(fuzz_libs) $(LIBDW_LIBS)
fuzz_replay_fuzz_dwarf_SOURCES = fuzz/replay.c fuzz/fuzz_dwarf.c fuzz/fuzz.h
fuzz_replay_fuzz_dwarf_LDADD = $(fuzz_libs) $(LIBDW_LIBS)
fuzz_replay_fuzz_dwp_SOURCES = fuzz/replay.c fuzz/fuzz_dwp.c fuzz/fuzz.h
fuzz_replay_fuzz_dwp_LDADD = $(fuzz_libs) $(LIBDW_LIBS)

TESTS += tests/fuzz-replay.sh

EXTRA_DIST += fuzz/corpus fuzz/crashes scripts/fuzz.sh scripts/fuzz-long.sh \
	scripts/fuzz-common.sh \
	scripts/sanitize.sh tests/fuzz-replay.sh

.PHONY: fuzz fuzz-long
if FUZZING
fuzz: $(fuzz_targets)
	$(SHELL) $(srcdir)/scripts/fuzz.sh '$(abs_top_builddir)'

fuzz-long: $(fuzz_targets)
	$(SHELL) $(srcdir)/scripts/fuzz-long.sh '$(abs_top_builddir)'
else
fuzz fuzz-long:
	@echo "make $@: configure with CC=clang --enable-fuzzing" >&2; exit 1
endif
