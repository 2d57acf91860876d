## runtime/local.mk -- the freestanding runtime, included by Makefile.am.
##
## Built -ffreestanding: it may use nothing outside itself.  The test
## tests/runtime-nolibc.sh checks the object has no undefined symbols.

pkginclude_HEADERS += runtime/pclnrt_format.h

noinst_LTLIBRARIES += runtime/libpclnrt.la
runtime_libpclnrt_la_SOURCES = runtime/pclnrt_format.h runtime/pclnrt.c
runtime_libpclnrt_la_CFLAGS = $(AM_CFLAGS) -ffreestanding -fno-builtin \
	-fno-stack-protector
