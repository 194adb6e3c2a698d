/*
 * run.c - bootbench run: one workload on the host, for development and for
 * fidelity benchmarks, printing the same run record the appliance stores.
 */
const char run_usage[] =
"usage: bootbench run WORKLOAD [--dir DIR] [--dev DEV] [--timeout S] [--monitor-ms MS] [--profile]\n"
"                     [--offcpu] [--PARAM VALUE | PARAM=VALUE]...\n"
"       bootbench run --list\n"
"\n"
"Runs WORKLOAD once under the same watchdog as the appliance (a child\n"
"process; killed at the timeout, default 600 s) and prints its run record as\n"
"one JSON line, exactly as `bootbench collect` prints stored records.\n"
"  --dir DIR    directory to work in (workloads that need a filesystem)\n"
"  --dev DEV    block device (workloads that read a device)\n"
"  --monitor-ms system counter sampling interval (default 1000); the record\n"
"               carries their summary (mean, max) and trace\n"
"  --profile    the why instruments, as a plan's `profile on`: perf samples\n"
"               (the perf of $BOOTBENCH_PERF, default /usr/bin/perf), the\n"
"               kernel's tick profile where booted with profile=2, delays\n"
"  --offcpu     as --profile, and every context switch sampled: where the\n"
"               run's processes blocked, weighted by time (a plan's\n"
"               `profile offcpu`; docs/why.md)\n"
"  --list       the workloads and their parameters\n"
"exit: 0 the run was ok, 1 it failed, timed out or crashed, 100 bad usage.\n";

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"
#include "defaults.h"
#include "err.h"
#include "json.h"
#include "plan.h"
#include "units.h"
#include "record.h"
#include "workload.h"
#include "xio.h"

static void list(void)
{
	for (const struct workload *const *w = workload_table; *w; w++) {
		printf("%-10s %s\n", (*w)->name, (*w)->summary);
		for (const struct wparam *p = (*w)->params; p && p->name; p++)
			printf("           %s=%s  %s\n", p->name, p->def, p->help);
	}
}

int run_main(int argc, char **argv)
{
	const char *dir = NULL, *dev = NULL;
	unsigned timeout = 600, monitor_ms = 1000;
	struct kvpair params[PLAN_MAX_PARAMS];
	size_t np = 0;
	const struct workload *w = NULL;
	struct run_outcome o;
	struct jw j;
	struct sbuf line = {0};
	static const unsigned char zero_id[16];
	char err[256];
	int profile = 0;

	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		if (!strcmp(a, "--list")) {
			list();
			return 0;
		} else if (!strcmp(a, "--profile")) {
			profile = profile > PROFILE_PERF ? profile : PROFILE_PERF;
		} else if (!strcmp(a, "--offcpu")) {
			profile = PROFILE_OFFCPU;
		} else if (!strcmp(a, "--dir") && i + 1 < argc) {
			dir = argv[++i];
		} else if (!strcmp(a, "--dev") && i + 1 < argc) {
			dev = argv[++i];
		} else if (!strcmp(a, "--timeout") && i + 1 < argc) {
			unsigned long long t;
			if (parse_duration(argv[++i], 1000, 86400, &t) < 0 || t < 1)
				die(EXIT_BADINPUT, "bad --timeout \"%s\" (seconds, 1..86400: " DURATION_HELP ")", argv[i]);
			timeout = (unsigned)t;
		} else if (!strcmp(a, "--monitor-ms") && i + 1 < argc) {
			unsigned long long t;
			if (parse_duration(argv[++i], 1, 3600000, &t) < 0 || t < 1)
				die(EXIT_BADINPUT, "bad --monitor-ms \"%s\" (milliseconds, 1..3600000: " DURATION_HELP ")",
				    argv[i]);
			monitor_ms = (unsigned)t;
		} else if (!strncmp(a, "--", 2) && i + 1 < argc && np < PLAN_MAX_PARAMS) {
			params[np].key = xstrdup(a + 2);
			params[np++].val = xstrdup(argv[++i]);
		} else if (strchr(a, '=') && w && np < PLAN_MAX_PARAMS) {
			params[np].key = xstrndup(a, strchr(a, '=') - a);
			params[np++].val = xstrdup(strchr(a, '=') + 1);
		} else if (!w && a[0] != '-') {
			w = workload_find(a);
			if (!w) {
				workload_check(a, NULL, 0, err, sizeof err);
				die(EXIT_BADINPUT, "%s", err);
			}
		} else {
			die(EXIT_BADINPUT, "unexpected argument %s (see bootbench run --help)", a);
		}
	}
	if (!w) {
		fputs(run_usage, stderr);
		die(EXIT_BADINPUT, "no WORKLOAD given (bootbench run --list shows them)");
	}
	if (workload_check(w->name, params, np, err, sizeof err) < 0)
		die(EXIT_BADINPUT, "%s", err);
	if ((w->needs & WL_NEEDS_DIR) && !dir)
		die(EXIT_BADINPUT, "workload %s needs --dir DIR", w->name);
	if ((w->needs & WL_NEEDS_DEV) && !dev)
		die(EXIT_BADINPUT, "workload %s needs --dev DEV", w->name);
	if (profile)
		run_why_begin(profile);
	if (run_workload(w, dir, dev, params, np, timeout, monitor_ms, &o) < 0)
		die_sys(EXIT_SYSFAIL, "unable to start workload %s", w->name);
	if (profile)
		run_why_end();
	jw_init(&j);
	jw_obj(&j, NULL);
	jw_str(&j, "plan", NULL);
	jw_str(&j, "workload", w->name);
	jw_obj(&j, "params");
	for (const struct wparam *p = w->params; p && p->name; p++) {
		const char *v = p->def;
		for (size_t i = 0; i < np; i++)
			if (!strcmp(params[i].key, p->name))
				v = params[i].val;
		jw_str(&j, p->name, v);
	}
	jw_obj_end(&j);
	jw_obj(&j, "layout");
	jw_str(&j, "name", "host");
	jw_str(&j, "dir", dir);
	jw_str(&j, "device", dev);
	jw_obj_end(&j);
	jw_int(&j, "iteration", 1);
	run_outcome_json(&j, &o);
	jw_obj_end(&j);
	rec_line(&line, 0, zero_id, RS_RUN, j.sb.s, j.sb.len);
	puts(line.s);
	if (strcmp(o.status, "ok"))
		warning("%s: %s: %s", w->name, o.status, o.reason);
	sb_free(&line);
	sb_free(&j.sb);
	run_outcome_free(&o);
	for (size_t i = 0; i < np; i++) {
		free(params[i].key);
		free(params[i].val);
	}
	return strcmp(o.status, "ok") ? 1 : 0;
}
