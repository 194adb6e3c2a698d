/*
 * httpd.c - the event-driven HTTP server of httpd.h: a listening socket and
 * its connections in one level-triggered epoll set. A connection is either
 * reading a request or writing a response (header and document from memory
 * in one sendmsg); it never does both, so one buffer and two offsets per
 * connection are all the state there is. Requests pipelined behind one
 * another are answered in order from the same buffer.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <net/if.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/epoll.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

#include "httpd.h"

struct conn {
	int fd;
	int keep;		/* the response being written keeps the connection */
	int writing;
	double last;		/* last activity, for the idle timeout */
	size_t rlen;
	char hdr[256];
	size_t hlen, hoff;
	const char *body;
	size_t blen, boff;
	char rbuf[HTTPD_MAX_REQUEST];
};

struct httpd {
	int lfd, ep;
	unsigned port;
	char *doc;
	size_t doc_size;
	struct conn **conns;	/* indexed by fd */
	size_t nconns_cap, nopen;
	struct httpd_stats st;
};

static const char not_found[] = "not found\n";
static const char bad_request[] = "bad request\n";
static const char not_impl[] = "method not implemented\n";

static double now(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec + t.tv_nsec / 1e9;
}

void httpd_fill_doc(char *buf, size_t n)
{
	/* 64-byte lines: readable in a packet capture, not compressible to nothing */
	for (size_t i = 0; i < n; i++)
		buf[i] = i % 64 == 63 ? '\n' : "abcdefghijklmnopqrstuvwxyz0123456789"[(i / 64 + i) % 36];
}

int loopback_up(char *err, size_t errlen)
{
	struct ifreq ifr;
	int s = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (s < 0) {
		snprintf(err, errlen, "unable to create a socket: %s", strerror(errno));
		return -1;
	}
	memset(&ifr, 0, sizeof ifr);
	snprintf(ifr.ifr_name, sizeof ifr.ifr_name, "lo");
	if (ioctl(s, SIOCGIFFLAGS, &ifr) < 0) {
		snprintf(err, errlen, "unable to read the flags of lo: %s", strerror(errno));
		close(s);
		return -1;
	}
	if (!(ifr.ifr_flags & IFF_UP)) {
		ifr.ifr_flags |= IFF_UP | IFF_RUNNING;
		if (ioctl(s, SIOCSIFFLAGS, &ifr) < 0) {
			snprintf(err, errlen, "unable to bring lo up: %s", strerror(errno));
			close(s);
			return -1;
		}
	}
	close(s);
	return 0;
}

struct httpd *httpd_open(const char *addr, unsigned port, long long doc_size, char *err, size_t errlen)
{
	struct sockaddr_in sa = { .sin_family = AF_INET, .sin_port = htons(port) };
	socklen_t sl = sizeof sa;
	struct epoll_event ev = { .events = EPOLLIN };
	struct httpd *h;
	int one = 1;

	if (doc_size < 0 || doc_size > HTTPD_MAX_DOC) {
		snprintf(err, errlen, "document size %lld out of range (0..%lld)", doc_size, (long long)HTTPD_MAX_DOC);
		return NULL;
	}
	if (port > 65535 || inet_pton(AF_INET, addr, &sa.sin_addr) != 1) {
		snprintf(err, errlen, "bad address %s:%u (numeric IPv4 and a port 0..65535)", addr, port);
		return NULL;
	}
	h = calloc(1, sizeof *h);
	if (!h || !(h->doc = malloc(doc_size ? doc_size : 1))) {
		snprintf(err, errlen, "unable to allocate a %lld-byte document", doc_size);
		free(h);
		return NULL;
	}
	h->doc_size = doc_size;
	httpd_fill_doc(h->doc, doc_size);
	h->ep = -1;
	h->lfd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (h->lfd < 0) {
		snprintf(err, errlen, "unable to create a socket: %s", strerror(errno));
		goto fail;
	}
	setsockopt(h->lfd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
	if (bind(h->lfd, (struct sockaddr *)&sa, sizeof sa) < 0 || listen(h->lfd, SOMAXCONN) < 0 ||
	    getsockname(h->lfd, (struct sockaddr *)&sa, &sl) < 0) {
		snprintf(err, errlen, "unable to listen on %s:%u: %s", addr, port, strerror(errno));
		goto fail;
	}
	h->port = ntohs(sa.sin_port);
	h->ep = epoll_create1(EPOLL_CLOEXEC);
	ev.data.fd = h->lfd;
	if (h->ep < 0 || epoll_ctl(h->ep, EPOLL_CTL_ADD, h->lfd, &ev) < 0) {
		snprintf(err, errlen, "unable to set up epoll: %s", strerror(errno));
		goto fail;
	}
	return h;
fail:
	httpd_close(h);
	return NULL;
}

unsigned httpd_port(const struct httpd *h)
{
	return h->port;
}

void httpd_get_stats(const struct httpd *h, struct httpd_stats *s)
{
	*s = h->st;
}

static void conn_close(struct httpd *h, struct conn *c)
{
	h->conns[c->fd] = NULL;
	close(c->fd);	/* also leaves the epoll set */
	free(c);
	h->nopen--;
}

static int conn_want(struct httpd *h, struct conn *c, unsigned events)
{
	struct epoll_event ev = { .events = events, .data.fd = c->fd };
	return epoll_ctl(h->ep, EPOLL_CTL_MOD, c->fd, &ev);
}

static void accept_all(struct httpd *h)
{
	for (;;) {
		int one = 1, fd = accept4(h->lfd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
		struct epoll_event ev = { .events = EPOLLIN };
		struct conn *c;
		if (fd < 0) {
			if (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR && errno != ECONNABORTED)
				h->st.errors++;	/* EMFILE and friends: the backlog waits */
			return;
		}
		h->st.connections++;
		if (h->nopen >= HTTPD_MAX_CONNS) {
			h->st.errors++;
			close(fd);
			continue;
		}
		if ((size_t)fd >= h->nconns_cap) {
			size_t n = fd + 64;
			struct conn **p = realloc(h->conns, n * sizeof *p);
			if (!p) {
				close(fd);
				h->st.errors++;
				continue;
			}
			memset(p + h->nconns_cap, 0, (n - h->nconns_cap) * sizeof *p);
			h->conns = p;
			h->nconns_cap = n;
		}
		c = malloc(sizeof *c);
		if (!c) {
			close(fd);
			h->st.errors++;
			continue;
		}
		c->fd = fd;
		c->keep = c->writing = 0;
		c->rlen = 0;
		c->last = now();
		ev.data.fd = fd;
		/* the response tail must not wait for an ACK (Nagle + delayed ACK) */
		setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
		if (epoll_ctl(h->ep, EPOLL_CTL_ADD, fd, &ev) < 0) {
			close(fd);
			free(c);
			h->st.errors++;
			continue;
		}
		h->conns[fd] = c;
		h->nopen++;
	}
}

/* Does the header block [p, end) carry "Connection: <tok>"? */
static int has_connection(const char *p, const char *end, const char *tok)
{
	size_t tl = strlen(tok);
	while (p < end) {
		const char *eol = memchr(p, '\n', end - p);
		if (!eol)
			eol = end;
		if (eol - p > 11 && !strncasecmp(p, "connection:", 11)) {
			for (const char *q = p + 11; q + tl <= eol; q++)
				if (!strncasecmp(q, tok, tl))
					return 1;
		}
		p = eol + 1;
	}
	return 0;
}

static void set_response(struct httpd *h, struct conn *c, int v11, const char *status, const char *body, size_t blen)
{
	c->hlen = snprintf(c->hdr, sizeof c->hdr,
			   "HTTP/1.%c %s\r\nServer: bootbench\r\nContent-Type: text/plain\r\n"
			   "Content-Length: %zu\r\nConnection: %s\r\n\r\n",
			   v11 ? '1' : '0', status, blen, c->keep ? "keep-alive" : "close");
	c->hoff = c->boff = 0;
	c->body = body;
	c->blen = blen;
	c->writing = 1;
	h->st.requests++;
}

/* Parse one complete request of len bytes and set up its response. */
static void respond(struct httpd *h, struct conn *c, const char *req, size_t len)
{
	const char *end = req + len, *sp1, *sp2, *eol, *status = "200 OK", *body = h->doc;
	size_t blen = h->doc_size;
	int head = 0, v11 = 0;

	eol = memchr(req, '\n', len);
	sp1 = memchr(req, ' ', eol - req);
	sp2 = sp1 ? memchr(sp1 + 1, ' ', eol - sp1 - 1) : NULL;
	if (!sp1 || !sp2 || eol - sp2 < 9 || strncmp(sp2 + 1, "HTTP/1.", 7)) {
		status = "400 Bad Request";
		body = bad_request;
		blen = sizeof bad_request - 1;
		c->keep = 0;
	} else {
		v11 = sp2[8] != '0';
		/* HTTP/1.0 persists only on request; HTTP/1.1 unless told to close */
		c->keep = v11 ? !has_connection(eol + 1, end, "close") : has_connection(eol + 1, end, "keep-alive");
		head = sp1 - req == 4 && !memcmp(req, "HEAD", 4);
		if (!head && !(sp1 - req == 3 && !memcmp(req, "GET", 3))) {
			status = "501 Not Implemented";
			body = not_impl;
			blen = sizeof not_impl - 1;
		} else if (sp2 - sp1 - 1 != (long)strlen(HTTPD_DOC_PATH) || memcmp(sp1 + 1, HTTPD_DOC_PATH, sp2 - sp1 - 1)) {
			status = "404 Not Found";
			body = not_found;
			blen = sizeof not_found - 1;
		}
	}
	set_response(h, c, v11, status, body, blen);
	if (head)
		c->blen = 0;
}

/* Write what is pending: 1 done, 0 would block, -1 error. */
static int flush(struct httpd *h, struct conn *c)
{
	while (c->hoff < c->hlen || c->boff < c->blen) {
		struct iovec iov[2];
		struct msghdr m = { .msg_iov = iov };
		ssize_t n;
		if (c->hoff < c->hlen)
			iov[m.msg_iovlen++] = (struct iovec){ c->hdr + c->hoff, c->hlen - c->hoff };
		if (c->boff < c->blen)
			iov[m.msg_iovlen++] = (struct iovec){ (char *)c->body + c->boff, c->blen - c->boff };
		n = sendmsg(c->fd, &m, MSG_NOSIGNAL | MSG_DONTWAIT);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			return errno == EAGAIN || errno == EWOULDBLOCK ? 0 : -1;
		}
		h->st.bytes += n;
		if (c->hoff < c->hlen) {
			size_t k = (size_t)n < c->hlen - c->hoff ? (size_t)n : c->hlen - c->hoff;
			c->hoff += k;
			n -= k;
		}
		c->boff += n;
	}
	c->writing = 0;
	return 1;
}

/* Answer every complete request in the buffer; -1 means close. */
static int serve_buffered(struct httpd *h, struct conn *c)
{
	for (;;) {
		char *e = c->rlen >= 4 ? memmem(c->rbuf, c->rlen, "\r\n\r\n", 4) : NULL;
		size_t used;
		int r;
		if (!e && c->rlen < sizeof c->rbuf)
			return 0;	/* wait for the rest */
		if (!e) {
			/* too long to be a request of ours: answer 400 and close */
			c->keep = 0;
			set_response(h, c, 0, "400 Bad Request", bad_request, sizeof bad_request - 1);
			c->rlen = 0;
		} else {
			used = e + 4 - c->rbuf;
			respond(h, c, c->rbuf, used);
			memmove(c->rbuf, c->rbuf + used, c->rlen - used);
			c->rlen -= used;
		}
		r = flush(h, c);
		if (r < 0)
			return -1;
		if (r == 0)
			return conn_want(h, c, EPOLLOUT) < 0 ? -1 : 0;
		if (!c->keep)
			return -1;
	}
}

static int on_readable(struct httpd *h, struct conn *c)
{
	for (;;) {
		ssize_t n = recv(c->fd, c->rbuf + c->rlen, sizeof c->rbuf - c->rlen, MSG_DONTWAIT);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
			return 0;
		if (n <= 0)
			return -1;	/* the client closed, or reset */
		c->rlen += n;
		if (serve_buffered(h, c) < 0)
			return -1;
		if (c->writing || c->rlen == sizeof c->rbuf)
			return 0;
	}
}

static int on_writable(struct httpd *h, struct conn *c)
{
	int r = flush(h, c);
	if (r <= 0)
		return r;
	if (!c->keep)
		return -1;
	if (conn_want(h, c, EPOLLIN) < 0)
		return -1;
	return serve_buffered(h, c);
}

static void sweep_idle(struct httpd *h, double t)
{
	for (size_t fd = 0; fd < h->nconns_cap; fd++) {
		struct conn *c = h->conns[fd];
		if (c && t - c->last > HTTPD_IDLE_S)
			conn_close(h, c);
	}
}

int httpd_serve(struct httpd *h, int stop_fd)
{
	struct epoll_event evs[64];
	double last_sweep = now();

	if (stop_fd >= 0) {
		struct epoll_event ev = { .events = EPOLLIN, .data.fd = stop_fd };
		if (epoll_ctl(h->ep, EPOLL_CTL_ADD, stop_fd, &ev) < 0)
			return -1;
	}
	for (;;) {
		int n = epoll_wait(h->ep, evs, 64, 1000);
		double t;
		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		t = now();
		for (int i = 0; i < n; i++) {
			int fd = evs[i].data.fd;
			struct conn *c;
			int r;
			if (fd == stop_fd) {
				epoll_ctl(h->ep, EPOLL_CTL_DEL, stop_fd, NULL);
				return 0;
			}
			if (fd == h->lfd) {
				accept_all(h);
				continue;
			}
			c = (size_t)fd < h->nconns_cap ? h->conns[fd] : NULL;
			if (!c)
				continue;
			c->last = t;
			if (c->writing)
				r = on_writable(h, c);
			else
				r = on_readable(h, c);
			if (r < 0)
				conn_close(h, c);
		}
		if (t - last_sweep >= 1) {
			sweep_idle(h, t);
			last_sweep = t;
		}
	}
}

void httpd_close(struct httpd *h)
{
	if (!h)
		return;
	for (size_t fd = 0; fd < h->nconns_cap; fd++)
		if (h->conns[fd])
			conn_close(h, h->conns[fd]);
	if (h->lfd >= 0)
		close(h->lfd);
	if (h->ep >= 0)
		close(h->ep);
	free(h->conns);
	free(h->doc);
	free(h);
}
