/*
 * tail.c - what a reader must never drop silently (issue 21): a flipped
 * header on the last record, a record area overwritten with random bytes, a
 * torn last write (reported, not lost: it was never acknowledged) and the
 * bytes a shorter record leaves of it, a reused partition's old data.
 * source_read() counts each loss; collect exits 2 on any.
 */
#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>

#include "defaults.h"
#include "results.h"
#include "recsource.h"
#include "tap.h"
#include "xio.h"

static const unsigned char boot_id[16] = "0123456789abcdef";
static char path[] = "/tmp/bb-unit-tail.XXXXXX";

static void count(void *ctx, const char *line, size_t len, const char *where)
{
	(*(int *)ctx)++;
}

/* A bare results partition on a named file, with n records. */
static struct rs_region fresh(int n, uint64_t *ends)
{
	struct rs_region reg = { 0 };
	struct rs_writer w;
	char err[200];
	reg.fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0600);
	if (reg.fd < 0 || ftruncate(reg.fd, 1 << 20) < 0) {
		printf("Bail out! cannot create %s\n", path);
		exit(1);
	}
	reg.size = 1 << 20;
	reg.lbs = 512;
	snprintf(reg.desc, sizeof reg.desc, "tail");
	if (rs_format(&reg, NULL, NULL, 0, err, sizeof err) < 0 ||
	    rs_writer_open(&w, &reg, boot_id, NULL, NULL, err, sizeof err) < 0) {
		printf("Bail out! %s\n", err);
		exit(1);
	}
	for (int i = 0; i < n; i++) {
		char p[64];
		snprintf(p, sizeof p, "{\"type\":\"event\",\"data\":{\"i\":%d}}", i);
		rs_append(&w, RS_EVENT, p, strlen(p), NULL);
		ends[i] = w.end;
	}
	return reg;
}

static void read_back(int *n, unsigned long long *lost)
{
	*n = 0;
	*lost = 0;
	source_read(path, count, n, 1, lost);
}

/* Flip the bits of mask in the byte at off. */
static void flip(int fd, uint64_t off, unsigned char mask)
{
	unsigned char b = 0;
	pread_all(fd, &b, 1, off);
	b ^= mask;
	pwrite_all(fd, &b, 1, off);
}

int main(void)
{
	struct rs_region reg;
	uint64_t ends[8];
	unsigned long long lost;
	int n, fd = mkstemp(path);

	if (fd < 0)
		return printf("Bail out! mkstemp\n"), 1;
	close(fd);
	tap_plan(15);

	reg = fresh(3, ends);
	read_back(&n, &lost);
	is_int(n * 100 + (int)lost, 300, "three records, nothing lost");

	/* the last record's header: a bit of its sequence number */
	flip(reg.fd, ends[1] + 24, 1);
	read_back(&n, &lost);
	is_int(n * 100 + (int)lost, 201, "a flipped last header: two read, one lost (was: 0 damaged)");
	close(reg.fd);

	/* its magic: the scan cannot see a record there at all */
	reg = fresh(3, ends);
	pwrite_all(reg.fd, "X", 1, ends[1]);
	read_back(&n, &lost);
	is_int(n * 100 + (int)(lost > 0), 201, "a flipped magic on the last record: the tail is not free space, lost");
	close(reg.fd);

	/* one flipped byte in the last record's payload: damage, not a torn
	 * write (a torn payload ends in zeros), and the next writer keeps it */
	reg = fresh(3, ends);
	flip(reg.fd, ends[1] + 64 + 5, 0x20);
	read_back(&n, &lost);
	is_int(n * 100 + (int)lost, 201, "a flipped payload byte in the last record: lost, not torn (was: exit 0)");
	{
		struct rs_writer w;
		char err[200];
		uint64_t at;
		int opened = rs_writer_open(&w, &reg, boot_id, NULL, NULL, err, sizeof err);
		at = w.end;
		rs_append(&w, RS_EVENT, "{\"type\":\"event\",\"data\":{}}", 26, NULL);
		ok(opened == 0 && at == ends[2], "... the next boot appends after it (at %llu, its end %llu), never over it",
		   (unsigned long long)at, (unsigned long long)ends[2]);
	}
	read_back(&n, &lost);
	is_int(n * 100 + (int)lost, 301, "... so it is still reported lost after the next boot (was: erased)");
	close(reg.fd);

	/* the last header's length byte: its checksum fails; damage, kept */
	reg = fresh(3, ends);
	flip(reg.fd, ends[1] + 52, 1);
	read_back(&n, &lost);
	is_int(n * 100 + (int)lost, 201, "a flipped length in the last header: lost, not torn (was: exit 0)");
	close(reg.fd);

	/* the record area overwritten with random bytes */
	reg = fresh(5, ends);
	{
		unsigned char junk[8192];
		for (size_t i = 0; i < sizeof junk; i++)
			junk[i] = (unsigned char)(i * 2654435761u >> 13) | 1;
		pwrite_all(reg.fd, junk, sizeof junk, ends[0] - (ends[1] - ends[0]));
	}
	read_back(&n, &lost);
	ok(n < 5 && lost > 0, "the record area overwritten with random bytes: loss reported (%d read, %llu lost)", n, lost);
	close(reg.fd);

	/* a torn last write (a power cut): reported, but nothing acknowledged is lost */
	reg = fresh(3, ends);
	{
		char big[3000];
		unsigned char *rec;
		struct rs_header h;
		unsigned char blk[4096];
		char err[200];
		size_t span;
		memset(big, 'x', sizeof big);
		memcpy(big, "{\"p\":\"", 6);
		memcpy(big + sizeof big - 2, "\"}", 2);
		rs_fd_read(&reg, blk, 4096, 0);
		rs_header_decode(blk, 4096, &h, err, sizeof err);
		span = rs_record_encode(&h, 4, boot_id, RS_RUN, big, sizeof big, &rec);
		pwrite_all(reg.fd, rec, span / 2, ends[2]);	/* the header and half the payload */
		free(rec);
	}
	read_back(&n, &lost);
	is_int(n * 100 + (int)lost, 300, "a torn last record: three read, nothing lost");
	{
		/* the next boot writes a shorter record over it: no leftovers */
		struct rs_writer w;
		char err[200];
		ok(rs_writer_open(&w, &reg, boot_id, NULL, NULL, err, sizeof err) == 0, "the next boot's writer opens");
		rs_append(&w, RS_EVENT, "{\"type\":\"event\",\"data\":{}}", 26, NULL);
	}
	read_back(&n, &lost);
	is_int(n * 100 + (int)lost, 400, "... clears the torn bytes, appends: four read, nothing lost, no false damage");
	close(reg.fd);

	/* a reused partition: formatting clears the old data */
	reg = fresh(0, ends);
	{
		char err[200];
		unsigned char junk[65536];
		memset(junk, 0xa5, sizeof junk);
		for (uint64_t at = 0; at < (1 << 20); at += sizeof junk)
			pwrite_all(reg.fd, junk, sizeof junk, at);
		ok(rs_format(&reg, NULL, NULL, 0, err, sizeof err) == 0, "rs_format over old data");
	}
	read_back(&n, &lost);
	is_int(n * 100 + (int)lost, 0, "... leaves free space that reads as free: no records, nothing lost");
	{
		unsigned char tail[4096];
		int nz = 0;
		pread_all(reg.fd, tail, sizeof tail, (1 << 20) - sizeof tail);
		for (size_t i = 0; i < sizeof tail; i++)
			nz += tail[i] != 0;
		is_int(nz, 0, "... its last block is zeros");
	}
	/* a damaged line in a console log is counted by the caller; an
	 * over-long one by source_read */
	close(reg.fd);
	fd = open(path, O_WRONLY | O_TRUNC);
	{
		char *line = xmalloc(RECORD_PAYLOAD_MAX + 8192);
		memcpy(line, "BOOTBENCH {", 11);
		memset(line + 11, 'x', RECORD_PAYLOAD_MAX + 8000);
		line[RECORD_PAYLOAD_MAX + 8011] = '\n';
		write_all(fd, line, RECORD_PAYLOAD_MAX + 8012);
		write_all(fd, "BOOTBENCH {\"seq\":1,\"boot_id\":\"00\",\"type\":\"end\",\"data\":{}}\n", 58);
		free(line);
	}
	close(fd);
	read_back(&n, &lost);
	is_int(n * 100 + (int)lost, 101, "a console line longer than any record: counted as lost, the next one read");
	unlink(path);
	return tap_done();
}
