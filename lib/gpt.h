/*
 * gpt.h - just enough GPT to create a results disk and find our partition.
 *
 * Parsing is pure (buffers in, struct out); gpt_write_disk() writes a whole
 * protective MBR + primary + backup GPT with one partition.
 */
#ifndef BB_GPT_H
#define BB_GPT_H

#include <stddef.h>
#include <stdint.h>

struct gpt_part {
	unsigned index;		/* 1-based partition number */
	uint64_t first_lba, last_lba;
	unsigned char type[16], guid[16];
	char name[73];		/* UTF-16LE name folded to ASCII */
};

/* Parse a primary GPT header (one logical block) and its entry array.
 * Returns the number of used entries stored in parts (up to max), or -1 with
 * a reason when the header is not a valid GPT (bad signature, CRC, sizes). */
int gpt_parse(const unsigned char *hdr, size_t hdrlen, const unsigned char *entries,
	      size_t entlen, unsigned lbs, struct gpt_part *parts, int max,
	      char *err, size_t errlen);
/* Where the entry array of the header lies, and how long it is (bytes). */
int gpt_entries_loc(const unsigned char *hdr, size_t hdrlen, uint64_t *lba, size_t *len);

int guid_parse(const char *text, unsigned char out[16]);
void guid_format(const unsigned char g[16], char out[37]);

/* Write a GPT with one partition [first_lba, last usable] of the given type
 * and name over a device or image of `bytes` bytes and logical block lbs.
 * Fills *part. Returns 0 or -1 (errno). */
int gpt_write_disk(int fd, uint64_t bytes, unsigned lbs, const unsigned char type[16],
		   const char *name, struct gpt_part *part);

/* Find the partition named name (or of type `type`, if non-NULL) on an
 * open disk of `bytes` bytes: from the primary GPT, or from the backup at
 * the last block when the primary does not check and the protective MBR is
 * there (*backup set). Returns 1 found (*out), 2 two such partitions (*out
 * and *second: the caller must refuse, never pick one), 0 not a GPT disk
 * or no such partition, -1 I/O error. */
#define GPT_MAX_PARTS 128
int gpt_find(int fd, unsigned lbs, uint64_t bytes, const char *name, const unsigned char *type,
	     struct gpt_part *out, struct gpt_part *second, int *backup);

void random_bytes(void *buf, size_t n);

#endif
