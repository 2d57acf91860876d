## tests/local.mk -- rules for tests/, included by Makefile.am.
