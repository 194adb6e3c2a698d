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
#include "spawn.h"
#include "workload.h"

#define HB_TASKS_MAX 20000		/* groups x fds x 2 */
#define HB_THREAD_DATASIZE_MAX 4096	/* bytes per message, mode=thread */

/* A plain decimal, digits with at most one '.', as hackbench prints its
 * time ("%.3f"): no sign, exponent or hex for strtod to take. */
static int plain_decimal(const char *s, const char *end)
{
	int dots = 0, digits = 0;
	for (const char *p = s; p < end; p++) {
		if (*p == '.')
			dots++;
		else if (*p >= '0' && *p <= '9')
			digits++;
		else
			return 0;
	}
	return digits > 0 && dots <= 1 && s[0] != '.';
}

/* Figures from hackbench's output (len bytes): 0, or -1 with the reason set. */
int hackbench_figures(struct wctx *c, const char *text, size_t len)
{
	int ntime = 0;
	double secs = NAN;
	long long tasks = -1;

	if (memchr(text, 0, len))
		return wl_fail(c, "hackbench's output holds a NUL byte");
	for (const char *l = text; *l;) {
		size_t n = strcspn(l, "\n");
		const char *t;
		if (n >= 11 && !strncmp(l, "Running in ", 11) && (t = strstr(l, "(== ")) && t < l + n) {
			char *e;
			errno = 0;
			tasks = strtoll(t + 4, &e, 10);
			if (errno || tasks < 0 || tasks > 100000000)
				tasks = -1;
		}
		if (n >= 6 && !strncmp(l, "Time: ", 6)) {
			const char *v = l + 6, *end = l + n;
			while (end > v && (end[-1] == ' ' || end[-1] == '\r'))
				end--;
			if (!plain_decimal(v, end) || end - v > 20)
				return wl_fail(c, "hackbench's result line \"%.*s\" is not a number of seconds", (int)(n < 80 ? n : 80), l);
			secs = strtod(v, NULL);
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
	if (!(secs > 0))
		return wl_fail(c, "hackbench's time is 0.000 s: too short to measure (raise loops or groups)");
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

int hackbench_args(struct wctx *c, struct hb_opts *o, char **argv, int n)
{
	static const char *const flag[] = { "-g", "-l", "-f", "-s" };
	long long v[4] = { o->groups, o->loops, o->fds, o->datasize };
	if (strcmp(o->mode, "process") && strcmp(o->mode, "thread"))
		return wl_fail(c, "mode=\"%s\": process or thread", o->mode);
	if (strcmp(o->via, "socket") && strcmp(o->via, "pipe") && strcmp(o->via, "inet"))
		return wl_fail(c, "transport=\"%s\": socket, pipe or inet (loopback TCP)", o->via);
	/* each receiver counts fds * loops messages in an unsigned int: past
	 * it hackbench ends early and still prints a time */
	if (o->loops * o->fds > 4000000000LL)
		return wl_fail(c, "loops x fds = %lld: at most 4000000000 (hackbench counts them in 32 bits)", o->loops * o->fds);
	if (o->groups * o->fds * 2 > HB_TASKS_MAX)
		return wl_fail(c, "groups x fds x 2 = %lld tasks: at most %d", o->groups * o->fds * 2, HB_TASKS_MAX);
	/* a thread keeps its message on a small stack: larger ones crash it */
	if (!strcmp(o->mode, "thread") && o->datasize > HB_THREAD_DATASIZE_MAX)
		return wl_fail(c, "datasize=%lld with mode=thread: at most %d", o->datasize, HB_THREAD_DATASIZE_MAX);
	/* short options and separate values: hackbench 2.4 refuses --loops=N */
	for (int i = 0; i < 4; i++) {
		snprintf(o->num[i], sizeof o->num[i], "%lld", v[i]);
		argv[n++] = (char *)flag[i];
		argv[n++] = o->num[i];
	}
	argv[n++] = !strcmp(o->mode, "thread") ? "-T" : "-P";
	if (!strcmp(o->via, "pipe"))
		argv[n++] = "-p";
	else if (!strcmp(o->via, "inet"))
		argv[n++] = "-i";
	if (o->fifo)
		argv[n++] = "-F";
	return n;
}

static int hackbench_run(struct wctx *c)
{
	struct rt_tool t;
	struct hb_opts o = { .mode = wl_param(c, "mode"), .via = wl_param(c, "transport") };
	char *argv[24];
	struct sbuf out = { 0 };
	struct run_result res;
	int rc = -1;
	long long fifo;

	if ((o.groups = int_in(c, "groups", 1, 1000)) < 0 || (o.loops = int_in(c, "loops", 1, 2000000000)) < 0 ||
	    (o.fds = int_in(c, "fds", 1, 1000)) < 0 || (o.datasize = int_in(c, "datasize", 1, 1 << 20)) < 0 ||
	    (fifo = int_in(c, "fifo", 0, 1)) < 0)
		return -1;
	o.fifo = (int)fifo;
	int n = wl_rt_tests_argv(c, wl_param(c, "rt_tests"), "hackbench", &t, argv);
	if (n < 0 || (n = hackbench_args(c, &o, argv, n)) < 0)
		return -1;
	argv[n] = NULL;
	jw_int(&c->details, "groups", o.groups);
	if (run_capture_here(argv, &out, 0, &res) != 0)
		return wl_fail(c, "unable to start hackbench: %s", strerror(errno));
	if (wl_tool_failed(c, "hackbench", &res, &out, NULL) == 0) {
		if (res.dropped)
			wl_fail(c, "hackbench printed %llu bytes past the %u MiB kept", res.dropped, PROC_CAPTURE_MAX >> 20);
		else
			rc = hackbench_figures(c, out.s ? out.s : "", out.len);
	}
	sb_free(&out);
	return rc;
}

static const struct wparam hackbench_params[] = {
	{ "groups", "4", "groups of senders and receivers (hackbench -g), 1..1000" },
	{ "loops", "100", "rounds: each sender sends loops messages to each of its group's receivers (-l)" },
	{ "fds", "20", "senders and receivers per group, each (-f)" },
	{ "datasize", "100", "bytes per message (-s), 1..1048576; at most 4096 with mode=thread" },
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
