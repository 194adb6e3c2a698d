# e2fsprogs: mke2fs (and the mkfs.ext* names), e2fsck, tune2fs, dumpe2fs for
# the ext2/3/4 workloads; also its private libuuid, which xfsprogs links.
DEPS=""

recipe_build() {
	mkdir build && cd build
	../configure --prefix=/usr --disable-nls --disable-elf-shlibs \
		--disable-fuse2fs --disable-debugfs --disable-imager \
		--disable-resizer --disable-defrag --disable-uuidd \
		--disable-e2initrd-helper --disable-tdb --disable-backtrace \
		--disable-fsck --enable-libuuid --enable-libblkid \
		--disable-dependency-tracking
	make -j"$JOBS" libs
	make -j"$JOBS" -C misc mke2fs tune2fs dumpe2fs
	make -j"$JOBS" -C e2fsck e2fsck
	ship misc/mke2fs sbin/mke2fs
	for t in ext2 ext3 ext4; do
		link "sbin/mkfs.$t" mke2fs
	done
	ship e2fsck/e2fsck sbin/e2fsck
	ship misc/tune2fs sbin/tune2fs
	ship misc/dumpe2fs sbin/dumpe2fs
	# libuuid for xfsprogs (a build input only, never shipped).
	install -D -m 0644 lib/libuuid.a "$OUT/lib/libuuid.a"
	install -D -m 0644 lib/uuid/uuid.h "$OUT/include/uuid/uuid.h"
}
