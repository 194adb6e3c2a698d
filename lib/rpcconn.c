/*
 * rpcconn.c - one client connection to one ONC RPC program (rpcconn.h).
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

#include "rpcconn.h"
#include "xio.h"

/* the first xid of a connection; each call takes the next */
#define RPC_FIRST_XID 0x40000000u

static uint64_t now_us(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000u + (uint64_t)ts.tv_nsec / 1000u;
}

void rpc_conn_adopt(struct rpc_conn *k, int fd, int udp, size_t max)
{
	memset(k, 0, sizeof *k);
	k->fd = fd;
	k->udp = udp;
	k->max = max;
	k->xid = RPC_FIRST_XID;
	fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
	rm_init(&k->rm, max);
	if (udp)
		k->ubuf = xmalloc(max);
}

int rpc_conn_open(struct rpc_conn *k, uint32_t ip, uint16_t port, int udp, size_t max, char *err, size_t errlen)
{
	struct sockaddr_in sa = { .sin_family = AF_INET, .sin_port = htons(port), .sin_addr.s_addr = ip };
	int one = 1, fd;
	memset(k, 0, sizeof *k);
	k->fd = -1;
	fd = socket(AF_INET, (udp ? SOCK_DGRAM : SOCK_STREAM) | SOCK_CLOEXEC, 0);
	if (fd < 0 || connect(fd, (struct sockaddr *)&sa, sizeof sa) < 0) {
		char ipt[INET_ADDRSTRLEN];
		int e = errno;
		inet_ntop(AF_INET, &sa.sin_addr, ipt, sizeof ipt);
		snprintf(err, errlen, "unable to connect to %s:%u (%s): %s", ipt, port, udp ? "udp" : "tcp",
			 strerror(e));
		if (fd >= 0)
			close(fd);
		return -1;
	}
	if (!udp)
		setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
	rpc_conn_adopt(k, fd, udp, max);
	return 0;
}

void rpc_conn_close(struct rpc_conn *k)
{
	if (k->fd >= 0)
		close(k->fd);
	rm_free(&k->rm);
	free(k->ubuf);
	free(k->msg);
	k->fd = -1;
	k->ubuf = k->msg = NULL;
	k->msgcap = 0;
}

int rpc_conn_send(struct rpc_conn *k, const unsigned char *msg, size_t len, uint64_t deadline_us)
{
	unsigned char hdr[4];
	size_t done = 0, total = len + 4;
	if (k->udp) {
		ssize_t n = send(k->fd, msg, len, MSG_NOSIGNAL);
		if (n >= 0 && (size_t)n != len)
			errno = EMSGSIZE;	/* a datagram goes whole or not at all */
		return n == (ssize_t)len ? 0 : -1;
	}
	rm_header(hdr, len);
	while (done < total) {
		ssize_t n;
		struct pollfd p = { k->fd, POLLOUT, 0 };
		struct iovec v[2];
		struct msghdr mh = { .msg_iov = v };
		if (done < 4) {
			v[mh.msg_iovlen++] = (struct iovec){ hdr + done, 4 - done };
			v[mh.msg_iovlen++] = (struct iovec){ (void *)msg, len };
		} else
			v[mh.msg_iovlen++] = (struct iovec){ (unsigned char *)msg + (done - 4), total - done };
		/* MSG_NOSIGNAL: a server that has gone is an error, not a SIGPIPE */
		n = sendmsg(k->fd, &mh, MSG_NOSIGNAL);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && errno == EAGAIN) {
			/* the server is not reading: wait, but not for ever,
			 * and not past the call's deadline (a reader that
			 * takes a byte every few seconds must not stretch a
			 * 1 s call to minutes) */
			int wait = 5000;
			if (deadline_us) {
				uint64_t t = now_us();
				if (t >= deadline_us) {
					errno = ETIMEDOUT;
					return -1;
				}
				if (deadline_us - t < 5000000)
					wait = (int)((deadline_us - t + 999) / 1000);
			}
			if (poll(&p, 1, wait) <= 0) {
				errno = ETIMEDOUT;
				return -1;
			}
			continue;
		}
		if (n <= 0) {
			if (!n)
				errno = EPIPE;
			return -1;
		}
		done += (size_t)n;
	}
	return 0;
}

int rpc_conn_recv(struct rpc_conn *k, const unsigned char **rec, size_t *len)
{
	if (k->udp) {
		/* a datagram longer than max is cut (MSG_TRUNC is not asked):
		 * its results then do not decode, which the caller counts */
		ssize_t n = recv(k->fd, k->ubuf, k->max, 0);
		if (n < 0)
			return errno == EAGAIN || errno == EINTR || errno == ECONNREFUSED ? 0 : -1;
		*rec = k->ubuf;
		*len = (size_t)n;
		return 1;
	}
	for (;;) {
		int rc = rm_next(&k->rm, rec, len);
		size_t room;
		unsigned char *p;
		ssize_t n;
		if (rc != 0)
			return rc;
		p = rm_space(&k->rm, &room);
		if (!p)
			return -1;
		n = read(k->fd, p, room);
		if (n < 0 && (errno == EAGAIN || errno == EINTR))
			return 0;
		if (n <= 0)
			return -1;
		rm_wrote(&k->rm, (size_t)n);
	}
}

int rpc_call(struct rpc_conn *k, uint32_t prog, uint32_t vers, uint32_t proc, const struct rpc_cred *cred,
	     const unsigned char *args, size_t alen, unsigned timeout_ms, struct xdr_in *x, char *err,
	     size_t errlen)
{
	uint64_t deadline = now_us() + timeout_ms * 1000ull;
	struct xdr_out o;
	uint32_t my = ++k->xid;
	int tries = 0;
	/* the call header and credential: 40 bytes and the machine name */
	if (k->msgcap < alen + 1024) {
		free(k->msg);
		k->msgcap = alen + 1024;
		k->msg = xmalloc(k->msgcap);
	}
	xdr_out_init(&o, k->msg, k->msgcap);
	rpc_put_call(&o, my, prog, vers, proc, cred);
	xdr_put_fixed(&o, args, alen);
	if (o.err) {
		snprintf(err, errlen, "call too large");
		return -1;
	}
	for (;;) {
		uint64_t resend = now_us() + 1000000;
		if (rpc_conn_send(k, k->msg, o.len, deadline) < 0) {
			snprintf(err, errlen, "unable to send: %s", strerror(errno));
			return -1;
		}
		tries++;
		for (;;) {
			const unsigned char *rec;
			size_t len;
			uint32_t rxid;
			int rc = rpc_conn_recv(k, &rec, &len), st;
			uint64_t t = now_us();
			if (rc < 0) {
				snprintf(err, errlen, "connection lost");
				return -1;
			}
			if (rc == 1) {
				xdr_in_init(x, rec, len);
				st = rpc_get_reply(x, &rxid, NULL, NULL);
				if (rxid != my) {
					/* an old retransmission's answer: the deadline
					 * still holds, however many arrive */
					if (t >= deadline) {
						snprintf(err, errlen, "no answer in %u s", timeout_ms / 1000);
						return -1;
					}
					continue;
				}
				if (st != RPC_OK) {
					snprintf(err, errlen, "%s", rpc_reply_str(st));
					return -1;
				}
				return 0;
			}
			if (t >= deadline) {
				snprintf(err, errlen, "no answer in %u s (%d tries)", timeout_ms / 1000, tries);
				return -1;
			}
			if (k->udp && t >= resend)
				break;	/* UDP: send again */
			{
				struct pollfd p = { k->fd, POLLIN, 0 };
				poll(&p, 1, deadline - t < 100000 ? (int)((deadline - t + 999) / 1000) : 100);
			}
		}
	}
}
