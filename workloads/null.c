/*
 * null.c - the null workload (fio's null engine): does nothing and records
 * one figure, so plans, layouts, the watchdog and the records can be tested
 * without real I/O. Its figure is the time to do nothing: what the harness
 * itself costs. `sleep` and `crash` exist to test the watchdog: a run that
 * hangs past its timeout, or dies of a signal, must become a result. `die`
 * and `oom` test the child's die hook: a workload's fatal error (die(), or
 * an x* allocation that fails) must become a failed run carrying the
 * message, never the end of the boot. `figures` records that many more
 * figures, to test what happens past the per-run cap (a warning in the
 * record, never a silent drop).
 */
#include <signal.h>
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include "defaults.h"
#include "err.h"
#include "workload.h"
#include "xio.h"

static int null_run(struct wctx *c)
{
	struct timespec a, b;
	long long sl = wl_param_int(c, "sleep"), crash = wl_param_int(c, "crash");
	long long die_ = wl_param_int(c, "die"), oom = wl_param_int(c, "oom");
	long long figures = wl_param_int(c, "figures");
	if (sl < 0 || crash < 0 || die_ < 0 || oom < 0 || figures < 0)
		return -1;
	clock_gettime(CLOCK_MONOTONIC, &a);
	clock_gettime(CLOCK_MONOTONIC, &b);
	wl_metric(c, "harness_overhead", (b.tv_sec - a.tv_sec) * 1e6 + (b.tv_nsec - a.tv_nsec) / 1e3, "us", "lower");
	for (long long i = 0; i < figures; i++) {
		char name[32];
		snprintf(name, sizeof name, "figure_%lld", i + 1);
		wl_metric(c, name, (double)i, "count", "higher");
	}
	if (sl)
		sleep(sl);
	if (crash)
		raise(SIGABRT);
	if (die_)
		die(EXIT_SYSFAIL, "null: asked to die (die=%lld)", die_);
	if (oom)	/* more than any address space holds: malloc fails at once */
		free(xmalloc(SIZE_MAX / 2));
	return 0;
}

static const struct wparam null_params[] = {
	{ "sleep", "0", "seconds to sleep after measuring (tests the watchdog timeout)" },
	{ "crash", "0", "1: die of SIGABRT (tests crash recording)" },
	{ "die", "0", "1: fail with a fatal error, die() (tests the workload's die hook)" },
	{ "oom", "0", "1: fail an x* allocation (tests the out-of-memory policy)" },
	{ "figures", "0", "extra figures to record (tests the per-run cap of 96: a warning past it)" },
	{ NULL, NULL, NULL },
};

const struct workload wl_null = {
	.name = "null",
	.summary = "does nothing; records the harness overhead (for testing the chain)",
	.params = null_params,
	.needs = WL_READONLY_OK,
	.run = null_run,
};
