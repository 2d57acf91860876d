## tests/demangle.mk -- pclndump -C / --demangle against binutils
## addr2line -C (tests/demangle.sh; it needs pclnld --elf), included by
## tests/local.mk.

dist_check_SCRIPTS += tests/demangle.sh
dist_check_DATA += tests/demangle/names.cc tests/demangle/foreign.txt
if HAVE_LIBDW
TESTS += tests/demangle.sh
endif
