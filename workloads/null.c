/*
 * null.c - the null workload (fio's null engine): does nothing and records
 * one figure, so plans, layouts, the watchdog and the records can be tested
 * without real I/O. Its figure is the time to do nothing: what the harness
 * itself costs. `sleep` and `crash` exist to test the watchdog: a run that
 * hangs past its timeout, or dies of a signal, must become a result.
 */
#include <signal.h>
#include <time.h>
#include <unistd.h>

#include "workload.h"

static int null_run(struct wctx *c)
{
	struct timespec a, b;
	long long sl = wl_param_int(c, "sleep"), crash = wl_param_int(c, "crash");
	if (sl < 0 || crash < 0)
		return -1;
	clock_gettime(CLOCK_MONOTONIC, &a);
	clock_gettime(CLOCK_MONOTONIC, &b);
	wl_metric(c, "harness_overhead", (b.tv_sec - a.tv_sec) * 1e6 + (b.tv_nsec - a.tv_nsec) / 1e3, "us", "lower");
	if (sl)
		sleep(sl);
	if (crash)
		raise(SIGABRT);
	return 0;
}

static const struct wparam null_params[] = {
	{ "sleep", "0", "seconds to sleep after measuring (tests the watchdog timeout)" },
	{ "crash", "0", "1: die of SIGABRT (tests crash recording)" },
	{ NULL, NULL, NULL },
};

const struct workload wl_null = {
	.name = "null",
	.summary = "does nothing; records the harness overhead (for testing the chain)",
	.params = null_params,
	.needs = 0,
	.run = null_run,
};
