/*
 * pgbench.c - PostgreSQL's own pgbench against a PostgreSQL server started
 * on the layer for the run: TPC-B-like (pgbench's built-in script) or
 * select-only, `clients` connections over the Unix socket, `duration`
 * seconds after a `warmup`, as kernel regression suites run it (mmtests'
 * db-pgbench, Phoronix's pgbench profile).
 *
 * In the appliance the server and pgbench come from the PostgreSQL layer
 * (rootfs/recipes/postgresql-15.sh; a boot carries it with boot-qemu
 * --layer postgresql); on a host, bindir= points at any PostgreSQL 15
 * (Debian's /usr/lib/postgresql/15/bin). PostgreSQL refuses to run as
 * root: the workload makes its directories, hands them to `user` (default
 * postgres, which the userland's /etc/passwd has) and drops to that user
 * before it starts anything; it is a child of its own already.
 *
 * Per run: initdb in a new directory on the layer (the server's settings
 * are plan parameters, passed with -c and read back from pg_settings into
 * details.settings), the server started and waited for (its postmaster.pid
 * says "ready"), pgbench -i at `scale` (timed: init_s), the warmup run, the
 * measured run with a per-transaction log; then a fast shutdown. Figures:
 * tps (pgbench's, without connection time), the latency mean, p50 and p99
 * from the transaction log, init_s. A server that does not start fails the
 * run with the last lines of its own log (PostgreSQL's message: too little
 * shared memory, a bad setting).
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <ftw.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <math.h>
#include <pwd.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
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
#define PG_STOP_MS 60000	/* a fast shutdown, then SIGKILL */
#define PG_MAX_SAMPLES (4u << 20)	/* transaction latencies kept for the percentiles */

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

struct pg {
	char bin[4][4200];	/* postgres initdb psql pgbench */
	char data[4200], sock[128], log[4200], tlog[4200];
	pid_t server;
	uid_t uid;
	gid_t gid;
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

/* The last lines of the server's log: what it said before it went. */
static void log_tail(const char *path, char *out, size_t len)
{
	size_t n;
	char *t = read_file(path, &n), *p;
	out[0] = 0;
	if (!t)
		return;
	while (n && (t[n - 1] == '\n' || t[n - 1] == ' '))
		t[--n] = 0;
	p = t + n;
	for (int lines = 0; p > t && lines < 2; p--)
		if (p[-1] == '\n' && ++lines == 2)
			break;
	snprintf(out, len, "%s", p);
	for (char *q = out; *q; q++)
		if (*q == '\n')
			*q = ' ';
	free(t);
}

static int tool(struct wctx *c, const char *name, char *const argv[], unsigned timeout_ms, struct sbuf *out)
{
	struct run_result res;
	sb_free(out);
	if (run_capture_here(argv, out, timeout_ms, &res) < 0)
		return wl_fail(c, "unable to run %s: %s", argv[0], strerror(errno));
	if (res.timed_out)
		return wl_fail(c, "%s did not finish in %u s", name, timeout_ms / 1000);
	return wl_tool_failed(c, name, &res, out, "FATAL");
}

/* postmaster.pid's eighth line is the server's state: "ready" once it
 * takes connections */
static int server_ready(const struct pg *pg)
{
	char path[4300], *t;
	int ready = 0;
	snprintf(path, sizeof path, "%s/postmaster.pid", pg->data);
	if ((t = read_file(path, NULL))) {
		char *l = t;
		for (int i = 0; i < 7 && l; i++)
			if ((l = strchr(l, '\n')))
				l++;
		ready = l && !strncmp(l, "ready", 5);
		free(t);
	}
	return ready;
}

static int start_server(struct wctx *c, struct pg *pg)
{
	char *argv[8 + 2 * NSETTINGS + 4], sets[NSETTINGS][160], why[300];
	int n = 0, fd, st;
	double until;
	argv[n++] = pg->bin[0];
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
	fd = open(pg->log, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0)
		return wl_fail(c, "unable to open %s: %s", pg->log, strerror(errno));
	pg->server = spawn_here(argv, fd);
	close(fd);
	if (pg->server < 0)
		return wl_fail(c, "unable to start %s: %s", pg->bin[0], strerror(errno));
	until = mono_now() + PG_START_S;
	while (!server_ready(pg)) {
		if (child_exited(pg->server, &st) != 0) {
			pg->server = -1;
			log_tail(pg->log, why, sizeof why);
			return wl_fail(c, "the server did not start: %s", why[0] ? why : "(no log)");
		}
		if (mono_now() > until) {
			log_tail(pg->log, why, sizeof why);
			return wl_fail(c, "the server was not ready in %d s: %s", PG_START_S, why);
		}
		usleep(50000);
	}
	return 0;
}

static void stop_server(struct pg *pg)
{
	int st;
	double until = mono_now() + PG_STOP_MS / 1000.0;
	if (pg->server <= 0)
		return;
	kill(pg->server, SIGINT);	/* fast shutdown: a checkpoint, then exit */
	while (child_exited(pg->server, &st) == 0 && mono_now() < until)
		usleep(50000);
	if (child_exited(pg->server, &st) == 0)
		stop_child(pg->server, 1000, &st);
	pg->server = -1;
}

static int rm_one(const char *path, const struct stat *st, int flag, struct FTW *f)
{
	(void)st;
	(void)f;
	if ((flag == FTW_DP ? rmdir(path) : unlink(path)) < 0 && errno != ENOENT)
		warn_sys("unable to remove %s", path);
	return 0;
}

/* The run's data directory, socket and logs: a later run on the layer
 * starts from nothing, and nothing of this one is left on it. */
static void remove_tree(const char *dir)
{
	nftw(dir, rm_one, 16, FTW_DEPTH | FTW_PHYS);
}

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	return x < y ? -1 : x > y;
}

/* The per-transaction logs (pgbench -l: "client txno latency_us script
 * epoch us" a line): latency percentiles. */
static int latencies(struct wctx *c, const char *dir, const char *prefix, double *p50, double *p99, size_t *n)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	uint32_t *v = NULL;
	size_t cap = 0, dropped = 0;
	*n = 0;
	if (!d)
		return wl_fail(c, "unable to read %s: %s", dir, strerror(errno));
	while ((e = readdir(d))) {
		char path[4400];
		FILE *f;
		unsigned long client, tx, lat;
		if (strncmp(e->d_name, prefix, strlen(prefix)))
			continue;
		snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
		if (!(f = fopen(path, "r")))
			continue;
		while (fscanf(f, "%lu %lu %lu %*[^\n]", &client, &tx, &lat) == 3) {
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
		unlink(path);
	}
	closedir(d);
	if (dropped)
		wl_warn(c, "%zu transaction latencies past the first %u were not kept for the percentiles", dropped,
			PG_MAX_SAMPLES);
	if (!*n) {
		free(v);
		return wl_fail(c, "pgbench's transaction log is empty");
	}
	qsort(v, *n, sizeof *v, cmp_u32);
	*p50 = v[(size_t)((*n - 1) * 0.50)] / 1000.0;
	*p99 = v[(size_t)((*n - 1) * 0.99)] / 1000.0;
	free(v);
	return 0;
}

/* "tps = 123.4 (without initial connection time)" and friends */
static double field(const char *text, const char *key)
{
	const char *p = strstr(text, key);
	char *end;
	double v;
	if (!p)
		return NAN;
	errno = 0;
	v = strtod(p + strlen(key), &end);
	return errno || end == p + strlen(key) ? NAN : v;
}

static int pgbench_run(struct wctx *c)
{
	static const char *const names[] = { "postgres", "initdb", "psql", "pgbench" };
	struct pg pg = { .server = -1 };
	struct passwd *pw;
	struct sbuf out = { 0 };
	const char *bindir = wl_param(c, "bindir"), *mode = wl_param(c, "mode"), *user = wl_param(c, "user");
	long long scale = wl_param_int(c, "scale"), clients = wl_param_int(c, "clients");
	unsigned long long dur, warm;
	char sc[24], cl[24], ds[24], ws[24], prefix[64];
	double t0, init_s, tps, lat_mean, p50 = NAN, p99 = NAN;
	size_t samples = 0;
	int rc = -1;

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
	for (size_t i = 0; i < 4; i++) {
		if (snprintf(pg.bin[i], sizeof pg.bin[i], "%s/%s", bindir, names[i]) >= (int)sizeof pg.bin[i])
			return wl_fail(c, "bindir: path too long");
		if (access(pg.bin[i], X_OK) != 0)
			return wl_fail(c, "unable to execute %s (%s)%s", pg.bin[i], strerror(errno),
				       !strcmp(bindir, PG_LAYER_BIN) ? ": this boot has no PostgreSQL layer "
				       "(scripts/boot-qemu --layer postgresql)" : "");
	}
	if (!(pw = getpwnam(user)) || pw->pw_uid == 0)
		return wl_fail(c, "user=%s: %s", user, pw ? "PostgreSQL refuses to run as root" : "no such user");
	pg.uid = pw->pw_uid;
	pg.gid = pw->pw_gid;
	/* the data directory on the layer, in a directory of the user's (so
	 * that, as the user, the run can remove it again: only an empty
	 * pgbench/ stays), the socket and logs in a short private directory (a
	 * socket path has 107 bytes) */
	{
		char top[4200];
		if (snprintf(top, sizeof top, "%s/pgbench", c->dir) >= (int)sizeof top ||
		    snprintf(pg.data, sizeof pg.data, "%s/data.%d", top, (int)getpid()) >= (int)sizeof pg.data ||
		    snprintf(pg.sock, sizeof pg.sock, "/tmp/bootbench-pg.%d", (int)getpid()) >= (int)sizeof pg.sock)
			return wl_fail(c, "the layout's path is too long");
		snprintf(pg.log, sizeof pg.log, "%s/server.log", pg.sock);
		if ((mkdir(top, 0755) < 0 && errno != EEXIST) || chown(top, pg.uid, pg.gid) < 0 ||
		    mkdir(pg.data, 0700) < 0 || mkdir(pg.sock, 0700) < 0 || chown(pg.data, pg.uid, pg.gid) < 0 ||
		    chown(pg.sock, pg.uid, pg.gid) < 0)
			return wl_fail(c, "unable to make %s and %s for %s: %s", pg.data, pg.sock, user, strerror(errno));
	}
	/* from here on, the user: initdb and the server refuse root */
	if (setgroups(0, NULL) < 0 || setgid(pg.gid) < 0 || setuid(pg.uid) < 0)
		return wl_fail(c, "unable to become %s: %s", user, strerror(errno));
	snprintf(sc, sizeof sc, "%lld", scale);
	snprintf(cl, sizeof cl, "%lld", clients);
	snprintf(ds, sizeof ds, "%llu", dur);
	snprintf(ws, sizeof ws, "%llu", warm);
	snprintf(prefix, sizeof prefix, "pgb");
	snprintf(pg.tlog, sizeof pg.tlog, "%s/%s", pg.sock, prefix);
	{
		char *a[] = { pg.bin[1], "-D", pg.data, "-U", "postgres", "-A", "trust", "-E", "UTF8", "--locale=C", "--no-sync",
			      NULL };
		if (tool(c, "initdb", a, 300000, &out) < 0)
			goto out;
	}
	if (start_server(c, &pg) < 0)
		goto out;
	{
		/* what is in force, beside what was asked */
		char *a[] = { pg.bin[2], "-h", pg.sock, "-U", "postgres", "-At", "-c",
			      "select name || '=' || current_setting(name) from pg_settings where name in "
			      "('shared_buffers','synchronous_commit','wal_sync_method','checkpoint_timeout','max_wal_size',"
			      "'max_connections','server_version') order by name",
			      "postgres", NULL };
		if (tool(c, "psql", a, 60000, &out) < 0)
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
		char *a[] = { pg.bin[3], "-h", pg.sock, "-U", "postgres", "-i", "-q", "-s", sc, "postgres", NULL };
		if (tool(c, "pgbench -i", a, 3600000, &out) < 0)
			goto out;
	}
	init_s = mono_now() - t0;
	for (int measured = warm ? 0 : 1; measured < 2; measured++) {
		/* the warmup, then the measured run with its transaction log */
		char lp[4300], *a[20];
		int n = 0;
		a[n++] = pg.bin[3];
		a[n++] = "-h";
		a[n++] = pg.sock;
		a[n++] = "-U";
		a[n++] = "postgres";
		a[n++] = "-n";	/* no vacuum between runs: the warmup ran them in */
		a[n++] = "-c";
		a[n++] = cl;
		a[n++] = "-j";
		a[n++] = cl;
		a[n++] = "-T";
		a[n++] = measured ? ds : ws;
		if (!strcmp(mode, "select"))
			a[n++] = "-S";
		if (measured) {
			snprintf(lp, sizeof lp, "--log-prefix=%s", pg.tlog);
			a[n++] = "-l";
			a[n++] = lp;
		}
		a[n++] = "postgres";
		a[n] = NULL;
		if (tool(c, measured ? "pgbench" : "pgbench (warmup)", a,
			 (unsigned)((measured ? dur : warm) + 120) * 1000, &out) < 0)
			goto out;
	}
	tps = field(out.s, "tps = ");
	lat_mean = field(out.s, "latency average = ");
	if (!isfinite(tps) || !isfinite(lat_mean)) {
		wl_fail(c, "pgbench printed no tps or latency average: %.120s", out.s ? out.s : "");
		goto out;
	}
	jw_num(&c->details, "transactions", field(out.s, "number of transactions actually processed: "));
	jw_num(&c->details, "failed_transactions", field(out.s, "number of failed transactions: "));
	if (latencies(c, pg.sock, prefix, &p50, &p99, &samples) < 0)
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
	if (pg.uid) {
		remove_tree(pg.data);
		remove_tree(pg.sock);
	}
	sb_free(&out);
	return rc;
}

const struct workload wl_pgbench = {
	.name = "pgbench",
	.summary = "PostgreSQL's pgbench (TPC-B-like or select-only) against a server started on the layer",
	.params = pgbench_params,
	.needs = WL_NEEDS_DIR,
	.run = pgbench_run,
};
