/*
 * rpcconn.h - one client connection to one ONC RPC program (RFC 5531), over
 * TCP with record marking or over UDP: the transport of nfsmix's NFSv3
 * client (workloads/nfsmix.c), its portmapper and MOUNT calls.
 *
 * Replies are the server's bytes: hostile. A record is never longer than
 * the connection's max (rm_reader refuses it: the connection is broken), a
 * datagram is cut at max, and a reply is matched to its call by xid only.
 * The socket is non-blocking: a send waits for room at most 5 s, a call
 * for its reply at most its timeout. tests/fuzz/rpcconn.c fuzzes it over a
 * socketpair.
 */
#ifndef BB_RPCCONN_H
#define BB_RPCCONN_H

#include <stddef.h>
#include <stdint.h>

#include "xdr.h"

struct rpc_conn {
	int fd, udp;
	size_t max;		/* the longest reply taken */
	struct rm_reader rm;	/* TCP: record marking */
	unsigned char *ubuf;	/* UDP: one datagram */
	unsigned char *msg;	/* rpc_call's message */
	size_t msgcap;
	uint32_t xid;		/* the last call's: each connection counts from 0x40000000 (a new
				 * connection is a new source port, which a server's duplicate
				 * request cache keys on with the xid; the load generator's own
				 * calls use xids below it) */
};

/* Connects to ip:port (network order ip, host order port): 0, or -1 with
 * err set. */
int rpc_conn_open(struct rpc_conn *k, uint32_t ip, uint16_t port, int udp, size_t max, char *err, size_t errlen);
/* Takes a connected socket as the connection (tests: a socketpair). */
void rpc_conn_adopt(struct rpc_conn *k, int fd, int udp, size_t max);
void rpc_conn_close(struct rpc_conn *k);

/* One message out, whole: 0, or -1 when the connection is broken, or
 * (ETIMEDOUT) the server read nothing for 5 s, or deadline_us (now_us's
 * clock; 0: none) passed first. */
int rpc_conn_send(struct rpc_conn *k, const unsigned char *msg, size_t len, uint64_t deadline_us);
/* The next reply: 1 with it (valid until the next call on k), 0 none yet,
 * -1 when the connection is broken (closed, or a record over max). */
int rpc_conn_recv(struct rpc_conn *k, const unsigned char **rec, size_t *len);

/* A call and its reply, waiting up to timeout_ms for it (a UDP call is
 * sent again each second): 0 with the reply's results in *x (valid until
 * the next call on k), or -1 with err set (connection lost, no answer, an
 * RPC-level refusal). Replies to other xids are skipped. */
int rpc_call(struct rpc_conn *k, uint32_t prog, uint32_t vers, uint32_t proc, const struct rpc_cred *cred,
	     const unsigned char *args, size_t alen, unsigned timeout_ms, struct xdr_in *x, char *err,
	     size_t errlen);

#endif
