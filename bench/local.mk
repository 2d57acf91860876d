## bench/local.mk -- benchmarks, included by Makefile.am.
##
## The programs are built with everything else (so they keep compiling);
## `make bench` runs bench/run.sh, which is never part of `make check`.
## It writes its figures to bench-results/ in the build directory;
## doc/PERFORMANCE.md explains them.

noinst_PROGRAMS += bench/pcln-bench bench/pcln-bench-gen
bench_pcln_bench_SOURCES = bench/pclnbench.c bench/bench.h
bench_pcln_bench_LDADD = runtime/libpclnrt.la lib/libpcln.la
bench_pcln_bench_LDFLAGS = -static
bench_pcln_bench_gen_SOURCES = bench/gen.c

## The code map against the linear registry; JIT functions; readers
## with a writer and a signal handler.
noinst_PROGRAMS += bench/pcln-bench-codemap
bench_pcln_bench_codemap_SOURCES = bench/codemap.c bench/bench.h
bench_pcln_bench_codemap_CFLAGS = $(AM_CFLAGS) -pthread
bench_pcln_bench_codemap_LDADD = runtime/libpclnrt.la -lpthread

## The in-process peer (libdw on the ELF itself), only with libdw.
EXTRA_DIST += bench/peer-libdw.c
if HAVE_LIBDW
noinst_PROGRAMS += bench/pcln-bench-libdw
bench_pcln_bench_libdw_SOURCES = bench/peer-libdw.c bench/bench.h
bench_pcln_bench_libdw_CFLAGS = $(AM_CFLAGS) $(LIBDW_CFLAGS)
bench_pcln_bench_libdw_LDADD = $(LIBDW_LIBS)
endif

EXTRA_DIST += bench/run.sh bench/perf.sh bench/gen-dwarf.sh bench/ship.sh \
	bench/proc.sh bench/proc-stopped.py doc/PERFORMANCE.md

## The other peers, built by bench/peers.sh (not by make: their code is
## Debian's, built where it is installed): libbacktrace, gimli's
## addr2line, LLVM's GSYM reader.
EXTRA_DIST += bench/peers.sh bench/peer-libbacktrace.c bench/peer-gsym.cc \
	bench/peer-addr2line/Cargo.toml bench/peer-addr2line/src/main.rs \
	bench/sqlite.sh bench/sqlite-work.sql

bench: all
	top_builddir='$(abs_top_builddir)' top_srcdir='$(abs_top_srcdir)' \
	    $(SHELL) $(srcdir)/bench/run.sh

clean-local: clean-bench
clean-bench:
	rm -rf bench-results
.PHONY: bench clean-bench

## What mapping a perf.data and touching its pages costs (bench/perf.sh's
## floor line).
noinst_PROGRAMS += bench/pcln-bench-mapfloor
bench_pcln_bench_mapfloor_SOURCES = bench/mapfloor.c

## A command's median wall time, its CPU time and peak memory, timed
## from fork to wait4 (bench/perf.sh's timer).
noinst_PROGRAMS += bench/pcln-bench-time
bench_pcln_bench_time_SOURCES = bench/timecmd.c
