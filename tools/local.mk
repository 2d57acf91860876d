## tools/local.mk -- rules for tools/, included by Makefile.am.
include $(srcdir)/tools/ld.mk
include $(srcdir)/tools/dump.mk
