/*
 * source.c - reading records from images, partitions and console logs.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "err.h"
#include "record.h"
#include "results.h"
#include "source.h"
#include "xio.h"

struct part_ctx {
	const char *src;
	record_line_fn fn;
	void *ctx;
};

static void part_record(void *ctx, const struct rs_rec *r)
{
	struct part_ctx *pc = ctx;
	struct sbuf line = {0};
	char where[64];
	snprintf(where, sizeof where, "offset %llu (seq %llu)", (unsigned long long)r->off, (unsigned long long)r->seq);
	rec_line(&line, r->seq, r->boot_id, r->type, r->payload, r->len);
	pc->fn(pc->ctx, line.s, line.len, where);
	sb_free(&line);
}

static void part_corrupt(void *ctx, uint64_t off, const char *why)
{
	struct part_ctx *pc = ctx;
	warn("%s: offset %llu: %s", pc->src, (unsigned long long)off, why);
}

static int read_lines(const char *src, int fd, record_line_fn fn, void *ctx)
{
	size_t len;
	char *buf = read_fd(fd, 1u << 30, &len), *p, *end;
	unsigned long lineno = 0, found = 0;
	if (!buf) {
		warn_sys("unable to read %s", src);
		return 1;
	}
	for (p = buf, end = buf + len; p < end;) {
		char *nl = memchr(p, '\n', end - p), *json = NULL;
		size_t ll, rl;
		if (!nl)
			nl = end;
		lineno++;
		ll = nl - p;
		if (ll >= 8 && !memcmp(p, "{\"seq\":", 7)) {
			json = p;	/* a line of `bootbench collect` output */
		} else {
			char *rec = memmem(p, ll, CONSOLE_PREFIX "{", strlen(CONSOLE_PREFIX) + 1);
			if (rec)
				json = rec + strlen(CONSOLE_PREFIX);
		}
		if (json) {
			rl = nl - json;
			while (rl && (json[rl - 1] == '\r' || json[rl - 1] == ' '))
				rl--;
			char where[32];
			found++;
			snprintf(where, sizeof where, "line %lu", lineno);
			fn(ctx, json, rl, where);
		}
		p = nl + 1;
	}
	free(buf);
	if (!found) {
		warn("%s: no results partition and no record lines: nothing to collect", src);
		return 1;
	}
	return 0;
}

int source_read(const char *path, record_line_fn fn, void *ctx, int quiet)
{
	static const struct rs_scan_ops ops = { part_record, part_corrupt };
	struct rs_region reg;
	struct rs_header h;
	struct rs_scan_result res;
	struct part_ctx pc = { path, fn, ctx };
	unsigned char blk[4096];
	char err[256];
	int fd = open(path, O_RDONLY | O_CLOEXEC), r;

	if (fd < 0) {
		warn_sys("unable to open %s", path);
		return 1;
	}
	r = rs_locate(fd, path, &reg, err, sizeof err);
	if (r < 0) {
		warn("%s", err);
		close(fd);
		return 1;
	}
	if (r == 0) {
		/* not a disk or partition of ours: a console log or collect output */
		r = read_lines(path, fd, fn, ctx);
		close(fd);
		return r;
	}
	if (rs_fd_read(&reg, blk, sizeof blk, 0) != (long)sizeof blk ||
	    rs_header_decode(blk, sizeof blk, &h, err, sizeof err) < 0) {
		warn("%s: %s", reg.desc, err);
		close(fd);
		return 1;
	}
	if (h.size > reg.size) {
		warn("%s: header claims %llu bytes, the partition has %llu: reading what is there",
		     reg.desc, (unsigned long long)h.size, (unsigned long long)reg.size);
		h.size = reg.size;
	}
	if (rs_scan(rs_fd_read, &reg, &h, &ops, &pc, &res, err, sizeof err) < 0) {
		warn("%s: %s", reg.desc, err);
		close(fd);
		return 1;
	}
	close(fd);
	if (!quiet)
		info("%s: %llu records, %llu damaged, %llu of %llu KiB used", reg.desc,
		     (unsigned long long)res.nrecords, (unsigned long long)res.ncorrupt,
		     (unsigned long long)res.end / 1024, (unsigned long long)h.size / 1024);
	return 0;
}
