/*
 * xdr.c - XDR, the ONC RPC reply head and TCP record marking (lib/xdr.c):
 * well-formed bytes decode to what was encoded, and hostile ones (short,
 * huge lengths, bad booleans, denied or unknown replies, a record over the
 * bound, a thousand tiny fragments) are errors, never reads past the end.
 */
#include <stdlib.h>

#include "tap.h"
#include "xdr.h"

/* a reply head built word by word */
static size_t words(unsigned char *buf, const uint32_t *w, size_t n)
{
	struct xdr_out o;
	xdr_out_init(&o, buf, 4 * n);
	for (size_t i = 0; i < n; i++)
		xdr_put_u32(&o, w[i]);
	return o.len;
}

static const struct {
	const char *what;
	uint32_t w[12];
	size_t n;
	int status;
	uint32_t xid;
} replies[] = {
	{ "accepted, success", { 7, 1, 0, 0, 0, 0 }, 6, RPC_OK, 7 },
	{ "accepted with a verifier body", { 8, 1, 0, 1, 4, 0xdeadbeef, 0 }, 7, RPC_OK, 8 },
	{ "prog unavailable", { 9, 1, 0, 0, 0, 1 }, 6, RPC_PROG_UNAVAIL, 9 },
	{ "prog mismatch 2..4", { 9, 1, 0, 0, 0, 2, 2, 4 }, 8, RPC_PROG_MISMATCH, 9 },
	{ "prog mismatch without its versions", { 9, 1, 0, 0, 0, 2, 2 }, 7, RPC_MALFORMED, 9 },
	{ "proc unavailable", { 9, 1, 0, 0, 0, 3 }, 6, RPC_PROC_UNAVAIL, 9 },
	{ "garbage args", { 9, 1, 0, 0, 0, 4 }, 6, RPC_GARBAGE_ARGS, 9 },
	{ "system error", { 9, 1, 0, 0, 0, 5 }, 6, RPC_SYSTEM_ERR, 9 },
	{ "accept_stat 6 (unknown)", { 9, 1, 0, 0, 0, 6 }, 6, RPC_MALFORMED, 9 },
	{ "denied, RPC mismatch", { 9, 1, 1, 0, 2, 2 }, 6, RPC_DENIED_MISMATCH, 9 },
	{ "denied, auth error", { 9, 1, 1, 1, 1 }, 5, RPC_DENIED_AUTH, 9 },
	{ "denied, reason 2 (unknown)", { 9, 1, 1, 2, 1 }, 5, RPC_MALFORMED, 9 },
	{ "reply_stat 2 (unknown)", { 9, 1, 2, 0, 0, 0 }, 6, RPC_MALFORMED, 9 },
	{ "a call, not a reply", { 9, 0, 2, 100003, 3, 0 }, 6, RPC_MALFORMED, 9 },
	{ "verifier body of 401 bytes", { 9, 1, 0, 0, 401, 0 }, 6, RPC_MALFORMED, 9 },
	{ "verifier body longer than the reply", { 9, 1, 0, 0, 400, 0 }, 6, RPC_MALFORMED, 9 },
	{ "verifier length 0xffffffff", { 9, 1, 0, 0, 0xffffffff, 0 }, 6, RPC_MALFORMED, 9 },
	{ "cut after reply_stat", { 9, 1, 0 }, 3, RPC_MALFORMED, 9 },
	{ "two bytes", { 0 }, 0, RPC_MALFORMED, 0 },
};

static void test_replies(void)
{
	for (size_t i = 0; i < sizeof replies / sizeof *replies; i++) {
		unsigned char buf[64];
		size_t len = words(buf, replies[i].w, replies[i].n);
		struct xdr_in x;
		uint32_t xid = 12345, lo = 0, hi = 0;
		int st;
		if (!replies[i].n)
			len = 2;
		xdr_in_init(&x, buf, len);
		st = rpc_get_reply(&x, &xid, &lo, &hi);
		ok(st == replies[i].status && xid == replies[i].xid, "reply head: %s -> %s (xid %u)", replies[i].what,
		   rpc_reply_str(st), xid);
		if (st == RPC_PROG_MISMATCH)
			ok(lo == 2 && hi == 4, "prog mismatch: versions 2..4 read (%u..%u)", lo, hi);
	}
}

static void test_primitives(void)
{
	unsigned char buf[64];
	struct xdr_out o;
	struct xdr_in x;
	uint32_t n;
	char s[8];
	const unsigned char *p;

	xdr_out_init(&o, buf, sizeof buf);
	xdr_put_u32(&o, 0xdeadbeef);
	xdr_put_u64(&o, 0x0102030405060708ULL);
	xdr_put_opaque(&o, "abcde", 5);
	xdr_put_string(&o, "xyz");
	ok(!o.err && o.len == 4 + 8 + 4 + 8 + 4 + 4, "encode: u32, u64, padded opaque and string (%zu bytes)", o.len);
	ok(buf[17] == 'b' && buf[21] == 0 && buf[23] == 0, "opaque padding is zeroed");
	xdr_in_init(&x, buf, o.len);
	ok(xdr_u32(&x) == 0xdeadbeef && xdr_u64(&x) == 0x0102030405060708ULL, "decode: u32 and u64");
	p = xdr_opaque(&x, 16, &n);
	ok(p && n == 5 && !memcmp(p, "abcde", 5), "decode: opaque of 5");
	xdr_string(&x, 7, s, sizeof s);
	ok(!x.err && !strcmp(s, "xyz") && !xdr_left(&x), "decode: string, nothing left");

	xdr_in_init(&x, buf + 12, 12);	/* opaque "abcde" */
	p = xdr_opaque(&x, 4, &n);
	ok(!p && x.err && n == 0, "an opaque longer than its bound is an error");
	ok(xdr_u32(&x) == 0 && x.err, "after an error every read gives 0");

	xdr_out_init(&o, buf, sizeof buf);
	xdr_put_u32(&o, 0xfffffffd);	/* a length that wraps when padded */
	xdr_in_init(&x, buf, 4);
	p = xdr_opaque(&x, 0xffffffff, &n);
	ok(!p && x.err, "an opaque length of 2^32-3 (padding wraps) is an error");

	xdr_out_init(&o, buf, sizeof buf);
	xdr_put_u32(&o, 2);
	xdr_in_init(&x, buf, 4);
	ok(xdr_bool(&x) == 0 && x.err, "a boolean of 2 is an error");

	xdr_out_init(&o, buf, sizeof buf);
	xdr_put_opaque(&o, "a\0b", 3);
	xdr_in_init(&x, buf, o.len);
	xdr_string(&x, 7, s, sizeof s);
	ok(x.err && s[0] == 0, "a string holding a NUL byte is an error");

	xdr_out_init(&o, buf, 6);
	xdr_put_u32(&o, 1);
	xdr_put_u32(&o, 2);
	ok(o.err && o.len == 4, "an encoder past its buffer sets err and writes nothing more");
}

static void test_call_roundtrip(void)
{
	unsigned char buf[512];
	struct xdr_out o;
	struct xdr_in x;
	struct rpc_call c;
	struct rpc_cred cr = { AUTH_UNIX, 1, 65534, 65534, "bootbench" };
	xdr_out_init(&o, buf, sizeof buf);
	rpc_put_call(&o, 42, 100003, 3, 1, &cr);
	xdr_put_u32(&o, 0xabcdef);
	xdr_in_init(&x, buf, o.len);
	ok(rpc_get_call(&x, &c) == 0 && c.xid == 42 && c.prog == 100003 && c.vers == 3 && c.proc == 1 &&
	   c.flavor == AUTH_UNIX && c.uid == 65534 && xdr_u32(&x) == 0xabcdef,
	   "an AUTH_UNIX call decodes to what was encoded, arguments after it");
	buf[8 + 3] = 3;	/* rpcvers 3 */
	xdr_in_init(&x, buf, o.len);
	ok(rpc_get_call(&x, &c) == 1, "a call of RPC version 3 asks for a mismatch reply");
	buf[8 + 3] = 2;
	xdr_in_init(&x, buf, 20);
	ok(rpc_get_call(&x, &c) == -1, "a call cut short is not answered");
}

static void feed(struct rm_reader *r, const unsigned char *p, size_t n)
{
	while (n) {
		size_t room;
		unsigned char *d = rm_space(r, &room);
		if (!d)
			return;
		if (room > n)
			room = n;
		memcpy(d, p, room);
		rm_wrote(r, room);
		p += room;
		n -= room;
	}
}

static void test_records(void)
{
	struct rm_reader r;
	const unsigned char *rec;
	size_t len;
	unsigned char s[64];
	/* two fragments "abc" + "defg" (last), then a one-fragment record "hi" */
	const unsigned char two[] = { 0, 0, 0, 3, 'a', 'b', 'c', 0x80, 0, 0, 4, 'd', 'e', 'f', 'g', 0x80, 0, 0, 2, 'h', 'i' };
	rm_init(&r, 1024);
	feed(&r, two, 9);
	ok(rm_next(&r, &rec, &len) == 0, "record marking: half a record waits for more");
	feed(&r, two + 9, sizeof two - 9);
	ok(rm_next(&r, &rec, &len) == 1 && len == 7 && !memcmp(rec, "abcdefg", 7), "two fragments join into one record");
	ok(rm_next(&r, &rec, &len) == 1 && len == 2 && !memcmp(rec, "hi", 2), "the next record follows");
	ok(rm_next(&r, &rec, &len) == 0, "then nothing");
	rm_free(&r);

	rm_init(&r, 1024);
	rm_header(s, 1025);
	feed(&r, s, 4);
	ok(rm_next(&r, &rec, &len) == -1, "a fragment claiming more than the bound breaks the stream at once");
	rm_free(&r);

	rm_init(&r, 1024);
	memset(s, 0, sizeof s);	/* 16 empty non-last fragments, and more */
	for (int i = 0; i < 40; i++)
		feed(&r, s, 4);
	ok(rm_next(&r, &rec, &len) == -1, "a record in 40 empty fragments (bound 1024: 33) breaks the stream");
	rm_free(&r);

	rm_init(&r, 1024);
	{
		/* 600 + 500 bytes: each fragment fits, the record does not */
		unsigned char *big = calloc(1, 1200);
		big[0] = 0; big[1] = 0; big[2] = 600 >> 8; big[3] = 600 & 255;
		rm_header(big + 604, 500);
		feed(&r, big, 1108);
		ok(rm_next(&r, &rec, &len) == -1, "a record of 1100 bytes over a bound of 1024 is refused");
		free(big);
	}
	rm_free(&r);

	rm_init(&r, 1 << 16);
	{
		/* 100 records of 1000 bytes through a reader: none lost or joined */
		unsigned char rec1[1004];
		int n = 0, bad = 0;
		for (int i = 0; i < 100; i++) {
			rm_header(rec1, 1000);
			memset(rec1 + 4, i, 1000);
			feed(&r, rec1, sizeof rec1);
			while (rm_next(&r, &rec, &len) == 1) {
				bad |= len != 1000 || rec[0] != (unsigned char)n || rec[999] != (unsigned char)n;
				n++;
			}
		}
		ok(n == 100 && !bad, "100 records streamed: each read once, whole, in order (%d)", n);
	}
	rm_free(&r);
}

int main(void)
{
	tap_plan(42);
	test_replies();
	test_primitives();
	test_call_roundtrip();
	test_records();
	return tap_done();
}
