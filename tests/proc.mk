## tests/proc.mk -- a whole process (lib/proc, issue 16), included by
## tests/local.mk.
##
## tests/proc/check_maps: the /proc/PID/maps parser and the mapping set.

check_PROGRAMS += tests/proc/check_maps
tests_proc_check_maps_SOURCES = tests/proc/check_maps.c
tests_proc_check_maps_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS)
tests_proc_check_maps_LDADD = lib/libpcln.la $(CHECK_LIBS)
TESTS += tests/proc/check_maps

## tests/xcrash-gdb.sh: examples/xcrash (and xcrash-cxx): a crash in a
##   shared library through libc's qsort, and in a dlopen'ed plugin,
##   symbolized by the program's own handler over every object's table;
##   against gdb's bt (tests/xcrash-frames.py, tests/xcrash-gdb.py).
dist_check_SCRIPTS += tests/xcrash-gdb.sh
dist_check_DATA += tests/xcrash-frames.py tests/xcrash-gdb.py
if HAVE_LIBDW
TESTS += tests/xcrash-gdb.sh
endif
