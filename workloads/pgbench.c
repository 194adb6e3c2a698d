/*
 * pgbench.c - PostgreSQL's own pgbench against a PostgreSQL server started
 * on the layout for the run: TPC-B-like (pgbench's built-in script) or
 * select-only, `clients` connections over the Unix socket, `duration`
 * seconds after a `warmup`, as kernel regression suites run it (mmtests'
 * db-pgbench, Phoronix's pgbench profile).
 *
 * The server is the run's own (pg.c: initdb on the layout, the plan's
 * settings); pgbench -i at `scale` is timed (init_s), then the warmup,
 * then the measured run with a per-transaction log, sampled so that
 * about log_lines lines are written (the log is in /tmp: RAM in the
 * appliance; pg.c). Figures: tps (pgbench's, without connection time), the
 * latency mean, p50 and p99 (nearest rank) from the logged transactions,
 * init_s.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "err.h"
#include "pg.h"
#include "spawn.h"
#include "units.h"
#include "workload.h"
#include "xio.h"


static const struct wparam pgbench_params[] = {
	{ "mode", "tpcb", "tpcb (pgbench's TPC-B-like script) or select (select-only)" },
	{ "scale", "1", "pgbench -i scale: 100,000 accounts (about 15 MB) per unit" },
	PG_DRIVER_PARAMS("2"),
	PG_SERVER_PARAMS,
	{ NULL, NULL, NULL },
};

static int pgbench_run(struct wctx *c)
{
	struct pg pg;
	struct sbuf out = { 0 };
	const char *mode = wl_param(c, "mode");
	long long scale = wl_param_int(c, "scale");
	struct pg_driver d;
	char sc[24];
	double t0, init_s, tps, lat_mean, p50, p99, share = 1;
	struct pg_lat lat = { 0 };
	int rc = -1;

	if (scale < 0)
		return -1;
	if (scale < 1 || scale > 100000)
		return wl_fail(c, "scale=%lld: expected 1..100000", scale);
	if (!in_choices(mode, "tpcb|select"))
		return wl_fail(c, "mode=\"%s\": expected tpcb or select", mode);
	if (pg_driver_params(c, &d) < 0)
		return -1;
	if (pg_open(c, &pg, d.clients) < 0)
		goto out;
	snprintf(sc, sizeof sc, "%lld", scale);
	t0 = mono_now();
	{
		/* no deadline of its own but the plan's: its time grows with scale */
		char *a[] = { pg.bin[PG_PGBENCH], "-h", pg.sock, "-U", "postgres", "-i", "-q", "-s", sc, "postgres", NULL };
		if (pg_tool(c, &pg, "pgbench -i", a, -1, 0, &out, NULL) < 0)
			goto out;
	}
	init_s = mono_now() - t0;
	{
		char *a[] = { !strcmp(mode, "select") ? "-S" : NULL, NULL };
		if (pg_pgbench(c, &pg, a, &d, &out, &share) < 0)
			goto out;
	}
	tps = pg_field(out.s, "tps = ", "without initial connection time");
	lat_mean = pg_field(out.s, "latency average = ", NULL);
	if (!isfinite(tps) || !isfinite(lat_mean)) {
		wl_fail(c, "pgbench printed no tps (without initial connection time) or latency average: %.120s",
			out.s ? out.s : "");
		goto out;
	}
	jw_num(&c->details, "transactions", pg_field(out.s, "number of transactions actually processed: ", NULL));
	jw_num(&c->details, "failed_transactions", pg_field(out.s, "number of failed transactions: ", NULL));
	/* twice the lines asked: the warmup's rate was a guess */
	if (pg_latency_log(c, &pg, (size_t)d.lines * 2, &lat, 1) < 0)
		goto out;
	p50 = pg_rank(&lat, 50);
	p99 = pg_rank(&lat, 99);
	jw_int(&c->details, "latency_samples", (long long)lat.n);
	jw_num(&c->details, "latency_sampling_rate", share);
	jw_str(&c->details, "mode", mode);
	wl_metric(c, "tps", tps, "tx/s", "higher");
	wl_metric(c, "latency_mean_ms", lat_mean, "ms", "lower");
	wl_metric(c, "latency_p50_ms", p50, "ms", "lower");
	wl_metric(c, "latency_p99_ms", p99, "ms", "lower");
	wl_metric(c, "init_s", init_s, "s", "lower");
	rc = 0;
out:
	pg_close(&pg);
	pg_lat_free(&lat, 1);
	sb_free(&out);
	return rc;
}

static const struct wl_label pgbench_labels[] = {
	{ "tps", "pgbench: tps (without initial connection time)" },
	{ "latency_mean_ms", "pgbench: latency average" },
	{ NULL },
};

const struct workload wl_pgbench = {
	.name = "pgbench",
	.labels = pgbench_labels,
	.summary = "PostgreSQL's pgbench (TPC-B-like or select-only) against a server started on the layout",
	.params = pgbench_params,
	.needs = WL_NEEDS_DIR,
	.layer = "postgresql",
	.layer_param = "bindir",
	.run = pgbench_run,
};
