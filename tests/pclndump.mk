## tests/pclndump.mk -- the pclndump tests, included by tests/local.mk.
## tests/cli-pclndump.sh runs every command against the golden outputs in
## tests/pclndump/*.out, compares addr2line mode with binutils addr2line
## and feeds it corrupt inputs.

TESTS += tests/cli-pclndump.sh
dist_check_SCRIPTS += tests/cli-pclndump.sh
dist_check_DATA += tests/pclndump/a2l.c tests/pclndump/be32.pcln \
	tests/pclndump/names.pcln \
	$(pclndump_golden)

## tests/cli-a2l-lazy.sh: addr2line mode without the verifier (its
## default): the same answers as --verify on sound blobs, "??" and one
## warning for a damaged function, no crash on any flipped byte.
TESTS += tests/cli-a2l-lazy.sh
dist_check_SCRIPTS += tests/cli-a2l-lazy.sh

# The golden outputs, one per case (see golden() in the script).
pclndump_golden = \
	tests/pclndump/summary.out \
	tests/pclndump/summary-json.out \
	tests/pclndump/summary-go12.out \
	tests/pclndump/summary-be32.out \
	tests/pclndump/functions.out \
	tests/pclndump/functions-json.out \
	tests/pclndump/functions-name.out \
	tests/pclndump/functions-range.out \
	tests/pclndump/functions-none.out \
	tests/pclndump/functions-be32.out \
	tests/pclndump/func.out \
	tests/pclndump/func-json.out \
	tests/pclndump/func-addr.out \
	tests/pclndump/lookup.out \
	tests/pclndump/lookup-json.out \
	tests/pclndump/lookup-stdin.out \
	tests/pclndump/lookup-stdin-json.out \
	tests/pclndump/line.out \
	tests/pclndump/line-json.out \
	tests/pclndump/names-json.out \
	tests/pclndump/verify.out \
	tests/pclndump/verify-json.out \
	tests/pclndump/a2l.out \
	tests/pclndump/a2l-fapsi.out \
	tests/pclndump/a2l-fa.out \
	tests/pclndump/a2l-be32.out \
	tests/pclndump/usage-nocmd.out \
	tests/pclndump/usage-badcmd.out \
	tests/pclndump/usage-nofile.out \
	tests/pclndump/usage-func.out \
	tests/pclndump/usage-range.out \
	tests/pclndump/usage-opt.out \
	tests/pclndump/elf-nosection.out \
	tests/pclndump/elf-go120.out \
	tests/pclndump/elf-gojunk.out \
	tests/pclndump/raw-go116.out \
	tests/pclndump/err-empty.out \
	tests/pclndump/err-missing.out \
	tests/pclndump/err-dir.out \
	tests/pclndump/err-garbage.out \
	tests/pclndump/err-badelf.out \
	tests/pclndump/err-trunc.out \
	tests/pclndump/err-trunc-json.out

# The ELF section finder (lib/elf/elf.c), white-box.
check_PROGRAMS += tests/pclndump/check_elf
tests_pclndump_check_elf_SOURCES = tests/pclndump/check_elf.c
tests_pclndump_check_elf_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS)
tests_pclndump_check_elf_LDADD = lib/libpcln-internal.la $(CHECK_LIBS)
TESTS += tests/pclndump/check_elf

# The size breakdown (tools/dump_size.c) against the builder's statistics,
# on blobs with an inline tree, white-box.
check_PROGRAMS += tests/pclndump/check_size
tests_pclndump_check_size_SOURCES = tests/pclndump/check_size.c \
	tools/dump_size.c tools/dump_input.c tools/dump_find.c tools/dump.h \
	tools/readfile.h tools/readfile.c
tests_pclndump_check_size_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/tools
tests_pclndump_check_size_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS)
tests_pclndump_check_size_LDADD = lib/libpcln.la $(CHECK_LIBS)
TESTS += tests/pclndump/check_size

# func, lookup and line check only the functions they read.
TESTS += tests/cli-dump-lazy.sh
dist_check_SCRIPTS += tests/cli-dump-lazy.sh
