/*
 * pg.h - not a workload: the PostgreSQL server the PostgreSQL workloads
 * (pgbench, pgimport, dbt2) each start on the layout for a run, and the
 * way they run PostgreSQL's programs against it (docs/postgresql.md).
 *
 * In the appliance the programs come from the PostgreSQL layer
 * (rootfs/recipes/postgresql-15.sh; a boot carries it with boot-qemu
 * --layer postgresql); on a host, bindir= points at any PostgreSQL 15
 * (Debian's /usr/lib/postgresql/15/bin). PostgreSQL refuses to run as
 * root: every PostgreSQL program runs through `bootbench runas USER`
 * (cmd/runas.c: that user, a clean environment, SIGKILL when the workload
 * dies), while the workload itself stays root and owns the directory it
 * works in, so that nothing the user runs can point root's chown or
 * removal elsewhere, and so that it can clean up after a killed run.
 */
#ifndef BB_PG_H
#define BB_PG_H

#include <stdint.h>
#include <sys/resource.h>
#include <sys/types.h>

#include "spawn.h"
#include "workload.h"

#define PG_LAYER_BIN "/opt/postgresql/bin"
#define PG_LAYER "postgresql"	/* its build line: LAYERS_DIR/postgresql */

/* The parameters every PostgreSQL workload takes: where the programs are,
 * the user, and the server settings (passed with -c, read back). */
#define PG_SERVER_PARAMS \
	{ "bindir", PG_LAYER_BIN, "where postgres, initdb, psql and pgbench are (the layer's, or a host's)" }, \
	{ "user", "postgres", "the user the server and its clients run as (PostgreSQL refuses root)" }, \
	{ "shared_buffers", "32MB", "server setting" }, \
	{ "synchronous_commit", "on", "server setting" }, \
	{ "wal_sync_method", "fdatasync", "server setting" }, \
	{ "checkpoint_timeout", "300", "server setting, seconds" }, \
	{ "max_wal_size", "1GB", "server setting" }, \
	{ "max_connections", "20", "server setting" }

enum { PG_POSTGRES, PG_INITDB, PG_PSQL, PG_PGBENCH, PG_NBIN };

struct pg {
	const char *user;
	uid_t uid;
	gid_t gid;
	char bin[PG_NBIN][4200];
	/* On the layout: top = postgresql/ and the run's own run = top/run.X
	 * (both root's, 0755), data = run/data (the user's: initdb's). In
	 * /tmp (RAM in the appliance, not the layout under test): tmp =
	 * /tmp/bootbench-pg.X (root's, 0755: the server's log and the
	 * workload's own files, which the user cannot swap), and sock = tmp/s
	 * (the user's: the socket, a path of at most 107 bytes, and pgbench's
	 * transaction logs). */
	char top[4200], run[4300], data[4320], tmp[64], sock[80], log[96];
	pid_t server;
	int started;		/* the server was up: its log may say why a tool failed */
	int made_run, made_tmp;	/* what pg_close removes */
};

/* Check bindir, user and the settings (room for `clients` connections),
 * sweep what killed runs left, initdb, start the server and wait until it
 * takes connections; record the settings in force (details.settings) and
 * which PostgreSQL build ran (details.software: the layer's build line,
 * or `postgres --version` and bindir on a host). 0, or -1 with the reason
 * (PostgreSQL's own error line when it gave one). pg_close always. */
int pg_open(struct wctx *c, struct pg *pg, long long clients);
/* Stop the server (immediate shutdown: the data is thrown away), kill
 * whatever of the user's still works in the run's directory, and remove
 * the run's directories (by descriptor, never following a link). */
void pg_close(struct pg *pg);

/* A new file of the workload's in tmp (root's; never through a link):
 * its descriptor, or -1 with the reason. */
int pg_new_file(struct wctx *c, const struct pg *pg, const char *name, char *path, size_t len);

/* Run one of PostgreSQL's programs as the user (args[0] a full path),
 * stdin from in_fd (-1: /dev/null), output into out: 0, or -1 with the
 * program's own error line, and the server's when it was up. res (may be
 * NULL) gets the wait status, the wall time and the program's rusage. */
int pg_tool(struct wctx *c, struct pg *pg, const char *name, char **args, int in_fd, unsigned timeout_ms,
	    struct sbuf *out, struct run_result *res);
/* psql -At -c SQL against the server's postgres database. */
int pg_sql(struct wctx *c, struct pg *pg, const char *sql, unsigned timeout_ms, struct sbuf *out);

/* The CPU the server has used so far, in seconds: the postmaster, the
 * processes it has reaped (backends that ended) and those alive. */
int pg_server_cpu(const struct pg *pg, double *user_s, double *sys_s);
/* Wait (up to ms) until the server has no client backend left (a client
 * that ended: its backend ends and is reaped just after). */
void pg_backends_gone(const struct pg *pg, unsigned ms);

/* ---- pgbench as the driver (pgbench, dbt2) ---- */
#define PG_MAX_SCRIPTS 8
#define PG_LOG_LINES_MAX 10000000	/* ~480 MB of log in /tmp, 80 MB of latencies */

/* The parameters of a pgbench-driven run; clients' default as text. */
#define PG_DRIVER_PARAMS(clients) \
	{ "clients", clients, "connections (pgbench -c; one thread each)" }, \
	{ "duration", "10", "seconds measured" }, \
	{ "warmup", "2", "seconds run before, not measured" }, \
	{ "log_lines", "1000000", "transaction log lines kept (about 48 bytes each, in /tmp): past it, a sample" }

struct pg_driver {
	long long clients, lines;
	unsigned long long dur, warm;
};
/* PG_DRIVER_PARAMS checked: 0, or -1 with the reason. */
int pg_driver_params(struct wctx *c, struct pg_driver *d);

/* pgbench against the server: a warmup of d->warm seconds (none at 0),
 * then d->dur seconds measured with its per-transaction log in the run's
 * /tmp directory, sampled (--sampling-rate, into *share) so that it holds
 * about d->lines at the warmup's rate (up to twice that are kept). -c and
 * -j are d->clients; args: what else pgbench takes (-S, -f ...,
 * NULL-ended). out: the measured run's report. */
int pg_pgbench(struct wctx *c, struct pg *pg, char **args, const struct pg_driver *d, struct sbuf *out, double *share);
/* The number after key at the start of a line of pgbench's report; with
 * also, only on a line that holds it too. NAN when there is none. */
double pg_field(const char *text, const char *key, const char *also);

/* Latencies of one script, in us, sorted. */
struct pg_lat {
	uint32_t *v;
	size_t n;
};
/* The measured run's log ("client txno latency_us script epoch us",
 * latency "failed" or "skipped" for those): latencies per script number
 * into lat[0..nscripts-1], sorted: all of them, or past max a uniform
 * sample of max (a reservoir, with a fixed seed; a warning says so);
 * failed and skipped into details.log_failed_or_skipped. 0, or -1 when
 * nothing was logged. */
int pg_latency_log(struct wctx *c, const struct pg *pg, size_t max, struct pg_lat *lat, int nscripts);
/* The pct-th percentile (nearest rank, as oltp and http take theirs) in
 * ms; NAN with no sample. */
double pg_rank(const struct pg_lat *l, unsigned pct);
void pg_lat_free(struct pg_lat *lat, int n);

#endif
