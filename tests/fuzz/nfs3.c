/*
 * nfs3.c - libFuzzer target for the NFS wire (lib/xdr.c, lib/nfs3.c,
 * lib/portmap.c): what any NFS server on a lab network, or any process on
 * the appliance's loopback, can send. The first byte picks a procedure; the
 * rest is a reply decoded as that procedure's result, the same bytes
 * streamed through the record-marking reader in two pieces, and handed to
 * the portmapper as a call. Nothing may read past the input; a decoded
 * reply's lengths must fit their bounds; the portmapper's table never
 * passes its size and its reply fits its buffer.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "nfs3.h"
#include "portmap.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct pmap_state s;
	static unsigned char reply[2048];
	struct xdr_in x;
	struct nfs3_res r;
	struct rm_reader rm;
	const unsigned char *rec;
	size_t len, half;
	uint32_t xid, st;
	struct nfs_fh fh;
	if (!size)
		return 0;
	/* a copy exactly as long as the input: ASan sees any read past it */
	unsigned char *p = malloc(size);
	if (!p)
		return 0;
	memcpy(p, data, size);
	xdr_in_init(&x, p + 1, size - 1);
	if (rpc_get_reply(&x, &xid, NULL, NULL) == RPC_OK) {
		uint32_t proc = p[0] % (NFS3_NPROCS + 1);
		if (nfs3_get_res(&x, proc, &r) == 0 &&
		    (r.fh.len > NFS3_FHSIZE || (proc == NFS3_READ && r.count > NFS3_DATA_MAX) ||
		     ((proc == NFS3_READDIR || proc == NFS3_READDIRPLUS) && r.count > NFS3_DIR_ENTRIES_MAX)))
			abort();
	}
	xdr_in_init(&x, p + 1, size - 1);
	if (mnt3_get_mnt(&x, &st, &fh) == 0 && fh.len > NFS3_FHSIZE)
		abort();
	rm_init(&rm, 4096);
	half = size / 2;
	for (int piece = 0; piece < 2; piece++) {
		const unsigned char *src = piece ? p + half : p;
		size_t n = piece ? size - half : half;
		while (n) {
			size_t room;
			unsigned char *d = rm_space(&rm, &room);
			int rc;
			if (!d)
				break;
			if (room > n)
				room = n;
			memcpy(d, src, room);
			rm_wrote(&rm, room);
			src += room;
			n -= room;
			while ((rc = rm_next(&rm, &rec, &len)) == 1)
				if (len > 4096)
					abort();
			if (rc < 0)
				n = 0;
		}
	}
	rm_free(&rm);
	s.self_port = 111;
	s.export_path = "/mnt/bb";
	len = pmap_handle(&s, p, size, reply, sizeof reply, p[0] & 1);
	if (len > sizeof reply || s.n > PMAP_MAX_ENTRIES)
		abort();
	free(p);
	return 0;
}
