/*
 * http.c - an ApacheBench-style load: `requests` GETs of one document,
 * `concurrency` of them in flight, against a server started here on
 * 127.0.0.1 (ours from lib/httpd, or busybox httpd, which forks per
 * connection like Apache's prefork) or an external one (url=).
 *
 * The client is one process with non-blocking sockets in an epoll set. Each
 * response is checked (status 200, exactly `size` body bytes); anything else,
 * a refused connect, a reset or a request older than req_timeout seconds is a
 * failure, counted and moved past. A server that dies mid-run therefore ends
 * the run quickly: after FAIL_STREAK failures in a row nothing new is started
 * and the run fails with the count in its reason. Figures follow ab's
 * definitions (docs/network.md) so the two can be compared line by line.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/epoll.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "defaults.h"
#include "httpc.h"
#include "httpd.h"
#include "spawn.h"
#include "workload.h"
#include "xio.h"

#define FAIL_STREAK 100		/* failures in a row that end a run */
#define MAX_CONCURRENCY 1000
#define MAX_REQUESTS 100000000LL
#define HDR_MAX 4096

enum { S_FREE, S_CONNECTING, S_SENDING, S_READING };
enum { F_CONNECT, F_TIMEOUT, F_STATUS, F_LENGTH, F_READ, F_NKINDS };
static const char *const fail_names[F_NKINDS] = { "connect", "timeout", "status", "length", "read" };

struct slot {
	int fd, state, reused, have_hdr, status, keep;
	double start, connected, sent_at, first_byte;	/* ab's phases, mono_now() */
	size_t sent, hlen;
	long long clen, body;	/* clen -1: no Content-Length, read to EOF */
	char hdr[HDR_MAX];
};

struct client {
	struct sockaddr_in sa;
	char req[512];
	size_t reqlen;
	long long size, requests, started, ok, failed, connects, reused;
	long long kinds[F_NKINDS];
	unsigned long long bytes;
	int keepalive, streak, stopping, ep;
	double timeout;
	double *times;			/* total ms of each request */
	float *conn, *wait;		/* connect and waiting ms of each (ab's Connection Times) */
	char last_err[160];
	char rbuf[256 * 1024];
};

static double cpu_s(int who)
{
	struct rusage ru;
	getrusage(who, &ru);
	return ru.ru_utime.tv_sec + ru.ru_stime.tv_sec + (ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e6;
}

static void start_request(struct client *k, struct slot *s);

static void slot_close(struct client *k, struct slot *s)
{
	if (s->fd >= 0)
		close(s->fd);	/* also leaves the epoll set */
	s->fd = -1;
	s->state = S_FREE;
}

static void next(struct client *k, struct slot *s)
{
	if (k->started < k->requests && !k->stopping)
		start_request(k, s);
	else
		slot_close(k, s);
}

static void fail(struct client *k, struct slot *s, int kind, const char *what, int err)
{
	k->failed++;
	k->kinds[kind]++;
	snprintf(k->last_err, sizeof k->last_err, "%s%s%s", what, err ? ": " : "", err ? strerror(err) : "");
	if (++k->streak >= FAIL_STREAK)
		k->stopping = 1;
	slot_close(k, s);
	next(k, s);
}

static int watch(struct client *k, struct slot *s, int op, unsigned events)
{
	struct epoll_event ev = { .events = events, .data.ptr = s };
	return epoll_ctl(k->ep, op, s->fd, &ev);
}

static void send_request(struct client *k, struct slot *s)
{
	while (s->sent < k->reqlen) {
		ssize_t n = send(s->fd, k->req + s->sent, k->reqlen - s->sent, MSG_NOSIGNAL | MSG_DONTWAIT);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
			if (s->state != S_SENDING) {
				s->state = S_SENDING;
				watch(k, s, EPOLL_CTL_MOD, EPOLLOUT);
			}
			return;
		}
		if (n < 0)
			return fail(k, s, s->reused ? F_READ : F_CONNECT, "send", errno);
		s->sent += n;
	}
	if (s->state == S_SENDING)
		watch(k, s, EPOLL_CTL_MOD, EPOLLIN);
	s->state = S_READING;
	s->sent_at = mono_now();
}

static void start_request(struct client *k, struct slot *s)
{
	int one = 1;
	k->started++;
	s->start = mono_now();
	s->sent = s->hlen = 0;
	s->have_hdr = s->status = s->keep = 0;
	s->clen = -1;
	s->body = 0;
	s->first_byte = 0;
	if (s->fd >= 0) {	/* a kept connection: no connect, no epoll change */
		s->reused = 1;
		s->connected = s->start;
		s->state = S_READING;
		send_request(k, s);
		return;
	}
	s->reused = 0;
	k->connects++;
	s->fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (s->fd < 0)
		return fail(k, s, F_CONNECT, "socket", errno);
	setsockopt(s->fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
	if (connect(s->fd, (struct sockaddr *)&k->sa, sizeof k->sa) == 0) {
		s->connected = mono_now();
		s->state = S_READING;
		if (watch(k, s, EPOLL_CTL_ADD, EPOLLIN) < 0)
			return fail(k, s, F_CONNECT, "epoll_ctl", errno);
		send_request(k, s);
		return;
	}
	if (errno != EINPROGRESS)
		return fail(k, s, F_CONNECT, "connect", errno);
	s->state = S_CONNECTING;
	if (watch(k, s, EPOLL_CTL_ADD, EPOLLOUT) < 0)
		return fail(k, s, F_CONNECT, "epoll_ctl", errno);
}

/* Status line and the two headers we need, from a complete header block. */
static void parse_header(struct slot *s)
{
	const char *p = s->hdr, *end = s->hdr + s->hlen;
	int v11 = s->hlen > 8 && !strncmp(p, "HTTP/1.1", 8);
	s->status = s->hlen > 12 && !strncmp(p, "HTTP/1.", 7) ? atoi(p + 9) : 0;
	s->keep = v11;
	while (p < end) {
		const char *eol = memchr(p, '\n', end - p);
		if (!eol)
			break;
		if (eol - p > 15 && !strncasecmp(p, "content-length:", 15))
			s->clen = strtoll(p + 15, NULL, 10);
		else if (eol - p > 11 && !strncasecmp(p, "connection:", 11)) {
			const char *v = p + 11;
			while (*v == ' ')
				v++;
			s->keep = !strncasecmp(v, "keep-alive", 10);
		}
		p = eol + 1;
	}
}

static void complete(struct client *k, struct slot *s, int eof)
{
	if (s->status != 200)
		return fail(k, s, F_STATUS, "status other than 200", 0);
	if (s->body != k->size)
		return fail(k, s, F_LENGTH, "body length other than size", 0);
	k->conn[k->ok] = (float)((s->connected - s->start) * 1e3);
	k->wait[k->ok] = (float)((s->first_byte - s->sent_at) * 1e3);
	k->times[k->ok++] = (mono_now() - s->start) * 1e3;
	k->streak = 0;
	if (s->reused)
		k->reused++;
	if (eof || !k->keepalive || !s->keep)
		slot_close(k, s);
	next(k, s);
}

static void on_readable(struct client *k, struct slot *s)
{
	for (;;) {
		ssize_t n = recv(s->fd, k->rbuf, sizeof k->rbuf, MSG_DONTWAIT);
		size_t blen;
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
			return;
		if (n < 0)
			return fail(k, s, F_READ, "recv", errno);
		if (n == 0) {
			if (!s->have_hdr)
				return fail(k, s, F_READ, "connection closed before a response", 0);
			if (s->clen >= 0 && s->body < s->clen)
				return fail(k, s, F_LENGTH, "connection closed in the body", 0);
			return complete(k, s, 1);
		}
		k->bytes += n;
		blen = n;
		if (!s->first_byte)
			s->first_byte = mono_now();
		if (!s->have_hdr) {
			size_t take = blen < sizeof s->hdr - s->hlen ? blen : sizeof s->hdr - s->hlen;
			size_t old = s->hlen;
			char *e;
			memcpy(s->hdr + s->hlen, k->rbuf, take);
			s->hlen += take;
			e = memmem(s->hdr, s->hlen, "\r\n\r\n", 4);
			if (!e) {
				if (s->hlen == sizeof s->hdr)
					return fail(k, s, F_READ, "response header too long", 0);
				continue;
			}
			s->hlen = e + 4 - s->hdr;
			s->have_hdr = 1;
			parse_header(s);
			blen = n - (s->hlen - old);
		}
		s->body += blen;
		if (s->clen >= 0 && s->body > s->clen)
			return fail(k, s, F_LENGTH, "more body bytes than Content-Length", 0);
		if (s->clen >= 0 && s->body == s->clen)
			return complete(k, s, 0);
	}
}

static void on_event(struct client *k, struct slot *s, unsigned ev)
{
	if (s->state == S_CONNECTING) {
		int err = 0;
		socklen_t l = sizeof err;
		getsockopt(s->fd, SOL_SOCKET, SO_ERROR, &err, &l);
		if (err)
			return fail(k, s, F_CONNECT, "connect", err);
		if (!(ev & EPOLLOUT))
			return;
		s->connected = mono_now();
		s->state = S_SENDING;
		send_request(k, s);
	} else if (s->state == S_SENDING) {
		send_request(k, s);
	} else if (s->state == S_READING) {
		on_readable(k, s);
	}
}

/* ab's "Connection Times (ms)" row of one phase: min, mean, [+/-sd],
 * median, max, over the n requests that completed. v is sorted here. */
static int cmp_float(const void *a, const void *b)
{
	float x = *(const float *)a, y = *(const float *)b;
	return (x > y) - (x < y);
}

static void phase_figures(struct wctx *c, const char *phase, float *v, long long n)
{
	double sum = 0, ss = 0, mean, med;
	char name[32];
	if (n <= 0)
		return;
	for (long long i = 0; i < n; i++)
		sum += v[i];
	mean = sum / n;
	for (long long i = 0; i < n; i++)
		ss += (v[i] - mean) * (v[i] - mean);
	qsort(v, (size_t)n, sizeof *v, cmp_float);
	med = n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2.0;
#define F(stat, x) (snprintf(name, sizeof name, "%s_%s_ms", phase, stat), wl_metric(c, name, (x), "ms", "lower"))
	F("min", v[0]);
	F("mean", mean);
	F("sd", n > 1 ? sqrt(ss / (n - 1)) : 0);
	F("median", med);
	F("max", v[n - 1]);
#undef F
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

/* Where busybox is: the appliance's, else one on PATH (Debian's package). */
static const char *find_busybox(char *buf, size_t len)
{
	const char *path = getenv("PATH");
	if (access(BUSYBOX, X_OK) == 0)
		return BUSYBOX;
	while (path && *path) {
		size_t n = strcspn(path, ":");
		snprintf(buf, len, "%.*s/busybox", (int)n, path);
		if (n && access(buf, X_OK) == 0)
			return buf;
		path += n + (path[n] == ':');
	}
	return NULL;
}

struct server {
	pid_t pid;
	char dir[4096];
	char docpath[4200];
};

/* busybox httpd -f -p 127.0.0.1:PORT -h DIR, serving DIR/doc. */
static int start_busybox(struct wctx *c, struct server *sv, struct sockaddr_in *sa, long long size)
{
	char bbuf[4096], addr[32];
	const char *bb = find_busybox(bbuf, sizeof bbuf), *tmp = getenv("TMPDIR");
	struct sockaddr_in probe = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	socklen_t sl = sizeof probe;
	char *doc;
	int fd, r;

	if (!bb)
		return wl_fail(c, "server=busybox: no busybox here (%s absent, none on PATH); not run", BUSYBOX);
	/* an ephemeral port for busybox: ask the kernel for one, then free it */
	fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0 || bind(fd, (struct sockaddr *)&probe, sizeof probe) < 0 ||
	    getsockname(fd, (struct sockaddr *)&probe, &sl) < 0)
		return wl_fail(c, "unable to find a free port: %s", strerror(errno));
	close(fd);
	*sa = probe;
	snprintf(sv->dir, sizeof sv->dir, "%s/bootbench-http.XXXXXX", c->dir ? c->dir : tmp && *tmp ? tmp : "/tmp");
	if (!mkdtemp(sv->dir))
		return wl_fail(c, "unable to create a directory for the document (%s): %s", sv->dir, strerror(errno));
	snprintf(sv->docpath, sizeof sv->docpath, "%s/doc", sv->dir);
	doc = xmalloc(size);
	httpd_fill_doc(doc, size);
	fd = open(sv->docpath, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	r = fd < 0 ? -1 : (int)write_all(fd, doc, size);
	free(doc);
	if (fd >= 0)
		close(fd);
	if (r < 0)
		return wl_fail(c, "unable to write %s: %s", sv->docpath, strerror(errno));
	snprintf(addr, sizeof addr, "127.0.0.1:%u", ntohs(probe.sin_port));
	sv->pid = fork();
	if (sv->pid < 0)
		return wl_fail(c, "unable to fork: %s", strerror(errno));
	if (sv->pid == 0) {
		int nul = open("/dev/null", O_RDWR);
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		if (nul >= 0) {
			dup2(nul, 0);
			dup2(nul, 1);
			dup2(nul, 2);
		}
		execl(bb, "busybox", "httpd", "-f", "-p", addr, "-h", sv->dir, (char *)NULL);
		_exit(127);
	}
	/* wait until it listens (or dies) */
	for (double t0 = mono_now(); mono_now() - t0 < 5;) {
		int st, s = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0), up;
		up = s >= 0 && connect(s, (struct sockaddr *)sa, sizeof *sa) == 0;
		if (s >= 0)
			close(s);
		if (up)
			return 0;
		if (waitpid(sv->pid, &st, WNOHANG) == sv->pid) {
			sv->pid = 0;
			return wl_fail(c, "%s httpd exited (status 0x%x) before listening on %s", bb, st, addr);
		}
		usleep(10000);
	}
	return wl_fail(c, "%s httpd did not listen on %s within 5 s", bb, addr);
}

static int start_ours(struct wctx *c, struct server *sv, struct sockaddr_in *sa, long long size)
{
	char err[256];
	struct httpd *h = httpd_open("127.0.0.1", 0, size, err, sizeof err);
	if (!h)
		return wl_fail(c, "%s", err);
	sa->sin_family = AF_INET;
	sa->sin_port = htons(httpd_port(h));
	sa->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	fflush(NULL);
	sv->pid = fork();
	if (sv->pid < 0) {
		httpd_close(h);
		return wl_fail(c, "unable to fork: %s", strerror(errno));
	}
	if (sv->pid == 0) {
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		httpd_serve(h, -1);
		_exit(1);
	}
	httpd_close(h);	/* the child has its own copy */
	return 0;
}

/* Stop the server; its CPU seconds (with its reaped children), or -1. */
static double stop_server(struct server *sv)
{
	struct rusage ru;
	int st;
	double cpu = -1;
	if (sv->pid > 0) {
		kill(sv->pid, SIGTERM);
		if (wait4(sv->pid, &st, 0, &ru) == sv->pid)
			cpu = ru.ru_utime.tv_sec + ru.ru_stime.tv_sec + (ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e6;
		sv->pid = 0;
	}
	if (sv->docpath[0])
		unlink(sv->docpath);
	if (sv->dir[0])
		rmdir(sv->dir);
	sv->docpath[0] = sv->dir[0] = 0;
	return cpu;
}

static int http_run(struct wctx *c)
{
	long long requests = wl_param_int(c, "requests"), conc = wl_param_int(c, "concurrency");
	long long size = wl_param_size(c, "size"), ka = wl_param_int(c, "keepalive");
	long long rto = wl_param_int(c, "req_timeout");
	const char *server = wl_param(c, "server"), *url = wl_param(c, "url");
	struct server sv = { 0 };
	struct client *k;
	struct slot *slots;
	struct epoll_event evs[64];
	char path[256], err[256], host[64];
	double t0, t1, cpu0, cpu1, wall, last_check, server_cpu;
	float *proc = NULL, *tot = NULL;
	int rc = 0;

	if (requests < 0 || conc < 0 || size < 0 || ka < 0 || rto < 0)
		return -1;
	if (requests < 1 || requests > MAX_REQUESTS)
		return wl_fail(c, "requests=%lld out of range (1..%lld)", requests, MAX_REQUESTS);
	if (conc < 1 || conc > MAX_CONCURRENCY)
		return wl_fail(c, "concurrency=%lld out of range (1..%d)", conc, MAX_CONCURRENCY);
	if (ka > 1)
		return wl_fail(c, "keepalive=%lld: 0 or 1", ka);
	if (rto < 1)
		return wl_fail(c, "req_timeout=%lld: at least 1 s", rto);
	if (size > HTTPD_MAX_DOC)
		return wl_fail(c, "size=%lld: at most %lld", size, (long long)HTTPD_MAX_DOC);
	if (conc > requests)
		conc = requests;
	if (loopback_up(err, sizeof err) < 0)
		return wl_fail(c, "%s", err);

	k = xcalloc(1, sizeof *k);
	slots = xcalloc(conc, sizeof *slots);
	k->times = xcalloc(requests, sizeof *k->times);
	k->conn = xcalloc(requests, sizeof *k->conn);
	k->wait = xcalloc(requests, sizeof *k->wait);
	snprintf(path, sizeof path, "%s", HTTPD_DOC_PATH);
	if (url && *url) {
		server = "url";
		if (httpc_parse_url(url, &k->sa, path, sizeof path, HTTPD_DOC_PATH) < 0) {
			rc = wl_fail(c, "url=\"%s\" is not [http://]A.B.C.D:PORT[/path]", url);
			goto out;
		}
	} else if (!strcmp(server, "ours")) {
		rc = start_ours(c, &sv, &k->sa, size);
	} else if (!strcmp(server, "busybox")) {
		rc = start_busybox(c, &sv, &k->sa, size);
	} else {
		rc = wl_fail(c, "server=\"%s\": ours or busybox", server);
	}
	if (rc < 0)
		goto out;

	inet_ntop(AF_INET, &k->sa.sin_addr, host, sizeof host);
	k->reqlen = snprintf(k->req, sizeof k->req,
			     "GET %s HTTP/1.0\r\nHost: %s:%u\r\nUser-Agent: bootbench\r\nAccept: */*\r\n%s\r\n",
			     path, host, ntohs(k->sa.sin_port), ka ? "Connection: keep-alive\r\n" : "");
	k->size = size;
	k->requests = requests;
	k->keepalive = ka;
	k->timeout = rto;
	k->ep = epoll_create1(EPOLL_CLOEXEC);
	if (k->ep < 0) {
		rc = wl_fail(c, "unable to create an epoll set: %s", strerror(errno));
		goto out;
	}

	cpu0 = cpu_s(RUSAGE_SELF);
	t0 = last_check = mono_now();
	for (long long i = 0; i < conc; i++) {
		slots[i].fd = -1;
		start_request(k, &slots[i]);
	}
	for (;;) {
		int busy = 0, n;
		double t;
		for (long long i = 0; i < conc; i++)
			busy |= slots[i].state != S_FREE;
		if (!busy)
			break;
		n = epoll_wait(k->ep, evs, 64, 100);
		if (n < 0 && errno != EINTR) {
			rc = wl_fail(c, "epoll_wait: %s", strerror(errno));
			break;
		}
		for (int i = 0; i < n; i++) {
			struct slot *s = evs[i].data.ptr;
			if (s->state != S_FREE)
				on_event(k, s, evs[i].events);
		}
		t = mono_now();
		if (t - last_check >= 0.05) {
			last_check = t;
			for (long long i = 0; i < conc; i++)
				if (slots[i].state != S_FREE && t - slots[i].start > k->timeout)
					fail(k, &slots[i], F_TIMEOUT, "request timed out", 0);
		}
	}
	t1 = mono_now();
	cpu1 = cpu_s(RUSAGE_SELF);
	close(k->ep);
	server_cpu = stop_server(&sv);
	if (rc < 0)
		goto out;

	wall = t1 - t0;
	/* ab's Connection Times: Connect, Processing (total less connect),
	 * Waiting (request sent to first byte), Total; request by request,
	 * before the totals are sorted */
	proc = xcalloc((size_t)k->ok + 1, sizeof *proc);
	tot = xcalloc((size_t)k->ok + 1, sizeof *tot);
	for (long long i = 0; i < k->ok; i++) {
		tot[i] = (float)k->times[i];
		proc[i] = (float)k->times[i] - k->conn[i];
	}
	qsort(k->times, k->ok, sizeof *k->times, cmp_double);
	wl_metric(c, "requests_per_s", k->ok / wall, "req/s", "higher");
	wl_metric(c, "transfer_rate", k->bytes / 1024.0 / wall, "KiB/s", "higher");
	wl_metric(c, "failed_requests", k->failed, "count", "lower");
	if (k->ok) {
		static const int pct[] = { 50, 66, 75, 80, 90, 95, 98, 99, 100 };
		/* ab's first "Time per request": concurrency x wall / requests;
		 * its second, "across all concurrent requests": wall / requests */
		wl_metric(c, "time_per_request_ms", conc * wall * 1e3 / k->ok, "ms", "lower");
		wl_metric(c, "time_per_request_all_ms", wall * 1e3 / k->ok, "ms", "lower");
		for (size_t i = 0; i < sizeof pct / sizeof *pct; i++) {
			char name[8];
			/* nearest rank: the smallest time at least pct% of requests took */
			long long r = (long long)ceil(pct[i] / 100.0 * k->ok) - 1;
			snprintf(name, sizeof name, "p%d", pct[i]);
			wl_metric(c, name, k->times[r < 0 ? 0 : r], "ms", "lower");
		}
	}
	if (k->ok) {
		phase_figures(c, "connect", k->conn, k->ok);
		phase_figures(c, "processing", proc, k->ok);
		phase_figures(c, "waiting", k->wait, k->ok);
		phase_figures(c, "total", tot, k->ok);
	}
	free(proc);
	free(tot);
	wl_metric(c, "client_cpu_pct", 100 * (cpu1 - cpu0) / wall, "%", "lower");
	if (server_cpu >= 0 && !strcmp(server, "ours"))
		wl_metric(c, "server_cpu_s", server_cpu, "s", "lower");

	jw_str(&c->details, "server", server);
	jw_int(&c->details, "port", ntohs(k->sa.sin_port));
	jw_int(&c->details, "requests_ok", k->ok);
	jw_int(&c->details, "requests_not_started", k->requests - k->started);
	jw_int(&c->details, "connections", k->connects);
	jw_int(&c->details, "keepalive_requests", k->reused);
	if (ka && k->ok > 1 && !k->reused)
		jw_str(&c->details, "keepalive_fallback",
		       "the server closed every connection: each request used a new one");
	jw_num(&c->details, "wall_s", wall);
	jw_num(&c->details, "client_cpu_s", cpu1 - cpu0);
	if (server_cpu >= 0)
		jw_num(&c->details, "server_cpu_s", server_cpu);
	jw_obj(&c->details, "failures");
	for (int i = 0; i < F_NKINDS; i++)
		jw_int(&c->details, fail_names[i], k->kinds[i]);
	jw_obj_end(&c->details);
	if (k->failed)
		jw_str(&c->details, "last_failure", k->last_err);
	if (k->stopping)
		rc = wl_fail(c, "stopped after %d failures in a row (last: %s): %lld of %lld requests answered, %lld failed",
			     FAIL_STREAK, k->last_err, k->ok, k->requests, k->failed);
out:
	stop_server(&sv);
	free(k->times);
	free(k->conn);
	free(k->wait);
	free(k);
	free(slots);
	return rc;
}

static const struct wparam http_params[] = {
	{ "requests", "10000", "requests to make in all (ab -n)" },
	{ "concurrency", "2", "requests in flight at once (ab -c)" },
	{ "size", "51200", "document size in bytes" },
	{ "keepalive", "0", "1: HTTP/1.0 with Connection: keep-alive (ab -k)" },
	{ "server", "ours", "ours (event-driven, lib/httpd) or busybox (httpd, forks per connection)" },
	{ "url", "", "A.B.C.D:PORT[/path] of a running server to load instead of starting one" },
	{ "req_timeout", "5", "seconds before a request counts as failed" },
	{ NULL, NULL, NULL },
};

/* ab's own words (ab -c N -n M prints them in this order) */
static const struct wl_label http_labels[] = {
	{ "requests_per_s", "ab: Requests per second" },
	{ "transfer_rate", "ab: Transfer rate" },
	{ "failed_requests", "ab: Failed requests" },
	{ "time_per_request_ms", "ab: Time per request (mean)" },
	{ "time_per_request_all_ms", "ab: Time per request (mean, across all concurrent requests)" },
	{ "connect_*_ms", "ab: Connection Times, Connect" },
	{ "processing_*_ms", "ab: Connection Times, Processing" },
	{ "waiting_*_ms", "ab: Connection Times, Waiting" },
	{ "total_*_ms", "ab: Connection Times, Total" },
	{ "p*", "ab: Percentage of the requests served within a certain time" },
	{ NULL },
};

const struct workload wl_http = {
	.name = "http",
	.labels = http_labels,
	.summary = "ApacheBench-style GETs over loopback against our server or busybox httpd",
	.params = http_params,
	.needs = 0,
	.run = http_run,
};
