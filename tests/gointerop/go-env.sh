# go-env.sh -- sourced by the Go interop tests: find Go, set up a private,
# offline Go environment under the build tree, build gosymcheck.
#
# Without `go` the tests say so loudly and skip (exit 77), or fail when
# CI=true.  Everything Go writes goes to $work, removed by `make clean`.

: "${top_builddir:?}" "${top_srcdir:?}"
if ! command -v go >/dev/null 2>&1; then
	echo "$0: *** the Go toolchain (go) is not installed: the Go" \
	    "interoperability tests CANNOT RUN (apt-get install golang-go) ***" >&2
	if [ "${CI:-}" = true ]; then
		echo "$0: CI=true: failing instead of skipping" >&2
		exit 1
	fi
	exit 77
fi

gointerop=$top_srcdir/tests/gointerop
work=$top_builddir/tests/gointerop/work
mkdir -p "$work"
. "$top_srcdir/tests/lib.sh"	# use_go: the environment, shared
use_go

# The programs themselves, not libtool's wrapper scripts: go-raw.sh
# alone runs pclndump 448 times, and each wrapper costs a shell.
use_real_tools ld
pclnjson=$(real "$top_builddir/tests/gointerop/pclnjson")
pclndump=$D
pclnld=$LD
gosymcheck=$work/gosymcheck-$(basename "$0" .sh)
if [ ! -x "$gosymcheck" ] || [ "$gointerop/gosymcheck.go" -nt "$gosymcheck" ]; then
	go build -o "$gosymcheck" "$gointerop/gosymcheck.go" || {
		echo "$0: cannot build gosymcheck with $(go version)" >&2
		exit 1
	}
fi

# Go's minor version, e.g. 19 for go1.19.8.
go_minor=$(go env GOVERSION | sed -n 's/^go1\.\([0-9]*\).*/\1/p')
