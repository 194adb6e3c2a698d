/*
 * httphead.c - the request heads the boot server accepts, and the ones it
 * refuses, byte for byte.
 */
#include "httphead.h"
#include "tap.h"

static const struct {
	const char *in;
	int rc;
	const char *method, *target;
	long long length;	/* -1: none */
} cases[] = {
	{ "GET /boot/52:54:00:aa:bb:cc HTTP/1.1\r\nHost: x\r\n\r\n", 1, "GET", "/boot/52:54:00:aa:bb:cc", -1 },
	{ "POST /results/m/t HTTP/1.0\r\nContent-Length: 12\r\n\r\nbody", 1, "POST", "/results/m/t", 12 },
	{ "POST /r HTTP/1.0\r\ncontent-LENGTH:7 \r\n\r\n", 1, "POST", "/r", 7 },
	{ "GET / HTTP/1.0\r\n", 0, "", "", -1 },
	{ "GET / HTTP/1.0\r\nHost: x\r\n", 0, "", "", -1 },
	{ "POST /r HTTP/1.0\r\nContent-Length: -1\r\n\r\n", -1, "", "", -1 },
	{ "POST /r HTTP/1.0\r\nContent-Length: 18446744073709551616\r\n\r\n", -1, "", "", -1 },
	{ "POST /r HTTP/1.0\r\nContent-Length: 5\r\nContent-Length: 5\r\n\r\n", -1, "", "", -1 },
	{ "POST /r HTTP/1.0\r\nContent-Length: 5x\r\n\r\n", -1, "", "", -1 },
	{ " POST /r HTTP/1.0\r\n\r\n", -1, "", "", -1 },
	{ "POST\t/r HTTP/1.0\r\n\r\n", -1, "", "", -1 },
	{ "post /r HTTP/1.0\r\n\r\n", -1, "", "", -1 },
	{ "GET r HTTP/1.0\r\n\r\n", -1, "", "", -1 },
	{ "GET /a b HTTP/1.0\r\n\r\n", -1, "", "", -1 },
	{ "GET / HTTP/2.0\r\n\r\n", -1, "", "", -1 },
	{ "GET / HTTP/1.0 x\r\n\r\n", -1, "", "", -1 },
	{ "TOOLONGMETHOD / HTTP/1.0\r\n\r\n", -1, "", "", -1 },
};

/* The input with CR and LF visible, for a one-line description. */
static const char *shown(const char *s)
{
	static char out[256];
	size_t o = 0;
	for (; *s && o + 3 < sizeof out; s++) {
		if (*s == '\r' || *s == '\n') {
			out[o++] = '\\';
			out[o++] = *s == '\r' ? 'r' : 'n';
		} else if (*s == '\t') {
			out[o++] = '\\';
			out[o++] = 't';
		} else
			out[o++] = *s;
	}
	out[o] = 0;
	return out;
}

int main(void)
{
	size_t n = sizeof cases / sizeof *cases;
	tap_plan((int)n);
	for (size_t i = 0; i < n; i++) {
		struct http_head h;
		int rc = http_head_parse(cases[i].in, strlen(cases[i].in), &h);
		long long len = h.has_length ? (long long)h.length : -1;
		ok(rc == cases[i].rc && (rc != 1 || (!strcmp(h.method, cases[i].method) &&
						     !strcmp(h.target, cases[i].target) && len == cases[i].length)),
		   "%s -> %d", shown(cases[i].in), cases[i].rc);
	}
	return tap_done();
}
