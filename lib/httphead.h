/*
 * httphead.h - the head of an HTTP/1.x request, parsed from a buffer: what
 * the boot server reads from anyone on the lab segment before it decides
 * anything. Pure (no I/O), bounded by its input, fuzzed (tests/fuzz/httphead.c).
 */
#ifndef BB_HTTPHEAD_H
#define BB_HTTPHEAD_H

#include <stddef.h>

struct http_head {
	char method[8];		/* "GET", "POST", ... */
	char target[512];	/* the request target, as sent */
	int has_length;
	unsigned long long length;	/* Content-Length, when has_length */
	size_t head_len;	/* bytes up to and including the blank line */
};

/* Parse buf[0..len). Returns 1 when the head is complete (h filled), 0 when
 * the blank line has not come yet, -1 when it is malformed: a request line
 * that is not "METHOD TARGET HTTP/x.y" with a method of capital letters and
 * a target starting with '/', both within their sizes; a Content-Length that
 * is not digits or past 2^53; two Content-Lengths. */
int http_head_parse(const char *buf, size_t len, struct http_head *h);

#endif
