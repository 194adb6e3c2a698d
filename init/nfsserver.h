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
struct nfs_client {
	int mounted;
	char status[12];	/* "mounted" or "failed" */
	char reason[256];
	char data[512];		/* the mount(2) data given */
	double mount_s;
	char *json;		/* the runs' "nfsclient" object, less the per-run calls */
	unsigned long long before[NFS3_NPROCS];
	int have_before;
};

/* Mount the running server's export: 0, or -1 with status "failed" and a
 * reason (nc->json set either way). Bounded: a mount that has not returned
 * in 30 s is killed and is a failure, never a hang of PID 1. */
int nfsclient_mount(const struct plan_nfsclient *cfg, const struct plan_nfsserver *srv, const char *export_path,
		    struct nfs_client *nc);
/* The client's NFSv3 call counts now, to subtract at the run's end. */
void nfsclient_run_begin(struct nfs_client *nc);
/* The "nfsclient" object of a run: nc->json plus "calls", the NFSv3 calls
 * the kernel client made during the run by procedure (malloc'd). */
char *nfsclient_run_json(const struct nfs_client *nc);
/* Unmount (forced, then lazily, when busy); frees nc->json. */
void nfsclient_umount(struct nfs_client *nc);

#endif
