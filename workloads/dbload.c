/*
 * dbload.c - `psql < schema.sql; psql < data.sql`, timed, with SQLite linked
 * in: creates a small shop schema (sqlgen.c), then imports a generated,
 * seeded data set as SQL *text* (INSERT statements executed as text, not bound
 * parameters), in transactions of `txn` statements. What the kernel sees is a
 * database's import: small writes, journal files, fsyncs at each commit.
 *
 * emit_sql=PATH writes the very same text (schema, then data) to PATH and
 * does nothing else, so the identical import can be fed to Debian's sqlite3
 * or to psql by hand (docs/database.md).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "sqlgen.h"
#include "sqlite3.h"
#include "spawn.h"
#include "workload.h"
#include "xio.h"

static void cpu(double *user, double *sys)
{
	struct rusage ru;
	getrusage(RUSAGE_SELF, &ru);
	*user = ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6;
	*sys = ru.ru_stime.tv_sec + ru.ru_stime.tv_usec / 1e6;
}

static int emit(struct wctx *c, const char *path, unsigned long long seed, long long rows, long long txn)
{
	struct sqlgen g;
	struct sbuf sb = {0};
	long long bytes = 0;
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0)
		return wl_fail(c, "unable to create %s: %s", path, strerror(errno));
	sqlgen_header(&sb, seed, rows);
	sqlgen_schema(&sb);
	sb_puts(&sb, "-- data\n");
	sqlgen_init(&g, seed, rows);
	do {
		if (write_all(fd, sb.s, sb.len) < 0) {
			int e = errno;
			close(fd);
			sb_free(&sb);
			return wl_fail(c, "unable to write %s: %s", path, strerror(e));
		}
		bytes += sb.len;
	} while (sqlgen_chunk(&g, txn, &sb));
	sb_free(&sb);
	if (close(fd) < 0)
		return wl_fail(c, "unable to write %s: %s", path, strerror(errno));
	jw_str(&c->details, "emit_sql", path);
	jw_int(&c->details, "sql_bytes", bytes);
	return 0;
}

static int exec(struct wctx *c, sqlite3 *db, const char *sql, const char *what)
{
	char *msg = NULL;
	if (sqlite3_exec(db, sql, NULL, NULL, &msg) != SQLITE_OK) {
		wl_fail(c, "%s failed: %s", what, msg ? msg : sqlite3_errmsg(db));
		sqlite3_free(msg);
		return -1;
	}
	return 0;
}

static long long count(sqlite3 *db, const char *table)
{
	char sql[96];
	sqlite3_stmt *st;
	long long n = -1;
	snprintf(sql, sizeof sql, "SELECT count(*) FROM %s", table);
	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK)
		return -1;
	if (sqlite3_step(st) == SQLITE_ROW)
		n = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	return n;
}

static void remove_db(const char *path)
{
	static const char *const sfx[] = { "", "-journal", "-wal", "-shm" };
	char p[4200];
	for (size_t i = 0; i < sizeof sfx / sizeof sfx[0]; i++) {
		snprintf(p, sizeof p, "%s%s", path, sfx[i]);
		unlink(p);
	}
}

static int dbload_run(struct wctx *c)
{
	long long rows = wl_param_int(c, "rows"), txn = wl_param_int(c, "txn");
	long long seed = wl_param_int(c, "seed"), page_size = wl_param_int(c, "page_size");
	long long cache_kib = wl_param_int(c, "cache_kib"), keep = wl_param_int(c, "keep");
	const char *journal = wl_param(c, "journal"), *sync = wl_param(c, "sync");
	const char *emit_path = wl_param(c, "emit_sql");
	struct sbuf sb = {0}, pragmas = {0};
	char path[4096], err[160], *msg = NULL;
	double t0, t1, t2, u0, s0, u1, s1, gen = 0;
	struct sqlgen g;
	sqlite3 *db = NULL;
	int rc = -1;

	if (rows < 0 || txn < 0 || seed < 0 || page_size < 0 || cache_kib < 0 || keep < 0)
		return -1;
	if (rows < 1)
		return wl_fail(c, "parameter rows must be at least 1");
	if (emit_path && *emit_path)
		return emit(c, emit_path, seed, rows, txn);
	if (sqlgen_pragmas(&pragmas, page_size, journal, sync, cache_kib, err, sizeof err) < 0)
		return wl_fail(c, "%s", err);

	snprintf(path, sizeof path, "%s/bootbench-dbload.db", c->dir);
	remove_db(path);
	if (sqlite3_open_v2(path, &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, NULL) != SQLITE_OK) {
		wl_fail(c, "unable to open %s: %s", path, db ? sqlite3_errmsg(db) : "out of memory");
		goto out;
	}
	if (exec(c, db, pragmas.s, "setting the pragmas") < 0)
		goto out;

	/* the schema: each CREATE in its own (autocommit) transaction, as psql */
	t0 = mono_now();
	sqlgen_schema(&sb);
	if (exec(c, db, sb.s, "creating the schema") < 0)
		goto out;
	t1 = mono_now();

	/* the import: text generated one transaction at a time, then executed */
	sqlgen_init(&g, seed, rows);
	cpu(&u0, &s0);
	for (;;) {
		double a = mono_now();
		if (!sqlgen_chunk(&g, txn, &sb))
			break;
		gen += mono_now() - a;
		if (sqlite3_exec(db, sb.s, NULL, NULL, &msg) != SQLITE_OK) {
			wl_fail(c, "importing failed: %s", msg ? msg : sqlite3_errmsg(db));
			goto out;
		}
	}
	t2 = mono_now();
	cpu(&u1, &s1);

	wl_metric(c, "schema_s", t1 - t0, "s", "lower");
	wl_metric(c, "import_s", t2 - t1, "s", "lower");
	wl_metric(c, "import_user_s", u1 - u0, "s", "lower");
	wl_metric(c, "import_sys_s", s1 - s0, "s", "lower");
	wl_metric(c, "rows_per_s", (double)rows / (t2 - t1), "rows/s", "higher");

	/* what landed: row counts against what was generated, and a quick check */
	jw_str(&c->details, "engine", "sqlite " SQLITE_VERSION);
	jw_str(&c->details, "pragmas", pragmas.s);
	jw_num(&c->details, "generate_s", gen);
	jw_obj(&c->details, "rows");
	for (int i = 0; i < SG_NTABLES; i++) {
		long long n = count(db, sqlgen_tables[i]);
		jw_int(&c->details, sqlgen_tables[i], n);
		if (n != g.counts[i])
			wl_fail(c, "table %s has %lld rows, %lld were inserted", sqlgen_tables[i], n, g.counts[i]);
	}
	jw_obj_end(&c->details);
	{
		sqlite3_stmt *st;
		const char *res = "unknown";
		if (sqlite3_prepare_v2(db, "PRAGMA quick_check", -1, &st, NULL) == SQLITE_OK) {
			if (sqlite3_step(st) == SQLITE_ROW)
				res = (const char *)sqlite3_column_text(st, 0);
			jw_str(&c->details, "quick_check", res);
			if (strcmp(res, "ok"))
				wl_fail(c, "PRAGMA quick_check: %s", res);
			sqlite3_finalize(st);
		}
	}
	{
		char *p = NULL;
		sqlite3_stmt *st;
		if (sqlite3_prepare_v2(db, "PRAGMA page_count", -1, &st, NULL) == SQLITE_OK) {
			if (sqlite3_step(st) == SQLITE_ROW)
				jw_int(&c->details, "db_bytes", sqlite3_column_int64(st, 0) * page_size);
			sqlite3_finalize(st);
		}
		(void)p;
	}
	if (keep)
		jw_str(&c->details, "db", path);
	rc = wl_reason()[0] ? -1 : 0;
out:
	sqlite3_free(msg);
	sqlite3_close(db);
	if (!keep)
		remove_db(path);
	sb_free(&sb);
	sb_free(&pragmas);
	return rc;
}

static const struct wparam dbload_params[] = {
	{ "rows", "20000", "order lines to import (customers rows/20+1, items rows/50+10, orders ~rows/4)" },
	{ "txn", "1000", "INSERT statements per transaction (0: each its own, as plain psql)" },
	{ "seed", "1", "seed of the data generator (same seed, same SQL text)" },
	{ "journal", "delete", "journal_mode: delete, truncate, wal or off" },
	{ "sync", "full", "synchronous: off, normal or full" },
	{ "page_size", "4096", "database page size in bytes" },
	{ "cache_kib", "2000", "SQLite page cache in KiB" },
	{ "keep", "0", "1: keep DIR/bootbench-dbload.db afterwards" },
	{ "emit_sql", "", "PATH: only write the schema and data SQL text there" },
	{ NULL, NULL, NULL },
};

const struct workload wl_dbload = {
	.name = "dbload",
	.summary = "create a schema, import generated SQL text in transactions (psql < data.sql)",
	.params = dbload_params,
	.needs = WL_NEEDS_DIR,
	.run = dbload_run,
};
