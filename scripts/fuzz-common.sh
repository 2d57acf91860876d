# scripts/fuzz-common.sh -- sourced by fuzz.sh and fuzz-long.sh.
#
# fuzz_setup [BUILDDIR]: set b to BUILDDIR, or make _build-fuzz
# (CC=clang --enable-fuzzing) and build it; set targets to the fuzz
# targets built there (every fuzz/fuzz_* program: fuzz_dwarf only where
# configure found libdw), or to FUZZ_TARGETS if set.  Expects top (the
# source tree).
fuzz_setup() {
	if [ $# -ge 1 ]; then
		b=$1
	else
		b=$top/_build-fuzz
		if [ ! -f "$b/Makefile" ] || [ "$top/configure" -nt "$b/config.status" ]; then
			mkdir -p "$b"
			(cd "$b" && CC=clang "$top/configure" --enable-fuzzing \
			    --enable-werror -q)
		fi
		make -C "$b" -j"$(nproc)" >/dev/null
	fi
	targets=${FUZZ_TARGETS:-$(find "$b/fuzz" -maxdepth 1 -type f \
	    -perm -u+x -name 'fuzz_*' ! -name '*.*' -printf '%f\n' | sort)}
	if [ -z "$targets" ]; then
		echo "${0##*/}: no target built in $b/fuzz" >&2
		exit 2
	fi
}
