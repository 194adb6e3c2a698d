/*
 * nfsserver.c - the kernel's NFS server on a built layout, for a plan
 * section with an `nfsserver` line: load nfsd (deferred at boot), start our
 * portmapper (lib/portmap.c) on loopback and /var/run/rpcbind.sock, feed
 * the export straight into the kernel's caches (lib/nfsd.c), take the root
 * file handle, and start the threads; stop it all before the layout is
 * torn down, so the filesystem is unmounted with nothing of nfsd holding
 * it, then check the filesystem. No nfs-utils: its libtirpc is not served.
 *
 * Every step's failure is a reason in the run records (nfsserver.status
 * "failed" and its reason), never a dead appliance: the workloads that need
 * the server then fail (nfsmix: it cannot reach the portmapper), the others
 * run as usual.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/mount.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "err.h"
#include "httpd.h"
#include "init.h"
#include "json.h"
#include "layout.h"
#include "nfsd.h"
#include "nfsserver.h"
#include "portmap.h"
#include "spawn.h"
#include "xio.h"

#define NFSD_FS "/proc/fs/nfsd"
#define NFSD_PORT 2049
#define RPC_CACHE "/proc/net/rpc"

/* status "failed" and the reason, for the server's and the client's records */
static int set_failed(char *status, size_t slen, char *reason, size_t rlen, const char *fmt, va_list ap)
{
	snprintf(status, slen, "failed");
	vsnprintf(reason, rlen, fmt, ap);
	return -1;
}

static int fail(struct nfs_server *ns, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int fail(struct nfs_server *ns, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	set_failed(ns->status, sizeof ns->status, ns->reason, sizeof ns->reason, fmt, ap);
	va_end(ap);
	return -1;
}

/* write text to a control file; the kernel's answer is the errno */
static int put(struct nfs_server *ns, const char *path, const char *text)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC);
	size_t n = strlen(text);
	if (fd < 0)
		return fail(ns, "unable to open %s: %s", path, strerror(errno));
	if (write(fd, text, n) != (ssize_t)n) {
		int e = errno;
		close(fd);
		return fail(ns, "unable to write \"%.60s\" to %s: %s", text, path, strerror(e));
	}
	close(fd);
	return 0;
}

static void stop_services(struct nfs_server *ns);

/* a filesystem type the kernel has now (built in, or its module loaded) */
static int fs_present(const char *name)
{
	char want[32], *fs = read_file("/proc/filesystems", NULL);
	int yes;
	snprintf(want, sizeof want, "\t%s\n", name);
	yes = fs && strstr(fs, want);
	free(fs);
	return yes;
}

/* the portmapper, in a child of PID 1 that never runs PID 1's paths */
static pid_t start_portmap(struct nfs_server *ns, const char *dir)
{
	struct pmap_socks k;
	char err[256];
	pid_t pid;
	mkdir("/var", 0755);
	mkdir("/var/run", 0755);
	if (pmap_listen(&k, PMAP_PORT, PMAP_UNIX_PATH, err, sizeof err) < 0) {
		fail(ns, "portmapper: %s", err);
		return -1;
	}
	fflush(NULL);
	pid = fork();
	if (pid < 0) {
		fail(ns, "unable to fork the portmapper: %s", strerror(errno));
		close(k.tcp);
		close(k.udp);
		close(k.unx);
		return -1;
	}
	if (pid == 0) {
		static struct pmap_state st;
		sigset_t none;
		die_hook = NULL;
		sigemptyset(&none);
		sigprocmask(SIG_SETMASK, &none, NULL);
		signal(SIGTERM, SIG_DFL);
		setpgid(0, 0);
		st.self_port = PMAP_PORT;
		st.export_path = dir;
		st.export_fh = ns->fh;
		pmap_serve(&st, &k, NULL);
		_exit(0);
	}
	close(k.tcp);
	close(k.udp);
	close(k.unx);
	/* a handle on exactly this process: its pid can be reaped between
	 * runs (reap_children) and given to another, a pidfd cannot */
	ns->pmap_pidfd = (int)syscall(SYS_pidfd_open, pid, 0);
	return pid;
}

/* A listener nfsd registers with the portmapper: bound and listening here,
 * handed over by its descriptor (as rpc.nfsd does). "tcp 2049" written as
 * text would make an anonymous socket that is never registered, and a
 * client asking the portmapper for NFS would be told it is not there.
 * Loopback only: the appliance's NFS server is for its own load. */
static int add_listener(struct nfs_server *ns, int udp)
{
	struct sockaddr_in sa = { .sin_family = AF_INET, .sin_port = htons(NFSD_PORT),
				  .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	char line[32];
	int one = 1, fd = socket(AF_INET, udp ? SOCK_DGRAM : SOCK_STREAM, 0), rc;
	if (fd < 0)
		return fail(ns, "unable to make the nfsd socket: %s", strerror(errno));
	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
	if (bind(fd, (struct sockaddr *)&sa, sizeof sa) < 0 || (!udp && listen(fd, 64) < 0)) {
		int e = errno;
		close(fd);
		return fail(ns, "unable to listen on 127.0.0.1:%d/%s for nfsd: %s", NFSD_PORT, udp ? "udp" : "tcp",
			    strerror(e));
	}
	snprintf(line, sizeof line, "%d\n", fd);
	ns->listening = 1;	/* from here a failed start must still stop nfsd */
	rc = put(ns, NFSD_FS "/portlist", line);
	close(fd);	/* the kernel holds it now */
	return rc;
}

static void settings_json(struct jw *w, const struct plan_nfsserver *cfg, unsigned flags)
{
	jw_int(w, "threads", cfg->threads);
	jw_str(w, "versions", cfg->versions);
	jw_str(w, "transports", cfg->transports);
	jw_str(w, "export", cfg->export);
	jw_int(w, "export_flags", flags);
}

/* The export, straight into the kernel's caches (what mountd would do). */
static int write_exports(struct nfs_server *ns, const char *dir, unsigned flags)
{
	char line[4400];
	if (nfsd_line_client(line, sizeof line, "127.0.0.1") < 0 || nfsd_line_export(line, sizeof line, dir, flags) < 0 ||
	    nfsd_line_fsid(line, sizeof line, dir) < 0)
		return fail(ns, "the export lines for %.100s do not fit", dir);
	nfsd_line_client(line, sizeof line, "127.0.0.1");
	if (put(ns, RPC_CACHE "/auth.unix.ip/channel", line) < 0)
		return -1;
	nfsd_line_export(line, sizeof line, dir, flags);
	if (put(ns, RPC_CACHE "/nfsd.export/channel", line) < 0)
		return -1;
	nfsd_line_fsid(line, sizeof line, dir);
	return put(ns, RPC_CACHE "/nfsd.fh/channel", line);
}

/* The export's root file handle: write "DOMAIN PATH MAXSIZE" to
 * /proc/fs/nfsd/filehandle, read the answer from the same open file. */
static int root_fh(struct nfs_server *ns, const char *dir)
{
	char line[4400], q[4200];
	ssize_t n;
	int fd, rc = -1;
	if (nfsd_qword(dir, q, sizeof q) < 0)
		return fail(ns, "the path %.100s does not fit a cache line", dir);
	snprintf(line, sizeof line, NFSD_DOMAIN " %s %d\n", q, NFS3_FHSIZE);
	fd = open(NFSD_FS "/filehandle", O_RDWR | O_CLOEXEC);
	if (fd < 0)
		return fail(ns, "unable to open %s/filehandle: %s", NFSD_FS, strerror(errno));
	if (write(fd, line, strlen(line)) != (ssize_t)strlen(line))
		fail(ns, "unable to ask %s/filehandle for %s: %s", NFSD_FS, dir, strerror(errno));
	else if ((n = read(fd, line, sizeof line - 1)) <= 0)
		fail(ns, "unable to read %s/filehandle: %s", NFSD_FS, n < 0 ? strerror(errno) : "empty");
	else if (nfsd_parse_fh(line, (size_t)n, &ns->fh) < 0)
		fail(ns, "%s/filehandle answered \"%.40s\": not a file handle", NFSD_FS, line);
	else
		rc = 0;
	close(fd);
	return rc;
}

int nfsserver_start(const struct plan_nfsserver *cfg, const char *dir, struct nfs_server *ns)
{
	char line[64], err[256], *text;
	unsigned flags = 0;
	size_t len;
	double t0 = mono_now();
	struct jw w;

	memset(ns, 0, sizeof ns[0]);
	ns->pmap_pid = -1;
	ns->pmap_pidfd = -1;
	/* each step only while the ones before it held */
	if (nfsd_export_flags(cfg->export, &flags, err, sizeof err) < 0)
		fail(ns, "%s", err);
	else if (!dir || !*dir)
		fail(ns, "the layout has no filesystem to export");
	else if (!fs_present("nfsd") && module_load_deps("nfsd", err, sizeof err) < 0)
		fail(ns, "%s", err);
	else if (mkdir(NFSD_FS, 0755) < 0 && errno != EEXIST)
		fail(ns, "unable to make %s: %s", NFSD_FS, strerror(errno));
	else if (mount("nfsd", NFSD_FS, "nfsd", 0, NULL) < 0 && errno != EBUSY)
		fail(ns, "unable to mount the nfsd filesystem on %s: %s", NFSD_FS, strerror(errno));
	else if (put(ns, NFSD_FS "/versions", "+3 -4\n") == 0 && write_exports(ns, dir, flags) == 0)
		root_fh(ns, dir);
	/* the portmapper and nfsd bind 127.0.0.1 whether or not lo is up, but
	 * nothing reaches them until it is: a plan whose first NFS section
	 * runs no network workload would find the server unreachable */
	if (!ns->status[0] && loopback_up(err, sizeof err) < 0)
		fail(ns, "%s", err);
	if (!ns->status[0])
		ns->pmap_pid = start_portmap(ns, dir);
	if (!ns->status[0]) {
		/* the listeners, then the threads (which start lockd, which
		 * registers with the portmapper: the reason it runs first) */
		const char *t = cfg->transports;
		if (strstr(t, "tcp"))
			add_listener(ns, 0);
		if (!ns->status[0] && strstr(t, "udp"))
			add_listener(ns, 1);
		snprintf(line, sizeof line, "%u\n", cfg->threads);
		if (!ns->status[0])
			put(ns, NFSD_FS "/threads", line);
	}
	if (!ns->status[0]) {
		ns->running = 1;
		snprintf(ns->status, sizeof ns->status, "running");
	}
	ns->start_s = mono_now() - t0;
	/* what the kernel says is in force, beside what was asked */
	jw_init(&w);
	jw_obj(&w, NULL);
	jw_str(&w, "status", ns->status);
	if (strcmp(ns->status, "running"))
		jw_str(&w, "reason", ns->reason);
	settings_json(&w, cfg, flags);
	jw_str(&w, "export_path", dir);
	jw_num(&w, "start_s", ns->start_s);
	jw_int(&w, "root_fh_bytes", ns->fh.len);
	if (ns->running && (text = read_file(NFSD_FS "/versions", &len))) {
		text[strcspn(text, "\n")] = 0;
		jw_str(&w, "versions_in_force", text);
		free(text);
	}
	if (ns->running && (text = read_file(NFSD_FS "/threads", &len))) {
		jw_int(&w, "threads_in_force", atoi(text));
		free(text);
	}
	if (ns->running && (text = read_file(NFSD_FS "/portlist", &len))) {
		for (char *c = text; *c; c++)
			if (*c == '\n')
				*c = ' ';
		jw_str(&w, "portlist", text);
		free(text);
	}
	jw_obj_end(&w);
	ns->json = sb_steal(&w.sb);
	if (ns->running)
		info("nfsserver: %s exported over NFSv3 (%s, %u threads, %s) in %.2f s, root handle %u bytes", dir,
		     cfg->transports, cfg->threads, cfg->export, ns->start_s, ns->fh.len);
	else {
		warning("nfsserver on %s: %s", dir && *dir ? dir : "(no filesystem)", ns->reason);
		stop_services(ns);
	}
	return ns->running ? 0 : -1;
}

/* "now" for a cache flush: the kernel drops every entry older */
static void flush_cache(const char *name)
{
	char path[128], now[32];
	int fd;
	snprintf(path, sizeof path, RPC_CACHE "/%s/flush", name);
	snprintf(now, sizeof now, "%lld\n", (long long)time(NULL) + 1);
	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return;
	if (write(fd, now, strlen(now)) < 0)
		warn_sys("unable to flush %s", path);
	close(fd);
}

static void stop_services(struct nfs_server *ns)
{
	/* also after a start that failed past the listeners: nfsd keeps the
	 * sockets it was given until its thread count is set to 0 */
	if (ns->running || ns->listening) {
		int fd = open(NFSD_FS "/threads", O_WRONLY | O_CLOEXEC);
		/* nfsd and lockd unregister from the portmapper as they stop:
		 * it must still answer */
		if (fd < 0 || write(fd, "0\n", 2) != 2)
			warn_sys("unable to stop nfsd (%s/threads)", NFSD_FS);
		if (fd >= 0)
			close(fd);
		ns->running = ns->listening = 0;
	}
	/* the export's cache entries hold the layout's mount: drop them */
	flush_cache("nfsd.fh");
	flush_cache("nfsd.export");
	flush_cache("auth.unix.ip");
	if (ns->pmap_pid > 0) {
		int st;
		if (ns->pmap_pidfd >= 0) {
			/* signalled through its pidfd: never another process that
			 * got the pid after ours ended (ESRCH then: already gone) */
			if (syscall(SYS_pidfd_send_signal, ns->pmap_pidfd, SIGTERM, NULL, 0) == 0)
				while (waitpid(ns->pmap_pid, &st, 0) < 0 && errno == EINTR)
					;
			else
				warning("the portmapper (pid %d) had ended before nfsd was stopped", (int)ns->pmap_pid);
			close(ns->pmap_pidfd);
		} else if (waitpid(ns->pmap_pid, &st, WNOHANG) == 0) {
			/* a kernel without pidfds (before 5.3): still ours while unreaped */
			kill(ns->pmap_pid, SIGTERM);
			while (waitpid(ns->pmap_pid, &st, 0) < 0 && errno == EINTR)
				;
		}
		ns->pmap_pidfd = -1;
		ns->pmap_pid = -1;
		unlink(PMAP_UNIX_PATH);
	}
}

void nfsserver_stop(struct nfs_server *ns)
{
	stop_services(ns);
	free(ns->json);
	ns->json = NULL;
}

/* ---- the kernel's client on our own export ---- */

static int cfail(struct nfs_client *nc, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int cfail(struct nfs_client *nc, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	set_failed(nc->status, sizeof nc->status, nc->reason, sizeof nc->reason, fmt, ap);
	va_end(ap);
	return -1;
}

/* mount(2) in a child: an NFS mount sleeps killably, so one that does not
 * return is killed at the deadline and the section's runs fail with that
 * reason, rather than PID 1 waiting on it */
static int bounded_mount(struct nfs_client *nc, const char *src)
{
	double deadline = mono_now() + NFSCLIENT_MOUNT_S;
	pid_t pid;
	int st, rc;
	fflush(NULL);
	pid = fork();
	if (pid < 0)
		return cfail(nc, "unable to fork for the mount: %s", strerror(errno));
	if (pid == 0) {
		die_hook = NULL;
		_exit(mount(src, NFSCLIENT_DIR, "nfs", 0, nc->data) == 0 ? 0 : errno & 0xff);
	}
	while ((rc = child_exited(pid, &st)) == 0 && mono_now() < deadline)
		usleep(20000);
	if (rc < 0)
		return cfail(nc, "unable to wait for the mount: %s", strerror(errno));
	if (rc == 0) {
		if (stop_child(pid, 200, &st) < 0)
			warning("nfsclient: the mount's process (pid %d) did not end when killed", (int)pid);
		/* it may have mounted as it was killed */
		umount2(NFSCLIENT_DIR, MNT_DETACH);
		return cfail(nc, "mount of %s did not return in %d s (killed)", src, NFSCLIENT_MOUNT_S);
	}
	if (WIFEXITED(st) && WEXITSTATUS(st) == 0)
		return 0;
	if (WIFEXITED(st))
		return cfail(nc, "mount -t nfs %s %s -o %.200s: %s", src, NFSCLIENT_DIR, nc->data,
			     strerror(WEXITSTATUS(st)));
	return cfail(nc, "the mount's process ended by signal %d", WTERMSIG(st));
}

static void read_counts(unsigned long long c[NFS3_NPROCS], int *have)
{
	size_t len;
	char *t = read_file("/proc/net/rpc/nfs", &len);
	*have = t && nfs_client_counts(t, len, c) == 0;
	free(t);
}

int nfsclient_mount(const struct plan_nfsclient *cfg, const struct nfs_server *ns, const char *export_path,
		    struct nfs_client *nc)
{
	char err[256], src[4200];
	double t0 = mono_now();

	memset(nc, 0, sizeof nc[0]);
	nc->options = cfg->options;
	if (!ns->running)
		cfail(nc, "the NFS server did not start: %.200s", ns->reason);
	else if (nfs_client_mount_data(nc->data, sizeof nc->data, cfg->options) < 0)
		cfail(nc, "the mount options do not fit");
	else if (snprintf(src, sizeof src, "127.0.0.1:%s", export_path) >= (int)sizeof src)
		cfail(nc, "the export path is too long for a mount source");
	/* loaded first, whatever /proc/filesystems says: nfs may be there
	 * (built in, or loaded) with nfsv3 still a module, which the kernel
	 * would ask a modprobe the userland does not have for */
	else if (module_load_deps("nfsv3", err, sizeof err) < 0 && !fs_present("nfs"))
		cfail(nc, "no NFS client in this kernel: %s", err);
	else if (mkdir("/run/bootbench", 0755) < 0 && errno != EEXIST)
		cfail(nc, "unable to make /run/bootbench: %s", strerror(errno));
	else if (mkdir(NFSCLIENT_DIR, 0755) < 0 && errno != EEXIST)
		cfail(nc, "unable to make %s: %s", NFSCLIENT_DIR, strerror(errno));
	else if (bounded_mount(nc, src) == 0) {
		nc->mounted = 1;
		snprintf(nc->status, sizeof nc->status, "mounted");
	}
	nc->mount_s = mono_now() - t0;
	if (nc->mounted)
		info("nfsclient: %s mounted on %s (%s) in %.2f s; the section's workloads run there", src, NFSCLIENT_DIR,
		     nc->data, nc->mount_s);
	else
		warning("nfsclient: %s", nc->reason);
	return nc->mounted ? 0 : -1;
}

void nfsclient_run_begin(struct nfs_client *nc)
{
	read_counts(nc->before, &nc->have_before);
}

void nfsclient_run_json(const struct nfs_client *nc, struct jw *w)
{
	unsigned long long now[NFS3_NPROCS];
	int have;
	jw_obj(w, "nfsclient");
	jw_str(w, "status", nc->status);
	if (!nc->mounted)
		jw_str(w, "reason", nc->reason);
	jw_str(w, "options", nc->options ? nc->options : "");
	jw_str(w, "mount_data", nc->data);
	jw_str(w, "mountpoint", NFSCLIENT_DIR);
	jw_num(w, "mount_s", nc->mount_s);
	read_counts(now, &have);
	if (nc->mounted && have && nc->have_before) {
		jw_obj(w, "calls");
		for (uint32_t p = 0; p < NFS3_NPROCS; p++)
			if (now[p] > nc->before[p])
				jw_int(w, nfs3_proc_name(p), (long long)(now[p] - nc->before[p]));
		jw_obj_end(w);
	}
	jw_obj_end(w);
}

const char *nfsclient_umount(struct nfs_client *nc)
{
	const char *how = "not-mounted";
	double until = mono_now() + 5;
	int fd, rc;
	if (!nc->mounted)
		return how;
	/* what the run left dirty goes to the server while it still answers */
	if ((fd = open(NFSCLIENT_DIR, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) >= 0) {
		if (syncfs(fd) < 0)
			warn_sys("nfsclient: syncfs of %s", NFSCLIENT_DIR);
		close(fd);
	}
	/* a killed workload may still be closing its files: wait, as for a layout */
	while ((rc = umount2(NFSCLIENT_DIR, 0)) < 0 && errno == EBUSY && mono_now() < until)
		usleep(100000);
	how = "unmounted";
	if (rc < 0) {
		/* forced: calls in flight end in EIO; said in the event, never silent */
		warn_sys("unable to unmount %s in 5 s; forcing it", NFSCLIENT_DIR);
		how = "forced";
		if (umount2(NFSCLIENT_DIR, MNT_FORCE) < 0) {
			warn_sys("unable to force %s off; detaching it", NFSCLIENT_DIR);
			umount2(NFSCLIENT_DIR, MNT_DETACH);
			how = "detached";
		}
	}
	nc->mounted = 0;
	return how;
}
