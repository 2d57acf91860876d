#!/bin/sh
# tests/pkgconfig.sh -- libpcln.pc says what a static link of libpcln
# needs: a program that uses the perf reader (libzstd), the ELF/DWARF
# importer (libdw, libelf) and the debug-information search (liblzma)
# links against lib/.libs/libpcln.a with `pkg-config --static --libs
# libpcln`'s libraries alone, and runs.  Each library configure found is
# in Requires.private.
. "${top_srcdir:-.}/tests/lib.sh"
test_workdir pcln-pkgconfig

command -v pkg-config >/dev/null 2>&1 || { fail "no pkg-config"; exit 1; }
a=$top_builddir/lib/.libs/libpcln.a
[ -f "$a" ] || { echo "SKIP: no static library (configured --disable-static)"
	exit 77; }
PKG_CONFIG_PATH=$top_builddir${PKG_CONFIG_PATH:+:$PKG_CONFIG_PATH}
export PKG_CONFIG_PATH
req=$(pkg-config --print-requires-private libpcln) ||
	{ fail "pkg-config cannot read $top_builddir/libpcln.pc"; exit 1; }
for m in libxxhash $(sed -n 's/^#define HAVE_LIBDW 1$/libdw libelf/p;
    s/^#define HAVE_LIBZSTD 1$/libzstd/p; s/^#define HAVE_LIBLZMA 1$/liblzma/p' \
    "$top_builddir/config.h"); do
	ncase=$((ncase + 1))
	echo "$req" | grep -qx "$m" ||
		fail "Requires.private lacks $m (it says: $(echo $req))"
done

cat >use.c <<'C'
#include <config.h>
#include <stdio.h>
#include "pcln.h"
#include "pcln_perf.h"
#ifdef HAVE_LIBDW
#include "pcln_dwarf.h"
#endif

int
main(int argc, char **argv)
{
	static const unsigned char notperf[16] = "not a perf.data";
	pcln_perf *p = pcln_perf_open(notperf, sizeof notperf, 0, NULL);
	pcln_builder *b = NULL;
	pcln_err err;

	if (p != NULL)
		return 1;
#ifdef HAVE_LIBDW
	if (pcln_dwarf_import(argv[0], 0, &b, NULL, &err) < 0) {
		fprintf(stderr, "%s\n", err.msg);
		return 1;
	}
	pcln_builder_free(b);
#endif
	(void)argc, (void)b, (void)err;
	puts("linked");
	return 0;
}
C
libs=$(pkg-config --static --libs libpcln | tr ' ' '\n' |
    grep -v -e '^-lpcln$' -e '^-L' | tr '\n' ' ')
ncase=$((ncase + 1))
# shellcheck disable=SC2086
if ! ${PCLN_TEST_CC:-cc} ${PCLN_TEST_FLAGS:-} -g -I"$top_builddir" \
    -I"$top_srcdir/lib" -I"$top_srcdir/runtime" -I"$top_srcdir/lib/perf" \
    -I"$top_srcdir/lib/dwarf" -I"$top_srcdir/lib/find" \
    -I"$top_srcdir/lib/elf" -o use use.c "$a" $libs >link.log 2>&1; then
	fail "a static link with pkg-config --static --libs ($libs): $(grep \
	    -m 3 'undefined reference' link.log || tail -n 3 link.log)"
elif [ "$(./use 2>run.err)" != linked ]; then
	fail "the program linked statically does not run: $(cat run.err)"
fi
echo "pkgconfig: $ncase cases, $fails failures (Requires.private: $(echo $req))"
[ "$fails" -eq 0 ]
