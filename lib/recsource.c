/*
 * recsource.c - reading records from images, partitions and console logs
 * (a serial console's, or a LAVA job's log of it).
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
#include "recsource.h"
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

/* Appends code point c to sb as UTF-8; -1 for one that is not a character. */
static int put_utf8(struct sbuf *sb, unsigned long c)
{
	char b[4];
	if (c < 0x80) {
		b[0] = (char)c;
		sb_add(sb, b, 1);
	} else if (c < 0x800) {
		b[0] = (char)(0xc0 | c >> 6);
		b[1] = (char)(0x80 | (c & 0x3f));
		sb_add(sb, b, 2);
	} else if (c < 0x10000) {
		if (c >= 0xd800 && c < 0xe000)
			return -1;
		b[0] = (char)(0xe0 | c >> 12);
		b[1] = (char)(0x80 | (c >> 6 & 0x3f));
		b[2] = (char)(0x80 | (c & 0x3f));
		sb_add(sb, b, 3);
	} else if (c < 0x110000) {
		b[0] = (char)(0xf0 | c >> 18);
		b[1] = (char)(0x80 | (c >> 12 & 0x3f));
		b[2] = (char)(0x80 | (c >> 6 & 0x3f));
		b[3] = (char)(0x80 | (c & 0x3f));
		sb_add(sb, b, 4);
	} else {
		return -1;
	}
	return 0;
}

/* A YAML double-quoted scalar from p (just past its opening quote) to end,
 * decoded into out: JSON's escapes and YAML's own (\x.., \U........, \e,
 * \N, \_, \L, \P, \0, \a, \v, \ and an escaped blank), as PyYAML writes
 * them. 0, or -1 when it is not one (no closing quote, a bad escape). */
static int hexval(char h)
{
	return h >= '0' && h <= '9' ? h - '0' : h >= 'a' && h <= 'f' ? h - 'a' + 10 : h >= 'A' && h <= 'F' ? h - 'A' + 10 : -1;
}

static int yaml_dq(const char *p, const char *end, struct sbuf *out)
{
	static const char from[] = "abtnvfre \"/\\\t0";
	static const char to[] = { 7, 8, 9, 10, 11, 12, 13, 27, ' ', '"', '/', '\\', '\t', 0 };
	for (; p < end; p++) {
		const char *e;
		unsigned long c = 0;
		int digits = 0;
		if (*p == '"')
			return 0;
		if (*p != '\\') {
			sb_putc(out, *p);
			continue;
		}
		if (++p == end)
			return -1;
		if (*p && (e = strchr(from, *p))) {
			sb_putc(out, to[e - from]);
			continue;
		}
		switch (*p) {
		case 'x': digits = 2; break;
		case 'u': digits = 4; break;
		case 'U': digits = 8; break;
		case 'N': c = 0x85; break;
		case '_': c = 0xa0; break;
		case 'L': c = 0x2028; break;
		case 'P': c = 0x2029; break;
		default: return -1;
		}
		for (int i = 0; i < digits; i++) {
			int h;
			if (++p == end)
				return -1;
			if ((h = hexval(*p)) < 0)
				return -1;
			c = c << 4 | (unsigned)h;
		}
		/* a high surrogate and its low one as JSON writes a character
		 * past U+FFFF (\ud83d\ude00): one character */
		if (digits == 4 && c >= 0xd800 && c <= 0xdbff && end - p > 6 && p[1] == '\\' && p[2] == 'u') {
			unsigned long lo = 0;
			int i;
			for (i = 3; i < 7; i++) {
				int h = hexval(p[i]);
				if (h < 0)
					break;
				lo = lo << 4 | (unsigned)h;
			}
			if (i == 7 && lo >= 0xdc00 && lo <= 0xdfff) {
				c = 0x10000 + ((c - 0xd800) << 10) + (lo - 0xdc00);
				p += 6;
			}
		}
		if (put_utf8(out, c) < 0)
			return -1;
	}
	return -1;
}

/* In a LAVA line (a flow mapping, JSON-like), the value of key `name`:
 * `"name"`, blanks, ':', blanks; a pointer to the value's first byte, or
 * NULL. LAVA writes ", " and ": " between members; a log passed through a
 * JSON tool may have none, or more: any spacing is read. */
static const char *lava_value(const char *p, size_t ll, const char *name)
{
	const char *end = p + ll;
	size_t nl = strlen(name);
	for (const char *k = p; k + nl + 2 <= end; k++) {
		if (*k != '"' || memcmp(k + 1, name, nl) || k[nl + 1] != '"')
			continue;
		const char *v = k + nl + 2;
		while (v < end && (*v == ' ' || *v == '\t'))
			v++;
		if (v >= end || *v != ':')
			continue;
		for (v++; v < end && (*v == ' ' || *v == '\t'); v++)
			;
		return v < end ? v : NULL;
	}
	return NULL;
}

/* A LAVA line's start: "{" then "dt" as the first key, any spacing, after
 * lavacli's "- " if there is one. */
static int lava_start(const char *p, size_t ll)
{
	size_t i = 0;
	if (ll >= 2 && p[0] == '-' && p[1] == ' ')
		i = 2;
	if (i >= ll || p[i] != '{')
		return 0;
	for (i++; i < ll && (p[i] == ' ' || p[i] == '\t'); i++)
		;
	return ll - i >= 4 && !memcmp(p + i, "\"dt\"", 4);
}

/* lvl is "target": the line is the device's console */
static int lava_target(const char *p, size_t ll)
{
	const char *v = lava_value(p, ll, "lvl");
	return v && (size_t)(p + ll - v) >= 8 && !memcmp(v, "\"target\"", 8);
}

/* A line of a LAVA job log (lava-run's output, or `lavacli jobs logs
 * --raw`, whose lines start "- "): {"dt": ..., "lvl": "target", "msg":
 * "CONSOLE LINE"} in YAML's double-quoted flow style (lava_common's dump),
 * where LAVA first wrote each '"' of the console line as '\"' and left every
 * other byte alone (lava_dispatcher's ShellLogger). So in the decoded msg
 * every quote follows a backslash LAVA added: dropping the backslash right
 * before each quote gives the console line back exactly. LAVA itself
 * replaces a log line of 10^6 bytes or more by "<line way too long ...>":
 * such a record is not in the log at all. Returns the records found (0 or
 * 1), or -1 for a record lost: a line that looks like LAVA's but does not
 * decode, or a console line LAVA cut out as too long (both reported). */
static int lava_line(const char *src, const char *p, size_t ll, unsigned long lineno, record_line_fn fn, void *ctx)
{
	const char *end = p + ll, *m, *rec;
	struct sbuf msg = { 0 }, line = { 0 };
	char where[40];
	int found = 0;
	if (!lava_target(p, ll))
		return 0;
	if (!(m = lava_value(p, ll, "msg")) || *m != '"' || yaml_dq(m + 1, end, &msg) < 0 || !msg.s) {
		warning("%s: line %lu: a LAVA log line with a record that does not decode: skipped", src, lineno);
		sb_free(&msg);
		return -1;
	}
	if ((rec = memmem(msg.s, msg.len, CONSOLE_PREFIX "{", strlen(CONSOLE_PREFIX) + 1))) {
		const char *q = rec + strlen(CONSOLE_PREFIX), *qe = msg.s + msg.len;
		for (; q < qe; q++)
			if (!(q[0] == '\\' && q + 1 < qe && q[1] == '"'))
				sb_putc(&line, *q);
		while (line.len && (line.s[line.len - 1] == '\r' || line.s[line.len - 1] == ' '))
			line.len--;
		snprintf(where, sizeof where, "line %lu (LAVA log)", lineno);
		fn(ctx, line.s ? line.s : "", line.len, where);
		found = 1;
	}
	sb_free(&msg);
	sb_free(&line);
	return found;
}

/* One line of a console log or of collect output: find its record, if any. */
static int one_line(const char *src, char *p, size_t ll, unsigned long lineno, record_line_fn fn, void *ctx)
{
	char *json = NULL, where[32];
	size_t rl;
	/* LAVA's stand-in for a console line of 10^6 bytes or more: it may
	 * have been a record (a record may reach 4 MiB) */
	static const char cut[] = "\"<line way too long ...>\"";
	int lava = lava_start(p, ll);
	const char *m = lava ? lava_value(p, ll, "msg") : NULL;
	if (m && lava_target(p, ll) && (size_t)(p + ll - m) >= sizeof cut - 1 && !memcmp(m, cut, sizeof cut - 1)) {
		warning("%s: line %lu: LAVA left out a console line of 10^6 bytes or more (a record, perhaps)", src, lineno);
		return -1;
	}
	/* LAVA's log of a console line: quotes escaped, the line a YAML string */
	if (lava && memmem(p, ll, CONSOLE_PREFIX "{\\", strlen(CONSOLE_PREFIX) + 2))
		return lava_line(src, p, ll, lineno, fn, ctx);
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
	/* the buffer grows to cap only while a line needs it: a file of short
	 * lines is read through 64 KiB (the boot server indexes one store per
	 * target, the fuzzer thousands a second) */
	size_t size = cap < (64u << 10) ? cap : (64u << 10);
	char *buf = xmalloc(size + 1);
	size_t have = 0;
	unsigned long lineno = 0;
	int skipping = 0;
	for (;;) {
		ssize_t n;
		char *p, *end, *nl;
		if (have == size) {	/* have <= max < cap: there is room to grow */
			size = size > cap / 2 ? cap : size * 2;
			buf = xrealloc(buf, size + 1);
		}
		n = read(fd, buf + have, size - have);
		p = buf;
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
	unsigned long found, toolong, lost;
};

static void record_text_line(void *ctx, char *line, size_t len, unsigned long lineno)
{
	struct lines_ctx *lc = ctx;
	if (!line) {
		lc->toolong++;
		warning("%s: line %lu: longer than %zu bytes, more than any record: skipped", lc->src, lineno, lc->max);
		return;
	}
	int r = one_line(lc->src, line, len, lineno, lc->fn, lc->ctx);
	if (r < 0)
		lc->lost++;
	else
		lc->found += (unsigned long)r;
}

/* Streamed, so memory is bounded by the longest line allowed, not by the
 * file: a record is at most RECORD_PAYLOAD_MAX bytes, and a line longer
 * than that plus a console's prefix is skipped with a warning, unparsed. */
static int read_lines(const char *src, int fd, record_line_fn fn, void *ctx, unsigned long long *lost)
{
	struct lines_ctx lc = { src, RECORD_LINE_MAX, fn, ctx, 0, 0, 0 };
	unsigned long found, toolong;
	if (lines_read(fd, lc.max, record_text_line, &lc) < 0) {
		warn_sys("unable to read %s", src);
		return 1;
	}
	found = lc.found;
	toolong = lc.toolong;
	if (lost)
		*lost += toolong + lc.lost;
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
	if (reg.backup)
		warning("%s: the primary GPT is damaged: the partition was found in the backup GPT", reg.desc);
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
