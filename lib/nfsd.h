/*
 * nfsd.h - what the appliance writes to the kernel's NFS server, as text:
 * export options into the kernel's export flags, the lines of its cache
 * channels (/proc/net/rpc/{auth.unix.ip,nfsd.export,nfsd.fh}/channel) and
 * the root file handle /proc/fs/nfsd/filehandle gives back; and, for the
 * kernel's client on that export, its mount(2) data and the call counts it
 * keeps in /proc/net/rpc/nfs. With these, no rpc.mountd, exportfs or
 * mount.nfs is needed (nfs-utils cannot be built here: its libtirpc is not
 * served). Pure: buffers in, buffers out
 * (init/nfsserver.c does the writing; tests/unit/nfsd.c the checking).
 */
#ifndef BB_NFSD_H
#define BB_NFSD_H

#include <stddef.h>

#include "nfs3.h"

/* The kernel's NFSEXP_* flags (include/uapi/linux/nfsd/export.h). */
enum {
	NFSEXP_READONLY = 0x0001, NFSEXP_INSECURE_PORT = 0x0002, NFSEXP_ROOTSQUASH = 0x0004,
	NFSEXP_ALLSQUASH = 0x0008, NFSEXP_ASYNC = 0x0010, NFSEXP_GATHERED_WRITES = 0x0020,
	NFSEXP_NOSUBTREECHECK = 0x0400, NFSEXP_FSID = 0x2000,
};

#define NFSD_DOMAIN "bootbench"	/* the client domain every export is for */
#define NFSD_EXPORT_FSID 1	/* fsid= of the one export (no uuid needed) */
#define NFSD_DEFAULT_EXPORT "rw,sync,no_wdelay,no_root_squash,no_subtree_check,insecure"

/* Export options as exportfs takes them ("rw,sync,no_wdelay"), over the
 * defaults NFSEXP_FSID | NFSEXP_ROOTSQUASH | NFSEXP_GATHERED_WRITES (as
 * exportfs: root squashed, writes gathered, unless said otherwise). 0 with
 * *flags, or -1 with err naming the option it does not know. */
int nfsd_export_flags(const char *opts, unsigned *flags, char *err, size_t errlen);

/* A path as one word of a cache channel line: bytes other than letters,
 * digits and / . _ - as \ooo octal. -1 when it does not fit out[len]. */
int nfsd_qword(const char *s, char *out, size_t len);

/* The three channel lines (each ends in '\n'): -1 when out is too small. */
int nfsd_line_client(char *out, size_t len, const char *ip);
int nfsd_line_export(char *out, size_t len, const char *path, unsigned flags);
int nfsd_line_fsid(char *out, size_t len, const char *path);

/* What /proc/fs/nfsd/filehandle answers: "\x0100..." (hex after \x, a
 * newline at most). 0 with the handle, -1 when it is not one. */
int nfsd_parse_fh(const char *text, size_t len, struct nfs_fh *fh);

/* The kernel client's mount(2) data for the appliance's own server on
 * 127.0.0.1 (nfs on 2049, MOUNT on our portmapper's 111, no lock manager),
 * then the plan's options (extra): "vers=3,proto=tcp,...[,noac]". -1 when out is
 * too small. TCP only: Debian's kernels are built without NFS over UDP
 * (CONFIG_NFS_DISABLE_UDP_SUPPORT). */
int nfs_client_mount_data(char *out, size_t len, const char *extra);

/* The NFSv3 line of the kernel client's /proc/net/rpc/nfs, "proc3 22 c0
 * c1 ...": the call count of each procedure into out[NFS3_NPROCS] (those
 * the line lacks are 0). 0, or -1 when there is no well-formed proc3 line. */
int nfs_client_counts(const char *text, size_t len, unsigned long long out[NFS3_NPROCS]);

#endif
