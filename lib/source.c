/*
 * source.c - reading records from images, partitions and console logs.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "defaults.h"
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
	warning("%s: offset %llu: %s", pc->src, (unsigned long long)off, why);
}

/* One line of a console log or of collect output: find its record, if any. */
static int one_line(char *p, size_t ll, unsigned long lineno, record_line_fn fn, void *ctx)
{
	char *json = NULL, where[32];
	size_t rl;
	if (ll >= 8 && !memcmp(p, "{\"seq\":", 7)) {
		json = p;	/* a line of `bootbench collect` output */
	} else {
		char *rec = memmem(p, ll, CONSOLE_PREFIX "{", strlen(CONSOLE_PREFIX) + 1);
		if (rec)
			json = rec + strlen(CONSOLE_PREFIX);
	}
	if (!json)
		return 0;
	rl = p + ll - json;
	while (rl && (json[rl - 1] == '\r' || json[rl - 1] == ' '))
		rl--;
	snprintf(where, sizeof where, "line %lu", lineno);
	fn(ctx, json, rl, where);
	return 1;
}

int lines_read(int fd, size_t max, text_line_fn fn, void *ctx)
{
	const size_t cap = max + (1u << 20);
	char *buf = xmalloc(cap + 1);
	size_t have = 0;
	unsigned long lineno = 0;
	int skipping = 0;
	for (;;) {
		ssize_t n = read(fd, buf + have, cap - have);
		char *p = buf, *end, *nl;
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			int e = errno;
			free(buf);
			errno = e;
			return -1;
		}
		if (n == 0) {
			if (have && !skipping)	/* the last line, unterminated */
				fn(ctx, buf, have, ++lineno);
			break;
		}
		have += (size_t)n;
		end = buf + have;
		while ((nl = memchr(p, '\n', (size_t)(end - p)))) {
			lineno++;
			if (skipping)
				;	/* the end of an over-long line, already passed */
			else if ((size_t)(nl - p) > max)
				fn(ctx, NULL, 0, lineno);	/* the same bound wherever the reads fell */
			else
				fn(ctx, p, (size_t)(nl - p), lineno);
			skipping = 0;
			p = nl + 1;
		}
		have = (size_t)(end - p);
		if (have > max) {
			/* no newline within the longest line allowed */
			if (!skipping)
				fn(ctx, NULL, 0, lineno + 1);
			skipping = 1;
			have = 0;
			continue;
		}
		memmove(buf, p, have);
	}
	free(buf);
	return 0;
}

struct lines_ctx {
	const char *src;
	size_t max;
	record_line_fn fn;
	void *ctx;
	unsigned long found, toolong;
};

static void record_text_line(void *ctx, char *line, size_t len, unsigned long lineno)
{
	struct lines_ctx *lc = ctx;
	if (!line) {
		lc->toolong++;
		warning("%s: line %lu: longer than %zu bytes, more than any record: skipped", lc->src, lineno, lc->max);
		return;
	}
	lc->found += one_line(line, len, lineno, lc->fn, lc->ctx);
}

/* Streamed, so memory is bounded by the longest line allowed, not by the
 * file: a record is at most RECORD_PAYLOAD_MAX bytes, and a line longer
 * than that plus a console's prefix is skipped with a warning, unparsed. */
static int read_lines(const char *src, int fd, record_line_fn fn, void *ctx, unsigned long long *lost)
{
	struct lines_ctx lc = { src, RECORD_LINE_MAX, fn, ctx, 0, 0 };
	unsigned long found, toolong;
	if (lines_read(fd, lc.max, record_text_line, &lc) < 0) {
		warn_sys("unable to read %s", src);
		return 1;
	}
	found = lc.found;
	toolong = lc.toolong;
	if (lost)
		*lost += toolong;
	if (!found) {
		warning("%s: no results partition and no record lines%s: nothing to collect", src,
		     toolong ? " (only over-long lines)" : "");
		return 1;
	}
	return 0;
}

int source_read(const char *path, record_line_fn fn, void *ctx, int quiet, unsigned long long *lost)
{
	struct rs_tail tail;
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
		warning("%s", err);
		close(fd);
		return 1;
	}
	if (r == 0) {
		/* not a disk or partition of ours: a console log or collect output */
		r = read_lines(path, fd, fn, ctx, lost);
		close(fd);
		return r;
	}
	if (reg.cut)
		warning("%s: the image is truncated: the partition's last %llu bytes are missing; reading what is there",
		     reg.desc, (unsigned long long)reg.cut);
	if (rs_fd_read(&reg, blk, sizeof blk, 0) != (long)sizeof blk ||
	    rs_header_decode(blk, sizeof blk, &h, err, sizeof err) < 0) {
		warning("%s: %s", reg.desc, err);
		close(fd);
		return 1;
	}
	if (h.size > reg.size) {
		warning("%s: header claims %llu bytes, the partition has %llu: reading what is there (the rest is lost)",
		     reg.desc, (unsigned long long)h.size, (unsigned long long)reg.size);
		h.size = reg.size;
		if (!reg.cut)
			reg.cut = 1;	/* a bare partition cut short: counted as a loss below */
	}
	if (rs_scan(rs_fd_read, &reg, &h, &ops, &pc, &res, err, sizeof err) < 0) {
		warning("%s: %s", reg.desc, err);
		close(fd);
		return 1;
	}
	/* past a torn record, or past a damaged last record already counted */
	r = rs_tail_extent(rs_fd_read, &reg, res.torn ? res.end + res.torn : res.tail_reported ? res.append : res.end,
			   h.size, &tail);
	close(fd);
	if (r < 0) {
		warn_sys("%s: unable to read past the last record", reg.desc);
		return 1;
	}
	if (tail.nonzero)
		warning("%s: %llu bytes after the last good record (from offset %llu%s) are not free space: records "
		     "there are damaged or lost", reg.desc, (unsigned long long)tail.nonzero,
		     (unsigned long long)tail.first, tail.checked < h.size ? ", first " RS_TAIL_WINDOW_TEXT " checked" : "");
	if (!quiet)
		info("%s: %llu records, %llu damaged, %llu of %llu KiB used", reg.desc,
		     (unsigned long long)res.nrecords, (unsigned long long)res.ncorrupt,
		     (unsigned long long)res.end / 1024, (unsigned long long)h.size / 1024);
	if (lost)
		*lost += res.ncorrupt + (tail.nonzero > 0) + (reg.cut > 0);
	return 0;
}
