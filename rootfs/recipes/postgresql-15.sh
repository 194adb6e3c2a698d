# PostgreSQL 15 (server, initdb, pg_ctl, psql, pgbench) for the PostgreSQL
# layer: its own initramfs archive under /opt/postgresql, concatenated only
# into boots that ask for it (build-userland LAYERS, rootfs/README.md
# "Layers"), so the userland stays small.
#
# Dynamic against musl, unlike everything else: the server dlopens its own
# modules (plpgsql, dict_snowball, the WAL receiver), which a static binary
# cannot ("Dynamic loading not supported"). The layer carries musl's loader
# as /opt/postgresql/lib/ld-musl-x86_64.so.1, every executable names it as
# its interpreter and /opt/postgresql/lib as its runpath: nothing is looked
# for outside the layer (build-userland checks it; check-userland runs
# initdb, the server and pgbench in a chroot).
#
# Every optional library is off (readline, zlib, icu, openssl, llvm, lz4,
# zstd, ldap, pam, gssapi, selinux, systemd, libxml, libxslt, the PL
# languages): the appliance has none of them, and none is on the path of
# what the workloads measure (SQL over a Unix socket, WAL, the buffer pool).
DEPS="jemalloc"
RECIPE_LAYER=postgresql
PG=/opt/postgresql

recipe_build() {
	# dynamic: not common.sh's -static. configure runs its test programs
	# on the host's own musl loader; only the executables the build makes
	# name the layer's (LDFLAGS_EX: PostgreSQL's flags for executables)
	export LDFLAGS=
	# PostgreSQL makes its generated headers only from a top-level make
	# (MAKELEVEL 0); under `make all` this script inherits level 1
	unset MAKELEVEL MAKEFLAGS MFLAGS
	# CC by a plain name on PATH: PostgreSQL keeps its configure line and
	# CC in the server (pg_config), and the wrapper's path is the cache's,
	# which differs from machine to machine
	export PATH="$TOOLS:$PATH" CC=cc
	./configure CC=cc --prefix="$PG" \
		--without-readline --without-zlib --without-icu --without-openssl --without-llvm \
		--without-lz4 --without-zstd --without-perl --without-python --without-tcl \
		--without-ldap --without-pam --without-gssapi --without-selinux --without-systemd \
		--without-libxml --without-libxslt
	# every program with jemalloc as its malloc (recipes/jemalloc.sh says
	# why): musl lets a program replace malloc, and libc's public
	# allocations and the modules' then go to it (the loader keeps its
	# own). -u malloc: pulled in even where only a later library
	# (libpgcommon) calls malloc. By name, found through LIBRARY_PATH: the
	# server keeps LDFLAGS_EX (pg_config), and the archive's path is the
	# cache's
	export LIBRARY_PATH="$DEP_jemalloc/lib"
	make -j"$JOBS" \
		LDFLAGS_EX="-Wl,--dynamic-linker=$PG/lib/ld-musl-x86_64.so.1 -Wl,-u,malloc -l:libjemalloc_pic.a"
	# zic compiles the time zone data during the install, here: it runs on
	# the host's musl loader (it is not shipped)
	rm -f src/timezone/zic
	make -C src/timezone zic
	make install DESTDIR="$OUT/install" >/dev/null
	local i=$OUT/install$PG r=$OUT/rootfs$PG
	for b in postgres initdb pg_ctl psql pgbench; do
		ship "$i/bin/$b" "$PG/bin/$b"
	done
	mkdir -p "$r/lib"
	# the server's modules and libpq (no static archives, no headers)
	for f in "$i"/lib/*.so "$i"/lib/libpq.so.5*; do
		[ -L "$f" ] && { cp -P "$f" "$r/lib/"; continue; }
		install -m 0755 "$f" "$r/lib/${f##*/}"
		strip --strip-unneeded "$r/lib/${f##*/}"
	done
	rm -f "$r/lib/libpq.so" "$r/lib/libecpg"* "$r/lib/libpgtypes"*
	cp -R "$i/share" "$r/share"
	rm -rf "$r/share/doc" "$r/share/man"
	# musl's own loader, the same file as the C library it is
	install -m 0755 /lib/x86_64-linux-musl/libc.so "$r/lib/ld-musl-x86_64.so.1"
	rm -rf "$OUT/install"
}
