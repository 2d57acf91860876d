#!/bin/sh
# bench/sqlite.sh -- the SQLite 3 shell, built once from Debian's source
# package, for bench/peers.sh and bench/perf.sh.
#
#   sh bench/sqlite.sh DIR
#
# Builds DIR/sqlite3 (gcc -O2 -g, no frame pointers: the x86-64 default)
# from the sqlite3 source package's amalgamation, unless it is there,
# and prints its path.  The source comes through apt-get source with a
# private state (the system's own Debian sources, as deb-src); tclsh
# (package tcl) makes the amalgamation.  Exit 77 with the reason on
# stderr where it cannot be had; 1 if it does not build.
set -eu
Q=${1:?usage: sqlite.sh DIR}
installed() { dpkg-query -W -f='${Status}\n' "$1" 2>/dev/null | grep -q 'ok installed'; }

if [ ! -x "$Q/sqlite3" ]; then
	if ! installed tcl; then
		echo "tcl is not installed" >&2
		exit 77
	fi
	echo "sqlite.sh: building the SQLite shell from Debian's source" >&2
	rm -rf "$Q"
	mkdir -p "$Q/apt/lists/partial" "$Q/apt/cache/archives/partial" \
	    "$Q/apt/sources.list.d"
	for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list \
	    /etc/apt/sources.list.d/*.sources; do
		[ -f "$f" ] || continue
		case $f in
		*.sources) sed 's/^Types:.*/Types: deb-src/' "$f" ;;
		*) sed -n 's/^deb /deb-src /p' "$f" ;;
		esac > "$Q/apt/sources.list.d/$(basename "$f")"
	done
	set -- -o Dir::Etc::SourceList=/dev/null \
	    -o Dir::Etc::SourceParts="$Q/apt/sources.list.d" \
	    -o Dir::State::Lists="$Q/apt/lists" \
	    -o Dir::Cache="$Q/apt/cache"
	if ! apt-get "$@" update -qq >"$Q/apt.log" 2>&1 ||
	    ! (cd "$Q" && apt-get "$@" source --download-only -qq sqlite3) \
	    >>"$Q/apt.log" 2>&1; then
		echo "apt-get source sqlite3 failed, see $Q/apt.log" >&2
		exit 77
	fi
	tar xf "$(ls "$Q"/sqlite3_*.orig.tar.* | head -1)" -C "$Q"
	src=$(ls -d "$Q"/sqlite3-*/ "$Q"/sqlite-*/ 2>/dev/null | head -1)
	mkdir -p "$Q/bld"
	(cd "$Q/bld" && "$src/configure" --disable-tcl >configure.log 2>&1 &&
	    make sqlite3.c shell.c >make.log 2>&1 &&
	    ${CC:-gcc} -O2 -g -o "$Q/sqlite3" shell.c sqlite3.c -lm) || {
		echo "sqlite.sh: the SQLite shell did not build; see $Q/bld/*.log" >&2
		exit 1
	}
fi
echo "$Q/sqlite3"
