# Userspace RCU, a static library only: xfsprogs' libxfs needs it.
# Only the headers and the library: a plain `make` also builds the test
# suite and benchmarks, 120 of its 172 compile and link steps.
DEPS=""

recipe_build() {
	./configure --prefix="$OUT" --disable-shared --enable-static \
		--disable-dependency-tracking
	make -j"$JOBS" -C include
	make -j"$JOBS" -C src
	make -C include install
	make -C src install
	rm -rf "$OUT/share" "$OUT"/lib/*.la "$OUT/lib/pkgconfig"
}
