## examples/local.mk -- rules for examples/, included by Makefile.am.
include $(srcdir)/examples/runtime.mk
