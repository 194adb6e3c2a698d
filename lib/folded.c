/*
 * folded.c - folded call stacks (see folded.h): perf script's samples
 * into a bounded table of "comm;outer;...;leaf" lines, and the checks a
 * folded line from outside must pass.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "folded.h"
#include "sbuf.h"
#include "xio.h"

static uint64_t fnv(const char *s, size_t n)
{
	uint64_t h = 1469598103934665603ULL;
	for (size_t i = 0; i < n; i++)
		h = (h ^ (unsigned char)s[i]) * 1099511628211ULL;
	return h;
}

static void grow(struct folded *f)
{
	size_t ncap = f->cap ? f->cap * 2 : 1024;
	struct folded_stack *ns = xcalloc(ncap, sizeof *ns);
	for (size_t i = 0; i < f->cap; i++) {
		size_t j;
		if (!f->s[i].stack)
			continue;
		j = fnv(f->s[i].stack, strlen(f->s[i].stack)) & (ncap - 1);
		while (ns[j].stack)
			j = (j + 1) & (ncap - 1);
		ns[j] = f->s[i];
	}
	free(f->s);
	f->s = ns;
	f->cap = ncap;
}

void folded_add(struct folded *f, const char *stack, size_t len, unsigned long long n)
{
	size_t j;
	if (f->sorted || !len)
		return;
	f->samples += n;
	if (f->n * 2 >= f->cap) {
		if (f->n >= FOLDED_MAX_DISTINCT) {
			/* a table of its own size, known: the rest is counted */
			for (j = fnv(stack, len) & (f->cap - 1); f->s[j].stack; j = (j + 1) & (f->cap - 1))
				if (strlen(f->s[j].stack) == len && !memcmp(f->s[j].stack, stack, len)) {
					f->s[j].samples += n;
					return;
				}
			f->other += n;
			return;
		}
		grow(f);
	}
	for (j = fnv(stack, len) & (f->cap - 1); f->s[j].stack; j = (j + 1) & (f->cap - 1))
		if (strlen(f->s[j].stack) == len && !memcmp(f->s[j].stack, stack, len)) {
			f->s[j].samples += n;
			return;
		}
	f->s[j].stack = xstrndup(stack, len);
	f->s[j].samples = n;
	f->n++;
}

static int hexval(const char *s, size_t n, unsigned long long *v)
{
	unsigned long long x = 0;
	if (!n || n > 16)
		return -1;
	for (size_t i = 0; i < n; i++) {
		char c = s[i];
		int d = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 :
			c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
		if (d < 0)
			return -1;
		x = x << 4 | (unsigned)d;
	}
	*v = x;
	return 0;
}

/* One frame's name, safe to put in a folded line: no ';', no control
 * byte, bounded. */
static void put_frame(struct sbuf *sb, const char *name)
{
	size_t n = 0;
	for (const char *p = name; *p && n < FOLDED_MAX_FRAME; p++, n++) {
		unsigned char c = (unsigned char)*p;
		sb_putc(sb, c < 0x20 || c == 0x7f || c == ';' ? '_' : (char)c);
	}
	if (!n)
		sb_putc(sb, '?');
}

/* The sample gathered: comm, then frames leaf first. */
static void flush(struct folded *f, const char *comm, size_t commlen, const char **frames, size_t nf, int truncated,
		  int kernel_leaf)
{
	struct sbuf sb = {0};
	char c[FOLDED_MAX_FRAME + 1];
	if (!commlen && !nf)
		return;
	snprintf(c, sizeof c, "%.*s", (int)(commlen < FOLDED_MAX_FRAME ? commlen : FOLDED_MAX_FRAME), comm);
	put_frame(&sb, c);
	if (truncated) {
		sb_puts(&sb, ";[deeper]");
		f->truncated++;
	}
	for (size_t i = nf; i-- > 0;) {
		if (sb.len + FOLDED_MAX_FRAME + 2 > FOLDED_MAX_STACK)
			break;
		sb_putc(&sb, ';');
		put_frame(&sb, frames[i]);
	}
	folded_add(f, sb.s, sb.len, 1);
	if (kernel_leaf)
		f->kernel++;
	sb_free(&sb);
}

int folded_from_perf_script(const char *buf, size_t len, folded_resolve_fn fn, void *ctx, struct folded *f,
			    char *err, size_t errlen)
{
	const char *frames[FOLDED_MAX_DEPTH];
	const char *comm = NULL;
	size_t commlen = 0, nf = 0, i = 0;
	int in_sample = 0, truncated = 0, kernel_leaf = 0, leaf_seen = 0;
	(void)err;
	(void)errlen;
	while (i < len) {
		const char *l = buf + i, *e = memchr(l, '\n', len - i);
		size_t ll = e ? (size_t)(e - l) : len - i;
		i += ll + 1;
		if (!ll) {	/* a sample ends */
			if (in_sample)
				flush(f, comm, commlen, frames, nf, truncated, kernel_leaf);
			in_sample = 0;
			continue;
		}
		if (l[0] != '\t' && l[0] != ' ') {
			/* "COMM " opens a sample: a missing blank line before is tolerated */
			if (in_sample)
				flush(f, comm, commlen, frames, nf, truncated, kernel_leaf);
			comm = l;
			commlen = ll;
			while (commlen && (comm[commlen - 1] == ' ' || comm[commlen - 1] == '\t' || comm[commlen - 1] == '\r'))
				commlen--;
			nf = 0;
			in_sample = 1;
			truncated = kernel_leaf = leaf_seen = 0;
			continue;
		}
		{
			const char *p = l, *end = l + ll, *name;
			unsigned long long addr;
			while (p < end && (*p == '\t' || *p == ' '))
				p++;
			if (!in_sample || hexval(p, (size_t)(end - p), &addr) < 0) {
				f->bad++;
				continue;
			}
			if (addr >= 0xffff800000000000ULL) {
				name = fn ? fn(ctx, addr) : NULL;
				if (!name)
					name = "[kernel.module]";
				if (!leaf_seen)
					kernel_leaf = 1;
			} else {
				name = "[user]";
				/* user frames carry no symbols here: one frame for all */
				if (nf && !strcmp(frames[nf - 1], "[user]"))
					continue;
			}
			leaf_seen = 1;
			if (nf < FOLDED_MAX_DEPTH)
				frames[nf++] = name;
			else
				truncated = 1;
		}
	}
	if (in_sample)
		flush(f, comm, commlen, frames, nf, truncated, kernel_leaf);
	return 0;
}

static int by_weight(const void *a, const void *b)
{
	const struct folded_stack *x = a, *y = b;
	if (!x->stack || !y->stack)
		return !x->stack - !y->stack;
	if (x->samples != y->samples)
		return x->samples < y->samples ? 1 : -1;
	return strcmp(x->stack, y->stack);
}

void folded_sort(struct folded *f)
{
	if (f->sorted)
		return;
	if (f->cap)
		qsort(f->s, f->cap, sizeof *f->s, by_weight);
	f->sorted = 1;
}

void folded_json(struct jw *w, struct folded *f, size_t keep)
{
	unsigned long long rest = f->other;
	folded_sort(f);
	jw_int(w, "samples", (long long)f->samples);
	jw_int(w, "kernel_samples", (long long)f->kernel);
	jw_arr(w, "stacks");
	for (size_t i = 0; i < f->n; i++) {
		if (i >= keep) {
			rest += f->s[i].samples;
			continue;
		}
		jw_obj(w, NULL);
		jw_str(w, "stack", f->s[i].stack);
		jw_int(w, "samples", (long long)f->s[i].samples);
		jw_obj_end(w);
	}
	jw_arr_end(w);
	jw_int(w, "other_samples", (long long)rest);
	if (f->truncated)
		jw_int(w, "truncated_stacks", (long long)f->truncated);
}

void folded_free(struct folded *f)
{
	for (size_t i = 0; i < f->cap; i++)
		free(f->s[i].stack);
	free(f->s);
	memset(f, 0, sizeof *f);
}

int folded_split(char *buf, const char **frames, size_t max)
{
	size_t n = 0, len = strlen(buf);
	char *p = buf;
	if (!len || len > FOLDED_MAX_STACK)
		return -1;
	for (size_t i = 0; i < len; i++) {
		unsigned char c = (unsigned char)buf[i];
		if (c < 0x20 || c == 0x7f)
			return -1;
	}
	for (;;) {
		char *semi = strchr(p, ';');
		size_t fl = semi ? (size_t)(semi - p) : strlen(p);
		if (!fl || fl > FOLDED_MAX_FRAME || n == max)
			return -1;
		frames[n++] = p;
		if (!semi)
			break;
		*semi = 0;
		p = semi + 1;
	}
	return (int)n;
}
