# jemalloc, a static PIC archive only: the PostgreSQL layer's programs link
# it in place of musl's malloc. musl's malloc maps and unmaps a large block
# on every transaction of a PostgreSQL backend (strace: one mmap, munmap and
# madvise per select-only transaction, ~4 page faults each), so a musl
# server ran at 0.46x Debian's and a kernel comparison of it would weigh the
# kernel's mmap and fault paths far above what a real server does. With
# jemalloc (preloaded, as a first measurement) the musl server matched
# Debian's (docs/postgresql.md, "Bench"). Ships nothing.
DEPS=""

recipe_build() {
	# no C++ wrapper, no statistics or profiling code: malloc and free;
	# the initial-exec TLS model is for a library loaded at start, which a
	# static archive in the executable is
	./configure --prefix="$OUT" --disable-cxx --disable-stats --disable-prof \
		--disable-libdl --disable-shared --with-jemalloc-prefix= \
		--disable-dependency-tracking
	make -j"$JOBS" build_lib_static
	mkdir -p "$OUT/lib"
	# the PIC archive: the layer's executables are position independent
	install -m 0644 lib/libjemalloc_pic.a "$OUT/lib/libjemalloc_pic.a"
}
