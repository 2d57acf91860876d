## doc/local.mk -- rules for doc/, included by Makefile.am.
