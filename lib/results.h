/*
 * results.h - the results partition: header, records, scanning, appending.
 * The byte layout is specified in docs/results-format.md; keep them in step.
 *
 * Everything here works on a region (an fd plus a base offset and a size),
 * so the same code reads an image file, a whole disk with a GPT, a bare
 * partition, or (in the fuzzer and tests) a buffer in memory.
 */
#ifndef BB_RESULTS_H
#define BB_RESULTS_H

#include <stddef.h>
#include <stdint.h>

#define RS_MAGIC "BOOTBNCH"
#define RS_REC_MAGIC "BBRECORD"
#define RS_VERSION 1
#define RS_REC_HDR 64

enum rs_type { RS_BOOT = 1, RS_RUN = 2, RS_END = 3, RS_EVENT = 4 };
const char *rs_type_name(uint32_t type);	/* "boot"... or NULL */
int rs_type_from_name(const char *name);	/* 0 when unknown */

struct rs_header {
	uint32_t version;
	uint64_t created;		/* unix seconds */
	uint64_t size;			/* bytes of the whole region */
	unsigned char instance[16];	/* random per mkresults: stale records never match */
	uint32_t data_off;		/* first record */
	uint32_t block;			/* record alignment */
	char plan_name[64];
	uint32_t plan_len;		/* 0: no stored plan */
	uint32_t plan_crc;
	int has_key;			/* an upload key is set (bootbench mkresults --key) */
	unsigned char key[32];		/* the key the appliance signs its uploads with: never printed */
};

struct rs_rec {
	uint64_t off;			/* from the start of the region */
	uint64_t seq;
	unsigned char boot_id[16];
	uint32_t type;
	uint32_t len;
	const char *payload;		/* len bytes, valid during the callback */
	uint64_t span;			/* bytes the record occupies, padding included */
};

typedef long (*rs_read_fn)(void *ctx, void *buf, size_t len, uint64_t off);

struct rs_scan_ops {
	void (*record)(void *ctx, const struct rs_rec *r);
	void (*corrupt)(void *ctx, uint64_t off, const char *why);
};

struct rs_scan_result {
	uint64_t end;		/* where the next record goes */
	uint64_t last_seq;	/* 0: none */
	uint64_t nrecords, ncorrupt;	/* ncorrupt: records lost to damage */
	uint64_t torn;		/* bytes of a torn record at the end (its write never completed, so it was
				   never acknowledged): not damage; the writer zeroes them before appending */
	uint64_t append;	/* where the writer appends: end, or past bytes after it that are not free
				   space (damage is kept for the reader, never written over) */
	int tail_reported;	/* the bytes from end to append are a damaged last record, counted in ncorrupt */
};

/* Header block: encode into a zeroed 4096-byte buffer; decode validates. */
void rs_header_encode(const struct rs_header *h, unsigned char blk[4096]);
int rs_header_decode(const unsigned char *blk, size_t len, struct rs_header *h,
		     char *err, size_t errlen);

/* Build a record in a malloc'd, block-padded buffer; returns its span. */
size_t rs_record_encode(const struct rs_header *h, uint64_t seq, const unsigned char boot_id[16],
			uint32_t type, const char *payload, size_t len, unsigned char **out);
/* 0 when the 64-byte header at off is a valid record header of this region. */
int rs_record_header_ok(const struct rs_header *h, const unsigned char *b, uint64_t off,
			struct rs_rec *r);

/* Walk all records. Returns 0, or -1 on a read error (err says where). */
int rs_scan(rs_read_fn rd, void *rctx, const struct rs_header *h, const struct rs_scan_ops *ops,
	    void *ctx, struct rs_scan_result *res, char *err, size_t errlen);

/* ---- regions on files and devices ---- */
struct rs_region {
	int fd;
	uint64_t base, size;
	unsigned lbs;		/* logical block size of the device (512 for files) */
	uint64_t cut;		/* bytes of the partition past the end of the disk (a truncated image); size is what is there */
	int backup;		/* found through the backup GPT: the primary is damaged */
	char desc[160];		/* "disk.img partition 1 (bootbench-results)" */
};

/* Size and logical block size of an open file or block device. */
int dev_geometry(int fd, uint64_t *size, unsigned *lbs);
/* Find the results region on an open image/disk (GPT) or bare partition.
 * Returns 1 found, 0 not there (err says why), -1 I/O error. A partition
 * that extends past the end (a truncated image) is found with reg->cut
 * nonzero: readers read what is there, writers must refuse it. A primary
 * GPT that does not check is read from its backup (reg->backup); two
 * results partitions are refused (-1, err names both). */
int rs_locate(int fd, const char *path, struct rs_region *reg, char *err, size_t errlen);
long rs_fd_read(void *ctx, void *buf, size_t len, uint64_t off);	/* ctx: struct rs_region* */

/* Free space past the last record is zeros (images are sparse, the writer
 * pads with zeros and rs_format zeroes the area). rs_tail_extent reads the
 * first RS_TAIL_WINDOW bytes from `from` (up to size) and says how many are
 * not zero, the first and last of them, and where the window ends. The reader
 * reports them as damage; the writer appends past the last. -1: read error. */
#define RS_TAIL_WINDOW (256ull << 20)
#define RS_TAIL_WINDOW_TEXT "256 MiB"
struct rs_tail {
	uint64_t nonzero, first, last, checked;
};
int rs_tail_extent(rs_read_fn rd, void *rctx, uint64_t from, uint64_t size, struct rs_tail *t);

/* Initialize a region: header (and optional plan), old header area cleared. */
int rs_format(const struct rs_region *reg, const char *plan_name, const char *plan,
	      size_t plan_len, char *err, size_t errlen);
/* Set (or replace) the upload key in the header of an existing results
 * region, records untouched: 0, or -1 with err. */
int rs_set_key(const struct rs_region *reg, const unsigned char key[32], char *err, size_t errlen);
/* Read the stored plan (malloc'd, NUL-terminated) or NULL when none/bad. */
char *rs_read_plan(const struct rs_region *reg, const struct rs_header *h, char *err, size_t errlen);

/* The appliance's writer. */
struct rs_writer {
	struct rs_region reg;
	struct rs_header h;
	uint64_t end, seq;
	unsigned char boot_id[16];
	int full;
};

int rs_writer_open(struct rs_writer *w, const struct rs_region *reg, const unsigned char boot_id[16],
		   const struct rs_scan_ops *ops, void *ctx, char *err, size_t errlen);
/* Append one durable record. 0 ok (seq in *seq), -1 with errno (ENOSPC: full). */
int rs_append(struct rs_writer *w, uint32_t type, const char *payload, size_t len, uint64_t *seq);

#endif
