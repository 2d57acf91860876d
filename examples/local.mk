## examples/local.mk -- rules for examples/, included by Makefile.am.
include $(srcdir)/examples/runtime.mk

# rtlookup: the runtime answering pc queries about a pclnld blob (the
# README's main job); tests/examples.sh checks its answers.
noinst_PROGRAMS += examples/rtlookup
examples_rtlookup_SOURCES = examples/rtlookup.c
examples_rtlookup_LDADD = runtime/libpclnrt.la
TESTS += tests/examples.sh
dist_check_SCRIPTS += tests/examples.sh
include $(srcdir)/examples/crash.mk
include $(srcdir)/examples/jit.mk
include $(srcdir)/examples/xcrash.mk
