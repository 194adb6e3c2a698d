/*
 * gpt.c - GPT parse/create (UEFI spec 2.x, chapter 5), little-endian on disk.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>
#include <unistd.h>

#include "gpt.h"
#include "hash.h"
#include "xio.h"

static uint32_t le32(const unsigned char *p) { return p[0] | p[1] << 8 | p[2] << 16 | (uint32_t)p[3] << 24; }
static uint64_t le64(const unsigned char *p) { return le32(p) | (uint64_t)le32(p + 4) << 32; }
static void put32(unsigned char *p, uint32_t v) { p[0] = v; p[1] = v >> 8; p[2] = v >> 16; p[3] = v >> 24; }
static void put64(unsigned char *p, uint64_t v) { put32(p, v); put32(p + 4, v >> 32); }

#define GPT_ENTRIES 128
#define GPT_ENTSZ 128

void random_bytes(void *buf, size_t n)
{
	unsigned char *p = buf;
	size_t got = 0;
	while (got < n) {
		ssize_t r = getrandom(p + got, n - got, GRND_NONBLOCK);
		if (r <= 0)
			break;
		got += r;
	}
	if (got < n) {
		/* early boot without entropy: uniqueness, not secrecy, is needed */
		struct timespec ts;
		uint64_t x;
		clock_gettime(CLOCK_REALTIME, &ts);
		x = ts.tv_sec * 1000000007ull ^ ts.tv_nsec ^ (uint64_t)getpid() << 32;
		for (; got < n; got++) {
			x ^= x << 13; x ^= x >> 7; x ^= x << 17;
			p[got] = x;
		}
	}
}

int guid_parse(const char *t, unsigned char g[16])
{
	unsigned v[16];
	if (strlen(t) != 36 ||
	    sscanf(t, "%2x%2x%2x%2x-%2x%2x-%2x%2x-%2x%2x-%2x%2x%2x%2x%2x%2x",
		   &v[0], &v[1], &v[2], &v[3], &v[4], &v[5], &v[6], &v[7], &v[8], &v[9],
		   &v[10], &v[11], &v[12], &v[13], &v[14], &v[15]) != 16)
		return -1;
	/* first three fields are stored little-endian */
	g[0] = v[3]; g[1] = v[2]; g[2] = v[1]; g[3] = v[0];
	g[4] = v[5]; g[5] = v[4];
	g[6] = v[7]; g[7] = v[6];
	for (int i = 8; i < 16; i++)
		g[i] = v[i];
	return 0;
}

void guid_format(const unsigned char g[16], char out[37])
{
	snprintf(out, 37, "%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x",
		 g[3], g[2], g[1], g[0], g[5], g[4], g[7], g[6], g[8], g[9], g[10], g[11], g[12],
		 g[13], g[14], g[15]);
}

int gpt_entries_loc(const unsigned char *hdr, size_t hdrlen, uint64_t *lba, size_t *len)
{
	uint32_t n, sz;
	if (hdrlen < 92 || memcmp(hdr, "EFI PART", 8))
		return -1;
	n = le32(hdr + 80);
	sz = le32(hdr + 84);
	if (sz < 128 || sz > 1024 || n == 0 || n > 1024)
		return -1;
	*lba = le64(hdr + 72);
	*len = (size_t)n * sz;
	return 0;
}

int gpt_parse(const unsigned char *hdr, size_t hdrlen, const unsigned char *ent,
	      size_t entlen, unsigned lbs, struct gpt_part *parts, int max,
	      char *err, size_t errlen)
{
	unsigned char h[512];
	uint32_t hsize, n, sz;
	int found = 0;
	(void)lbs;
	if (hdrlen < 92 || memcmp(hdr, "EFI PART", 8)) {
		snprintf(err, errlen, "no GPT signature");
		return -1;
	}
	hsize = le32(hdr + 12);
	if (hsize < 92 || hsize > hdrlen || hsize > sizeof h) {
		snprintf(err, errlen, "GPT header size %u out of range", hsize);
		return -1;
	}
	memcpy(h, hdr, hsize);
	put32(h + 16, 0);
	if (crc32_ieee(0, h, hsize) != le32(hdr + 16)) {
		snprintf(err, errlen, "GPT header CRC mismatch");
		return -1;
	}
	n = le32(hdr + 80);
	sz = le32(hdr + 84);
	if (sz < 128 || sz > 1024 || n == 0 || n > 1024 || (size_t)n * sz > entlen) {
		snprintf(err, errlen, "GPT entry array (%u x %u) out of range", n, sz);
		return -1;
	}
	if (crc32_ieee(0, ent, (size_t)n * sz) != le32(hdr + 88)) {
		snprintf(err, errlen, "GPT entry array CRC mismatch");
		return -1;
	}
	for (uint32_t i = 0; i < n && found < max; i++) {
		const unsigned char *e = ent + (size_t)i * sz;
		static const unsigned char zero[16];
		struct gpt_part *p = &parts[found];
		if (!memcmp(e, zero, 16))
			continue;
		p->index = i + 1;
		memcpy(p->type, e, 16);
		memcpy(p->guid, e + 16, 16);
		p->first_lba = le64(e + 32);
		p->last_lba = le64(e + 40);
		for (int k = 0; k < 36; k++) {
			unsigned c = e[56 + 2 * k] | e[57 + 2 * k] << 8;
			if (!c) {
				p->name[k] = 0;
				break;
			}
			p->name[k] = c < 0x80 && c >= 0x20 ? c : '?';
			p->name[k + 1] = 0;
		}
		if (p->last_lba < p->first_lba)
			continue;
		found++;
	}
	return found;
}

int gpt_write_disk(int fd, uint64_t bytes, unsigned lbs, const unsigned char type[16],
		   const char *name, struct gpt_part *part)
{
	uint64_t nlba = bytes / lbs, ent_lbas = (GPT_ENTRIES * GPT_ENTSZ + lbs - 1) / lbs;
	uint64_t first_usable = 2 + ent_lbas, last_usable = nlba - 2 - ent_lbas;
	uint64_t first = (1024 * 1024) / lbs;	/* 1 MiB aligned, as partitioners do */
	unsigned char *mbr = xcalloc(1, lbs), *hdr = xcalloc(1, lbs);
	unsigned char *ent = xcalloc(ent_lbas, lbs), dguid[16];
	int rc = -1;

	if (nlba < first + 64 || first < first_usable) {
		errno = ENOSPC;
		goto out;
	}
	/* protective MBR */
	mbr[446 + 4] = 0xee;
	mbr[446 + 1] = 0; mbr[446 + 2] = 2; mbr[446 + 3] = 0;
	mbr[446 + 5] = 0xff; mbr[446 + 6] = 0xff; mbr[446 + 7] = 0xff;
	put32(mbr + 446 + 8, 1);
	put32(mbr + 446 + 12, nlba - 1 > 0xffffffffu ? 0xffffffffu : nlba - 1);
	mbr[510] = 0x55;
	mbr[511] = 0xaa;

	memset(part, 0, sizeof *part);
	part->index = 1;
	part->first_lba = first;
	part->last_lba = last_usable;
	memcpy(part->type, type, 16);
	random_bytes(part->guid, 16);
	part->guid[7] = (part->guid[7] & 0x0f) | 0x40;	/* v4, byte-swapped field */
	part->guid[8] = (part->guid[8] & 0x3f) | 0x80;
	snprintf(part->name, sizeof part->name, "%s", name);
	memcpy(ent, type, 16);
	memcpy(ent + 16, part->guid, 16);
	put64(ent + 32, first);
	put64(ent + 40, last_usable);
	for (size_t k = 0; k < 36 && name[k]; k++)
		ent[56 + 2 * k] = name[k];

	random_bytes(dguid, 16);
	dguid[7] = (dguid[7] & 0x0f) | 0x40;
	dguid[8] = (dguid[8] & 0x3f) | 0x80;
	for (int backup = 0; backup < 2; backup++) {
		uint64_t my = backup ? nlba - 1 : 1, alt = backup ? 1 : nlba - 1;
		uint64_t entlba = backup ? nlba - 1 - ent_lbas : 2;
		memset(hdr, 0, lbs);
		memcpy(hdr, "EFI PART", 8);
		put32(hdr + 8, 0x00010000);
		put32(hdr + 12, 92);
		put64(hdr + 24, my);
		put64(hdr + 32, alt);
		put64(hdr + 40, first_usable);
		put64(hdr + 48, last_usable);
		memcpy(hdr + 56, dguid, 16);
		put64(hdr + 72, entlba);
		put32(hdr + 80, GPT_ENTRIES);
		put32(hdr + 84, GPT_ENTSZ);
		put32(hdr + 88, crc32_ieee(0, ent, GPT_ENTRIES * GPT_ENTSZ));
		put32(hdr + 16, crc32_ieee(0, hdr, 92));
		if (pwrite_all(fd, ent, ent_lbas * lbs, entlba * lbs) < 0 ||
		    pwrite_all(fd, hdr, lbs, my * lbs) < 0)
			goto out;
	}
	if (pwrite_all(fd, mbr, lbs, 0) < 0)
		goto out;
	rc = 0;
out:
	free(mbr);
	free(hdr);
	free(ent);
	return rc;
}

/* Read and check the GPT header at `lba` and its entry array: the used
 * entries into parts (up to max), their count, -1 not a valid GPT there,
 * -2 a failed read. */
static int gpt_read_at(int fd, unsigned lbs, uint64_t lba, struct gpt_part *parts, int max)
{
	unsigned char *hdr = xmalloc(lbs), *ent = NULL;
	uint64_t elba;
	size_t elen;
	char err[128];
	ssize_t got;
	int n = -1;

	/* a short device is simply not ours; only a failed read is an error
	 * (errno as a caller left it means nothing here) */
	got = pread_all(fd, hdr, lbs, lba * lbs);
	if (got != (ssize_t)lbs) {
		n = got < 0 ? -2 : -1;
		goto out;
	}
	if (gpt_entries_loc(hdr, lbs, &elba, &elen) || elba > UINT64_MAX / lbs)
		goto out;
	ent = xmalloc(elen);
	got = pread_all(fd, ent, elen, elba * lbs);
	if (got != (ssize_t)elen) {
		n = got < 0 ? -2 : -1;
		goto out;
	}
	n = gpt_parse(hdr, lbs, ent, elen, lbs, parts, max, err, sizeof err);
out:
	free(hdr);
	free(ent);
	return n;
}

int gpt_find(int fd, unsigned lbs, uint64_t bytes, const char *name, const unsigned char *type,
	     struct gpt_part *out, struct gpt_part *second, int *backup)
{
	struct gpt_part *parts = xcalloc(GPT_MAX_PARTS, sizeof *parts);	/* 16 KiB: not on the stack */
	unsigned char mbr[512];
	int n, found = 0;

	*backup = 0;
	n = gpt_read_at(fd, lbs, 1, parts, GPT_MAX_PARTS);
	if (n == -2)
		goto fail;
	if (n < 0) {
		/* The primary header or its entries do not check: the backup at
		 * the last block, on a disk whose protective MBR says it is GPT
		 * (a bare results partition has zeros there, never 0x55 0xaa). */
		ssize_t got = pread_all(fd, mbr, sizeof mbr, 0);
		if (got < 0)
			goto fail;
		if (got != (ssize_t)sizeof mbr || mbr[510] != 0x55 || mbr[511] != 0xaa || mbr[446 + 4] != 0xee ||
		    bytes / lbs < 3)
			goto none;
		n = gpt_read_at(fd, lbs, bytes / lbs - 1, parts, GPT_MAX_PARTS);
		if (n == -2)
			goto fail;
		if (n < 0)
			goto none;
		*backup = 1;
	}
	for (int i = 0; i < n && found < 2; i++)
		if ((name && !strcmp(parts[i].name, name)) || (type && !memcmp(parts[i].type, type, 16)))
			*(found++ ? second : out) = parts[i];
	free(parts);
	return found;
none:
	free(parts);
	return 0;
fail:
	free(parts);
	return -1;
}
