/*
 * null.c - the null workload (fio's null engine): does nothing and records
 * one figure, so plans, layouts, the watchdog and the records can be tested
 * without real I/O. Its figure is the time to do nothing: what the harness
 * itself costs.
 */
#include <time.h>

#include "workload.h"

static int null_run(struct wctx *c)
{
	struct timespec a, b;
	clock_gettime(CLOCK_MONOTONIC, &a);
	clock_gettime(CLOCK_MONOTONIC, &b);
	wl_metric(c, "harness_overhead", (b.tv_sec - a.tv_sec) * 1e6 + (b.tv_nsec - a.tv_nsec) / 1e3, "us", "lower");
	return 0;
}

static const struct wparam null_params[] = {
	{ NULL, NULL, NULL },
};

const struct workload wl_null = {
	.name = "null",
	.summary = "does nothing; records the harness overhead (for testing the chain)",
	.params = null_params,
	.needs = 0,
	.run = null_run,
};
