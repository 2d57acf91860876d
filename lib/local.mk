## lib/local.mk -- libpcln, included by the top Makefile.am.
##
## libpcln.la is the installed library (only pcln_ and pclnrt_ symbols
## exported); libpcln-internal.la has the same sources for white-box tests
## and the tools (tools/local.mk).

pcln_lib_sources = \
	lib/pcln.h \
	lib/internal.h \
	lib/error.c \
	lib/grow.c lib/huge.c \
	lib/varint.c \
	lib/pool.c \
	lib/build.h \
	lib/builder.c \
	lib/build_write.c \
	lib/build_trailer.c \
	lib/verify.c \
	lib/reader.c \
	lib/pcln_out.h \
	lib/outfile.c \
	lib/buildid.c

pkginclude_HEADERS += lib/pcln.h lib/pcln_out.h

lib_LTLIBRARIES += lib/libpcln.la
lib_libpcln_la_SOURCES = $(pcln_lib_sources)
lib_libpcln_la_CFLAGS = $(AM_CFLAGS) $(XXHASH_CFLAGS) $(LIBDW_CFLAGS) $(FIND_CFLAGS)
lib_libpcln_la_LIBADD = runtime/libpclnrt.la $(XXHASH_LIBS) $(LIBDW_LIBS) \
	$(FIND_LIBS) -lpthread
lib_libpcln_la_LDFLAGS = -version-info $(PCLN_LT_VERSION) \
	-export-symbols-regex '^(pcln_|pclnrt_)'

noinst_LTLIBRARIES += lib/libpcln-internal.la
lib_libpcln_internal_la_SOURCES = $(pcln_lib_sources)
lib_libpcln_internal_la_CFLAGS = $(AM_CFLAGS) $(XXHASH_CFLAGS) $(LIBDW_CFLAGS) \
	$(FIND_CFLAGS)
# (the static archives of the libraries, where configure found them)
lib_libpcln_internal_la_LIBADD = runtime/libpclnrt.la $(PCLN_DEPS_LIBS)

include $(srcdir)/lib/elf/elf.mk
include $(srcdir)/lib/link/link.mk
include $(srcdir)/lib/go/go.mk
include $(srcdir)/lib/dwarf/dwarf.mk
include $(srcdir)/lib/perf/perf.mk
include $(srcdir)/lib/find/find.mk
include $(srcdir)/lib/proc/proc.mk
