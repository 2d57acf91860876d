## tools/local.mk -- rules for tools/, included by Makefile.am.
