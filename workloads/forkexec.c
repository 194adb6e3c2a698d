/*
 * forkexec.c - process creation: fork + exec + wait of a trivial program,
 * `count` times. Kernels differ here (scheduler, memory management, security
 * hooks) and it needs no disk: the figure that deterministic mode resolves
 * best (FINDINGS: fork+exec x2000 repeated to 0.24%).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "spawn.h"
#include "workload.h"

static int forkexec_run(struct wctx *c)
{
	long long count = wl_param_int(c, "count");
	const char *prog = wl_param(c, "program");
	char *argv[] = { (char *)prog, NULL };
	struct rusage ru0, ru1;
	double t0, t1;

	if (count <= 0)
		return count < 0 ? -1 : wl_fail(c, "count must be at least 1");
	if (access(prog, X_OK) != 0)
		return wl_fail(c, "cannot execute %s: %s", prog, strerror(errno));
	getrusage(RUSAGE_CHILDREN, &ru0);
	t0 = mono_now();
	for (long long i = 0; i < count; i++) {
		int st;
		pid_t pid = fork();
		if (pid < 0)
			return wl_fail(c, "fork failed after %lld children: %s", i, strerror(errno));
		if (pid == 0) {
			execv(prog, argv);
			_exit(127);
		}
		if (waitpid(pid, &st, 0) < 0 || !WIFEXITED(st) || WEXITSTATUS(st) != 0)
			return wl_fail(c, "%s did not exit 0 (child %lld)", prog, i);
	}
	t1 = mono_now();
	getrusage(RUSAGE_CHILDREN, &ru1);
	wl_metric(c, "forkexec_us", (t1 - t0) / count * 1e6, "us", "lower");
	/* The children's CPU time is sampled at the timer tick (4 ms at HZ=250):
	 * at these totals it is mostly quantisation, so it is a detail, not a
	 * figure to compare. */
	jw_num(&c->details, "children_user_s",
	       (ru1.ru_utime.tv_sec - ru0.ru_utime.tv_sec) + (ru1.ru_utime.tv_usec - ru0.ru_utime.tv_usec) / 1e6);
	jw_num(&c->details, "children_sys_s",
	       (ru1.ru_stime.tv_sec - ru0.ru_stime.tv_sec) + (ru1.ru_stime.tv_usec - ru0.ru_stime.tv_usec) / 1e6);
	jw_int(&c->details, "count", count);
	return 0;
}

static const struct wparam forkexec_params[] = {
	{ "count", "2000", "fork+exec+wait cycles" },
	{ "program", "/bin/true", "program to execute (static busybox true in the appliance)" },
	{ NULL, NULL, NULL },
};

const struct workload wl_forkexec = {
	.name = "forkexec",
	.summary = "process creation: fork, exec a trivial program, wait; time per cycle",
	.params = forkexec_params,
	.needs = 0,
	.run = forkexec_run,
};
