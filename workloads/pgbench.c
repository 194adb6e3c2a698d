/*
 * pgbench.c - PostgreSQL's own pgbench against a PostgreSQL server started
 * on the layout for the run: TPC-B-like (pgbench's built-in script) or
 * select-only, `clients` connections over the Unix socket, `duration`
 * seconds after a `warmup`, as kernel regression suites run it (mmtests'
 * db-pgbench, Phoronix's pgbench profile).
 *
 * The server is the run's own (pg.c: initdb on the layout, the plan's
 * settings); pgbench -i at `scale` is timed (init_s), then the warmup,
 * then the measured run with a per-transaction log, sampled so that at
 * most log_lines lines are written (the log is in /tmp: RAM in the
 * appliance). Figures: tps (pgbench's, without connection time), the
 * latency mean, p50 and p99 (nearest rank) from the logged transactions,
 * init_s.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "err.h"
#include "pg.h"
#include "proc.h"
#include "units.h"
#include "workload.h"
#include "xio.h"

#define PG_RATE_GUESS 100000	/* tx/s assumed when no warmup measured it */

static const struct wparam pgbench_params[] = {
	{ "mode", "tpcb", "tpcb (pgbench's TPC-B-like script) or select (select-only)" },
	{ "scale", "1", "pgbench -i scale: 100,000 accounts (about 15 MB) per unit" },
	{ "clients", "2", "connections (pgbench -c; one thread each)" },
	{ "duration", "10", "seconds measured" },
	{ "warmup", "2", "seconds run before, not measured" },
	{ "log_lines", "1000000", "transaction log lines at most (about 40 bytes each, in /tmp): past it, a sample" },
	PG_SERVER_PARAMS,
	{ NULL, NULL, NULL },
};

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
static int latencies(struct wctx *c, const struct pg *pg, size_t max, double *p50, double *p99, size_t *n)
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
			if (*n >= max) {
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
		wl_warn(c, "%zu transaction latencies past the first %zu were not kept for the percentiles", dropped,
			max);
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

/* The share of transactions pgbench logs (--sampling-rate): all of them
 * unless that would pass `lines` at the rate the warmup ran, with room
 * (or, without a warmup, at PG_RATE_GUESS). */
static double sampling_rate(double warm_tps, unsigned long long dur, long long lines)
{
	double expect = (isfinite(warm_tps) && warm_tps > 0 ? warm_tps * 1.5 : PG_RATE_GUESS) * (double)dur;
	return expect <= (double)lines ? 1.0 : (double)lines / expect;
}

static int pgbench_run(struct wctx *c)
{
	struct pg pg;
	struct sbuf out = { 0 };
	const char *mode = wl_param(c, "mode");
	long long scale = wl_param_int(c, "scale"), clients = wl_param_int(c, "clients");
	long long lines = wl_param_int(c, "log_lines");
	unsigned long long dur, warm;
	char sc[24], cl[24], ds[24], ws[24], tlog[128], rate[32] = "";
	double t0, init_s, tps, lat_mean, p50 = NAN, p99 = NAN, warm_tps = NAN, share = 1;
	size_t samples = 0;
	int rc = -1;

	if (scale < 0 || clients < 0 || lines < 0)
		return -1;
	if (lines < 100 || lines > 100000000)
		return wl_fail(c, "log_lines=%lld: expected 100..100000000", lines);
	if (scale < 1 || scale > 100000 || clients < 1 || clients > 1000)
		return wl_fail(c, "scale=%lld, clients=%lld: expected 1..100000 and 1..1000", scale, clients);
	if (!in_choices(mode, "tpcb|select"))
		return wl_fail(c, "mode=\"%s\": expected tpcb or select", mode);
	if (parse_duration(wl_param(c, "duration"), 1000, 86400, &dur) < 0 || dur < 1 ||
	    parse_duration(wl_param(c, "warmup"), 1000, 86400, &warm) < 0)
		return wl_fail(c, "duration=\"%s\" warmup=\"%s\": whole seconds (%s), duration at least 1",
			       wl_param(c, "duration"), wl_param(c, "warmup"), DURATION_HELP);
	if (pg_open(c, &pg, clients) < 0)
		goto out;
	snprintf(tlog, sizeof tlog, "--log-prefix=%s/pgb", pg.sock);
	snprintf(sc, sizeof sc, "%lld", scale);
	snprintf(cl, sizeof cl, "%lld", clients);
	snprintf(ds, sizeof ds, "%llu", dur);
	snprintf(ws, sizeof ws, "%llu", warm);
	t0 = mono_now();
	{
		/* no deadline of its own but the plan's: its time grows with scale */
		char *a[] = { pg.bin[PG_PGBENCH], "-h", pg.sock, "-U", "postgres", "-i", "-q", "-s", sc, "postgres", NULL };
		if (pg_tool(c, &pg, "pgbench -i", a, -1, 0, &out, NULL) < 0)
			goto out;
	}
	init_s = mono_now() - t0;
	for (int measured = warm ? 0 : 1; measured < 2; measured++) {
		/* the warmup, then the measured run with its transaction log */
		char *a[24];
		int n = 0;
		a[n++] = pg.bin[PG_PGBENCH];
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
			a[n++] = tlog;
			share = sampling_rate(warm_tps, dur, lines);
			if (share < 1) {
				snprintf(rate, sizeof rate, "--sampling-rate=%.6f", share);
				a[n++] = rate;
			}
		}
		a[n++] = "postgres";
		a[n] = NULL;
		if (pg_tool(c, &pg, measured ? "pgbench" : "pgbench (warmup)", a, -1,
			    (unsigned)((measured ? dur : warm) + 120) * 1000, &out, NULL) < 0)
			goto out;
		if (!measured)
			warm_tps = field(out.s, "tps = ", "without initial connection time");
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
	/* twice the lines asked: the warmup's rate was a guess */
	if (latencies(c, &pg, (size_t)lines * 2, &p50, &p99, &samples) < 0)
		goto out;
	jw_int(&c->details, "latency_samples", (long long)samples);
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
