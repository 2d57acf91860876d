## examples/xcrash.mk -- a crash across objects, symbolized from its own
## signal handler (examples/xcrash.c; included from examples/local.mk):
## the program, its shared library libxcrash.so (the crash is in a qsort
## comparator there) and a plugin it loads with dlopen, each with a
## table from pcln_self_open / pcln_self_refresh (libpcln, lib/proc):
## examples/crash_handler.c built with -DCRASH_PROCESS.
## The two shared objects are built here directly (-shared -fPIC): they
## are the example's, never installed.  tests/xcrash-gdb.sh compares the
## handler's frames with gdb's.

if HAVE_LIBDW
xcrash_cflags = -O2 -g -fomit-frame-pointer

check_PROGRAMS += examples/xcrash
examples_xcrash_SOURCES = examples/xcrash.c examples/crash_handler.c \
	examples/crash_handler.h
examples_xcrash_CFLAGS = $(AM_CFLAGS) $(xcrash_cflags) -DCRASH_PROCESS
# -static: libpcln linked in (libtool makes no wrapper script, so gdb
# and the tests run the program itself).
examples_xcrash_LDFLAGS = -static -Lexamples \
	-Wl,-rpath,$(abs_builddir)/examples
examples_xcrash_LDADD = lib/libpcln.la -lxcrash -ldl
EXTRA_examples_xcrash_DEPENDENCIES = examples/libxcrash.so \
	examples/xcrash-plugin.so

examples/libxcrash.so: examples/xcrash_lib.c
	@$(MKDIR_P) $(@D)
	$(AM_V_CC)$(CC) $(AM_CFLAGS) $(CFLAGS) $(xcrash_cflags) -fPIC \
	    -shared -Wl,-soname,libxcrash.so -o $@ \
	    $(srcdir)/examples/xcrash_lib.c

examples/xcrash-plugin.so: examples/xcrash_plugin.c
	@$(MKDIR_P) $(@D)
	$(AM_V_CC)$(CC) $(AM_CFLAGS) $(CFLAGS) $(xcrash_cflags) -fPIC \
	    -shared -o $@ $(srcdir)/examples/xcrash_plugin.c

CLEANFILES += examples/libxcrash.so examples/xcrash-plugin.so

if HAVE_CXX
# The C++ variant: the same program and handler (with -DCRASH_DEMANGLE,
# libiberty) over a C++ library and a C++ plugin.
check_PROGRAMS += examples/xcrash-cxx
examples_xcrash_cxx_SOURCES = examples/xcrash.c examples/crash_handler.c \
	examples/crash_handler.h
examples_xcrash_cxx_CFLAGS = $(AM_CFLAGS) $(xcrash_cflags) \
	-DCRASH_PROCESS -DCRASH_DEMANGLE \
	-DXCRASH_PLUGIN_NAME='"xcrash-cxx-plugin.so"'
examples_xcrash_cxx_LDFLAGS = $(examples_xcrash_LDFLAGS)
examples_xcrash_cxx_LDADD = lib/libpcln.la -lxcrash-cxx -ldl \
	$(LIBIBERTY_LIBS)
EXTRA_examples_xcrash_cxx_DEPENDENCIES = examples/libxcrash-cxx.so \
	examples/xcrash-cxx-plugin.so

examples/libxcrash-cxx.so: examples/xcrash_cxx_lib.cc
	@$(MKDIR_P) $(@D)
	$(AM_V_CXX)$(CXX) $(CXXFLAGS) $(xcrash_cflags) -fPIC -shared \
	    -Wl,-soname,libxcrash-cxx.so -o $@ \
	    $(srcdir)/examples/xcrash_cxx_lib.cc

examples/xcrash-cxx-plugin.so: examples/xcrash_cxx_plugin.cc
	@$(MKDIR_P) $(@D)
	$(AM_V_CXX)$(CXX) $(CXXFLAGS) $(xcrash_cflags) -fPIC -shared \
	    -o $@ $(srcdir)/examples/xcrash_cxx_plugin.cc

CLEANFILES += examples/libxcrash-cxx.so examples/xcrash-cxx-plugin.so
endif
endif
EXTRA_DIST += examples/xcrash.c examples/xcrash_lib.c \
	examples/xcrash_plugin.c examples/xcrash_cxx_lib.cc \
	examples/xcrash_cxx_plugin.cc
