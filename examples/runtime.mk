## examples/runtime.mk -- the traceback example, included from
## examples/local.mk.  Run as a test: it exits 0 only if the walk finds
## every frame of its call chain.

noinst_PROGRAMS += examples/traceback
examples_traceback_SOURCES = examples/traceback.c
examples_traceback_LDADD = lib/libpcln.la
EXTRA_DIST += examples/traceback.pcln
TESTS += examples/traceback
