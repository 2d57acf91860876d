#!/bin/sh
# scripts/intree.sh -- the packager's build: a fresh clone of the committed
# tree (HEAD) in a temporary directory, built in its source tree
# (autoreconf -fi && ./configure && make check), as an Autotools user
# builds first.  scripts/test.sh runs it after the out-of-tree make check
# and make distcheck; it catches a build that writes files a test then
# mistakes for sources.  Uncommitted changes are not in the clone.
set -eu
cd "$(dirname "$0")/.."
top=$(pwd)
tmp=$(mktemp -d "${TMPDIR:-/tmp}/pcln-intree.XXXXXX")
# Others may enter it: tests/proc-stack.sh runs the built pclndump as
# user nobody (the no-ptrace-permission case), which must reach
# libpcln.so here (mktemp -d makes a 0700 directory).
chmod 755 "$tmp"
trap 'chmod -R u+w "$tmp" 2>/dev/null; rm -rf "$tmp"' EXIT
git clone -q "$top" "$tmp/pcln"
cd "$tmp/pcln"
echo "intree.sh: in-tree build of $(git log -1 --format='%h %s' | cut -c1-60)"
autoreconf -fi >/dev/null 2>&1
./configure --enable-werror ${PCLN_CONFIGURE_FLAGS:-} >/dev/null
make -j"$(nproc)" >/dev/null
# Go's build cache from the out-of-tree build, if there is one: the Go
# interop tests then need not compile Go's runtime for each target again.
if [ -d "$top/_build/tests/gointerop/work/gocache" ]; then
	mkdir -p tests/gointerop/work
	cp -a "$top/_build/tests/gointerop/work/gocache" tests/gointerop/work/
fi
rc=0
make -j"$(nproc)" check >check.log 2>&1 || rc=$?
"$top/scripts/summary.sh" . || true
if [ "$rc" -ne 0 ]; then
	echo "intree.sh: make check in the source tree failed" >&2
	exit "$rc"
fi
# The build left every committed file as it was.
if [ -n "$(git status --porcelain --untracked-files=no)" ]; then
	git status --porcelain --untracked-files=no >&2
	echo "intree.sh: the in-tree build changed committed files" >&2
	exit 1
fi
# ... and wrote nothing .gitignore does not name: `git status` stays
# clean for someone who builds in the tree.
if [ -n "$(git status --porcelain)" ]; then
	git status --porcelain | head -n 20 >&2
	echo "intree.sh: the in-tree build left files that .gitignore does not name" >&2
	exit 1
fi
echo "intree.sh: in-tree make check passed"
