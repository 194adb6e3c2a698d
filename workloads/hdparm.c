/*
 * hdparm.c - the two figures of `hdparm -T -t DEV`, measured hdparm's way
 * (hdparm 9.65 time_cache / time_device), so a user's old numbers and ours
 * mean the same thing:
 *   -T cached reads: read the same 2 MiB at offset 0 over and over from the
 *      buffer cache for `cached_seconds`, less the cost of the lseek and clock
 *      calls of the loop (hdparm subtracts them too);
 *   -t buffered disk reads: empty the buffer cache (sync, fsync, BLKFLSBUF),
 *      then read 2 MiB blocks sequentially from offset 0 for `disk_seconds`, or
 *      to the end of the device.
 * hdparm's MB is 2^20 bytes (it counts 2 MiB buffers and prints MB/sec), so
 * the unit is MiB/s. The device is opened read-only: this never writes.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <time.h>
#include <unistd.h>

#include "spawn.h"
#include "workload.h"

#define TIMING_BUF (2u << 20)	/* hdparm's TIMING_BUF_BYTES */

/* hdparm's flush_buffer_cache: write everything back, then drop the device's
 * cached pages. Returns 0, or -1 with errno from BLKFLSBUF.
 * On a RAM disk (brd, major 1) BLKFLSBUF used to free the disk's pages, that
 * is, erase it, when nothing else held it open (older brd, and rd
 * in 2.4/2.6): there only the page cache is dropped, with fadvise. */
static int flush_cache(int fd, int ramdisk)
{
	int e = 0;
	sync();
	fsync(fd);
	fdatasync(fd);
	sync();
	if (ramdisk) {
		e = posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
	} else if (ioctl(fd, BLKFLSBUF, 0) < 0)
		e = errno;
	sync();
	errno = e;
	return e ? -1 : 0;
}

/* One whole 2 MiB read, then touch every sector so it really completed
 * (hdparm's read_big_block). */
static int read_big(struct wctx *c, int fd, char *buf)
{
	size_t got = 0;
	while (got < TIMING_BUF) {
		ssize_t n = read(fd, buf + got, TIMING_BUF - got);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return wl_fail(c, "unable to read %s: %s", c->dev, strerror(errno));
		if (n == 0)
			return wl_fail(c, "read of %s hit the end of the device after %zu bytes", c->dev, got);
		got += n;
	}
	for (size_t i = 0; i < TIMING_BUF; i += 512)
		buf[i] &= 1;
	return 0;
}

static int hdparm_run(struct wctx *c)
{
	long long sT = wl_param_int(c, "cached_seconds"), st = wl_param_int(c, "disk_seconds");
	long long settle = wl_param_int(c, "settle");
	unsigned long long devsize = 0, maxit, it;
	double t0, el, el2, cached = 0, buffered = 0;
	const char *flush_note = NULL;
	struct stat sb;
	char *buf;
	int fd, ramdisk;

	if (sT < 0 || st < 0 || settle < 0)
		return -1;
	if (!sT && !st)
		return wl_fail(c, "cached_seconds and disk_seconds are both 0: nothing to measure");
	/* read-only, as hdparm opens it (O_NONBLOCK: removable media need not be present to open) */
	fd = open(c->dev, O_RDONLY | O_NONBLOCK);
	if (fd < 0)
		return wl_fail(c, "unable to open %s: %s", c->dev, strerror(errno));
	if (fstat(fd, &sb) < 0 || !S_ISBLK(sb.st_mode)) {
		close(fd);
		return wl_fail(c, "%s is not a block device", c->dev);
	}
	ramdisk = major(sb.st_rdev) == 1;
	if (ioctl(fd, BLKGETSIZE64, &devsize) < 0) {
		int e = errno;
		close(fd);
		return wl_fail(c, "unable to get the size of %s: %s", c->dev, strerror(e));
	}
	if (devsize < TIMING_BUF) {
		close(fd);
		return wl_fail(c, "%s holds %llu bytes: hdparm needs at least 2 MiB", c->dev, devsize);
	}
	buf = mmap(NULL, TIMING_BUF, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (buf == MAP_FAILED) {
		close(fd);
		return wl_fail(c, "unable to map a 2 MiB buffer: %s", strerror(errno));
	}
	memset(buf, 0, TIMING_BUF);
	/* page faults in the timed loop would be measured as I/O; not fatal
	 * where locking is refused, as in hdparm */
	mlock(buf, TIMING_BUF);

	if (sT) {
		sync();
		if (settle)
			sleep(settle);
		/* Prime after the flush, so every timed read comes from the cache.
		 * (hdparm primes, then flushes: its first timed read goes to the
		 * disk. Over 2 s of cached reads that is noise; see docs.) */
		if (flush_cache(fd, ramdisk) < 0)
			flush_note = "refused";
		if (lseek(fd, 0, SEEK_SET) != 0 || read_big(c, fd, buf) < 0)
			goto fail;
		it = 0;
		t0 = mono_now();
		do {
			it++;
			if (lseek(fd, 0, SEEK_SET) != 0) {
				wl_fail(c, "unable to seek %s: %s", c->dev, strerror(errno));
				goto fail;
			}
			if (read_big(c, fd, buf) < 0)
				goto fail;
			el = mono_now() - t0;
		} while (el < sT);
		/* hdparm removes the lseek and clock overhead of as many iterations */
		t0 = mono_now();
		for (unsigned long long i = 0; i < it; i++) {
			lseek(fd, 0, SEEK_SET);
			el2 = mono_now() - t0;
		}
		el2 = mono_now() - t0;
		if (el2 < el)
			el -= el2;
		cached = it * 2.0 / el;
		fprintf(stderr, "hdparm: cached reads: %llu MiB in %.2f s = %.2f MiB/s\n", it * 2, el, cached);
		jw_int(&c->details, "cached_MiB", (long long)it * 2);
		jw_num(&c->details, "cached_s", el);
	}
	if (st) {
		if (!sT) {
			sync();
			if (settle)
				sleep(settle);
		}
		/* hdparm -t alone does not flush first, but -T -t (what the users
		 * ran) does, at the end of -T: always start with an empty cache */
		if (flush_cache(fd, ramdisk) < 0)
			flush_note = "refused";
		if (lseek(fd, 0, SEEK_SET) != 0) {
			wl_fail(c, "unable to seek %s: %s", c->dev, strerror(errno));
			goto fail;
		}
		maxit = devsize / TIMING_BUF;
		it = 0;
		t0 = mono_now();
		do {
			it++;
			if (read_big(c, fd, buf) < 0)
				goto fail;
			el = mono_now() - t0;
		} while (el < st && it < maxit);
		buffered = it * 2.0 / el;
		fprintf(stderr, "hdparm: buffered disk reads: %llu MiB in %.2f s = %.2f MiB/s\n", it * 2, el, buffered);
		jw_int(&c->details, "buffered_MiB", (long long)it * 2);
		jw_num(&c->details, "buffered_s", el);
		jw_bool(&c->details, "buffered_hit_end", it >= maxit);
		flush_cache(fd, ramdisk);
	}
	munmap(buf, TIMING_BUF);
	close(fd);
	jw_int(&c->details, "device_bytes", (long long)devsize);
	if (ramdisk)
		jw_str(&c->details, "flush", "RAM disk: page cache dropped with posix_fadvise, not BLKFLSBUF (which can erase it)");
	if (flush_note)
		jw_str(&c->details, "flush_note", "the cache flush was refused: buffered reads may have come from the cache");
	if (sT)
		wl_metric(c, "cached_read", cached, "MiB/s", "higher");
	if (st)
		wl_metric(c, "buffered_read", buffered, "MiB/s", "higher");
	return 0;
fail:
	munmap(buf, TIMING_BUF);
	close(fd);
	return -1;
}

static const struct wparam hdparm_params[] = {
	{ "cached_seconds", "2", "seconds of cached reads (hdparm -T); 0 skips them" },
	{ "disk_seconds", "3", "seconds of buffered disk reads (hdparm -t); 0 skips them" },
	{ "settle", "1", "seconds to let writeback settle before timing (hdparm sleeps 3)" },
	{ NULL, NULL, NULL },
};

static const struct wl_label hdparm_labels[] = {
	{ "cached_read", "hdparm -T: Timing cached reads" },
	{ "buffered_read", "hdparm -t: Timing buffered disk reads" },
	{ NULL },
};

const struct workload wl_hdparm = {
	.name = "hdparm",
	.labels = hdparm_labels,
	.summary = "hdparm -T -t: cached and buffered sequential reads of the device, MiB/s (read-only)",
	.params = hdparm_params,
	.needs = WL_NEEDS_DEV | WL_READONLY_OK,
	.run = hdparm_run,
};
