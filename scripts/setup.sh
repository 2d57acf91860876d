#!/bin/sh
# scripts/setup.sh -- everything a fresh Debian 12 machine needs: install the
# missing packages, bootstrap Autotools, configure and build in _build/.
# Used by scripts/example.sh and scripts/test.sh; safe to run again.
set -eu
cd "$(dirname "$0")/.."
top=$(pwd)

# linux-perf: pclndump perf's tests record profiles and compare with
# perf script (tests/perf-record.sh); also the JIT example's perf test.
# googletest, libstb-dev: the real C++ and C programs tests/real-a2l.sh
# builds from their sources; ccache, so that the suite's four runs in CI
# compile googlemock once.
# debuginfod ... xz-utils: finding debug information (lib/find): debuginfod
# and its client library, libzstd, liblzma and xz (its tests also use
# elfutils' eu-addr2line and libc6-dbg's debug files, below); libzstd also
# reads perf record -z's profiles, and zstd makes them in
# tests/perf-badinput.sh.
# libbpf-dev bpftool: the BPF build of the runtime (bpf/).
# libtraceevent-dev: pclndump perf prints tracepoints' fields with it.
# elfutils (eu-stack, eu-addr2line), gdb, libc6-dbg (gdb's libc frames
# by name), util-linux (setpriv): the whole-process tests compare with
# them (tests/proc-stack.sh, proc-a2l.sh, xcrash-gdb.sh).
pkgs="build-essential autoconf automake libtool pkg-config check libxxhash-dev
libdw-dev libelf-dev binutils python3 golang-go clang libclang-rt-14-dev
gdb llvm
libiberty-dev
linux-perf
googletest libstb-dev ccache
debuginfod libdebuginfod-dev libzstd-dev liblzma-dev xz-utils zstd
libbpf-dev bpftool
libtraceevent-dev
elfutils gdb libc6-dbg util-linux"
missing=
for p in $pkgs; do
	dpkg-query -W -f='${Status}\n' "$p" 2>/dev/null | grep -q 'ok installed' ||
		missing="$missing $p"
done
if [ -n "$missing" ]; then
	echo "setup: installing:$missing"
	sudo=
	[ "$(id -u)" -eq 0 ] || sudo=sudo
	$sudo apt-get update -qq
	DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends $missing >/dev/null
fi

if [ ! -x configure ] || [ configure.ac -nt configure ] || [ ! -f Makefile.in ]; then
	autoreconf -fi
fi
mkdir -p _build
cd _build
if [ ! -f Makefile ] || [ ../configure -nt config.status ]; then
	../configure --enable-werror --with-bpf ${PCLN_CONFIGURE_FLAGS:-}
fi
make -j"$(nproc)"
