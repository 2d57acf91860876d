#!/bin/sh
# bpf-verifier.sh -- the runtime's lookups (code map -> findfunc -> pcsp,
# and funcline), compiled from the runtime's own sources with clang
# -target bpf (bpf/pclnrt.bpf.o), must be accepted by the running
# kernel's verifier and give, through BPF_PROG_TEST_RUN, the C runtime's
# answer at every pc of: a real C program's table (libpcln.so, imported
# with pclnld --elf), the crash example's, a synthetic table of 10^5
# functions (pcln-bench-gen ... small) and 1000 JIT functions, all in one
# code map.  Prints the kernel, the verifier's instruction count, the
# program's size (check_bpf, and bpftool as a second opinion).
#
# Skips (77) only where the kernel refuses to load a trivial BPF program
# (check_bpf tries one first), or where configure found no libbpf or no
# clang that targets bpf (scripts/setup.sh installs both and configures
# --with-bpf, so CI cannot skip silently).
. "${top_srcdir:-.}/tests/lib.sh"
CHECK=$top_builddir/bpf/check_bpf
OBJ=$top_builddir/bpf/pclnrt.bpf.o
GEN=$top_builddir/bench/pcln-bench-gen

echo "kernel: $(uname -r)"
if [ ! -x "$CHECK" ] || [ ! -f "$OBJ" ]; then
	echo "SKIP: configured without the BPF program (libbpf-dev or a" \
	    "clang that targets bpf missing at configure time)"
	exit 77
fi
pin=
cleanup_hook() { [ -z "$pin" ] || rm -f "$pin"; }
test_workdir pcln-bpf
tmp=$work

blobs=
lib=$top_builddir/lib/.libs/libpcln.so
if [ -f "$lib" ] && "$LD" --elf "$lib" -o "$tmp/libpcln.blob" \
    2>"$tmp/err"; then
	blobs="$blobs $tmp/libpcln.blob"
elif grep -q 'built without libdw' "$tmp/err" 2>/dev/null; then
	echo "note: pclnld has no ELF importer (libdw): no real program's table"
else
	echo "FAIL: pclnld --elf $lib:" >&2
	cat "$tmp/err" >&2
	exit 1
fi
if [ -f "$top_builddir/examples/crash.blob" ]; then
	blobs="$blobs $top_builddir/examples/crash.blob"
else
	echo "FAIL: no $top_builddir/examples/crash.blob (make check builds it)" >&2
	exit 1
fi
"$GEN" 100000 1 small >"$tmp/s.pcln" &&
    "$LD" -o "$tmp/s.blob" "$tmp/s.pcln" || {
	echo "FAIL: cannot make the synthetic table" >&2
	exit 1
}
blobs="$blobs $tmp/s.blob"

# shellcheck disable=SC2086
"$CHECK" "$OBJ" --jit 1000 $blobs >"$tmp/out" 2>&1
rc=$?
cat "$tmp/out"
[ "$rc" -eq 77 ] && exit 77
if [ "$rc" -ne 0 ]; then
	echo "FAIL: check_bpf exited $rc" >&2
	exit 1
fi
grep -q '^verifier: accepted' "$tmp/out" &&
    grep -q ', 0 differ;' "$tmp/out" || {
	echo "FAIL: no verdict in check_bpf's output" >&2
	exit 1
}

# A second opinion: bpftool loads the same object (pinned in bpffs, if
# mounted) and reports its size.
if command -v bpftool >/dev/null 2>&1 && [ -d /sys/fs/bpf ]; then
	pin=/sys/fs/bpf/pcln_test_$$
	if bpftool prog load "$OBJ" "$pin" type syscall >"$tmp/bt" 2>&1; then
		bpftool prog show pinned "$pin" | sed 's/^/bpftool: /'
	else
		echo "FAIL: bpftool prog load refused the object:" >&2
		tail -n 5 "$tmp/bt" >&2
		exit 1
	fi
	rm -f "$pin"
	pin=
else
	echo "note: no bpftool or no /sys/fs/bpf: second opinion skipped"
fi
exit 0
