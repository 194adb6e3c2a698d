/*
 * rpcconn.c - libFuzzer target for nfsmix's RPC transport (lib/rpcconn.c):
 * the bytes an NFS server on the lab network, or anything answering on the
 * appliance's loopback, sends back to the load generator's calls.
 *
 * The first byte picks TCP (record marking over a stream) or UDP
 * (datagrams, each the next input bytes up to a 2-byte length), the longest
 * reply taken and the NFS procedure called; the rest is what the server
 * sends, over a socketpair. Calls are made until the connection breaks or
 * a call gets no answer (timeout 0: the answer must be there already, so
 * only the first reply to each call is looked at, and UDP's resend is not
 * reached), then what is left is drained. A reply is never longer than the
 * connection's limit; each is decoded again from a copy exactly its size,
 * so that ASan sees a read past it (in place it sits inside the reader's
 * larger buffer); a decoded result fits its bounds; every call ends (no
 * wait on a server that has said all it will). The input is at most
 * libFuzzer's -max_len (4096 by default): it fits the socket's buffer, so
 * the write before the calls never blocks.
 */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "nfs3.h"
#include "rpcconn.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* A reply decoded from a copy of exactly its bytes: an NFS result of proc
 * must fit its bounds. */
static void decode_copy(const unsigned char *rec, size_t len, uint32_t proc)
{
	unsigned char *p = malloc(len ? len : 1);
	struct xdr_in x;
	struct nfs3_res r;
	uint32_t xid;
	memcpy(p, rec, len);
	xdr_in_init(&x, p, len);
	if (rpc_get_reply(&x, &xid, NULL, NULL) == RPC_OK && nfs3_get_res(&x, proc, &r) == 0 &&
	    (r.fh.len > NFS3_FHSIZE || (proc == NFS3_READ && r.count > NFS3_DATA_MAX) ||
	     ((proc == NFS3_READDIR || proc == NFS3_READDIRPLUS) && r.count > NFS3_DIR_ENTRIES_MAX)))
		abort();
	free(p);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const struct rpc_cred cred = { AUTH_UNIX, 0, 0, 0, "fuzz" };
	static const unsigned char args[64];
	struct rpc_conn k;
	struct xdr_in x;
	const unsigned char *rec;
	size_t len, max;
	int sv[2], udp, rc;
	uint32_t proc;
	char err[128];
	if (!size)
		return 0;
	udp = data[0] & 1;
	max = data[0] & 2 ? 64 : 4096;
	proc = (data[0] >> 2) % NFS3_NPROCS;
	if (socketpair(AF_UNIX, (udp ? SOCK_DGRAM : SOCK_STREAM) | SOCK_CLOEXEC, 0, sv) < 0)
		abort();
	if (udp) {
		for (size_t i = 1; i + 2 <= size;) {
			size_t n = (size_t)(data[i] << 8 | data[i + 1]);
			i += 2;
			if (n > size - i)
				n = size - i;
			if (send(sv[1], data + i, n, MSG_DONTWAIT) < 0)
				break;
			i += n;
		}
	} else {
		/* a stream: what the server sends, then its end of the stream */
		if (size > 1 && write(sv[1], data + 1, size - 1) != (ssize_t)(size - 1))
			abort();
		shutdown(sv[1], SHUT_WR);
	}
	rpc_conn_adopt(&k, sv[0], udp, max);
	for (int calls = 0; calls < 16; calls++) {
		if (rpc_call(&k, NFS_PROGRAM, NFS_V3, proc, &cred, args, sizeof args, 0, &x, err, sizeof err) < 0)
			break;
		if (x.len > max || x.off > x.len)
			abort();
		decode_copy(x.p, x.len, proc);
	}
	/* what is left, as the load generator reads replies */
	while ((rc = rpc_conn_recv(&k, &rec, &len)) == 1) {
		if (len > max)
			abort();
		decode_copy(rec, len, proc);
	}
	rpc_conn_close(&k);
	close(sv[1]);
	return 0;
}
