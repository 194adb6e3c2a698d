/*
 * recstore.c - a target's record store on the boot server (recstore.h).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "defaults.h"
#include "hash.h"
#include "json.h"
#include "recsource.h"
#include "recstore.h"
#include "sbuf.h"
#include "xio.h"

/* The 64-bit key of bytes under the store's salt (the first 8 bytes of a
 * sha256; 0, which a u64set cannot hold, becomes 1): lines or ids chosen
 * to collide in a map cannot make it quadratic. */
static unsigned long long salted_key(const struct recstore *rs, const char *s, size_t len)
{
	unsigned char d[32];
	unsigned long long k = 0;
	struct sha256 h;
	sha256_init(&h);
	sha256_update(&h, rs->salt, sizeof rs->salt);
	sha256_update(&h, s, len);
	sha256_final(&h, d);
	for (int i = 0; i < 8; i++)
		k = k << 8 | d[i];
	return k ? k : 1;
}

char *recstore_canonical(const char *line, size_t len, char *err, size_t errlen)
{
	struct jv *v = json_parse(line, len, err, errlen);
	struct sbuf sb = {0};
	if (!v)
		return NULL;
	if (v->t != J_OBJ || !json_get_str(v, "type") || !json_get(v, "data") || !json_get_str(v, "boot_id")) {
		snprintf(err, errlen, "not a bootbench record");
		json_free(v);
		return NULL;
	}
	json_dump(&sb, v);
	json_free(v);
	return sb_steal(&sb);
}

/* The boot of a record line: the key of its boot_id ("" when it has none),
 * and the id's first 64 bytes, printable, into shown (for logs). The
 * appliance writes "{"seq":N,"boot_id":"HEX",..." and the store keeps the
 * uploader's key order, so a line of that shape is read by its text; any
 * other (keys in another order, escapes in the value) is parsed, so a
 * "boot_id" inside "data" is never taken for the record's. One function at
 * indexing and at upload: a record counts against the same boot either way. */
static unsigned long long boot_of(const struct recstore *rs, const char *line, size_t len, char shown[65])
{
	const char *p = line, *e = line + len, *v = NULL, *q = NULL;
	struct jv *doc = NULL;
	unsigned long long k;
	size_t n;
	if (len > 7 && !memcmp(p, "{\"seq\":", 7)) {
		p += 7;
		if (e - p >= 4 && !memcmp(p, "null", 4))
			p += 4;
		else
			while (p < e && *p >= '0' && *p <= '9')
				p++;
		if (e - p > 12 && !memcmp(p, ",\"boot_id\":\"", 12)) {
			v = p + 12;
			for (q = v; q < e && *q != '"' && *q != '\\'; q++)
				;
			if (q == e || *q != '"')
				v = NULL;
		}
	}
	if (!v) {
		doc = json_parse(line, len, NULL, 0);
		v = doc ? json_get_str(doc, "boot_id") : NULL;
		q = v ? v + strlen(v) : NULL;
	}
	if (!v)
		v = q = "";
	n = strnlen(v, (size_t)(q - v));	/* a raw NUL ends the id, as in a C string */
	k = salted_key(rs, v, n);
	snprintf(shown, 65, "%.*s", (int)(n < 64 ? n : 64), v);
	for (char *c = shown; *c; c++)
		if (*c < 0x21 || *c > 0x7e)
			*c = '?';
	json_free(doc);
	return k;
}

static void index_line(void *ctx, char *line, size_t len, unsigned long lineno)
{
	struct recstore *rs = ctx;
	char id[65];
	unsigned long long *c;
	(void)lineno;
	rs->lines++;
	if (!line) {
		rs->toolong++;
		return;
	}
	u64set_add(&rs->seen, salted_key(rs, line, len));
	if ((c = u64map_get(&rs->boots, boot_of(rs, line, len, id), rs->boots.n < rs->max_boot_ids)))
		++*c;
	else
		rs->uncounted++;
}

int recstore_open(struct recstore *rs, const char *path, const unsigned char salt[16])
{
	int fd, r, e;
	memset(rs, 0, sizeof *rs);
	memcpy(rs->salt, salt, sizeof rs->salt);
	rs->max_boot_ids = RECSTORE_MAX_BOOT_IDS;
	rs->path = xstrdup(path);
	/* a regular file only: a FIFO put there does not hang the boot server */
	fd = open_regular(path, O_RDONLY, 0);
	if (fd < 0) {
		if (errno == ENOENT)
			return 0;
		e = errno;
		recstore_close(rs);
		errno = e;
		return -1;
	}
	r = lines_read(fd, RECORD_LINE_MAX, index_line, rs);
	e = errno;
	close(fd);
	if (r < 0) {
		recstore_close(rs);
		errno = e;
		return -1;
	}
	return 0;
}

void recstore_close(struct recstore *rs)
{
	free(rs->path);
	u64set_free(&rs->seen);
	u64map_free(&rs->boots);
	memset(rs, 0, sizeof *rs);
}

/* Appends add to the file: the file's size before it in *before, a torn
 * last line first given its newline. 0, or -1 (errno) with the file as it
 * was; RECSTORE_QUOTA as 1. */
static int append(struct recstore *rs, const struct recstore_limits *lim, struct sbuf *add,
		  unsigned long long *before)
{
	struct stat sb;
	unsigned char last = '\n';
	int fd = open_regular(rs->path, O_WRONLY | O_APPEND | O_CREAT, 0644), e;
	if (fd < 0)
		return -1;
	if (fstat(fd, &sb) < 0)
		goto fail;
	*before = (unsigned long long)sb.st_size;
	/* A line torn by an earlier crash gets its newline first, so the new
	 * records do not run into it; the quota counts that byte too. */
	if (sb.st_size > 0) {
		int rfd = open_regular(rs->path, O_RDONLY, 0);
		if (rfd < 0 || pread(rfd, &last, 1, sb.st_size - 1) != 1)
			last = '\n';
		if (rfd >= 0)
			close(rfd);
	}
	if (*before + add->len + (last != '\n') > lim->quota) {
		close(fd);
		return 1;
	}
	if (last != '\n') {
		struct sbuf fixed = {0};
		sb_putc(&fixed, '\n');
		sb_add(&fixed, add->s, add->len);
		sb_free(add);
		*add = fixed;
	}
	if (write_all(fd, add->s, add->len) < 0 || fsync(fd) < 0) {
		e = errno;
		/* only what this upload added goes */
		if (ftruncate(fd, sb.st_size) == 0)
			fsync(fd);
		errno = e;
		goto fail;
	}
	close(fd);
	return 0;
fail:
	e = errno;
	close(fd);
	errno = e;
	return -1;
}

enum recstore_status recstore_append(struct recstore *rs, const struct recstore_limits *lim, const char *body,
				     size_t len, struct recstore_upload *u, recstore_damaged_fn damaged,
				     void *ctx)
{
	struct u64set mine = {0};	/* keys of this upload, until they are stored */
	struct u64map up = {0};		/* this upload's new records per boot */
	struct sbuf add = {0};
	size_t newids = 0, lineno = 0;
	enum recstore_status st = RECSTORE_STORED;
	const char *s, *end;

	memset(u, 0, sizeof *u);
	for (s = body, end = body + len; s < end;) {
		const char *nl = memchr(s, '\n', (size_t)(end - s));
		size_t l = nl ? (size_t)(nl - s) : (size_t)(end - s);
		char err[160], *c = NULL;
		lineno++;
		if (l && !(l == 1 && *s == '\r')) {
			if (l > RECORD_LINE_MAX)
				snprintf(err, sizeof err, "%zu bytes, longer than any record", l);
			else
				c = recstore_canonical(s, l, err, sizeof err);
			if (!c) {
				u->bad++;
				if (damaged)
					damaged(ctx, lineno, err);
			} else {
				size_t cl = strlen(c);
				unsigned long long k = salted_key(rs, c, cl), *have, *mine_n, bk;
				char id[65];
				int counted;
				bk = boot_of(rs, c, cl, id);
				have = u64map_get(&rs->boots, bk, 0);
				mine_n = u64map_get(&up, bk, 0);
				counted = have || mine_n || rs->boots.n + newids < rs->max_boot_ids;
				if (u64set_has(&rs->seen, k) || u64set_has(&mine, k)) {
					u->dup++;
				} else if (counted && (have ? *have : 0) + (mine_n ? *mine_n : 0) >= lim->per_boot) {
					/* over the limit: not stored, and not marked seen,
					 * so that it can be sent again once allowed */
					if (!u->over++)
						snprintf(u->over_id, sizeof u->over_id, "%s", id);
				} else {
					if (counted && !mine_n) {
						newids += !have;
						mine_n = u64map_get(&up, bk, 1);
					}
					if (counted)
						++*mine_n;
					else
						u->uncounted++;
					u64set_add(&mine, k);
					sb_add(&add, c, cl);
					sb_putc(&add, '\n');
					u->fresh++;
				}
				free(c);
			}
		}
		s += l + 1;
	}
	u->add_bytes = add.len;
	if (add.len) {
		int r = append(rs, lim, &add, &u->file_bytes);
		if (r) {
			st = r > 0 ? RECSTORE_QUOTA : RECSTORE_FAILED;
			goto out;
		}
		for (size_t i = 0; i < mine.cap; i++)
			if (mine.k[i])
				u64set_add(&rs->seen, mine.k[i]);
		for (size_t i = 0; i < up.cap; i++)
			if (up.k[i])
				*u64map_get(&rs->boots, up.k[i], 1) += up.v[i];
		rs->uncounted += u->uncounted;
		rs->lines += u->fresh;
	}
out:
	{
		int e = errno;
		u64set_free(&mine);
		u64map_free(&up);
		sb_free(&add);
		errno = e;
	}
	return st;
}
