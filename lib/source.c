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
	warn("%s: offset %llu: %s", pc->src, (unsigned long long)off, why);
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

/* Streamed, so memory is bounded by the longest line allowed, not by the
 * file: a record is at most RECORD_PAYLOAD_MAX bytes, and a line longer
 * than that plus a console's prefix is skipped with a warning, unparsed. */
static int read_lines(const char *src, int fd, record_line_fn fn, void *ctx, unsigned long long *lost)
{
	const size_t max_line = RECORD_PAYLOAD_MAX + 4096, chunk = 1u << 20;
	char *buf = xmalloc(max_line + chunk);
	size_t have = 0;
	unsigned long lineno = 0, found = 0, toolong = 0;
	int skipping = 0, eof = 0;
	while (!eof) {
		ssize_t n = read(fd, buf + have, max_line + chunk - have);
		char *p = buf, *end, *nl;
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			warn_sys("unable to read %s", src);
			free(buf);
			return 1;
		}
		if (n == 0) {
			eof = 1;
			if (have && buf[have - 1] != '\n')
				buf[have++] = '\n';	/* the last line, unterminated */
		}
		have += n;
		end = buf + have;
		while (p < end && (nl = memchr(p, '\n', end - p))) {
			lineno++;
			if (!skipping && (size_t)(nl - p) > max_line) {
				/* the same bound wherever the read boundaries fell */
				toolong++;
				warn("%s: line %lu: longer than %zu bytes, more than any record: skipped", src, lineno, max_line);
			} else if (!skipping) {
				found += one_line(p, nl - p, lineno, fn, ctx);
			}
			skipping = 0;
			p = nl + 1;
		}
		have = end - p;
		if (have >= max_line && !eof) {
			/* no newline within the longest record there can be */
			if (!skipping) {
				toolong++;
				warn("%s: line %lu: longer than %zu bytes, more than any record: skipped", src, lineno + 1,
				     max_line);
			}
			skipping = 1;
			have = 0;
			continue;
		}
		memmove(buf, p, have);
	}
	free(buf);
	if (lost)
		*lost += toolong;
	if (!found) {
		warn("%s: no results partition and no record lines%s: nothing to collect", src,
		     toolong ? " (only over-long lines)" : "");
		return 1;
	}
	return 0;
}

/* Free space past the last record is zeros (the image is sparse, the
 * writer pads with zeros). Count the bytes that are not, from end, in the
 * first TAIL_CHECK bytes after it: a header flipped or a region written over
 * hides every record behind it from the scan, and only this shows it. */
#define TAIL_CHECK (256ull << 20)
#define TAIL_CHECK_TEXT "256 MiB"
static long long dirty_tail(struct rs_region *reg, uint64_t end, uint64_t size, uint64_t *first,
			    uint64_t *checked)
{
	static unsigned char buf[1 << 20];
	uint64_t stop = size - end > TAIL_CHECK ? end + TAIL_CHECK : size;
	long long n = 0;
	*first = 0;
	for (uint64_t at = end; at < stop;) {
		size_t want = stop - at < sizeof buf ? (size_t)(stop - at) : sizeof buf;
		long got = rs_fd_read(reg, buf, want, at);
		if (got < 0)
			return -1;
		for (long i = 0; i < got; i++)
			if (buf[i]) {
				if (!n)
					*first = at + (uint64_t)i;
				n++;
			}
		if ((size_t)got < want)
			break;
		at += (uint64_t)got;
	}
	*checked = stop;
	return n;
}

int source_read(const char *path, record_line_fn fn, void *ctx, int quiet, unsigned long long *lost)
{
	long long dirty;
	uint64_t first, checked;
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
		r = read_lines(path, fd, fn, ctx, lost);
		close(fd);
		return r;
	}
	if (reg.cut)
		warn("%s: the image is truncated: the partition's last %llu bytes are missing; reading what is there",
		     reg.desc, (unsigned long long)reg.cut);
	if (rs_fd_read(&reg, blk, sizeof blk, 0) != (long)sizeof blk ||
	    rs_header_decode(blk, sizeof blk, &h, err, sizeof err) < 0) {
		warn("%s: %s", reg.desc, err);
		close(fd);
		return 1;
	}
	if (h.size > reg.size) {
		warn("%s: header claims %llu bytes, the partition has %llu: reading what is there (the rest is lost)",
		     reg.desc, (unsigned long long)h.size, (unsigned long long)reg.size);
		h.size = reg.size;
		if (!reg.cut)
			reg.cut = 1;	/* a bare partition cut short: counted as a loss below */
	}
	if (rs_scan(rs_fd_read, &reg, &h, &ops, &pc, &res, err, sizeof err) < 0) {
		warn("%s: %s", reg.desc, err);
		close(fd);
		return 1;
	}
	/* past a torn record, or past a damaged last record already counted */
	dirty = dirty_tail(&reg, res.torn ? res.end + res.torn : res.tail_reported ? res.append : res.end, h.size,
			   &first, &checked);
	close(fd);
	if (dirty < 0) {
		warn_sys("%s: unable to read past the last record", reg.desc);
		return 1;
	}
	if (dirty)
		warn("%s: %lld bytes after the last good record (from offset %llu%s) are not free space: records "
		     "there are damaged or lost", reg.desc, dirty, (unsigned long long)first,
		     checked < h.size ? ", first " TAIL_CHECK_TEXT " checked" : "");
	if (!quiet)
		info("%s: %llu records, %llu damaged, %llu of %llu KiB used", reg.desc,
		     (unsigned long long)res.nrecords, (unsigned long long)res.ncorrupt,
		     (unsigned long long)res.end / 1024, (unsigned long long)h.size / 1024);
	if (lost)
		*lost += res.ncorrupt + (dirty > 0) + (reg.cut > 0);
	return 0;
}
