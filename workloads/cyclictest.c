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
#include "proc.h"
#include "xio.h"
#include "workload.h"

#define CT_JSON_MAX (16u << 20)	/* bytes of cyclictest's JSON read */
#define CT_HIST_MAX 100000	/* histogram bound, us */
#define CT_THREADS_MAX 64
#define CT_LOAD_WARMUP_US 1000000

/* Extra cyclictest options a plan may give: none names a file, changes the
 * unit (-N) or the output, or touches the tracer. */
static const char *const ct_flags[] = { "--relative", "--system", "--default-system", "--secaligned",
					"--laptop", "--priospread", NULL };
static const char *const ct_valued[] = { "--policy=", "--affinity=", "--distance=", "--mainaffinity=",
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
	if (json_get_num(root, "return_code", 0) != 0) {
		wl_fail(c, "cyclictest's JSON says return_code %g", json_get_num(root, "return_code", 0));
		goto done;
	}
	if (!(h = calloc((size_t)bound, sizeof *h))) {
		wl_fail(c, "out of memory for a %lld us histogram", bound);
		goto done;
	}
	for (size_t i = 0; i < th->n; i++) {
		const struct jv *t = th->items[i], *hist = json_get(t, "histogram");
		double cy = json_get_num(t, "cycles", NAN), mn = json_get_num(t, "min", NAN);
		double mx = json_get_num(t, "max", NAN), av = json_get_num(t, "avg", NAN);
		unsigned long long tin = 0;
		if (t->t != J_OBJ || !(cy >= 0 && cy <= 1e15) || !(mn >= 0) || !(mx >= mn) || !(av >= 0) || isinf(mx) || isinf(av)) {
			wl_fail(c, "cyclictest's JSON: thread %.20s lacks cycles, min, avg or max", th->keys[i]);
			goto done;
		}
		for (size_t k = 0; hist && hist->t == J_OBJ && k < hist->n; k++) {
			char *end;
			errno = 0;
			long long us = strtoll(hist->keys[k], &end, 10);
			double n = hist->items[k]->t == J_NUM ? hist->items[k]->num : -1;
			if (errno || *end || end == hist->keys[k] || us < 0 || us >= bound || !(n >= 0 && n <= 1e15) || n != floor(n)) {
				wl_fail(c, "cyclictest's JSON: thread %.20s has histogram entry \"%.20s\" outside 0..%lld us",
					th->keys[i], hist->keys[k], bound - 1);
				goto done;
			}
			h[us] += (unsigned long long)n;
			tin += (unsigned long long)n;
		}
		if (tin > (unsigned long long)cy) {
			wl_fail(c, "cyclictest's JSON: thread %.20s has more histogram entries than cycles", th->keys[i]);
			goto done;
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

static int cyclictest_run(struct wctx *c)
{
	const char *rt = wl_param(c, "rt_tests"), *load = wl_param(c, "load"), *opts = wl_param(c, "options");
	const char *lopts = wl_param(c, "load_options");
	char paths[WL_RT_PATHS], lpaths[WL_RT_PATHS], obuf[1024], lbuf[1024], json[4200] = "", st[64], why[161];
	char a_pr[40], a_in[40], a_du[40], a_hi[40], a_th[40], a_js[4220];
	char *argv[48], *largv[48];
	struct sbuf out = { 0 };
	struct run_result res;
	int rc = -1, lpid = -1, lst;
	long long dur = wl_param_int(c, "duration"), intv = wl_param_int(c, "interval");
	long long prio = wl_param_int(c, "priority"), hist = wl_param_int(c, "histogram");
	long long threads = wl_param_int(c, "threads");

	if (dur < 0 || intv < 0 || prio < 0 || hist < 0 || threads < 0)
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
	if (strlen(opts) >= sizeof obuf || strlen(lopts) >= sizeof lbuf)
		return wl_fail(c, "options or load_options too long");
	int n = wl_rt_tests_argv(c, rt, "cyclictest", paths, argv);
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
	size_t m = split_words(obuf, argv, (size_t)n, 46);
	if (m == (size_t)-1)
		return wl_fail(c, "too many cyclictest options");
	for (size_t i = (size_t)n; i < m; i++)
		if (!ct_option_ok(argv[i]))
			return wl_fail(c, "cyclictest option \"%.60s\" is not allowed (allowed: --relative, --system, "
				       "--default-system, --policy=, --affinity=, --distance=, --clock=, --aligned=, ...)", argv[i]);
	n = (int)m;
	if (snprintf(json, sizeof json, "%s/bootbench-cyclictest.XXXXXX", c->dir ? c->dir : "/tmp") >= (int)sizeof json)
		return wl_fail(c, "directory name too long");
	int fd = mkstemp(json);
	if (fd < 0) {
		json[0] = 0;
		return wl_fail(c, "unable to create cyclictest's JSON file: %s", strerror(errno));
	}
	close(fd);
	snprintf(a_js, sizeof a_js, "--json=%s", json);
	argv[n++] = a_js;
	argv[n] = NULL;

	if (*load) {
		int k = wl_rt_tests_argv(c, rt, "hackbench", lpaths, largv);
		if (k < 0)
			goto done;
		memcpy(lbuf, lopts, strlen(lopts) + 1);
		size_t lm = split_words(lbuf, largv, (size_t)k, 44);
		if (lm == (size_t)-1) {
			wl_fail(c, "too many load_options");
			goto done;
		}
		/* hackbench's own options only; endless unless the plan says */
		int has_loops = 0;
		for (size_t i = (size_t)k; i < lm; i++) {
			if (largv[i][0] != '-' && i == (size_t)k) {
				wl_fail(c, "load_options \"%.60s\": hackbench options, e.g. -g 2 -p", lopts);
				goto done;
			}
			if (!strcmp(largv[i], "-l") || !strncmp(largv[i], "--loops", 7))
				has_loops = 1;
		}
		if (!has_loops) {	/* hackbench 2.4 refuses --loops=N */
			largv[lm++] = "-l";
			largv[lm++] = "2000000000";
		}
		largv[lm] = NULL;
		lpid = spawn_here(largv);
		if (lpid < 0) {
			wl_fail(c, "unable to start the hackbench load: %s", strerror(errno));
			goto done;
		}
		usleep(CT_LOAD_WARMUP_US);
		if (child_exited(lpid, &lst)) {
			status_text(lst, st, sizeof st);
			lpid = -1;
			wl_fail(c, "the hackbench load ended (%s) before cyclictest started", st);
			goto done;
		}
		jw_str(&c->details, "load", load);
		jw_str(&c->details, "load_options", lopts);
	}
	if (run_capture_here(argv, &out, 0, &res) != 0) {
		wl_fail(c, "unable to start cyclictest: %s", strerror(errno));
		goto done;
	}
	if (lpid > 0 && child_exited(lpid, &lst)) {
		status_text(lst, st, sizeof st);
		lpid = -1;
		wl_fail(c, "the hackbench load ended (%s) before cyclictest did: its figures would mix loaded and idle wakeups", st);
		goto done;
	}
	if (!WIFEXITED(res.status) || WEXITSTATUS(res.status) != 0) {
		status_text(res.status, st, sizeof st);
		tool_reason(&out, NULL, why, sizeof why);
		wl_fail(c, "cyclictest %s: %s", st, why);
		goto done;
	}
	{
		size_t jlen = 0;
		int jfd = open(json, O_RDONLY | O_CLOEXEC);
		char *j = jfd >= 0 ? read_fd(jfd, CT_JSON_MAX, &jlen) : NULL;
		int e = errno;
		if (jfd >= 0)
			close(jfd);
		if (!j) {
			wl_fail(c, "cyclictest's JSON %s: %s", json, e == EFBIG ? "larger than 16 MiB" : strerror(e));
			goto done;
		}
		rc = cyclictest_figures(c, j, jlen, hist);
		free(j);
	}
done:
	if (lpid > 0)
		stop_child(lpid, 5000);
	if (*json)
		unlink(json);
	sb_free(&out);
	return rc;
}

static const struct wparam cyclictest_params[] = {
	{ "duration", "10", "seconds of measurement (cyclictest -D)" },
	{ "interval", "1000", "timer interval of the first thread, us (-i), 50..1000000" },
	{ "priority", "95", "SCHED_FIFO priority of the threads (-p), 0..99" },
	{ "threads", "0", "measurement threads; 0: one per CPU, pinned (-S)" },
	{ "histogram", "20000", "histogram bound, us (-h); wakeups past it are counted, not binned" },
	{ "options", "", "more cyclictest options: --relative --policy=fifo --affinity=0 --distance=0 ..." },
	{ "load", "", "hackbench: run rt-tests' hackbench beside the measurement; empty: idle" },
	{ "load_options", "-g 2", "the load's hackbench options (endless unless -l is given)" },
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
