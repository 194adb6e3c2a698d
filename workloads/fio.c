/*
 * fio.c - runs fio itself (the static build in the userland, rootfs/recipes/
 * fio.sh) on the layout, with a job file the plan ships or inline job
 * options, and takes its figures from fio's --output-format=json: per job
 * and data direction, bandwidth, IOPS, completion latency mean and
 * p50/p99/p99.9 (fio's CPU figures go in details). Nothing is scraped from fio's
 * human output.
 *
 * fio is pointed at the layout with --directory (a mounted layout) or
 * --filename (the layout's device). A job that names any other file or
 * device is refused before fio starts: the appliance writes only to what it
 * was given.
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

#define FIO_JSON_MAX (8u << 20)	/* bytes of fio's JSON read */
#define FIO_JOB_MAX (1u << 20)	/* bytes of job file read to check its targets */

/* A target (filename=, directory=, ...) is allowed when it is the layout's
 * device, or a relative path (fio puts it under --directory), or a path
 * inside the layout's directory without "..". */
static int target_ok(const char *val, const char *dir, const char *dev, int relative_ok)
{
	/* fio separates several filenames with ':' */
	char buf[4096];
	size_t n = strlen(val);
	if (n >= sizeof buf || n == 0)
		return 0;
	memcpy(buf, val, n + 1);
	for (char *save = NULL, *t = strtok_r(buf, ":", &save); t; t = strtok_r(NULL, ":", &save)) {
		if (strstr(t, ".."))
			return 0;
		if (t[0] != '/') {
			/* fio puts a relative file name under --directory; with
			 * no directory it would land in the current one */
			if (dir && relative_ok)
				continue;
			return 0;
		}
		/* the raw device only when nothing is mounted on it */
		if (dev && !dir && !strcmp(t, dev))
			continue;
		if (dir) {
			size_t d = strlen(dir);
			if (!strncmp(t, dir, d) && (t[d] == '/' || t[d] == 0))
				continue;
		}
		return 0;
	}
	return 1;
}

/*
 * What a job may say: an allowlist, because fio's parser differs from any
 * checker in ways a blacklist cannot follow (it strips every isspace()
 * character, expands ${VAR} anywhere in a line, takes "include" followed by
 * any character, and many options open files: cgroup, mem=mmap:FILE,
 * e4defrag's donorname, verify state). Lines are refused outright when they
 * hold '$' or a control character, or start with "include"; section names
 * are plain words (a job name is a file name under --directory).
 */
static const char *const fio_allowed[] = {
	"rw", "readwrite", "rwmixread", "rwmixwrite", "bs", "blocksize", "bsrange", "blocksize_range",
	"bssplit", "ba", "blockalign", "size", "filesize", "io_size", "io_limit", "offset", "offset_increment",
	"nrfiles", "nr_files", "openfiles", "numjobs", "iodepth", "iodepth_batch", "iodepth_batch_submit",
	"iodepth_batch_complete", "iodepth_batch_complete_min", "iodepth_batch_complete_max", "iodepth_low",
	"direct", "buffered", "ioengine", "runtime", "timeout", "time_based", "ramp_time", "startdelay",
	"fsync", "fdatasync", "end_fsync", "fsync_on_close", "sync", "randrepeat", "randseed", "norandommap",
	"random_distribution", "percentage_random", "random_generator", "loops", "thread", "group_reporting",
	"stonewall", "wait_for_previous", "new_group", "invalidate", "create_serialize", "create_fsync",
	"create_on_open", "create_only", "fallocate", "overwrite", "unlink", "unlink_each_loop", "zero_buffers",
	"refill_buffers", "scramble_buffers", "buffer_compress_percentage", "buffer_compress_chunk",
	"dedupe_percentage", "rate", "rate_min", "rate_iops", "rate_iops_min", "rate_process", "rate_cycle",
	"thinktime", "thinktime_spin", "thinktime_blocks", "nice", "prio", "prioclass", "cpus_allowed",
	"cpus_allowed_policy", "lat_percentiles", "clat_percentiles", "slat_percentiles", "percentile_list",
	"disable_lat", "disable_clat", "disable_slat", "disable_bw_measurement", "filename", "directory",
	"file_service_type", "pre_read", "gtod_reduce", "clocksource", "kb_base", "unit_base", "hipri",
	"fixedbufs", "registerfiles", "sqthread_poll", "sqthread_poll_cpu", "nonvectored", "uncached",
	"zonemode", "zonesize", "zonerange", "max_open_zones", "fadvise_hint", "write_barrier",
	"allow_file_create", "allow_mounted_write", "serialize_overlap", "exitall", "exitall_on_error",
	"continue_on_error", "ignore_error", "error_dump", "number_ios", "bs_unaligned", "rwmix",
	"file_append", "trim_percentage", "trim_backlog", "iomem_align", "mem_align", "userspace_reap", "stat_type", NULL };
static const char *const fio_engines[] = { "psync", "sync", "pvsync", "pvsync2", "vsync", "io_uring",
	"posixaio", "mmap", "null", "splice", "falloc", "ftruncate", "filestat", NULL };

static int in_list(const char *const *l, const char *k)
{
	for (; *l; l++)
		if (!strcmp(*l, k))
			return 1;
	return 0;
}

/* Characters a file name here may have. */
static int plain_path(const char *v)
{
	for (; *v; v++)
		if (!((*v >= 'a' && *v <= 'z') || (*v >= 'A' && *v <= 'Z') || (*v >= '0' && *v <= '9') ||
		      *v == '_' || *v == '-' || *v == '.' || *v == '/' || *v == ':'))
			return 0;
	return 1;
}

/* A line fio would read differently from us is refused whole. */
static int line_ok(const char *l, char *why, size_t len)
{
	for (const unsigned char *p = (const unsigned char *)l; *p; p++)
		if ((*p < 0x20 && *p != '\t' && *p != '\r') || *p == 0x7f || *p == '$') {
			snprintf(why, len, "fio job text holds %s, which fio would expand or strip: refused",
				 *p == '$' ? "'$'" : "a control character");
			return -1;
		}
	return 0;
}

/* One "key=value" (or "key" alone) option; 0 ok, else the reason in why. */
int fio_check_option(const char *opt, const char *dir, const char *dev, char *why, size_t len)
{
	char key[64], val[4096];
	size_t k, m;

	if (line_ok(opt, why, len))
		return -1;
	opt += strspn(opt, " \t\r");
	k = strcspn(opt, "= \t\r");
	if (k >= sizeof key) {
		snprintf(why, len, "fio option name %.40s... is too long", opt);
		return -1;
	}
	memcpy(key, opt, k);
	key[k] = 0;
	opt += k;
	opt += strspn(opt, " \t");
	if (*opt == '=')
		opt++;
	opt += strspn(opt, " \t");
	m = strcspn(opt, "\r\n");
	while (m && (opt[m - 1] == ' ' || opt[m - 1] == '\t'))
		m--;
	if (m >= sizeof val) {
		snprintf(why, len, "fio %s= is too long", key);
		return -1;
	}
	memcpy(val, opt, m);
	val[m] = 0;
	if (!in_list(fio_allowed, key)) {
		snprintf(why, len, "fio option %.60s is not one the appliance allows (docs/workloads.md lists them)", key);
		return -1;
	}
	/* jobs as processes call setsid() and would outlive the watchdog */
	if (!strcmp(key, "thread") && *val && strcmp(val, "1")) {
		snprintf(why, len, "fio thread=%.40s is refused: jobs run as threads here", val);
		return -1;
	}
	if (!strcmp(key, "ioengine") && !in_list(fio_engines, val)) {
		snprintf(why, len, "fio ioengine=%.60s is not one the appliance allows", val);
		return -1;
	}
	if (!strcmp(key, "filename") || !strcmp(key, "directory")) {
		/* a relative directory would be taken from the current
		 * directory, not the layout's */
		int rel = strcmp(key, "directory");
		if (!plain_path(val) || !target_ok(val, dir, dev, rel)) {
			snprintf(why, len, "fio %s=%.160s is outside this layout (%s)", key, val,
				 dev && !dir ? dev : dir ? dir : "none");
			return -1;
		}
	}
	return 0;
}

/* Every line of a job file: 0 ok, else the reason. */
int fio_check_jobfile(const char *text, const char *dir, const char *dev, char *why, size_t len)
{
	for (const char *l = text; *l;) {
		const char *e = l + strcspn(l, "\n");
		char line[4200];
		size_t n = (size_t)(e - l);
		if (n >= sizeof line) {
			snprintf(why, len, "a job file line is longer than %zu bytes", sizeof line - 1);
			return -1;
		}
		memcpy(line, l, n);
		line[n] = 0;
		if (line_ok(line, why, len))
			return -1;
		const char *t = line + strspn(line, " \t\r");
		if (!strncmp(t, "include", 7)) {
			snprintf(why, len, "fio job files may not include other files here");
			return -1;
		}
		if (*t == '[') {
			/* a job name is a file name under --directory */
			size_t w = strspn(t + 1, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-.");
			if (w == 0 || w > 40 || t[1 + w] != ']' || strstr(t, "..")) {
				snprintf(why, len, "fio section %.60s: names are letters, digits, '_', '-', '.'", t);
				return -1;
			}
		} else if (*t && *t != ';' && *t != '#' && fio_check_option(t, dir, dev, why, len)) {
			return -1;
		}
		l = *e ? e + 1 : e;
	}
	return 0;
}

static double pct(const struct jv *clat, const char *key)
{
	const struct jv *p = json_get(clat, "percentile");
	return p ? json_get_num(p, key, NAN) : NAN;
}

/* A figure fio gave; one it did not (percentiles turned off) is left out. */
static void put(struct wctx *c, const char *name, double v, const char *unit, const char *better)
{
	if (isfinite(v) && v >= 0)
		wl_metric(c, name, v, unit, better);
}

/* Figures from fio's JSON: 0, or -1 with the reason set. */
int fio_figures(struct wctx *c, const char *json, size_t len)
{
	static const char *const dirs[] = { "read", "write", "trim" };
	char err[160];
	struct jv *root = json_parse(json, len, err, sizeof err);
	if (!root)
		return wl_fail(c, "fio's JSON output does not parse: %s", err);
	const struct jv *jobs = json_get(root, "jobs");
	const char *ver = json_get_str(root, "fio version");
	if (!jobs || jobs->t != J_ARR || jobs->n == 0) {
		json_free(root);
		return wl_fail(c, "fio's JSON has no jobs");
	}
	if (ver)
		jw_str(&c->details, "fio_version", ver);
	jw_int(&c->details, "jobs", (long long)jobs->n);
	for (size_t i = 0; i < jobs->n; i++) {
		const struct jv *j = jobs->items[i];
		const char *name = json_get_str(j, "jobname");
		char pre[24], m[48];
		/* fio numbers jobs of the same name; the index keeps names short
		 * and unique: the job name goes into details. */
		snprintf(pre, sizeof pre, "j%zu", i);
		if (json_get_num(j, "error", 0) != 0) {
			json_free(root);
			return wl_fail(c, "fio job %zu (%.60s) ended with error %g", i, name ? name : "?",
				       json_get_num(j, "error", 0));
		}
		for (size_t d = 0; d < 3; d++) {
			const struct jv *x = json_get(j, dirs[d]);
			if (!x || json_get_num(x, "io_bytes", 0) <= 0)
				continue;
			const struct jv *clat = json_get(x, "clat_ns");
			snprintf(m, sizeof m, "%s_%s_MBps", pre, dirs[d]);
			put(c, m, json_get_num(x, "bw_bytes", NAN) / 1e6, "MB/s", "higher");
			snprintf(m, sizeof m, "%s_%s_iops", pre, dirs[d]);
			put(c, m, json_get_num(x, "iops", NAN), "IO/s", "higher");
			/* how many, beside the rate: what a per-call count divides by */
			snprintf(m, sizeof m, "%s_%s_ios", pre, dirs[d]);
			jw_num(&c->details, m, json_get_num(x, "total_ios", NAN));
			if (clat) {
				static const char *const pk[] = { "50.000000", "99.000000", "99.900000" };
				static const char *const pn[] = { "p50", "p99", "p99_9" };
				snprintf(m, sizeof m, "%s_%s_clat_mean_us", pre, dirs[d]);
				put(c, m, json_get_num(clat, "mean", NAN) / 1e3, "us", "lower");
				for (size_t k = 0; k < 3; k++) {
					snprintf(m, sizeof m, "%s_%s_clat_%s_us", pre, dirs[d], pn[k]);
					put(c, m, pct(clat, pk[k]) / 1e3, "us", "lower");
				}
			}
		}
		/* fio's CPU figures are details, not figures: faster I/O uses
		 * more CPU per second, which is not a regression. */
		snprintf(m, sizeof m, "%s_usr_cpu_pct", pre);
		jw_num(&c->details, m, json_get_num(j, "usr_cpu", NAN));
		snprintf(m, sizeof m, "%s_sys_cpu_pct", pre);
		jw_num(&c->details, m, json_get_num(j, "sys_cpu", NAN));
		snprintf(m, sizeof m, "%s_name", pre);
		jw_str(&c->details, m, name);
	}
	json_free(root);
	return c->nmetrics ? 0 : wl_fail(c, "fio's JSON has no job that did I/O");
}

/*
 * fio reads one job file that this function writes and checks: the inline
 * options as a [global] section (so a job file's own values win over them),
 * then the plan's job file (or one job named "inline"). Nothing but our own
 * arguments reaches fio's command line, where getopt would take any prefix
 * of an option name; fio's job-file parser takes exact names only. fio runs
 * its jobs as threads: as processes they call setsid() and would outlive
 * the watchdog's kill of the workload's process group.
 */
static int fio_run(struct wctx *c)
{
	const char *job = wl_param(c, "job"), *opts = wl_param(c, "options");
	char why[256], out[40], jobpath[40], outarg[64], target[4200], obuf[4096];
	int jfd = -1, ofd = -1;
	struct sbuf text = { 0 }, user = { 0 }, log = { 0 };
	struct run_result res;
	int rc = -1;

	if (access(wl_param(c, "fio"), X_OK) != 0)
		return wl_fail(c, "unable to execute %s: %s", wl_param(c, "fio"), strerror(errno));
	if (!*job && !*opts)
		return wl_fail(c, "fio needs a job file (job=) or inline job options (options=)");
	if (!c->dir && !c->dev)
		return wl_fail(c, "fio needs a directory or a device");
	if (strlen(opts) >= sizeof obuf)
		return wl_fail(c, "fio options are longer than %zu bytes", sizeof obuf - 1);
	sb_puts(&text, "; written by bootbench's fio workload\n[global]\nthread\n");
	memcpy(obuf, opts, strlen(opts) + 1);
	for (char *save = NULL, *t = strtok_r(obuf, " \t\r\n\f\v", &save); t; t = strtok_r(NULL, " \t\r\n\f\v", &save)) {
		t += strspn(t, "-");
		if (*t == '[' || !strncmp(t, "include", 7) || fio_check_option(t, c->dir, c->dev, why, sizeof why)) {
			if (*t == '[' || !strncmp(t, "include", 7))
				snprintf(why, sizeof why, "%.60s: inline options are options, not sections or includes", t);
			wl_fail(c, "options: %s", why);
			goto done;
		}
		sb_printf(&text, "%s\n", t);
	}
	if (*job) {
		size_t ulen = 0;
		int fd = open(job, O_RDONLY | O_CLOEXEC);
		if (fd < 0) {
			wl_fail(c, "unable to open fio job file %s: %s", job, strerror(errno));
			goto done;
		}
		char *u = read_fd(fd, FIO_JOB_MAX, &ulen);
		int e = errno;
		close(fd);
		if (!u) {
			wl_fail(c, "fio job file %s: %s", job, e == EFBIG ? "larger than 1 MiB" : strerror(e));
			goto done;
		}
		sb_add(&user, u, ulen);
		free(u);
		if (user.len == 0 || memchr(user.s, 0, user.len)) {
			wl_fail(c, "fio job file %s is empty or holds a NUL byte", job);
			goto done;
		}
		if (fio_check_jobfile(user.s, c->dir, c->dev, why, sizeof why)) {
			wl_fail(c, "%s: %s", job, why);
			goto done;
		}
		sb_printf(&text, "; %s\n", job);
		sb_add(&text, user.s, user.len);
		sb_putc(&text, '\n');
	} else {
		sb_puts(&text, "[inline]\n");
	}
	/* unlinked at once: a run killed at its timeout leaves nothing */
	if ((jfd = scratch_file(c->dir ? c->dir : "/tmp", jobpath, sizeof jobpath)) < 0 ||
	    write_all(jfd, text.s, text.len) != (ssize_t)text.len ||
	    (ofd = scratch_file(c->dir ? c->dir : "/tmp", out, sizeof out)) < 0) {
		wl_fail(c, "unable to write fio's job and output files in %s: %s", c->dir ? c->dir : "/tmp", strerror(errno));
		goto done;
	}
	snprintf(outarg, sizeof outarg, "--output=%s", out);
	if (c->dir)
		snprintf(target, sizeof target, "--directory=%s", c->dir);
	else
		snprintf(target, sizeof target, "--filename=%s", c->dev);
	char *argv[] = { (char *)wl_param(c, "fio"), "--output-format=json", outarg, target, jobpath, NULL };
	if (run_capture_here(argv, &log, 0, &res) != 0) {
		wl_fail(c, "unable to start fio: %s", strerror(errno));
		goto done;
	}
	/* fio's first "fio: " line says why ("failed parsing rw=x"; the last
	 * is only "job dropped"); else its last line */
	if (wl_tool_failed(c, "fio", &res, &log, "fio: "))
		goto done;
	sb_reset(&text);
	{
		size_t jlen = 0;
		char *j = lseek(ofd, 0, SEEK_SET) == 0 ? read_fd(ofd, FIO_JSON_MAX, &jlen) : NULL;
		int e = errno;
		if (!j) {
			wl_fail(c, "fio's JSON: %s", e == EFBIG ? "larger than 8 MiB" : strerror(e));
			goto done;
		}
		sb_add(&text, j, jlen);
		free(j);
	}
	if (text.len == 0)
		wl_fail(c, "fio exited 0 but wrote no JSON (is %s full?)", c->dir ? c->dir : "/tmp");
	else
		rc = fio_figures(c, text.s, text.len);
done:
	if (jfd >= 0)
		close(jfd);
	if (ofd >= 0)
		close(ofd);
	sb_free(&text);
	sb_free(&user);
	sb_free(&log);
	return rc;
}

static const struct wparam fio_params[] = {
	{ "job", "", "fio job file (shipped in the userland, e.g. /etc/bootbench/fio/randread.fio)" },
	{ "options", "", "inline fio options, space-separated: rw=randread bs=4k size=64M runtime=10" },
	{ "fio", FIO_BIN, "the fio binary" },
	{ NULL, NULL, NULL },
};

const struct workload wl_fio = {
	.name = "fio",
	.summary = "fio itself, with a job file or inline options, on the layout's directory or device",
	.params = fio_params,
	.needs = 0,
	.run = fio_run,
};
