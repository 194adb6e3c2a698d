/*
 * httpc.c - see httpc.h.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "defaults.h"
#include "httpc.h"

int httpc_parse_url(const char *url, struct sockaddr_in *sa, char *path, size_t plen,
		    const char *defpath)
{
	char host[64];
	const char *p = strncmp(url, "http://", 7) ? url : url + 7, *colon = strchr(p, ':'), *slash;
	char *end;
	long port;
	if (!colon || (size_t)(colon - p) >= sizeof host)
		return -1;
	memcpy(host, p, colon - p);
	host[colon - p] = 0;
	errno = 0;
	port = strtol(colon + 1, &end, 10);
	slash = end;
	if (errno || end == colon + 1 || port < 1 || port > 65535 || (*slash && *slash != '/'))
		return -1;
	if (snprintf(path, plen, "%s", *slash ? slash : defpath) >= (int)plen)
		return -1;
	memset(sa, 0, sizeof *sa);
	sa->sin_family = AF_INET;
	sa->sin_port = htons((unsigned short)port);
	return inet_pton(AF_INET, host, &sa->sin_addr) == 1 ? 0 : -1;
}

static long long now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000LL + ts.tv_nsec / 1000000;
}

/* Waits for fd to be ready for ev before the deadline: 0, or -1 (ETIMEDOUT). */
static int wait_fd(int fd, short ev, long long deadline)
{
	for (;;) {
		struct pollfd p = { .fd = fd, .events = ev };
		long long left = deadline - now_ms();
		int r;
		if (left <= 0) {
			errno = ETIMEDOUT;
			return -1;
		}
		r = poll(&p, 1, (int)left);
		if (r > 0)
			return 0;
		if (r < 0 && errno != EINTR)
			return -1;
	}
}

int httpc_request(const char *method, const char *url, const char *ctype, const char *body,
		  size_t len, unsigned timeout_ms, struct sbuf *resp, char *err, size_t errlen)
{
	struct sockaddr_in sa;
	char path[1024], hosthdr[64];
	struct sbuf req = {0}, in = {0};
	long long deadline = now_ms() + timeout_ms;
	int fd = -1, status = -1, soerr = 0;
	socklen_t sl = sizeof soerr;
	size_t off = 0;
	char *hdr_end, *sp;

	if (httpc_parse_url(url, &sa, path, sizeof path, "/") < 0) {
		snprintf(err, errlen, "bad URL \"%s\" (expected http://A.B.C.D:PORT/path)", url);
		return -1;
	}
	inet_ntop(AF_INET, &sa.sin_addr, hosthdr, sizeof hosthdr);
	fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (fd < 0) {
		snprintf(err, errlen, "socket: %s", strerror(errno));
		return -1;
	}
	if (connect(fd, (struct sockaddr *)&sa, sizeof sa) < 0 && errno != EINPROGRESS) {
		snprintf(err, errlen, "connect to %s: %s", url, strerror(errno));
		goto out;
	}
	if (wait_fd(fd, POLLOUT, deadline) < 0 || getsockopt(fd, SOL_SOCKET, SO_ERROR, &soerr, &sl) < 0 || soerr) {
		snprintf(err, errlen, "connect to %s: %s", url, strerror(soerr ? soerr : errno));
		goto out;
	}
	sb_printf(&req, "%s %s HTTP/1.0\r\nHost: %s:%u\r\nUser-Agent: bootbench\r\nConnection: close\r\n",
		  method, path, hosthdr, (unsigned)ntohs(sa.sin_port));
	if (body)
		sb_printf(&req, "Content-Type: %s\r\nContent-Length: %zu\r\n", ctype ? ctype : "application/octet-stream", len);
	sb_puts(&req, "\r\n");
	if (body)
		sb_add(&req, body, len);
	while (off < req.len) {
		ssize_t n;
		if (wait_fd(fd, POLLOUT, deadline) < 0) {
			snprintf(err, errlen, "sending to %s: %s", url, strerror(errno));
			goto out;
		}
		n = send(fd, req.s + off, req.len - off, MSG_NOSIGNAL);
		if (n < 0 && errno != EAGAIN && errno != EINTR) {
			snprintf(err, errlen, "sending to %s: %s", url, strerror(errno));
			goto out;
		}
		if (n > 0)
			off += (size_t)n;
	}
	for (;;) {
		char buf[4096];
		ssize_t n;
		if (wait_fd(fd, POLLIN, deadline) < 0) {
			snprintf(err, errlen, "reading the answer of %s: %s", url, strerror(errno));
			goto out;
		}
		n = recv(fd, buf, sizeof buf, 0);
		if (n == 0)
			break;
		if (n < 0) {
			if (errno == EAGAIN || errno == EINTR)
				continue;
			snprintf(err, errlen, "reading the answer of %s: %s", url, strerror(errno));
			goto out;
		}
		if (in.len + (size_t)n > (64u << 20)) {
			snprintf(err, errlen, "the answer of %s is over 64 MiB", url);
			goto out;
		}
		sb_add(&in, buf, (size_t)n);
	}
	sb_putc(&in, 0);
	if (strncmp(in.s, "HTTP/1.", 7) || !(sp = strchr(in.s, ' ')) || !(hdr_end = strstr(in.s, "\r\n\r\n"))) {
		snprintf(err, errlen, "%s answered something that is not HTTP", url);
		goto out;
	}
	status = atoi(sp + 1);
	if (status < 100 || status > 599) {
		snprintf(err, errlen, "%s answered with a bad status line", url);
		status = -1;
		goto out;
	}
	if (resp)
		sb_add(resp, hdr_end + 4, in.len - 1 - (size_t)(hdr_end + 4 - in.s));
out:
	if (fd >= 0)
		close(fd);
	sb_free(&req);
	sb_free(&in);
	return status;
}

enum upload_answer upload_answer(int status, const char *body)
{
	if (status >= 200 && status < 300)
		return UPLOAD_STORED;
	if (status == 413 && body && !strncmp(body, UPLOAD_QUOTA_REFUSAL, strlen(UPLOAD_QUOTA_REFUSAL)))
		return UPLOAD_OVER_QUOTA;
	if (status == 400 || status == 403 || status == 404 || status == 405)
		return UPLOAD_REFUSED;
	return UPLOAD_RETRY;
}
