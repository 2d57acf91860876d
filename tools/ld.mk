## tools/ld.mk -- pclnld, included by tools/local.mk.

bin_PROGRAMS += tools/pclnld
tools_pclnld_SOURCES = tools/pclnld.c tools/readfile.h tools/readfile.c
tools_pclnld_LDADD = $(pcln_tool_lib)
