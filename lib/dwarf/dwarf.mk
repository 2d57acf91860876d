## lib/dwarf/dwarf.mk -- the ELF/DWARF importer (lib/dwarf/dwarf*.c, lib/dwarf/pcln_dwarf.h),
## included at the end of lib/local.mk.  Built only with libdw
## (configure --without-libdw leaves it out; pclnld --elf then says so).

pcln_dwarf_sources = lib/dwarf/pcln_dwarf.h lib/dwarf/dwarf_internal.h \
	lib/dwarf/dwarf.c lib/dwarf/dwarf_sym.c lib/dwarf/dwarf_line.c \
	lib/dwarf/dwarf_lineprog.c lib/dwarf/dwarf_subr.c \
	lib/dwarf/dwarf_inline.c lib/dwarf/dwarf_cfi.c lib/dwarf/dwarf_util.c \
	lib/dwarf/dwarf_fde.c

EXTRA_DIST += $(pcln_dwarf_sources)
if HAVE_LIBDW
pkginclude_HEADERS += lib/dwarf/pcln_dwarf.h
lib_libpcln_la_SOURCES += $(pcln_dwarf_sources)
lib_libpcln_internal_la_SOURCES += $(pcln_dwarf_sources)
endif
