/*
 * httpc.h - a small blocking HTTP/1.0 client for numeric IPv4 URLs: the
 * appliance sends its records home with it, and the http workload parses its
 * url= with the same code. No DNS, no TLS, no redirects: a lab network and a
 * boot server we run ourselves.
 */
#ifndef BB_HTTPC_H
#define BB_HTTPC_H

#include <netinet/in.h>
#include <stddef.h>

#include "sbuf.h"

/* "[http://]A.B.C.D:PORT[/path]"; path defaults to defpath. 0 or -1. */
int httpc_parse_url(const char *url, struct sockaddr_in *sa, char *path, size_t plen,
		    const char *defpath);

/* One request (Connection: close). body may be NULL. Every step (connect,
 * send, receive) must finish within timeout_ms in total. Returns the HTTP
 * status (resp gets the body, if given), or -1 with a message in err. */
int httpc_request(const char *method, const char *url, const char *ctype, const char *body,
		  size_t len, unsigned timeout_ms, struct sbuf *resp, char *err, size_t errlen);

/* What the boot server's answer to an upload of records means for them
 * (its words are in defaults.h): stored; over the byte quota (final: the
 * mark moves past them, they stay on the partition); refused (400, 403,
 * 404, 405: a bad or expired token, a wrong URL; sending the same again
 * cannot help, so not this boot; the mark stays and they go with the next
 * boot's upload); or worth a retry (no answer, 5xx, 408, 429, a bare 413
 * of a proxy's body limit). */
enum upload_answer { UPLOAD_STORED, UPLOAD_OVER_QUOTA, UPLOAD_REFUSED, UPLOAD_RETRY };
enum upload_answer upload_answer(int status, const char *body);

#endif
