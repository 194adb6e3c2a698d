/*
 * spawn.c - fork/exec with capture and deadline; child reaping.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "spawn.h"
#include "xio.h"

double mono_now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

void status_text(int st, char *buf, size_t len)
{
	if (WIFEXITED(st))
		snprintf(buf, len, "exit %d", WEXITSTATUS(st));
	else if (WIFSIGNALED(st))
		snprintf(buf, len, "killed by signal %d (%s)", WTERMSIG(st), strsignal(WTERMSIG(st)));
	else
		snprintf(buf, len, "status 0x%x", st);
}

int reap_children(void)
{
	int n = 0, st;
	while (waitpid(-1, &st, WNOHANG) > 0)
		n++;
	return n;
}

static int capture(char *const argv[], int in_fd, struct sbuf *out, unsigned timeout_ms, struct run_result *res,
		   int own_group)
{
	int pfd[2] = { -1, -1 };
	double t0 = mono_now(), deadline = t0 + timeout_ms / 1000.0;
	pid_t pid;

	memset(res, 0, sizeof *res);
	if (out && pipe2(pfd, O_CLOEXEC) < 0)
		return -1;
	pid_t parent = getpid();
	fflush(NULL);
	pid = fork();
	if (pid < 0) {
		if (out) {
			close(pfd[0]);
			close(pfd[1]);
		}
		return -1;
	}
	if (pid == 0) {
		sigset_t none;
		int devnull = open("/dev/null", O_RDONLY);
		/* a tool dies with whoever runs it (a killed host run) */
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		if (getppid() != parent)
			_exit(127);
		sigemptyset(&none);
		sigprocmask(SIG_SETMASK, &none, NULL);
		if (own_group)
			setpgid(0, 0);
		if (in_fd >= 0)
			dup2(in_fd, 0);
		else if (devnull >= 0)
			dup2(devnull, 0);
		if (out) {
			dup2(pfd[1], 1);
			dup2(pfd[1], 2);
		}
		execv(argv[0], argv);
		fprintf(stderr, "unable to run %s: %s\n", argv[0], strerror(errno));
		_exit(127);
	}
	if (own_group)
		setpgid(pid, pid);
	pid_t target = own_group ? -pid : pid;
	if (out) {
		char buf[4096];
		close(pfd[1]);
		for (;;) {
			struct pollfd p = { pfd[0], POLLIN, 0 };
			int wait_ms = -1, r;
			if (timeout_ms) {
				double left = deadline - mono_now();
				if (left <= 0) {
					res->timed_out = 1;
					kill(target, SIGKILL);
					break;
				}
				wait_ms = (int)(left * 1000) + 1;
			}
			r = poll(&p, 1, wait_ms);
			if (r < 0 && errno == EINTR)
				continue;
			if (r == 0)
				continue;	/* deadline checked above */
			if (r < 0)
				break;
			ssize_t n = read(pfd[0], buf, sizeof buf);
			if (n < 0 && errno == EINTR)
				continue;
			if (n <= 0)
				break;
			if (out->len < PROC_CAPTURE_MAX) {
				size_t room = PROC_CAPTURE_MAX - out->len;
				sb_add(out, buf, (size_t)n < room ? (size_t)n : room);
				if ((size_t)n > room)
					res->dropped += (size_t)n - room;
			} else {
				res->dropped += (size_t)n;	/* bounded, and counted */
			}
		}
		close(pfd[0]);
	}
	for (;;) {
		int st;
		pid_t r = wait4(pid, &st, timeout_ms && !res->timed_out ? WNOHANG : 0, &res->ru);
		if (r == pid) {
			res->status = st;
			break;
		}
		if (r < 0 && errno != EINTR)
			return -1;
		if (r == 0) {
			if (mono_now() >= deadline) {
				res->timed_out = 1;
				kill(target, SIGKILL);
				continue;
			}
			usleep(10000);
		}
	}
	res->wall_s = mono_now() - t0;
	return 0;
}

int run_capture(char *const argv[], struct sbuf *out, unsigned timeout_ms, struct run_result *res)
{
	return capture(argv, -1, out, timeout_ms, res, 1);
}

int run_capture_here(char *const argv[], struct sbuf *out, unsigned timeout_ms, struct run_result *res)
{
	return capture(argv, -1, out, timeout_ms, res, 0);
}

int run_capture_in(char *const argv[], int in_fd, struct sbuf *out, unsigned timeout_ms, struct run_result *res)
{
	return capture(argv, in_fd, out, timeout_ms, res, 0);
}

size_t argv_split(char *s, char **argv, size_t n, size_t max)
{
	char *save = NULL;
	for (char *t = strtok_r(s, " \t", &save); t; t = strtok_r(NULL, " \t", &save)) {
		if (n >= max)
			return (size_t)-1;
		argv[n++] = t;
	}
	return n;
}

void tool_reason(const struct sbuf *out, const char *prefix, char *buf, size_t len)
{
	const char *s = out && out->s ? out->s : "", *end = s + (out ? out->len : 0);
	const char *pick = NULL, *pick_end = NULL;
	size_t plen = prefix ? strlen(prefix) : 0;

	for (const char *l = s; l < end;) {
		const char *nl = memchr(l, '\n', (size_t)(end - l)), *e = nl ? nl : end;
		const char *t = e;
		while (t > l && (t[-1] == ' ' || t[-1] == '\t' || t[-1] == '\r'))
			t--;
		if (prefix && (size_t)(t - l) >= plen && !memcmp(l, prefix, plen)) {
			pick = l, pick_end = t;
			break;
		}
		if (t > l)
			pick = l, pick_end = t;	/* the last non-blank line so far */
		l = nl ? nl + 1 : end;
	}
	if (!pick)
		snprintf(buf, len, "no output");
	else
		snprintf(buf, len, "%.*s", (int)(pick_end - pick), pick);
}

int spawn_here(char *const argv[], int outfd)
{
	pid_t parent = getpid();
	fflush(NULL);
	pid_t pid = fork();
	if (pid == 0) {
		sigset_t none;
		int devnull = open("/dev/null", O_RDWR);
		/* a load must not outlive whoever measures beside it */
		prctl(PR_SET_PDEATHSIG, SIGTERM);
		if (getppid() != parent)
			_exit(127);
		sigemptyset(&none);
		sigprocmask(SIG_SETMASK, &none, NULL);
		if (devnull >= 0)
			dup2(devnull, 0);
		if (outfd < 0)
			outfd = devnull;
		if (outfd >= 0) {
			dup2(outfd, 1);
			dup2(outfd, 2);
		}
		execv(argv[0], argv);
		fprintf(stderr, "unable to run %s: %s\n", argv[0], strerror(errno));
		_exit(127);
	}
	return pid;
}

int child_exited(int pid, int *status)
{
	pid_t r;
	do
		r = waitpid(pid, status, WNOHANG);
	while (r < 0 && errno == EINTR);
	return r == pid ? 1 : r == 0 ? 0 : -1;
}

int stop_child(int pid, unsigned grace_ms, int *status)
{
	double until = mono_now() + grace_ms / 1000.0;
	int r = child_exited(pid, status);
	if (r != 0)
		return r > 0 ? 0 : -1;
	kill(pid, SIGTERM);
	while (mono_now() < until) {
		if ((r = child_exited(pid, status)) != 0)
			return r > 0 ? 0 : -1;
		usleep(10000);
	}
	kill(pid, SIGKILL);
	while ((r = waitpid(pid, status, 0)) < 0 && errno == EINTR)
		;
	return r == pid ? 0 : -1;
}

int scratch_file(const char *dir, char *name, size_t len)
{
	char path[4200];
	if (snprintf(path, sizeof path, "%s/.bootbench-scratch.XXXXXX", dir) >= (int)sizeof path) {
		errno = ENAMETOOLONG;
		return -1;
	}
	int fd = mkstemp(path);
	if (fd < 0)
		return -1;
	unlink(path);
	if (fd < 3) {
		/* with 0-2 closed, a child's dup2 onto its stdio would take it */
		int hi = fcntl(fd, F_DUPFD, 3);
		close(fd);
		if (hi < 0)
			return -1;
		fd = hi;
	}
	snprintf(name, len, "/proc/self/fd/%d", fd);
	return fd;
}
