## tests/proc.mk -- a whole process (lib/proc, issue 16), included by
## tests/local.mk.
##
## tests/proc/check_maps: the /proc/PID/maps parser and the mapping set.

check_PROGRAMS += tests/proc/check_maps
tests_proc_check_maps_SOURCES = tests/proc/check_maps.c
tests_proc_check_maps_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS)
tests_proc_check_maps_LDADD = lib/libpcln.la $(CHECK_LIBS)
TESTS += tests/proc/check_maps
