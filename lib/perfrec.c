/*
 * perfrec.c - one perf record session a boot, switched on and off around
 * each run through its control pipes, its output cut after each run, and
 * a run's samples folded (see perfrec.h).
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "defaults.h"
#include "offcpu.h"
#include "perfrec.h"
#include "spawn.h"
#include "xio.h"

#define PERF_ACK_MS 30000	/* perf's start-up: synthesising the processes, the kernel maps */
#define PERF_DUMP_MS 60000	/* writing one run's file */
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

static void base_path(const struct perf_live *l, char *buf, size_t len)
{
	snprintf(buf, len, "%s/bootbench-perf.data", l->dir);
}

/* A line of perf's stderr, waiting up to ms: 1 with it in line, 0 at the
 * deadline, -1 when perf closed it. Lines longer than the buffer are cut. */
static int err_line(struct perf_live *l, char *line, size_t len, int ms)
{
	double end = mono_now() + ms / 1000.0;
	for (;;) {
		char *nl = memchr(l->pending, '\n', l->npending);
		struct pollfd p = { l->err, POLLIN, 0 };
		int left, r;
		ssize_t n;
		if (nl || l->npending == sizeof l->pending) {
			size_t ll = nl ? (size_t)(nl - l->pending) : l->npending;
			snprintf(line, len, "%.*s", (int)ll, l->pending);
			ll += nl ? 1 : 0;
			memmove(l->pending, l->pending + ll, l->npending - ll);
			l->npending -= ll;
			return 1;
		}
		left = (int)((end - mono_now()) * 1000);
		if (left <= 0)
			return 0;
		r = poll(&p, 1, left);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			continue;
		n = read(l->err, l->pending + l->npending, sizeof l->pending - l->npending);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return -1;
		l->npending += (size_t)n;
	}
}

/* Wait for perf's "ack" on the ack pipe, up to ms. */
static int wait_ack(struct perf_live *l, int ms)
{
	char buf[16];
	size_t got = 0;
	double end = mono_now() + ms / 1000.0;
	while (got < sizeof buf - 1) {
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
	return fail(l, "perf answered the switch with something else");
}

/* A command down perf's control pipe. When perf has gone, the write
 * fails with EPIPE and no SIGPIPE kills us (PID 1 ignores it anyway; the
 * host's `bootbench run` would die): the signal is blocked around the
 * write and a pending one taken. */
static int ctl_write(struct perf_live *l, const char *cmd)
{
	sigset_t pipe, old;
	int rc, e;
	struct timespec zero = { 0, 0 };
	sigemptyset(&pipe);
	sigaddset(&pipe, SIGPIPE);
	sigprocmask(SIG_BLOCK, &pipe, &old);
	rc = write_all(l->ctl, cmd, strlen(cmd));
	e = errno;
	if (rc < 0 && e == EPIPE && !sigismember(&old, SIGPIPE))
		while (sigtimedwait(&pipe, NULL, &zero) < 0 && errno == EINTR)
			;
	sigprocmask(SIG_SETMASK, &old, NULL);
	errno = e;
	return rc;
}

static int send_cmd(struct perf_live *l, const char *cmd)
{
	if (ctl_write(l, cmd) < 0)
		return fail(l, "unable to write to perf's control pipe: %s", strerror(errno));
	return wait_ack(l, PERF_ACK_MS);
}

/* Every file of the session (its cut outputs), removed. */
static void remove_files(const struct perf_live *l)
{
	DIR *d = opendir(l->dir);
	struct dirent *e;
	while (d && (e = readdir(d))) {
		char path[600];
		if (strncmp(e->d_name, "bootbench-perf.data", 19))
			continue;
		snprintf(path, sizeof path, "%s/%s", l->dir, e->d_name);
		unlink(path);
	}
	if (d)
		closedir(d);
}

void perf_none(struct perf_live *l, const char *why)
{
	memset(l, 0, sizeof *l);
	l->ctl = l->ack = l->err = -1;
	snprintf(l->why, sizeof l->why, "%s", why);
}

int perf_open(struct perf_live *l, const char *perf, const char *dir, unsigned hz, int offcpu)
{
	int ctl[2], ack[2], err[2];
	char data[128], freq[40];
	pid_t pid;
	memset(l, 0, sizeof *l);
	l->ctl = l->ack = l->err = -1;
	snprintf(l->perf, sizeof l->perf, "%s", perf);
	snprintf(l->dir, sizeof l->dir, "%s", dir);
	l->hz = hz;
	l->offcpu = offcpu;
	if (access(perf, X_OK) != 0)
		return fail(l, "no perf in the userland (%s)", perf);
	if (access("/proc/sys/kernel/perf_event_paranoid", R_OK) != 0)
		return fail(l, "this kernel has no perf events (no /proc/sys/kernel/perf_event_paranoid)");
	remove_files(l);
	base_path(l, data, sizeof data);
	if (pipe2(ctl, O_CLOEXEC) < 0 || pipe2(ack, O_CLOEXEC) < 0 || pipe2(err, O_CLOEXEC) < 0)
		return fail(l, "unable to make perf's pipes: %s", strerror(errno));
	/* the rate on the clock alone: a global -F would sample the switches
	 * by frequency too (one in hundreds was kept, measured) */
	snprintf(freq, sizeof freq, "cpu-clock/freq=%u/", hz);
	fflush(NULL);
	pid = fork();
	if (pid < 0) {
		close(ctl[0]); close(ctl[1]); close(ack[0]); close(ack[1]); close(err[0]); close(err[1]);
		return fail(l, "unable to fork perf: %s", strerror(errno));
	}
	if (pid == 0) {
		sigset_t none;
		int devnull = open("/dev/null", O_RDWR | O_CLOEXEC);
		/* kernel call chains only (a user-mode sample is one [user]
		 * frame anyway), and a 4 MiB buffer a CPU so perf wakes less:
		 * fork/exec's overhead at 6000 Hz fell from 9.4% to 8.6%
		 * (docs/why.md, "Overhead"). With offcpu every switch out with
		 * its chain (cs, period 1) and the switch records: where tasks
		 * blocked, and until when (offcpu.h); they cost a fork loop
		 * more, rt more than generic, so they are a level of their own */
		static const char *const fixed[] = { "record", "-a", "-g", "--kernel-callchains", "-m", PERF_MMAP_PAGES,
						     "-D", "-1", "--control", "fd:3,4", "--switch-output", "--no-buildid",
						     "--no-buildid-cache", "--max-size", PERF_MAX_DATA };
		char *argv[sizeof fixed / sizeof *fixed + 12];
		size_t n = 0;
		argv[n++] = l->perf;
		for (size_t i = 0; i < sizeof fixed / sizeof *fixed; i++)
			argv[n++] = (char *)fixed[i];
		argv[n++] = (char *)"-e";
		argv[n++] = freq;
		if (l->offcpu) {
			argv[n++] = (char *)"-e";
			argv[n++] = (char *)"cs/period=1/";
			argv[n++] = (char *)"--switch-events";
		}
		argv[n++] = (char *)"-o";
		argv[n++] = data;
		argv[n] = NULL;
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		sigemptyset(&none);
		sigprocmask(SIG_SETMASK, &none, NULL);
		setpgid(0, 0);
		/* out of the way of 0-4 first: a pipe may already be fd 3
		 * (the host's `bootbench run`), and dup2 onto itself would
		 * keep its close-on-exec (measured: perf lost its control
		 * pipe, and the next command killed us with SIGPIPE) */
		int fe = fcntl(err[1], F_DUPFD_CLOEXEC, 10), fc = fcntl(ctl[0], F_DUPFD_CLOEXEC, 10);
		int fa = fcntl(ack[1], F_DUPFD_CLOEXEC, 10);
		if (devnull < 0 || fe < 0 || fc < 0 || fa < 0)
			_exit(127);
		if (devnull >= 0 && devnull <= 4)
			devnull = fcntl(devnull, F_DUPFD_CLOEXEC, 10);
		if (devnull < 0)
			_exit(127);
		dup2(devnull, 0);
		dup2(devnull, 1);
		dup2(fe, 2);	/* "Dump FILE" after each cut, read by perf_collect */
		dup2(fc, 3);
		dup2(fa, 4);
		execv(argv[0], argv);
		_exit(127);
	}
	setpgid(pid, pid);
	close(ctl[0]);
	close(ack[1]);
	close(err[1]);
	l->pid = pid;
	l->ctl = ctl[1];
	l->ack = ack[0];
	l->err = err[0];
	/* set up and listening once it answers a ping */
	if (send_cmd(l, "ping\n") < 0) {
		char why[200];
		snprintf(why, sizeof why, "perf record did not start: %.150s", l->why);
		perf_close(l);
		snprintf(l->why, sizeof l->why, "%s", why);
		return -1;
	}
	l->ok = 1;
	return 0;
}

int perf_begin(struct perf_live *l)
{
	if (!l->ok)
		return -1;
	if (send_cmd(l, "enable\n") < 0)
		return -1;
	l->enabled = 1;
	return 0;
}

int perf_pause(struct perf_live *l)
{
	if (!l->ok || !l->enabled)
		return -1;
	l->enabled = 0;
	return send_cmd(l, "disable\n");
}

int perf_collect(struct perf_live *l, folded_resolve_fn fn, void *ctx, struct folded *f, struct offcpu *off,
		 unsigned long long *lost, char *err, size_t errlen)
{
	char line[600], file[600] = "", empty[128];
	struct sbuf out = {0};
	struct run_result res;
	int rc;
	*lost = 0;
	if (!l->ok) {
		snprintf(err, errlen, "no perf session: %s", l->why);
		return -1;
	}
	/* cut the output: perf writes the run's file and says where */
	kill(l->pid, SIGUSR2);
	for (;;) {
		char *d;
		rc = err_line(l, line, sizeof line, PERF_DUMP_MS);
		if (rc <= 0) {
			snprintf(err, errlen, "perf did not write the run's samples (%s)", rc < 0 ? "it ended" : "timed out");
			return -1;
		}
		/* "[ perf record: Dump /tmp/bootbench-perf.data.2024010100000812 ]" */
		if ((d = strstr(line, "perf record: Dump ")) != NULL) {
			char *sp;
			snprintf(file, sizeof file, "%s", d + 18);
			if ((sp = strchr(file, ' ')))
				*sp = 0;
			break;
		}
	}
	{
		char base[128];
		base_path(l, base, sizeof base);
		if (strncmp(file, base, strlen(base)) || strstr(file, "/..")) {
			snprintf(err, errlen, "perf wrote somewhere unexpected: %.300s", file);
			return -1;
		}
	}
	snprintf(empty, sizeof empty, "%s/bootbench-perf.data.nokallsyms", l->dir);
	{
		int fd = open(empty, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0600);
		if (fd < 0) {
			snprintf(err, errlen, "unable to create %s: %s", empty, strerror(errno));
			unlink(file);
			return -1;
		}
		close(fd);
	}
	{
		/* addresses only: the kernel's symbols are init's; perf reading
		 * /proc/kallsyms again cost half a second a run */
		char *argv[12];
		size_t n = 0;
		argv[n++] = l->perf;
		argv[n++] = (char *)"script";
		argv[n++] = (char *)"-i";
		argv[n++] = file;
		argv[n++] = (char *)"-F";
		argv[n++] = (char *)"comm,pid,tid,time,event,ip";
		if (l->offcpu && off) {	/* the switches, forks and exits offcpu.c pairs */
			argv[n++] = (char *)"--show-switch-events";
			argv[n++] = (char *)"--show-task-events";
		}
		argv[n++] = (char *)"--kallsyms";
		argv[n++] = empty;
		argv[n] = NULL;
		rc = run_capture(argv, &out, PERF_SCRIPT_MS, &res);
	}
	unlink(file);
	unlink(empty);
	if (rc < 0 || res.timed_out || !WIFEXITED(res.status) || WEXITSTATUS(res.status)) {
		char why[160];
		tool_reason(&out, NULL, why, sizeof why);
		snprintf(err, errlen, "perf script failed (%s): %s", res.timed_out ? "timed out" : "exit", why);
		sb_free(&out);
		return -1;
	}
	*lost = res.dropped;
	if (off) {
		/* without the run's own process (offcpu_root) not the run's
		 * work either: the idle task, init (it waits for the run), perf */
		offcpu_skip(off, 0);
		offcpu_skip(off, 1);
		offcpu_skip(off, (long)l->pid);
	}
	rc = perf_script_fold(out.s ? out.s : "", out.len, fn, ctx, f, l->offcpu ? off : NULL, err, errlen);
	sb_free(&out);
	return rc;
}

void perf_close(struct perf_live *l)
{
	int st;
	if (l->pid) {
		if (l->ctl >= 0 && ctl_write(l, "stop\n") == 0)
			stop_child(l->pid, 10000, &st);
		else {
			kill(-l->pid, SIGKILL);
			waitpid(l->pid, &st, 0);
		}
		kill(-l->pid, SIGKILL);
	}
	if (l->ctl >= 0)
		close(l->ctl);
	if (l->ack >= 0)
		close(l->ack);
	if (l->err >= 0)
		close(l->err);
	l->pid = 0;
	l->ctl = l->ack = l->err = -1;
	l->enabled = l->ok = 0;
	if (l->dir[0])
		remove_files(l);
}
