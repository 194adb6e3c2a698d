# perf, from tools/perf of the kernel source package the source kernels are
# built from (its binary package, linux-source-6.12, is the source tarball):
# `perf bench` for the perfbench workload, and `perf stat`/`record` later.
# Static with musl, every optional library off (FINDINGS.md: "A static perf
# from the kernel source package"): no libelf, libtraceevent, libbpf, python,
# perl, slang, gtk, unwind, demangle, numa, audit, crypto, cap, zstd, lzma,
# zlib, babeltrace, pfm4, backtrace. perf then resolves kernel symbols from
# /proc/kallsyms only, which is all the appliance has.
DEPS=""

recipe_build() {
	local t=linux-source-6.12
	# Only the parts tools/perf reads: decompressing the whole tree is the
	# slow step, extracting less of it keeps the cache small.
	dpkg-deb --fsys-tarfile "$DEB" | tar -xO ./usr/src/$t.tar.xz | xz -dc \
		| tar -x --wildcards "$t/tools" "$t/include" "$t/arch/x86" \
			"$t/arch/arm64/tools" "$t/arch/*/include/uapi" \
			"$t/arch/*/kernel/syscalls" \
			"$t/scripts" "$t/lib" "$t/Makefile" "$t/kernel/sched"
	mkdir -p "$PWD/perf-out"
	# CC must be the wrapper alone: flags inside CC break perf's build.
	make -C $t/tools/perf O="$PWD/perf-out" CC="$CC" LDFLAGS=-static \
		WERROR=0 -j"$JOBS" \
		NO_LIBELF=1 NO_LIBTRACEEVENT=1 NO_JVMTI=1 NO_LIBPYTHON=1 \
		NO_LIBPERL=1 NO_SLANG=1 NO_GTK2=1 NO_LIBBPF=1 NO_LIBUNWIND=1 \
		NO_LIBDW_DWARF_UNWIND=1 NO_DEMANGLE=1 NO_LIBNUMA=1 NO_LIBAUDIT=1 \
		NO_LIBCRYPTO=1 NO_LIBCAP=1 NO_LIBZSTD=1 NO_LZMA=1 NO_ZLIB=1 \
		NO_LIBBABELTRACE=1 NO_AUXTRACE=1 NO_SDT=1 NO_LIBPFM4=1 \
		NO_BACKTRACE=1
	ship perf-out/perf usr/bin/perf
	rm -rf $t perf-out
}
