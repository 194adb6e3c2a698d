/*
 * recstore.c - the boot server's record store (lib/recstore.h): each record
 * once, across uploads and across server runs; the per-boot limit leaves
 * what it refused sendable again; the quota refuses an upload whole; a torn
 * last line gets its newline before new records; damaged lines are counted
 * and named; boots past the counted number are stored uncounted.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "recstore.h"
#include "tap.h"

static char dir[] = "/tmp/bb-unit-recstore.XXXXXX";
static char path[128];
static const unsigned char salt[16] = "0123456789abcde";

static char *slurp(void)
{
	static char buf[65536];
	int fd = open(path, O_RDONLY);
	ssize_t n = fd < 0 ? 0 : read(fd, buf, sizeof buf - 1);
	if (fd >= 0)
		close(fd);
	buf[n > 0 ? n : 0] = 0;
	return buf;
}

static size_t ndamaged;
static char first_why[160];
static void damaged(void *ctx, size_t lineno, const char *why)
{
	(void)ctx;
	if (!ndamaged++)
		snprintf(first_why, sizeof first_why, "%zu: %s", lineno, why);
}

#define REC(seq, boot) "{\"seq\":" #seq ",\"boot_id\":\"" boot "\",\"type\":\"run\",\"data\":{}}\n"

int main(void)
{
	struct recstore rs, again;
	struct recstore_limits lim = { 1ull << 30, 3 };
	struct recstore_upload u;
	const char *up1 = REC(1, "a") REC(2, "a") "not json\n\r\n" REC(1, "a");
	FILE *f;
	tap_plan(18);
	if (!mkdtemp(dir))
		return 1;
	snprintf(path, sizeof path, "%s/records.jsonl", dir);

	ok(recstore_open(&rs, path, salt) == 0 && rs.lines == 0, "a missing file is an empty store");
	is_int(recstore_append(&rs, &lim, up1, strlen(up1), &u, damaged, NULL), RECSTORE_STORED, "an upload is stored");
	ok(u.fresh == 2 && u.dup == 1 && u.bad == 1 && u.over == 0,
	   "2 new, the repeat inside the upload already here, 1 damaged, the CRLF line empty (%zu %zu %zu)", u.fresh,
	   u.dup, u.bad);
	is_str(first_why, "3: unexpected character at byte 0", "the damaged line is named by its number and why");
	is_str(slurp(), REC(1, "a") REC(2, "a"), "the file holds the two records, canonical, in order");

	/* a new server run indexes the file: the same records are not stored twice */
	recstore_close(&rs);
	ok(recstore_open(&rs, path, salt) == 0 && rs.lines == 2, "reopened: 2 records indexed");
	recstore_append(&rs, &lim, up1, strlen(up1), &u, NULL, NULL);
	ok(u.fresh == 0 && u.dup == 3 && !strcmp(slurp(), REC(1, "a") REC(2, "a")), "sent again: nothing new stored");

	/* the per-boot limit (3): the fourth and fifth of boot a are refused,
	 * not marked seen, the rest of the upload stored */
	{
		const char *up2 = REC(3, "a") REC(4, "a") REC(5, "a") REC(1, "b");
		recstore_append(&rs, &lim, up2, strlen(up2), &u, NULL, NULL);
		ok(u.fresh == 2 && u.over == 2 && !strcmp(u.over_id, "a"),
		   "past 3 records a boot: 2 over the limit (first of boot %s), boot b's stored", u.over_id);
		lim.per_boot = 10;
		recstore_append(&rs, &lim, up2, strlen(up2), &u, NULL, NULL);
		ok(u.fresh == 2 && u.dup == 2, "the limit raised, the refused records are stored when sent again");
	}

	/* the quota refuses an upload whole */
	{
		struct stat sb;
		const char *up3 = REC(6, "a") REC(2, "b");
		stat(path, &sb);
		lim.quota = (unsigned long long)sb.st_size + strlen(up3) - 1;
		is_int(recstore_append(&rs, &lim, up3, strlen(up3), &u, NULL, NULL), RECSTORE_QUOTA,
		       "an upload that would pass the quota is refused");
		ok(u.file_bytes == (unsigned long long)sb.st_size && u.add_bytes == strlen(up3) && !strstr(slurp(), "\"seq\":6"),
		   "... whole: nothing of it in the file (%llu + %zu bytes)", u.file_bytes, u.add_bytes);
		lim.quota = 1ull << 30;
	}

	/* a torn last line (a crash mid-append, or an editor) gets its newline */
	recstore_close(&rs);
	f = fopen(path, "a");
	fputs("{\"seq\":9,\"boo", f);
	fclose(f);
	ok(recstore_open(&rs, path, salt) == 0 && rs.lines == 7, "the torn line is indexed as a line (7)");
	recstore_append(&rs, &lim, REC(7, "c"), strlen(REC(7, "c")), &u, NULL, NULL);
	ok(strstr(slurp(), "{\"seq\":9,\"boo\n" REC(7, "c")) != NULL, "a new record starts on a line of its own");

	/* boots past the counted number: stored, uncounted */
	rs.max_boot_ids = rs.boots.n;
	recstore_append(&rs, &lim, REC(1, "d") REC(2, "d"), strlen(REC(1, "d") REC(2, "d")), &u, NULL, NULL);
	ok(u.fresh == 2 && u.uncounted == 2, "records of a boot past the counted ones: stored uncounted (%zu)",
	   u.uncounted);
	{
		int r = recstore_open(&again, path, salt);
		ok(r == 0 && again.lines == rs.lines && again.lines == 10,
		   "the index rebuilt from the file agrees with the kept one (%llu lines)", again.lines);
	}
	recstore_close(&again);
	{
		/* keys in another order, and a "boot_id" inside data, are read
		 * by parsing: the record's own boot counts */
		const char *odd = "{\"type\":\"run\",\"data\":{\"boot_id\":\"x\"},\"boot_id\":\"a\"}\n";
		lim.per_boot = 1;
		recstore_append(&rs, &lim, odd, strlen(odd), &u, NULL, NULL);
		ok(u.over == 1 && !strcmp(u.over_id, "a"), "a record's boot is its own boot_id, not one inside data (%s)",
		   u.over_id);
	}
	/* a failed append (the file size limit, as a full disk would) is cut
	 * back: only what it added goes, and the index does not keep it */
	{
		struct stat sb;
		struct rlimit old, fs;
		const char *up4 = REC(1, "e") REC(2, "e") REC(3, "e");
		unsigned long long lines = rs.lines;
		enum recstore_status st;
		lim.per_boot = 10;
		stat(path, &sb);
		signal(SIGXFSZ, SIG_IGN);
		getrlimit(RLIMIT_FSIZE, &old);
		fs.rlim_cur = (rlim_t)sb.st_size + 60;
		fs.rlim_max = old.rlim_max;
		setrlimit(RLIMIT_FSIZE, &fs);
		st = recstore_append(&rs, &lim, up4, strlen(up4), &u, NULL, NULL);
		setrlimit(RLIMIT_FSIZE, &old);
		{
			struct stat after;
			stat(path, &after);
			ok(st == RECSTORE_FAILED && after.st_size == sb.st_size,
			   "an append that fails is cut back to the file's size before it (%lld bytes)", (long long)after.st_size);
		}
		recstore_append(&rs, &lim, up4, strlen(up4), &u, NULL, NULL);
		ok(u.fresh == 3 && rs.lines == lines + 3, "... and its records are stored when sent again (%zu new)", u.fresh);
	}
	recstore_close(&rs);
	unlink(path);
	rmdir(dir);
	return tap_done();
}
