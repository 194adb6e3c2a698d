# util-linux, for one thing only: libblkid, util-linux's library that tells
# what a disk holds (filesystems, RAID members, LVM, LUKS, partition tables:
# over 80 formats, with their checksums). bootbench asks it before any disk
# is written: `mkscratch`, `mkresults --device`, and the appliance before it
# claims a scratch-labelled disk (lib/probe.c). Not a tool in the userland
# but a static library linked into build/bootbench.static, so it is driven
# by rootfs/build-lib (not build-userland). The host build links Debian's own
# libblkid (libblkid-dev, the same 2.38.1 source): the library is only ever
# asked, never measured, so the host needs no second copy.
#
# Only libblkid is configured: every program and every other library off,
# and every optional dependency off (udev: no device database in the
# appliance; no NLS, no readline, no systemd, no SELinux). Static only.

RECIPE_OUTPUTS="musl/libblkid.a include/blkid/blkid.h options"
RECIPE_TOOLS=""
RECIPE_PKGS=""

UL_CONFIGURE="--disable-all-programs --enable-libblkid --disable-shared --enable-static
 --disable-nls --disable-asciidoc --disable-poman --disable-bash-completion
 --disable-makeinstall-chown --without-udev --without-systemd --without-python
 --without-readline --without-ncurses --without-ncursesw --without-tinfo
 --without-libz --without-libmagic --without-cap-ng --without-econf
 --without-selinux --without-audit --without-utempter --without-user"

# recipe_build: in the unpacked tree $SRC; results in $OUT/musl/libblkid.a
# and $OUT/include/blkid/blkid.h.
recipe_build() {
	mkdir -p "$OUT/musl" "$OUT/include/blkid"
	# autotools must not regenerate configure when a Debian patch made a
	# .am file look newer than its output
	export ACLOCAL=true AUTOMAKE=true AUTOCONF=true AUTOHEADER=true MAKEINFO=true
	# shellcheck disable=SC2086
	CC="$TOOLS/cc" CFLAGS="-O2" ./configure $UL_CONFIGURE
	make -j2 libblkid.la
	grep -q '^#define BLKID_VERSION[[:space:]]*"2.38.1"' libblkid/src/blkid.h
	cp .libs/libblkid.a "$OUT/musl/libblkid.a"
	cp libblkid/src/blkid.h "$OUT/include/blkid/blkid.h"
	echo "$UL_CONFIGURE" | tr -s ' \n' ' ' > "$OUT/options"
}
