# util-linux, for one thing only: libblkid, util-linux's library that tells
# what a disk holds (filesystems, RAID members, LVM, LUKS, partition tables:
# over 80 formats, with their checksums). bootbench asks it before any disk
# is written: `mkscratch`, `mkresults --device`, and the appliance before it
# claims a scratch-labelled disk (lib/probe.c). Not a tool in the userland
# but a static library linked into bootbench itself, so it is driven by
# rootfs/build-lib (not build-userland). Built twice from the one pinned
# tree, like SQLite: with musl-gcc (build/bootbench.static) and with the
# host gcc (build/bootbench). The host could link Debian's libblkid-dev,
# but that is whatever util-linux the host has (a point release, or
# trixie), and mkscratch on the host must answer "does this disk hold
# something?" exactly as the appliance does before it claims a disk.
#
# Only libblkid is configured: every program and every other library off,
# and every optional dependency off (udev: no device database in the
# appliance; no NLS, no readline, no systemd, no SELinux). Static only.

RECIPE_OUTPUTS="musl/libblkid.a host/libblkid.a include/blkid/blkid.h options"
RECIPE_TOOLS=""
RECIPE_PKGS=""

UL_CONFIGURE="--disable-all-programs --enable-libblkid --disable-shared --enable-static
 --disable-nls --disable-asciidoc --disable-poman --disable-bash-completion
 --disable-makeinstall-chown --without-udev --without-systemd --without-python
 --without-readline --without-ncurses --without-ncursesw --without-tinfo
 --without-libz --without-libmagic --without-cap-ng --without-econf
 --without-selinux --without-audit --without-utempter --without-user"

# recipe_build: in the unpacked tree $SRC; results in $OUT/{musl,host}/
# libblkid.a and $OUT/include/blkid/blkid.h. The version check below is
# the lock line's: bump both together.
recipe_build() {
	mkdir -p "$OUT/musl" "$OUT/host" "$OUT/include/blkid" "$SRC/b-musl" "$SRC/b-host"
	# autotools must not regenerate configure when a Debian patch made a
	# .am file look newer than its output
	export ACLOCAL=true AUTOMAKE=true AUTOCONF=true AUTOHEADER=true MAKEINFO=true
	# two out-of-tree builds of one tree, side by side (2 cores)
	# shellcheck disable=SC2086
	(cd "$SRC/b-musl" && CC="$TOOLS/cc" CFLAGS="-O2" ../configure $UL_CONFIGURE >configure.log &&
		make libblkid.la >make.log) &
	musl=$!
	# shellcheck disable=SC2086
	(cd "$SRC/b-host" && CC=gcc CFLAGS="-O2 -ffile-prefix-map=$SRC=/build" ../configure $UL_CONFIGURE >configure.log &&
		make libblkid.la >make.log)
	wait "$musl"
	grep -q '^#define BLKID_VERSION[[:space:]]*"2.38.1"' "$SRC/b-musl/libblkid/src/blkid.h"
	cp "$SRC/b-musl/.libs/libblkid.a" "$OUT/musl/libblkid.a"
	cp "$SRC/b-host/.libs/libblkid.a" "$OUT/host/libblkid.a"
	cp "$SRC/b-musl/libblkid/src/blkid.h" "$OUT/include/blkid/blkid.h"
	echo "$UL_CONFIGURE" | tr -s ' \n' ' ' > "$OUT/options"
}
