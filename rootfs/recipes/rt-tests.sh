# cyclictest and hackbench from Debian's rt-tests binary package, with the
# glibc they were linked against: Debian serves rt-tests' .dsc but not its
# orig tarball, so there is nothing to build from source (rootfs/README.md).
# They run as a layer with its own loader, never on the kernel's PT_INTERP
# (/lib64 is not in the userland):
#   /opt/rt-tests/lib/ld-linux-x86-64.so.2 --library-path /opt/rt-tests/lib \
#       /opt/rt-tests/bin/cyclictest ...
# build-userland checks that every library a layer ELF needs is in lib/;
# check-userland runs both tools in a chroot of the staged tree, where a
# missing library or glibc symbol version cannot be found on the host.
DEPS="libc6 libnuma1"
RT=opt/rt-tests

recipe_build() {
	dpkg-deb -x "$DEB" deb
	for b in cyclictest hackbench; do
		install -D -m 0755 "deb/usr/bin/$b" "$OUT/rootfs/$RT/bin/$b"
	done
	for f in "$DEP_libc6"/lib/* "$DEP_libnuma1"/lib/*; do
		install -D -m 0755 "$f" "$OUT/rootfs/$RT/lib/${f##*/}"
	done
	# A first check that the layer starts on its own loader (the host's
	# libraries are still reachable here: check-userland's chroot is the
	# strict one).
	"$OUT/rootfs/$RT/lib/ld-linux-x86-64.so.2" --library-path "$OUT/rootfs/$RT/lib" \
		"$OUT/rootfs/$RT/bin/hackbench" -g 1 -l 10
}
