/*
 * pgimport.c - the seed's measurement: `time psql < schema.sql` then
 * `time psql < data.sql` against a PostgreSQL server started on the layout
 * for the run (pg.c). The text is dbload's (sqlgen.c: the same seed gives
 * the same statements that dbload feeds SQLite): a small shop schema with
 * primary keys and secondary indexes, then INSERTs in transactions of
 * `txn` statements (0: each in autocommit, as a plain data.sql).
 *
 * The two files are written first into the run's private directory in
 * /tmp (RAM in the appliance: reading them costs the layout nothing),
 * then fed to the real client, psql, on its stdin over the Unix socket.
 * Per step: real, user and sys of psql (its rusage, as `time` prints
 * them), and the server's CPU beside it (the postmaster, its backends
 * and background writers, measured once the step's backend has ended and
 * been reaped). Then the row counts and the indexes are read back with
 * psql and must be what was generated.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include "pg.h"
#include "sqlgen.h"
#include "workload.h"
#include "xio.h"

#define SQL_BYTES_PER_ROW 160	/* of data.sql per order line, with its share of the rest: a bound */

static const struct wparam pgimport_params[] = {
	{ "rows", "20000", "order lines to import (customers rows/20+1, items rows/50+10, orders ~rows/4)" },
	{ "txn", "1000", "INSERT statements per transaction (0: each its own, as plain psql < data.sql)" },
	{ "seed", "1", "seed of the data generator (same seed, same SQL text as dbload's)" },
	PG_SERVER_PARAMS,
	{ NULL, NULL, NULL },
};

/* Write the schema and the data text; the generator's counts into g. */
static int write_sql(struct wctx *c, const struct pg *pg, char *schema, char *data, size_t len, unsigned long long seed,
		     long long rows, long long txn, struct sqlgen *g, long long *bytes)
{
	struct sbuf sb = { 0 };
	int fd, rc = -1;
	*bytes = 0;
	sqlgen_header(&sb, seed, rows);
	sqlgen_schema(&sb);
	if ((fd = pg_new_file(c, pg, "schema.sql", schema, len)) < 0)
		goto out;
	{
		int w = write_all(fd, sb.s, sb.len) < 0 ? errno : 0;
		if (close(fd) < 0 && !w)
			w = errno;
		if (w) {
			wl_fail(c, "unable to write %s: %s", schema, strerror(w));
			goto out;
		}
	}
	jw_int(&c->details, "schema_bytes", (long long)sb.len);
	if ((fd = pg_new_file(c, pg, "data.sql", data, len)) < 0)
		goto out;
	sqlgen_init(g, seed, rows);
	while (sqlgen_chunk(g, txn, &sb)) {
		if (write_all(fd, sb.s, sb.len) < 0) {
			wl_fail(c, "unable to write %s (%lld bytes in): %s", data, *bytes, strerror(errno));
			close(fd);
			goto out;
		}
		*bytes += (long long)sb.len;
	}
	if (close(fd) < 0) {
		wl_fail(c, "unable to write %s: %s", data, strerror(errno));
		goto out;
	}
	rc = 0;
out:
	sb_free(&sb);
	return rc;
}

static double tv_s(struct timeval tv)
{
	return (double)tv.tv_sec + tv.tv_usec / 1e6;
}

/* One `time psql < file` step: its figures, named step_*. */
static int import_step(struct wctx *c, struct pg *pg, const char *step, const char *path)
{
	char *a[] = { pg->bin[PG_PSQL], "-X", "-q", "-v", "ON_ERROR_STOP=1", "-h", pg->sock, "-U", "postgres",
		      "postgres", NULL };
	struct run_result res;
	struct sbuf out = { 0 };
	double u0, s0, u1, s1;
	char name[48];
	int fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC), rc;
	if (fd < 0)
		return wl_fail(c, "unable to open %s: %s", path, strerror(errno));
	if (pg_server_cpu(pg, &u0, &s0) < 0) {
		close(fd);
		return wl_fail(c, "the server's CPU times are unreadable (it ended?)");
	}
	/* no deadline but the plan's: the import grows with rows */
	rc = pg_tool(c, pg, step, a, fd, 0, &out, &res);
	close(fd);
	sb_free(&out);
	if (rc < 0)
		return -1;
	/* the step's backend ends as psql does; its CPU reaches the
	 * postmaster's children's times once it is reaped */
	pg_backends_gone(pg, 5000);
	if (pg_server_cpu(pg, &u1, &s1) < 0)
		return wl_fail(c, "the server's CPU times are unreadable after %s (it ended?)", step);
	snprintf(name, sizeof name, "%s_real_s", step);
	wl_metric(c, name, res.wall_s, "s", "lower");
	snprintf(name, sizeof name, "%s_user_s", step);
	wl_metric(c, name, tv_s(res.ru.ru_utime), "s", "lower");
	snprintf(name, sizeof name, "%s_sys_s", step);
	wl_metric(c, name, tv_s(res.ru.ru_stime), "s", "lower");
	snprintf(name, sizeof name, "%s_server_user_s", step);
	wl_metric(c, name, u1 - u0, "s", "lower");
	snprintf(name, sizeof name, "%s_server_sys_s", step);
	wl_metric(c, name, s1 - s0, "s", "lower");
	return 0;
}

/* The indexes the schema makes: its primary keys, unique columns and
 * CREATE INDEX statements. */
static long long schema_indexes(void)
{
	struct sbuf sb = { 0 };
	long long n = 0;
	sqlgen_schema(&sb);
	for (const char *const *k = (const char *const[]){ "PRIMARY KEY", "UNIQUE", "CREATE INDEX", NULL }; *k; k++)
		for (const char *p = sb.s; (p = strstr(p, *k)); p += strlen(*k))
			n++;
	sb_free(&sb);
	return n;
}

/* Row counts and indexes read back; each must be what was made. */
static int read_back(struct wctx *c, struct pg *pg, const struct sqlgen *g)
{
	struct sbuf q = { 0 }, out = { 0 };
	long long got[SG_NTABLES], nidx = -1;
	int rc = -1, n;
	sb_puts(&q, "select ");
	for (int t = 0; t < SG_NTABLES; t++)
		sb_printf(&q, "(select count(*) from %s)||' '||", sqlgen_tables[t]);
	sb_puts(&q, "(select count(*) from pg_indexes where schemaname = 'public')");
	if (pg_sql(c, pg, q.s, 600000, &out) < 0)
		goto out;
	n = sscanf(out.s ? out.s : "", "%lld %lld %lld %lld %lld", &got[0], &got[1], &got[2], &got[3], &nidx);
	if (n != SG_NTABLES + 1) {
		wl_fail(c, "psql's counts are unreadable: %.80s", out.s ? out.s : "");
		goto out;
	}
	jw_obj(&c->details, "rows");
	for (int t = 0; t < SG_NTABLES; t++)
		jw_int(&c->details, sqlgen_tables[t], got[t]);
	jw_obj_end(&c->details);
	jw_int(&c->details, "indexes", nidx);
	for (int t = 0; t < SG_NTABLES; t++)
		if (got[t] != g->counts[t]) {
			wl_fail(c, "%s holds %lld rows after the import, %lld were sent", sqlgen_tables[t], got[t],
				g->counts[t]);
			goto out;
		}
	if (nidx != schema_indexes()) {
		wl_fail(c, "%lld indexes after the import, the schema makes %lld", nidx, schema_indexes());
		goto out;
	}
	rc = 0;
out:
	sb_free(&q);
	sb_free(&out);
	return rc;
}

static int pgimport_run(struct wctx *c)
{
	long long rows = wl_param_int(c, "rows"), txn = wl_param_int(c, "txn"), seed = wl_param_int(c, "seed");
	char schema[128], data[128];
	long long bytes = 0;
	struct statvfs vfs;
	struct sqlgen g;
	struct pg pg;
	int rc = -1;

	if (rows < 0 || txn < 0 || seed < 0)
		return -1;
	if (rows < 1 || rows > 100000000)
		return wl_fail(c, "rows=%lld: expected 1..100000000", rows);
	/* a transaction's text is built whole before it is written */
	if (txn > 100000)
		return wl_fail(c, "txn=%lld: expected 0..100000", txn);
	if (pg_open(c, &pg, 1) < 0)
		goto out;
	/* the text goes to /tmp, RAM in the appliance: say so before it fills */
	if (statvfs(pg.tmp, &vfs) == 0 &&
	    (double)rows * SQL_BYTES_PER_ROW > (double)vfs.f_bavail * (double)vfs.f_frsize) {
		wl_fail(c, "rows=%lld: about %.0f MB of SQL text, /tmp has %.0f MB free", rows,
			(double)rows * SQL_BYTES_PER_ROW / 1e6, (double)vfs.f_bavail * (double)vfs.f_frsize / 1e6);
		goto out;
	}
	if (write_sql(c, &pg, schema, data, sizeof schema, (unsigned long long)seed, rows, txn, &g, &bytes) < 0)
		goto out;
	jw_int(&c->details, "data_bytes", bytes);
	if (import_step(c, &pg, "schema", schema) < 0 || import_step(c, &pg, "data", data) < 0)
		goto out;
	/* the files are the run's own: gone before the read-back */
	unlink(schema);
	unlink(data);
	if (read_back(c, &pg, &g) < 0)
		goto out;
	rc = 0;
out:
	pg_close(&pg);
	return rc;
}

const struct workload wl_pgimport = {
	.name = "pgimport",
	.summary = "time psql < schema.sql; time psql < data.sql against a PostgreSQL server on the layout",
	.params = pgimport_params,
	.needs = WL_NEEDS_DIR,
	.layer = "postgresql",
	.layer_param = "bindir",
	.run = pgimport_run,
};
