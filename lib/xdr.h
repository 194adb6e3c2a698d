/*
 * xdr.h - XDR (RFC 4506) over caller buffers, the ONC RPC v2 message head
 * (RFC 5531) and TCP record marking: the wire under the NFS load generator
 * (lib/nfs3.c) and the portmapper (lib/portmap.c).
 *
 * Everything here is a parser of hostile bytes: a reply can come from any
 * server on a lab network. Decoders read only inside the buffer they are
 * given; a short, huge or malformed field sets x->err, after which every
 * read returns zero, so a caller checks err once at the end and a bad reply
 * becomes a counted error, never a crash. Encoders write into a fixed
 * buffer and set err instead of overflowing it.
 */
#ifndef BB_XDR_H
#define BB_XDR_H

#include <stddef.h>
#include <stdint.h>

struct xdr_in {
	const unsigned char *p;
	size_t len, off;
	int err;
};

struct xdr_out {
	unsigned char *p;
	size_t cap, len;
	int err;
};

void xdr_in_init(struct xdr_in *x, const void *p, size_t len);
uint32_t xdr_u32(struct xdr_in *x);
uint64_t xdr_u64(struct xdr_in *x);
/* A bool is 0 or 1 on the wire; anything else is malformed. */
int xdr_bool(struct xdr_in *x);
/* Fixed-length opaque of n bytes (padded to 4): copied out when out is not NULL. */
void xdr_fixed(struct xdr_in *x, void *out, size_t n);
/* Variable-length opaque or string of at most max bytes: a pointer into the
 * buffer (not NUL-terminated) and its length; longer than max is malformed. */
const unsigned char *xdr_opaque(struct xdr_in *x, size_t max, uint32_t *len);
/* A string of at most max bytes copied into out[outsz] (outsz > max), NUL
 * added; a NUL byte inside is malformed. */
void xdr_string(struct xdr_in *x, size_t max, char *out, size_t outsz);
/* Bytes left unread. */
size_t xdr_left(const struct xdr_in *x);

void xdr_out_init(struct xdr_out *o, void *p, size_t cap);
void xdr_put_u32(struct xdr_out *o, uint32_t v);
void xdr_put_u64(struct xdr_out *o, uint64_t v);
void xdr_put_fixed(struct xdr_out *o, const void *p, size_t n);
void xdr_put_opaque(struct xdr_out *o, const void *p, size_t n);
void xdr_put_string(struct xdr_out *o, const char *s);

/* ---- ONC RPC v2 ---- */
#define RPC_VERSION 2
enum { RPC_MSG_CALL = 0, RPC_MSG_REPLY = 1 };
enum { AUTH_NONE = 0, AUTH_UNIX = 1 };
#define RPC_AUTH_MAX 400	/* an opaque_auth body (RFC 5531) */
#define RPC_MACHINE_MAX 255	/* AUTH_UNIX machinename */
#define RPC_GIDS_MAX 16

/* accept_stat, and what a reply head can be besides SUCCESS: the numbers a
 * load generator counts errors by (rpc_reply_str names them). */
enum rpc_reply_status {
	RPC_OK = 0,
	RPC_PROG_UNAVAIL = 1, RPC_PROG_MISMATCH = 2, RPC_PROC_UNAVAIL = 3, RPC_GARBAGE_ARGS = 4,
	RPC_SYSTEM_ERR = 5,
	RPC_DENIED_MISMATCH = 16, RPC_DENIED_AUTH = 17,
	RPC_MALFORMED = 32,	/* truncated, not a reply, bad verifier, unknown status */
};
const char *rpc_reply_str(int status);

struct rpc_cred {
	uint32_t flavor;	/* AUTH_NONE or AUTH_UNIX */
	uint32_t stamp, uid, gid;
	const char *machine;
};

/* A call's head: xid, CALL, rpcvers 2, prog, vers, proc, credential and a
 * null verifier. The procedure's arguments follow. */
void rpc_put_call(struct xdr_out *o, uint32_t xid, uint32_t prog, uint32_t vers, uint32_t proc,
		  const struct rpc_cred *cred);

/* A reply's head: returns RPC_OK with x at the results, or another
 * rpc_reply_status; *xid is the reply's xid (0 when it could not be read).
 * For PROG_MISMATCH and DENIED_MISMATCH, *lo and *hi (if not NULL) get the
 * versions the server supports. */
int rpc_get_reply(struct xdr_in *x, uint32_t *xid, uint32_t *lo, uint32_t *hi);

/* The server side: a call's head, credential checked for shape and skipped
 * (AUTH_UNIX's uid and gid kept). Returns 0 with x at the arguments, -1
 * when the bytes are not a call at all (nothing to answer), 1 when it is a
 * call of another RPC version (answer RPC_DENIED_MISMATCH). */
struct rpc_call {
	uint32_t xid, rpcvers, prog, vers, proc, flavor, uid, gid;
};
int rpc_get_call(struct xdr_in *x, struct rpc_call *c);
/* Reply heads a server writes: accepted with a status (and for
 * PROG_MISMATCH the low and high versions), or denied RPC_MISMATCH. */
void rpc_put_accepted(struct xdr_out *o, uint32_t xid, int status, uint32_t lo, uint32_t hi);
void rpc_put_denied_mismatch(struct xdr_out *o, uint32_t xid);

/* ---- TCP record marking (RFC 5531 section 11) ----
 * A record is one or more fragments, each behind a 4-byte header: the top
 * bit marks the last fragment, the other 31 its length. A reader keeps the
 * stream's bytes in one buffer bounded by max: a record (or a claimed
 * fragment) longer than max is an error, never an allocation. */
struct rm_reader {
	unsigned char *buf;
	size_t len, cap, max;
	size_t taken;	/* bytes of buf the last record used, dropped on the next call */
};
void rm_init(struct rm_reader *r, size_t max);
void rm_free(struct rm_reader *r);
/* Where the next bytes of the stream go, and how many fit there (*room);
 * rm_wrote then says how many arrived. NULL when the buffer is full. */
unsigned char *rm_space(struct rm_reader *r, size_t *room);
void rm_wrote(struct rm_reader *r, size_t n);
/* The next whole record: 1 with *rec and *len (valid until the next rm_ call),
 * 0 when more bytes are needed, -1 when the stream is broken (a record
 * over max: the connection must be closed). */
int rm_next(struct rm_reader *r, const unsigned char **rec, size_t *len);
/* The 4-byte header of a record of len bytes sent as one fragment. */
void rm_header(unsigned char hdr[4], size_t len);

#endif
