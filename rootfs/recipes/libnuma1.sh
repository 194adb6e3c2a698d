# libnuma, which cyclictest links, from Debian's libnuma1 binary package: a
# library of the glibc layer under /opt/rt-tests (rt-tests.sh ships it).
DEPS=""

recipe_build() {
	dpkg-deb -x "$DEB" deb
	install -D -m 0755 deb/usr/lib/x86_64-linux-gnu/libnuma.so.1.0.0 "$OUT/lib/libnuma.so.1"
}
