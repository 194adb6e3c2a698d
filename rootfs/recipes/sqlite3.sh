# SQLite, the database engine of the dbload and oltp workloads: not a tool in
# the userland but a static library linked into bootbench itself, built twice
# from the same amalgamation with the same options: once with musl-gcc (for
# build/bootbench.static) and once with the host gcc (for build/bootbench).
# Driven by rootfs/build-lib (not build-userland); its text is part of the
# cache key, so changing an option below rebuilds both archives.

RECIPE_OUTPUTS="musl/libsqlite3.a host/libsqlite3.a include/sqlite3.h options"
RECIPE_TOOLS="tclsh"
RECIPE_PKGS="tcl8.6"
#
# The Debian source package is the full upstream tree, without the
# sqlite3.c amalgamation: `configure && make sqlite3.c` generates it (needs
# tclsh, package tcl8.6). Debian's patches are applied by dpkg-source first.

# The compile options, identical for both libraries (docs/database.md says why):
#   THREADSAFE=0          one connection per process, no mutexes
#   OMIT_LOAD_EXTENSION   no dlopen, which a static musl binary cannot do
#   DEFAULT_MEMSTATUS=0   no global memory accounting on every malloc
#   HAVE_USLEEP=1         busy handler sleeps in ms, not whole seconds
#   HAVE_FDATASYNC=1      sync with fdatasync, as Debian's configured build
#   DEFAULT_PAGE_SIZE=4096, DEFAULT_SYNCHRONOUS=2 (FULL), TEMP_STORE=1:
#                         upstream defaults, written down to be explicit
SQLITE_OPTS="-O2 -DNDEBUG -DSQLITE_THREADSAFE=0 -DSQLITE_OMIT_LOAD_EXTENSION
 -DSQLITE_DEFAULT_MEMSTATUS=0 -DHAVE_USLEEP=1 -DHAVE_FDATASYNC=1
 -DSQLITE_DEFAULT_PAGE_SIZE=4096 -DSQLITE_DEFAULT_SYNCHRONOUS=2
 -DSQLITE_TEMP_STORE=1"

# recipe_build: in the unpacked tree $SRC; results in $OUT/{host,musl}/
# libsqlite3.a and $OUT/include/sqlite3.h.
recipe_build() {
	mkdir -p "$OUT/amalg" "$OUT/host" "$OUT/musl" "$OUT/include"
	(cd "$OUT/amalg" && "$SRC/configure" --disable-tcl --disable-readline \
		--disable-shared && make sqlite3.c)
	grep -q '^#define SQLITE_VERSION  *"3.40.1"' "$OUT/amalg/sqlite3.h"
	# The two compiles are independent: run them side by side.
	# shellcheck disable=SC2086
	musl-gcc $SQLITE_OPTS -ffile-prefix-map="$OUT"=/build -c "$OUT/amalg/sqlite3.c" -o "$OUT/musl/sqlite3.o" &
	musl=$!
	# shellcheck disable=SC2086
	gcc $SQLITE_OPTS -ffile-prefix-map="$OUT"=/build -c "$OUT/amalg/sqlite3.c" -o "$OUT/host/sqlite3.o"
	wait "$musl"
	ar rcsD "$OUT/musl/libsqlite3.a" "$OUT/musl/sqlite3.o"
	ar rcsD "$OUT/host/libsqlite3.a" "$OUT/host/sqlite3.o"
	rm -f "$OUT/musl/sqlite3.o" "$OUT/host/sqlite3.o"
	cp "$OUT/amalg/sqlite3.h" "$OUT/include/sqlite3.h"
	echo "$SQLITE_OPTS" | tr -s ' \n' ' ' > "$OUT/options"
	rm -rf "$OUT/amalg"
}
