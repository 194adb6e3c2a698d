/*
 * xio.h - I/O that never truncates silently (after skalibs allreadwrite) and
 * x-wrappers for calls that must succeed (after toybox lib/xwrap.c).
 */
#ifndef BB_XIO_H
#define BB_XIO_H

#include <stddef.h>
#include <stdio.h>
#include <sys/types.h>

/* Full-length loops retrying EINTR and short transfers. -1 on error. */
ssize_t read_all(int fd, void *buf, size_t len);	/* < len only at EOF */
ssize_t write_all(int fd, const void *buf, size_t len);
ssize_t pread_all(int fd, void *buf, size_t len, off_t off);
ssize_t pwrite_all(int fd, const void *buf, size_t len, off_t off);

/* Read a whole (small, /proc-style) file into a NUL-terminated malloc'd
 * buffer; NULL with errno set on failure. *lenp gets the length if non-NULL. */
char *read_file(const char *path, size_t *lenp);
/* Empty the kernel's page cache (and dentries and inodes): sync, then 3 to
 * /proc/sys/vm/drop_caches, as the seeds' authors did by hand. 0, or -1
 * with errno (not root, a container, no /proc). */
int drop_page_cache(void);
/* Open path (flags as open(2), O_CLOEXEC added) only if it is a regular
 * file: a FIFO, device or socket put where a file belongs (by a careless
 * admin, or a hostile one) is refused at once, never waited on (the open is
 * O_NONBLOCK, cleared again once it is known to be a file). -1 with errno:
 * EISDIR a directory, EINVAL any other kind, or open's or fstat's own. */
int open_regular(const char *path, int flags, mode_t mode);
/* read_file of a regular file only (open_regular). */
char *read_regular(const char *path, size_t *lenp);
/* Read up to max bytes of a whole stream. */
char *read_fd(int fd, size_t max, size_t *lenp);
/* Read one sysfs-style attribute, trailing whitespace removed; NULL if absent. */
char *read_attr(const char *path);
int write_file(const char *path, const char *text);
/* Create or replace path with len bytes of buf, whole or not at all: a
 * temporary file beside it, synced, renamed over it. Only a regular file
 * (or none) is ever replaced: a symlink's target is, the link stays; a
 * character device or FIFO (/dev/null, /dev/stdout, a pipe) is written
 * through; a directory, socket or block device is refused (EISDIR,
 * EINVAL). -1 with errno set. */
int write_file_whole(const char *path, const void *buf, size_t len);

void *xmalloc(size_t n);
void *xcalloc(size_t n, size_t m);
void *xrealloc(void *p, size_t n);
char *xstrdup(const char *s);
char *xstrndup(const char *s, size_t n);
/* Is v one of the '|'-separated words of choices ("wait|skip")? */
int in_choices(const char *v, const char *choices);
/* s is 1..max characters, each an ASCII letter, a digit or one of extra */
int name_ok(const char *s, size_t max, const char *extra);
/* n bytes of zeroed anonymous memory that a fork leaves behind
 * (MADV_DONTFORK), reserved and touched only as used; NULL on failure.
 * For what PID 1 holds while a workload runs: the workload is forked from
 * PID 1 and would inherit its heap, and copy those page tables again on
 * each of its own forks. Free with munmap(p, n). */
void *map_nofork(size_t n);
/* What a terminal would act on, in s, in place, as '?' (one a byte): C0
 * controls and DEL, the C1 controls in UTF-8 (C2 80..9F: U+009B is an
 * escape-sequence introducer), and the bidirectional overrides and isolates
 * (U+202A..202E, U+2066..2069), which reorder what a reader sees. */
void text_clean(char *s);
/* s as one CSV field (RFC 4180 quoting), text_clean'd. */
void csv_field(FILE *o, const char *s);
/* asprintf that dies on failure. */
char *xasprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif
