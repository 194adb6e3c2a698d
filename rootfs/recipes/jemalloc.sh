# jemalloc, a static PIC archive only: the PostgreSQL layer's programs link
# it in place of musl's malloc. musl's malloc mapped, unmapped and
# madvised a block on every select-only transaction of a PostgreSQL
# backend (strace -c), about 2.3 page faults a transaction, and our server
# ran at 0.41x Debian's: a kernel comparison of it would weigh the
# kernel's mmap and fault paths far above what a real server does. With
# jemalloc it ran at 0.97-0.99x (docs/postgresql.md, "Bench"). Ships
# nothing.
DEPS=""

recipe_build() {
	# No C++ wrapper, statistics or profiling code: malloc and free. The
	# initial-exec TLS model is for a library loaded at start, which a
	# static archive in the executable is. configure would read the
	# address width from the CPU and the huge page size from
	# /proc/meminfo, and the version from git: pinned (as Debian's rules
	# pin the pages), so any machine builds the same bytes. No background
	# thread: the postmaster forks.
	./configure --prefix="$OUT" --disable-cxx --disable-stats --disable-prof \
		--disable-libdl --disable-shared --with-jemalloc-prefix= \
		--with-lg-vaddr=48 --with-lg-page=12 --with-lg-hugepage=21 \
		--with-version=5.3.0-0-g0000000000000000000000000000000000000000 \
		--with-malloc-conf=background_thread:false
	make -j"$JOBS" build_lib_static
	mkdir -p "$OUT/lib"
	# the PIC archive: the layer's executables are position independent
	install -m 0644 lib/libjemalloc_pic.a "$OUT/lib/libjemalloc_pic.a"
}
