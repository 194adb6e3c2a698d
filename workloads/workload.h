/*
 * workload.h - the workload ops table (after fio's struct ioengine_ops).
 *
 * One workload per file in workloads/, each filling a `static const struct
 * workload` with designated initializers; registry.c lists them all in one
 * array. A workload runs in a child process under a watchdog (runner.c), so a
 * hang or crash becomes a recorded result, never a dead appliance.
 */
#ifndef BB_WORKLOAD_H
#define BB_WORKLOAD_H

#include <stddef.h>

#include "counters.h"
#include "json.h"
#include "plan.h"

#define WL_MAX_METRICS 96
#define WL_MAX_WARNINGS 8	/* things the run record must admit to (dropped data) */
#define WL_WARNING_LEN 160
#define WL_REPORT_MAX (8u << 20)	/* bytes of a child's report the watchdog keeps */

/* needs: what the layout must give. WL_READONLY_OK: the workload opens the
 * device O_RDONLY and writes nothing to it, so it may run on a read-only
 * layout (a disk that is not claimed); no other workload does. */
enum { WL_NEEDS_DIR = 1, WL_NEEDS_DEV = 2, WL_READONLY_OK = 4 };

struct wparam {
	const char *name;
	const char *def;	/* default value, as text */
	const char *help;
};

struct metric {
	char name[48];
	double value;
	char unit[16];
	char better[8];		/* "higher" or "lower" */
	int invalid;		/* measured, but by the workload's own rule not valid (an SFS step
				 * with over 1% failed calls): compare counts it, never averages it */
};

struct wctx {
	const char *dir;	/* a directory to work in (mounted layout), or NULL */
	const char *dev;	/* the layout's block device, or NULL (tmpfs) */
	const struct workload *w;
	const struct kvpair *params;
	size_t nparams;
	struct metric metrics[WL_MAX_METRICS];
	size_t nmetrics;
	unsigned long dropped_metrics;	/* wl_metric calls past WL_MAX_METRICS */
	unsigned long nonfinite_metrics;	/* wl_metric calls with NaN or infinity, left out */
	struct jw details;	/* workload-specific JSON object members */
	char warnings[WL_MAX_WARNINGS][WL_WARNING_LEN];	/* wl_warn: into the run record's "warnings" */
	size_t nwarnings;
	unsigned long dropped_warnings;	/* wl_warn calls past WL_MAX_WARNINGS: said, not silent */
	void *priv;
};

/* A figure as the reference tool the seeds' authors ran prints it, so that
 * a reader who knows ab, SFS or DBT-2 finds their number: metric (a glob,
 * '*' any run of characters; the first that matches wins) -> that label. */
struct wl_label {
	const char *metric, *label;
};

struct workload {
	const char *name;
	const char *summary;
	const struct wparam *params;	/* terminated by { NULL } */
	const struct wl_label *labels;	/* terminated by { NULL }; may be NULL */
	unsigned needs;
	/* A layer the workload's programs come from (rootfs/build-userland
	 * LAYERS), unless the plan sets layer_param (pgbench's bindir= on a
	 * host): the plan must then say `requires layer=NAME`. */
	const char *layer, *layer_param;
	/* What this workload asks of the section it is in, beyond its own
	 * parameters (plan_check_workloads): 0, or -1 with a message (no
	 * FILE:LINE). May be NULL. */
	int (*plan_check)(const struct plan_section *s, const struct plan_workload *pw, char *err, size_t errlen);
	int (*setup)(struct wctx *c);	/* may be NULL */
	int (*run)(struct wctx *c);	/* 0 ok; -1 failed (reason via wl_fail) */
	void (*teardown)(struct wctx *c);	/* may be NULL */
};

extern const struct workload *const workload_table[];
const struct workload *workload_find(const char *name);
/* The plan parser's check (plan_workload_check, lib/plan.h) the host and
 * the appliance pass: the workload exists and every parameter is known. */
int workload_check(const char *name, const struct kvpair *params, size_t n, char *err, size_t errlen);
/* The label the reference tool prints for a figure of a workload
 * ("ab: Requests per second"), or NULL. */
const char *wl_tool_label(const char *workload, const char *metric);
/* What the plan as a whole must say of its workloads (plan check and the
 * appliance, after plan_parse): each layer a workload needs is in the
 * plan's `requires`, and each workload's own plan_check holds. 0, or -1
 * with "FILE:LINE: message" in err. */
int plan_check_workloads(const char *file, const struct plan *p, char *err, size_t errlen);

/* Parameter value (the plan's, else the default); NULL for unknown names. */
const char *wl_param(const struct wctx *c, const char *name);
/* Parsed forms; a malformed value fails the run with a clear reason. */
long long wl_param_size(struct wctx *c, const char *name);	/* 4K, 64M, 1G */
long long wl_param_int(struct wctx *c, const char *name);
void wl_metric(struct wctx *c, const char *name, double value, const char *unit, const char *better);
/* Mark the figures from index `from` on (c->nmetrics before they were
 * added) invalid: recorded with "invalid": true. */
void wl_metrics_invalid(struct wctx *c, size_t from);
/* A tool the workload ran (run_capture_here) that did not exit 0: fail the
 * run with "NAME STATUS: LINE", LINE from its output by tool_reason (the
 * first line starting with prefix, else the last), and return -1; else 0. */
struct run_result;
int wl_tool_failed(struct wctx *c, const char *name, const struct run_result *res, const struct sbuf *out,
		   const char *prefix);

/* The rt-tests layer (rootfs/recipes/rt-tests.sh): a tool runs through the
 * layer's own loader and libraries. wl_rt_tests_argv fills t and argv[0..3]
 * for TOOL of the layer in dir; returns 4, or -1 with the reason set. */
struct rt_tool {
	char ld[4200], lib[4200], bin[4200];
};
int wl_rt_tests_argv(struct wctx *c, const char *dir, const char *tool, struct rt_tool *t, char **argv);

/* hackbench's options, checked (hackbench.c; cyclictest's load uses them
 * too): hackbench_args appends them to argv[n..] (at most 13 words) and
 * returns the new count, or -1 with the reason set. */
struct hb_opts {
	long long groups, loops, fds, datasize;
	const char *mode, *via;	/* process|thread, socket|pipe|inet */
	int fifo;
	char num[4][24];	/* the numbers' text, argv points into it */
};
int hackbench_args(struct wctx *c, struct hb_opts *o, char **argv, int n);
/* Something the run record must say beside its figures (a step of a load
 * curve that is INVALID, ...): the record's "warnings" array. */
void wl_warn(struct wctx *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Record why the run failed (first call wins); returns -1 for `return wl_fail(...)`. */
int wl_fail(struct wctx *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
const char *wl_reason(void);

/* What the watchdog observed. */
struct run_outcome {
	char status[12];	/* ok, failed, timeout, crashed, skipped */
	char reason[256];
	double start, duration_s;	/* CLOCK_MONOTONIC start, wall seconds */
	struct metric metrics[WL_MAX_METRICS];
	size_t nmetrics;
	char *details;		/* JSON object text or NULL */
	char warnings[WL_MAX_WARNINGS][WL_WARNING_LEN];	/* what was dropped, said in the record */
	size_t nwarnings;
	unsigned long dropped_warnings;	/* past WL_MAX_WARNINGS: counted in the record */
	struct ctr_monitor mon;	/* system counters sampled during the run */
	/* where the time went (docs/why.md): JSON object texts or NULL */
	char *pressure;		/* PSI deltas: every run */
	char *profile;		/* the kernel's sampled profile: with profile on */
	char *delays;		/* delay accounting summed over the workload's processes: with profile on */
	char *perf;		/* perf's samples of the run, folded call stacks: with profile perf
				 * (with profile on: why there are none); with offcpu its "offcpu" */
};

/* The "why" instruments for the runs that follow (PROFILE_*, lib/plan.h):
 * with PROFILE_PERF a perf session too (PROFILE_OFFCPU: sampling every
 * context switch as well); with profile on, check
 * the kernel profile (kallsyms is loaded after each run, not held), open
 * the taskstats listener and turn delay accounting on; say on the console
 * what is missing. run_why_end undoes it (delay accounting back
 * as it was). Without run_why_begin a run records pressure only. */
void run_why_begin(int profile);
void run_why_end(void);

/* Run setup/run/teardown in a child with a deadline (seconds, 0: none),
 * sampling the system counters every monitor_ms meanwhile. */
int run_workload(const struct workload *w, const char *dir, const char *dev,
		 const struct kvpair *params, size_t nparams, unsigned timeout_s,
		 unsigned monitor_ms, struct run_outcome *o);
void run_outcome_free(struct run_outcome *o);
/* Add a warning to the outcome (the run record's "warnings" array). */
void run_outcome_warn(struct run_outcome *o, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Members of a run record for the outcome: status, reason, duration, metrics,
 * details, "warnings" when something was dropped, counters, pressure, and
 * profile and delays when they were asked for. */
void run_outcome_json(struct jw *w, const struct run_outcome *o);

#endif
