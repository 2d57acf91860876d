## tests/perf.mk -- pclndump perf and lib/perf (issue 18), included by
## tests/local.mk.
##
## tests/perf-record.sh: profiles recorded here with perf record
##   (--call-graph dwarf and -g) of real C and C++ programs
##   (tests/perf/), pclndump perf's stacks against perf script's
##   (tests/perf/compare.py), folded stacks, the SVG flame graph, tables
##   found by build-id.
## tests/perf-badinput.sh: damaged, truncated and foreign perf.data
##   files, lost records: reported with their byte offsets, never a crash.

dist_check_SCRIPTS += tests/perf-record.sh tests/perf-badinput.sh
EXTRA_DIST += tests/perf/compare.py tests/perf/mkperf.py \
	tests/perf/stackcopy.py tests/perf/prog.c tests/perf/prog.cc \
	tests/perf/work.c tests/perf/work.h tests/perf/prog.go
# (perf-record.sh and perf-badinput.sh are in TESTS from tests/local.mk,
# with the longest.)

## tests/check_perfsyms: the sorted kallsyms view (what pclndump perf
##   caches) answers as the parsed table it was written from.
check_PROGRAMS += tests/check_perfsyms
TESTS += tests/check_perfsyms
tests_check_perfsyms_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS)
tests_check_perfsyms_LDADD = lib/libpcln-internal.la runtime/libpclnrt.la \
	$(CHECK_LIBS)

## tests/check_perffile: pcln_perf_open_fd (a chunk of records at a time,
##   with pread) reads what pcln_perf_open reads over the whole file:
##   the same records, bytes and errors, with chunks of every size.
check_PROGRAMS += tests/check_perffile
TESTS += tests/check_perffile
tests_check_perffile_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS) $(ZSTD_CFLAGS)
tests_check_perffile_LDADD = lib/libpcln-internal.la runtime/libpclnrt.la \
	$(CHECK_LIBS) $(ZSTD_LIBS)
