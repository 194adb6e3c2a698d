# Userspace RCU, a static library only: xfsprogs' libxfs needs it.
DEPS=""

recipe_build() {
	./configure --prefix="$OUT" --disable-shared --enable-static \
		--disable-dependency-tracking
	make -j"$JOBS"
	make install
	rm -rf "$OUT/share" "$OUT"/lib/*.la "$OUT/lib/pkgconfig"
}
