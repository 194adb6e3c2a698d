/*
 * portmap.c - a portmapper and one-export MOUNT responder (portmap.h).
 * Written from RFC 1833 (PMAP v2, RPCBIND v3/v4) and RFC 1813 appendix I
 * (MOUNT v3). A registration of a (program, version, transport) that is
 * already there replaces it: the only client is the local kernel, and a
 * stale entry left by an nfsd that was stopped must not stop the next start.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "portmap.h"
#include "xio.h"

/* netid to the protocol number GETPORT asks by */
static uint32_t netid_prot(const char *netid)
{
	if (!strcmp(netid, "tcp") || !strcmp(netid, "tcp6"))
		return IPPROTO_TCP;
	if (!strcmp(netid, "udp") || !strcmp(netid, "udp6"))
		return IPPROTO_UDP;
	return 0;
}

/* the port of a universal address: "h1.h2.h3.h4.p1.p2" or "::1.p1.p2" */
static uint32_t uaddr_port(const char *addr)
{
	const char *p2 = strrchr(addr, '.'), *p1;
	unsigned a, b;
	char *end;
	if (!p2 || p2 == addr)
		return 0;
	for (p1 = p2 - 1; p1 > addr && *p1 != '.'; p1--)
		;
	if (*p1 != '.')
		return 0;
	a = (unsigned)strtoul(p1 + 1, &end, 10);
	if (end != p2 || a > 255)
		return 0;
	b = (unsigned)strtoul(p2 + 1, &end, 10);
	if (*end || b > 255 || p2[1] == 0)
		return 0;
	return a << 8 | b;
}

static struct pmap_entry *find(struct pmap_state *s, uint32_t prog, uint32_t vers, uint32_t prot, const char *netid)
{
	for (size_t i = 0; i < s->n; i++) {
		struct pmap_entry *e = &s->e[i];
		if (e->prog != prog || e->vers != vers)
			continue;
		if (netid ? !strcmp(e->netid, netid) : e->prot == prot)
			return e;
	}
	return NULL;
}

/* drop every entry of prog/vers (netid NULL or empty: every transport) */
static void unset(struct pmap_state *s, uint32_t prog, uint32_t vers, const char *netid)
{
	size_t o = 0;
	for (size_t i = 0; i < s->n; i++) {
		struct pmap_entry *e = &s->e[i];
		if (e->prog == prog && e->vers == vers && (!netid || !*netid || !strcmp(e->netid, netid)))
			continue;
		s->e[o++] = *e;
	}
	s->n = o;
	s->unsets++;
}

static int set(struct pmap_state *s, uint32_t prog, uint32_t vers, const char *netid, const char *addr,
	       uint32_t prot, uint32_t port)
{
	struct pmap_entry *e = find(s, prog, vers, prot, netid);
	if (!e) {
		if (s->n >= PMAP_MAX_ENTRIES)
			return 0;
		e = &s->e[s->n++];
	}
	memset(e, 0, sizeof *e);
	e->prog = prog;
	e->vers = vers;
	e->prot = prot;
	e->port = port;
	snprintf(e->netid, sizeof e->netid, "%s", netid);
	snprintf(e->addr, sizeof e->addr, "%s", addr);
	s->sets++;
	return 1;
}

/* GETPORT: our own programs answer at our port */
static uint32_t lookup_port(struct pmap_state *s, uint32_t prog, uint32_t vers, uint32_t prot)
{
	struct pmap_entry *e;
	if (prot != IPPROTO_TCP && prot != IPPROTO_UDP)
		return 0;
	if (prog == PMAP_PROGRAM && vers >= 2 && vers <= 4)
		return s->self_port;
	if (prog == MOUNT_PROGRAM && vers == MOUNT_V3 && s->export_path)
		return s->self_port;
	e = find(s, prog, vers, prot, NULL);
	return e ? e->port : 0;
}

static void pmap_v2(struct pmap_state *s, const struct rpc_call *c, struct xdr_in *a, struct xdr_out *o, int priv)
{
	uint32_t prog = 0, vers = 0, prot = 0, port = 0;
	if (c->proc > PMAP_DUMP) {	/* CALLIT and beyond */
		rpc_put_accepted(o, c->xid, RPC_PROC_UNAVAIL, 0, 0);
		return;
	}
	if (c->proc >= PMAP_SET && c->proc <= PMAP_GETPORT) {
		prog = xdr_u32(a);
		vers = xdr_u32(a);
		prot = xdr_u32(a);
		port = xdr_u32(a);
	}
	if (a->err || xdr_left(a)) {
		rpc_put_accepted(o, c->xid, RPC_GARBAGE_ARGS, 0, 0);
		return;
	}
	rpc_put_accepted(o, c->xid, RPC_OK, 0, 0);
	if (!priv && (c->proc == PMAP_SET || c->proc == PMAP_UNSET)) {
		s->refused++;	/* only root (the kernel) registers: FALSE */
		xdr_put_u32(o, 0);
		return;
	}
	switch (c->proc) {
	case PMAP_SET:
		if (port > 65535 || (prot != IPPROTO_TCP && prot != IPPROTO_UDP)) {
			xdr_put_u32(o, 0);
			break;
		}
		{
			char addr[32];
			snprintf(addr, sizeof addr, "0.0.0.0.%u.%u", port >> 8, port & 255);
			xdr_put_u32(o, (uint32_t)set(s, prog, vers, prot == IPPROTO_TCP ? "tcp" : "udp", addr, prot, port));
		}
		break;
	case PMAP_UNSET:
		unset(s, prog, vers, NULL);
		xdr_put_u32(o, 1);
		break;
	case PMAP_GETPORT:
		xdr_put_u32(o, lookup_port(s, prog, vers, prot));
		break;
	case PMAP_DUMP:	/* the registered mappings with a port */
		for (size_t i = 0; i < s->n; i++) {
			if (!s->e[i].prot)
				continue;
			xdr_put_u32(o, 1);
			pmap_put_mapping(o, s->e[i].prog, s->e[i].vers, s->e[i].prot, s->e[i].port);
		}
		xdr_put_u32(o, 0);
		break;
	}
}

static void rpcb_v34(struct pmap_state *s, const struct rpc_call *c, struct xdr_in *a, struct xdr_out *o, int priv)
{
	uint32_t prog = 0, vers = 0;
	char netid[16], addr[64], owner[64];
	int getaddr = c->proc == RPCB_GETADDR || (c->vers == 4 && c->proc == RPCB_GETVERSADDR);
	if (c->proc == 0) {
		if (xdr_left(a))
			rpc_put_accepted(o, c->xid, RPC_GARBAGE_ARGS, 0, 0);
		else
			rpc_put_accepted(o, c->xid, RPC_OK, 0, 0);
		return;
	}
	if (!(c->proc == RPCB_SET || c->proc == RPCB_UNSET || getaddr)) {
		rpc_put_accepted(o, c->xid, RPC_PROC_UNAVAIL, 0, 0);
		return;
	}
	prog = xdr_u32(a);
	vers = xdr_u32(a);
	xdr_string(a, sizeof netid - 1, netid, sizeof netid);
	xdr_string(a, sizeof addr - 1, addr, sizeof addr);
	xdr_string(a, sizeof owner - 1, owner, sizeof owner);
	if (a->err || xdr_left(a)) {
		rpc_put_accepted(o, c->xid, RPC_GARBAGE_ARGS, 0, 0);
		return;
	}
	rpc_put_accepted(o, c->xid, RPC_OK, 0, 0);
	if (!priv && (c->proc == RPCB_SET || c->proc == RPCB_UNSET)) {
		s->refused++;
		xdr_put_u32(o, 0);
	} else if (c->proc == RPCB_SET) {
		uint32_t prot = netid_prot(netid);
		xdr_put_u32(o, netid[0] ? (uint32_t)set(s, prog, vers, netid, addr, prot, uaddr_port(addr)) : 0);
	} else if (c->proc == RPCB_UNSET) {
		unset(s, prog, vers, netid);
		xdr_put_u32(o, 1);
	} else {
		struct pmap_entry *e = find(s, prog, vers, 0, netid);
		uint32_t self = lookup_port(s, prog, vers, netid_prot(netid));
		char ua[64] = "";
		if (e)
			snprintf(ua, sizeof ua, "%s", e->addr);
		else if (self == s->self_port && self)
			snprintf(ua, sizeof ua, "127.0.0.1.%u.%u", self >> 8, self & 255);
		xdr_put_string(o, ua);
	}
}

static void mount_v3(struct pmap_state *s, const struct rpc_call *c, struct xdr_in *a, struct xdr_out *o)
{
	char path[MNT_PATH_MAX + 1];
	if (c->proc == MOUNT3_MNT || c->proc == MOUNT3_UMNT)
		xdr_string(a, MNT_PATH_MAX, path, sizeof path);
	if (c->proc > MOUNT3_EXPORT) {
		rpc_put_accepted(o, c->xid, RPC_PROC_UNAVAIL, 0, 0);
		return;
	}
	if (a->err || xdr_left(a)) {
		rpc_put_accepted(o, c->xid, RPC_GARBAGE_ARGS, 0, 0);
		return;
	}
	rpc_put_accepted(o, c->xid, RPC_OK, 0, 0);
	switch (c->proc) {
	case MOUNT3_MNT:
		s->mounts++;
		if (strcmp(path, s->export_path)) {
			xdr_put_u32(o, MNT3ERR_NOENT);
			break;
		}
		if (c->flavor != AUTH_UNIX && c->flavor != AUTH_NONE) {
			xdr_put_u32(o, MNT3ERR_ACCES);
			break;
		}
		xdr_put_u32(o, MNT3_OK);
		xdr_put_opaque(o, s->export_fh.data, s->export_fh.len);
		xdr_put_u32(o, 1);	/* auth flavors: AUTH_UNIX */
		xdr_put_u32(o, AUTH_UNIX);
		break;
	case MOUNT3_DUMP:	/* nobody is listed */
		xdr_put_u32(o, 0);
		break;
	case MOUNT3_EXPORT:	/* the one export, open to every host */
		xdr_put_u32(o, 1);
		xdr_put_string(o, s->export_path);
		xdr_put_u32(o, 0);
		xdr_put_u32(o, 0);
		break;
	default:	/* NULL, UMNT, UMNTALL: void */
		break;
	}
}

size_t pmap_handle(struct pmap_state *s, const unsigned char *req, size_t len, unsigned char *reply, size_t cap,
		   int priv)
{
	struct xdr_in a;
	struct xdr_out o;
	struct rpc_call c;
	int rc;
	xdr_in_init(&a, req, len);
	xdr_out_init(&o, reply, cap);
	rc = rpc_get_call(&a, &c);
	if (rc < 0) {
		s->refused++;
		return 0;
	}
	s->calls++;
	if (rc > 0)
		rpc_put_denied_mismatch(&o, c.xid);
	else if (c.prog == PMAP_PROGRAM) {
		if (c.vers == PMAP_V2)
			pmap_v2(s, &c, &a, &o, priv);
		else if (c.vers == 3 || c.vers == 4)
			rpcb_v34(s, &c, &a, &o, priv);
		else
			rpc_put_accepted(&o, c.xid, RPC_PROG_MISMATCH, 2, 4);
	} else if (c.prog == MOUNT_PROGRAM && s->export_path) {
		if (c.vers == MOUNT_V3)
			mount_v3(s, &c, &a, &o);
		else
			rpc_put_accepted(&o, c.xid, RPC_PROG_MISMATCH, MOUNT_V3, MOUNT_V3);
	} else
		rpc_put_accepted(&o, c.xid, RPC_PROG_UNAVAIL, 0, 0);
	return o.err ? 0 : o.len;
}

/* ---- sockets ---- */

int pmap_listen(struct pmap_socks *k, uint16_t port, const char *unix_path, char *err, size_t errlen)
{
	struct sockaddr_in sa = { .sin_family = AF_INET, .sin_port = htons(port),
				  .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	int one = 1;
	k->tcp = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	k->udp = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	k->unx = -1;
	if (k->tcp < 0 || k->udp < 0) {
		snprintf(err, errlen, "unable to make a socket: %s", strerror(errno));
		goto fail;
	}
	setsockopt(k->tcp, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
	if (bind(k->tcp, (struct sockaddr *)&sa, sizeof sa) < 0 || listen(k->tcp, 16) < 0 ||
	    bind(k->udp, (struct sockaddr *)&sa, sizeof sa) < 0) {
		snprintf(err, errlen, "unable to listen on 127.0.0.1:%u: %s", port, strerror(errno));
		goto fail;
	}
	if (unix_path) {
		struct sockaddr_un su = { .sun_family = AF_UNIX };
		if (strlen(unix_path) >= sizeof su.sun_path) {
			snprintf(err, errlen, "unix socket path too long: %s", unix_path);
			goto fail;
		}
		strcpy(su.sun_path, unix_path);
		unlink(unix_path);
		k->unx = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
		if (k->unx < 0 || bind(k->unx, (struct sockaddr *)&su, sizeof su) < 0 || listen(k->unx, 16) < 0) {
			snprintf(err, errlen, "unable to listen on %s: %s", unix_path, strerror(errno));
			goto fail;
		}
	}
	return 0;
fail:
	if (k->tcp >= 0)
		close(k->tcp);
	if (k->udp >= 0)
		close(k->udp);
	if (k->unx >= 0)
		close(k->unx);
	k->tcp = k->udp = k->unx = -1;
	return -1;
}

#define PMAP_MAX_CONN 32
#define PMAP_IDLE_S 30	/* a connection quiet this long is closed (the kernel reconnects) */

struct conn {
	int fd, priv;
	struct rm_reader r;
	double last;	/* when it last sent anything */
};

/* May this peer register? Root over the unix socket (SO_PEERCRED), or a
 * reserved source port over IP, as the kernel's rpcbind client uses: a
 * process without privilege cannot point clients at a server of its own. */
static int peer_priv(int fd, const struct sockaddr_storage *from)
{
	if (from->ss_family == AF_INET)
		return ntohs(((const struct sockaddr_in *)from)->sin_port) < 1024;
	if (from->ss_family == AF_UNIX) {
		struct ucred cr;
		socklen_t l = sizeof cr;
		return getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cr, &l) == 0 && cr.uid == 0;
	}
	return 0;
}

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void conn_close(struct conn *c)
{
	close(c->fd);
	rm_free(&c->r);
	c->fd = -1;
}

/* One read of what arrived, and an answer to every whole call in it: one
 * read a round, so a peer that floods cannot starve the others. -1: close
 * it. */
static int conn_read(struct pmap_state *s, struct conn *c, unsigned char *reply, size_t cap)
{
	size_t room, len, n;
	unsigned char *p = rm_space(&c->r, &room);
	const unsigned char *rec;
	ssize_t got;
	int rc;
	if (!p)
		return -1;
	got = read(c->fd, p, room);
	if (got < 0 && (errno == EINTR || errno == EAGAIN))
		return 0;
	if (got <= 0)
		return -1;
	c->last = now_s();
	rm_wrote(&c->r, (size_t)got);
	while ((rc = rm_next(&c->r, &rec, &len)) == 1) {
		n = pmap_handle(s, rec, len, reply + 4, cap - 4, c->priv);
		if (!n)
			return -1;	/* not RPC: drop the stream */
		rm_header(reply, n);
		/* replies are tiny; a peer that does not read them is dropped
		 * (MSG_NOSIGNAL: one that has gone is no SIGPIPE) */
		if (send(c->fd, reply, n + 4, MSG_NOSIGNAL | MSG_DONTWAIT) != (ssize_t)(n + 4))
			return -1;
	}
	return rc < 0 ? -1 : 0;
}

void pmap_serve(struct pmap_state *s, struct pmap_socks *k, volatile int *stop)
{
	static struct conn conns[PMAP_MAX_CONN];
	static unsigned char buf[PMAP_RECORD_MAX], reply[PMAP_RECORD_MAX];
	for (int i = 0; i < PMAP_MAX_CONN; i++)
		conns[i].fd = -1;
	while (!stop || !*stop) {
		struct pollfd p[3 + PMAP_MAX_CONN];
		int idx[3 + PMAP_MAX_CONN], np = 0;
		p[np++] = (struct pollfd){ k->tcp, POLLIN, 0 };
		p[np++] = (struct pollfd){ k->udp, POLLIN, 0 };
		if (k->unx >= 0)
			p[np++] = (struct pollfd){ k->unx, POLLIN, 0 };
		for (int i = 0; i < PMAP_MAX_CONN; i++)
			if (conns[i].fd >= 0) {
				idx[np] = i;
				p[np++] = (struct pollfd){ conns[i].fd, POLLIN, 0 };
			}
		if (poll(p, np, 1000) < 0) {
			if (errno == EINTR)
				continue;
			return;
		}
		{
			double t = now_s();
			for (int i = 0; i < PMAP_MAX_CONN; i++)
				if (conns[i].fd >= 0 && t - conns[i].last > PMAP_IDLE_S)
					conn_close(&conns[i]);
		}
		for (int j = 0; j < np; j++) {
			if (!p[j].revents)
				continue;
			if (p[j].fd == k->tcp || p[j].fd == k->unx) {
				struct sockaddr_storage from = { 0 };
				socklen_t fl = sizeof from;
				int fd = accept4(p[j].fd, (struct sockaddr *)&from, &fl, SOCK_CLOEXEC | SOCK_NONBLOCK), slot = -1;
				if (fd < 0)
					continue;
				for (int i = 0; i < PMAP_MAX_CONN && slot < 0; i++)
					if (conns[i].fd < 0)
						slot = i;
				if (slot < 0) {
					/* full: the quietest connection makes room */
					slot = 0;
					for (int i = 1; i < PMAP_MAX_CONN; i++)
						if (conns[i].last < conns[slot].last)
							slot = i;
					conn_close(&conns[slot]);
					s->refused++;
				}
				if (p[j].fd == k->unx)
					from.ss_family = AF_UNIX;
				conns[slot].fd = fd;
				conns[slot].priv = peer_priv(fd, &from);
				conns[slot].last = now_s();
				rm_init(&conns[slot].r, PMAP_RECORD_MAX - 64);
			} else if (p[j].fd == k->udp) {
				struct sockaddr_storage from = { 0 };
				socklen_t fl = sizeof from;
				ssize_t got = recvfrom(k->udp, buf, sizeof buf, 0, (struct sockaddr *)&from, &fl);
				size_t n;
				if (got <= 0)
					continue;
				n = pmap_handle(s, buf, (size_t)got, reply, sizeof reply, peer_priv(k->udp, &from));
				if (n)
					sendto(k->udp, reply, n, MSG_DONTWAIT, (struct sockaddr *)&from, fl);
			} else if (conn_read(s, &conns[idx[j]], reply, sizeof reply) < 0)
				conn_close(&conns[idx[j]]);
		}
	}
	for (int i = 0; i < PMAP_MAX_CONN; i++)
		if (conns[i].fd >= 0)
			conn_close(&conns[i]);
}
