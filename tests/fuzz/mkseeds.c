/*
 * mkseeds.c - writes the seed corpus of tests/fuzz/records.c into a
 * directory, at build time, so no binary inputs are committed.
 *
 *   mkseeds DIR
 *
 * Seeds are made with the real writer (rs_format, rs_writer_open, rs_append
 * on temporary files) and the real line format (rec_line), so they start the
 * fuzzer past every checksum; the first byte of each is the target's mode.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "defaults.h"
#include "err.h"
#include "record.h"
#include "results.h"
#include "sbuf.h"
#include "xio.h"

#define FUZZ_INSTANCE "bootbench-fuzz!!"	/* as in records.c */

static const char *dir;

static const struct { uint32_t type; const char *json; } recs[] = {
	{ RS_BOOT, "{\"kernel\":{\"release\":\"6.1.0-13-amd64\",\"cmdline\":\"console=ttyS0 bootbench.plan=x\"},"
		   "\"plan\":\"default\",\"cpus\":2,\"mem_kib\":1048576}" },
	{ RS_RUN, "{\"plan\":\"default\",\"workload\":\"fsync\",\"layout\":{\"name\":\"ext4-4k\"},"
		  "\"tunables\":{\"scheduler\":\"none\",\"nr_requests\":64},\"iteration\":1,\"status\":\"ok\","
		  "\"metrics\":[{\"name\":\"lat_p99\",\"value\":12.5,\"unit\":\"us\",\"better\":\"lower\"},"
		  "{\"name\":\"iops\",\"value\":-0.5e-3,\"unit\":\"1/s\",\"better\":\"higher\"}]}" },
	{ RS_EVENT, "{\"msg\":\"caf\\u00e9 \\ud83d\\ude00 tab\\t quote\\\" nl\\n\",\"ok\":true,\"bad\":false,"
		    "\"none\":null,\"nums\":[0,-1,3.25,1e10,12345678901234],\"deep\":[[[{\"a\":[]}]]]}" },
	{ RS_END, "{\"status\":\"ok\",\"runs\":1}" },
	{ 9, "[1,2,3]" },
};
#define NRECS (sizeof recs / sizeof *recs)

static void put(const char *name, unsigned char mode, const void *p, size_t len)
{
	char *path = xasprintf("%s/%s", dir, name);
	FILE *f = fopen(path, "wb");
	if (!f || fputc(mode, f) == EOF || fwrite(p, 1, len, f) != len || fclose(f))
		die_sys(111, "unable to write %s", path);
	free(path);
}

static int tmpfile_of(uint64_t size)
{
	char path[] = "/tmp/bootbench-seed.XXXXXX";
	int fd = mkstemp(path);
	if (fd < 0 || unlink(path) < 0 || ftruncate(fd, size) < 0)
		die_sys(111, "unable to create a temporary region");
	return fd;
}

static void append_all(struct rs_region *reg)
{
	static const unsigned char boot_id[16] = "seed-boot-id-01";
	struct rs_writer w;
	char err[256];
	if (rs_writer_open(&w, reg, boot_id, NULL, NULL, err, sizeof err) < 0)
		die(111, "unable to open the seed region: %s", err);
	for (size_t i = 0; i < NRECS; i++)
		if (rs_append(&w, recs[i].type, recs[i].json, strlen(recs[i].json), NULL) < 0)
			die_sys(111, "unable to append a seed record");
}

static void put_region(const char *name, int fd, uint64_t size)
{
	unsigned char *b = xmalloc(size);
	if (pread_all(fd, b, size, 0) != (ssize_t)size)
		die_sys(111, "unable to read the seed region back");
	put(name, 0, b, size);
	free(b);
}

int main(int argc, char **argv)
{
	struct rs_region reg = { .base = 0, .lbs = 512 };
	struct rs_header h = {0};
	unsigned char hdr[4096];
	struct sbuf area = {0}, log = {0};
	static const unsigned char boot_id[16] = "seed-boot-id-02";
	char err[256];

	if (argc != 2)
		die(100, "usage: mkseeds DIR");
	dir = argv[1];

	/* mode 0: the layout mkresults makes (data at 64 KiB), smallest size */
	reg.size = RESULTS_HDR_AREA + 64 * 1024;
	reg.fd = tmpfile_of(reg.size);
	snprintf(reg.desc, sizeof reg.desc, "seed");
	if (rs_format(&reg, "seed-plan", "workload fsync\n", 15, err, sizeof err) < 0)
		die(111, "unable to format the seed region: %s", err);
	append_all(&reg);
	put_region("raw-format", reg.fd, reg.size);
	close(reg.fd);

	/* mode 0: a compact region (data at 4096) written by the same writer,
	 * plus a torn last record */
	h.version = RS_VERSION;
	h.created = 1700000000;
	h.size = reg.size = 12 * 1024;
	memcpy(h.instance, FUZZ_INSTANCE, 16);
	h.data_off = 4096;
	h.block = 512;
	rs_header_encode(&h, hdr);
	reg.fd = tmpfile_of(reg.size);
	if (pwrite_all(reg.fd, hdr, sizeof hdr, 0) < 0)
		die_sys(111, "unable to write the seed header");
	append_all(&reg);
	put_region("raw-compact", reg.fd, reg.size);
	{
		unsigned char *rec;
		size_t span = rs_record_encode(&h, 99, boot_id, RS_RUN, recs[1].json, strlen(recs[1].json), &rec);
		uint64_t off = reg.size - span;
		if (pwrite_all(reg.fd, rec, span / 2, off) < 0)
			die_sys(111, "unable to write the torn seed record");
		free(rec);
		put_region("raw-torn", reg.fd, reg.size);
	}
	close(reg.fd);

	/* modes 1 and 2: record areas for each block size */
	for (unsigned shift = 0; shift < 4; shift++) {
		char name[32];
		h.block = 512u << shift;
		sb_reset(&area);
		for (size_t i = 0; i < NRECS; i++) {
			unsigned char *rec;
			size_t span = rs_record_encode(&h, i + 1, boot_id, recs[i].type, recs[i].json,
						       strlen(recs[i].json), &rec);
			sb_add(&area, rec, span);
			free(rec);
		}
		snprintf(name, sizeof name, "hdr-b%u", h.block);
		put(name, 1 | shift << 2, area.s, area.len);
		/* mode 2 repairs checksums: zero them to show it need not be given */
		for (size_t o = 0; o + RS_REC_HDR <= area.len; o += h.block)
			if (!memcmp(area.s + o, RS_REC_MAGIC, 8))
				memset(area.s + o + 56, 0, 8);
		snprintf(name, sizeof name, "fix-b%u", h.block);
		put(name, 2 | shift << 2, area.s, area.len);
	}

	/* mode 3: a console log as the serial port gives it */
	sb_puts(&log, "[    0.000000] Linux version 6.1.0-13-amd64\r\n");
	for (size_t i = 0; i < NRECS; i++) {
		sb_puts(&log, i == 2 ? "[    1.5] noise " CONSOLE_PREFIX : CONSOLE_PREFIX);
		rec_line(&log, i == 3 ? 0 : i + 1, boot_id, recs[i].type, recs[i].json, strlen(recs[i].json));
		sb_puts(&log, i == 1 ? " \r\n" : "\n");
	}
	sb_puts(&log, CONSOLE_PREFIX "{\"seq\":7,\"type\":\"run\",\"data\":{\"trunc");
	put("console", 3, log.s, log.len);
	sb_free(&area);
	sb_free(&log);
	return 0;
}
