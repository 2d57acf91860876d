## lib/dwarf.mk -- the ELF/DWARF importer (lib/dwarf*.c, lib/pcln_dwarf.h),
## included at the end of lib/local.mk.  Built only with libdw
## (configure --without-libdw leaves it out; pclnld --elf then says so).

pcln_dwarf_sources = lib/pcln_dwarf.h lib/dwarf_internal.h lib/dwarf.c \
	lib/dwarf_line.c lib/dwarf_cfi.c lib/dwarf_inline.c

EXTRA_DIST += $(pcln_dwarf_sources)
if HAVE_LIBDW
pkginclude_HEADERS += lib/pcln_dwarf.h
lib_libpcln_la_SOURCES += $(pcln_dwarf_sources)
lib_libpcln_internal_la_SOURCES += $(pcln_dwarf_sources)
endif
