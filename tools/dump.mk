## tools/dump.mk -- pclndump, included by tools/local.mk.

bin_PROGRAMS += tools/pclndump
tools_pclndump_SOURCES = tools/pclndump.c tools/dump.h tools/dump_input.c \
	tools/dump_json.c tools/dump_size.c tools/dump_cmds.c \
	tools/dump_a2l.c tools/dump_demangle.c tools/dump_find.c tools/dump_stack.c \
	tools/readfile.h tools/readfile.c tools/dump_perf.h tools/dump_perf.c \
	tools/dump_perf_tables.c tools/dump_flame.c tools/dump_trace.c \
	tools/dump_heap.c
tools_pclndump_CFLAGS = $(AM_CFLAGS) $(TRACEEVENT_CFLAGS)
tools_pclndump_LDADD = $(pcln_tool_lib) $(LIBIBERTY_LIBS) $(TOOL_TRACEEVENT_LIBS)

# pcln-addr2line: pclndump in addr2line mode when called by that name.
install-exec-hook: install-pcln-addr2line
uninstall-hook: uninstall-pcln-addr2line
install-pcln-addr2line:
	cd "$(DESTDIR)$(bindir)" && rm -f pcln-addr2line$(EXEEXT) && \
	ln -s pclndump$(EXEEXT) pcln-addr2line$(EXEEXT)
uninstall-pcln-addr2line:
	rm -f "$(DESTDIR)$(bindir)/pcln-addr2line$(EXEEXT)"
.PHONY: install-pcln-addr2line uninstall-pcln-addr2line
