## lib/elf/elf.mk -- the ELF section finder (lib/elf/elf.c, lib/elf/pcln_elf.h),
## included at the end of lib/local.mk.

pkginclude_HEADERS += lib/elf/pcln_elf.h
lib_libpcln_la_SOURCES += lib/elf/pcln_elf.h lib/elf/elf.c
lib_libpcln_internal_la_SOURCES += lib/elf/pcln_elf.h lib/elf/elf.c
