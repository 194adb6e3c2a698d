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

#endif
