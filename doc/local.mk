## doc/local.mk -- rules for doc/, included by Makefile.am.

EXTRA_DIST += doc/FORMAT.md doc/DESIGN.md doc/IMPORT.md doc/PERFORMANCE.md

dist_man_MANS += doc/pclndump.1
EXTRA_DIST += doc/JSON.md
dist_man_MANS += doc/pclnld.1
EXTRA_DIST += doc/DESCRIPTION.md
EXTRA_DIST += doc/flamegraph.png
