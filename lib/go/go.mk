## lib/go/go.mk -- the Go pclntab importer (lib/go/goimport.c, lib/go/pcln_go.h),
## included at the end of lib/local.mk.

pkginclude_HEADERS += lib/go/pcln_go.h
lib_libpcln_la_SOURCES += lib/go/pcln_go.h lib/go/goimport.c
lib_libpcln_internal_la_SOURCES += lib/go/pcln_go.h lib/go/goimport.c
