/*
 * nfsserver.h - the kernel's NFS server on a layout (init/nfsserver.c).
 */
#ifndef BB_NFSSERVER_H
#define BB_NFSSERVER_H

#include <sys/types.h>

#include "nfs3.h"
#include "plan.h"

struct nfs_server {
	int running;
	int listening;		/* a listener was handed to nfsd (stop it even if the start failed) */
	pid_t pmap_pid;		/* our portmapper, -1: none */
	int pmap_pidfd;		/* and its pidfd, -1: none (a kernel before 5.3) */
	struct nfs_fh fh;	/* its root file handle */
	double start_s;
	char status[12];	/* "running" or "failed" */
	char reason[256];
	char *json;		/* the runs' "nfsserver" object: asked and in force */
};

/* Export dir: 0 when nfsd runs, -1 with ns->status "failed" and a reason
 * (everything started is stopped again). ns->json is set either way. */
int nfsserver_start(const struct plan_nfsserver *cfg, const char *dir, struct nfs_server *ns);
/* Stop the threads, drop the export from the kernel's caches, stop the
 * portmapper; the layout can then be unmounted. */
void nfsserver_stop(struct nfs_server *ns);

/* The booted kernel's NFS client on that export (an nfsclient line):
 * mounted at NFSCLIENT_DIR, the section's workloads run there. */
#define NFSCLIENT_DIR "/run/bootbench/nfsclient"
#define NFSCLIENT_MOUNT_S 30	/* a mount not returned by then is killed */
struct nfs_client {
	int mounted;
	char status[12];	/* "mounted" or "failed" */
	char reason[256];
	const char *options;	/* the plan's (it outlives the client) */
	char data[512];		/* the mount(2) data given */
	double mount_s;
	unsigned long long before[NFS3_NPROCS];
	int have_before;
};

struct jw;
/* Mount the running server's export: 0, or -1 with status "failed" and a
 * reason (also when the server is not running). Bounded: a mount that has
 * not returned in NFSCLIENT_MOUNT_S is killed and is a failure, never a
 * hang of PID 1; every run of the section then fails with the reason. */
int nfsclient_mount(const struct plan_nfsclient *cfg, const struct nfs_server *ns, const char *export_path,
		    struct nfs_client *nc);
/* The client's NFSv3 call counts now, to subtract at the run's end. */
void nfsclient_run_begin(struct nfs_client *nc);
/* A run's "nfsclient" object into w: status, reason, options, mount_data,
 * mountpoint, mount_s, and "calls", the NFSv3 calls the kernel client made
 * since nfsclient_run_begin by procedure (those it made). */
void nfsclient_run_json(const struct nfs_client *nc, struct jw *w);
/* Unmount: "unmounted", "forced" (busy: MNT_FORCE), "detached" (still busy:
 * MNT_DETACH) or "not-mounted" (the mount had failed). */
const char *nfsclient_umount(struct nfs_client *nc);

#endif
