/*
 * stream.c - what people mean by "dd of a big file": write `size` bytes
 * sequentially in `bs` blocks (`dd if=/dev/zero of=F bs=1M conv=fsync`),
 * drop the page cache, then read the file back (`dd if=F of=/dev/null`).
 * Rates are dd's: MB = 10^6 bytes, timed from the first write to the fsync
 * (sync=1) and from the first read to EOF. The CPU each phase costs
 * (getrusage deltas) is recorded beside it, because on a kernel that is slower
 * the question is whether it waited longer or worked harder.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "spawn.h"
#include "workload.h"
#include "xio.h"

struct phase {
	double wall, user, sys;
};

static void cpu(double *user, double *sys)
{
	struct rusage r;
	getrusage(RUSAGE_SELF, &r);
	*user = r.ru_utime.tv_sec + r.ru_utime.tv_usec / 1e6;
	*sys = r.ru_stime.tv_sec + r.ru_stime.tv_usec / 1e6;
}

static void phase_start(struct phase *p)
{
	cpu(&p->user, &p->sys);
	p->wall = mono_now();
}

static void phase_stop(struct phase *p)
{
	double u, s;
	p->wall = mono_now() - p->wall;
	cpu(&u, &s);
	p->user = u - p->user;
	p->sys = s - p->sys;
}

/*
 * Empty the page cache of the file. drop_caches is what the users did by hand
 * and what a fresh boot gives; where it is refused (a container, no /proc),
 * fall back to dropping this one file's pages and say so in the details.
 */
static const char *drop_cache(int fd, char *why, size_t whylen)
{
	int e, fe;
	if (drop_page_cache() == 0)
		return "drop_caches";
	e = errno;
	/* DONTNEED drops only clean pages: write back first */
	fdatasync(fd);
	fe = posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
	snprintf(why, whylen, "writing /proc/sys/vm/drop_caches failed (%s): %s", strerror(e),
		 fe ? "posix_fadvise(DONTNEED) failed too: the read may be cached" :
		 "used posix_fadvise(DONTNEED) on the file");
	return fe ? "none" : "fadvise";
}

static int stream_run(struct wctx *c)
{
	long long size = wl_param_size(c, "size"), bs = wl_param_size(c, "bs"), sync_ = wl_param_int(c, "sync");
	char path[4096], why[256] = "";
	struct phase w, r;
	long long done = 0;
	const char *how;
	char *buf;
	int fd;

	if (size < 0 || bs < 0 || sync_ < 0)
		return -1;
	if (size == 0 || bs == 0)
		return wl_fail(c, "size and bs must be positive (size=%lld bs=%lld)", size, bs);
	if (sync_ > 1)
		return wl_fail(c, "parameter sync=%lld: 0 or 1", sync_);
	snprintf(path, sizeof path, "%s/bootbench-stream", c->dir);
	buf = xmalloc(bs);
	/* non-zero, so no filesystem or device can take a shortcut for zeros */
	for (long long i = 0; i < bs; i++)
		buf[i] = (char)(0x5a ^ (i * 131));

	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (fd < 0) {
		free(buf);
		return wl_fail(c, "unable to create %s: %s", path, strerror(errno));
	}
	phase_start(&w);
	while (done < size) {
		size_t n = size - done < bs ? (size_t)(size - done) : (size_t)bs;
		if (write_all(fd, buf, n) < 0)
			goto wfail;
		done += n;
	}
	if (sync_ && fsync(fd) < 0)
		goto wfail;
	if (close(fd) < 0) {
		fd = -1;
		goto wfail;
	}
	phase_stop(&w);
	fprintf(stderr, "stream: write %lld MiB bs=%lld%s ... %.1f MB/s\n", size >> 20, bs,
		sync_ ? " fsync" : "", size / w.wall / 1e6);

	/* drop first, then open, as `sync; echo 3 >drop_caches; dd if=F` does */
	fd = open(path, O_RDONLY);
	if (fd < 0)
		goto rfail;
	how = drop_cache(fd, why, sizeof why);
	close(fd);
	fd = open(path, O_RDONLY);
	if (fd < 0)
		goto rfail;
	phase_start(&r);
	done = 0;
	for (;;) {
		ssize_t n = read(fd, buf, bs);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			goto rfail;
		if (n == 0)
			break;
		done += n;
	}
	phase_stop(&r);
	close(fd);
	unlink(path);
	free(buf);
	if (done != size)
		return wl_fail(c, "read back %lld bytes of %s, wrote %lld", done, path, size);
	fprintf(stderr, "stream: read %lld MiB bs=%lld (%s) ... %.1f MB/s\n", size >> 20, bs, how, size / r.wall / 1e6);

	wl_metric(c, "write_MBps", size / w.wall / 1e6, "MB/s", "higher");
	wl_metric(c, "read_MBps", size / r.wall / 1e6, "MB/s", "higher");
	wl_metric(c, "write_s", w.wall, "s", "lower");
	wl_metric(c, "read_s", r.wall, "s", "lower");
	wl_metric(c, "write_user_s", w.user, "s", "lower");
	wl_metric(c, "write_sys_s", w.sys, "s", "lower");
	wl_metric(c, "read_user_s", r.user, "s", "lower");
	wl_metric(c, "read_sys_s", r.sys, "s", "lower");
	jw_int(&c->details, "bytes", size);
	jw_int(&c->details, "block", bs);
	jw_bool(&c->details, "fsync", (int)sync_);
	jw_str(&c->details, "cache_drop", how);
	if (why[0])
		jw_str(&c->details, "cache_drop_note", why);
	return 0;

wfail:
	{
		int e = errno;
		if (fd >= 0)
			close(fd);
		unlink(path);
		free(buf);
		return wl_fail(c, "unable to write %s: %s", path, strerror(e));
	}
rfail:
	{
		int e = errno;
		if (fd >= 0)
			close(fd);
		unlink(path);
		free(buf);
		return wl_fail(c, "unable to read %s: %s", path, strerror(e));
	}
}

static const struct wparam stream_params[] = {
	{ "size", "64M", "bytes to write, then read back" },
	{ "bs", "1M", "block size of each write and read (dd's bs=)" },
	{ "sync", "1", "1: fsync before the write timer stops (dd conv=fsync); 0: page cache only" },
	{ NULL, NULL, NULL },
};

const struct workload wl_stream = {
	.name = "stream",
	.summary = "dd-style sequential write (fsync) then read of one big file, MB/s and CPU per phase",
	.params = stream_params,
	.needs = WL_NEEDS_DIR,
	.run = stream_run,
};
