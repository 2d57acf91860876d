## lib/link/link.mk -- the description parser and linker (pcln_link.h),
## included by lib/local.mk.

pcln_link_sources = lib/link/pcln_link.h lib/link/desc.h lib/link/desc.c lib/link/link.c

pkginclude_HEADERS += lib/link/pcln_link.h
lib_libpcln_la_SOURCES += $(pcln_link_sources)
lib_libpcln_internal_la_SOURCES += $(pcln_link_sources)
