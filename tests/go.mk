## tests/go.mk -- Go interoperability (issue 6), included by tests/local.mk.
##
## tests/check_goimport: the Go pclntab importer against synthetic tables in
##   every Go layout (Check suite; needs no Go toolchain).
## tests/gointerop/*.sh: Go's debug/gosym reads our blobs, and we read real
##   Go binaries and raw Go tables of every layout (go-raw.sh); they build
##   Go programs with the installed `go` at test time (skip, exit 77,
##   without Go; fail under CI=true).

check_PROGRAMS += tests/check_goimport
TESTS += tests/check_goimport

tests_check_goimport_SOURCES = tests/check_goimport.c
tests_check_goimport_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS)
tests_check_goimport_LDADD = lib/libpcln-internal.la $(CHECK_LIBS) \
	$(XXHASH_LIBS)

check_PROGRAMS += tests/gointerop/pclnjson tests/gointerop/randblob
tests_gointerop_pclnjson_SOURCES = tests/gointerop/pclnjson.c
tests_gointerop_pclnjson_LDADD = lib/libpcln.la
tests_gointerop_randblob_SOURCES = tests/gointerop/randblob.c
tests_gointerop_randblob_LDADD = lib/libpcln.la

# (pcln-reads-go.sh and go-raw.sh are in TESTS from tests/local.mk,
# with the longest.)
TESTS += tests/gointerop/go-reads-pcln.sh
dist_check_SCRIPTS += tests/gointerop/go-reads-pcln.sh \
	tests/gointerop/pcln-reads-go.sh tests/gointerop/go-raw.sh
dist_check_DATA += tests/gointerop/go-env.sh tests/gointerop/gosymcheck.go \
	tests/gointerop/gosyma2l.go \
	tests/gointerop/prog/main.go tests/gointerop/prog/helper.go

# The Go tests' binaries and blobs live under tests/gointerop/work (Go's
# build cache is shared: tests/lib.sh, use_go).
clean-local: clean-gointerop
clean-gointerop:
	-chmod -R u+w tests/gointerop/work 2>/dev/null
	-rm -rf tests/gointerop/work
.PHONY: clean-gointerop
