/*
 * recsource.h - every record of a source, whatever the source: a disk image or
 * block device with our GPT partition, a bare results partition, a console
 * log (BOOTBENCH lines among kernel messages), or the JSON lines `bootbench
 * collect` printed. collect prints them; compare and report analyse them.
 */
#ifndef BB_RECSOURCE_H
#define BB_RECSOURCE_H

#include <stddef.h>

/* line: one canonical record line (JSON text, len bytes); where: "line 12"
 * or "offset 65536 (seq 3)", for messages about it. */
typedef void (*record_line_fn)(void *ctx, const char *line, size_t len, const char *where);

/* Damage is reported on stderr with its offset or line number, and skipped.
 * Returns 0 when the source was read, 1 when it holds no results partition
 * and no record lines, or cannot be read. quiet: no summary line. lost (may
 * be NULL) grows by what this source lost: damaged records, a partition
 * tail that is not free space, a truncated image, over-long lines (lines
 * the callback refuses are the caller's to count). */
int source_read(const char *path, record_line_fn fn, void *ctx, int quiet, unsigned long long *lost);

/* The bounded line reader under every reader of JSON lines: calls fn for
 * each line of fd, without its newline (the last line too, unterminated),
 * numbered from 1. A line longer than max is never held whole: fn gets it
 * once with line NULL and len 0. Memory: max plus 1 MiB, whatever the file.
 * Returns 0 at end of file, -1 on a read error (errno set). */
typedef void (*text_line_fn)(void *ctx, char *line, size_t len, unsigned long lineno);
int lines_read(int fd, size_t max, text_line_fn fn, void *ctx);

#endif
