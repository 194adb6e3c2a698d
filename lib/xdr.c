/*
 * xdr.c - XDR, the ONC RPC message head and TCP record marking (xdr.h).
 * Written from RFC 4506 and RFC 5531; every read is bounds-checked and a
 * first error sticks, so a decoder can be a straight line of reads.
 */
#include <stdlib.h>
#include <string.h>

#include "xdr.h"
#include "xio.h"

static size_t pad4(size_t n)
{
	return (n + 3) & ~(size_t)3;
}

static uint32_t be32(const unsigned char *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static void put_be32(unsigned char *p, uint32_t v)
{
	p[0] = (unsigned char)(v >> 24);
	p[1] = (unsigned char)(v >> 16);
	p[2] = (unsigned char)(v >> 8);
	p[3] = (unsigned char)v;
}

void xdr_in_init(struct xdr_in *x, const void *p, size_t len)
{
	x->p = p;
	x->len = len;
	x->off = 0;
	x->err = 0;
}

/* n bytes (padded) at the cursor, or NULL and err */
static const unsigned char *take(struct xdr_in *x, size_t n)
{
	const unsigned char *p;
	size_t padded = pad4(n);
	if (x->err || padded < n || padded > x->len - x->off) {
		x->err = 1;
		return NULL;
	}
	p = x->p + x->off;
	x->off += padded;
	return p;
}

uint32_t xdr_u32(struct xdr_in *x)
{
	const unsigned char *p = take(x, 4);
	return p ? be32(p) : 0;
}

uint64_t xdr_u64(struct xdr_in *x)
{
	uint64_t hi = xdr_u32(x);
	return hi << 32 | xdr_u32(x);
}

int xdr_bool(struct xdr_in *x)
{
	uint32_t v = xdr_u32(x);
	if (v > 1)
		x->err = 1;
	return x->err ? 0 : (int)v;
}

void xdr_fixed(struct xdr_in *x, void *out, size_t n)
{
	const unsigned char *p = take(x, n);
	if (out)
		p ? memcpy(out, p, n) : memset(out, 0, n);
}

const unsigned char *xdr_opaque(struct xdr_in *x, size_t max, uint32_t *len)
{
	uint32_t n = xdr_u32(x);
	const unsigned char *p;
	*len = 0;
	if (x->err)
		return NULL;
	if (n > max) {
		x->err = 1;
		return NULL;
	}
	p = take(x, n);
	if (p)
		*len = n;
	return p;
}

void xdr_string(struct xdr_in *x, size_t max, char *out, size_t outsz)
{
	uint32_t n;
	const unsigned char *p = xdr_opaque(x, max < outsz ? max : outsz - 1, &n);
	out[0] = 0;
	if (!p)
		return;
	if (memchr(p, 0, n)) {
		x->err = 1;
		return;
	}
	memcpy(out, p, n);
	out[n] = 0;
}

size_t xdr_left(const struct xdr_in *x)
{
	return x->err ? 0 : x->len - x->off;
}

void xdr_out_init(struct xdr_out *o, void *p, size_t cap)
{
	o->p = p;
	o->cap = cap;
	o->len = 0;
	o->err = 0;
}

static unsigned char *room(struct xdr_out *o, size_t n)
{
	unsigned char *p;
	size_t padded = pad4(n);
	if (o->err || padded < n || padded > o->cap - o->len) {
		o->err = 1;
		return NULL;
	}
	p = o->p + o->len;
	memset(p + n, 0, padded - n);
	o->len += padded;
	return p;
}

void xdr_put_u32(struct xdr_out *o, uint32_t v)
{
	unsigned char *p = room(o, 4);
	if (p)
		put_be32(p, v);
}

void xdr_put_u64(struct xdr_out *o, uint64_t v)
{
	xdr_put_u32(o, v >> 32);
	xdr_put_u32(o, (uint32_t)v);
}

void xdr_put_fixed(struct xdr_out *o, const void *p, size_t n)
{
	unsigned char *d = room(o, n);
	if (d && n)
		memcpy(d, p, n);
}

void xdr_put_opaque(struct xdr_out *o, const void *p, size_t n)
{
	if (n > UINT32_MAX) {
		o->err = 1;
		return;
	}
	xdr_put_u32(o, (uint32_t)n);
	xdr_put_fixed(o, p, n);
}

void xdr_put_string(struct xdr_out *o, const char *s)
{
	xdr_put_opaque(o, s, strlen(s));
}

/* ---- ONC RPC ---- */

const char *rpc_reply_str(int status)
{
	switch (status) {
	case RPC_OK: return "success";
	case RPC_PROG_UNAVAIL: return "program unavailable";
	case RPC_PROG_MISMATCH: return "program version mismatch";
	case RPC_PROC_UNAVAIL: return "procedure unavailable";
	case RPC_GARBAGE_ARGS: return "garbage arguments";
	case RPC_SYSTEM_ERR: return "system error";
	case RPC_DENIED_MISMATCH: return "denied: RPC version mismatch";
	case RPC_DENIED_AUTH: return "denied: authentication error";
	default: return "malformed reply";
	}
}

void rpc_put_call(struct xdr_out *o, uint32_t xid, uint32_t prog, uint32_t vers, uint32_t proc,
		  const struct rpc_cred *cred)
{
	xdr_put_u32(o, xid);
	xdr_put_u32(o, RPC_MSG_CALL);
	xdr_put_u32(o, RPC_VERSION);
	xdr_put_u32(o, prog);
	xdr_put_u32(o, vers);
	xdr_put_u32(o, proc);
	if (cred && cred->flavor == AUTH_UNIX) {
		const char *m = cred->machine ? cred->machine : "";
		size_t ml = strnlen(m, RPC_MACHINE_MAX);
		xdr_put_u32(o, AUTH_UNIX);
		/* stamp, machinename, uid, gid, gids<> (none) */
		xdr_put_u32(o, (uint32_t)(4 + 4 + pad4(ml) + 4 + 4 + 4));
		xdr_put_u32(o, cred->stamp);
		xdr_put_opaque(o, m, ml);
		xdr_put_u32(o, cred->uid);
		xdr_put_u32(o, cred->gid);
		xdr_put_u32(o, 0);
	} else {
		xdr_put_u32(o, AUTH_NONE);
		xdr_put_u32(o, 0);
	}
	xdr_put_u32(o, AUTH_NONE);	/* verifier */
	xdr_put_u32(o, 0);
}

/* An opaque_auth: flavor and a body of at most 400 bytes, skipped. */
static void skip_auth(struct xdr_in *x)
{
	uint32_t n;
	xdr_u32(x);
	xdr_opaque(x, RPC_AUTH_MAX, &n);
}

int rpc_get_reply(struct xdr_in *x, uint32_t *xid, uint32_t *lo, uint32_t *hi)
{
	uint32_t v;
	*xid = xdr_u32(x);
	if (x->err) {
		*xid = 0;
		return RPC_MALFORMED;
	}
	if (xdr_u32(x) != RPC_MSG_REPLY || x->err)
		return RPC_MALFORMED;
	v = xdr_u32(x);	/* reply_stat */
	if (x->err)
		return RPC_MALFORMED;
	if (v == 1) {	/* MSG_DENIED */
		uint32_t why = xdr_u32(x);
		if (why == 0) {	/* RPC_MISMATCH: low, high */
			uint32_t l = xdr_u32(x), h = xdr_u32(x);
			if (x->err)
				return RPC_MALFORMED;
			if (lo)
				*lo = l;
			if (hi)
				*hi = h;
			return RPC_DENIED_MISMATCH;
		}
		if (why == 1) {	/* AUTH_ERROR: auth_stat */
			xdr_u32(x);
			return x->err ? RPC_MALFORMED : RPC_DENIED_AUTH;
		}
		return RPC_MALFORMED;
	}
	if (v != 0)
		return RPC_MALFORMED;
	skip_auth(x);	/* verifier */
	v = xdr_u32(x);	/* accept_stat */
	if (x->err || v > RPC_SYSTEM_ERR)
		return RPC_MALFORMED;
	if (v == RPC_PROG_MISMATCH) {
		uint32_t l = xdr_u32(x), h = xdr_u32(x);
		if (x->err)
			return RPC_MALFORMED;
		if (lo)
			*lo = l;
		if (hi)
			*hi = h;
	}
	return (int)v;
}

int rpc_get_call(struct xdr_in *x, struct rpc_call *c)
{
	uint32_t flavor, n;
	memset(c, 0, sizeof *c);
	c->xid = xdr_u32(x);
	if (xdr_u32(x) != RPC_MSG_CALL || x->err)
		return -1;
	c->rpcvers = xdr_u32(x);
	if (x->err)
		return -1;
	if (c->rpcvers != RPC_VERSION)
		return 1;
	c->prog = xdr_u32(x);
	c->vers = xdr_u32(x);
	c->proc = xdr_u32(x);
	flavor = c->flavor = xdr_u32(x);
	if (flavor == AUTH_UNIX) {
		const unsigned char *body = xdr_opaque(x, RPC_AUTH_MAX, &n);
		struct xdr_in b;
		uint32_t m;
		if (!body)
			return -1;
		xdr_in_init(&b, body, n);
		xdr_u32(&b);	/* stamp */
		xdr_opaque(&b, RPC_MACHINE_MAX, &m);
		c->uid = xdr_u32(&b);
		c->gid = xdr_u32(&b);
		xdr_opaque(&b, RPC_GIDS_MAX * 4, &m);
		if (b.err)
			return -1;
	} else
		xdr_opaque(x, RPC_AUTH_MAX, &n);
	skip_auth(x);	/* verifier */
	return x->err ? -1 : 0;
}

void rpc_put_accepted(struct xdr_out *o, uint32_t xid, int status, uint32_t lo, uint32_t hi)
{
	xdr_put_u32(o, xid);
	xdr_put_u32(o, RPC_MSG_REPLY);
	xdr_put_u32(o, 0);	/* MSG_ACCEPTED */
	xdr_put_u32(o, AUTH_NONE);
	xdr_put_u32(o, 0);
	xdr_put_u32(o, (uint32_t)status);
	if (status == RPC_PROG_MISMATCH) {
		xdr_put_u32(o, lo);
		xdr_put_u32(o, hi);
	}
}

void rpc_put_denied_mismatch(struct xdr_out *o, uint32_t xid)
{
	xdr_put_u32(o, xid);
	xdr_put_u32(o, RPC_MSG_REPLY);
	xdr_put_u32(o, 1);	/* MSG_DENIED */
	xdr_put_u32(o, 0);	/* RPC_MISMATCH */
	xdr_put_u32(o, RPC_VERSION);
	xdr_put_u32(o, RPC_VERSION);
}

/* ---- record marking ---- */

void rm_init(struct rm_reader *r, size_t max)
{
	memset(r, 0, sizeof *r);
	r->max = max;
}

void rm_free(struct rm_reader *r)
{
	free(r->buf);
	memset(r, 0, sizeof *r);
}

/* drop what the last record used */
static void rm_compact(struct rm_reader *r)
{
	if (!r->taken)
		return;
	memmove(r->buf, r->buf + r->taken, r->len - r->taken);
	r->len -= r->taken;
	r->taken = 0;
}

unsigned char *rm_space(struct rm_reader *r, size_t *room)
{
	/* a whole record of max bytes, its fragment headers and the next
	 * record's first header: the buffer never needs more */
	size_t limit = r->max + r->max / 8 + 64;
	rm_compact(r);
	if (r->cap - r->len < 4096 && r->cap < limit) {
		size_t ncap = r->cap ? r->cap * 2 : 8192;
		if (ncap > limit)
			ncap = limit;
		r->buf = xrealloc(r->buf, ncap);
		r->cap = ncap;
	}
	*room = r->cap - r->len;
	return *room ? r->buf + r->len : NULL;
}

void rm_wrote(struct rm_reader *r, size_t n)
{
	r->len += n;
}

int rm_next(struct rm_reader *r, const unsigned char **rec, size_t *len)
{
	size_t off = 0, total = 0, nfrag = 0;
	rm_compact(r);
	/* walk the fragment headers: is a whole record here? */
	for (;;) {
		uint32_t h;
		size_t flen;
		if (r->len - off < 4)
			return 0;
		h = be32(r->buf + off);
		flen = h & 0x7fffffffu;
		total += flen;
		nfrag++;
		/* a record over max, or one cut into so many fragments that
		 * their headers would not fit the buffer's slack, is refused */
		if (total > r->max || nfrag > r->max / 32 + 1)
			return -1;
		if (r->len - off - 4 < flen)
			return 0;
		off += 4 + flen;
		if (h & 0x80000000u)
			break;
	}
	/* join the fragments in place, dropping their headers */
	{
		size_t src = 0, dst = 0;
		for (;;) {
			uint32_t h = be32(r->buf + src);
			size_t flen = h & 0x7fffffffu;
			memmove(r->buf + dst, r->buf + src + 4, flen);
			dst += flen;
			src += 4 + flen;
			if (h & 0x80000000u)
				break;
		}
	}
	*rec = r->buf;
	*len = total;
	r->taken = off;
	/* the joined record sits at the front; bytes from total to off are
	 * stale and go with the compaction on the next call */
	return 1;
}

void rm_header(unsigned char hdr[4], size_t len)
{
	put_be32(hdr, 0x80000000u | (uint32_t)(len & 0x7fffffffu));
}
