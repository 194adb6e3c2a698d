/*
 * pgbench.c - PostgreSQL's own pgbench against a PostgreSQL server started
 * on the layout for the run: TPC-B-like (pgbench's built-in script) or
 * select-only, `clients` connections over the Unix socket, `duration`
 * seconds after a `warmup`, as kernel regression suites run it (mmtests'
 * db-pgbench, Phoronix's pgbench profile).
 *
 * In the appliance the server and pgbench come from the PostgreSQL layer
 * (rootfs/recipes/postgresql-15.sh; a boot carries it with boot-qemu
 * --layer postgresql); on a host, bindir= points at any PostgreSQL 15
 * (Debian's /usr/lib/postgresql/15/bin). PostgreSQL refuses to run as
 * root: every PostgreSQL program runs through `bootbench runas USER`
 * (cmd/runas.c: that user, a clean environment, SIGKILL when the workload
 * dies), while the workload itself stays root and owns the directory it
 * works in, so that nothing the user runs can point root's chown or
 * removal elsewhere, and so that it can clean up after a killed run.
 *
 * Per run: a new data directory under pgbench/ on the layout (root's,
 * 0755; what a killed run left there is swept first: its postmaster, its
 * shared memory, its files), initdb, the server (settings are plan
 * parameters, passed with -c and read back from pg_settings into
 * details.settings) waited for until its postmaster.pid says "ready",
 * pgbench -i at `scale` (timed: init_s), the warmup, the measured run with
 * a per-transaction log; then an immediate shutdown (the data is thrown
 * away) and the directories removed. Figures: tps (pgbench's, without
 * connection time), the latency mean, and p50 and p99 (nearest rank) from
 * the transaction log, init_s. A tool or server that fails fails the run
 * with PostgreSQL's own error line (FATAL, PANIC, ERROR, "error:").
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <math.h>
#include <pwd.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/shm.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "err.h"
#include "proc.h"
#include "units.h"
#include "workload.h"
#include "xio.h"

#define PG_LAYER_BIN "/opt/postgresql/bin"
#define PG_START_S 60		/* a server not ready by then has failed */
#define PG_STOP_S 30		/* an immediate shutdown, then SIGKILL */
#define PG_MAX_SAMPLES (4u << 20)	/* transaction latencies kept for the percentiles */
#define PG_LOG_TAIL (64u << 10)	/* of the server's log, what is read for its error */
#define SELF "/proc/self/exe"	/* bootbench, for `bootbench runas` */

static const struct wparam pgbench_params[] = {
	{ "bindir", PG_LAYER_BIN, "where postgres, initdb, psql and pgbench are (the layer's, or a host's)" },
	{ "user", "postgres", "the user the server and pgbench run as (PostgreSQL refuses root)" },
	{ "mode", "tpcb", "tpcb (pgbench's TPC-B-like script) or select (select-only)" },
	{ "scale", "1", "pgbench -i scale: 100,000 accounts (about 15 MB) per unit" },
	{ "clients", "2", "connections (pgbench -c; one thread each)" },
	{ "duration", "10", "seconds measured" },
	{ "warmup", "2", "seconds run before, not measured" },
	{ "shared_buffers", "32MB", "server setting" },
	{ "synchronous_commit", "on", "server setting" },
	{ "wal_sync_method", "fdatasync", "server setting" },
	{ "checkpoint_timeout", "300", "server setting, seconds" },
	{ "max_wal_size", "1GB", "server setting" },
	{ "max_connections", "20", "server setting" },
	{ NULL, NULL, NULL },
};

/* The server settings the plan gives, as postgres -c NAME=VALUE. */
static const char *const settings[] = {
	"shared_buffers", "synchronous_commit", "wal_sync_method", "checkpoint_timeout", "max_wal_size",
	"max_connections",
};
#define NSETTINGS (sizeof settings / sizeof *settings)

enum { POSTGRES, INITDB, PSQL, PGBENCH, NBIN };
static const char *const bin_names[NBIN] = { "postgres", "initdb", "psql", "pgbench" };

struct pg {
	const char *user;
	char bin[NBIN][4200];
	char top[4200], data[4300], sock[64], log[128], tlog[128];
	pid_t server;
	int started;		/* the server was up: its log may say why a tool failed */
	int made_data, made_sock;	/* what the run must remove */		/* the server was up: its log may say why a tool failed */
};

/* A setting's value as it may reach a command line: a word of letters,
 * digits and . _ - (no quoting, no second option inside). */
static int plain_value(const char *v)
{
	if (!*v || strlen(v) > 64)
		return 0;
	for (; *v; v++)
		if (!((*v >= 'a' && *v <= 'z') || (*v >= 'A' && *v <= 'Z') || (*v >= '0' && *v <= '9') || *v == '.' ||
		      *v == '_' || *v == '-'))
			return 0;
	return 1;
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
	int fd = open(pg->log, O_RDONLY | O_CLOEXEC);
	struct stat st;
	char *t = NULL;
	out[0] = 0;
	if (fd < 0)
		return;
	if (fstat(fd, &st) == 0 && st.st_size > (off_t)PG_LOG_TAIL)
		lseek(fd, st.st_size - (off_t)PG_LOG_TAIL, SEEK_SET);
	t = read_fd(fd, PG_LOG_TAIL, NULL);
	close(fd);
	if (t && !error_line(t, out, len)) {
		size_t n = strlen(t);
		while (n && (t[n - 1] == '\n' || t[n - 1] == ' '))
			t[--n] = 0;
		snprintf(out, len, "%s", strrchr(t, '\n') ? strrchr(t, '\n') + 1 : t);
	}
	free(t);
}

/* Run a PostgreSQL program as the user: 0, or -1 with the reason (the
 * program's own error line, and the server's when it was up). */
static int tool(struct wctx *c, struct pg *pg, const char *name, char **args, unsigned timeout_ms, struct sbuf *out)
{
	char *argv[32], line[200], srv[200] = "";
	struct run_result res;
	int n = 0;
	argv[n++] = SELF;
	argv[n++] = "runas";
	argv[n++] = (char *)pg->user;
	for (; *args && n < 31; args++)
		argv[n++] = *args;
	argv[n] = NULL;
	sb_free(out);
	if (run_capture_here(argv, out, timeout_ms, &res) < 0)
		return wl_fail(c, "unable to run %s: %s", argv[3], strerror(errno));
	if (res.dropped)
		wl_warn(c, "%s printed %llu bytes past what is kept", name, res.dropped);
	if (res.timed_out)
		return wl_fail(c, "%s did not finish in %u s", name, timeout_ms / 1000);
	if (WIFEXITED(res.status) && WEXITSTATUS(res.status) == 0)
		return 0;
	if (pg->started)
		server_says(pg, srv, sizeof srv);
	if (error_line(out->s, line, sizeof line))
		return wl_fail(c, "%s: %s%s%s", name, line, srv[0] ? "; the server: " : "", srv);
	return wl_tool_failed(c, name, &res, out, "");
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

static int rm_one(const char *path, const struct stat *st, int flag, struct FTW *f)
{
	(void)st;
	(void)f;
	if ((flag == FTW_DP ? rmdir(path) : unlink(path)) < 0 && errno != ENOENT)
		warn_sys("unable to remove %s", path);
	return 0;
}

/* As root, without following a link: what a run made, gone. */
static void remove_tree(const char *dir)
{
	nftw(dir, rm_one, 16, FTW_DEPTH | FTW_PHYS);
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

/* A data directory a killed run left: its postmaster (still the user's
 * postgres, when it lives), its shared memory segments, then the files. */
static void sweep_one(const char *path, uid_t uid)
{
	char line[64], comm[64], proc[64];
	int fd = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd >= 0) {
		long pid;
		struct stat st;
		if (pidfile_line(fd, 1, line, sizeof line) == 0 && (pid = atol(line)) > 1) {
			char *t;
			snprintf(proc, sizeof proc, "/proc/%ld/comm", pid);
			t = read_file(proc, NULL);
			snprintf(comm, sizeof comm, "%s", t ? t : "");
			free(t);
			snprintf(proc, sizeof proc, "/proc/%ld", pid);
			if (!strncmp(comm, "postgres", 8) && stat(proc, &st) == 0 && st.st_uid == uid) {
				kill((pid_t)pid, SIGKILL);
				usleep(200000);	/* its segments detach as it goes */
			}
		}
		close(fd);
	}
	remove_orphan_segments(uid);
	remove_tree(path);
}

/* pgbench/ on the layout: made by root, 0755, never a link; the data
 * directories of killed runs swept out of it. -1 with the reason. */
static int prepare_top(struct wctx *c, struct pg *pg, uid_t uid)
{
	struct stat st;
	int fd;
	DIR *d;
	struct dirent *e;
	if (snprintf(pg->top, sizeof pg->top, "%s/pgbench", c->dir) >= (int)sizeof pg->top)
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
		if (strncmp(e->d_name, "data.", 5))
			continue;
		snprintf(path, sizeof path, "%s/%s", pg->top, e->d_name);
		wl_warn(c, "swept %s, left by a run that was killed", e->d_name);
		sweep_one(path, uid);
	}
	closedir(d);
	return 0;
}

/* A new directory for the user: made by root (mkdtemp), handed over by
 * descriptor (no path to swap in between). */
static int user_dir(struct wctx *c, char *tmpl, uid_t uid, gid_t gid)
{
	int fd;
	if (!mkdtemp(tmpl))
		return wl_fail(c, "unable to make %s: %s", tmpl, strerror(errno));
	fd = open(tmpl, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0 || fchown(fd, uid, gid) < 0) {
		int e = errno;
		if (fd >= 0)
			close(fd);
		return wl_fail(c, "unable to give %s to the user: %s", tmpl, strerror(e));
	}
	close(fd);
	return 0;
}

static int start_server(struct wctx *c, struct pg *pg)
{
	char *argv[12 + 2 * NSETTINGS], sets[NSETTINGS][160], why[200];
	int n = 0, fd, st;
	double until;
	argv[n++] = SELF;
	argv[n++] = "runas";
	argv[n++] = (char *)pg->user;
	argv[n++] = pg->bin[POSTGRES];
	argv[n++] = "-D";
	argv[n++] = pg->data;
	argv[n++] = "-k";
	argv[n++] = pg->sock;
	argv[n++] = "-c";
	argv[n++] = "listen_addresses=";
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
		return wl_fail(c, "unable to start %s: %s", pg->bin[POSTGRES], strerror(errno));
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

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	return x < y ? -1 : x > y;
}

/* nearest rank, as oltp, nfsmix and cyclictest take theirs */
static double rank(const uint32_t *v, size_t n, unsigned pct)
{
	size_t k = (n * pct + 99) / 100;
	return v[k ? k - 1 : 0] / 1000.0;
}

/* The per-transaction logs (pgbench -l: "client txno latency_us script
 * epoch us", latency "failed" or "skipped" for those): percentiles. */
static int latencies(struct wctx *c, const struct pg *pg, double *p50, double *p99, size_t *n)
{
	DIR *d = opendir(pg->sock);
	struct dirent *e;
	uint32_t *v = NULL;
	size_t cap = 0, dropped = 0, other = 0;
	*n = 0;
	if (!d)
		return wl_fail(c, "unable to read %s: %s", pg->sock, strerror(errno));
	while ((e = readdir(d))) {
		char path[400], line[256];
		FILE *f;
		if (strncmp(e->d_name, "pgb.", 4))
			continue;
		snprintf(path, sizeof path, "%s/%s", pg->sock, e->d_name);
		if (!(f = fopen(path, "re")))
			continue;
		while (fgets(line, sizeof line, f)) {
			unsigned long client, tx, lat;
			if (sscanf(line, "%lu %lu %lu", &client, &tx, &lat) != 3) {
				other++;	/* failed, skipped */
				continue;
			}
			if (*n >= PG_MAX_SAMPLES) {
				dropped++;
				continue;
			}
			if (*n == cap) {
				cap = cap ? cap * 2 : 4096;
				v = xrealloc(v, cap * sizeof *v);
			}
			v[(*n)++] = lat > UINT32_MAX ? UINT32_MAX : (uint32_t)lat;
		}
		fclose(f);
	}
	closedir(d);
	if (dropped)
		wl_warn(c, "%zu transaction latencies past the first %u were not kept for the percentiles", dropped,
			PG_MAX_SAMPLES);
	jw_int(&c->details, "log_failed_or_skipped", (long long)other);
	if (!*n) {
		free(v);
		return wl_fail(c, "pgbench's transaction log is empty");
	}
	qsort(v, *n, sizeof *v, cmp_u32);
	*p50 = rank(v, *n, 50);
	*p99 = rank(v, *n, 99);
	free(v);
	return 0;
}

/* The number after key at the start of a line of pgbench's report; with
 * also, only on a line that holds it too ("(without initial connection
 * time)": older pgbench printed another tps first). */
static double field(const char *text, const char *key, const char *also)
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

static int pgbench_run(struct wctx *c)
{
	struct pg pg = { .server = -1 };
	struct passwd *pw;
	struct sbuf out = { 0 };
	const char *bindir = wl_param(c, "bindir"), *mode = wl_param(c, "mode");
	long long scale = wl_param_int(c, "scale"), clients = wl_param_int(c, "clients");
	unsigned long long dur, warm, maxconn;
	char sc[24], cl[24], ds[24], ws[24], sql[512];
	double t0, init_s, tps, lat_mean, p50 = NAN, p99 = NAN;
	size_t samples = 0;
	uid_t uid;
	int rc = -1;

	pg.user = wl_param(c, "user");
	if (!c->dir)
		return wl_fail(c, "pgbench needs a layout with a filesystem (the server's data directory)");
	if (scale < 0 || clients < 0)
		return -1;
	if (scale < 1 || scale > 100000 || clients < 1 || clients > 1000)
		return wl_fail(c, "scale=%lld, clients=%lld: expected 1..100000 and 1..1000", scale, clients);
	if (!in_choices(mode, "tpcb|select"))
		return wl_fail(c, "mode=\"%s\": expected tpcb or select", mode);
	if (parse_duration(wl_param(c, "duration"), 1000, 86400, &dur) < 0 || dur < 1 ||
	    parse_duration(wl_param(c, "warmup"), 1000, 86400, &warm) < 0)
		return wl_fail(c, "duration=\"%s\" warmup=\"%s\": whole seconds (%s), duration at least 1",
			       wl_param(c, "duration"), wl_param(c, "warmup"), DURATION_HELP);
	for (size_t i = 0; i < NSETTINGS; i++)
		if (!plain_value(wl_param(c, settings[i])))
			return wl_fail(c, "%s=\"%.60s\": a value of letters, digits and . _ - (at most 64)", settings[i],
				       wl_param(c, settings[i]));
	/* pgbench's connections, and the server's own few besides */
	maxconn = strspn(wl_param(c, "max_connections"), "0123456789") == strlen(wl_param(c, "max_connections")) ?
		strtoull(wl_param(c, "max_connections"), NULL, 10) : 0;
	if (maxconn && (unsigned long long)clients + 3 > maxconn)
		return wl_fail(c, "clients=%lld: max_connections=%llu leaves room for %llu", clients, maxconn,
			       maxconn > 3 ? maxconn - 3 : 0);
	for (size_t i = 0; i < NBIN; i++) {
		if (snprintf(pg.bin[i], sizeof pg.bin[i], "%s/%s", bindir, bin_names[i]) >= (int)sizeof pg.bin[i])
			return wl_fail(c, "bindir: path too long");
		if (access(pg.bin[i], X_OK) != 0)
			return wl_fail(c, "unable to execute %s (%s)%s", pg.bin[i], strerror(errno),
				       !strcmp(bindir, PG_LAYER_BIN) ? ": this boot has no PostgreSQL layer "
				       "(scripts/boot-qemu --layer postgresql)" : "");
	}
	if (!(pw = getpwnam(pg.user)) || pw->pw_uid == 0 || pw->pw_gid == 0)
		return wl_fail(c, "user=%s: %s", pg.user, pw ? "root or root's group: PostgreSQL refuses root" : "no such user");
	uid = pw->pw_uid;
	if (prepare_top(c, &pg, uid) < 0)
		return -1;
	/* the socket, the server's log and the transaction log in a short
	 * private directory in /tmp (a socket path has 107 bytes; in the
	 * appliance /tmp is RAM, not the layout under test) */
	snprintf(pg.data, sizeof pg.data, "%s/data.XXXXXX", pg.top);
	snprintf(pg.sock, sizeof pg.sock, "/tmp/bootbench-pg.XXXXXX");
	pg.made_data = user_dir(c, pg.data, uid, pw->pw_gid) == 0;
	if (!pg.made_data)
		goto out;
	pg.made_sock = user_dir(c, pg.sock, uid, pw->pw_gid) == 0;
	if (!pg.made_sock)
		goto out;
	snprintf(pg.log, sizeof pg.log, "%s/server.log", pg.sock);
	snprintf(pg.tlog, sizeof pg.tlog, "--log-prefix=%s/pgb", pg.sock);
	snprintf(sc, sizeof sc, "%lld", scale);
	snprintf(cl, sizeof cl, "%lld", clients);
	snprintf(ds, sizeof ds, "%llu", dur);
	snprintf(ws, sizeof ws, "%llu", warm);
	{
		char *a[] = { pg.bin[INITDB], "-D", pg.data, "-U", "postgres", "-A", "trust", "-E", "UTF8", "--locale=C",
			      "--no-sync", NULL };
		if (tool(c, &pg, "initdb", a, 300000, &out) < 0)
			goto out;
	}
	if (start_server(c, &pg) < 0)
		goto out;
	{
		/* what is in force, beside what was asked */
		struct sbuf q = { 0 };
		sb_puts(&q, "select name || '=' || current_setting(name) from pg_settings where name in ('server_version'");
		for (size_t i = 0; i < NSETTINGS; i++)
			sb_printf(&q, ",'%s'", settings[i]);
		sb_puts(&q, ") order by name");
		snprintf(sql, sizeof sql, "%s", q.s);
		sb_free(&q);
	}
	{
		char *a[] = { pg.bin[PSQL], "-X", "-h", pg.sock, "-U", "postgres", "-At", "-c", sql, "postgres", NULL };
		if (tool(c, &pg, "psql", a, 60000, &out) < 0)
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
	}
	t0 = mono_now();
	{
		/* no deadline of its own but the plan's: its time grows with scale */
		char *a[] = { pg.bin[PGBENCH], "-h", pg.sock, "-U", "postgres", "-i", "-q", "-s", sc, "postgres", NULL };
		if (tool(c, &pg, "pgbench -i", a, 0, &out) < 0)
			goto out;
	}
	init_s = mono_now() - t0;
	for (int measured = warm ? 0 : 1; measured < 2; measured++) {
		/* the warmup, then the measured run with its transaction log */
		char *a[20];
		int n = 0;
		a[n++] = pg.bin[PGBENCH];
		a[n++] = "-h";
		a[n++] = pg.sock;
		a[n++] = "-U";
		a[n++] = "postgres";
		/* -n: no vacuum and no truncation of pgbench_history before the
		 * run, so the measured run starts where the warmup left off */
		a[n++] = "-n";
		a[n++] = "-c";
		a[n++] = cl;
		a[n++] = "-j";
		a[n++] = cl;
		a[n++] = "-T";
		a[n++] = measured ? ds : ws;
		if (!strcmp(mode, "select"))
			a[n++] = "-S";
		if (measured) {
			a[n++] = "-l";
			a[n++] = pg.tlog;
		}
		a[n++] = "postgres";
		a[n] = NULL;
		if (tool(c, &pg, measured ? "pgbench" : "pgbench (warmup)", a,
			 (unsigned)((measured ? dur : warm) + 120) * 1000, &out) < 0)
			goto out;
	}
	tps = field(out.s, "tps = ", "without initial connection time");
	lat_mean = field(out.s, "latency average = ", NULL);
	if (!isfinite(tps) || !isfinite(lat_mean)) {
		wl_fail(c, "pgbench printed no tps (without initial connection time) or latency average: %.120s",
			out.s ? out.s : "");
		goto out;
	}
	jw_num(&c->details, "transactions", field(out.s, "number of transactions actually processed: ", NULL));
	jw_num(&c->details, "failed_transactions", field(out.s, "number of failed transactions: ", NULL));
	if (latencies(c, &pg, &p50, &p99, &samples) < 0)
		goto out;
	jw_int(&c->details, "latency_samples", (long long)samples);
	jw_str(&c->details, "mode", mode);
	wl_metric(c, "tps", tps, "tx/s", "higher");
	wl_metric(c, "latency_mean_ms", lat_mean, "ms", "lower");
	wl_metric(c, "latency_p50_ms", p50, "ms", "lower");
	wl_metric(c, "latency_p99_ms", p99, "ms", "lower");
	wl_metric(c, "init_s", init_s, "s", "lower");
	rc = 0;
out:
	stop_server(&pg);
	/* as root: the user's processes are gone, nothing can move these now */
	if (pg.made_data)
		sweep_one(pg.data, uid);
	if (pg.made_sock)
		remove_tree(pg.sock);
	sb_free(&out);
	return rc;
}

const struct workload wl_pgbench = {
	.name = "pgbench",
	.summary = "PostgreSQL's pgbench (TPC-B-like or select-only) against a server started on the layout",
	.params = pgbench_params,
	.needs = WL_NEEDS_DIR,
	.run = pgbench_run,
};
