## tools/local.mk -- rules for tools/, included by Makefile.am.

# The tools link libpcln's objects, and with them the static archives of
# the libraries it uses where configure found them (STATIC_DEPS): a
# `pclndump perf` run is some 20 ms, and loading libpcln.so and eight
# more shared libraries was 1.5 to 2 ms of it.
if STATIC_DEPS
pcln_tool_lib = lib/libpcln-internal.la
else
pcln_tool_lib = lib/libpcln.la
endif
include $(srcdir)/tools/ld.mk
include $(srcdir)/tools/dump.mk
