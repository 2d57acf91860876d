## tests/proc.mk -- a whole process (lib/proc, issue 16), included by
## tests/local.mk.
##
## tests/proc/check_maps: the /proc/PID/maps parser and the mapping set.

check_PROGRAMS += tests/proc/check_maps
tests_proc_check_maps_SOURCES = tests/proc/check_maps.c
tests_proc_check_maps_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS)
tests_proc_check_maps_LDADD = lib/libpcln.la $(CHECK_LIBS) -ldl
TESTS += tests/proc/check_maps
if HAVE_LIBDW
# test_self_dlclose: pcln_self_refresh after dlopen and dlclose of a
# plugin, with a reader record holding its module.
tests_proc_check_maps_CFLAGS += \
	-DCHECK_MAPS_PLUGIN='"$(abs_builddir)/tests/proc/target-plugin.so"'
EXTRA_tests_proc_check_maps_DEPENDENCIES = tests/proc/target-plugin.so
endif

## tests/xcrash-gdb.sh: examples/xcrash (and xcrash-cxx): a crash in a
##   shared library through libc's qsort, and in a dlopen'ed plugin,
##   symbolized by the program's own handler over every object's table;
##   against gdb's bt (tests/xcrash-frames.py, tests/xcrash-gdb.py).
dist_check_SCRIPTS += tests/xcrash-gdb.sh
dist_check_DATA += tests/xcrash-frames.py tests/xcrash-gdb.py tests/frame_names.py
if HAVE_LIBDW
TESTS += tests/xcrash-gdb.sh
endif

## tests/proc/target: a live process with a shared library, a plugin and
##   threads in known places (target.c says which), for the tests below
##   and bench/.  The two shared objects are built here directly.
if HAVE_LIBDW
target_cflags = -O2 -g -fomit-frame-pointer
check_PROGRAMS += tests/proc/target
tests_proc_target_SOURCES = tests/proc/target.c
tests_proc_target_CFLAGS = $(AM_CFLAGS) $(target_cflags) -pthread
tests_proc_target_LDFLAGS = -Ltests/proc \
	-Wl,-rpath,$(abs_builddir)/tests/proc
tests_proc_target_LDADD = -ltarget -ldl -lpthread
EXTRA_tests_proc_target_DEPENDENCIES = tests/proc/libtarget.so \
	tests/proc/target-plugin.so

tests/proc/libtarget.so: tests/proc/target_lib.c
	@$(MKDIR_P) $(@D)
	$(AM_V_CC)$(CC) $(AM_CFLAGS) $(CFLAGS) $(target_cflags) -pthread \
	    -fPIC -shared -Wl,-soname,libtarget.so -o $@ \
	    $(srcdir)/tests/proc/target_lib.c

tests/proc/target-plugin.so: tests/proc/target_plugin.c
	@$(MKDIR_P) $(@D)
	$(AM_V_CC)$(CC) $(AM_CFLAGS) $(CFLAGS) $(target_cflags) -fPIC \
	    -shared -o $@ $(srcdir)/tests/proc/target_plugin.c

CLEANFILES += tests/proc/libtarget.so tests/proc/target-plugin.so
endif
EXTRA_DIST += tests/proc/target_lib.c tests/proc/target_plugin.c
dist_check_DATA += tests/proc/start.sh

## tests/proc-stack.sh: pclndump stack --pid on tests/proc/target against
##   eu-stack -p and gdb (tests/proc-stacks.py, tests/proc-gdb.py); bad
##   input: no such pid, no permission, a corrupt stack, a mapping gone,
##   the process killed mid-walk.
dist_check_SCRIPTS += tests/proc-stack.sh
dist_check_DATA += tests/proc-stacks.py tests/proc-gdb.py
if HAVE_LIBDW
TESTS += tests/proc-stack.sh
endif

## tests/proc-a2l.sh: pclndump addr2line --pid against eu-addr2line --pid
##   (tests/proc-a2l.py); the vDSO, [stack], deleted, replaced and
##   disappearing mappings; bad input.
dist_check_SCRIPTS += tests/proc-a2l.sh
dist_check_DATA += tests/proc-a2l.py
if HAVE_LIBDW
TESTS += tests/proc-a2l.sh
endif
