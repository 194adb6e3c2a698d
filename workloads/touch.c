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

#include "proc.h"
#include "workload.h"
#include "xio.h"

static int touch_run(struct wctx *c)
{
	long long size = wl_param_size(c, "size");
	char path[4096];
	char *buf;
	double t0, t1;
	int fd, dfd;

	if (size < 0)
		return -1;
	snprintf(path, sizeof path, "%s/bootbench-touch", c->dir);
	buf = malloc(size ? size : 1);
	if (!buf)
		return wl_fail(c, "unable to allocate %lld bytes", size);
	memset(buf, 0xa5, size);
	t0 = mono_now();
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (fd < 0) {
		free(buf);
		return wl_fail(c, "unable to create %s: %s", path, strerror(errno));
	}
	if (write_all(fd, buf, size) < 0 || fsync(fd) < 0) {
		int e = errno;
		close(fd);
		free(buf);
		return wl_fail(c, "unable to write and sync %s: %s", path, strerror(e));
	}
	close(fd);
	dfd = open(c->dir, O_RDONLY | O_DIRECTORY);
	if (dfd >= 0) {
		fsync(dfd);
		close(dfd);
	}
	t1 = mono_now();
	unlink(path);
	free(buf);
	wl_metric(c, "write_fsync", (t1 - t0) * 1e3, "ms", "lower");
	return 0;
}

static const struct wparam touch_params[] = {
	{ "size", "4K", "bytes to write before the fsync" },
	{ NULL, NULL, NULL },
};

const struct workload wl_touch = {
	.name = "touch",
	.summary = "write, fsync and delete one small file (layout smoke test)",
	.params = touch_params,
	.needs = WL_NEEDS_DIR,
	.run = touch_run,
};
