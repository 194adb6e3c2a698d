/*
 * sbuf.c - growable string; allocation failure is fatal (xrealloc).
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sbuf.h"
#include "xio.h"

static void grow(struct sbuf *sb, size_t extra)
{
	size_t need = sb->len + extra + 1;
	if (need <= sb->cap)
		return;
	if (sb->cap == 0)
		sb->cap = 256;
	while (sb->cap < need)
		sb->cap *= 2;
	sb->s = xrealloc(sb->s, sb->cap);
}

void sb_add(struct sbuf *sb, const void *p, size_t n)
{
	grow(sb, n);
	memcpy(sb->s + sb->len, p, n);
	sb->len += n;
	sb->s[sb->len] = 0;
}

void sb_puts(struct sbuf *sb, const char *s)
{
	sb_add(sb, s, strlen(s));
}

void sb_putc(struct sbuf *sb, char c)
{
	sb_add(sb, &c, 1);
}

void sb_printf(struct sbuf *sb, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	grow(sb, n);
	va_start(ap, fmt);
	vsnprintf(sb->s + sb->len, n + 1, fmt, ap);
	va_end(ap);
	sb->len += n;
}

void sb_reset(struct sbuf *sb)
{
	sb->len = 0;
	if (sb->s)
		sb->s[0] = 0;
}

void sb_free(struct sbuf *sb)
{
	free(sb->s);
	sb->s = NULL;
	sb->len = sb->cap = 0;
}

char *sb_steal(struct sbuf *sb)
{
	char *s = sb->s ? sb->s : xstrdup("");
	sb->s = NULL;
	sb->len = sb->cap = 0;
	return s;
}
