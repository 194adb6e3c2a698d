/*
 * perfrec.c - perf record around a run, switched through its control
 * pipes, and its samples folded (see perfrec.h).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "perfrec.h"
#include "spawn.h"
#include "xio.h"

#define PERF_ACK_MS 20000	/* perf's start-up: synthesising the processes, the kernel maps */
#define PERF_SCRIPT_MS 120000
#define PERF_MAX_DATA "256M"	/* --max-size: perf stops writing past it */

static int fail(struct perf_live *l, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int fail(struct perf_live *l, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(l->why, sizeof l->why, fmt, ap);
	va_end(ap);
	return -1;
}

static void data_path(const struct perf_live *l, char *buf, size_t len)
{
	snprintf(buf, len, "%s/bootbench-perf.data", l->dir);
}

int perf_open(struct perf_live *l, const char *perf, const char *dir, unsigned hz)
{
	char *para;
	memset(l, 0, sizeof *l);
	l->ctl = l->ack = -1;
	snprintf(l->perf, sizeof l->perf, "%s", perf);
	snprintf(l->dir, sizeof l->dir, "%s", dir);
	l->hz = hz;
	if (access(perf, X_OK) != 0)
		return fail(l, "no perf in the userland (%s)", perf);
	/* -1 (or below) lets an unprivileged user sample; root always may,
	 * unless the kernel has no perf events at all */
	if (access("/proc/sys/kernel/perf_event_paranoid", R_OK) != 0)
		return fail(l, "this kernel has no perf events (no /proc/sys/kernel/perf_event_paranoid)");
	para = read_attr("/proc/sys/kernel/perf_event_paranoid");
	free(para);
	l->ok = 1;
	return 0;
}

/* Wait for perf's "ack" on the ack pipe, up to ms. */
static int wait_ack(struct perf_live *l, int ms)
{
	char buf[16];
	size_t got = 0;
	double end = mono_now() + ms / 1000.0;
	while (got < 4) {
		struct pollfd p = { l->ack, POLLIN, 0 };
		int left = (int)((end - mono_now()) * 1000), r;
		ssize_t n;
		if (left <= 0)
			return fail(l, "perf did not acknowledge the switch in time");
		r = poll(&p, 1, left);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			continue;
		n = read(l->ack, buf + got, sizeof buf - 1 - got);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return fail(l, "perf ended before it acknowledged the switch");
		got += (size_t)n;
		buf[got] = 0;
		if (strstr(buf, "ack\n"))
			return 0;
	}
	return strstr(buf, "ack") ? 0 : fail(l, "perf answered the switch with something else");
}

static int send_cmd(struct perf_live *l, const char *cmd)
{
	if (write_all(l->ctl, cmd, strlen(cmd)) < 0)
		return fail(l, "unable to write to perf's control pipe: %s", strerror(errno));
	return wait_ack(l, PERF_ACK_MS);
}

int perf_begin(struct perf_live *l)
{
	int ctl[2], ack[2];
	char data[128], freq[16], cfd[32];
	pid_t pid;
	if (!l->ok)
		return -1;
	if (l->pid)
		perf_abort(l);
	data_path(l, data, sizeof data);
	unlink(data);
	if (pipe2(ctl, O_CLOEXEC) < 0 || pipe2(ack, O_CLOEXEC) < 0)
		return fail(l, "unable to make perf's control pipes: %s", strerror(errno));
	snprintf(freq, sizeof freq, "%u", l->hz);
	/* the child's fds 3 and 4, after the dup2s below */
	snprintf(cfd, sizeof cfd, "fd:3,4");
	fflush(NULL);
	pid = fork();
	if (pid < 0) {
		close(ctl[0]); close(ctl[1]); close(ack[0]); close(ack[1]);
		return fail(l, "unable to fork perf: %s", strerror(errno));
	}
	if (pid == 0) {
		sigset_t none;
		int devnull = open("/dev/null", O_RDWR);
		char *argv[] = { l->perf, (char *)"record", (char *)"-a", (char *)"-g", (char *)"-e", (char *)"cpu-clock",
				 (char *)"-F", freq, (char *)"-D", (char *)"-1", (char *)"--control", cfd,
				 (char *)"--no-buildid", (char *)"--no-buildid-cache", (char *)"-q",
				 (char *)"--max-size", (char *)PERF_MAX_DATA, (char *)"-o", data, NULL };
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		sigemptyset(&none);
		sigprocmask(SIG_SETMASK, &none, NULL);
		setpgid(0, 0);
		dup2(devnull, 0);
		dup2(devnull, 1);	/* its messages would land among the console's records */
		dup2(devnull, 2);
		dup2(ctl[0], 3);
		dup2(ack[1], 4);
		execv(argv[0], argv);
		_exit(127);
	}
	setpgid(pid, pid);
	close(ctl[0]);
	close(ack[1]);
	l->pid = pid;
	l->ctl = ctl[1];
	l->ack = ack[0];
	if (send_cmd(l, "enable\n") < 0) {
		char why[200];
		snprintf(why, sizeof why, "%s", l->why);
		perf_abort(l);
		snprintf(l->why, sizeof l->why, "%s", why);
		return -1;
	}
	l->enabled = 1;
	return 0;
}

int perf_pause(struct perf_live *l)
{
	if (!l->pid || !l->enabled)
		return -1;
	l->enabled = 0;
	return send_cmd(l, "disable\n");
}

void perf_abort(struct perf_live *l)
{
	int st;
	char data[128];
	if (l->pid) {
		kill(-l->pid, SIGKILL);
		kill(l->pid, SIGKILL);
		waitpid(l->pid, &st, 0);
	}
	if (l->ctl >= 0)
		close(l->ctl);
	if (l->ack >= 0)
		close(l->ack);
	l->pid = 0;
	l->ctl = l->ack = -1;
	l->enabled = 0;
	data_path(l, data, sizeof data);
	unlink(data);
}

int perf_collect(struct perf_live *l, folded_resolve_fn fn, void *ctx, struct folded *f, unsigned long long *lost,
		 char *err, size_t errlen)
{
	char data[128];
	struct sbuf out = {0};
	struct run_result res;
	int st = 0, rc;
	*lost = 0;
	if (!l->pid) {
		snprintf(err, errlen, "no recording");
		return -1;
	}
	/* "stop" ends the session: perf writes its data and exits */
	if (write_all(l->ctl, "stop\n", 5) < 0 || stop_child(l->pid, 30000, &st) < 0) {
		snprintf(err, errlen, "perf record did not end: %s", l->why);
		perf_abort(l);
		return -1;
	}
	close(l->ctl);
	close(l->ack);
	l->pid = 0;
	l->ctl = l->ack = -1;
	data_path(l, data, sizeof data);
	{
		char *argv[] = { l->perf, (char *)"script", (char *)"-i", data, (char *)"-F", (char *)"comm,ip",
				 (char *)"--no-demangle", NULL };
		rc = run_capture(argv, &out, PERF_SCRIPT_MS, &res);
	}
	unlink(data);
	if (rc < 0 || res.timed_out || !WIFEXITED(res.status) || WEXITSTATUS(res.status)) {
		char why[160];
		tool_reason(&out, NULL, why, sizeof why);
		snprintf(err, errlen, "perf script failed (%s): %s", res.timed_out ? "timed out" : "exit", why);
		sb_free(&out);
		return -1;
	}
	*lost = res.dropped;
	rc = folded_from_perf_script(out.s ? out.s : "", out.len, fn, ctx, f, err, errlen);
	sb_free(&out);
	return rc;
}
