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
/* Store (if possible) and mirror. Returns 0 stored, 1 console only, -1 on a
 * write error (the console still got it). */
int rec_emit(struct recorder *r, uint32_t type, const char *payload);

#endif
