/*
 * counters.c - /proc parsers and the sampling monitor (see counters.h).
 */
#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <unistd.h>

#include "counters.h"
#include "xio.h"

/* Next line of [*p, end) into a bounded NUL-terminated copy. */
static int line_of(const char **p, const char *end, char *out, size_t outlen)
{
	const char *s = *p, *nl;
	size_t n;
	if (s >= end)
		return 0;
	nl = memchr(s, '\n', end - s);
	if (!nl)
		nl = end;
	n = nl - s < (long)outlen - 1 ? (size_t)(nl - s) : outlen - 1;
	memcpy(out, s, n);
	out[n] = 0;
	*p = nl < end ? nl + 1 : end;
	return 1;
}

int parse_proc_stat(const char *buf, size_t len, struct cpu_times *cpu, struct vm_counts *vm)
{
	const char *p = buf, *end = buf + len;
	char line[512];
	int got = 0;
	memset(cpu, 0, sizeof *cpu);
	while (line_of(&p, end, line, sizeof line)) {
		if (!strncmp(line, "cpu ", 4)) {
			cpu->fields = sscanf(line + 4, "%llu %llu %llu %llu %llu %llu %llu %llu", &cpu->user, &cpu->nice,
					     &cpu->system, &cpu->idle, &cpu->iowait, &cpu->irq, &cpu->softirq, &cpu->steal);
			got = cpu->fields >= 4;
		} else if (vm && !strncmp(line, "page ", 5)) {
			/* 2.4 kernels: no /proc/vmstat; paging lives here */
			sscanf(line + 5, "%llu %llu", &vm->pgpgin, &vm->pgpgout);
		} else if (vm && !strncmp(line, "swap ", 5)) {
			sscanf(line + 5, "%llu %llu", &vm->pswpin, &vm->pswpout);
		} else if (!strncmp(line, "ctxt ", 5)) {
			sscanf(line + 5, "%llu", &cpu->ctxt);
		} else if (!strncmp(line, "intr ", 5)) {
			sscanf(line + 5, "%llu", &cpu->intr);	/* the total; the per-IRQ rest is cut off */
		} else if (!strncmp(line, "procs_running ", 14)) {
			sscanf(line + 14, "%llu", &cpu->running);
		} else if (!strncmp(line, "procs_blocked ", 14)) {
			sscanf(line + 14, "%llu", &cpu->blocked);
		}
	}
	return got ? 0 : -1;
}

int parse_vmstat(const char *buf, size_t len, struct vm_counts *vm)
{
	const char *p = buf, *end = buf + len;
	char line[256], key[64];
	unsigned long long v;
	int got = 0;
	while (line_of(&p, end, line, sizeof line)) {
		if (sscanf(line, "%63s %llu", key, &v) != 2)
			continue;
		if (!strcmp(key, "pgpgin")) vm->pgpgin = v, got++;
		else if (!strcmp(key, "pgpgout")) vm->pgpgout = v, got++;
		else if (!strcmp(key, "pswpin")) vm->pswpin = v;
		else if (!strcmp(key, "pswpout")) vm->pswpout = v;
		else if (!strcmp(key, "pgfault")) vm->pgfault = v, vm->have_faults = 1;
		else if (!strcmp(key, "pgmajfault")) vm->pgmajfault = v;
		/* reclaim: pgscan_{kswapd,direct,khugepaged,proactive}[_ZONE] (not
		 * pgscan_direct_throttle, an event count, nor pgscan_anon/_file,
		 * which split the same pages again); pgsteal_* likewise, including
		 * 2.6's per-zone pgsteal_ZONE */
		else if ((!strncmp(key, "pgscan_kswapd", 13) || !strncmp(key, "pgscan_khugepaged", 17) ||
			  !strncmp(key, "pgscan_proactive", 16) ||
			  !strncmp(key, "pgscan_direct", 13)) && strcmp(key, "pgscan_direct_throttle")) {
			vm->pgscan += v;
			if (!strncmp(key, "pgscan_kswapd", 13))
				vm->pgscan_kswapd += v;
			else if (!strncmp(key, "pgscan_direct", 13))
				vm->pgscan_direct += v;
		} else if (!strncmp(key, "pgsteal_", 8) && strcmp(key, "pgsteal_anon") && strcmp(key, "pgsteal_file")) {
			vm->pgsteal += v;
			if (!strncmp(key, "pgsteal_kswapd", 14))
				vm->pgsteal_kswapd += v;
			else if (!strncmp(key, "pgsteal_direct", 14))
				vm->pgsteal_direct += v;
		}
	}
	return got ? 0 : -1;
}

static int skipped_disk(const char *n)
{
	static const char *const pfx[] = { "ram", "loop", "zram", "fd", "sr", "nbd" };
	size_t l = strlen(n);
	for (size_t i = 0; i < sizeof pfx / sizeof *pfx; i++)
		if (!strncmp(n, pfx[i], strlen(pfx[i])) && strncmp(n, "ram0", 4))
			return 1;
	/* partitions: sda1, vdb2, nvme0n1p1, mmcblk0p1 (md0 and ram0 are whole devices) */
	if (l && n[l - 1] >= '0' && n[l - 1] <= '9') {
		if (!strncmp(n, "md", 2) || !strncmp(n, "ram", 3) || !strncmp(n, "dm-", 3))
			return 0;
		if (!strncmp(n, "nvme", 4) || !strncmp(n, "mmcblk", 6))
			return strchr(n + 4, 'p') != NULL;
		return 1;
	}
	return 0;
}

int parse_diskstats(const char *buf, size_t len, struct disk_counts *d, int max)
{
	const char *p = buf, *end = buf + len;
	char line[512];
	int n = 0;
	while (n < max && line_of(&p, end, line, sizeof line)) {
		unsigned maj, min;
		char name[32];
		unsigned long long f[11];
		int k = sscanf(line, " %u %u %31s %llu %llu %llu %llu %llu %llu %llu %llu %llu %llu %llu", &maj, &min, name,
			       &f[0], &f[1], &f[2], &f[3], &f[4], &f[5], &f[6], &f[7], &f[8], &f[9], &f[10]);
		if (k < 7 || skipped_disk(name))
			continue;
		memset(&d[n], 0, sizeof d[n]);
		snprintf(d[n].name, sizeof d[n].name, "%s", name);
		if (k == 7) {
			/* 2.6-era partition lines: reads, sectors read, writes, sectors written */
			d[n].reads = f[0];
			d[n].rsect = f[1];
			d[n].writes = f[2];
			d[n].wsect = f[3];
		} else if (k >= 14) {
			d[n].reads = f[0];
			d[n].rsect = f[2];
			d[n].writes = f[4];
			d[n].wsect = f[6];
			d[n].io_ticks = f[9];
			d[n].queue_ms = f[10];
		} else {
			continue;
		}
		n++;
	}
	return n;
}

int parse_meminfo(const char *buf, size_t len, struct mem_info *m)
{
	const char *p = buf, *end = buf + len;
	char line[256], key[64];
	unsigned long long v;
	memset(m, 0, sizeof *m);
	while (line_of(&p, end, line, sizeof line)) {
		if (sscanf(line, "%63[^:]: %llu", key, &v) != 2)
			continue;
		if (!strcmp(key, "MemTotal")) m->total = v;
		else if (!strcmp(key, "MemFree")) m->free = v;
		else if (!strcmp(key, "Buffers")) m->buffers = v;
		else if (!strcmp(key, "Cached")) m->cached = v;
		else if (!strcmp(key, "Dirty")) m->dirty = v;
		else if (!strcmp(key, "Writeback")) m->writeback = v;
	}
	return m->total ? 0 : -1;
}

int parse_task_stat(const char *buf, size_t len, unsigned long long *ticks)
{
	const char *rp = NULL;
	unsigned long long ut, st;
	char tail[512];
	for (size_t i = 0; i < len; i++)
		if (buf[i] == ')')
			rp = buf + i;
	if (!rp)
		return -1;
	snprintf(tail, sizeof tail, "%.*s", (int)(buf + len - rp - 1), rp + 1);
	/* state ppid pgrp session tty_nr tpgid flags minflt cminflt majflt cmajflt utime stime */
	if (sscanf(tail, " %*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %llu %llu", &ut, &st) != 2)
		return -1;
	*ticks = ut + st;
	return 0;
}

/* The kswapd threads (one a node), found once: they live as long as the
 * kernel. Their pids only; /proc/PID/stat is read at every sample. */
#define MAX_KSWAPD 64
static pid_t kswapd_pid[MAX_KSWAPD];
static int nkswapd = -1;

static void find_kswapd(void)
{
	DIR *d = opendir("/proc");
	struct dirent *e;
	nkswapd = 0;
	while (d && (e = readdir(d)) && nkswapd < MAX_KSWAPD) {
		char path[64], *comm;
		if (e->d_name[0] < '1' || e->d_name[0] > '9')
			continue;
		snprintf(path, sizeof path, "/proc/%.20s/comm", e->d_name);
		if ((comm = read_attr(path))) {
			if (!strncmp(comm, "kswapd", 6))
				kswapd_pid[nkswapd++] = (pid_t)atoi(e->d_name);
			free(comm);
		}
	}
	if (d)
		closedir(d);
}

void ctr_sample(struct ctr_snapshot *s, double t)
{
	size_t len;
	char *b;
	memset(s, 0, sizeof *s);
	s->t = t;
	if ((b = read_file("/proc/stat", &len))) {
		parse_proc_stat(b, len, &s->cpu, &s->vm);
		free(b);
	}
	if ((b = read_file("/proc/vmstat", &len))) {
		parse_vmstat(b, len, &s->vm);
		free(b);
	}
	if ((b = read_file("/proc/diskstats", &len))) {
		s->ndisk = parse_diskstats(b, len, s->disk, CTR_MAX_DISKS);
		free(b);
	}
	if ((b = read_file("/proc/meminfo", &len))) {
		parse_meminfo(b, len, &s->mem);
		free(b);
	}
	if (nkswapd < 0)
		find_kswapd();
	for (int i = 0; i < nkswapd; i++) {
		char path[64];
		unsigned long long ticks;
		snprintf(path, sizeof path, "/proc/%d/stat", (int)kswapd_pid[i]);
		if ((b = read_file(path, &len))) {
			if (parse_task_stat(b, len, &ticks) == 0) {
				s->kswapd_ticks += ticks;
				s->nkswapd++;
			}
			free(b);
		}
	}
}

void ctr_start(struct ctr_monitor *m, unsigned interval_ms, double t0)
{
	memset(m, 0, sizeof *m);
	m->interval_ms = interval_ms;
	m->t0 = t0;
	m->stride = 1;
	ctr_tick(m, t0);
}

void ctr_tick(struct ctr_monitor *m, double t)
{
	unsigned long j = m->ticks++;	/* this sample's number */
	/* a sample off the stride is overwritten by the next one, so the last
	 * slot always holds the newest sample (at the end: the run's end) */
	if (!m->pending) {
		if (m->n == m->cap) {
			m->cap = m->cap ? m->cap * 2 : 64;
			m->snap = xrealloc(m->snap, m->cap * sizeof *m->snap);
		}
		m->n++;
	}
	ctr_sample(&m->snap[m->n - 1], t - m->t0);
	m->pending = j % m->stride != 0;
	if (!m->pending && m->n >= CTR_MAX_SAMPLES) {
		/* slots hold samples 0, s, 2s, ...: keep 0, 2s, 4s, ... and the
		 * newest, off the new stride, as the pending last slot */
		size_t k = 0, last = m->n - 1;
		struct ctr_snapshot newest = m->snap[last];
		for (size_t i = 0; i < m->n; i += 2)
			m->snap[k++] = m->snap[i];
		m->stride *= 2;
		if (last % 2) {
			m->snap[k++] = newest;
			m->pending = 1;
		}
		m->n = k;
	}
}

void ctr_free(struct ctr_monitor *m)
{
	free(m->snap);
	memset(m, 0, sizeof *m);
}

/* ---- series: values per interval, derived from consecutive snapshots ---- */

enum { S_USER, S_SYS, S_IDLE, S_IOWAIT, S_PGIN, S_PGOUT, S_SWIN, S_SWOUT, S_FAULT, S_MAJFAULT,
       S_MEMUSED, S_CACHED, S_DIRTY, S_WRITEBACK,
       S_CTXT, S_INTR, S_RUNNING, S_BLOCKED, S_PGSCAN, S_PGSTEAL, S_MEMFREE, S_BUFFERS, S_MEMUSED_PCT,
       S_SCAN_KSWAPD, S_SCAN_DIRECT, S_STEAL_KSWAPD, S_STEAL_DIRECT, S_KSWAPD_CPU, S_FIXED };

static const struct {
	const char *name, *unit;
	int trace;	/* drawn, so kept in the trace (the summary has every series) */
} fixed[S_FIXED] = {
	{ "cpu_user", "%", 1 }, { "cpu_system", "%", 1 }, { "cpu_idle", "%", 0 }, { "cpu_iowait", "%", 1 },
	{ "pgpgin", "KiB/s", 1 }, { "pgpgout", "KiB/s", 1 }, { "pswpin", "pages/s", 0 }, { "pswpout", "pages/s", 0 },
	{ "pgfault", "/s", 1 }, { "pgmajfault", "/s", 1 },
	{ "mem_used", "KiB", 1 }, { "mem_cached", "KiB", 1 }, { "mem_dirty", "KiB", 1 }, { "mem_writeback", "KiB", 1 },
	{ "ctxt", "/s", 1 }, { "intr", "/s", 0 }, { "procs_running", "tasks", 1 }, { "procs_blocked", "tasks", 1 },
	{ "pgscan", "pages/s", 0 }, { "pgsteal", "pages/s", 0 },
	/* sar's %memused is total - free over total (buffers and cache count as used) */
	{ "mem_free", "KiB", 1 }, { "mem_buffers", "KiB", 1 }, { "mem_used_pct", "%", 1 },
	/* reclaim apart: kswapd's (background) and direct (the allocating task
	 * waits), and the CPU kswapd itself used, % of one CPU */
	{ "pgscan_kswapd", "pages/s", 0 }, { "pgscan_direct", "pages/s", 0 },
	{ "pgsteal_kswapd", "pages/s", 0 }, { "pgsteal_direct", "pages/s", 0 }, { "kswapd_cpu", "%", 1 },
};
/* the trace holds vmstat's columns: r b (procs), free buff cache (mem_*),
 * si so (pswpin/out, in the summary), bi bo (pgpgin/out), us sy id wa */

static unsigned long long cpu_total(const struct cpu_times *c)
{
	return c->user + c->nice + c->system + c->idle + c->iowait + c->irq + c->softirq + c->steal;
}

static double fixed_value(const struct ctr_snapshot *a, const struct ctr_snapshot *b, int s)
{
	double dt = b->t - a->t, tot = (double)cpu_total(&b->cpu) - (double)cpu_total(&a->cpu);
	if (dt <= 0)
		dt = 1e-9;
	switch (s) {
	case S_USER: return tot > 0 ? 100.0 * ((b->cpu.user + b->cpu.nice) - (a->cpu.user + a->cpu.nice)) / tot : 0;
	case S_SYS: return tot > 0 ? 100.0 * ((b->cpu.system + b->cpu.irq + b->cpu.softirq) - (a->cpu.system + a->cpu.irq + a->cpu.softirq)) / tot : 0;
	case S_IDLE: return tot > 0 ? 100.0 * (b->cpu.idle - a->cpu.idle) / tot : 0;
	case S_IOWAIT: return tot > 0 ? 100.0 * (b->cpu.iowait - a->cpu.iowait) / tot : 0;
	case S_PGIN: return (b->vm.pgpgin - a->vm.pgpgin) / dt;
	case S_PGOUT: return (b->vm.pgpgout - a->vm.pgpgout) / dt;
	case S_SWIN: return (b->vm.pswpin - a->vm.pswpin) / dt;
	case S_SWOUT: return (b->vm.pswpout - a->vm.pswpout) / dt;
	case S_FAULT: return (b->vm.pgfault - a->vm.pgfault) / dt;
	case S_MAJFAULT: return (b->vm.pgmajfault - a->vm.pgmajfault) / dt;
	case S_MEMUSED: return (double)b->mem.total - b->mem.free - b->mem.buffers - b->mem.cached;
	case S_CACHED: return b->mem.cached;
	case S_DIRTY: return b->mem.dirty;
	case S_WRITEBACK: return b->mem.writeback;
	case S_CTXT: return (b->cpu.ctxt - a->cpu.ctxt) / dt;
	case S_INTR: return (b->cpu.intr - a->cpu.intr) / dt;
	case S_RUNNING: return b->cpu.running;
	case S_BLOCKED: return b->cpu.blocked;
	case S_PGSCAN: return (b->vm.pgscan - a->vm.pgscan) / dt;
	case S_PGSTEAL: return (b->vm.pgsteal - a->vm.pgsteal) / dt;
	case S_MEMFREE: return b->mem.free;
	case S_BUFFERS: return b->mem.buffers;
	case S_MEMUSED_PCT: return b->mem.total ? 100.0 * (b->mem.total - b->mem.free) / b->mem.total : 0;
	case S_SCAN_KSWAPD: return (b->vm.pgscan_kswapd - a->vm.pgscan_kswapd) / dt;
	case S_SCAN_DIRECT: return (b->vm.pgscan_direct - a->vm.pgscan_direct) / dt;
	case S_STEAL_KSWAPD: return (b->vm.pgsteal_kswapd - a->vm.pgsteal_kswapd) / dt;
	case S_STEAL_DIRECT: return (b->vm.pgsteal_direct - a->vm.pgsteal_direct) / dt;
	case S_KSWAPD_CPU: {
		long hz = sysconf(_SC_CLK_TCK);
		if (hz <= 0 || b->nkswapd != a->nkswapd || b->kswapd_ticks < a->kswapd_ticks)
			return 0;
		return 100.0 * (double)(b->kswapd_ticks - a->kswapd_ticks) / hz / dt;
	}
	}
	return 0;
}

static const struct disk_counts *disk_in(const struct ctr_snapshot *s, const char *name)
{
	for (int i = 0; i < s->ndisk; i++)
		if (!strcmp(s->disk[i].name, name))
			return &s->disk[i];
	return NULL;
}

enum { D_IOS, D_SECT, D_QUEUE, D_UTIL, D_N };
static const char *const dser[D_N] = { "ios", "sectors", "queue_ms", "util" };
static const char *const dunit[D_N] = { "/s", "sectors/s", "ms/s", "%" };

static double disk_value(const struct ctr_snapshot *a, const struct ctr_snapshot *b, const char *name, int k)
{
	const struct disk_counts *x = disk_in(a, name), *y = disk_in(b, name);
	double dt = b->t - a->t;
	if (!x || !y || dt <= 0)
		return 0;
	switch (k) {
	case D_IOS: return ((y->reads + y->writes) - (x->reads + x->writes)) / dt;
	case D_SECT: return ((y->rsect + y->wsect) - (x->rsect + x->wsect)) / dt;
	case D_QUEUE: return (y->queue_ms - x->queue_ms) / dt;
	case D_UTIL: return (y->io_ticks - x->io_ticks) / (dt * 10);	/* ms busy per s, as % (iostat's %util) */
	}
	return 0;
}

static void summary_of(struct jw *w, const char *name, const char *unit, const double *v, size_t n)
{
	double sum = 0, mx = -INFINITY;
	for (size_t i = 0; i < n; i++) {
		sum += v[i];
		if (v[i] > mx)
			mx = v[i];
	}
	jw_obj(w, name);
	jw_num(w, "mean", n ? round(sum / n * 1000) / 1000 : NAN);
	jw_num(w, "max", n ? round(mx * 1000) / 1000 : NAN);
	jw_str(w, "unit", unit);
	jw_obj_end(w);
}

void ctr_json(const struct ctr_monitor *m, struct jw *w)
{
	size_t n = m->n > 1 ? m->n - 1 : 0;	/* intervals */
	double *v = xcalloc(n + 1, sizeof *v);
	const struct ctr_snapshot *last = m->n ? &m->snap[m->n - 1] : NULL;
	char key[80];

	jw_obj(w, "counters");
	jw_int(w, "interval_ms", m->interval_ms);
	jw_int(w, "samples", m->n);
	if (m->stride > 1) {
		/* a long run: the trace keeps one sample in stride, evenly */
		jw_int(w, "decimated_by", m->stride);
		jw_int(w, "samples_taken", m->ticks);
	}
	/* summary */
	jw_obj(w, "summary");
	for (int s = 0; s < S_FIXED; s++) {
		for (size_t i = 0; i < n; i++)
			v[i] = fixed_value(&m->snap[i], &m->snap[i + 1], s);
		summary_of(w, fixed[s].name, fixed[s].unit, v, n);
	}
	for (int d = 0; last && d < last->ndisk; d++) {
		double io = 0;
		const struct disk_counts *first = disk_in(&m->snap[0], last->disk[d].name);
		if (first)
			io = (last->disk[d].reads + last->disk[d].writes) - (first->reads + first->writes);
		if (io <= 0)
			continue;	/* idle devices would only add noise */
		for (int k = 0; k < D_N; k++) {
			for (size_t i = 0; i < n; i++)
				v[i] = disk_value(&m->snap[i], &m->snap[i + 1], last->disk[d].name, k);
			snprintf(key, sizeof key, "disk_%s_%s", last->disk[d].name, dser[k]);
			summary_of(w, key, dunit[k], v, n);
		}
	}
	jw_obj_end(w);
	/* trace: one point per interval, at its end */
	jw_obj(w, "trace");
	jw_arr(w, "t");
	for (size_t i = 0; i < n; i++)
		jw_num(w, NULL, round(m->snap[i + 1].t * 1000) / 1000);
	jw_arr_end(w);
	for (int s = 0; s < S_FIXED; s++) {
		if (!fixed[s].trace)
			continue;	/* in the summary; the trace keeps what is drawn */
		jw_arr(w, fixed[s].name);
		for (size_t i = 0; i < n; i++)
			jw_num(w, NULL, round(fixed_value(&m->snap[i], &m->snap[i + 1], s) * 100) / 100);
		jw_arr_end(w);
	}
	for (int d = 0; last && d < last->ndisk; d++) {
		const struct disk_counts *first = disk_in(&m->snap[0], last->disk[d].name);
		if (!first || (last->disk[d].reads + last->disk[d].writes) == (first->reads + first->writes))
			continue;
		snprintf(key, sizeof key, "disk_%s_ios", last->disk[d].name);
		jw_arr(w, key);
		for (size_t i = 0; i < n; i++)
			jw_num(w, NULL, round(disk_value(&m->snap[i], &m->snap[i + 1], last->disk[d].name, D_IOS) * 100) / 100);
		jw_arr_end(w);
	}
	jw_obj_end(w);
	jw_obj_end(w);
	free(v);
}
