/*
 * results.c - the results partition format under damage: round trip of every
 * record type, a torn last record cut at every byte offset (over zeros and
 * over old garbage), every single-bit flip in a record, a partition filled to
 * its last block, stale records of an earlier format, the stored plan; a
 * forged record length over valid records (never zeroed by the writer); a
 * damaged primary GPT read from its backup; two results partitions refused.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>

#include "defaults.h"
#include "gpt.h"
#include "hash.h"
#include "results.h"
#include "region.h"
#include "tap.h"
#include "xio.h"

struct seen {
	int n, corrupt;
	uint64_t seq[64];
	uint32_t type[64];
	char *payload[64];
};

static void on_rec(void *ctx, const struct rs_rec *r)
{
	struct seen *s = ctx;
	if (s->n < 64) {
		s->seq[s->n] = r->seq;
		s->type[s->n] = r->type;
		s->payload[s->n] = xstrndup(r->payload, r->len);
	}
	s->n++;
}

static void on_bad(void *ctx, uint64_t off, const char *why)
{
	((struct seen *)ctx)->corrupt++;
}

static const struct rs_scan_ops ops = { on_rec, on_bad };

static void seen_free(struct seen *s)
{
	for (int i = 0; i < s->n && i < 64; i++)
		free(s->payload[i]);
	memset(s, 0, sizeof *s);
}

static int scan(struct rs_region *reg, struct seen *s, struct rs_scan_result *res)
{
	unsigned char blk[4096];
	struct rs_header h;
	char err[200];
	memset(s, 0, sizeof *s);
	if (rs_fd_read(reg, blk, 4096, 0) != 4096 || rs_header_decode(blk, 4096, &h, err, sizeof err))
		return -1;
	return rs_scan(rs_fd_read, reg, &h, &ops, s, res, err, sizeof err);
}

static const unsigned char boot_id[16] = "0123456789abcdef";

/* A reader that counts what the scan asks for. */
struct counted {
	struct rs_region *reg;
	unsigned long long bytes;
};

static void put32le(unsigned char *b, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		b[i] = (unsigned char)(v >> (8 * i));
}

static long counted_read(void *ctx, void *buf, size_t len, uint64_t off)
{
	struct counted *c = ctx;
	long got = rs_fd_read(c->reg, buf, len, off);
	if (got > 0)
		c->bytes += (unsigned long long)got;
	return got;
}

int main(void)
{
	static const char *payloads[] = {
		"{\"kernel\":{\"release\":\"6.1.0-57-amd64\"}}",
		"{\"workload\":\"null\",\"metrics\":[{\"name\":\"x\",\"value\":1,\"unit\":\"s\",\"better\":\"lower\"}]}",
		"{\"reason\":\"all steps done\"}",
		"{\"note\":\"event\"}",
	};
	struct rs_writer w;
	struct rs_region reg;
	struct rs_scan_result res;
	struct seen s;
	char err[200];
	uint64_t seq;
	int good;

	tap_plan(40);
	{
		const char *v = "123456789";
		is_int(crc32c(0, v, 9), 0xe3069283u, "CRC32C check value");
		is_int(crc32_ieee(0, v, 9), 0xcbf43926u, "CRC32 (GPT) check value");
	}

	/* 1. round trip of every type */
	reg = mkregion(1 << 20);
	ok(rs_writer_open(&w, &reg, boot_id, NULL, NULL, err, sizeof err) == 0, "writer opens an empty partition");
	for (int t = 1; t <= 4; t++)
		rs_append(&w, t, payloads[t - 1], strlen(payloads[t - 1]), &seq);
	is_int(seq, 4, "four records, sequence 1..4");
	scan(&reg, &s, &res);
	good = s.n == 4 && s.corrupt == 0;
	for (int i = 0; good && i < 4; i++)
		good = s.seq[i] == (uint64_t)i + 1 && s.type[i] == (uint32_t)i + 1 && !strcmp(s.payload[i], payloads[i]);
	ok(good, "round trip of boot, run, end, event: same order, type, payload");
	ok(!strcmp(rs_type_name(RS_RUN), "run") && rs_type_from_name("end") == RS_END, "type names");
	seen_free(&s);
	/* a second writer (the next boot) continues the sequence after the end */
	ok(rs_writer_open(&w, &reg, boot_id, NULL, NULL, err, sizeof err) == 0 && w.seq == 4 && w.end == res.end,
	   "reopened writer resumes at seq 4, at the scanned end");
	close(reg.fd);

	/* 2. torn last record: every cut point, over zeros and over garbage */
	for (int garbage = 0; garbage < 2; garbage++) {
		int hidden = 0, accepted_torn = 0, overwrote = 0, cuts = 0;
		const char *p3 = "{\"workload\":\"stream\",\"status\":\"ok\",\"padding\":\"xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx\"}";
		unsigned char *rec;
		size_t span, full;
		uint64_t at;
		reg = mkregion(1 << 20);
		rs_writer_open(&w, &reg, boot_id, NULL, NULL, err, sizeof err);
		rs_append(&w, RS_BOOT, payloads[0], strlen(payloads[0]), NULL);
		rs_append(&w, RS_RUN, payloads[1], strlen(payloads[1]), NULL);
		at = w.end;
		span = rs_record_encode(&w.h, 3, boot_id, RS_RUN, p3, strlen(p3), &rec);
		full = RS_REC_HDR + strlen(p3);
		for (size_t cut = 0; cut <= span; cut++) {
			unsigned char *fill = xmalloc(span + 4096);
			for (size_t k = 0; k < span + 4096; k++)
				fill[k] = garbage ? (unsigned char)(k * 131 + 7) : 0;
			pwrite_all(reg.fd, fill, span + 4096, at);
			free(fill);
			pwrite_all(reg.fd, rec, cut, at);
			scan(&reg, &s, &res);
			cuts++;
			if (s.n < 2 || strcmp(s.payload[0], payloads[0]) || strcmp(s.payload[1], payloads[1]))
				hidden++;
			if (cut < full && s.n > 2)
				accepted_torn++;
			if (cut >= full && (s.n != 3 || strcmp(s.payload[2], p3)))
				accepted_torn++;
			if (res.end < at)
				overwrote++;
			seen_free(&s);
		}
		free(rec);
		is_int(hidden, 0, "%s: a torn last record never hides the two before it (%d cuts)", garbage ? "over garbage" : "over zeros", cuts);
		is_int(accepted_torn, 0, "%s: a torn record is never accepted; a complete one always is", garbage ? "over garbage" : "over zeros");
		is_int(overwrote, 0, "%s: the next append never goes before the last valid record's end", garbage ? "over garbage" : "over zeros");
		close(reg.fd);
	}

	/* 3. every single-bit flip in a middle record */
	{
		int wrong = 0, lost_neighbours = 0, flips = 0, detected = 0;
		uint64_t at, span;
		unsigned char *orig;
		reg = mkregion(1 << 20);
		rs_writer_open(&w, &reg, boot_id, NULL, NULL, err, sizeof err);
		rs_append(&w, RS_BOOT, payloads[0], strlen(payloads[0]), NULL);
		at = w.end;
		rs_append(&w, RS_RUN, payloads[1], strlen(payloads[1]), NULL);
		span = w.end - at;
		rs_append(&w, RS_END, payloads[2], strlen(payloads[2]), NULL);
		orig = xmalloc(span);
		pread_all(reg.fd, orig, span, at);
		for (uint64_t byte = 0; byte < RS_REC_HDR + strlen(payloads[1]); byte++)
			for (int bit = 0; bit < 8; bit++) {
				unsigned char b = orig[byte] ^ (1u << bit);
				pwrite_all(reg.fd, &b, 1, at + byte);
				scan(&reg, &s, &res);
				flips++;
				for (int i = 0; i < s.n && i < 64; i++)
					if (strcmp(s.payload[i], payloads[0]) && strcmp(s.payload[i], payloads[1]) &&
					    strcmp(s.payload[i], payloads[2]))
						wrong++;
				if (s.n == 3)
					wrong++;	/* the flipped record itself was accepted */
				if (s.corrupt)
					detected++;
				if (s.n < 2 || strcmp(s.payload[0], payloads[0]) || strcmp(s.payload[s.n - 1], payloads[2]))
					lost_neighbours++;
				seen_free(&s);
				pwrite_all(reg.fd, &orig[byte], 1, at + byte);
			}
		is_int(wrong, 0, "no single-bit flip in a record is accepted (%d flips)", flips);
		is_int(detected, flips, "every flip is reported as damage");
		is_int(lost_neighbours, 0, "the records before and after a damaged one are still read");
		free(orig);
		close(reg.fd);
	}

	/* 4. filled to the last block */
	{
		char big[400];
		int n = 0, rc;
		memset(big, 'y', sizeof big - 3);
		big[0] = '"';
		big[sizeof big - 3] = '"';
		big[sizeof big - 2] = 0;
		reg = mkregion(64 * 1024 + 64 * 1024);	/* 64 KiB header area + 128 blocks */
		rs_writer_open(&w, &reg, boot_id, NULL, NULL, err, sizeof err);
		while ((rc = rs_append(&w, RS_EVENT, big, strlen(big), NULL)) == 0)
			n++;
		is_int(errno, ENOSPC, "a full partition reports ENOSPC");
		is_int(w.end, reg.size, "records fill it to the last block (%d records)", n);
		scan(&reg, &s, &res);
		is_int(s.n, n, "every record of a full partition reads back");
		is_int(res.end, reg.size, "scan end is the partition end");
		seen_free(&s);
		ok(rs_append(&w, RS_EVENT, "{}", 2, NULL) < 0, "later appends fail without writing");
		close(reg.fd);
	}

	/* 5. a new format over old records hides them; header damage is caught */
	{
		unsigned char blk[4096];
		struct rs_header h;
		reg = mkregion(1 << 20);
		rs_writer_open(&w, &reg, boot_id, NULL, NULL, err, sizeof err);
		for (int i = 0; i < 5; i++)
			rs_append(&w, RS_EVENT, payloads[3], strlen(payloads[3]), NULL);
		rs_format(&reg, NULL, NULL, 0, err, sizeof err);
		scan(&reg, &s, &res);
		is_int(s.n, 0, "records of an earlier format are not read after mkresults");
		seen_free(&s);
		rs_fd_read(&reg, blk, 4096, 0);
		blk[100] ^= 4;
		is_int(rs_header_decode(blk, 4096, &h, err, sizeof err), -1, "a damaged header is rejected");
		is_str(err, "results header checksum mismatch (damaged header)", "... with a clear message");
		close(reg.fd);
	}

	/* 6. stored plan */
	{
		const char *plan = "layout ramdisk\nworkload null\n";
		unsigned char blk[4096];
		struct rs_header h;
		char *back;
		reg = mkregion(1 << 20);
		rs_format(&reg, "quick", plan, strlen(plan), err, sizeof err);
		rs_fd_read(&reg, blk, 4096, 0);
		rs_header_decode(blk, 4096, &h, err, sizeof err);
		back = rs_read_plan(&reg, &h, err, sizeof err);
		ok(back && !strcmp(back, plan) && !strcmp(h.plan_name, "quick"), "stored plan reads back with its name");
		free(back);
		ok(!h.has_key, "a header made without --key has no upload key");
		{
			/* the upload key (mkresults --key, --set-key): set over
			 * records, it keeps them and the plan */
			unsigned char key[32];
			for (int i = 0; i < 32; i++)
				key[i] = (unsigned char)(255 - i);
			rs_writer_open(&w, &reg, boot_id, NULL, NULL, err, sizeof err);
			rs_append(&w, RS_EVENT, payloads[3], strlen(payloads[3]), NULL);
			snprintf(reg.desc, sizeof reg.desc, "test");
			ok(rs_set_key(&reg, key, err, sizeof err) == 0, "rs_set_key on a partition with a record");
			rs_fd_read(&reg, blk, 4096, 0);
			ok(rs_header_decode(blk, 4096, &h, err, sizeof err) == 0 && h.has_key && !memcmp(h.key, key, 32) &&
			   h.plan_len == strlen(plan) && !strcmp(h.plan_name, "quick"),
			   "... the header reads back with the key, the plan still there");
			scan(&reg, &s, &res);
			is_int(s.n, 1, "... and the record is still read");
			seen_free(&s);
			put32le(blk + 128, 16);
			put32le(blk + 12, 0);
			put32le(blk + 12, crc32c(0, blk, 4096));
			is_int(rs_header_decode(blk, 4096, &h, err, sizeof err), -1, "a key length other than 32 is refused");
		}
		close(reg.fd);
	}
	/* 7. a CRC-valid record header whose length (4 MiB) runs over 100
	 * valid records at the tail: they are read, and the next boot's writer
	 * does not take the span for a torn record and zero it */
	{
		static const char *rec = "{\"workload\":\"null\",\"status\":\"ok\"}";
		size_t flen = (4u << 20) - RS_REC_HDR, span;
		char *fake = xmalloc(flen);
		unsigned char *enc;
		uint64_t at, last;
		reg = mkregion(8 << 20);
		rs_writer_open(&w, &reg, boot_id, NULL, NULL, err, sizeof err);
		for (int i = 0; i < 3; i++)
			rs_append(&w, RS_RUN, rec, strlen(rec), NULL);
		at = w.end;
		rs_append(&w, RS_EVENT, payloads[3], strlen(payloads[3]), NULL);	/* its header forged below */
		for (int i = 0; i < 100; i++)
			rs_append(&w, RS_RUN, rec, strlen(rec), NULL);
		last = w.end;
		memset(fake, 'x', flen);
		span = rs_record_encode(&w.h, 9999, boot_id, RS_RUN, fake, flen, &enc);
		pwrite_all(reg.fd, enc, RS_REC_HDR, at);
		free(enc);
		free(fake);
		ok(at + span > last && at + span <= reg.size, "the forged header's span covers the 100 records");
		scan(&reg, &s, &res);
		ok(s.n == 103 && s.corrupt == 1 && res.torn == 0, "scan reads all 103 valid records, reports 1 damaged (%d, %d, torn %llu)",
		   s.n, s.corrupt, (unsigned long long)res.torn);
		seen_free(&s);
		ok(rs_writer_open(&w, &reg, boot_id, NULL, NULL, err, sizeof err) == 0 && w.end == last,
		   "the next boot's writer appends after the last of them");
		scan(&reg, &s, &res);
		is_int(s.n, 103, "... and zeroed none of them");
		seen_free(&s);
		close(reg.fd);
	}

	/* 7b. the same with a payload CRC that checks (forged over the inner
	 * records' bytes): a payload holding NULs is no JSON of ours */
	{
		static const char *rec = "{\"workload\":\"null\",\"status\":\"ok\"}";
		unsigned char *enc;
		char *body;
		uint64_t at, last;
		reg = mkregion(1 << 20);
		rs_writer_open(&w, &reg, boot_id, NULL, NULL, err, sizeof err);
		for (int i = 0; i < 3; i++)
			rs_append(&w, RS_RUN, rec, strlen(rec), NULL);
		at = w.end;
		rs_append(&w, RS_EVENT, payloads[3], strlen(payloads[3]), NULL);
		for (int i = 0; i < 10; i++)
			rs_append(&w, RS_RUN, rec, strlen(rec), NULL);
		last = w.end;
		body = xmalloc(last - at - RS_REC_HDR);
		pread_all(reg.fd, body, last - at - RS_REC_HDR, at + RS_REC_HDR);
		rs_record_encode(&w.h, 9999, boot_id, RS_RUN, body, last - at - RS_REC_HDR, &enc);
		pwrite_all(reg.fd, enc, RS_REC_HDR, at);
		free(enc);
		free(body);
		scan(&reg, &s, &res);
		ok(s.n == 13 && s.corrupt == 1, "a forged length with a payload CRC that checks hides nothing: 13 read, 1 damaged (%d, %d)",
		   s.n, s.corrupt);
		seen_free(&s);
		close(reg.fd);
	}

	/* 7c. every block a forged header claiming 4 MiB: the scan's reads stay
	 * bounded (the search inside spans has a budget), not a pass a block */
	{
		size_t flen = (4u << 20) - RS_REC_HDR;
		char *fake = xcalloc(1, flen);
		unsigned char *enc;
		struct counted cr;
		unsigned char blk[4096];
		struct rs_header h;
		reg = mkregion(8 << 20);
		rs_fd_read(&reg, blk, 4096, 0);
		rs_header_decode(blk, 4096, &h, err, sizeof err);
		rs_record_encode(&h, 1, boot_id, RS_RUN, fake, flen, &enc);
		for (uint64_t at = h.data_off; at + RS_REC_HDR <= h.size; at += h.block) {
			enc[60] = enc[61] = enc[62] = enc[63] = 0;
			memcpy(enc + 24, &at, 8);	/* each its own sequence number, the header CRC made right */
			{
				uint32_t c = crc32c(0, enc, 60);
				enc[60] = c, enc[61] = c >> 8, enc[62] = c >> 16, enc[63] = c >> 24;
			}
			pwrite_all(reg.fd, enc, RS_REC_HDR, at);
		}
		free(enc);
		free(fake);
		cr.reg = &reg;
		cr.bytes = 0;
		memset(&s, 0, sizeof s);
		rs_scan(counted_read, &cr, &h, &ops, &s, &res, err, sizeof err);
		ok(cr.bytes < (100ull << 20), "16,000 forged 4 MiB headers: the scan read %llu MiB (under 100; a pass a block would be 80 GiB)",
		   (unsigned long long)(cr.bytes >> 20));
		seen_free(&s);
		close(reg.fd);
	}

	/* 8. the GPT: the backup when the primary is damaged; two results
	 * partitions refused, naming both */
	{
		char path[] = "/tmp/bb-unit-gpt.XXXXXX";
		unsigned char gtype[16], hdr[512], *ent = xcalloc(128, 128);
		struct gpt_part part;
		uint64_t base;
		int fd = mkstemp(path);
		unlink(path);
		guid_parse(RESULTS_TYPE_GUID, gtype);
		if (fd < 0 || ftruncate(fd, 8 << 20) < 0 || gpt_write_disk(fd, 8 << 20, 512, gtype, RESULTS_PART_NAME, &part) < 0) {
			printf("Bail out! cannot make a GPT image\n");
			return 1;
		}
		is_int(rs_locate(fd, "img", &reg, err, sizeof err), 1, "a fresh GPT image: found");
		base = reg.base;
		pread_all(fd, hdr, 512, 512);
		hdr[20] ^= 1;	/* the primary header's CRC no longer checks */
		pwrite_all(fd, hdr, 512, 512);
		ok(rs_locate(fd, "img", &reg, err, sizeof err) == 1 && reg.backup && reg.base == base,
		   "a damaged primary GPT: found through the backup, at the same place, and said so");
		hdr[20] ^= 1;
		pwrite_all(fd, hdr, 512, 512);
		/* a second entry named bootbench-results, CRCs made right: both arrays */
		for (int copy = 0; copy < 2; copy++) {
			uint64_t hlba = copy ? (8 << 20) / 512 - 1 : 1, elba;
			pread_all(fd, hdr, 512, hlba * 512);
			elba = (uint64_t)hdr[72] | (uint64_t)hdr[73] << 8 | (uint64_t)hdr[74] << 16 | (uint64_t)hdr[75] << 24;
			pread_all(fd, ent, 128 * 128, elba * 512);
			memcpy(ent + 128, ent, 128);
			ent[128 + 16] ^= 0xff;	/* its own GUID */
			{
				uint32_t c = crc32_ieee(0, ent, 128 * 128);
				hdr[88] = c, hdr[89] = c >> 8, hdr[90] = c >> 16, hdr[91] = c >> 24;
				memset(hdr + 16, 0, 4);
				c = crc32_ieee(0, hdr, 92);
				hdr[16] = c, hdr[17] = c >> 8, hdr[18] = c >> 16, hdr[19] = c >> 24;
			}
			pwrite_all(fd, ent, 128 * 128, elba * 512);
			pwrite_all(fd, hdr, 512, hlba * 512);
		}
		is_int(rs_locate(fd, "img", &reg, err, sizeof err), -1, "two results partitions: refused");
		ok(strstr(err, "two results partitions, 1 (bootbench-results) and 2 (bootbench-results)") != NULL,
		   "... naming both (%s)", err);
		free(ent);
		close(fd);
	}
	return tap_done();
}
