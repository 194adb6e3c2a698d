/*
 * httphead.c - HTTP request heads (see httphead.h).
 */
#define _GNU_SOURCE	/* memmem */
#include <string.h>
#include <strings.h>

#include "httphead.h"

#define MAX_LENGTH (1ull << 53)

/* Content-Length's value: optional blanks, digits, optional blanks. */
static int length_value(const char *p, const char *end, unsigned long long *out)
{
	unsigned long long v = 0;
	int digits = 0;
	while (p < end && (*p == ' ' || *p == '\t'))
		p++;
	for (; p < end && *p >= '0' && *p <= '9'; p++, digits++) {
		v = v * 10 + (unsigned)(*p - '0');
		if (v > MAX_LENGTH)
			return -1;
	}
	while (p < end && (*p == ' ' || *p == '\t'))
		p++;
	if (!digits || p != end)
		return -1;
	*out = v;
	return 0;
}

int http_head_parse(const char *buf, size_t len, struct http_head *h)
{
	const char *end = memmem(buf, len, "\r\n\r\n", 4), *p, *sp1, *sp2, *eol;
	size_t ml, tl;

	memset(h, 0, sizeof *h);
	if (!end)
		return 0;
	h->head_len = (size_t)(end - buf) + 4;
	/* request line */
	eol = memmem(buf, (size_t)(end - buf) + 2, "\r\n", 2);
	sp1 = memchr(buf, ' ', (size_t)(eol - buf));
	if (!sp1)
		return -1;
	sp2 = memchr(sp1 + 1, ' ', (size_t)(eol - sp1 - 1));
	ml = (size_t)(sp1 - buf);
	if (!sp2 || !ml || ml >= sizeof h->method)
		return -1;
	tl = (size_t)(sp2 - sp1 - 1);
	if (!tl || tl >= sizeof h->target || sp1[1] != '/')
		return -1;
	if ((size_t)(eol - sp2 - 1) != 8 || memcmp(sp2 + 1, "HTTP/1.", 7) || sp2[8] < '0' || sp2[8] > '9')
		return -1;
	for (size_t i = 0; i < ml; i++)
		if (buf[i] < 'A' || buf[i] > 'Z')
			return -1;
	for (size_t i = 0; i < tl; i++)
		if ((unsigned char)sp1[1 + i] <= ' ' || (unsigned char)sp1[1 + i] >= 0x7f)
			return -1;
	memcpy(h->method, buf, ml);
	memcpy(h->target, sp1 + 1, tl);
	/* header lines */
	for (p = eol + 2; p < end + 2; p = eol + 2) {
		const char *colon;
		eol = memmem(p, (size_t)(end + 2 - p), "\r\n", 2);
		colon = memchr(p, ':', (size_t)(eol - p));
		if (colon && colon - p == 14 && !strncasecmp(p, "content-length", 14)) {
			unsigned long long v;
			if (h->has_length || length_value(colon + 1, eol, &v) < 0)
				return -1;
			h->has_length = 1;
			h->length = v;
		}
	}
	return 1;
}
