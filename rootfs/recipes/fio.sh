# fio: the storage developer's own load generator, for the fio workload.
# Static with musl. Off, and why:
#   libaio   - no static libaio in the userland; fio's io_uring, psync, sync,
#              posixaio, mmap and splice engines need nothing extra.
#   zlib     - only for fio's buffer_compress_percentage checks and
#              compressed logs; fio says it is off when a job asks for them.
#   numa, rdma, rados, rbd, http, gfapi, libnfs, pmem, xnvme, libzbc, dfs,
#   tcmalloc - libraries the appliance does not have (and network engines it
#              does not drive).
#   lex      - fio then evaluates job-file arithmetic with its own parser.
#   native   - -march=native would tie the binary to the build machine.
DEPS=""

recipe_build() {
	./configure --cc="$CC" --build-static --disable-native --disable-lex \
		--disable-numa --disable-rdma --disable-rados --disable-rbd \
		--disable-http --disable-gfapi --disable-libnfs --disable-pmem \
		--disable-xnvme --disable-libzbc --disable-tcmalloc --disable-dfs
	# The build dates nothing but FIO_VERSION, which comes from the tarball.
	make -j"$JOBS" fio
	ship fio usr/bin/fio
}
