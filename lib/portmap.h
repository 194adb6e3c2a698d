/*
 * portmap.h - the appliance's portmapper and a MOUNT responder for one
 * export: just what the kernel's nfsd and lockd need, and what an NFS
 * client asks before its first call.
 *
 * Why our own: Debian's archive here serves neither rpcbind's nor
 * libtirpc's source (nfs-utils cannot be built either), and without a
 * portmapper the kernel refuses to start nfsd: lockd's registration is
 * refused (ECONNREFUSED). It answers PMAP v2 (NULL, SET, UNSET, GETPORT,
 * DUMP) and RPCBIND v3/v4 (NULL, SET, UNSET, GETADDR), which is what the
 * kernel's rpcb client sends, and MOUNT v3 (NULL, MNT, UMNT, UMNTALL,
 * EXPORT) for the one export the appliance made, with the root file handle
 * the kernel gave for it (/proc/fs/nfsd/filehandle). Loopback and a unix
 * socket only: it is never reachable from the lab network.
 *
 * pmap_handle is a parser of call bytes and a writer of reply bytes, with
 * no I/O: the unit tests drive it with hostile calls.
 */
#ifndef BB_PORTMAP_H
#define BB_PORTMAP_H

#include <stddef.h>
#include <stdint.h>

#include "nfs3.h"

#define PMAP_MAX_ENTRIES 64
#define PMAP_PORT 111
#define PMAP_UNIX_PATH "/var/run/rpcbind.sock"
#define PMAP_RECORD_MAX (64u << 10)	/* a call we read: registrations are tiny */

struct pmap_entry {
	uint32_t prog, vers, prot;	/* prot: IPPROTO_TCP, IPPROTO_UDP, or 0 (unix) */
	uint32_t port;
	char netid[16];			/* as registered: tcp, udp, tcp6, udp6, local */
	char addr[64];			/* universal address, as registered (v3/v4) */
};

struct pmap_state {
	struct pmap_entry e[PMAP_MAX_ENTRIES];
	size_t n;
	uint16_t self_port;		/* where pmap and mount answer (PMAP_PORT) */
	const char *export_path;	/* MOUNT answers for this path; NULL: no MOUNT */
	struct nfs_fh export_fh;
	unsigned long calls, sets, unsets, mounts, refused;
};

/* Answer one call (a whole RPC record or datagram): the reply's length in
 * reply[cap], or 0 when there is nothing to answer (not a call). priv: the
 * caller may register (root on the unix socket, a reserved port over IP);
 * SET and UNSET from any other are answered FALSE. */
size_t pmap_handle(struct pmap_state *s, const unsigned char *req, size_t len, unsigned char *reply, size_t cap,
		   int priv);

/* The listening sockets: TCP and UDP on 127.0.0.1:port, and a unix stream
 * socket at unix_path (when not NULL; an old socket file is replaced). */
struct pmap_socks {
	int tcp, udp, unx;
};
int pmap_listen(struct pmap_socks *k, uint16_t port, const char *unix_path, char *err, size_t errlen);
/* Serve until killed (SIGTERM) or until *stop becomes nonzero: at most
 * 32 connections (a new one evicts the quietest; one quiet for 30 s is
 * closed), each with a bounded record reader read once a round; a broken
 * stream is closed, a bad call answered with GARBAGE_ARGS or not at all. */
void pmap_serve(struct pmap_state *s, struct pmap_socks *k, volatile int *stop);

#endif
