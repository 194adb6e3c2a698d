/*
 * rpcconn.c - an ONC RPC call over a connection (lib/rpcconn.c) holds its
 * deadline however the server behaves: one that reads a trickle of the
 * call and never answers, one that reads nothing, one that hangs up. The
 * bug this guards: a send that stalled waited 5 s per stall, so a 1 s call
 * to a server taking 8 KiB a second took 7 s (hostile review, stop 45).
 */
#include <errno.h>
#include <stdio.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "rpcconn.h"
#include "tap.h"

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* the server's end: 0 reads nothing, else that many bytes every 100 ms,
 * never a reply; ends when the client's end closes */
static pid_t server(const int sv[2], size_t per_tick)
{
	int fd = sv[1];
	pid_t pid = fork();
	if (pid)
		return pid;
	close(sv[0]);	/* or its read never sees the client hang up */
	for (;;) {
		static char buf[65536];
		usleep(100000);
		if (per_tick && read(fd, buf, per_tick) <= 0)
			_exit(0);
	}
}

/* one call of alen bytes of arguments, timeout_ms: its result, error text
 * and the seconds it took */
static int call(int fd, size_t alen, unsigned timeout_ms, char *err, size_t errlen, double *took)
{
	struct rpc_conn k;
	struct xdr_in x;
	unsigned char *args = calloc(1, alen);
	double t0 = now_s();
	int rc;
	rpc_conn_adopt(&k, fd, 0, 1 << 20);
	rc = rpc_call(&k, 100003, 3, 0, NULL, args, alen, timeout_ms, &x, err, errlen);
	*took = now_s() - t0;
	rpc_conn_close(&k);
	free(args);
	return rc;
}

static void pair(int sv[2])
{
	int small = 4096;
	if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv) < 0)
		printf("Bail out! socketpair: %s\n", strerror(errno)), exit(1);
	/* small buffers: a 256 KiB call cannot sit in them whole */
	setsockopt(sv[0], SOL_SOCKET, SO_SNDBUF, &small, sizeof small);
	setsockopt(sv[1], SOL_SOCKET, SO_RCVBUF, &small, sizeof small);
}

int main(void)
{
	int sv[2], st;
	char err[128];
	double took;
	pid_t pid;
	signal(SIGPIPE, SIG_IGN);
	tap_plan(6);

	/* a trickle: 800 bytes every 100 ms (8 KiB/s) of a 256 KiB call */
	pair(sv);
	pid = server(sv, 800);
	close(sv[1]);
	ok(call(sv[0], 256 << 10, 1000, err, sizeof err, &took) < 0, "a call a server reads at 8 KiB/s fails: %s", err);
	ok(took < 3.0, "within its 1 s deadline and a little, not 5 s a stall: %.2f s", took);
	waitpid(pid, &st, 0);

	/* a server that reads nothing */
	pair(sv);
	pid = server(sv, 0);
	ok(call(sv[0], 256 << 10, 1500, err, sizeof err, &took) < 0 && strstr(err, "timed out"),
	   "a call a server never reads times out: %s", err);
	ok(took < 3.5, "within its 1.5 s deadline: %.2f s", took);
	kill(pid, SIGKILL);
	waitpid(pid, &st, 0);
	close(sv[1]);

	/* a server that has gone: an error at once, no signal */
	pair(sv);
	close(sv[1]);
	ok(call(sv[0], 64, 5000, err, sizeof err, &took) < 0, "a call to a closed connection fails: %s", err);
	ok(took < 1.0, "at once, not at its 5 s deadline: %.2f s", took);
	return tap_done();
}
