/*
 * record.h - emitting records: durable in the results partition when there
 * is one, and always mirrored on the console as one line
 *
 *   BOOTBENCH {"seq":3,"boot_id":"...","type":"run","data":{...}}
 *
 * The line (without the prefix) is exactly what `bootbench collect` prints
 * for the stored record, so a console log and a partition collect alike.
 */
#ifndef BB_RECORD_H
#define BB_RECORD_H

#include <stdint.h>
#include <stdio.h>

#include "results.h"
#include "sbuf.h"

#define CONSOLE_PREFIX "BOOTBENCH "

struct recorder {
	struct rs_writer w;
	int stored;		/* a results partition is open for writing */
	unsigned char boot_id[16];
	FILE *console;
	struct sbuf *keep;	/* if set, every record line (no prefix) is appended */
};

/* The canonical JSON line of a record; seq 0 means "not stored" (null). */
void rec_line(struct sbuf *sb, uint64_t seq, const unsigned char boot_id[16], uint32_t type,
	      const char *payload, size_t len);
/* A record's payload cut down to fit: the members of a JSON object whose
 * text is at most REC_TRUNC_MEMBER_MAX bytes, up to budget bytes in all, and
 *   "truncated":{"original_bytes":N,"kept":[names],"dropped":[names]}
 * (plus "head", the payload's first bytes as a string, when it is not an
 * object). Always valid JSON. */
#define REC_TRUNC_MEMBER_MAX (64 * 1024)
#define REC_TRUNC_BUDGET (256 * 1024)
void rec_truncate(struct sbuf *out, const char *payload, size_t len, size_t budget);
/* Store (if possible) and mirror. A record too big for the partition (EFBIG)
 * is stored truncated (rec_truncate) and storing goes on. Returns 0 stored, 1 console only, -1 on a
 * write error (the console still got it). */
int rec_emit(struct recorder *r, uint32_t type, const char *payload);

#endif
