/*
 * httpd.h - bootbench's own small HTTP server: one process, one epoll loop,
 * no fork per connection. It serves one generated document of a chosen size
 * at HTTPD_DOC_PATH, with HTTP/1.0 keep-alive ("Connection: keep-alive") and
 * HTTP/1.1 persistence, so the http workload measures the kernel's loopback
 * and socket paths rather than a server's process model. `bootbench serve
 * http` runs the same server alone, for ab or wrk to be pointed at.
 *
 * Its limits live here rather than in lib/defaults.h because nothing else
 * uses them.
 */
#ifndef BB_HTTPD_H
#define BB_HTTPD_H

#include <stddef.h>

#define HTTPD_DOC_PATH "/doc"
#define HTTPD_MAX_CONNS 4096		/* more are accepted and closed at once */
#define HTTPD_MAX_REQUEST 8192		/* request line and headers */
#define HTTPD_IDLE_S 30			/* an idle connection is closed after this */
#define HTTPD_MAX_DOC (1LL << 30)	/* the document is held in memory */

struct httpd;

struct httpd_stats {
	unsigned long long connections, requests, errors, bytes;
};

/* Listen on addr (numeric IPv4) and port (0: an ephemeral one), with a
 * document of doc_size bytes. NULL with a reason in err on failure. */
struct httpd *httpd_open(const char *addr, unsigned port, long long doc_size, char *err, size_t errlen);
unsigned httpd_port(const struct httpd *h);
/* Serve until stop_fd (-1: none) becomes readable: 0 then, -1 with errno on
 * a failure of the loop itself. Connection errors are counted, not fatal. */
int httpd_serve(struct httpd *h, int stop_fd);
void httpd_get_stats(const struct httpd *h, struct httpd_stats *s);
void httpd_close(struct httpd *h);

/* The document's bytes (deterministic text lines); busybox httpd serves the
 * same bytes from a file. */
void httpd_fill_doc(char *buf, size_t n);

/* Bring the loopback interface up if it is down (in the appliance nobody
 * else does); a no-op when it is up. 0, or -1 with a reason in err. */
int loopback_up(char *err, size_t errlen);

#endif
