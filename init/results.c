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

#include "claim.h"
#include "err.h"
#include "gpt.h"
#include "hash.h"
#include "init.h"

static void on_corrupt(void *ctx, uint64_t off, const char *why)
{
	(void)ctx;
	warning("results partition: offset %llu: %s", (unsigned long long)off, why);
}

/* A boot id must differ between boots even when the guest's random numbers
 * repeat (QEMU's deterministic mode replays them): mix in the host's nonce
 * and, when there is a results partition, its instance and current end. */
static void set_boot_id(struct rs_writer *w)
{
	struct sha256 s;
	unsigned char out[32];
	sha256_init(&s);
	sha256_update(&s, A.rec.boot_id, 16);
	if (A.conf.nonce)
		sha256_update(&s, A.conf.nonce, strlen(A.conf.nonce));
	if (w) {
		sha256_update(&s, w->h.instance, 16);
		sha256_update(&s, &w->seq, sizeof w->seq);
		sha256_update(&s, &w->end, sizeof w->end);
	}
	sha256_final(&s, out);
	memcpy(A.rec.boot_id, out, 16);
	if (w)
		memcpy(w->boot_id, out, 16);
}

int open_results(void)
{
	static const struct rs_scan_ops ops = { NULL, on_corrupt };
	char err[256];

	random_bytes(A.rec.boot_id, 16);
	set_boot_id(NULL);
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
		if (claim_listed(&A.devs[i], A.conf.readonly)) {
			/* read-only means never written: not even our own records */
			if (strcmp(A.conf.results, "auto"))
				warning("bootbench.results=%s names a disk that bootbench.readonly= names too: results "
				     "are not stored there", A.devs[i].name);
			continue;
		}
		snprintf(path, sizeof path, "/dev/%s", A.devs[i].name);
		fd = open(path, O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			continue;
		r = rs_locate(fd, path, &reg, err, sizeof err);
		close(fd);
		if (r < 0)
			warning("%s", err);	/* unreadable, or two results partitions: never a guess */
		if (r != 1)
			continue;
		if (reg.backup)
			warning("%s: the primary GPT is damaged; the results partition was found in the backup GPT",
				path);
		if (reg.cut) {
			warning("%s: the results partition extends %llu bytes past the end of the disk: not written "
			     "(console only)", path, (unsigned long long)reg.cut);
			return -1;
		}
		/* found ours: reopen for writing, synchronous */
		fd = open(path, O_RDWR | O_CLOEXEC | O_DSYNC);
		if (fd < 0) {
			warn_sys("unable to open %s for writing", path);
			return -1;
		}
		reg.fd = fd;
		if (rs_writer_open(&A.rec.w, &reg, A.rec.boot_id, &ops, NULL, err, sizeof err) < 0) {
			warning("results partition on %s unusable: %s (console only)", path, err);
			close(fd);
			return -1;
		}
		A.rec.stored = 1;
		set_boot_id(&A.rec.w);
		snprintf(A.results_dev, sizeof A.results_dev, "%s", A.devs[i].name);
		info("results: %s, %llu records so far, %llu KiB free", reg.desc,
		     (unsigned long long)A.rec.w.seq,
		     (unsigned long long)(A.rec.w.h.size - A.rec.w.end) / 1024);
		return 0;
	}
	if (strcmp(A.conf.results, "auto")) {
		warning("bootbench.results=%s: no results partition there (console only)", A.conf.results);
		return -1;
	}
	info("no results partition (GPT name %s) found: records go to the console only", RESULTS_PART_NAME);
	return 0;
}
