## lib/go.mk -- the Go pclntab importer (lib/goimport.c, lib/pcln_go.h),
## included at the end of lib/local.mk.

pkginclude_HEADERS += lib/pcln_go.h
lib_libpcln_la_SOURCES += lib/pcln_go.h lib/goimport.c
lib_libpcln_internal_la_SOURCES += lib/pcln_go.h lib/goimport.c
