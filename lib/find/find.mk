## lib/find/find.mk -- finding debug information and the table cache
## (lib/find/*.c, lib/find/pcln_find.h), included at the end of
## lib/local.mk.  Built only with libdw, like the importer it feeds.

pcln_find_sources = lib/find/pcln_find.h lib/find/find_internal.h \
	lib/find/dwp_index.h lib/find/debuginfo.c lib/find/decompress.c \
	lib/find/dwp.c lib/find/cache.c lib/find/debuginfod.c

EXTRA_DIST += $(pcln_find_sources)
if HAVE_LIBDW
pkginclude_HEADERS += lib/find/pcln_find.h
lib_libpcln_la_SOURCES += $(pcln_find_sources)
lib_libpcln_internal_la_SOURCES += $(pcln_find_sources)
endif
