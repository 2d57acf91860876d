## lib/perf/perf.mk -- the perf.data reader, text symbol tables and the
## sample unwinder (lib/perf/*.c, lib/perf/pcln_perf.h), included at the
## end of lib/local.mk.

pcln_perf_sources = lib/perf/pcln_perf.h lib/perf/perf_internal.h \
	lib/perf/perf_header.c lib/perf/perf_record.c lib/perf/perf_file.c lib/perf/perf_syms.c \
	lib/perf/perf_space.c

pkginclude_HEADERS += lib/perf/pcln_perf.h
lib_libpcln_la_SOURCES += $(pcln_perf_sources)
lib_libpcln_internal_la_SOURCES += $(pcln_perf_sources)
