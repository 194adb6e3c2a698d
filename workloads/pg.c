/*
 * pg.c - not a workload: the PostgreSQL server a PostgreSQL workload
 * starts for its run, and PostgreSQL's programs run against it (pg.h).
 *
 * Per run: a new data directory under postgresql/ on the layout (root's,
 * 0755; what a killed run left there is swept first: its postmaster, its
 * shared memory, its files), initdb as the user, the server (the plan's
 * settings passed with -c and read back from pg_settings into
 * details.settings) waited for until its postmaster.pid says "ready";
 * pg_close: an immediate shutdown (the data is thrown away) and the
 * directories removed. A tool or server that fails fails the run with
 * PostgreSQL's own error line (FATAL, PANIC, ERROR, "error:").
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <pwd.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/shm.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/wait.h>
#include <unistd.h>

#include "defaults.h"
#include "err.h"
#include "layer.h"
#include "pg.h"
#include "spawn.h"
#include "rng.h"
#include "sqlgen.h"
#include "units.h"
#include "xio.h"

#define PG_START_S 60		/* a server not ready by then has failed */
#define PG_STOP_S 30		/* an immediate shutdown, then SIGKILL */
#define PG_LOG_TAIL (64u << 10)	/* of the server's log, what is read for its error */
#define SELF "/proc/self/exe"	/* bootbench, for `bootbench runas` */

/* The server settings the plan gives (PG_SERVER_PARAMS), as -c NAME=VALUE. */
static const char *const settings[] = {
	"shared_buffers", "synchronous_commit", "wal_sync_method", "checkpoint_timeout", "max_wal_size",
	"max_connections",
};
#define NSETTINGS (sizeof settings / sizeof *settings)

static const char *const bin_names[PG_NBIN] = { "postgres", "initdb", "psql", "pgbench" };

/* A setting's value as it may reach a command line: a word of letters,
 * digits and . _ - (no quoting, no second option inside). */
static int plain_value(const char *v)
{
	return name_ok(v, 64, "._-");
}

/* The first line of text holding PostgreSQL's own error (FATAL:, PANIC:,
 * ERROR:, or a tool's "error:"), into out; 0 when there is none. */
static int error_line(const char *text, char *out, size_t len)
{
	static const char *const marks[] = { "FATAL:", "PANIC:", "ERROR:", "error:" };
	for (const char *l = text; l && *l;) {
		size_t n = strcspn(l, "\n");
		for (size_t m = 0; m < sizeof marks / sizeof *marks; m++) {
			const char *hit = memmem(l, n, marks[m], strlen(marks[m]));
			if (hit) {
				snprintf(out, len, "%.*s", (int)(n - (size_t)(hit - l)), hit);
				return 1;
			}
		}
		l += n + (l[n] == '\n');
	}
	return 0;
}

/* The server log's error line, or its last line: read from its last 64 KiB. */
static void server_says(const struct pg *pg, char *out, size_t len)
{
	int fd = open(pg->log, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	struct stat st;
	char *t = NULL;
	out[0] = 0;
	if (fd < 0)
		return;
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		close(fd);
		return;
	}
	if (st.st_size > (off_t)PG_LOG_TAIL)
		lseek(fd, st.st_size - (off_t)PG_LOG_TAIL, SEEK_SET);
	/* one byte of room: read_fd fails a stream that fills its bound */
	t = read_fd(fd, PG_LOG_TAIL + 1, NULL);
	close(fd);
	if (t && !error_line(t, out, len)) {
		size_t n = strlen(t);
		while (n && (t[n - 1] == '\n' || t[n - 1] == ' '))
			t[--n] = 0;
		snprintf(out, len, "%s", strrchr(t, '\n') ? strrchr(t, '\n') + 1 : t);
	}
	free(t);
}

int pg_tool(struct wctx *c, struct pg *pg, const char *name, char **args, int in_fd, unsigned timeout_ms,
	    struct sbuf *out, struct run_result *resp)
{
	char *argv[64], line[200], srv[200] = "";
	struct run_result own, *res = resp ? resp : &own;
	int n = 0;
	argv[n++] = SELF;
	argv[n++] = "runas";
	argv[n++] = (char *)pg->user;
	for (; *args; args++) {
		if (n == 63)
			return wl_fail(c, "%s: more than 60 arguments", name);
		argv[n++] = *args;
	}
	argv[n] = NULL;
	sb_free(out);
	if (run_capture_in(argv, in_fd, out, timeout_ms, res) < 0)
		return wl_fail(c, "unable to run %s: %s", argv[3], strerror(errno));
	if (res->dropped)
		wl_warn(c, "%s printed %llu bytes past what is kept", name, res->dropped);
	if (res->timed_out)
		return wl_fail(c, "%s did not finish in %u s", name, timeout_ms / 1000);
	if (WIFEXITED(res->status) && WEXITSTATUS(res->status) == 0)
		return 0;
	if (pg->started)
		server_says(pg, srv, sizeof srv);
	if (error_line(out->s, line, sizeof line))
		return wl_fail(c, "%s: %s%s%s", name, line, srv[0] ? "; the server: " : "", srv);
	return wl_tool_failed(c, name, res, out, "");
}

/* postmaster.pid: line 1 the postmaster's pid, line 7 "shmkey shmid",
 * line 8 its state ("ready" once it takes connections) */
static int pidfile_line(int dirfd, int want, char *out, size_t len)
{
	int fd = openat(dirfd, "postmaster.pid", O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	char *t, *l;
	struct stat st;
	out[0] = 0;
	if (fd < 0)
		return -1;
	t = fstat(fd, &st) == 0 && S_ISREG(st.st_mode) ? read_fd(fd, 4096, NULL) : NULL;
	close(fd);
	if (!t)
		return -1;
	l = t;
	for (int i = 1; i < want && l; i++)
		if ((l = strchr(l, '\n')))
			l++;
	if (l)
		snprintf(out, len, "%.*s", (int)strcspn(l, "\n"), l);
	free(t);
	return l ? 0 : -1;
}

static int server_ready(const struct pg *pg)
{
	char state[32];
	int fd = open(pg->data, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC), ready;
	if (fd < 0)
		return 0;
	ready = pidfile_line(fd, 8, state, sizeof state) == 0 && !strncmp(state, "ready", 5);
	close(fd);
	return ready;
}

/* Remove name in the directory dfd and all below it, through
 * descriptors: a directory the user swaps for a link meanwhile is only
 * unlinked, never followed. */
static void remove_at(int dfd, const char *name, int depth)
{
	int fd = openat(dfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd >= 0) {
		DIR *d = fdopendir(fd);
		struct dirent *e;
		if (!d) {
			close(fd);
			return;
		}
		while (depth < 64 && (e = readdir(d)))
			if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
				remove_at(fd, e->d_name, depth + 1);
		closedir(d);
		if (unlinkat(dfd, name, AT_REMOVEDIR) < 0 && errno != ENOENT)
			warn_sys("unable to remove %s", name);
	} else if (unlinkat(dfd, name, 0) < 0 && errno != ENOENT) {
		warn_sys("unable to remove %s", name);
	}
}

/* As root, without following a link: what a run made, gone. path's
 * parent is root's (postgresql/ on the layout, or /tmp whose sticky bit
 * keeps root's entries root's). */
static void remove_tree(const char *path)
{
	char parent[4400];
	const char *slash = strrchr(path, '/');
	int dfd;
	if (!slash || slash == path || (size_t)(slash - path) >= sizeof parent)
		return;
	snprintf(parent, sizeof parent, "%.*s", (int)(slash - path), path);
	if ((dfd = open(parent, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) < 0)
		return;
	remove_at(dfd, slash + 1, 0);
	close(dfd);
}

/* SIGKILL every process of the user's that works in dir (its cwd there
 * or below): a killed run's postmaster and backends (they leave the
 * workload's process group: setsid), or whatever a backend started. 1
 * when one was found. */
static int kill_in(const char *dir, uid_t uid)
{
	DIR *d = opendir("/proc");
	struct dirent *e;
	size_t n = strlen(dir);
	int found = 0;
	while (d && (e = readdir(d))) {
		char p[64], cwd[4400];
		struct stat st;
		ssize_t l;
		long pid = atol(e->d_name);
		if (pid <= 1)
			continue;
		snprintf(p, sizeof p, "/proc/%ld", pid);
		if (stat(p, &st) < 0 || st.st_uid != uid)
			continue;
		snprintf(p, sizeof p, "/proc/%ld/cwd", pid);
		if ((l = readlink(p, cwd, sizeof cwd - 1)) < 0)
			continue;
		cwd[l] = 0;
		if (!strncmp(cwd, dir, n) && (cwd[n] == 0 || cwd[n] == '/')) {
			kill((pid_t)pid, SIGKILL);
			found = 1;
		}
	}
	if (d)
		closedir(d);
	return found;
}

/* Until none is left (5 s at most): their segments detach as they go. */
static void kill_all_in(const char *dir, uid_t uid)
{
	double until = mono_now() + 5;
	while (kill_in(dir, uid) && mono_now() < until)
		usleep(100000);
}

/* The SysV segments of the user's that nothing holds any more: a killed
 * server's main segment, and those its backends made (dynamic shared
 * memory). From /proc/sysvipc/shm ("key shmid perms size cpid lpid nattch
 * uid ..."). A running PostgreSQL keeps its segments attached, so an
 * unattached one of the user's is no live server's. */
static void remove_orphan_segments(uid_t uid)
{
	char *t = read_file("/proc/sysvipc/shm", NULL), *save = NULL;
	int header = 1;
	for (char *l = t ? strtok_r(t, "\n", &save) : NULL; l; l = strtok_r(NULL, "\n", &save)) {
		long key, cpid, lpid, nattch;
		unsigned long perms, size, owner;
		int shmid;
		if (header) {
			header = 0;
			continue;
		}
		if (sscanf(l, "%ld %d %lo %lu %ld %ld %ld %lu", &key, &shmid, &perms, &size, &cpid, &lpid, &nattch, &owner) ==
			    8 && owner == uid && nattch == 0)
			shmctl(shmid, IPC_RMID, NULL);
	}
	free(t);
}

/* The /tmp directory a run names in its run directory ("tmp"), if it is
 * one of ours: /tmp/bootbench-pg.XXXXXX, root's. */
static int run_tmp(int rfd, char *out, size_t len)
{
	int fd = openat(rfd, "tmp", O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	char *t = NULL;
	struct stat st;
	int ok = 0;
	if (fd < 0)
		return 0;
	if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_uid == 0)
		t = read_fd(fd, 128, NULL);
	close(fd);
	if (t && strlen(t) == 24 && !strncmp(t, "/tmp/bootbench-pg.", 18) && name_ok(t + 18, 6, "") &&
	    lstat(t, &st) == 0 && S_ISDIR(st.st_mode) && st.st_uid == 0) {
		snprintf(out, len, "%s", t);
		ok = 1;
	}
	free(t);
	return ok;
}

/* A run directory a killed run left: the user's processes working in it
 * (its server and backends), its shared memory segments, its /tmp
 * directory, then its files. */
static void sweep_one(const char *path, uid_t uid)
{
	char tmp[64];
	int fd = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC), has_tmp = 0;
	kill_all_in(path, uid);
	if (fd >= 0) {
		has_tmp = run_tmp(fd, tmp, sizeof tmp);
		close(fd);
	}
	remove_orphan_segments(uid);
	if (has_tmp)
		remove_tree(tmp);
	remove_tree(path);
}

/* postgresql/ on the layout: made by root, 0755, never a link; the data
 * directories of killed runs swept out of it. -1 with the reason. */
static int prepare_top(struct wctx *c, struct pg *pg, uid_t uid)
{
	struct stat st;
	int fd;
	DIR *d;
	struct dirent *e;
	if (snprintf(pg->top, sizeof pg->top, "%s/postgresql", c->dir) >= (int)sizeof pg->top)
		return wl_fail(c, "the layout's path is too long");
	if (mkdir(pg->top, 0755) < 0 && errno != EEXIST)
		return wl_fail(c, "unable to make %s: %s", pg->top, strerror(errno));
	fd = open(pg->top, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0 || fstat(fd, &st) < 0 || st.st_uid != 0 || (st.st_mode & 022)) {
		if (fd >= 0)
			close(fd);
		return wl_fail(c, "%s is not a directory of root's that only root may write to", pg->top);
	}
	if (!(d = fdopendir(fd))) {
		close(fd);
		return wl_fail(c, "unable to read %s: %s", pg->top, strerror(errno));
	}
	while ((e = readdir(d))) {
		char path[4500];
		if (strncmp(e->d_name, "run.", 4))
			continue;
		snprintf(path, sizeof path, "%s/%s", pg->top, e->d_name);
		wl_warn(c, "swept %s, left by a run that was killed", e->d_name);
		sweep_one(path, uid);
	}
	closedir(d);
	return 0;
}

/* A new directory of root's (mkdtemp, 0755). */
static int root_dir(struct wctx *c, char *tmpl)
{
	if (!mkdtemp(tmpl))
		return wl_fail(c, "unable to make %s: %s", tmpl, strerror(errno));
	if (chmod(tmpl, 0755) < 0)
		return wl_fail(c, "unable to make %s readable: %s", tmpl, strerror(errno));
	return 0;
}

/* A new directory for the user in root's directory dir: made by root,
 * handed over by descriptor (no path to swap in between). */
static int user_dir(struct wctx *c, const char *dir, const char *name, uid_t uid, gid_t gid)
{
	int dfd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC), fd = -1, e = 0;
	if (dfd < 0 || mkdirat(dfd, name, 0700) < 0 ||
	    (fd = openat(dfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)) < 0 || fchown(fd, uid, gid) < 0)
		e = errno;
	if (fd >= 0)
		close(fd);
	if (dfd >= 0)
		close(dfd);
	return e ? wl_fail(c, "unable to make %s/%s for the user: %s", dir, name, strerror(e)) : 0;
}

int pg_new_file(struct wctx *c, const struct pg *pg, const char *name, char *path, size_t len)
{
	int fd;
	if (snprintf(path, len, "%s/%s", pg->tmp, name) >= (int)len)
		return wl_fail(c, "%s/%s: path too long", pg->tmp, name);
	fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
	if (fd < 0)
		wl_fail(c, "unable to make %s: %s", path, strerror(errno));
	return fd;
}

static int start_server(struct wctx *c, struct pg *pg)
{
	char *argv[14 + 2 * NSETTINGS], sets[NSETTINGS][160], why[200];
	int n = 0, fd, st;
	double until;
	argv[n++] = SELF;
	argv[n++] = "runas";
	argv[n++] = (char *)pg->user;
	argv[n++] = pg->bin[PG_POSTGRES];
	argv[n++] = "-D";
	argv[n++] = pg->data;
	argv[n++] = "-k";
	argv[n++] = pg->sock;
	argv[n++] = "-c";
	argv[n++] = "listen_addresses=";
	/* its log is in /tmp (RAM): FATAL and PANIC only, not an ERROR per
	 * retried deadlock (the clients report those) */
	argv[n++] = "-c";
	argv[n++] = "log_min_messages=fatal";
	for (size_t i = 0; i < NSETTINGS; i++) {
		snprintf(sets[i], sizeof sets[i], "%s=%s", settings[i], wl_param(c, settings[i]));
		argv[n++] = "-c";
		argv[n++] = sets[i];
	}
	argv[n] = NULL;
	fd = open(pg->log, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
	if (fd < 0)
		return wl_fail(c, "unable to make %s: %s", pg->log, strerror(errno));
	pg->server = spawn_here(argv, fd);
	close(fd);
	if (pg->server < 0)
		return wl_fail(c, "unable to start %s: %s", pg->bin[PG_POSTGRES], strerror(errno));
	until = mono_now() + PG_START_S;
	while (!server_ready(pg)) {
		if (child_exited(pg->server, &st) != 0) {
			pg->server = -1;
			server_says(pg, why, sizeof why);
			return wl_fail(c, "the server did not start: %s", why[0] ? why : "(nothing in its log)");
		}
		if (mono_now() > until) {
			server_says(pg, why, sizeof why);
			return wl_fail(c, "the server was not ready in %d s: %s", PG_START_S, why);
		}
		usleep(50000);
	}
	pg->started = 1;
	return 0;
}

/* Immediate shutdown (SIGQUIT): the data is thrown away, a checkpoint
 * would only cost time; SIGKILL after PG_STOP_S. */
static void stop_server(struct pg *pg)
{
	int st;
	double until = mono_now() + PG_STOP_S;
	if (pg->server <= 0)
		return;
	kill(pg->server, SIGQUIT);
	while (child_exited(pg->server, &st) == 0 && mono_now() < until)
		usleep(50000);
	if (child_exited(pg->server, &st) == 0)
		stop_child(pg->server, 1000, &st);
	pg->server = -1;
}


int pg_sql(struct wctx *c, struct pg *pg, const char *sql, unsigned timeout_ms, struct sbuf *out)
{
	char *a[] = { pg->bin[PG_PSQL], "-X", "-v", "ON_ERROR_STOP=1", "-h", pg->sock, "-U", "postgres", "-At",
		      "-c", (char *)sql, "postgres", NULL };
	return pg_tool(c, pg, "psql", a, -1, timeout_ms, out, NULL);
}

/* Which PostgreSQL ran, into details.software: the layer's build line
 * when bindir is the layer's (a rebuilt layer is another experiment),
 * else what the server says it is and where it was. */
static int name_software(struct wctx *c, struct pg *pg)
{
	char text[400], want[PATH_MAX], got[PATH_MAX];
	/* the layer's however bindir spells it (a trailing /, a link) */
	if (realpath(PG_LAYER_BIN, want) && realpath(wl_param(c, "bindir"), got) && !strcmp(want, got)) {
		struct layer ly;
		int dfd = open(LAYERS_DIR, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		int rc = dfd >= 0 ? layer_read(dfd, PG_LAYER, &ly) : -1;
		if (dfd >= 0)
			close(dfd);
		if (rc < 0)
			return wl_fail(c, "%s/%s does not name the layer's build (a package, version and build key)",
				       LAYERS_DIR, PG_LAYER);
		snprintf(text, sizeof text, "%s %s %s", ly.package, ly.version, ly.build);
	} else {
		struct sbuf out = { 0 };
		char *a[] = { pg->bin[PG_POSTGRES], "--version", NULL };
		if (pg_tool(c, pg, "postgres --version", a, -1, 30000, &out, NULL) < 0) {
			sb_free(&out);
			return -1;
		}
		snprintf(text, sizeof text, "%.*s at %s", (int)strcspn(out.s ? out.s : "", "\n"), out.s ? out.s : "",
			 wl_param(c, "bindir"));
		sb_free(&out);
	}
	jw_obj(&c->details, "software");
	jw_str(&c->details, "postgresql", text);
	jw_obj_end(&c->details);
	return 0;
}

static int check_params(struct wctx *c, struct pg *pg, long long clients)
{
	const char *bindir = wl_param(c, "bindir"), *mc = wl_param(c, "max_connections");
	unsigned long long maxconn;
	struct passwd *pw;
	for (size_t i = 0; i < NSETTINGS; i++)
		if (!plain_value(wl_param(c, settings[i])))
			return wl_fail(c, "%s=\"%.60s\": a value of letters, digits and . _ - (at most 64)", settings[i],
				       wl_param(c, settings[i]));
	/* the clients' connections, and the server's own few besides */
	maxconn = strspn(mc, "0123456789") == strlen(mc) ? strtoull(mc, NULL, 10) : 0;
	if (maxconn && (unsigned long long)clients + 3 > maxconn)
		return wl_fail(c, "clients=%lld: max_connections=%llu leaves room for %llu", clients, maxconn,
			       maxconn > 3 ? maxconn - 3 : 0);
	for (size_t i = 0; i < PG_NBIN; i++) {
		if (snprintf(pg->bin[i], sizeof pg->bin[i], "%s/%s", bindir, bin_names[i]) >= (int)sizeof pg->bin[i])
			return wl_fail(c, "bindir: path too long");
		if (access(pg->bin[i], X_OK) != 0)
			return wl_fail(c, "unable to execute %s (%s)%s", pg->bin[i], strerror(errno),
				       !strcmp(bindir, PG_LAYER_BIN) ? ": this boot has no PostgreSQL layer "
				       "(scripts/boot-qemu --layer postgresql)" : "");
	}
	if (!(pw = getpwnam(pg->user)) || pw->pw_uid == 0 || pw->pw_gid == 0)
		return wl_fail(c, "user=%s: %s", pg->user,
			       pw ? "root or root's group: PostgreSQL refuses root" : "no such user");
	pg->uid = pw->pw_uid;
	pg->gid = pw->pw_gid;
	return 0;
}

int pg_open(struct wctx *c, struct pg *pg, long long clients)
{
	struct sbuf out = { 0 }, q = { 0 };
	int rc = -1;
	memset(pg, 0, sizeof *pg);
	pg->server = -1;
	pg->user = wl_param(c, "user");
	if (!c->dir)
		return wl_fail(c, "%s needs a layout with a filesystem (the server's data directory)", c->w->name);
	if (check_params(c, pg, clients) < 0 || name_software(c, pg) < 0 || prepare_top(c, pg, pg->uid) < 0)
		return -1;
	snprintf(pg->run, sizeof pg->run, "%s/run.XXXXXX", pg->top);
	snprintf(pg->tmp, sizeof pg->tmp, "/tmp/bootbench-pg.XXXXXX");
	if (!(pg->made_run = root_dir(c, pg->run) == 0) || !(pg->made_tmp = root_dir(c, pg->tmp) == 0))
		return -1;
	snprintf(pg->data, sizeof pg->data, "%s/data", pg->run);
	snprintf(pg->sock, sizeof pg->sock, "%s/s", pg->tmp);
	snprintf(pg->log, sizeof pg->log, "%s/server.log", pg->tmp);
	{
		/* the run names its /tmp directory: a sweep removes both */
		char p[4400];
		int fd;
		snprintf(p, sizeof p, "%s/tmp", pg->run);
		fd = open(p, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
		if (fd < 0 || write_all(fd, pg->tmp, strlen(pg->tmp)) < 0) {
			int e = errno;
			if (fd >= 0)
				close(fd);
			return wl_fail(c, "unable to write %s: %s", p, strerror(e));
		}
		close(fd);
	}
	if (user_dir(c, pg->run, "data", pg->uid, pg->gid) < 0 || user_dir(c, pg->tmp, "s", pg->uid, pg->gid) < 0)
		return -1;
	{
		char *a[] = { pg->bin[PG_INITDB], "-D", pg->data, "-U", "postgres", "-A", "trust", "-E", "UTF8",
			      "--locale=C", "--no-sync", NULL };
		if (pg_tool(c, pg, "initdb", a, -1, 300000, &out, NULL) < 0)
			goto out;
	}
	if (start_server(c, pg) < 0)
		goto out;
	/* what is in force, beside what was asked */
	sb_puts(&q, "select name || '=' || current_setting(name) from pg_settings where name in ('server_version'");
	for (size_t i = 0; i < NSETTINGS; i++)
		sb_printf(&q, ",'%s'", settings[i]);
	sb_puts(&q, ") order by name");
	if (pg_sql(c, pg, q.s, 60000, &out) < 0)
		goto out;
	jw_obj(&c->details, "settings");
	for (char *l = out.s, *nl; l && *l; l = nl) {
		char *eq;
		nl = strchr(l, '\n');
		if (nl)
			*nl++ = 0;
		if ((eq = strchr(l, '=')) && eq - l < 40) {
			*eq = 0;
			jw_str(&c->details, l, eq + 1);
		}
	}
	jw_obj_end(&c->details);
	rc = 0;
out:
	sb_free(&q);
	sb_free(&out);
	return rc;
}

void pg_close(struct pg *pg)
{
	stop_server(pg);
	/* what of the user's still works in the run (a backend the
	 * postmaster's end left, a program one started), then the files */
	if (pg->made_run) {
		kill_all_in(pg->run, pg->uid);
		remove_orphan_segments(pg->uid);
		remove_tree(pg->run);
	}
	if (pg->made_tmp)
		remove_tree(pg->tmp);
	pg->made_run = pg->made_tmp = 0;
}

/* utime, stime, cutime, cstime of /proc/PID/stat (fields 14-17), in ticks;
 * the parent's pid (field 4) into *ppid. -1 when it is gone. */
static int proc_times(long pid, unsigned long long t[4], long *ppid)
{
	char path[64], *s, *p;
	int rc = -1;
	snprintf(path, sizeof path, "/proc/%ld/stat", pid);
	if (!(s = read_file(path, NULL)))
		return -1;
	/* past the command's ")" (it may hold blanks and parentheses) */
	if ((p = strrchr(s, ')')) &&
	    sscanf(p + 1, " %*c %ld %*s %*s %*s %*s %*s %*s %*s %*s %*s %llu %llu %llu %llu", ppid, &t[0], &t[1], &t[2],
		   &t[3]) == 5)
		rc = 0;
	free(s);
	return rc;
}

/* Call fn for each live child of the server. */
static void each_child(const struct pg *pg, void (*fn)(long pid, const unsigned long long t[4], void *), void *arg)
{
	DIR *d = opendir("/proc");
	struct dirent *e;
	while (d && (e = readdir(d))) {
		unsigned long long t[4];
		long pid = atol(e->d_name), ppid;
		if (pid > 0 && proc_times(pid, t, &ppid) == 0 && ppid == pg->server)
			fn(pid, t, arg);
	}
	if (d)
		closedir(d);
}

static void add_times(long pid, const unsigned long long t[4], void *arg)
{
	unsigned long long *sum = arg;
	(void)pid;
	sum[0] += t[0];
	sum[1] += t[1];
}

int pg_server_cpu(const struct pg *pg, double *user_s, double *sys_s)
{
	unsigned long long t[4], sum[2] = { 0, 0 };
	long ppid, hz = sysconf(_SC_CLK_TCK);
	if (pg->server <= 0 || proc_times(pg->server, t, &ppid) < 0)
		return -1;
	sum[0] = t[0] + t[2];
	sum[1] = t[1] + t[3];
	each_child(pg, add_times, sum);
	*user_s = (double)sum[0] / (double)(hz > 0 ? hz : 100);
	*sys_s = (double)sum[1] / (double)(hz > 0 ? hz : 100);
	return 0;
}

/* A client's backend: with listen_addresses empty, every one is "[local]"
 * in its process title. */
static void count_backend(long pid, const unsigned long long t[4], void *arg)
{
	char path[64], *s;
	size_t len = 0;
	(void)t;
	snprintf(path, sizeof path, "/proc/%ld/cmdline", pid);
	if ((s = read_file(path, &len))) {
		if (memmem(s, len, "[local]", 7))
			++*(int *)arg;
		free(s);
	}
}

void pg_backends_gone(const struct pg *pg, unsigned ms)
{
	double until = mono_now() + ms / 1000.0;
	for (;;) {
		int n = 0;
		each_child(pg, count_backend, &n);
		if (!n || mono_now() > until)
			return;
		usleep(20000);
	}
}

/* ---- pgbench as a driver: pgbench and dbt2 ---- */

#define PG_RATE_GUESS 100000	/* tx/s assumed when no warmup measured it */

double pg_field(const char *text, const char *key, const char *also)
{
	size_t k = strlen(key);
	for (const char *l = text; l && *l;) {
		size_t n = strcspn(l, "\n");
		if (n > k && !strncmp(l, key, k) && (!also || memmem(l, n, also, strlen(also)))) {
			char *end;
			double v;
			errno = 0;
			v = strtod(l + k, &end);
			return errno || end == l + k ? NAN : v;
		}
		l += n + (l[n] == '\n');
	}
	return NAN;
}

/* The share of transactions pgbench logs (--sampling-rate): all of them
 * unless that would pass `lines` at the rate the warmup ran, with room
 * (or, without a warmup, at PG_RATE_GUESS). */
static double sampling_rate(double warm_tps, unsigned long long dur, long long lines)
{
	double expect = (isfinite(warm_tps) && warm_tps > 0 ? warm_tps * 1.5 : PG_RATE_GUESS) * (double)dur;
	/* pgbench takes a rate above 0: at least one in a billion */
	return expect <= (double)lines ? 1.0 : fmax((double)lines / expect, 1e-9);
}

int pg_driver_params(struct wctx *c, struct pg_driver *d)
{
	struct statvfs vfs;
	d->clients = wl_param_int(c, "clients");
	d->lines = wl_param_int(c, "log_lines");
	if (d->clients < 0 || d->lines < 0)
		return -1;
	if (d->clients < 1 || d->clients > 1000)
		return wl_fail(c, "clients=%lld: expected 1..1000", d->clients);
	if (d->lines < 100 || d->lines > PG_LOG_LINES_MAX)
		return wl_fail(c, "log_lines=%lld: expected 100..%d", d->lines, PG_LOG_LINES_MAX);
	/* the log is in /tmp, RAM in the appliance: twice the lines asked
	 * may come (the warmup's rate is a guess) */
	if (statvfs("/tmp", &vfs) == 0 && (double)d->lines * 2 * 48 > (double)vfs.f_bavail * (double)vfs.f_frsize)
		return wl_fail(c, "log_lines=%lld: up to %.0f MB of transaction log, /tmp has %.0f MB free", d->lines,
			       (double)d->lines * 96 / 1e6, (double)vfs.f_bavail * (double)vfs.f_frsize / 1e6);
	if (parse_duration(wl_param(c, "duration"), 1000, 86400, &d->dur) < 0 || d->dur < 1 ||
	    parse_duration(wl_param(c, "warmup"), 1000, 86400, &d->warm) < 0)
		return wl_fail(c, "duration=\"%s\" warmup=\"%s\": whole seconds (%s), duration at least 1",
			       wl_param(c, "duration"), wl_param(c, "warmup"), DURATION_HELP);
	return 0;
}

int pg_pgbench(struct wctx *c, struct pg *pg, char **args, const struct pg_driver *d, struct sbuf *out, double *share)
{
	char ds[24], ws[24], cl[24], tlog[128], rate[40];
	double warm_tps = NAN;
	snprintf(tlog, sizeof tlog, "--log-prefix=%s/pgb", pg->sock);
	snprintf(ds, sizeof ds, "%llu", d->dur);
	snprintf(ws, sizeof ws, "%llu", d->warm);
	snprintf(cl, sizeof cl, "%lld", d->clients);
	*share = 1;
	for (int measured = d->warm ? 0 : 1; measured < 2; measured++) {
		/* the warmup, then the measured run with its transaction log */
		char *a[48];
		int n = 0;
		a[n++] = pg->bin[PG_PGBENCH];
		a[n++] = "-h";
		a[n++] = pg->sock;
		a[n++] = "-U";
		a[n++] = "postgres";
		/* -n: no vacuum and no truncation of pgbench_history before the
		 * run, so the measured run starts where the warmup left off */
		a[n++] = "-n";
		a[n++] = "-T";
		a[n++] = measured ? ds : ws;
		a[n++] = "-c";
		a[n++] = cl;
		a[n++] = "-j";
		a[n++] = cl;
		for (char **p = args; *p; p++) {
			if (n == 40)
				return wl_fail(c, "pgbench: more than 40 arguments");
			a[n++] = *p;
		}
		if (measured) {
			a[n++] = "-l";
			a[n++] = tlog;
			*share = sampling_rate(warm_tps, d->dur, d->lines);
			if (*share < 1) {
				snprintf(rate, sizeof rate, "--sampling-rate=%.9g", *share);
				a[n++] = rate;
			}
		}
		a[n++] = "postgres";
		a[n] = NULL;
		if (pg_tool(c, pg, measured ? "pgbench" : "pgbench (warmup)", a, -1,
			    (unsigned)((measured ? d->dur : d->warm) + 120) * 1000, out, NULL) < 0)
			return -1;
		if (!measured)
			warm_tps = pg_field(out->s, "tps = ", "without initial connection time");
	}
	return 0;
}

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	return x < y ? -1 : x > y;
}

double pg_rank(const struct pg_lat *l, unsigned pct)
{
	size_t k = (l->n * pct + 99) / 100;
	return l->n ? l->v[k ? k - 1 : 0] / 1000.0 : NAN;
}

void pg_lat_free(struct pg_lat *lat, int n)
{
	for (int i = 0; i < n; i++) {
		free(lat[i].v);
		lat[i].v = NULL;
		lat[i].n = 0;
	}
}

/* A logged transaction: its script and its latency. */
struct pg_tx {
	uint32_t us;
	uint8_t script;
};

int pg_latency_log(struct wctx *c, const struct pg *pg, size_t max, struct pg_lat *lat, int nscripts)
{
	int dfd = open(pg->sock, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	DIR *d = dfd >= 0 ? fdopendir(dfd) : NULL;
	struct dirent *e;
	struct pg_tx *v = NULL;
	size_t cap = 0, n = 0, seen = 0, other = 0, all = 0;
	uint64_t rng = 0x9e3779b97f4a7c15ULL;	/* fixed: the same log keeps the same sample */
	if (!d) {
		if (dfd >= 0)
			close(dfd);
		return wl_fail(c, "unable to read %s: %s", pg->sock, strerror(errno));
	}
	if (nscripts > PG_MAX_SCRIPTS)
		nscripts = PG_MAX_SCRIPTS;
	while ((e = readdir(d))) {
		char line[256];
		struct stat st;
		FILE *f;
		int fd;
		if (strncmp(e->d_name, "pgb.", 4))
			continue;
		/* the user's directory: only a regular file of the user's with
		 * one link (never a FIFO to block on, a device, a link out) */
		fd = openat(dfd, e->d_name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
		if (fd < 0)
			continue;
		if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || st.st_uid != pg->uid || st.st_nlink != 1 ||
		    !(f = fdopen(fd, "r"))) {
			close(fd);
			continue;
		}
		while (fgets(line, sizeof line, f)) {
			unsigned long client, tx, us, script;
			struct pg_tx t;
			int k = sscanf(line, "%lu %lu %lu %lu", &client, &tx, &us, &script);
			if (k < 3) {
				other++;	/* failed, skipped */
				continue;
			}
			if (k < 4 || script >= (unsigned long)nscripts) {
				other++;	/* not a script this run has */
				continue;
			}
			t.us = us > UINT32_MAX ? UINT32_MAX : (uint32_t)us;
			t.script = (uint8_t)script;
			seen++;
			/* past max, a uniform sample of all (reservoir): not the
			 * first files' clients whole and the others not at all */
			if (n < max) {
				if (n == cap) {
					cap = cap ? cap * 2 : 4096;
					v = xrealloc(v, cap * sizeof *v);
				}
				v[n++] = t;
			} else {
				uint64_t j = rng_next(&rng) % seen;
				if (j < max)
					v[j] = t;
			}
		}
		fclose(f);
	}
	closedir(d);
	if (seen > n)
		wl_warn(c, "%zu transaction latencies: the percentiles are of a uniform sample of %zu", seen, n);
	jw_int(&c->details, "log_failed_or_skipped", (long long)other);
	for (size_t i = 0; i < n; i++)
		lat[v[i].script].n++;
	for (int i = 0; i < nscripts; i++) {
		lat[i].v = xcalloc(lat[i].n ? lat[i].n : 1, sizeof *lat[i].v);
		all += lat[i].n;
		lat[i].n = 0;
	}
	for (size_t i = 0; i < n; i++) {
		struct pg_lat *l = &lat[v[i].script];
		l->v[l->n++] = v[i].us;
	}
	free(v);
	for (int i = 0; i < nscripts; i++)
		qsort(lat[i].v, lat[i].n, sizeof *lat[i].v, cmp_u32);
	if (!all)
		return wl_fail(c, "pgbench's transaction log is empty");
	return 0;
}
