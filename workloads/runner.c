/*
 * runner.c - the watchdog: every run executes in a child process with a
 * deadline. A hang is killed and recorded `timeout`, a crash is recorded
 * `crashed` with its signal, and the caller goes on to the next run. The child
 * reports its figures as one JSON object over a pipe.
 *
 * The child never runs PID 1's paths: it replaces the die hook it inherited
 * (which would end the boot) with one that writes the fatal message as its
 * report and _exits 111, so a die() or a failed x* allocation in a workload
 * is a `failed` run with that message, and the plan goes on.
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
#include <dirent.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "defaults.h"
#include "err.h"
#include "kprof.h"
#include "offcpu.h"
#include "perfrec.h"
#include "plan.h"
#include "spawn.h"
#include "stalls.h"
#include "workload.h"
#include "xio.h"

/* The workload child's report pipe and pid, for its die hook. */
static int child_fd = -1;
static pid_t child_pid;

/* Copy s into out as a JSON string literal, without allocating: the hook
 * may run because malloc failed. */
static size_t quote_static(char *out, size_t cap, const char *s)
{
	size_t o = 0;
	if (cap < 3)
		return 0;
	out[o++] = '"';
	for (; *s && o + 8 < cap; s++) {
		unsigned char ch = (unsigned char)*s;
		if (ch == '"' || ch == '\\') {
			out[o++] = '\\';
			out[o++] = ch;
		} else if (ch < 0x20) {
			o += snprintf(out + o, cap - o, "\\u%04x", ch);
		} else {
			out[o++] = ch;
		}
	}
	out[o++] = '"';
	out[o] = 0;
	return o;
}

static void __attribute__((noreturn)) child_die_hook(int code, const char *msg)
{
	static char rep[4096];
	size_t n;
	(void)code;
	/* A process the workload forked (a server, a seeker) has no report of
	 * its own to write: it only exits, and the workload sees that. */
	if (getpid() == child_pid && child_fd >= 0) {
		n = (size_t)snprintf(rep, sizeof rep, "{\"ok\":false,\"reason\":");
		n += quote_static(rep + n, sizeof rep - n - 32, msg);
		n += (size_t)snprintf(rep + n, sizeof rep - n, ",\"metrics\":[]}");
		write_all(child_fd, rep, n);
	}
	fflush(NULL);
	_exit(EXIT_SYSFAIL);
}

static void __attribute__((noreturn)) child(const struct workload *w, const char *dir, const char *dev,
					    const struct kvpair *params, size_t nparams, int fd, pid_t watchdog)
{
	struct wctx *c;
	struct jw out;
	int rc = 0;
	sigset_t none;

	child_fd = fd;
	child_pid = getpid();
	die_hook = child_die_hook;
	c = xcalloc(1, sizeof *c);
	/* the workload dies with its watchdog: a killed `bootbench run` on
	 * the host must not leave it (and its tools) running */
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (getppid() != watchdog)
		_exit(1);
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	setpgid(0, 0);
	/* named for the workload, not "init": its stacks in a profile say whose */
	prctl(PR_SET_NAME, w->name, 0, 0, 0);
	c->dir = dir;
	c->dev = dev;
	c->w = w;
	c->params = params;
	c->nparams = nparams;
	jw_init(&c->details);
	jw_obj(&c->details, NULL);
	if (w->setup && w->setup(c) < 0)
		rc = -1;
	if (rc == 0 && w->run(c) < 0)
		rc = -1;
	if (w->teardown)
		w->teardown(c);
	jw_obj_end(&c->details);
	jw_init(&out);
	jw_obj(&out, NULL);
	jw_bool(&out, "ok", rc == 0);
	jw_str(&out, "reason", rc == 0 ? NULL : (wl_reason()[0] ? wl_reason() : "the workload failed without saying why"));
	jw_arr(&out, "metrics");
	for (size_t i = 0; i < c->nmetrics; i++) {
		jw_obj(&out, NULL);
		jw_str(&out, "name", c->metrics[i].name);
		jw_num(&out, "value", c->metrics[i].value);
		jw_str(&out, "unit", c->metrics[i].unit);
		jw_str(&out, "better", c->metrics[i].better);
		if (c->metrics[i].invalid)
			jw_bool(&out, "invalid", 1);
		jw_obj_end(&out);
	}
	jw_arr_end(&out);
	if (c->dropped_metrics || c->nonfinite_metrics || c->nwarnings) {
		char wmsg[WL_WARNING_LEN];
		jw_arr(&out, "warnings");
		for (size_t i = 0; i < c->nwarnings; i++)
			jw_str(&out, NULL, c->warnings[i]);
		if (c->dropped_warnings) {
			snprintf(wmsg, sizeof wmsg, "%lu more warnings of the workload were not kept", c->dropped_warnings);
			jw_str(&out, NULL, wmsg);
		}
		if (c->dropped_metrics) {
			snprintf(wmsg, sizeof wmsg, "%lu metrics past the first %d were dropped", c->dropped_metrics,
				 WL_MAX_METRICS);
			jw_str(&out, NULL, wmsg);
		}
		if (c->nonfinite_metrics) {
			snprintf(wmsg, sizeof wmsg, "%lu figures were not finite numbers (NaN or infinity) and were left out",
				 c->nonfinite_metrics);
			jw_str(&out, NULL, wmsg);
		}
		jw_arr_end(&out);
	}
	jw_raw(&out, "details", c->details.sb.s);
	jw_obj_end(&out);
	write_all(fd, out.sb.s, out.sb.len);
	fflush(NULL);
	_exit(rc == 0 ? 0 : 1);
}

void run_outcome_warn(struct run_outcome *o, const char *fmt, ...)
{
	va_list ap;
	if (o->nwarnings >= WL_MAX_WARNINGS) {
		o->dropped_warnings++;	/* the record says how many */
		return;
	}
	va_start(ap, fmt);
	vsnprintf(o->warnings[o->nwarnings++], WL_WARNING_LEN, fmt, ap);
	va_end(ap);
}

static void parse_child_report(struct run_outcome *o, const char *text, size_t len)
{
	char err[128];
	struct jv *v = json_parse(text, len, err, sizeof err);
	const struct jv *m, *d, *ws;
	if (!v) {
		snprintf(o->reason, sizeof o->reason, "the workload's report was unreadable (%s)", err);
		return;
	}
	if (json_get_str(v, "reason"))
		snprintf(o->reason, sizeof o->reason, "%s", json_get_str(v, "reason"));
	ws = json_get(v, "warnings");
	for (size_t i = 0; ws && ws->t == J_ARR && i < ws->n; i++)
		if (ws->items[i]->t == J_STR)
			run_outcome_warn(o, "%s", ws->items[i]->str);
	m = json_get(v, "metrics");
	if (m && m->t == J_ARR && m->n > WL_MAX_METRICS)
		run_outcome_warn(o, "the report held %zu metrics; those past the first %d were dropped", m->n,
				 WL_MAX_METRICS);
	for (size_t i = 0; m && m->t == J_ARR && i < m->n && o->nmetrics < WL_MAX_METRICS; i++) {
		const struct jv *x = m->items[i];
		struct metric *mm = &o->metrics[o->nmetrics++];
		snprintf(mm->name, sizeof mm->name, "%s", json_get_str(x, "name") ? json_get_str(x, "name") : "?");
		mm->value = json_get_num(x, "value", 0);
		snprintf(mm->unit, sizeof mm->unit, "%s", json_get_str(x, "unit") ? json_get_str(x, "unit") : "");
		snprintf(mm->better, sizeof mm->better, "%s", json_get_str(x, "better") ? json_get_str(x, "better") : "");
		mm->invalid = json_get(x, "invalid") && json_get(x, "invalid")->t == J_BOOL && json_get(x, "invalid")->b;
	}
	d = json_get(v, "details");
	if (d && d->t == J_OBJ && d->n) {
		struct sbuf sb = {0};
		json_dump(&sb, d);
		o->details = sb_steal(&sb);
	}
	json_free(v);
}

/* ---- why: profile, pressure, delays ---- */

static struct why {
	int level;		/* PROFILE_*: off, or which instruments */
	struct kprof_live kp;
	struct perf_live perf;	/* perf record around each run, when perf can run */
	int perf_on;		/* this run's recording was switched on */
	pid_t root;		/* the run's process: its blocks and its descendants' are the off-CPU view */
	struct ts_listener ts;
	int delayacct, delayacct_was;
	struct psi before;
} why = { .ts = { .fd = -1 } };

void run_why_begin(int profile)
{
	run_why_end();
	why.level = profile;
	if (!profile)
		return;
	if (kprof_open(&why.kp) < 0)
		warning("profile on, but no kernel profile: %s", why.kp.why);
	else
		info("kernel profile: /proc/profile (kallsyms is read once, when the first profile is resolved)");
	/* perf only when asked for (PROFILE_PERF): its session costs the
	 * CPU-bound figures up to 10% (tests/boot-why.t measured 10.4% on
	 * forkexec) and moves deterministic figures. The host's
	 * `bootbench run --profile` may name another perf. */
	if (profile < PROFILE_PERF) {
		perf_none(&why.perf, "not asked for (plan profile perf or offcpu, or bootbench.profile=perf)");
	} else if (perf_open(&why.perf, getenv("BOOTBENCH_PERF") ? getenv("BOOTBENCH_PERF") : PERF_BIN, "/tmp", PERF_HZ,
			     profile >= PROFILE_OFFCPU) < 0)
		warning("profile %s, but no perf samples: %s (the tick profile alone says where the kernel was)",
			profile_name(profile), why.perf.why);
	else
		info("perf samples: cpu-clock at %u Hz with call chains, on every CPU, during each run%s", PERF_HZ,
		     profile >= PROFILE_OFFCPU ? "; and every context switch (where the run's tasks blocked)" : "");
	why.delayacct = delayacct_enable(&why.delayacct_was);
	if (!why.delayacct)
		warning("profile on, but delay accounting could not be turned on (kernel.task_delayacct)");
	if (ts_open(&why.ts) < 0)
		warning("profile on, but no delay accounting records: %s", why.ts.why);
}

void run_why_end(void)
{
	if (!why.level)
		return;
	kprof_close(&why.kp);
	perf_close(&why.perf);
	ts_close(&why.ts);
	delayacct_restore(why.delayacct_was);
	why.level = PROFILE_OFF;
}

static char *member_text(void (*fn)(struct jw *, void *), void *arg)
{
	struct jw w;
	char *s;
	jw_init(&w);
	jw_obj(&w, NULL);
	fn(&w, arg);
	jw_obj_end(&w);
	/* "{"key":VALUE}" -> VALUE */
	s = strchr(w.sb.s, ':');
	s = s ? xstrndup(s + 1, strlen(s + 1) - 1) : NULL;
	sb_free(&w.sb);
	return s;
}

static void why_before(void)
{
	if (why.level) {
		ts_drain(&why.ts);
		ts_reset(&why.ts);
		kprof_reset(&why.kp);	/* clearing 14 MB of counters: not for perf to see */
		why.perf_on = why.perf.ok && perf_begin(&why.perf) == 0;
		if (why.perf.ok && !why.perf_on)
			warning("perf sampling could not be switched on: %s", why.perf.why);
	}
	psi_sample(&why.before);
}

struct why_after {
	struct psi after;
	struct kprof_top top;
	unsigned step;
	int prof_rc;
	char err[200];
	int perf_rc;
	char perf_err[200];
	struct ts_exit sum;
	size_t nproc;
};

static void j_pressure(struct jw *w, void *a) { psi_json(w, &why.before, &((struct why_after *)a)->after); }
static void j_delays(struct jw *w, void *a)
{
	struct why_after *x = a;
	ts_json(w, &why.ts, &x->sum, x->nproc, why.delayacct);
}
static void j_profile(struct jw *w, void *a)
{
	struct why_after *x = a;
	if (x->prof_rc == 0) {
		kprof_json(w, &x->top, x->step, why.kp.hz);
		return;
	}
	jw_obj(w, "profile");
	jw_bool(w, "available", 0);
	jw_str(w, "reason", x->err);
	jw_obj_end(w);
}

/* Is a task of process group pgid still running (not a zombie, whose
 * exit record is sent already)? */
static int group_running(pid_t pgid)
{
	DIR *d = opendir("/proc");
	struct dirent *e;
	int found = 0;
	while (d && !found && (e = readdir(d)) != NULL) {
		char path[64], *text, *rp;
		size_t len;
		if (e->d_name[0] < '1' || e->d_name[0] > '9')
			continue;
		snprintf(path, sizeof path, "/proc/%.20s/stat", e->d_name);
		text = read_file(path, &len);
		/* "pid (comm) S ppid pgrp ...": comm may hold anything, so from the last ')' */
		rp = text ? strrchr(text, ')') : NULL;
		if (rp) {
			char state;
			long ppid, pgrp;
			if (sscanf(rp + 1, " %c %ld %ld", &state, &ppid, &pgrp) == 3 && pgrp == pgid && state != 'Z' &&
			    state != 'X')
				found = 1;
		}
		free(text);
	}
	if (d)
		closedir(d);
	return found;
}

/* At the run's end, as soon as its process is reaped and before anything
 * else is read: the profile's counters copied, and pressure. (The last
 * counters sample follows, then the kill of what is left of the group.) */
static struct why_after *why_stop(void)
{
	/* not PID 1's heap (kprof.h): a later run's workload would inherit it */
	struct why_after *x = map_nofork(sizeof *x);
	if (!x)
		return NULL;
	x->perf_rc = -1;
	if (why.level && why.perf_on) {
		/* first: what follows (copying the tick profile) is not the run's */
		x->perf_rc = perf_pause(&why.perf);
		if (x->perf_rc < 0)
			snprintf(x->perf_err, sizeof x->perf_err, "%s", why.perf.why);
	}
	if (why.level)
		x->prof_rc = kprof_snapshot(&why.kp, x->err, sizeof x->err);
	psi_sample(&x->after);
	return x;
}

/* Kernel text to its function, for folding perf's samples. */
static const char *ksym_name(void *ctx, unsigned long long addr)
{
	const struct ksyms *k = ctx;
	const struct ksym *s;
	int text = k->stext && addr >= k->stext && (!k->etext || addr < k->etext);
	/* past the kernel's text (init code, holes) the nearest symbol below
	 * would be a wrong name; modules are above their lowest symbol */
	if (!text && !(k->mod_lo && addr >= k->mod_lo))
		return NULL;
	s = ksyms_find(k, addr);
	return s ? s->name : NULL;
}

/* "perf": the run's samples, folded (lib/folded.h), or why there are none;
 * with profile offcpu its "offcpu" member (lib/offcpu.h). */
static char *perf_member(struct why_after *x)
{
	struct jw w;
	struct folded f = { 0 };
	struct offcpu off = { 0 };
	struct ksyms k;
	unsigned long long lost = 0;
	char err[200] = "", src[200];
	int rc = x->perf_rc;
	if (!why.perf.ok)
		snprintf(err, sizeof err, "%s", why.perf.why);
	else if (!why.perf_on)
		snprintf(err, sizeof err, "perf sampling was not switched on: %.150s", why.perf.why);
	else if (rc < 0)
		snprintf(err, sizeof err, "%s", x->perf_err);
	if (why.perf_on && rc == 0) {
		int have = kprof_symbols(&why.kp, &k, err, sizeof err) == 0;
		offcpu_root(&off, (long)why.root);
		rc = perf_collect(&why.perf, have ? ksym_name : NULL, have ? &k : NULL, &f, why.perf.offcpu ? &off : NULL,
				  &lost, err, sizeof err);
		if (have)
			ksyms_free(&k);
		if (!have && rc == 0)
			snprintf(err, sizeof err, "kernel addresses unresolved: %.150s", why.kp.why);
	}
	why.perf_on = 0;
	jw_init(&w);
	jw_obj(&w, NULL);
	/* asked: the plan's (or the command line's) profile perf; a run made so
	 * carries perf's cost whether or not it got samples, and compare keys it */
	jw_bool(&w, "asked", why.level >= PROFILE_PERF);
	if (why.level >= PROFILE_OFFCPU)	/* its switches cost more: compare keys that too */
		jw_bool(&w, "offcpu_asked", 1);
	if (rc < 0 || !f.samples) {
		jw_bool(&w, "available", 0);
		jw_str(&w, "reason", err[0] ? err : "perf recorded no sample");
	} else {
		snprintf(src, sizeof src, "perf record -a -g --kernel-callchains -e cpu-clock/freq=%u/%s (folded: "
			 "comm;outer;...;leaf)", why.perf.hz, why.perf.offcpu ? " -e cs/period=1/ --switch-events" : "");
		jw_str(&w, "source", src);
		jw_int(&w, "frequency", why.perf.hz);
		jw_str(&w, "unit", "samples");
		folded_json(&w, &f, FOLDED_TOP);
		if (lost)
			jw_int(&w, "lost_output_bytes", (long long)lost);
		if (err[0])
			jw_str(&w, "note", err);
	}
	if (why.level >= PROFILE_OFFCPU) {
		/* where the run's tasks blocked: every switch out sampled; a
		 * run without a cpu-clock sample (a short one) can still have
		 * blocked */
		jw_obj(&w, "offcpu");
		if (rc < 0 || !why.perf.offcpu) {
			jw_bool(&w, "available", 0);
			jw_str(&w, "reason", err[0] ? err : "perf did not run");
		} else {
			jw_str(&w, "source", "perf record -e cs/period=1/ --switch-events (folded: comm;outer;...;leaf as "
					     "the task left the CPU, weighted by the time until it ran again; the run's process "
					     "and what it forked)");
			offcpu_json(&w, &off, FOLDED_TOP);
			if (lost)	/* perf script's output past the capture limit: the run's end is missing */
				jw_int(&w, "lost_output_bytes", (long long)lost);
		}
		jw_obj_end(&w);
	}
	jw_obj_end(&w);
	folded_free(&f);
	offcpu_free(&off);
	return sb_steal(&w.sb);
}

/* Then the slow part, outside the run's counters: the profile resolved,
 * the exit records read and summed. */
static void why_collect(struct run_outcome *o, struct why_after *x, int leftovers)
{
	if (!x) {
		run_outcome_warn(o, "no memory for the pressure, profile and delays of this run");
		return;
	}
	o->pressure = member_text(j_pressure, x);
	if (why.level) {
		if (x->prof_rc == 0) {
			int was = why.kp.loaded;
			x->prof_rc = kprof_resolve(&why.kp, &x->top, &x->step, x->err, sizeof x->err);
			if (!was && why.kp.loaded > 0)
				info("kernel profile: %zu text symbols, tick %u Hz", why.kp.nsyms, why.kp.hz);
		}
		o->profile = member_text(j_profile, x);
		o->perf = perf_member(x);
		ts_drain(&why.ts);
		ts_sum(&why.ts, (uint32_t)getpid(), &x->sum, &x->nproc);
		o->delays = member_text(j_delays, x);
		if (why.ts.lost)
			run_outcome_warn(o, "the taskstats socket overflowed %llu times: exit records were lost and the "
					 "delays are short", why.ts.lost);
		if (why.ts.over)
			run_outcome_warn(o, "%llu exit records past the first %d were not kept: the delays are short",
					 why.ts.over, TS_MAX_EXITS);
		if (why.ts.bad)
			run_outcome_warn(o, "%llu taskstats messages were unreadable: the delays may be short", why.ts.bad);
		if (leftovers)
			run_outcome_warn(o, "processes of the workload were still running at its end and were killed: "
					 "their delays are not in the sum");
	}
	munmap(x, sizeof *x);
}

int run_workload(const struct workload *w, const char *dir, const char *dev,
		 const struct kvpair *params, size_t nparams, unsigned timeout_s,
		 unsigned monitor_ms, struct run_outcome *o)
{
	int pfd[2], st = 0, done = 0, leftovers;
	struct why_after *wx;
	unsigned long long rep_dropped = 0;
	struct sbuf rep = {0};
	double deadline, next_sample;
	pid_t pid;

	memset(o, 0, sizeof *o);
	if ((w->needs & WL_NEEDS_DIR) && !dir) {
		snprintf(o->status, sizeof o->status, "skipped");
		snprintf(o->reason, sizeof o->reason, "workload %s needs a filesystem; this layout has none", w->name);
		return 0;
	}
	if ((w->needs & WL_NEEDS_DEV) && !dev) {
		snprintf(o->status, sizeof o->status, "skipped");
		snprintf(o->reason, sizeof o->reason, "workload %s needs a block device; this layout has none", w->name);
		return 0;
	}
	if (pipe2(pfd, O_CLOEXEC) < 0)
		return -1;
	if (!monitor_ms)
		monitor_ms = 1000;
	ctr_start(&o->mon, monitor_ms, mono_now());
	next_sample = o->mon.t0 + monitor_ms / 1000.0;
	why_before();
	fflush(NULL);
	/* the run's time starts here: clearing the profile (15 ms of a TCG
	 * guest) and the first counters sample are not the workload's */
	o->start = mono_now();
	deadline = o->start + timeout_s;
	pid_t self = getpid();
	pid = fork();
	if (pid < 0) {
		close(pfd[0]);
		close(pfd[1]);
		return -1;
	}
	if (pid == 0) {
		close(pfd[0]);
		child(w, dir, dev, params, nparams, pfd[1], self);
	}
	setpgid(pid, pid);
	why.root = pid;
	close(pfd[1]);
	/* read the report until EOF or the deadline */
	for (;;) {
		struct pollfd p = { pfd[0], POLLIN, 0 };
		char buf[4096];
		int ms, r;
		double now = mono_now(), wake = next_sample;
		if (timeout_s) {
			if (deadline - now <= 0)
				break;
			if (deadline < wake)
				wake = deadline;
		}
		if (now >= next_sample) {
			ctr_tick(&o->mon, now);
			/* exit records are read with the counters, once a sampling
			 * interval, not as they come: waking for each would put the
			 * watchdog into a fork loop's figures. The socket holds 16 MiB
			 * meanwhile; what overflows it is said in the record. */
			if (why.level)
				ts_drain(&why.ts);
			next_sample += monitor_ms / 1000.0;
			if (next_sample < now)
				next_sample = now + monitor_ms / 1000.0;
			continue;
		}
		ms = (int)((wake - now) * 1000) + 1;
		r = poll(&p, 1, ms);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			continue;
		ssize_t n = read(pfd[0], buf, sizeof buf);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			done = 1;
			break;
		}
		if (rep.len < WL_REPORT_MAX)
			sb_add(&rep, buf, n);
		else
			rep_dropped += n;	/* said in the record below */
	}
	close(pfd[0]);
	/* the child closed its end: give it until the deadline to exit */
	for (;;) {
		pid_t r = waitpid(pid, &st, WNOHANG);
		if (r == pid)
			break;
		if (r < 0 && errno != EINTR)
			break;
		if (!done || (timeout_s && mono_now() >= deadline)) {
			kill(-pid, SIGKILL);
			kill(pid, SIGKILL);
			waitpid(pid, &st, 0);
			o->duration_s = mono_now() - o->start;
			wx = why_stop();
			snprintf(o->status, sizeof o->status, "timeout");
			snprintf(o->reason, sizeof o->reason, "still running after the %u s timeout: killed", timeout_s);
			ctr_tick(&o->mon, mono_now());
			why_collect(o, wx, 1);
			sb_free(&rep);
			return 0;
		}
		usleep(5000);
	}
	o->duration_s = mono_now() - o->start;
	wx = why_stop();
	ctr_tick(&o->mon, mono_now());
	/* the workload's own children, if any escaped, die with its group */
	leftovers = why.level && group_running(pid);
	kill(-pid, SIGKILL);
	why_collect(o, wx, leftovers);
	if (WIFSIGNALED(st)) {
		snprintf(o->status, sizeof o->status, "crashed");
		snprintf(o->reason, sizeof o->reason, "killed by signal %d (%s)", WTERMSIG(st), strsignal(WTERMSIG(st)));
	} else {
		if (rep_dropped)
			run_outcome_warn(o, "the workload's report passed %u MiB: its last %llu bytes were dropped",
					 WL_REPORT_MAX >> 20, rep_dropped);
		parse_child_report(o, rep.s ? rep.s : "", rep.len);
		if (WIFEXITED(st) && WEXITSTATUS(st) == 0 && rep.len)
			snprintf(o->status, sizeof o->status, "ok");
		else {
			snprintf(o->status, sizeof o->status, "failed");
			if (!o->reason[0])
				snprintf(o->reason, sizeof o->reason, "exited with status %d", WEXITSTATUS(st));
		}
	}
	sb_free(&rep);
	return 0;
}

void run_outcome_free(struct run_outcome *o)
{
	free(o->details);
	free(o->pressure);
	free(o->profile);
	free(o->perf);
	free(o->delays);
	o->details = o->pressure = o->profile = o->delays = o->perf = NULL;
	ctr_free(&o->mon);
}

void run_outcome_json(struct jw *w, const struct run_outcome *o)
{
	jw_str(w, "status", o->status);
	jw_str(w, "reason", o->reason[0] ? o->reason : NULL);
	jw_obj(w, "duration");
	jw_num(w, "value", o->duration_s);
	jw_str(w, "unit", "s");
	jw_str(w, "better", "lower");
	jw_obj_end(w);
	jw_arr(w, "metrics");
	for (size_t i = 0; i < o->nmetrics; i++) {
		jw_obj(w, NULL);
		jw_str(w, "name", o->metrics[i].name);
		jw_num(w, "value", o->metrics[i].value);
		jw_str(w, "unit", o->metrics[i].unit);
		jw_str(w, "better", o->metrics[i].better);
		if (o->metrics[i].invalid)
			jw_bool(w, "invalid", 1);
		jw_obj_end(w);
	}
	jw_arr_end(w);
	if (o->nwarnings) {
		jw_arr(w, "warnings");
		for (size_t i = 0; i < o->nwarnings; i++)
			jw_str(w, NULL, o->warnings[i]);
		if (o->dropped_warnings) {
			char msg[WL_WARNING_LEN];
			snprintf(msg, sizeof msg, "%lu more warnings were not kept (at most %d a run)", o->dropped_warnings,
				 WL_MAX_WARNINGS);
			jw_str(w, NULL, msg);
		}
		jw_arr_end(w);
	}
	if (o->details)
		jw_raw(w, "details", o->details);
	if (o->mon.n)
		ctr_json(&o->mon, w);
	if (o->pressure)
		jw_raw(w, "pressure", o->pressure);
	if (o->profile)
		jw_raw(w, "profile", o->profile);
	if (o->perf)
		jw_raw(w, "perf", o->perf);
	if (o->delays)
		jw_raw(w, "delays", o->delays);
}
