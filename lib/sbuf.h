/*
 * sbuf.h - a growable byte string: JSON text, CSV rows, console lines.
 */
#ifndef BB_SBUF_H
#define BB_SBUF_H

#include <stddef.h>

struct sbuf {
	char *s;	/* always NUL-terminated once anything was added */
	size_t len, cap;
};

void sb_add(struct sbuf *sb, const void *p, size_t n);
void sb_puts(struct sbuf *sb, const char *s);
void sb_putc(struct sbuf *sb, char c);
void sb_printf(struct sbuf *sb, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void sb_reset(struct sbuf *sb);
void sb_free(struct sbuf *sb);
/* Hand the string over to the caller; the sbuf is empty afterwards. */
char *sb_steal(struct sbuf *sb);

#endif
