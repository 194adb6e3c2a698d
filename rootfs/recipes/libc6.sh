# glibc's loader and the four libraries rt-tests' cyclictest and hackbench
# need, from Debian's libc6 binary package: the libraries of the glibc layer
# under /opt/rt-tests (rt-tests.sh ships them; nothing is shipped from here).
# Only these: the rest of glibc (libm, locales, NSS) is not in the userland.
DEPS=""
LIBC6_LIBS="ld-linux-x86-64.so.2 libc.so.6 libpthread.so.0 librt.so.1"

recipe_build() {
	dpkg-deb -x "$DEB" deb
	for f in $LIBC6_LIBS; do
		install -D -m 0755 "deb/lib/x86_64-linux-gnu/$f" "$OUT/lib/$f"
	done
}
