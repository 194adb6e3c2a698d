/*
 * hackbench.c - rt-tests' hackbench (the userland's glibc layer, rootfs/
 * recipes/rt-tests.sh): N groups of 2 * fds tasks passing messages, over
 * sockets, pipes or loopback TCP, as processes or threads. The figure is the
 * seconds the whole exchange took, from hackbench's one result line
 * "Time: S" (it has no machine-readable output; the line's shape is fixed by
 * hackbench.c in rt-tests 2.4 and parsed here, whole).
 *
 * Every option is a parameter of its own, checked here, so nothing of the
 * plan reaches hackbench's command line as free text.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "defaults.h"
#include "proc.h"
#include "workload.h"

/* Figures from hackbench's output: 0, or -1 with the reason set. */
int hackbench_figures(struct wctx *c, const char *text)
{
	int ntime = 0;
	double secs = NAN;
	long long tasks = -1;

	for (const char *l = text; *l;) {
		size_t n = strcspn(l, "\n");
		char line[256], *end;
		snprintf(line, sizeof line, "%.*s", (int)(n < sizeof line ? n : sizeof line - 1), l);
		const char *t = strstr(line, "(== ");
		if (!strncmp(line, "Running in ", 11) && t)
			tasks = strtoll(t + 4, NULL, 10);
		if (!strncmp(line, "Time: ", 6) && line[6] >= '0' && line[6] <= '9') {
			errno = 0;
			double v = strtod(line + 6, &end);
			end += strspn(end, " \t\r");
			if (errno || *end || !isfinite(v))
				return wl_fail(c, "hackbench's result line \"%.80s\" is not a number of seconds", line);
			secs = v;
			ntime++;
		}
		l += n;
		if (*l)
			l++;
	}
	if (ntime == 0)
		return wl_fail(c, "hackbench printed no \"Time:\" line");
	if (ntime > 1)
		return wl_fail(c, "hackbench printed %d result lines where one was expected", ntime);
	wl_metric(c, "total_s", secs, "s", "lower");
	if (tasks >= 0)
		jw_int(&c->details, "tasks", tasks);
	return 0;
}

/* A whole number parameter in [lo, hi]; -1 with the reason set otherwise. */
static long long int_in(struct wctx *c, const char *name, long long lo, long long hi)
{
	long long v = wl_param_int(c, name);
	if (v < 0)
		return -1;
	if (v < lo || v > hi)
		return wl_fail(c, "parameter %s=%lld is outside %lld..%lld", name, v, lo, hi);
	return v;
}

static int hackbench_run(struct wctx *c)
{
	const char *mode = wl_param(c, "mode"), *via = wl_param(c, "transport");
	char paths[WL_RT_PATHS], g[40], l[40], f[40], s[40], st[64], why[161];
	char *argv[20];
	struct sbuf out = { 0 };
	struct run_result res;
	int rc = -1;
	long long groups = int_in(c, "groups", 1, 1000), loops = int_in(c, "loops", 1, 2000000000);
	long long fds = int_in(c, "fds", 1, 1000), size = int_in(c, "datasize", 1, 1 << 20);
	long long fifo = int_in(c, "fifo", 0, 1);

	if (groups < 0 || loops < 0 || fds < 0 || size < 0 || fifo < 0)
		return -1;
	if (strcmp(mode, "process") && strcmp(mode, "thread"))
		return wl_fail(c, "mode=\"%s\": process or thread", mode);
	if (strcmp(via, "socket") && strcmp(via, "pipe") && strcmp(via, "inet"))
		return wl_fail(c, "transport=\"%s\": socket, pipe or inet (loopback TCP)", via);
	int n = wl_rt_tests_argv(c, wl_param(c, "rt_tests"), "hackbench", paths, argv);
	if (n < 0)
		return -1;
	/* short options and separate values: hackbench 2.4 refuses --loops=N */
	snprintf(g, sizeof g, "%lld", groups);
	snprintf(l, sizeof l, "%lld", loops);
	snprintf(f, sizeof f, "%lld", fds);
	snprintf(s, sizeof s, "%lld", size);
	argv[n++] = "-g";
	argv[n++] = g;
	argv[n++] = "-l";
	argv[n++] = l;
	argv[n++] = "-f";
	argv[n++] = f;
	argv[n++] = "-s";
	argv[n++] = s;
	argv[n++] = !strcmp(mode, "thread") ? "-T" : "-P";
	if (!strcmp(via, "pipe"))
		argv[n++] = "-p";
	else if (!strcmp(via, "inet"))
		argv[n++] = "-i";
	if (fifo)
		argv[n++] = "-F";
	argv[n] = NULL;
	jw_int(&c->details, "groups", groups);
	if (run_capture_here(argv, &out, 0, &res) != 0)
		return wl_fail(c, "unable to start hackbench: %s", strerror(errno));
	if (!WIFEXITED(res.status) || WEXITSTATUS(res.status) != 0) {
		status_text(res.status, st, sizeof st);
		tool_reason(&out, NULL, why, sizeof why);
		wl_fail(c, "hackbench %s: %s", st, why);
	} else if (res.dropped) {
		wl_fail(c, "hackbench printed %llu bytes past the %u MiB kept", res.dropped, PROC_CAPTURE_MAX >> 20);
	} else {
		rc = hackbench_figures(c, out.s ? out.s : "");
	}
	sb_free(&out);
	return rc;
}

static const struct wparam hackbench_params[] = {
	{ "groups", "4", "groups of senders and receivers (hackbench -g), 1..1000" },
	{ "loops", "100", "messages each sender sends (-l)" },
	{ "fds", "20", "senders and receivers per group, each (-f)" },
	{ "datasize", "100", "bytes per message (-s)" },
	{ "mode", "process", "process (fork) or thread (POSIX threads)" },
	{ "transport", "socket", "socket (UNIX socketpair), pipe, or inet (loopback TCP)" },
	{ "fifo", "0", "1: the main task runs SCHED_FIFO (-F)" },
	{ "rt_tests", RT_TESTS_DIR, "the rt-tests layer (bin/, lib/ and its loader)" },
	{ NULL, NULL, NULL },
};

const struct workload wl_hackbench = {
	.name = "hackbench",
	.summary = "rt-tests' hackbench: seconds for N groups of messaging tasks",
	.params = hackbench_params,
	.needs = 0,
	.run = hackbench_run,
};
