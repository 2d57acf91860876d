## lib/proc/proc.mk -- a whole process (lib/proc/*.c, lib/proc/pcln_proc.h):
## address spaces from /proc/PID/maps or perf's MMAP2 records, the
## objects' tables, symbolization, the unwinder over every object,
## ptrace, and this process's objects in a runtime registry.  Included
## at the end of lib/local.mk.  Uses lib/elf, lib/go and (with libdw)
## lib/dwarf.

pcln_proc_sources = lib/proc/pcln_proc.h lib/proc/proc_internal.h \
	lib/proc/maps.c lib/proc/objects.c lib/proc/aspace.c \
	lib/proc/ptrace.c lib/proc/self.c lib/proc/registry.c

pkginclude_HEADERS += lib/proc/pcln_proc.h
lib_libpcln_la_SOURCES += $(pcln_proc_sources)
lib_libpcln_internal_la_SOURCES += $(pcln_proc_sources)
