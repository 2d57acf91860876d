#!/bin/sh
# scripts/test.sh -- the whole test suite from a fresh Debian 12 machine:
# set-up (scripts/setup.sh), then `make check` and `make distcheck`.
set -eu
cd "$(dirname "$0")/.."
./scripts/setup.sh
cd _build
rc=0
make -j"$(nproc)" check || rc=$?
../scripts/summary.sh . || true
if [ "$rc" -ne 0 ]; then
	echo "test.sh: make check failed" >&2
	exit "$rc"
fi
make -j"$(nproc)" distcheck
