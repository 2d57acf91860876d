## lib/elf.mk -- the ELF section finder (lib/elf.c, lib/pcln_elf.h),
## included at the end of lib/local.mk.

pkginclude_HEADERS += lib/pcln_elf.h
lib_libpcln_la_SOURCES += lib/pcln_elf.h lib/elf.c
lib_libpcln_internal_la_SOURCES += lib/pcln_elf.h lib/elf.c
