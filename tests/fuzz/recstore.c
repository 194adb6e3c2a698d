/*
 * recstore.c - libFuzzer target for the boot server's record store
 * (lib/recstore.c): what an upload's body holds (hostile, but signed: any
 * key holder), and what a records.jsonl left by a crash or an editor holds.
 *
 * The first byte chooses the limits (bits 0-1: records a boot may store;
 * bit 2: a 512-byte quota; bit 7: two boots counted) and (bits 3-6) how
 * much of the rest is the file as it was before; the remainder is the
 * upload. Then: the file never shrinks; it grows by the upload's new bytes
 * exactly (one more when its last line was torn) or not at all; every line
 * the upload added is a record in its canonical text; each line of the
 * upload is counted once (new, already here, damaged or over the limit);
 * the index rebuilt from the file holds the same keys, and (at the counted
 * boots the store opens with) the same counts per boot; and the same upload
 * sent again stores nothing new.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "defaults.h"
#include "recstore.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static char path[64];

static void cleanup(void)
{
	char dir[64];
	unlink(path);
	snprintf(dir, sizeof dir, "%s", path);
	*strrchr(dir, '/') = 0;
	rmdir(dir);
}

static long long size_of(const char *p)
{
	struct stat sb;
	return stat(p, &sb) < 0 ? 0 : (long long)sb.st_size;
}

/* non-empty lines of the upload (a lone "\r" is empty), as recstore_append
 * counts them */
static size_t upload_lines(const char *b, size_t len)
{
	size_t n = 0;
	for (const char *s = b, *end = b + len; s < end;) {
		const char *nl = memchr(s, '\n', (size_t)(end - s));
		size_t l = nl ? (size_t)(nl - s) : (size_t)(end - s);
		n += l && !(l == 1 && *s == '\r');
		s += l + 1;
	}
	return n;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const unsigned char salt[16] = "bootbench-fuzz!";
	struct recstore rs, again;
	struct recstore_limits lim;
	struct recstore_upload u, u2;
	enum recstore_status st;
	size_t split, blen;
	long long before, after;
	char *body, *added;
	int fd, torn = 0;
	if (!size)
		return 0;
	if (!path[0]) {
		char dir[] = "/dev/shm/bb-recstore-XXXXXX", *d = mkdtemp(dir);
		if (!d) {
			snprintf(dir, sizeof dir, "/tmp/bb-recstore-XXXXXX");
			if (!(d = mkdtemp(dir)))
				abort();
		}
		snprintf(path, sizeof path, "%s/records.jsonl", d);
		atexit(cleanup);
	}
	lim.per_boot = 1 + (data[0] & 3);
	lim.quota = data[0] & 4 ? 512 : 1ull << 30;
	split = data[0] & 8 ? (size - 1) * ((data[0] >> 4) & 7) / 8 : 0;
	unlink(path);
	if (split) {
		fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
		if (fd < 0 || write(fd, data + 1, split) != (ssize_t)split)
			abort();
		close(fd);
	}
	/* a copy exactly as long as the upload: ASan sees any read past it */
	blen = size - 1 - split;
	body = malloc(blen ? blen : 1);
	memcpy(body, data + 1 + split, blen);

	if (recstore_open(&rs, path, salt) < 0)
		abort();
	if (data[0] & 0x80)
		rs.max_boot_ids = 2;
	before = size_of(path);
	if (before > 0) {
		unsigned char last;
		fd = open(path, O_RDONLY);
		if (fd < 0 || pread(fd, &last, 1, before - 1) != 1)
			abort();
		close(fd);
		torn = last != '\n';
	}
	st = recstore_append(&rs, &lim, body, blen, &u, NULL, NULL);
	after = size_of(path);
	if (u.fresh + u.dup + u.bad + u.over != upload_lines(body, blen) || u.uncounted > u.fresh)
		abort();
	if (st == RECSTORE_FAILED)
		abort();
	if (st == RECSTORE_QUOTA) {
		if (after != before || !u.add_bytes || (unsigned long long)before + u.add_bytes + torn <= lim.quota)
			abort();
	} else if (!u.add_bytes) {
		if (after != before || u.fresh)
			abort();
	} else {
		if (after != before + (long long)u.add_bytes + torn)
			abort();
		/* what was added: records, each in its canonical text */
		added = malloc((size_t)(after - before) + 1);
		fd = open(path, O_RDONLY);
		if (fd < 0 || pread(fd, added, (size_t)(after - before), before) != after - before)
			abort();
		close(fd);
		added[after - before] = 0;
		for (char *s = added + torn, *nl; *s; s = nl + 1) {
			char err[160], *c;
			if (!(nl = strchr(s, '\n')))
				abort();
			if (!(c = recstore_canonical(s, (size_t)(nl - s), err, sizeof err)) || strlen(c) != (size_t)(nl - s) ||
			    memcmp(c, s, (size_t)(nl - s)))
				abort();
			free(c);
		}
		free(added);
	}
	/* the index as a new server run rebuilds it */
	if (recstore_open(&again, path, salt) < 0 || again.lines != rs.lines || again.toolong != rs.toolong ||
	    again.seen.n != rs.seen.n)
		abort();
	for (size_t i = 0; i < rs.seen.cap; i++)
		if (rs.seen.k[i] && !u64set_has(&again.seen, rs.seen.k[i]))
			abort();
	if (!(data[0] & 0x80)) {
		if (again.boots.n != rs.boots.n || again.uncounted != rs.uncounted)
			abort();
		for (size_t i = 0; i < rs.boots.cap; i++)
			if (rs.boots.k[i] && *u64map_get(&again.boots, rs.boots.k[i], 1) != rs.boots.v[i])
				abort();
	}
	recstore_close(&again);
	/* sent again: nothing new */
	if (st == RECSTORE_STORED) {
		if (recstore_append(&rs, &lim, body, blen, &u2, NULL, NULL) != RECSTORE_STORED || u2.fresh ||
		    u2.dup != u.fresh + u.dup || size_of(path) != after)
			abort();
	}
	recstore_close(&rs);
	free(body);
	return 0;
}
