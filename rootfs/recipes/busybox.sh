# busybox: the shell and small tools (mount, dd, ip, httpd, ...), configured
# by rootfs/busybox.config. Applets that would shadow e2fsprogs or mdadm are
# off there.
DEPS=""

recipe_build() {
	local cfg="$ROOTFS/busybox.config" k
	cp "$cfg" .config
	# The checked-in config must be complete for this version: oldconfig
	# may not add or change a symbol (else bumping busybox went unnoticed).
	{ yes "" || true; } | make CC="$CC" HOSTCC=gcc oldconfig >/dev/null
	if ! diff <(grep '^# CONFIG_\|^CONFIG_' "$cfg") \
			<(grep '^# CONFIG_\|^CONFIG_' .config) >&2; then
		echo "busybox.config is stale for this busybox: regenerate it (README.md)" >&2
		return 1
	fi
	for k in STATIC; do
		grep -qx "CONFIG_$k=y" .config || { echo "CONFIG_$k must be y" >&2; return 1; }
	done
	# The shell must run /sbin/mke2fs etc. from PATH, never an applet.
	for k in FEATURE_SH_STANDALONE FEATURE_PREFER_APPLETS MKE2FS MKFS_EXT2 \
			TUNE2FS FSCK CHATTR LSATTR RAIDAUTORUN; do
		grep -qx "# CONFIG_$k is not set" .config \
			|| { echo "CONFIG_$k must be off" >&2; return 1; }
	done
	make -j"$JOBS" CC="$CC" HOSTCC=gcc busybox
	ship busybox bin/busybox
	# Where each applet goes (bin/sh, sbin/ifconfig, usr/bin/...): staged as
	# symlinks by build-userland.
	"$OUT/rootfs/bin/busybox" --list-full | LC_ALL=C sort > "$OUT/busybox.links"
}
