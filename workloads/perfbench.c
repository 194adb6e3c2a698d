/*
 * perfbench.c - `perf bench COLLECTION BENCHMARK [OPTIONS]` with the
 * userland's static perf (rootfs/recipes/linux-source-6.12.sh): sched
 * messaging (hackbench) and pipe, syscall basic, futex hash, mem memcpy...
 *
 * Figures come from perf's --format=simple output, whose shapes are fixed
 * by tools/perf/bench (6.12) and parsed here line by line:
 *   - one number alone: the benchmark's total time in seconds (sched,
 *     syscall, and most others);
 *   - "# function 'NAME' (...)" then a number: mem benchmarks, bytes per
 *     second for each implementation;
 *   - "Averaged N operations/sec (+- P%)": futex benchmarks, which have no
 *     simple format; this is their fixed summary line.
 * Anything else perf prints (its "# Running ..." banners, per-thread lines)
 * is ignored; output with none of the three is a failed run that says so.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "defaults.h"
#include "spawn.h"
#include "workload.h"

#define PB_ARGS 32

/* A whole line that is one non-negative decimal number. */
static int number_line(const char *l, double *v)
{
	char *end;
	if (!(*l >= '0' && *l <= '9'))
		return 0;
	errno = 0;
	*v = strtod(l, &end);
	end += strspn(end, " \t\r");
	return errno == 0 && *end == 0 && isfinite(*v);
}

static int has_metric(const struct wctx *c, const char *name)
{
	for (size_t i = 0; i < c->nmetrics; i++)
		if (!strcmp(c->metrics[i].name, name))
			return 1;
	return 0;
}

/* Figures from perf bench's output: 0, or -1 with the reason set. */
int perfbench_figures(struct wctx *c, const char *text)
{
	char fn[40] = "", m[48];
	int nfn = 0, ntime = 0;
	size_t before = c->nmetrics;

	for (const char *l = text; *l;) {
		char line[512];
		size_t n = strcspn(l, "\n");
		snprintf(line, sizeof line, "%.*s", (int)(n < sizeof line ? n : sizeof line - 1), l);
		double v;
		const char *q;
		unsigned long long ops;
		int pos;
		if (!strncmp(line, "# function '", 12) && (q = strchr(line + 12, '\''))) {
			size_t k = (size_t)(q - (line + 12));
			if (k >= sizeof fn)
				k = sizeof fn - 1;	/* a long name is cut, never lost */
			snprintf(fn, sizeof fn, "%.*s", (int)k, line + 12);
			for (char *p = fn; *p; p++)
				if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') || *p == '-' || *p == '_'))
					*p = '_';
		} else if (number_line(line, &v)) {
			if (*fn) {
				snprintf(m, sizeof m, "%s_MBps", fn);
				if (has_metric(c, m))
					return wl_fail(c, "perf bench printed two figures for %s", fn);
				wl_metric(c, m, v / 1e6, "MB/s", "higher");
				fn[0] = 0;
				nfn++;
			} else if (ntime++ == 0) {
				wl_metric(c, "total_s", v, "s", "lower");
			}
		} else if (pos = 0, sscanf(line, "Averaged %llu operations/sec%n", &ops, &pos) == 1 && pos > 0) {
			if (has_metric(c, "ops_per_s"))
				return wl_fail(c, "perf bench printed two averaged figures");
			wl_metric(c, "ops_per_s", (double)ops, "ops/s", "higher");
		}
		l += n;
		if (*l)
			l++;
	}
	if (ntime > 1)
		return wl_fail(c, "perf bench printed %d totals where one was expected", ntime);
	if (c->nmetrics == before)
		return wl_fail(c, "perf bench printed no figure this workload knows how to read");
	jw_int(&c->details, "functions", nfn);
	return 0;
}

static int perfbench_run(struct wctx *c)
{
	const char *perf = wl_param(c, "perf"), *bench = wl_param(c, "bench"), *opts = wl_param(c, "options");
	char *argv[PB_ARGS + 8], bbuf[256], obuf[1024];
	size_t n = 0;
	struct sbuf out = { 0 };
	struct run_result res;
	int rc = -1;

	if (access(perf, X_OK) != 0)
		return wl_fail(c, "unable to execute %s: %s", perf, strerror(errno));
	if (strlen(bench) >= sizeof bbuf || strlen(opts) >= sizeof obuf)
		return wl_fail(c, "bench or options too long");
	memcpy(bbuf, bench, strlen(bench) + 1);
	memcpy(obuf, opts, strlen(opts) + 1);
	argv[n++] = (char *)perf;
	argv[n++] = "bench";
	argv[n++] = "--format=simple";
	/* "sched/messaging" or "sched messaging" */
	for (char *p = bbuf; *p; p++)
		if (*p == '/')
			*p = ' ';
	size_t words = 0;
	for (char *save = NULL, *t = strtok_r(bbuf, " \t", &save); t; t = strtok_r(NULL, " \t", &save)) {
		if (*t == '-' || words == 2)
			return wl_fail(c, "bench must be COLLECTION/BENCHMARK, e.g. sched/messaging (got \"%s\")", bench);
		if (!strcmp(t, "all"))
			return wl_fail(c, "bench \"%s\": \"all\" runs many benchmarks; name one", bench);
		argv[n++] = t;
		words++;
	}
	if (words != 2)
		return wl_fail(c, "bench must be COLLECTION/BENCHMARK, e.g. sched/messaging (got \"%s\")", bench);
	for (char *save = NULL, *t = strtok_r(obuf, " \t", &save); t; t = strtok_r(NULL, " \t", &save)) {
		if (n >= PB_ARGS)
			return wl_fail(c, "too many perf bench options (at most %d words)", PB_ARGS - 5);
		/* mem's -c/--cycles prints cycles per byte where bytes/s is read */
		if (!strcmp(t, "-c") || !strncmp(t, "--cycles", 8) || (t[0] == '-' && t[1] != '-' && strchr(t, 'c') && !strcmp(argv[3], "mem")))
			return wl_fail(c, "perf bench option %s (cycles, not bytes/s) is refused", t);
		argv[n++] = t;
	}
	argv[n] = NULL;
	if (run_capture_here(argv, &out, 0, &res) != 0)
		return wl_fail(c, "unable to start perf: %s", strerror(errno));
	char name[300];
	snprintf(name, sizeof name, "perf bench %s", bench);
	if (wl_tool_failed(c, name, &res, &out, NULL))
		goto done;
	if (res.dropped) {
		/* figures from part of the output could be the wrong ones */
		wl_fail(c, "perf bench printed %llu bytes past the %u MiB kept", res.dropped, PROC_CAPTURE_MAX >> 20);
		goto done;
	}
	if (out.len && memchr(out.s, 0, out.len))
		wl_fail(c, "perf bench's output holds a NUL byte");
	else
		rc = perfbench_figures(c, out.s ? out.s : "");
done:
	sb_free(&out);
	return rc;
}

static const struct wparam perfbench_params[] = {
	{ "bench", "sched/messaging", "COLLECTION/BENCHMARK as perf bench names them: sched/pipe, syscall/basic, futex/hash, mem/memcpy" },
	{ "options", "", "the benchmark's own options, blank-separated: -l 1000, -s 1MB" },
	{ "perf", PERF_BIN, "the perf binary" },
	{ NULL, NULL, NULL },
};

const struct workload wl_perfbench = {
	.name = "perfbench",
	.summary = "perf bench COLLECTION/BENCHMARK, figures from its --format=simple output",
	.params = perfbench_params,
	.needs = 0,
	.run = perfbench_run,
};
