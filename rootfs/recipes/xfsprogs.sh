# xfsprogs: mkfs.xfs for the XFS workloads, xfs_db, xfs_repair (a read-only
# check of a layout after the NFS server), and xfs_info (a shell
# script in 6.1 that runs xfs_spaceman on a mounted filesystem, else xfs_db).
# Links liburcu, e2fsprogs' libuuid and libinih, all static. No blkid: mkfs.xfs
# then skips probing for existing signatures (it says so), fine on scratch disks.
DEPS="liburcu e2fsprogs libinih-dev"

recipe_build() {
	local d inc="" lib=""
	for d in "$DEP_liburcu" "$DEP_e2fsprogs" "$DEP_libinih_dev"; do
		inc="$inc -I$d/include"
		lib="$lib -L$d/lib"
	done
	# builddefs passes CFLAGS, not CPPFLAGS, to the compiler: headers go in both.
	# The tarball ships a generated configure; keep make from regenerating it.
	touch configure
	./configure --enable-shared=no --enable-gettext=no --enable-blkid=no \
		--enable-scrub=no --enable-editline=no --enable-libicu=no \
		--enable-lib64=no CPPFLAGS="$inc" CFLAGS="$CFLAGS $inc" \
		LDFLAGS="-static $lib"
	make headers
	# libtool turns a plain -static into "prefer static libtool libraries"
	# and still links libc dynamically; -all-static makes real static ELFs.
	make -j"$JOBS" LOADERFLAGS="-all-static $lib" \
		libfrog libxfs libxlog libxcmd mkfs db spaceman repair
	ship mkfs/mkfs.xfs sbin/mkfs.xfs
	ship db/xfs_db sbin/xfs_db
	# read-only checks of a layout after the NFS server let go of it
	ship repair/xfs_repair sbin/xfs_repair
	ship spaceman/xfs_spaceman sbin/xfs_spaceman
	# Upstream's script, with patches/xfsprogs applied (no findmnt here).
	ship spaceman/xfs_info.sh sbin/xfs_info
	# Run by the appliance's busybox sh: the interpreter must be /bin/sh.
	case $(head -n 1 "$OUT/rootfs/sbin/xfs_info") in
	'#!/bin/sh'|'#!/bin/sh '*) ;;
	*) echo "xfs_info: unexpected interpreter line" >&2; return 1 ;;
	esac
}
