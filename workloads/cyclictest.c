/*
 * cyclictest.c - rt-tests' cyclictest (the userland's glibc layer, rootfs/
 * recipes/rt-tests.sh): wakeup latency of timer threads at a real-time
 * priority, optionally while hackbench loads the machine beside it.
 *
 * Figures come from cyclictest's --json file (rt-tests 2.4: per thread its
 * cycles, min, avg, max and a histogram of latencies in microseconds below
 * the histogram's bound), merged over the threads: min, avg (weighted by
 * cycles), max, and p99 and p99.9 from the merged histogram. Wakeups past
 * the bound are counted (over_histogram in details); a percentile that
 * falls among them is not given, rather than given wrong.
 *
 * The load, when asked for, starts a second before the measurement and must
 * outlast it: a load that ends early fails the run (its figures would mix
 * loaded and idle wakeups).
 */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "defaults.h"
#include "spawn.h"
#include "xio.h"
#include "workload.h"

#define CT_JSON_MAX (16u << 20)	/* bytes of cyclictest's JSON read */
#define CT_HIST_MAX 100000	/* histogram bound, us */
#define CT_THREADS_MAX 64
#define CT_THREADS_JSON_MAX 1024	/* threads read back (one per CPU with -S) */
#define CT_CYCLES_MAX 1e12	/* per thread: 11 days at 1 us; sums cannot wrap */
#define CT_LOAD_WARMUP_US 1000000
#define CT_LOAD_LOOPS 100000000	/* "endless": x 20 fds stays in hackbench's 32-bit count */
#define CT_LOAD_DURATION_MAX 3600	/* s: the load's loops last hours, not days */

/* Extra cyclictest options a plan may give: none names a file, changes the
 * unit (-N) or the output, or touches the tracer. */
static const char *const ct_flags[] = { "--relative", "--system", "--default-system", "--secaligned",
					"--laptop", "--priospread", NULL };
static const char *const ct_valued[] = { "--policy=", "--affinity=", "--mainaffinity=",
					 "--clock=", "--aligned=", "--latency=", NULL };

static int ct_option_ok(const char *t)
{
	for (size_t i = 0; ct_flags[i]; i++)
		if (!strcmp(t, ct_flags[i]))
			return 1;
	for (size_t i = 0; ct_valued[i]; i++) {
		size_t n = strlen(ct_valued[i]);
		if (!strncmp(t, ct_valued[i], n) && t[n] && strspn(t + n, "abcdefghijklmnopqrstuvwxyz0123456789,-") == strlen(t + n))
			return 1;
	}
	return 0;
}

/* The latency (us) under which a fraction q of all cycles fell, or -1 when
 * it is among the wakeups past the histogram. */
static long long percentile(const unsigned long long *h, long long bound, unsigned long long total, double q)
{
	unsigned long long want = (unsigned long long)ceil(q * (double)total), sum = 0;
	for (long long i = 0; i < bound; i++) {
		sum += h[i];
		if (sum >= want && want > 0)
			return i;
	}
	return -1;
}

/* Figures from cyclictest's JSON: 0, or -1 with the reason set. */
int cyclictest_figures(struct wctx *c, const char *json, size_t len, long long bound)
{
	char err[160];
	struct jv *root = json_parse(json, len, err, sizeof err);
	unsigned long long *h = NULL, cycles = 0, inhist = 0;
	double min = INFINITY, max = -INFINITY, wsum = 0;
	int rc = -1;

	if (!root)
		return wl_fail(c, "cyclictest's JSON: %s", err);
	const struct jv *th = json_get(root, "thread");
	if (!th || th->t != J_OBJ || th->n == 0) {
		wl_fail(c, "cyclictest's JSON has no threads");
		goto done;
	}
	if (json_get_num(root, "file_version", NAN) != 1) {
		wl_fail(c, "cyclictest's JSON has file_version %g; this workload reads version 1 (rt-tests 2.4)",
			json_get_num(root, "file_version", NAN));
		goto done;
	}
	if (json_get_num(root, "return_code", NAN) != 0) {
		wl_fail(c, "cyclictest's JSON says return_code %g (0 expected)", json_get_num(root, "return_code", NAN));
		goto done;
	}
	if (!(h = calloc((size_t)bound, sizeof *h))) {
		wl_fail(c, "out of memory for a %lld us histogram", bound);
		goto done;
	}
	if (th->n > CT_THREADS_JSON_MAX) {
		wl_fail(c, "cyclictest's JSON has %zu threads (at most %d)", th->n, CT_THREADS_JSON_MAX);
		goto done;
	}
	for (size_t i = 0; i < th->n; i++) {
		const struct jv *t = th->items[i], *hist = json_get(t, "histogram");
		double cy = json_get_num(t, "cycles", NAN), mn = json_get_num(t, "min", NAN);
		double mx = json_get_num(t, "max", NAN), av = json_get_num(t, "avg", NAN);
		unsigned long long tin = 0;
		/* cyclictest's own figures must hang together: whole cycles, and
		 * min <= avg <= max, all finite */
		if (t->t != J_OBJ || !(cy >= 0 && cy <= CT_CYCLES_MAX) || cy != floor(cy) || !(mn >= 0) ||
		    !(av >= mn) || !(mx >= av) || !isfinite(mx)) {
			wl_fail(c, "cyclictest's JSON: thread %.20s lacks whole cycles, or min <= avg <= max", th->keys[i]);
			goto done;
		}
		if (hist && hist->t != J_OBJ) {
			wl_fail(c, "cyclictest's JSON: thread %.20s has a histogram that is not an object", th->keys[i]);
			goto done;
		}
		for (size_t k = 0; hist && k < hist->n; k++) {
			const char *key = hist->keys[k];
			double n = hist->items[k]->t == J_NUM ? hist->items[k]->num : -1;
			long long us = -1;
			/* plain decimal, no sign, blank or leading zero */
			if (key[0] >= '0' && key[0] <= '9' && (key[0] != '0' || !key[1]) && strspn(key, "0123456789") == strlen(key) &&
			    strlen(key) <= 9)
				us = strtoll(key, NULL, 10);
			if (us < 0 || us >= bound || !(n >= 0) || n != floor(n) || n > cy - (double)tin) {
				wl_fail(c, "cyclictest's JSON: thread %.20s has histogram entry \"%.20s\" outside 0..%lld us, or more entries than cycles",
					th->keys[i], key, bound - 1);
				goto done;
			}
			h[us] += (unsigned long long)n;
			tin += (unsigned long long)n;
		}
		cycles += (unsigned long long)cy;
		inhist += tin;
		wsum += av * cy;
		if (mn < min)
			min = mn;
		if (mx > max)
			max = mx;
		if (i < CT_THREADS_MAX) {
			char m[32];
			snprintf(m, sizeof m, "t%zu_max_us", i);
			jw_num(&c->details, m, mx);
		}
	}
	if (cycles == 0) {
		wl_fail(c, "cyclictest measured no wakeup");
		goto done;
	}
	wl_metric(c, "min_us", min, "us", "lower");
	wl_metric(c, "avg_us", wsum / (double)cycles, "us", "lower");
	wl_metric(c, "max_us", max, "us", "lower");
	long long p99 = percentile(h, bound, cycles, 0.99), p999 = percentile(h, bound, cycles, 0.999);
	if ((p99 >= 0 && (p99 < floor(min) || p99 > max)) || (p999 >= 0 && p999 > max)) {
		wl_fail(c, "cyclictest's JSON: its histogram (p99 %lld, p99.9 %lld us) disagrees with its min %g and max %g", p99,
			p999, min, max);
		goto done;
	}
	if (p99 >= 0)
		wl_metric(c, "p99_us", (double)p99, "us", "lower");
	if (p999 >= 0)
		wl_metric(c, "p99_9_us", (double)p999, "us", "lower");
	jw_int(&c->details, "threads", (long long)th->n);
	jw_int(&c->details, "cycles", (long long)cycles);
	jw_int(&c->details, "histogram_us", bound);
	jw_int(&c->details, "over_histogram", (long long)(cycles - inhist));
	const struct jv *si = json_get(root, "sysinfo");
	if (si)
		jw_int(&c->details, "realtime", (long long)json_get_num(si, "realtime", -1));
	rc = 0;
done:
	free(h);
	json_free(root);
	return rc;
}

/* The load's hackbench: started beside the measurement, output into outfd.
 * Returns its pid, or -1 with the reason set. */
static int start_load(struct wctx *c, const char *rt, struct rt_tool *t, struct hb_opts *o, int outfd)
{
	char *argv[24];
	int n = wl_rt_tests_argv(c, rt, "hackbench", t, argv);
	if (n < 0 || (n = hackbench_args(c, o, argv, n)) < 0)
		return -1;
	argv[n] = NULL;
	int pid = spawn_here(argv, outfd);
	if (pid < 0)
		return wl_fail(c, "unable to start the hackbench load: %s", strerror(errno));
	return pid;
}

/* The load ended on its own: fail the run with when, how and its last line. */
static int load_ended(struct wctx *c, const char *when, int status, int outfd)
{
	char st[64], why[161];
	struct sbuf o = { 0 };
	size_t len = 0;
	char *text = lseek(outfd, 0, SEEK_SET) == 0 ? read_fd(outfd, 64 << 10, &len) : NULL;
	if (text)
		sb_add(&o, text, len);
	free(text);
	status_text(status, st, sizeof st);
	tool_reason(&o, NULL, why, sizeof why);
	sb_free(&o);
	return wl_fail(c, "the hackbench load ended (%s) %s: %s", st, when, why);
}

static int cyclictest_run(struct wctx *c)
{
	const char *rt = wl_param(c, "rt_tests"), *load = wl_param(c, "load"), *opts = wl_param(c, "options");
	char obuf[1024], json[40], a_pr[40], a_in[40], a_du[40], a_hi[40], a_th[40], a_js[64], lout[40];
	char *argv[48];
	struct rt_tool t, lt;
	struct hb_opts lo = { .loops = CT_LOAD_LOOPS, .fds = 20, .datasize = 100, .mode = "process",
			      .via = wl_param(c, "load_transport") };
	struct sbuf out = { 0 };
	struct run_result res;
	int rc = -1, lpid = -1, lst = 0, jfd = -1, lfd = -1;
	long long dur = wl_param_int(c, "duration"), intv = wl_param_int(c, "interval");
	long long prio = wl_param_int(c, "priority"), hist = wl_param_int(c, "histogram");
	long long threads = wl_param_int(c, "threads");
	lo.groups = wl_param_int(c, "load_groups");

	if (dur < 0 || intv < 0 || prio < 0 || hist < 0 || threads < 0 || lo.groups < 0)
		return -1;
	if (dur < 1 || dur > 86400)
		return wl_fail(c, "duration=%lld: 1..86400 seconds", dur);
	if (intv < 50 || intv > 1000000)
		return wl_fail(c, "interval=%lld: 50..1000000 us", intv);
	if (prio > 99)
		return wl_fail(c, "priority=%lld: 0..99 (0: SCHED_OTHER)", prio);
	if (hist < 1 || hist > CT_HIST_MAX)
		return wl_fail(c, "histogram=%lld: 1..%d us", hist, CT_HIST_MAX);
	if (threads > CT_THREADS_MAX)
		return wl_fail(c, "threads=%lld: 0 (one per CPU) .. %d", threads, CT_THREADS_MAX);
	if (*load && strcmp(load, "hackbench"))
		return wl_fail(c, "load=\"%s\": hackbench, or empty for none", load);
	if (*load && dur > CT_LOAD_DURATION_MAX)
		return wl_fail(c, "duration=%lld with a load: at most %d s (the load's 100000000 loops run out after hours)",
			       dur, CT_LOAD_DURATION_MAX);
	if (dur * 1000000 < 10 * intv)
		return wl_fail(c, "duration=%lld s is under 10 intervals of %lld us: too few wakeups to measure", dur, intv);
	if (lo.groups < 1 || lo.groups > 100)
		return wl_fail(c, "load_groups=%lld: 1..100", lo.groups);
	if (strlen(opts) >= sizeof obuf)
		return wl_fail(c, "options too long");
	int n = wl_rt_tests_argv(c, rt, "cyclictest", &t, argv);
	if (n < 0)
		return -1;
	snprintf(a_pr, sizeof a_pr, "--priority=%lld", prio);
	snprintf(a_in, sizeof a_in, "--interval=%lld", intv);
	snprintf(a_du, sizeof a_du, "--duration=%lld", dur);
	snprintf(a_hi, sizeof a_hi, "--histogram=%lld", hist);
	snprintf(a_th, sizeof a_th, "--threads=%lld", threads);
	argv[n++] = "--quiet";
	argv[n++] = "--mlockall";
	argv[n++] = a_pr;
	argv[n++] = a_in;
	argv[n++] = a_du;
	argv[n++] = a_hi;
	argv[n++] = "--histfile=/dev/null";	/* the JSON holds the histogram */
	argv[n++] = threads ? a_th : "--smp";
	memcpy(obuf, opts, strlen(opts) + 1);
	size_t m = argv_split(obuf, argv, (size_t)n, 46);
	if (m == (size_t)-1)
		return wl_fail(c, "too many cyclictest options");
	for (size_t i = (size_t)n; i < m; i++)
		if (!ct_option_ok(argv[i])) {
			char list[400];
			size_t o = 0;
			for (size_t k = 0; ct_flags[k] && o < sizeof list; k++)
				o += (size_t)snprintf(list + o, sizeof list - o, "%s ", ct_flags[k]);
			for (size_t k = 0; ct_valued[k] && o < sizeof list; k++)
				o += (size_t)snprintf(list + o, sizeof list - o, "%sV ", ct_valued[k]);
			return wl_fail(c, "cyclictest option \"%.40s\" is not allowed (allowed: %s)", argv[i], list);
		}
	n = (int)m;

	if (*load) {
		/* in /tmp, never the layout: the load's tasks hold it, and one
		 * left by a timeout would keep the layout from unmounting */
		if ((lfd = scratch_file("/tmp", lout, sizeof lout)) < 0) {
			wl_fail(c, "unable to create the load's output file: %s", strerror(errno));
			goto done;
		}
		if ((lpid = start_load(c, rt, &lt, &lo, lfd)) < 0)
			goto done;
		usleep(CT_LOAD_WARMUP_US);
		if (child_exited(lpid, &lst) != 0) {
			lpid = -1;
			load_ended(c, "before cyclictest started", lst, lfd);
			goto done;
		}
		jw_str(&c->details, "load", load);
		jw_int(&c->details, "load_groups", lo.groups);
		jw_str(&c->details, "load_transport", lo.via);
	}
	/* made after the load started, so only cyclictest inherits it;
	 * unlinked at once: a run killed at its timeout leaves nothing */
	if ((jfd = scratch_file(c->dir ? c->dir : "/tmp", json, sizeof json)) < 0) {
		wl_fail(c, "unable to create cyclictest's JSON file in %s: %s", c->dir ? c->dir : "/tmp", strerror(errno));
		goto done;
	}
	snprintf(a_js, sizeof a_js, "--json=%s", json);
	argv[n++] = a_js;
	argv[n] = NULL;
	if (run_capture_here(argv, &out, 0, &res) != 0) {
		wl_fail(c, "unable to start cyclictest: %s", strerror(errno));
		goto done;
	}
	if (lpid > 0 && child_exited(lpid, &lst) != 0) {
		lpid = -1;
		load_ended(c, "before cyclictest did (its figures would mix loaded and idle wakeups)", lst, lfd);
		goto done;
	}
	if (wl_tool_failed(c, "cyclictest", &res, &out, NULL))
		goto done;
	{
		size_t jlen = 0;
		char *j = lseek(jfd, 0, SEEK_SET) == 0 ? read_fd(jfd, CT_JSON_MAX, &jlen) : NULL;
		int e = errno;
		if (!j) {
			wl_fail(c, "cyclictest's JSON: %s", e == EFBIG ? "larger than 16 MiB" : strerror(e));
			goto done;
		}
		if (jlen == 0) {
			free(j);
			wl_fail(c, "cyclictest exited 0 but wrote no JSON (is %s full?)", c->dir ? c->dir : "/tmp");
			goto done;
		}
		rc = cyclictest_figures(c, j, jlen, hist);
		free(j);
	}
done:
	if (lpid > 0)
		stop_child(lpid, 5000, &lst);
	if (jfd >= 0)
		close(jfd);
	if (lfd >= 0)
		close(lfd);
	sb_free(&out);
	return rc;
}

static const struct wparam cyclictest_params[] = {
	{ "duration", "10", "seconds of measurement (cyclictest -D)" },
	{ "interval", "1000", "every thread's timer interval, us (-i), 50..1000000" },
	{ "priority", "95", "SCHED_FIFO priority of the threads (-p), 0..99" },
	{ "threads", "0", "measurement threads; 0: one per CPU, pinned (-S)" },
	{ "histogram", "20000", "histogram bound, us (-h); wakeups past it are counted, not binned" },
	{ "options", "", "more cyclictest options, from a short list: --relative --policy=fifo --affinity=0 ..." },
	{ "load", "", "hackbench: run rt-tests' hackbench beside the measurement; empty: idle" },
	{ "load_groups", "2", "the load's hackbench groups (of 20 senders and 20 receivers each), 1..100" },
	{ "load_transport", "socket", "the load's transport: socket, pipe or inet (loopback TCP)" },
	{ "rt_tests", RT_TESTS_DIR, "the rt-tests layer (bin/, lib/ and its loader)" },
	{ NULL, NULL, NULL },
};

const struct workload wl_cyclictest = {
	.name = "cyclictest",
	.summary = "rt-tests' cyclictest: wakeup latency min/avg/max/p99, optionally under a hackbench load",
	.params = cyclictest_params,
	.needs = 0,
	.run = cyclictest_run,
};
