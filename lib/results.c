/*
 * results.c - results partition format (docs/results-format.md).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <sys/mount.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "defaults.h"
#include "gpt.h"
#include "hash.h"
#include "results.h"
#include "xio.h"

#ifndef BLKZEROOUT
#define BLKZEROOUT _IO(0x12, 127)	/* <linux/fs.h>, which clashes with <sys/mount.h> */
#endif
#ifndef FALLOC_FL_PUNCH_HOLE
#define FALLOC_FL_KEEP_SIZE 0x01
#define FALLOC_FL_PUNCH_HOLE 0x02
#endif

static uint32_t le32(const unsigned char *p) { return p[0] | p[1] << 8 | p[2] << 16 | (uint32_t)p[3] << 24; }
static uint64_t le64(const unsigned char *p) { return le32(p) | (uint64_t)le32(p + 4) << 32; }
static void put32(unsigned char *p, uint32_t v) { p[0] = v; p[1] = v >> 8; p[2] = v >> 16; p[3] = v >> 24; }
static void put64(unsigned char *p, uint64_t v) { put32(p, v); put32(p + 4, v >> 32); }

static const char *const type_names[] = { NULL, "boot", "run", "end", "event" };

const char *rs_type_name(uint32_t t)
{
	return t < sizeof type_names / sizeof *type_names ? type_names[t] : NULL;
}

int rs_type_from_name(const char *name)
{
	for (size_t i = 1; i < sizeof type_names / sizeof *type_names; i++)
		if (!strcmp(type_names[i], name))
			return i;
	return 0;
}

/* Header block layout (little-endian):
 *   0 magic[8]  8 version  12 header crc32c  16 created(8)  24 size(8)
 *  32 instance[16]  48 data_off  52 block  56 plan_len  60 plan_crc
 *  64 plan_name[64]  128.. zero up to 4096 (crc covers all 4096 bytes) */
void rs_header_encode(const struct rs_header *h, unsigned char b[4096])
{
	memset(b, 0, 4096);
	memcpy(b, RS_MAGIC, 8);
	put32(b + 8, h->version);
	put64(b + 16, h->created);
	put64(b + 24, h->size);
	memcpy(b + 32, h->instance, 16);
	put32(b + 48, h->data_off);
	put32(b + 52, h->block);
	put32(b + 56, h->plan_len);
	put32(b + 60, h->plan_crc);
	memcpy(b + 64, h->plan_name, strnlen(h->plan_name, 63));
	if (h->has_key) {
		put32(b + 128, 32);
		memcpy(b + 132, h->key, 32);
	}
	put32(b + 12, crc32c(0, b, 4096));
}

int rs_header_decode(const unsigned char *b, size_t len, struct rs_header *h, char *err, size_t errlen)
{
	unsigned char tmp[4096];
	if (len < 4096 || memcmp(b, RS_MAGIC, 8)) {
		snprintf(err, errlen, "no bootbench results header (magic %s not found)", RS_MAGIC);
		return -1;
	}
	memcpy(tmp, b, 4096);
	put32(tmp + 12, 0);
	if (crc32c(0, tmp, 4096) != le32(b + 12)) {
		snprintf(err, errlen, "results header checksum mismatch (damaged header)");
		return -1;
	}
	memset(h, 0, sizeof *h);
	h->version = le32(b + 8);
	h->created = le64(b + 16);
	h->size = le64(b + 24);
	memcpy(h->instance, b + 32, 16);
	h->data_off = le32(b + 48);
	h->block = le32(b + 52);
	h->plan_len = le32(b + 56);
	h->plan_crc = le32(b + 60);
	memcpy(h->plan_name, b + 64, 63);
	h->plan_name[63] = 0;
	if (le32(b + 128) != 0 && le32(b + 128) != 32) {
		snprintf(err, errlen, "results header: an upload key of %u bytes is not supported (32)", le32(b + 128));
		return -1;
	}
	h->has_key = le32(b + 128) == 32;
	memcpy(h->key, b + 132, 32);
	if (h->version != RS_VERSION) {
		snprintf(err, errlen, "results format version %u is not supported (this tool reads %u)",
			 h->version, RS_VERSION);
		return -1;
	}
	if (h->block < RESULTS_MIN_BLOCK || h->block > RESULTS_MAX_BLOCK || (h->block & (h->block - 1)) ||
	    h->data_off < 4096 || h->data_off % h->block || h->size < (uint64_t)h->data_off + h->block ||
	    h->plan_len > RESULTS_PLAN_MAX || 4096 + h->plan_len > h->data_off) {
		snprintf(err, errlen, "results header has impossible geometry (block %u, data at %u, size %llu, plan %u)",
			 h->block, h->data_off, (unsigned long long)h->size, h->plan_len);
		return -1;
	}
	return 0;
}

/* Record header layout (little-endian, 64 bytes):
 *   0 magic[8]  8 instance[16]  24 seq(8)  32 boot_id[16]  48 type  52 len
 *  56 payload crc32c  60 header crc32c (over bytes 0..59)  64.. payload */
size_t rs_record_encode(const struct rs_header *h, uint64_t seq, const unsigned char boot_id[16],
			uint32_t type, const char *payload, size_t len, unsigned char **out)
{
	size_t span = (RS_REC_HDR + len + h->block - 1) / h->block * h->block;
	unsigned char *b = xcalloc(1, span);
	memcpy(b, RS_REC_MAGIC, 8);
	memcpy(b + 8, h->instance, 16);
	put64(b + 24, seq);
	memcpy(b + 32, boot_id, 16);
	put32(b + 48, type);
	put32(b + 52, len);
	put32(b + 56, crc32c(0, payload, len));
	put32(b + 60, crc32c(0, b, 60));
	memcpy(b + RS_REC_HDR, payload, len);
	*out = b;
	return span;
}

int rs_record_header_ok(const struct rs_header *h, const unsigned char *b, uint64_t off, struct rs_rec *r)
{
	uint64_t span;
	uint32_t len;
	if (memcmp(b, RS_REC_MAGIC, 8) || memcmp(b + 8, h->instance, 16) ||
	    crc32c(0, b, 60) != le32(b + 60))
		return -1;
	len = le32(b + 52);
	if (len > RECORD_PAYLOAD_MAX)
		return -1;
	span = (RS_REC_HDR + (uint64_t)len + h->block - 1) / h->block * h->block;
	if (off + span > h->size)
		return -1;
	r->off = off;
	r->seq = le64(b + 24);
	memcpy(r->boot_id, b + 32, 16);
	r->type = le32(b + 48);
	r->len = len;
	r->span = span;
	r->payload = NULL;
	return 0;
}

#define SCAN_CHUNK (1024 * 1024)

/* First block-aligned offset in [from, to) holding a valid record header,
 * or 0. */
static uint64_t resync(rs_read_fn rd, void *rctx, const struct rs_header *h, uint64_t from, uint64_t to,
		       unsigned char *chunk, int *ioerr)
{
	if (to > h->size)
		to = h->size;
	for (uint64_t base = from; base < to; base += SCAN_CHUNK) {
		uint64_t want = to - base < SCAN_CHUNK ? to - base : SCAN_CHUNK;
		long got = rd(rctx, chunk, want, base);
		if (got < 0) {
			*ioerr = 1;
			return 0;
		}
		for (uint64_t o = 0; o + RS_REC_HDR <= (uint64_t)got; o += h->block) {
			struct rs_rec r;
			if (chunk[o] == 'B' && !rs_record_header_ok(h, chunk + o, base + o, &r))
				return base + o;
		}
		if ((uint64_t)got < want)
			break;
	}
	return 0;
}

/* The first record in [from, to) whose header and payload both check (and
 * whose payload is text: JSON holds no NUL), or 0. Each look costs what it
 * reads from *budget; once a look would pass it, *spent is set and the
 * search ends: a disk of forged headers, each claiming 4 MiB, must not
 * turn the scan's one pass into one pass a block. */
static uint64_t inner_record(rs_read_fn rd, void *rctx, const struct rs_header *h, uint64_t from, uint64_t to,
			     unsigned char *chunk, int *ioerr, uint64_t *budget, int *spent)
{
	char *p = NULL;
	uint64_t found = 0;
	while (from < to && !found) {
		unsigned char hb[RS_REC_HDR];
		struct rs_rec r;
		uint64_t at, look = to - from < SCAN_CHUNK ? to - from : SCAN_CHUNK;
		if (look > *budget) {
			*spent = 1;
			break;
		}
		*budget -= look;
		at = resync(rd, rctx, h, from, to, chunk, ioerr);
		if (!at || *ioerr)
			break;
		from = at + h->block;
		if (rd(rctx, hb, RS_REC_HDR, at) != RS_REC_HDR || rs_record_header_ok(h, hb, at, &r))
			continue;
		if (r.len > *budget) {
			*spent = 1;
			break;
		}
		*budget -= r.len;
		p = xrealloc(p, r.len + 1);
		if (rd(rctx, p, r.len, at + RS_REC_HDR) == (long)r.len && crc32c(0, p, r.len) == le32(hb + 56) &&
		    !memchr(p, 0, r.len))
			found = at;
	}
	free(p);
	return found;
}

/* Whether the payload of the record at pos (its header valid) has a sector
 * that never reached the disk: a piece of it, cut at 512-byte sector
 * boundaries, that is all zeros. A disk may store the sectors of one write
 * in any order, so a torn payload has such a hole somewhere, not always at
 * its end; a whole payload has none (JSON text holds no NUL, and no one
 * flipped bit makes a sector's worth of zeros). */
static int sector_unwritten(rs_read_fn rd, void *rctx, const struct rs_header *h, uint64_t pos)
{
	unsigned char hb[RS_REC_HDR], *p;
	uint32_t len;
	int hole = 0;
	if (rd(rctx, hb, RS_REC_HDR, pos) != RS_REC_HDR)
		return 0;
	len = le32(hb + 52);
	if (!len || pos + RS_REC_HDR + len > h->size)
		return 0;
	p = xmalloc(len);
	if (rd(rctx, p, len, pos + RS_REC_HDR) == (long)len) {
		/* the record starts on a block, so its sectors start at pos */
		for (uint64_t at = 0; at < len && !hole;) {
			uint64_t abs = pos + RS_REC_HDR + at, stop = (abs / 512 + 1) * 512 - pos - RS_REC_HDR, k;
			if (stop > len)
				stop = len;
			for (k = at; k < stop && !p[k]; k++)
				;
			hole = k == stop;
			at = stop;
		}
	}
	free(p);
	return hole;
}

int rs_tail_extent(rs_read_fn rd, void *rctx, uint64_t from, uint64_t size, struct rs_tail *t)
{
	static unsigned char buf[SCAN_CHUNK];
	uint64_t stop = size - from > RS_TAIL_WINDOW ? from + RS_TAIL_WINDOW : size;
	memset(t, 0, sizeof *t);
	for (uint64_t at = from; at < stop;) {
		size_t want = stop - at < sizeof buf ? (size_t)(stop - at) : sizeof buf;
		long got = rd(rctx, buf, want, at);
		if (got < 0)
			return -1;
		for (long i = 0; i < got; i++)
			if (buf[i]) {
				if (!t->nonzero)
					t->first = at + (uint64_t)i;
				t->last = at + (uint64_t)i;
				t->nonzero++;
			}
		if ((size_t)got < want)
			break;	/* a truncated image: what is there was read */
		at += (uint64_t)got;
	}
	t->checked = stop;
	return 0;
}

/* Where the writer appends when the bytes at from are not free space: past
 * the last byte that is not zero in the window after it (block-aligned up),
 * so that no part of the damage is written over and a reader can report it;
 * from itself when its block is free (the usual case: one block read). */
static uint64_t past_garbage(rs_read_fn rd, void *rctx, const struct rs_header *h, uint64_t from,
			     unsigned char *chunk, int *ioerr)
{
	struct rs_tail t;
	uint64_t last;
	if (h->size - from >= h->block) {
		long got = rd(rctx, chunk, h->block, from);
		uint64_t k = 0;
		if (got < 0) {
			*ioerr = 1;
			return from;
		}
		while (k < (uint64_t)got && !chunk[k])
			k++;
		if (got == (long)h->block && k == h->block)
			return from;
	}
	if (rs_tail_extent(rd, rctx, from, h->size, &t) < 0) {
		*ioerr = 1;
		return from;
	}
	if (!t.nonzero)
		return from;
	last = (t.last + h->block) / h->block * h->block;
	return last < h->size ? last : h->size;
}

/* A record whose header is valid and whose payload is not is damage when
 * anything valid follows it, and a torn write (a power cut: never
 * acknowledged) when it is the last thing there: its report waits until the
 * scan knows which. */
struct pending {
	uint64_t pos, span;
};

static void settle(struct pending *pd, const struct rs_scan_ops *ops, void *ctx, struct rs_scan_result *res)
{
	if (!pd->span)
		return;
	res->ncorrupt++;
	if (ops && ops->corrupt)
		ops->corrupt(ctx, pd->pos, "payload checksum mismatch (damaged record), skipped");
	pd->span = 0;
}

int rs_scan(rs_read_fn rd, void *rctx, const struct rs_header *h, const struct rs_scan_ops *ops,
	    void *ctx, struct rs_scan_result *res, char *err, size_t errlen)
{
	unsigned char hb[RS_REC_HDR];
	unsigned char *chunk = xmalloc(SCAN_CHUNK);
	char *payload = NULL;
	uint64_t pos = h->data_off;
	struct pending pd = { 0, 0 };
	int ioerr = 0, spent = 0;
	uint64_t budget = (64ull << 20) + h->size;	/* bytes read looking inside damaged records' spans */

	memset(res, 0, sizeof *res);
	res->end = pos;
	while (pos + RS_REC_HDR <= h->size) {
		struct rs_rec r;
		long got = rd(rctx, hb, RS_REC_HDR, pos);
		if (got < 0) {
			snprintf(err, errlen, "read error at offset %llu", (unsigned long long)pos);
			goto fail;
		}
		if (got == RS_REC_HDR && !rs_record_header_ok(h, hb, pos, &r)) {
			payload = xrealloc(payload, r.len + 1);
			got = rd(rctx, payload, r.len, pos + RS_REC_HDR);
			if (got < 0) {
				snprintf(err, errlen, "read error at offset %llu", (unsigned long long)pos);
				goto fail;
			}
			payload[r.len] = 0;
			settle(&pd, ops, ctx, res);
			/* a payload is JSON text: one with a NUL is not ours, whatever its CRC */
			if ((uint64_t)got == r.len && crc32c(0, payload, r.len) == le32(hb + 56) &&
			    !memchr(payload, 0, r.len)) {
				r.payload = payload;
				res->nrecords++;
				if (r.seq > res->last_seq)
					res->last_seq = r.seq;
				if (ops && ops->record)
					ops->record(ctx, &r);
			} else {
				/* A payload that does not check (or holds a NUL) is not
				 * JSON text from our writer: a whole record inside its
				 * span means the header's length is a lie (damage, or
				 * forged to hide what follows), and the records from
				 * there on are read, not skipped. Bounded work: past the
				 * budget, spans are skipped whole again, and said so. */
				uint64_t inner = spent ? 0 : inner_record(rd, rctx, h, pos + h->block, pos + r.span, chunk,
									  &ioerr, &budget, &spent);
				if (ioerr) {
					snprintf(err, errlen, "read error while scanning after offset %llu",
						 (unsigned long long)pos);
					goto fail;
				}
				if (spent == 1) {
					spent = 2;
					res->ncorrupt++;
					if (ops && ops->corrupt)
						ops->corrupt(ctx, pos, "too many damaged records claim long spans: from "
								       "here they are skipped whole, and records inside "
								       "them may be hidden");
				}
				if (inner) {
					res->ncorrupt++;
					if (ops && ops->corrupt)
						ops->corrupt(ctx, pos, "damaged record: its length runs over a valid "
								       "record, read from there");
					pos = inner;
					res->end = pos;
					continue;
				}
				pd.pos = pos;
				pd.span = r.span;
			}
			/* a valid header proves the span: never write over it */
			pos += r.span;
			res->end = pos;
			continue;
		}
		{
			uint64_t next = resync(rd, rctx, h, pos + h->block, h->size, chunk, &ioerr);
			if (ioerr) {
				snprintf(err, errlen, "read error while scanning after offset %llu", (unsigned long long)pos);
				goto fail;
			}
			if (next) {
				settle(&pd, ops, ctx, res);
				res->ncorrupt++;
				if (ops && ops->corrupt)
					ops->corrupt(ctx, pos, "damaged record header, skipped to the next valid record");
				pos = next;
				continue;
			}
			/* The end. A record magic with a header that does not check
			 * is damage, never a torn write: the 64-byte header lies in
			 * one sector, which a power cut writes whole or not at all. */
			if (got >= 8 && !memcmp(hb, RS_REC_MAGIC, 8) && !memcmp(hb + 8, h->instance, 16 < got - 8 ? 16 : got - 8)) {
				settle(&pd, ops, ctx, res);
				res->ncorrupt++;
				res->tail_reported = 1;
				if (ops && ops->corrupt)
					ops->corrupt(ctx, pos, "damaged header of the last record: lost");
			}
			break;
		}
	}
	/* The last record with a valid header and a payload that does not
	 * check: a torn write only if a sector of its payload never reached
	 * the disk (free space is zeros); a flipped byte in a whole record is
	 * damage. A torn record is written
	 * over (the writer clears it first); damage never is. */
	if (pd.span && pd.pos + pd.span == res->end && sector_unwritten(rd, rctx, h, pd.pos)) {
		res->end = pd.pos;
		res->torn = pd.span;
		if (ops && ops->corrupt)
			ops->corrupt(ctx, pd.pos, "torn record at the end (its payload never completed), ignored");
	} else
		settle(&pd, ops, ctx, res);
	res->append = res->torn ? res->end : past_garbage(rd, rctx, h, res->end, chunk, &ioerr);
	if (ioerr) {
		snprintf(err, errlen, "read error while scanning after offset %llu", (unsigned long long)res->end);
		goto fail;
	}
	free(chunk);
	free(payload);
	return 0;
fail:
	free(chunk);
	free(payload);
	return -1;
}

/* ---------------- regions on files and devices ---------------- */

int dev_geometry(int fd, uint64_t *size, unsigned *lbs)
{
	struct stat st;
	if (fstat(fd, &st) < 0)
		return -1;
	if (S_ISBLK(st.st_mode)) {
		int s = 512;
		if (ioctl(fd, BLKGETSIZE64, size) < 0)
			return -1;
		if (ioctl(fd, BLKSSZGET, &s) < 0)
			s = 512;
		*lbs = s;
	} else if (S_ISREG(st.st_mode)) {
		*size = st.st_size;
		*lbs = 512;
	} else {
		errno = EINVAL;
		return -1;
	}
	return 0;
}

long rs_fd_read(void *ctx, void *buf, size_t len, uint64_t off)
{
	const struct rs_region *reg = ctx;
	if (off >= reg->size)
		return 0;
	if (len > reg->size - off)
		len = reg->size - off;
	return pread_all(reg->fd, buf, len, reg->base + off);
}

int rs_locate(int fd, const char *path, struct rs_region *reg, char *err, size_t errlen)
{
	unsigned char gtype[16], blk[4096];
	struct gpt_part p;
	uint64_t size;
	unsigned lbs;
	long got;

	if (dev_geometry(fd, &size, &lbs) < 0) {
		snprintf(err, errlen, "unable to get the size of %s: %s", path, strerror(errno));
		return -1;
	}
	guid_parse(RESULTS_TYPE_GUID, gtype);
	reg->fd = fd;
	reg->lbs = lbs;
	reg->cut = 0;
	reg->backup = 0;
	/* a whole disk or image with a GPT; try 512 and 4096-byte sectors */
	for (unsigned try = lbs; try <= 4096; try *= 8) {
		struct gpt_part q;
		int backup, r = gpt_find(fd, try, size, RESULTS_PART_NAME, gtype, &p, &q, &backup);
		if (r < 0) {
			snprintf(err, errlen, "unable to read %s: %s", path, strerror(errno));
			return -1;
		}
		if (r == 2) {
			/* which one the appliance would write is not ours to guess */
			snprintf(err, errlen, "%s has two results partitions, %u (%s) and %u (%s): keep one "
				 "(name %s, type %s)", path, p.index, p.name, q.index, q.name, RESULTS_PART_NAME,
				 RESULTS_TYPE_GUID);
			return -1;
		}
		if (r == 1) {
			reg->base = p.first_lba * try;
			reg->size = (p.last_lba - p.first_lba + 1) * try;
			if (reg->base + reg->size > size) {
				if (reg->base + 4096 > size) {	/* not even the header block */
					snprintf(err, errlen, "%s: partition %u (%s) starts past the end of the disk",
						 path, p.index, p.name);
					return 0;
				}
				reg->cut = reg->base + reg->size - size;
				reg->size = size - reg->base;
			}
			reg->backup = backup;
			snprintf(reg->desc, sizeof reg->desc, "%s partition %u (%s)", path, p.index, p.name);
			return 1;
		}
		if (try == 4096)
			break;
	}
	/* a bare partition: our header at offset 0 */
	got = pread_all(fd, blk, sizeof blk, 0);
	if (got < 0) {
		snprintf(err, errlen, "unable to read %s: %s", path, strerror(errno));
		return -1;
	}
	if (got == sizeof blk && !memcmp(blk, RS_MAGIC, 8)) {
		reg->base = 0;
		reg->size = size;
		snprintf(reg->desc, sizeof reg->desc, "%s (bare results partition)", path);
		return 1;
	}
	snprintf(err, errlen, "%s has no partition named %s and no results header", path, RESULTS_PART_NAME);
	return 0;
}

/* Zero [off, off+len) of the region: a hole in a file, BLKZEROOUT on a
 * device, else written zeros. */
static int zero_range(const struct rs_region *reg, uint64_t off, uint64_t len)
{
	static const unsigned char zero[1 << 16];
	struct stat st;
	if (fstat(reg->fd, &st) < 0)
		return -1;
	if (S_ISREG(st.st_mode) &&
	    fallocate(reg->fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, (off_t)(reg->base + off), (off_t)len) == 0)
		return 0;
	if (S_ISBLK(st.st_mode)) {
		uint64_t range[2] = { reg->base + off, len };
		if (ioctl(reg->fd, BLKZEROOUT, range) == 0)
			return 0;
	}
	for (uint64_t at = 0; at < len;) {
		size_t n = len - at < sizeof zero ? (size_t)(len - at) : sizeof zero;
		if (pwrite_all(reg->fd, zero, n, reg->base + off + at) < 0)
			return -1;
		at += n;
	}
	return 0;
}

int rs_format(const struct rs_region *reg, const char *plan_name, const char *plan,
	      size_t plan_len, char *err, size_t errlen)
{
	struct rs_header h = {0};
	unsigned char *area;
	if (plan_len > RESULTS_PLAN_MAX) {
		snprintf(err, errlen, "plan is %zu bytes; at most %d fit in the header", plan_len, RESULTS_PLAN_MAX);
		errno = EFBIG;
		return -1;
	}
	if (reg->size < RESULTS_HDR_AREA + 64 * 1024) {
		snprintf(err, errlen, "results partition of %llu bytes is too small (at least %d KiB)",
			 (unsigned long long)reg->size, (RESULTS_HDR_AREA + 64 * 1024) / 1024);
		errno = ENOSPC;
		return -1;
	}
	h.version = RS_VERSION;
	h.created = time(NULL);
	h.size = reg->size;
	random_bytes(h.instance, 16);
	h.data_off = RESULTS_HDR_AREA;
	h.block = reg->lbs < RESULTS_MIN_BLOCK ? RESULTS_MIN_BLOCK : reg->lbs;
	if (plan) {
		snprintf(h.plan_name, sizeof h.plan_name, "%s", plan_name ? plan_name : "stored");
		h.plan_len = plan_len;
		h.plan_crc = crc32c(0, plan, plan_len);
	}
	/* Free space reads as zeros (collect counts bytes that are not as
	 * damage): clear the data area of a reused device or image first. */
	if (zero_range(reg, RESULTS_HDR_AREA, reg->size - RESULTS_HDR_AREA) < 0) {
		snprintf(err, errlen, "unable to clear the results partition: %s", strerror(errno));
		return -1;
	}
	/* header area plus the first record block: zero, so a new instance
	 * starts clean even over old data (stale records differ in instance) */
	area = xcalloc(1, RESULTS_HDR_AREA + h.block);
	rs_header_encode(&h, area);
	if (plan)
		memcpy(area + 4096, plan, plan_len);
	if (pwrite_all(reg->fd, area, RESULTS_HDR_AREA + h.block, reg->base) < 0 || fdatasync(reg->fd) < 0) {
		snprintf(err, errlen, "unable to write the results header: %s", strerror(errno));
		free(area);
		return -1;
	}
	free(area);
	return 0;
}

int rs_set_key(const struct rs_region *reg, const unsigned char key[32], char *err, size_t errlen)
{
	unsigned char blk[4096];
	struct rs_header h;
	if (rs_fd_read((void *)reg, blk, sizeof blk, 0) != (long)sizeof blk) {
		snprintf(err, errlen, "unable to read the results header of %s", reg->desc);
		return -1;
	}
	if (rs_header_decode(blk, sizeof blk, &h, err, errlen) < 0)
		return -1;
	h.has_key = 1;
	memcpy(h.key, key, 32);
	rs_header_encode(&h, blk);
	if (pwrite_all(reg->fd, blk, sizeof blk, reg->base) < 0 || fdatasync(reg->fd) < 0) {
		snprintf(err, errlen, "unable to write the results header of %s: %s", reg->desc, strerror(errno));
		return -1;
	}
	return 0;
}

char *rs_read_plan(const struct rs_region *reg, const struct rs_header *h, char *err, size_t errlen)
{
	char *plan;
	if (!h->plan_len)
		return NULL;
	plan = xmalloc(h->plan_len + 1);
	if (rs_fd_read((void *)reg, plan, h->plan_len, 4096) != (long)h->plan_len ||
	    crc32c(0, plan, h->plan_len) != h->plan_crc) {
		snprintf(err, errlen, "stored plan is unreadable or damaged (checksum mismatch)");
		free(plan);
		return NULL;
	}
	plan[h->plan_len] = 0;
	return plan;
}

int rs_writer_open(struct rs_writer *w, const struct rs_region *reg, const unsigned char boot_id[16],
		   const struct rs_scan_ops *ops, void *ctx, char *err, size_t errlen)
{
	unsigned char blk[4096];
	struct rs_scan_result res;
	memset(w, 0, sizeof *w);
	w->reg = *reg;
	memcpy(w->boot_id, boot_id, 16);
	if (rs_fd_read(&w->reg, blk, sizeof blk, 0) != (long)sizeof blk) {
		snprintf(err, errlen, "unable to read the results header of %s", reg->desc);
		return -1;
	}
	if (rs_header_decode(blk, sizeof blk, &w->h, err, errlen) < 0)
		return -1;
	if (w->h.size > reg->size) {
		snprintf(err, errlen, "results header of %s claims %llu bytes but the partition has %llu",
			 reg->desc, (unsigned long long)w->h.size, (unsigned long long)reg->size);
		return -1;
	}
	if (rs_scan(rs_fd_read, &w->reg, &w->h, ops, ctx, &res, err, errlen) < 0)
		return -1;
	w->end = res.append;
	w->seq = res.last_seq;
	/* A torn record's bytes would outlive a shorter record written over
	 * them, and a reader would take them for damage: clear them first. */
	if (res.torn) {
		unsigned char *zero = xcalloc(1, res.torn);
		int bad = pwrite_all(w->reg.fd, zero, res.torn, w->reg.base + w->end) < 0 || fdatasync(w->reg.fd) < 0;
		free(zero);
		if (bad) {
			snprintf(err, errlen, "unable to clear the torn record at offset %llu of %s: %s",
				 (unsigned long long)w->end, reg->desc, strerror(errno));
			return -1;
		}
	}
	return 0;
}

int rs_append(struct rs_writer *w, uint32_t type, const char *payload, size_t len, uint64_t *seq)
{
	unsigned char *rec;
	size_t span;
	if (w->full || len > RECORD_PAYLOAD_MAX) {
		errno = w->full ? ENOSPC : EFBIG;
		return -1;
	}
	span = rs_record_encode(&w->h, w->seq + 1, w->boot_id, type, payload, len, &rec);
	if (w->end + span > w->h.size) {
		free(rec);
		w->full = 1;
		errno = ENOSPC;
		return -1;
	}
	if (pwrite_all(w->reg.fd, rec, span, w->reg.base + w->end) < 0 || fdatasync(w->reg.fd) < 0) {
		int e = errno;
		free(rec);
		errno = e;
		return -1;
	}
	free(rec);
	w->end += span;
	w->seq++;
	if (seq)
		*seq = w->seq;
	return 0;
}
