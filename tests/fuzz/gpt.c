/*
 * gpt.c - libFuzzer target for the GPT reader (lib/gpt.c): every disk the
 * appliance and the host tools look at is read through it, and a disk's
 * first sectors are anyone's bytes. The input is a header block followed by
 * an entry array, at 512- or 4096-byte blocks (first byte); gpt_entries_loc
 * and gpt_parse must not read out of bounds, and every partition they
 * report must end after it starts (gpt_parse drops the others) and have a
 * name that is a NUL-terminated string. The disk-size checks are the
 * callers' (rs_locate: a partition past the end is a truncated image).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "gpt.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct gpt_part parts[16];
	unsigned lbs;
	uint64_t lba;
	size_t len;
	char err[256];
	int n;
	if (size < 1)
		return 0;
	lbs = data[0] & 1 ? 4096 : 512;
	data++;
	size--;
	if (size < lbs)
		return 0;
	if (gpt_entries_loc(data, lbs, &lba, &len) < 0)
		return 0;
	/* the entries follow the header block in the input, as much as is there */
	n = gpt_parse(data, lbs, data + lbs, size - lbs < len ? size - lbs : len, lbs, parts, 16, err, sizeof err);
	for (int i = 0; i < n && i < 16; i++) {
		if (parts[i].first_lba > parts[i].last_lba)
			abort();
		if (!memchr(parts[i].name, 0, sizeof parts[i].name))
			abort();
	}
	return 0;
}
