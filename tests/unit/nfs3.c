/*
 * nfs3.c - NFSv3 and MOUNT results (lib/nfs3.c) and the portmapper
 * (lib/portmap.c), table-driven: each case a reply built field by field as
 * RFC 1813 lays it out, then cut, padded, inflated or given a bad field.
 * A well-formed reply decodes to its fields; every malformed one is -1.
 * The portmapper answers the calls the kernel's lockd and nfsd make (PMAP
 * v2 SET/UNSET, RPCBIND v4 SET with a tcp6 universal address), GETPORT and
 * MNT as a client asks them, and refuses garbage without crashing.
 */
#include <netinet/in.h>

#include "nfs3.h"
#include "portmap.h"
#include "tap.h"

static void fattr(struct xdr_out *o, uint32_t type, uint64_t size)
{
	xdr_put_u32(o, type);
	xdr_put_u32(o, 0644);
	xdr_put_u32(o, 1);	/* nlink */
	xdr_put_u32(o, 0);
	xdr_put_u32(o, 0);
	xdr_put_u64(o, size);
	xdr_put_u64(o, size);	/* used */
	xdr_put_u32(o, 0);	/* rdev */
	xdr_put_u32(o, 0);
	xdr_put_u64(o, 7);	/* fsid */
	xdr_put_u64(o, 1234);	/* fileid */
	for (int i = 0; i < 6; i++)
		xdr_put_u32(o, 1700000000 + i);
}

static void post_attr(struct xdr_out *o, uint64_t size)
{
	xdr_put_u32(o, 1);
	fattr(o, NF3REG, size);
}

static void wcc(struct xdr_out *o)
{
	xdr_put_u32(o, 1);	/* pre: size, mtime, ctime */
	xdr_put_u64(o, 10);
	for (int i = 0; i < 4; i++)
		xdr_put_u32(o, 5);
	post_attr(o, 10);
}

static const unsigned char FH[8] = { 1, 2, 3, 4, 5, 6, 7, 8 };

/* each builder writes one reply's results; variants below break it */
enum { GOOD, TRUNC, TRAIL, HUGE_FH, BAD_BOOL, BAD_TYPE, COUNT_LIE, HUGE_DATA, HUGE_NAME };

static void build(struct xdr_out *o, uint32_t proc, int variant)
{
	switch (proc) {
	case NFS3_GETATTR:
		xdr_put_u32(o, NFS3_OK);
		fattr(o, variant == BAD_TYPE ? 9 : NF3REG, 4096);
		break;
	case NFS3_LOOKUP:
		xdr_put_u32(o, NFS3_OK);
		if (variant == HUGE_FH) {
			unsigned char big[65] = { 0 };
			xdr_put_opaque(o, big, 65);
		} else
			xdr_put_opaque(o, FH, sizeof FH);
		post_attr(o, 100);
		xdr_put_u32(o, variant == BAD_BOOL ? 2 : 0);	/* dir attributes: none */
		break;
	case NFS3_READ:
		xdr_put_u32(o, NFS3_OK);
		post_attr(o, 8192);
		xdr_put_u32(o, variant == COUNT_LIE ? 4096 : 16);	/* count */
		xdr_put_u32(o, 1);	/* eof */
		if (variant == HUGE_DATA)
			xdr_put_u32(o, 0x7fffffff);
		else
			xdr_put_opaque(o, "0123456789abcdef", 16);
		break;
	case NFS3_WRITE:
		xdr_put_u32(o, NFS3_OK);
		wcc(o);
		xdr_put_u32(o, 8192);
		xdr_put_u32(o, variant == BAD_TYPE ? 3 : NFS3_FILE_SYNC);
		xdr_put_fixed(o, "verifier", 8);
		break;
	case NFS3_CREATE:
		xdr_put_u32(o, NFS3_OK);
		xdr_put_u32(o, 1);
		xdr_put_opaque(o, FH, sizeof FH);
		post_attr(o, 0);
		wcc(o);
		break;
	case NFS3_READDIRPLUS:
		xdr_put_u32(o, NFS3_OK);
		post_attr(o, 4096);
		xdr_put_fixed(o, "cookieve", 8);
		for (int i = 0; i < 3; i++) {
			xdr_put_u32(o, 1);
			xdr_put_u64(o, 100 + i);
			if (variant == HUGE_NAME && i == 1) {
				char n[300];
				memset(n, 'x', sizeof n);
				xdr_put_opaque(o, n, sizeof n);
			} else
				xdr_put_string(o, i == 0 ? "." : i == 1 ? "f1" : "f2");
			xdr_put_u64(o, 1000 + i);
			post_attr(o, 1);
			xdr_put_u32(o, 1);
			xdr_put_opaque(o, FH, sizeof FH);
		}
		xdr_put_u32(o, 0);
		xdr_put_u32(o, 1);	/* eof */
		break;
	case NFS3_FSSTAT:
		xdr_put_u32(o, NFS3_OK);
		post_attr(o, 4096);
		for (int i = 0; i < 6; i++)
			xdr_put_u64(o, 1000 * (i + 1));
		xdr_put_u32(o, 0);
		break;
	case NFS3_REMOVE:
		xdr_put_u32(o, NFS3ERR_NOENT);
		wcc(o);
		break;
	}
}

static const struct {
	uint32_t proc;
	int variant;
	int rc;
	const char *what;
} cases[] = {
	{ NFS3_GETATTR, GOOD, 0, "GETATTR ok: fattr3" },
	{ NFS3_GETATTR, TRUNC, -1, "GETATTR cut in its attributes" },
	{ NFS3_GETATTR, TRAIL, -1, "GETATTR with 4 bytes too many" },
	{ NFS3_GETATTR, BAD_TYPE, -1, "GETATTR with file type 9" },
	{ NFS3_LOOKUP, GOOD, 0, "LOOKUP ok: handle and attributes" },
	{ NFS3_LOOKUP, HUGE_FH, -1, "LOOKUP with a 65-byte file handle" },
	{ NFS3_LOOKUP, BAD_BOOL, -1, "LOOKUP whose attributes_follow is 2" },
	{ NFS3_LOOKUP, TRUNC, -1, "LOOKUP cut" },
	{ NFS3_READ, GOOD, 0, "READ ok: 16 bytes, eof" },
	{ NFS3_READ, COUNT_LIE, -1, "READ whose count says 4096 but carries 16" },
	{ NFS3_READ, HUGE_DATA, -1, "READ claiming 2 GiB of data" },
	{ NFS3_READ, TRUNC, -1, "READ cut in its data" },
	{ NFS3_WRITE, GOOD, 0, "WRITE ok: wcc, count, FILE_SYNC, verifier" },
	{ NFS3_WRITE, BAD_TYPE, -1, "WRITE with stable_how 3" },
	{ NFS3_CREATE, GOOD, 0, "CREATE ok: the new handle" },
	{ NFS3_CREATE, TRAIL, -1, "CREATE with trailing bytes" },
	{ NFS3_READDIRPLUS, GOOD, 0, "READDIRPLUS ok: 3 entries, eof" },
	{ NFS3_READDIRPLUS, HUGE_NAME, -1, "READDIRPLUS with a 300-byte name" },
	{ NFS3_READDIRPLUS, TRUNC, -1, "READDIRPLUS cut before eof" },
	{ NFS3_FSSTAT, GOOD, 0, "FSSTAT ok" },
	{ NFS3_REMOVE, GOOD, 0, "REMOVE failed with NOENT: a status, not malformed" },
	{ NFS3_REMOVE, TRUNC, -1, "REMOVE cut in its wcc" },
};

static void test_results(void)
{
	for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
		unsigned char buf[4096];
		struct xdr_out o;
		struct xdr_in x;
		struct nfs3_res r;
		size_t len;
		int rc;
		xdr_out_init(&o, buf, sizeof buf);
		build(&o, cases[i].proc, cases[i].variant);
		len = o.len;
		if (cases[i].variant == TRUNC)
			len -= 8;
		if (cases[i].variant == TRAIL)
			len += 4;	/* the buffer's next word, zeroed by the build */
		xdr_in_init(&x, buf, len);
		rc = nfs3_get_res(&x, cases[i].proc, &r);
		ok(rc == cases[i].rc, "%s: %s", nfs3_proc_name(cases[i].proc), cases[i].what);
		if (rc == 0 && cases[i].proc == NFS3_READ)
			ok(r.count == 16 && r.eof && r.has_attr && r.attr.size == 8192, "READ fields: count, eof, size");
		if (rc == 0 && cases[i].proc == NFS3_LOOKUP)
			ok(r.has_fh && r.fh.len == 8 && !memcmp(r.fh.data, FH, 8) && r.attr.fileid == 1234,
			   "LOOKUP fields: handle and fileid");
		if (rc == 0 && cases[i].proc == NFS3_READDIRPLUS)
			ok(r.count == 3 && r.eof && r.cookie == 1002 && !memcmp(r.verf, "cookieve", 8),
			   "READDIRPLUS fields: 3 entries, last cookie, verifier");
		if (rc == 0 && cases[i].proc == NFS3_REMOVE)
			ok(r.status == NFS3ERR_NOENT, "REMOVE status NOENT kept");
		if (rc == 0 && cases[i].proc == NFS3_WRITE)
			ok(r.count == 8192 && r.committed == NFS3_FILE_SYNC && !memcmp(r.verf, "verifier", 8),
			   "WRITE fields");
	}
	{
		unsigned char buf[16] = { 0 };
		struct xdr_in x;
		struct nfs3_res r;
		xdr_in_init(&x, buf, 4);
		ok(nfs3_get_res(&x, 99, &r) == -1, "a procedure number past COMMIT is malformed");
		xdr_in_init(&x, buf, 0);
		ok(nfs3_get_res(&x, NFS3_NULL, &r) == 0, "NULL: an empty result");
	}
}

static void test_args(void)
{
	unsigned char buf[256], data[16] = "abc";
	struct nfs_fh fh = { 8, { 1, 2, 3, 4, 5, 6, 7, 8 } };
	struct nfs3_args a = { .fh = &fh, .name = "file0001", .offset = 4096, .count = 3, .data = data,
			       .stable = NFS3_UNSTABLE, .mode = 0644 };
	struct xdr_out o;
	struct xdr_in x;
	uint32_t n;
	xdr_out_init(&o, buf, sizeof buf);
	nfs3_put_args(&o, NFS3_WRITE, &a);
	xdr_in_init(&x, buf, o.len);
	xdr_opaque(&x, 64, &n);
	ok(!o.err && n == 8 && xdr_u64(&x) == 4096 && xdr_u32(&x) == 3 && xdr_u32(&x) == NFS3_UNSTABLE &&
	   xdr_opaque(&x, 16, &n) && n == 3 && !xdr_left(&x), "WRITE arguments: fh, offset, count, stable, data");
	xdr_out_init(&o, buf, sizeof buf);
	a.name = "";
	{
		char longname[300];
		memset(longname, 'n', sizeof longname - 1);
		longname[sizeof longname - 1] = 0;
		a.name = longname;
		nfs3_put_args(&o, NFS3_LOOKUP, &a);
		ok(o.err, "LOOKUP of a 299-byte name is refused by the encoder");
	}
	xdr_out_init(&o, buf, sizeof buf);
	fh.len = 65;
	nfs3_put_args(&o, NFS3_GETATTR, &a);
	ok(o.err, "a 65-byte file handle is refused by the encoder");
}

/* a call to the portmapper, as the kernel or a client sends it */
static size_t call(unsigned char *buf, size_t cap, uint32_t xid, uint32_t prog, uint32_t vers, uint32_t proc,
		   void (*args)(struct xdr_out *, const void *), const void *ctx)
{
	struct xdr_out o;
	struct rpc_cred cr = { AUTH_UNIX, 0, 0, 0, "(none)" };
	xdr_out_init(&o, buf, cap);
	rpc_put_call(&o, xid, prog, vers, proc, &cr);
	if (args)
		args(&o, ctx);
	return o.len;
}

struct mapping {
	uint32_t prog, vers, prot, port;
};
static void a_mapping(struct xdr_out *o, const void *p)
{
	const struct mapping *m = p;
	pmap_put_mapping(o, m->prog, m->vers, m->prot, m->port);
}
struct rpcb {
	uint32_t prog, vers;
	const char *netid, *addr, *owner;
};
static void a_rpcb(struct xdr_out *o, const void *p)
{
	const struct rpcb *r = p;
	xdr_put_u32(o, r->prog);
	xdr_put_u32(o, r->vers);
	xdr_put_string(o, r->netid);
	xdr_put_string(o, r->addr);
	xdr_put_string(o, r->owner);
}
static void a_path(struct xdr_out *o, const void *p)
{
	mnt3_put_path(o, p);
}

/* send a call, check the reply head; x is left at the results */
static int priv = 1;	/* asks as the kernel would: may register */

static int ask(struct pmap_state *s, const unsigned char *req, size_t len, unsigned char *rep, struct xdr_in *x,
	       uint32_t want_xid)
{
	size_t n = pmap_handle(s, req, len, rep, 1024, priv);
	uint32_t xid;
	int st;
	xdr_in_init(x, rep, n);
	st = rpc_get_reply(x, &xid, NULL, NULL);
	return n && xid == want_xid ? st : -1;
}

static void test_portmap(void)
{
	struct pmap_state *s = calloc(1, sizeof *s);
	unsigned char req[1024], rep[1024];
	struct xdr_in x;
	size_t len;
	uint32_t port;
	struct mapping nlm_udp = { NLM_PROGRAM, 4, IPPROTO_UDP, 40001 }, q;
	struct rpcb nlm6 = { NLM_PROGRAM, 4, "tcp6", "::.156.66", "" };

	s->self_port = 111;
	s->export_path = "/mnt/bb";
	s->export_fh = (struct nfs_fh){ 8, { 1, 2, 3, 4, 5, 6, 7, 8 } };

	len = call(req, sizeof req, 1, PMAP_PROGRAM, 2, PMAP_NULL, NULL, NULL);
	ok(ask(s, req, len, rep, &x, 1) == RPC_OK && !xdr_left(&x), "PMAP v2 NULL: the kernel's ping answered");
	len = call(req, sizeof req, 2, PMAP_PROGRAM, 2, PMAP_SET, a_mapping, &nlm_udp);
	ok(ask(s, req, len, rep, &x, 2) == RPC_OK && xdr_u32(&x) == 1, "PMAP SET of nlockmgr v4 udp: TRUE");
	len = call(req, sizeof req, 3, PMAP_PROGRAM, 2, PMAP_SET, a_mapping, &nlm_udp);
	ok(ask(s, req, len, rep, &x, 3) == RPC_OK && xdr_u32(&x) == 1 && s->n == 1,
	   "the same SET again replaces it (one entry)");
	len = call(req, sizeof req, 4, PMAP_PROGRAM, 4, RPCB_SET, a_rpcb, &nlm6);
	ok(ask(s, req, len, rep, &x, 4) == RPC_OK && xdr_u32(&x) == 1, "RPCBIND v4 SET of nlockmgr tcp6 ::.156.66: TRUE");
	ok(s->n == 2 && s->e[1].port == 156 * 256 + 66, "the tcp6 entry's port read from its universal address (%u)",
	   s->e[1].port);
	q = (struct mapping){ NLM_PROGRAM, 4, IPPROTO_UDP, 0 };
	len = call(req, sizeof req, 5, PMAP_PROGRAM, 2, PMAP_GETPORT, a_mapping, &q);
	ok(ask(s, req, len, rep, &x, 5) == RPC_OK && pmap_get_port(&x, &port) == 0 && port == 40001,
	   "GETPORT nlockmgr v4 udp: 40001");
	q = (struct mapping){ MOUNT_PROGRAM, 3, IPPROTO_TCP, 0 };
	len = call(req, sizeof req, 6, PMAP_PROGRAM, 2, PMAP_GETPORT, a_mapping, &q);
	ok(ask(s, req, len, rep, &x, 6) == RPC_OK && pmap_get_port(&x, &port) == 0 && port == 111,
	   "GETPORT mount v3 tcp: answered at the portmapper's own port");
	q = (struct mapping){ NFS_PROGRAM, 3, IPPROTO_TCP, 0 };
	len = call(req, sizeof req, 7, PMAP_PROGRAM, 2, PMAP_GETPORT, a_mapping, &q);
	ok(ask(s, req, len, rep, &x, 7) == RPC_OK && pmap_get_port(&x, &port) == 0 && port == 0,
	   "GETPORT of nfs before nfsd registered: 0");
	len = call(req, sizeof req, 8, PMAP_PROGRAM, 4, RPCB_UNSET, a_rpcb, &(struct rpcb){ NLM_PROGRAM, 4, "", "", "" });
	ok(ask(s, req, len, rep, &x, 8) == RPC_OK && xdr_u32(&x) == 1 && s->n == 0,
	   "RPCBIND v4 UNSET with an empty netid drops every transport of nlockmgr v4");

	len = call(req, sizeof req, 9, MOUNT_PROGRAM, 3, MOUNT3_MNT, a_path, "/mnt/bb");
	{
		uint32_t st;
		struct nfs_fh fh;
		ok(ask(s, req, len, rep, &x, 9) == RPC_OK && mnt3_get_mnt(&x, &st, &fh) == 0 && st == MNT3_OK &&
		   fh.len == 8 && fh.data[7] == 8, "MNT /mnt/bb: OK and the export's root handle");
		len = call(req, sizeof req, 10, MOUNT_PROGRAM, 3, MOUNT3_MNT, a_path, "/etc");
		ok(ask(s, req, len, rep, &x, 10) == RPC_OK && mnt3_get_mnt(&x, &st, &fh) == 0 && st == MNT3ERR_NOENT &&
		   fh.len == 0, "MNT /etc (not exported): NOENT, no handle");
	}
	len = call(req, sizeof req, 11, MOUNT_PROGRAM, 1, MOUNT3_MNT, a_path, "/mnt/bb");
	ok(ask(s, req, len, rep, &x, 11) == RPC_PROG_MISMATCH, "MOUNT v1: program version mismatch");
	len = call(req, sizeof req, 12, NFS_PROGRAM, 3, 0, NULL, NULL);
	ok(ask(s, req, len, rep, &x, 12) == RPC_PROG_UNAVAIL, "nfs asked of the portmapper: program unavailable");
	len = call(req, sizeof req, 13, PMAP_PROGRAM, 2, 5, NULL, NULL);
	ok(ask(s, req, len, rep, &x, 13) == RPC_PROC_UNAVAIL, "PMAP CALLIT: procedure unavailable");
	len = call(req, sizeof req, 14, PMAP_PROGRAM, 2, PMAP_SET, a_mapping, &nlm_udp);
	ok(ask(s, req, len - 4, rep, &x, 14) == RPC_GARBAGE_ARGS && s->n == 0, "a SET cut short: garbage args, nothing set");
	len = call(req, sizeof req, 15, PMAP_PROGRAM, 2, PMAP_GETPORT, a_mapping, &q);
	memcpy(req + len, "\0\0\0\0", 4);
	ok(ask(s, req, len + 4, rep, &x, 15) == RPC_GARBAGE_ARGS, "a GETPORT with 4 bytes too many: garbage args");
	ok(pmap_handle(s, (const unsigned char *)"GET / HTTP/1.0\r\n\r\n", 18, rep, sizeof rep, 1) == 0,
	   "an HTTP request is not answered");
	{
		/* a process without privilege cannot register or unregister */
		struct mapping hijack = { NFS_PROGRAM, 3, IPPROTO_TCP, 4444 };
		size_t n0 = s->n;
		priv = 0;
		len = call(req, sizeof req, 20, PMAP_PROGRAM, 2, PMAP_SET, a_mapping, &hijack);
		ok(ask(s, req, len, rep, &x, 20) == RPC_OK && xdr_u32(&x) == 0 && s->n == n0,
		   "PMAP SET from an unprivileged peer: FALSE, nothing registered");
		len = call(req, sizeof req, 21, PMAP_PROGRAM, 4, RPCB_SET, a_rpcb, &nlm6);
		ok(ask(s, req, len, rep, &x, 21) == RPC_OK && xdr_u32(&x) == 0 && s->n == n0,
		   "RPCBIND SET from an unprivileged peer: FALSE");
		q = (struct mapping){ MOUNT_PROGRAM, 3, IPPROTO_TCP, 0 };
		len = call(req, sizeof req, 22, PMAP_PROGRAM, 2, PMAP_GETPORT, a_mapping, &q);
		ok(ask(s, req, len, rep, &x, 22) == RPC_OK && pmap_get_port(&x, &port) == 0 && port == 111,
		   "... while it may still ask (GETPORT)");
		priv = 1;
	}
	{
		unsigned long before = s->calls;
		size_t full = 0;
		struct mapping m = { 300000, 1, IPPROTO_TCP, 1 };
		for (int i = 0; i < 100; i++) {
			m.prog = 300000 + i;
			len = call(req, sizeof req, 100 + i, PMAP_PROGRAM, 2, PMAP_SET, a_mapping, &m);
			if (ask(s, req, len, rep, &x, 100 + i) == RPC_OK && xdr_u32(&x) == 0)
				full++;
		}
		ok(s->n == PMAP_MAX_ENTRIES && full == 100 - PMAP_MAX_ENTRIES && s->calls == before + 100,
		   "100 registrations: the table holds %d, the rest are told FALSE (%zu)", PMAP_MAX_ENTRIES, full);
	}
	free(s);
}

int main(void)
{
	tap_plan(53);
	test_results();
	test_args();
	test_portmap();
	return tap_done();
}
