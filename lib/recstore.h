/*
 * recstore.h - a target's record store on the boot server: an append-only
 * JSON-lines file (targets/MAC/records.jsonl) that uploads add to, each
 * record once.
 *
 * The file is never read whole and never cut shorter than it was before an
 * append. The keys of its lines (the first 8 bytes of a salted sha256 of
 * the canonical text) are read once, streaming, when the store is opened,
 * and kept: an upload costs O(its records), not O(the file). A failed
 * append is cut back to the size the file had before it, which removes
 * only what that upload added. Two limits: a byte quota for the file (an
 * upload past it is refused whole) and a number of records per boot
 * (records past it are not stored, the rest of the upload is).
 *
 * The bytes of an upload are hostile: each line is parsed (json_parse,
 * bounded) and stored as its canonical text only if it is one JSON object
 * with "type", "data" and "boot_id"; anything else is counted as damaged.
 * cmd/pxe.c serves it; tests/fuzz/recstore.c fuzzes it.
 */
#ifndef BB_RECSTORE_H
#define BB_RECSTORE_H

#include <stddef.h>

#include "strmap.h"

/* Boots counted per store: years of boots. Past it, records of a boot new
 * to the store are stored uncounted (the byte quota still holds): a key
 * holder who sends a fresh boot_id on every record can neither make the
 * store keep more nor lock real boots out. */
#define RECSTORE_MAX_BOOT_IDS 65536

struct recstore {
	char *path;
	unsigned char salt[16];		/* the keys' secret: a run's, never stored */
	struct u64set seen;		/* line key of every line */
	unsigned long long lines;	/* records in the file */
	unsigned long long toolong;	/* of them, lines longer than RECORD_LINE_MAX */
	struct u64map boots;		/* records stored per boot (boot key) */
	unsigned long long uncounted;	/* records of boots past RECSTORE_MAX_BOOT_IDS */
	unsigned long long max_boot_ids;	/* RECSTORE_MAX_BOOT_IDS (tests lower it) */
};

struct recstore_limits {
	unsigned long long quota;	/* bytes the file may reach */
	unsigned long long per_boot;	/* records one boot may store */
};

enum recstore_status {
	RECSTORE_STORED,	/* what was new is in the file (maybe nothing) */
	RECSTORE_QUOTA,		/* refused whole: the file would pass the quota */
	RECSTORE_FAILED,	/* unable to open or write the file: errno */
};

/* What one upload did. */
struct recstore_upload {
	size_t fresh;		/* stored */
	size_t dup;		/* already in the file (or twice in the upload) */
	size_t bad;		/* not records */
	size_t over;		/* over the per-boot limit: not stored, not marked seen */
	size_t uncounted;	/* stored, of boots past max_boot_ids */
	char over_id[65];	/* the boot of the first over the limit (printable) */
	size_t add_bytes;	/* the bytes this upload would add */
	unsigned long long file_bytes;	/* the file's size before it */
};

/* Called for each damaged line: its number in the upload and why. */
typedef void (*recstore_damaged_fn)(void *ctx, size_t lineno, const char *why);

/* Opens the store at path, indexing what the file holds (a missing file is
 * an empty store): 0, or -1 with errno (EINVAL: not a regular file, say a
 * FIFO, which is never waited on: open_regular). salt: 16 bytes. */
int recstore_open(struct recstore *rs, const char *path, const unsigned char salt[16]);
void recstore_close(struct recstore *rs);

/* Adds the records of an upload (JSON lines, "\r\n" allowed, empty lines
 * skipped) that the store does not hold, within the limits; fills *u. */
enum recstore_status recstore_append(struct recstore *rs, const struct recstore_limits *lim, const char *body,
				     size_t len, struct recstore_upload *u, recstore_damaged_fn damaged,
				     void *ctx);

/* The canonical text of a record line (the uploader's key order kept), or
 * NULL with err set if it is not a bootbench record. Caller frees. */
char *recstore_canonical(const char *line, size_t len, char *err, size_t errlen);

#endif
