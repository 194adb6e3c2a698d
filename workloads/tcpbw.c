/*
 * tcpbw.c - TCP bandwidth over loopback, after lmbench's bw_tcp: a server
 * (forked here) writes `total` bytes in `msg`-byte writes over `streams`
 * connections to 127.0.0.1, the client reads them in `msg`-byte reads.
 * Connections are set up before the clock starts; the clock runs from the
 * client's "go" byte on each stream to the last stream's end of file, so it
 * covers every byte arriving, not just leaving. Each side's CPU seconds are
 * reported too: on loopback the "network" is two processes copying memory,
 * and the kernel's share of that copy is what differs between kernels.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "httpd.h"
#include "spawn.h"
#include "workload.h"
#include "xio.h"

#define MAX_STREAMS 64
#define MAX_MSG (64LL << 20)

static double ru_cpu(const struct rusage *ru)
{
	return ru->ru_utime.tv_sec + ru->ru_stime.tv_sec + (ru->ru_utime.tv_usec + ru->ru_stime.tv_usec) / 1e6;
}

/* The server child: accept every stream, wait for its go byte, then write
 * each its share. Exit status 0 only if every byte was written. */
static void __attribute__((noreturn)) server(int lfd, long long msg, long long total, int streams, char *buf)
{
	int fds[MAX_STREAMS];
	long long left[MAX_STREAMS];
	int open_n = streams;

	prctl(PR_SET_PDEATHSIG, SIGKILL);
	memset(buf, 'x', msg);
	for (int i = 0; i < streams; i++) {
		fds[i] = accept(lfd, NULL, NULL);
		if (fds[i] < 0)
			_exit(1);
		left[i] = total / streams + (i == 0 ? total % streams : 0);
	}
	close(lfd);
	for (int i = 0; i < streams; i++) {
		char go;
		if (read_all(fds[i], &go, 1) != 1)
			_exit(2);
	}
	if (streams == 1) {
		while (left[0] > 0) {
			ssize_t n = write(fds[0], buf, left[0] < msg ? left[0] : msg);
			if (n < 0 && errno == EINTR)
				continue;
			if (n <= 0)
				_exit(3);
			left[0] -= n;
		}
		_exit(close(fds[0]) < 0 ? 4 : 0);
	}
	while (open_n) {
		struct pollfd p[MAX_STREAMS];
		int idx[MAX_STREAMS], np = 0;
		for (int i = 0; i < streams; i++)
			if (fds[i] >= 0) {
				p[np] = (struct pollfd){ fds[i], POLLOUT, 0 };
				idx[np++] = i;
			}
		if (poll(p, np, -1) < 0) {
			if (errno == EINTR)
				continue;
			_exit(5);
		}
		for (int j = 0; j < np; j++) {
			int i = idx[j];
			ssize_t n;
			if (!p[j].revents)
				continue;
			n = send(fds[i], buf, left[i] < msg ? left[i] : msg, MSG_DONTWAIT | MSG_NOSIGNAL);
			if (n < 0 && (errno == EAGAIN || errno == EINTR))
				continue;
			if (n <= 0)
				_exit(3);
			left[i] -= n;
			if (!left[i]) {
				close(fds[i]);
				fds[i] = -1;
				open_n--;
			}
		}
	}
	_exit(0);
}

static int tcpbw_run(struct wctx *c)
{
	long long msg = wl_param_size(c, "msg"), total = wl_param_size(c, "total");
	long long streams = wl_param_int(c, "streams"), got = 0;
	struct sockaddr_in sa = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	socklen_t sl = sizeof sa;
	int fds[MAX_STREAMS], nconn, open_n, lfd, st, rc = 0;
	struct rusage ru0, ru1, sru;
	double t0 = 0, t1;
	char err[256], *buf;
	pid_t pid;

	if (msg < 0 || total < 0 || streams < 0)
		return -1;
	if (msg < 1 || msg > MAX_MSG)
		return wl_fail(c, "msg=%lld out of range (1..%lld)", msg, MAX_MSG);
	if (streams < 1 || streams > MAX_STREAMS)
		return wl_fail(c, "streams=%lld out of range (1..%d)", streams, MAX_STREAMS);
	if (total < streams)
		return wl_fail(c, "total=%lld: at least one byte per stream", total);
	if (loopback_up(err, sizeof err) < 0)
		return wl_fail(c, "%s", err);
	buf = xmalloc(msg);
	lfd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (lfd < 0 || bind(lfd, (struct sockaddr *)&sa, sizeof sa) < 0 || listen(lfd, MAX_STREAMS) < 0 ||
	    getsockname(lfd, (struct sockaddr *)&sa, &sl) < 0) {
		free(buf);
		return wl_fail(c, "unable to listen on 127.0.0.1: %s", strerror(errno));
	}
	fflush(NULL);
	pid = fork();
	if (pid < 0) {
		free(buf);
		return wl_fail(c, "unable to fork: %s", strerror(errno));
	}
	if (pid == 0)
		server(lfd, msg, total, streams, buf);
	close(lfd);
	for (nconn = 0; nconn < streams; nconn++) {
		fds[nconn] = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
		if (fds[nconn] < 0 || connect(fds[nconn], (struct sockaddr *)&sa, sizeof sa) < 0) {
			rc = wl_fail(c, "unable to connect to 127.0.0.1:%u: %s", ntohs(sa.sin_port), strerror(errno));
			if (fds[nconn] >= 0)
				close(fds[nconn]);
			break;
		}
	}
	open_n = nconn;
	if (rc == 0) {
		getrusage(RUSAGE_SELF, &ru0);
		t0 = mono_now();
		for (int i = 0; i < streams; i++)
			if (write_all(fds[i], "g", 1) != 1)
				rc = wl_fail(c, "unable to start stream %d: %s", i, strerror(errno));
	}
	while (rc == 0 && open_n) {
		if (streams == 1) {
			ssize_t n = read(fds[0], buf, msg);
			if (n < 0 && errno == EINTR)
				continue;
			if (n < 0)
				rc = wl_fail(c, "read: %s", strerror(errno));
			else if (n == 0)
				open_n = 0;
			got += n > 0 ? n : 0;
			continue;
		}
		struct pollfd p[MAX_STREAMS];
		int idx[MAX_STREAMS], np = 0;
		for (int i = 0; i < streams; i++)
			if (fds[i] >= 0) {
				p[np] = (struct pollfd){ fds[i], POLLIN, 0 };
				idx[np++] = i;
			}
		if (poll(p, np, -1) < 0) {
			if (errno != EINTR)
				rc = wl_fail(c, "poll: %s", strerror(errno));
			continue;
		}
		for (int j = 0; j < np && rc == 0; j++) {
			int i = idx[j];
			ssize_t n;
			if (!p[j].revents)
				continue;
			n = recv(fds[i], buf, msg, MSG_DONTWAIT);
			if (n < 0 && (errno == EAGAIN || errno == EINTR))
				continue;
			if (n < 0) {
				rc = wl_fail(c, "recv on stream %d: %s", i, strerror(errno));
			} else if (n == 0) {
				close(fds[i]);
				fds[i] = -1;
				open_n--;
			} else {
				got += n;
			}
		}
	}
	t1 = mono_now();
	getrusage(RUSAGE_SELF, &ru1);
	for (int i = 0; i < nconn; i++)
		if (fds[i] >= 0)
			close(fds[i]);
	if (rc < 0)
		kill(pid, SIGKILL);
	if (wait4(pid, &st, 0, &sru) != pid) {
		free(buf);
		return rc < 0 ? rc : wl_fail(c, "unable to wait for the server: %s", strerror(errno));
	}
	free(buf);
	if (rc < 0)
		return rc;
	if (!WIFEXITED(st) || WEXITSTATUS(st))
		return wl_fail(c, "the server failed (wait status 0x%x)", st);
	if (got != total)
		return wl_fail(c, "received %lld bytes of %lld", got, total);
	wl_metric(c, "bandwidth", total / (t1 - t0) / 1e6, "MB/s", "higher");
	wl_metric(c, "client_cpu_s", ru_cpu(&ru1) - ru_cpu(&ru0), "s", "lower");
	wl_metric(c, "server_cpu_s", ru_cpu(&sru), "s", "lower");
	jw_num(&c->details, "wall_s", t1 - t0);
	jw_int(&c->details, "bytes", total);
	jw_int(&c->details, "port", ntohs(sa.sin_port));
	return 0;
}

static const struct wparam tcpbw_params[] = {
	{ "msg", "64K", "bytes per write and per read (bw_tcp -m, iperf3 -l)" },
	{ "total", "256M", "bytes to move in all (bw_tcp -M)" },
	{ "streams", "1", "parallel connections (iperf3 -P), 1..64" },
	{ NULL, NULL, NULL },
};

const struct workload wl_tcpbw = {
	.name = "tcpbw",
	.summary = "TCP bandwidth over loopback, server and client forked here (lmbench bw_tcp)",
	.params = tcpbw_params,
	.needs = 0,
	.run = tcpbw_run,
};
