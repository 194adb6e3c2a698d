/*
 * results.c - find the results partition among the discovered disks and
 * open it for appending. Finding it by GPT name is not a licence to write
 * elsewhere: only the region inside that partition is ever written.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "err.h"
#include "gpt.h"
#include "init.h"

static void on_corrupt(void *ctx, uint64_t off, const char *why)
{
	(void)ctx;
	warn("results partition: offset %llu: %s", (unsigned long long)off, why);
}

int open_results(void)
{
	static const struct rs_scan_ops ops = { NULL, on_corrupt };
	char err[256];

	random_bytes(A.rec.boot_id, 16);
	if (!strcmp(A.conf.results, "none")) {
		info("bootbench.results=none: records go to the console only");
		return 0;
	}
	for (size_t i = 0; i < A.ndevs; i++) {
		char path[64];
		struct rs_region reg;
		int fd, r;
		if (strcmp(A.conf.results, "auto") && strcmp(A.conf.results, A.devs[i].name))
			continue;
		snprintf(path, sizeof path, "/dev/%s", A.devs[i].name);
		fd = open(path, O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			continue;
		r = rs_locate(fd, path, &reg, err, sizeof err);
		close(fd);
		if (r != 1)
			continue;
		/* found ours: reopen for writing, synchronous */
		fd = open(path, O_RDWR | O_CLOEXEC | O_DSYNC);
		if (fd < 0) {
			warn_sys("unable to open %s for writing", path);
			return -1;
		}
		reg.fd = fd;
		if (rs_writer_open(&A.rec.w, &reg, A.rec.boot_id, &ops, NULL, err, sizeof err) < 0) {
			warn("results partition on %s unusable: %s (console only)", path, err);
			close(fd);
			return -1;
		}
		A.rec.stored = 1;
		snprintf(A.results_dev, sizeof A.results_dev, "%s", A.devs[i].name);
		info("results: %s, %llu records so far, %llu KiB free", reg.desc,
		     (unsigned long long)A.rec.w.seq,
		     (unsigned long long)(A.rec.w.h.size - A.rec.w.end) / 1024);
		return 0;
	}
	if (strcmp(A.conf.results, "auto")) {
		warn("bootbench.results=%s: no results partition there (console only)", A.conf.results);
		return -1;
	}
	info("no results partition (GPT name %s) found: records go to the console only", RESULTS_PART_NAME);
	return 0;
}
