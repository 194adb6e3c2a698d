/*
 * touch.c - the smallest real workload: create a file of `size` bytes in the
 * layout, fsync it and its directory, delete it. Proves a layout accepts
 * durable writes before the heavy workloads exist, and times that.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "spawn.h"
#include "workload.h"
#include "xio.h"

/* One cycle: create, write, fsync the file and its directory; the time of
 * that, in seconds (the unlink is not timed), or -1 after wl_fail. */
static double touch_once(struct wctx *c, const char *path, const char *buf, long long size)
{
	double t0 = mono_now(), t1;
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644), dfd;
	if (fd < 0) {
		wl_fail(c, "unable to create %s: %s", path, strerror(errno));
		return -1;
	}
	if (write_all(fd, buf, size) < 0 || fsync(fd) < 0) {
		int e = errno;
		close(fd);
		wl_fail(c, "unable to write and sync %s: %s", path, strerror(e));
		return -1;
	}
	close(fd);
	dfd = open(c->dir, O_RDONLY | O_DIRECTORY);
	if (dfd >= 0) {
		fsync(dfd);
		close(dfd);
	}
	t1 = mono_now();
	unlink(path);
	return t1 - t0;
}

static int touch_run(struct wctx *c)
{
	long long size = wl_param_size(c, "size"), count = wl_param_int(c, "count");
	char path[4096];
	char *buf;
	double total = 0;

	if (size < 0 || count < 0)
		return -1;
	if (count < 1 || count > 1000000)
		return wl_fail(c, "count=%lld: expected 1 to 1000000", count);
	snprintf(path, sizeof path, "%s/bootbench-touch", c->dir);
	buf = xmalloc(size);
	memset(buf, 0xa5, size);
	for (long long i = 0; i < count; i++) {
		double t = touch_once(c, path, buf, size);
		if (t < 0) {
			free(buf);
			return -1;
		}
		total += t;
	}
	free(buf);
	/* the mean of count cycles: one 0.4 ms cycle on a ramdisk is at the
	 * mercy of a single timer tick, a hundred are not */
	wl_metric(c, "write_fsync", total / count * 1e3, "ms", "lower");
	return 0;
}

static const struct wparam touch_params[] = {
	{ "size", "4K", "bytes to write before the fsync" },
	{ "count", "1", "cycles; write_fsync is their mean" },
	{ NULL, NULL, NULL },
};

const struct workload wl_touch = {
	.name = "touch",
	.summary = "write, fsync and delete one small file (layout smoke test)",
	.params = touch_params,
	.needs = WL_NEEDS_DIR,
	.run = touch_run,
};
