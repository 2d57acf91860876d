# tests/lib.sh -- what the CLI test scripts share; each starts with
#
#   . "${top_srcdir:-.}/tests/lib.sh"
#   test_workdir NAME	# a fresh $work, removed at exit; cd there
#
# and ends with its own summary and exit status.  This sets -u;
# top_builddir and top_srcdir (absolute; make check exports them), LD
# (pclnld), D (pclndump), CC; fails, ncase and fail MSG; real FILE, the
# program behind a libtool wrapper; use_real_tools, to run pclndump (and
# with "ld", pclnld) itself rather than through its wrapper.  A script
# that must undo more at exit than removing $work defines cleanup_hook.
# removable DIR: DIR's directories opened for rm -rf, its files untouched.
# For the output tests: no_temp NAME [DIR], a failure if DIR (default .)
# holds a dot file (a temporary left); big_pcln FILE, a description of
# 300 functions (a blob of ~21 KB, a map of ~17 KB).  use_go [WHAT]: an
# offline Go environment sharing the Go interop tests' build cache, or 1
# if there is no go.

set -u
: "${top_builddir:=.}" "${top_srcdir:=.}"
case $top_builddir in /*) ;; *) top_builddir=$(pwd)/$top_builddir ;; esac
case $top_srcdir in /*) ;; *) top_srcdir=$(pwd)/$top_srcdir ;; esac
LD=$top_builddir/tools/pclnld
D=$top_builddir/tools/pclndump
CC=${CC:-cc}
fails=0
ncase=0

# python3, resolved once to the interpreter itself: where python3 is a
# version manager's shim (pyenv's runs bash and `pyenv exec` on every
# call, 0.3-0.8 s here against 0.03 s for the interpreter), the calls
# of a test add up to minutes (go-raw.sh makes some 260).  The same
# interpreter either way: its sys.executable.
if command -v python3 >/dev/null 2>&1; then
	PYTHON3=$(python3 -c 'import sys; print(sys.executable)' 2>/dev/null) ||
	    PYTHON3=
	if [ -n "$PYTHON3" ] && [ -x "$PYTHON3" ]; then
		python3() { "$PYTHON3" "$@"; }
	fi
fi

fail() {
	echo "FAIL: $*" >&2
	fails=$((fails + 1))
}

# The real file behind a libtool wrapper.
real() {
	d=$(dirname "$1"); b=$(basename "$1")
	if [ -f "$d/.libs/$b" ]; then echo "$d/.libs/$b"
	elif [ -f "$d/.libs/lt-$b" ]; then echo "$d/.libs/lt-$b"
	else echo "$1"; fi
}

# Run pclndump and pclnld themselves, not libtool's wrapper scripts: a
# wrapper is a shell script run on every call (cli-badinput.sh calls
# pclnld 179 times: 30 s through the wrappers on a loaded CI machine),
# and argv[0] must reach the program for the pcln-addr2line name.  Done
# for every test below; a test may call it again (it does nothing then).
# Where configure found the static archives of libpcln's libraries, the
# tools link libpcln's objects and there is no wrapper; the programs
# linked with libpcln.so and run without theirs (go-env.sh's `real`)
# find it in lib/.libs either way.
use_real_tools() {
	case ":${LD_LIBRARY_PATH:-}:" in
	*":$top_builddir/lib/.libs:"*) ;;
	*)	LD_LIBRARY_PATH=$top_builddir/lib/.libs${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
		export LD_LIBRARY_PATH ;;
	esac
	if [ -x "$top_builddir/tools/.libs/pclndump" ] &&
	    [ "$(head -c 2 "$D")" = "#!" ]; then
		D=$top_builddir/tools/.libs/pclndump
	fi
	if [ -x "$top_builddir/tools/.libs/pclnld" ] &&
	    [ "$(head -c 2 "$LD")" = "#!" ]; then
		LD=$top_builddir/tools/.libs/pclnld
	fi
}
use_real_tools

# removable DIR: DIR's directories made writable and searchable for
# rm -rf, and nothing else: a file under DIR may be a hard link to one
# outside (perf's build-id cache in $HOME/.debug links the system's
# libraries where it can), whose mode and ctime are not ours to change.
removable() {
	find "$1" -type d ! -perm -u+rwx -exec chmod u+rwx {} + 2>/dev/null
}

test_cleanup() {
	if command -v cleanup_hook >/dev/null 2>&1; then
		cleanup_hook
	fi
	removable "$work"
	rm -rf "$work"
}

test_workdir() {
	work=$(mktemp -d "${TMPDIR:-/tmp}/$1.XXXXXX") || exit 99
	trap test_cleanup EXIT
	cd "$work" || exit 99
	# The table cache (lib/find) of whatever the test runs -- pclndump,
	# lib/proc's objects, the crash examples' pcln_self -- is the
	# test's own, never the user's, and starts empty.
	XDG_CACHE_HOME=$work/xdg-cache
	export XDG_CACHE_HOME
}

# cache_entry BUILDID: the path of the table cache's full entry for
# BUILDID (BUILDID.MAKER.pcln, lib/find/pcln_find.h), or fail (1).
cache_entry() {
	for _f in "$XDG_CACHE_HOME/pcln/$1".*.pcln; do
		case $_f in *.nodwarf.pcln) continue ;; esac
		[ -f "$_f" ] && { echo "$_f"; return 0; }
	done
	return 1
}

no_temp() {
	ls -a "${2:-.}" | grep -q '^\.[^.]' &&
	    fail "$1: temporary left: $(ls -a "${2:-.}" | grep '^\.[^.]')"
}

big_pcln() {
	awk 'BEGIN { for (i = 0; i < 300; i++) printf "func g%d size 32\n\tpcln 0:%d 8:%d\nend\n", i, i, i + 1 }' >"$1"
}

# use_go [WHAT]: an offline, private Go environment (no network, no
# modules, no cgo): 0, or 1 if go is not installed, after saying that
# WHAT is not done (a failure when CI=true: CI has go).  Its build cache
# is shared by the build trees of one machine (PCLN_TEST_GOCACHE, else
# $TMPDIR/pcln-test-gocache): Go's cache is keyed by content and safe to
# share, and the suite's four runs in CI (check, distcheck, in-tree,
# sanitized) compile Go's library for 386 and ppc64 once, not four
# times (some 7 s each).
use_go() {
	if ! command -v go >/dev/null 2>&1; then
		if [ -z "${1:-}" ]; then
			:
		elif [ "${CI:-}" = true ]; then
			fail "$1: the Go toolchain is not installed (golang-go)"
		else
			echo "note: no go: $1 not done"
		fi
		return 1
	fi
	GOCACHE=${PCLN_TEST_GOCACHE:-${TMPDIR:-/tmp}/pcln-test-gocache}
	GOPATH=$top_builddir/tests/gointerop/work/gopath
	GO111MODULE=off GOPROXY=off GOFLAGS= GOTOOLCHAIN=local \
	    GOTELEMETRY=off CGO_ENABLED=0
	export GOCACHE GOPATH GO111MODULE GOPROXY GOFLAGS GOTOOLCHAIN \
	    GOTELEMETRY CGO_ENABLED
	unset GOOS GOARCH GOROOT 2>/dev/null || true
	mkdir -p "$GOCACHE"
}
