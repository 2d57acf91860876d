## lib/link.mk -- the description parser and linker (pcln_link.h),
## included by lib/local.mk.

pcln_link_sources = lib/pcln_link.h lib/desc.h lib/desc.c lib/link.c \
	lib/outfile.c

pkginclude_HEADERS += lib/pcln_link.h
lib_libpcln_la_SOURCES += $(pcln_link_sources)
lib_libpcln_internal_la_SOURCES += $(pcln_link_sources)
