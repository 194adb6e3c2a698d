/*
 * nfs3.h - the NFS version 3 protocol (RFC 1813), its MOUNT protocol and
 * the portmapper's (PMAP v2, RFC 1833's RPCBIND v3/v4 SET and UNSET), as
 * encoders of arguments and decoders of results over xdr.h buffers.
 *
 * The load generator (workloads/nfsmix.c) and the appliance's portmapper
 * (lib/portmap.c) share them. Decoders are parsers of hostile bytes: every
 * length is bounded, a reply must be consumed exactly, and a malformed one
 * is -1 (a counted error), never a crash or a silent zero.
 */
#ifndef BB_NFS3_H
#define BB_NFS3_H

#include <stdint.h>

#include "xdr.h"

#define NFS_PROGRAM 100003
#define NFS_V3 3
#define MOUNT_PROGRAM 100005
#define MOUNT_V3 3
#define PMAP_PROGRAM 100000
#define PMAP_V2 2
#define NLM_PROGRAM 100021

#define NFS3_FHSIZE 64
#define NFS3_NAME_MAX 255
#define NFS3_PATH_MAX 4096
#define MNT_PATH_MAX 1024
#define NFS3_DATA_MAX (1u << 20)	/* READ/WRITE payload a reply may carry */
#define NFS3_DIR_ENTRIES_MAX 65536	/* entries one READDIR(PLUS) reply may list */

enum {
	NFS3_NULL = 0, NFS3_GETATTR = 1, NFS3_SETATTR = 2, NFS3_LOOKUP = 3, NFS3_ACCESS = 4,
	NFS3_READLINK = 5, NFS3_READ = 6, NFS3_WRITE = 7, NFS3_CREATE = 8, NFS3_MKDIR = 9,
	NFS3_SYMLINK = 10, NFS3_MKNOD = 11, NFS3_REMOVE = 12, NFS3_RMDIR = 13, NFS3_RENAME = 14,
	NFS3_LINK = 15, NFS3_READDIR = 16, NFS3_READDIRPLUS = 17, NFS3_FSSTAT = 18, NFS3_FSINFO = 19,
	NFS3_PATHCONF = 20, NFS3_COMMIT = 21, NFS3_NPROCS = 22
};
/* "getattr", ...; NULL for a number that is no NFSv3 procedure */
const char *nfs3_proc_name(uint32_t proc);
/* nfsstat3 as text: "NFS3ERR_NOENT" ... or "NFS3ERR_<number>" */
const char *nfs3_stat_str(uint32_t stat, char *buf, size_t len);

enum { NFS3_OK = 0, NFS3ERR_NOENT = 2, NFS3ERR_EXIST = 17, NFS3ERR_STALE = 70, NFS3ERR_JUKEBOX = 10008 };
enum { NF3REG = 1, NF3DIR = 2, NF3LNK = 5 };
enum { NFS3_UNSTABLE = 0, NFS3_DATA_SYNC = 1, NFS3_FILE_SYNC = 2 };

struct nfs_fh {
	uint32_t len;
	unsigned char data[NFS3_FHSIZE];
};

struct nfs3_attr {
	uint32_t type, mode, nlink, uid, gid;
	uint64_t size, used, fsid, fileid;
	uint32_t mtime_s, mtime_ns;
};

/* One procedure's arguments; what a procedure does not use is ignored. */
struct nfs3_args {
	const struct nfs_fh *fh;	/* the object, or the directory */
	const char *name;		/* LOOKUP CREATE MKDIR SYMLINK REMOVE RMDIR */
	const char *target;		/* SYMLINK */
	uint64_t offset;		/* READ WRITE COMMIT; the cookie of READDIR(PLUS) */
	uint32_t count;			/* READ WRITE COMMIT; READDIR(PLUS) maxcount */
	const void *data;		/* WRITE: count bytes */
	uint32_t stable;		/* WRITE */
	uint32_t mode;			/* CREATE MKDIR SYMLINK; SETATTR with set_mode */
	uint32_t access;		/* ACCESS */
	unsigned char verf[8];		/* READDIR(PLUS) cookie verifier */
	int set_mode, set_size;		/* SETATTR */
	uint64_t size;
};
void nfs3_put_args(struct xdr_out *o, uint32_t proc, const struct nfs3_args *a);

struct nfs3_res {
	uint32_t status;		/* nfsstat3 */
	int has_attr;			/* the object's attributes (post-op) */
	struct nfs3_attr attr;
	int has_fh;			/* LOOKUP, CREATE, MKDIR, SYMLINK: the new object */
	struct nfs_fh fh;
	uint32_t count;			/* READ WRITE bytes; READDIR(PLUS) entries */
	int eof;			/* READ READDIR(PLUS) */
	uint32_t committed;		/* WRITE */
	uint64_t cookie;		/* READDIR(PLUS): the last entry's */
	unsigned char verf[8];		/* WRITE COMMIT write verifier; READDIR cookie verifier */
	uint32_t access;		/* ACCESS */
	uint64_t tbytes, fbytes;	/* FSSTAT */
	uint32_t rtmax, wtmax;		/* FSINFO */
};
/* 0 when the reply's results decode exactly (the status may still be an
 * error); -1 when they are malformed. */
int nfs3_get_res(struct xdr_in *x, uint32_t proc, struct nfs3_res *r);

/* ---- MOUNT v3 ---- */
enum { MOUNT3_NULL = 0, MOUNT3_MNT = 1, MOUNT3_DUMP = 2, MOUNT3_UMNT = 3, MOUNT3_UMNTALL = 4, MOUNT3_EXPORT = 5 };
enum { MNT3_OK = 0, MNT3ERR_NOENT = 2, MNT3ERR_ACCES = 13 };
void mnt3_put_path(struct xdr_out *o, const char *path);	/* MNT and UMNT */
/* MNT's result: 0 with *status (and the root fh when MNT3_OK), -1 malformed */
int mnt3_get_mnt(struct xdr_in *x, uint32_t *status, struct nfs_fh *fh);

/* ---- the portmapper ---- */
enum { PMAP_NULL = 0, PMAP_SET = 1, PMAP_UNSET = 2, PMAP_GETPORT = 3, PMAP_DUMP = 4, PMAP_CALLIT = 5 };
enum { RPCB_SET = 1, RPCB_UNSET = 2, RPCB_GETADDR = 3, RPCB_GETVERSADDR = 9 };	/* RPCBIND v3 and v4 (9: v4 only) */
/* prot: IPPROTO_TCP or IPPROTO_UDP */
void pmap_put_mapping(struct xdr_out *o, uint32_t prog, uint32_t vers, uint32_t prot, uint32_t port);
/* GETPORT's result (a port number, 0: not registered); -1 malformed */
int pmap_get_port(struct xdr_in *x, uint32_t *port);

#endif
