## runtime/local.mk -- the freestanding runtime, included by Makefile.am.
##
## Built -ffreestanding: it may use nothing outside itself.  The test
## tests/runtime-nolibc.sh checks the objects have no undefined symbols.

pkginclude_HEADERS += runtime/pclnrt_format.h runtime/pclnrt.h

pclnrt_sources = runtime/pclnrt_format.h runtime/pclnrt.h \
	runtime/pclnrt.c runtime/module.c runtime/codemap.c runtime/traceback.c \
	runtime/checksum.c runtime/inline.c runtime/jit.c runtime/buildid.c

noinst_LTLIBRARIES += runtime/libpclnrt.la
runtime_libpclnrt_la_SOURCES = runtime/rt_private.h runtime/rt_codemap.h $(pclnrt_sources)
runtime_libpclnrt_la_CFLAGS = $(AM_CFLAGS) -ffreestanding -fno-builtin \
	-fno-stack-protector
