## tests/dwarf.mk -- pclnld --elf / --go and the crash example (issue 7),
## included by tests/local.mk.
##
## tests/cli-pclnld-import.sh: pclnld --go and --elf from the command line.
## tests/elf-a2l.sh: pclndump addr2line against binutils addr2line at
##   every instruction of real programs (gcc and clang builds).
## tests/elf-cfi.sh: pcsp against readelf's CFI at every instruction.
## tests/crash-gdb.sh: examples/crash's and examples/crash-cxx's handler
##   traceback against gdb's bt (tests/crash-frames.py compares the C++
##   frames), and no allocation in the handler.
## tests/real-a2l.sh (with tests/a2l-agree.py): googlemock and stb built
##   from Debian's sources with gcc and clang, pclndump addr2line against
##   binutils and llvm-addr2line, every difference in a category.
## tests/elf-import.sh: the importer on crafted programs: COMDAT copies,
##   a sequence's empty last row, names, discriminators, damaged sections.
## tests/elf-stripped.sh: a shared object stripped to .dynsym: a function
##   and pcsp for every FDE (unnamed where no symbol names it).

dist_check_SCRIPTS += tests/cli-pclnld-import.sh tests/elf-a2l.sh \
	tests/elf-cfi.sh tests/crash-gdb.sh tests/crash-frames.py \
	tests/real-a2l.sh tests/elf-import.sh tests/elf-stripped.sh
EXTRA_DIST += tests/a2l-agree.py tests/dwarf/seqend.s
# (real-a2l.sh is in TESTS from tests/local.mk, with the longest.)
if HAVE_LIBDW
TESTS += tests/cli-pclnld-import.sh tests/elf-a2l.sh tests/elf-cfi.sh \
	tests/crash-gdb.sh tests/elf-import.sh tests/elf-stripped.sh
endif

## tests/dwarf/check_inline: the INLTREE section (builder, verifier,
##   runtime); needs no libdw.
check_PROGRAMS += tests/dwarf/check_inline
tests_dwarf_check_inline_SOURCES = tests/dwarf/check_inline.c
tests_dwarf_check_inline_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS)
tests_dwarf_check_inline_LDADD = lib/libpcln.la $(CHECK_LIBS)
TESTS += tests/dwarf/check_inline

## tests/dwarf/check_cfa: pclnrt_traceback with the CFA-rule pcdata
##   (PCLNRT_TB_FP) on a synthetic stack.
check_PROGRAMS += tests/dwarf/check_cfa
tests_dwarf_check_cfa_SOURCES = tests/dwarf/check_cfa.c
tests_dwarf_check_cfa_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS)
tests_dwarf_check_cfa_LDADD = lib/libpcln.la $(CHECK_LIBS)
TESTS += tests/dwarf/check_cfa
