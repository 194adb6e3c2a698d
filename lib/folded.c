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
#include "offcpu.h"
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
	folded_add_w(f, stack, len, n, n);
}

void folded_add_w(struct folded *f, const char *stack, size_t len, unsigned long long n, unsigned long long ev)
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
					f->s[j].events += ev;
					return;
				}
			f->other += n;
			f->other_events += ev;
			return;
		}
		grow(f);
	}
	for (j = fnv(stack, len) & (f->cap - 1); f->s[j].stack; j = (j + 1) & (f->cap - 1))
		if (strlen(f->s[j].stack) == len && !memcmp(f->s[j].stack, stack, len)) {
			f->s[j].samples += n;
			f->s[j].events += ev;
			return;
		}
	f->s[j].stack = xstrndup(stack, len);
	f->s[j].samples = n;
	f->s[j].events = ev;
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

/* A sample's header or a switch record, parsed. */
struct hdr {
	const char *comm;
	size_t commlen;
	long pid, tid;			/* -1: not given (-F comm,ip) */
	unsigned long long t;		/* µs */
	const char *ev;			/* the event's name, NULL when not given */
	size_t evlen;
	int bad;			/* "...: EVENT:" whose pid/tid or time did not read */
};

enum { EV_ON, EV_OFF, EV_OTHER };

static int ev_kind(const struct hdr *h)
{
	if (!h->ev)
		return EV_ON;
	if (h->evlen >= 9 && !memcmp(h->ev, "cpu-clock", 9))
		return EV_ON;
	if ((h->evlen >= 2 && !memcmp(h->ev, "cs", 2) && (h->evlen == 2 || h->ev[2] == '/' || h->ev[2] == ':')) ||
	    (h->evlen >= 16 && !memcmp(h->ev, "context-switches", 16)))
		return EV_OFF;
	return EV_OTHER;
}

static int is_digits(const char *s, size_t n)
{
	if (!n || n > 18)
		return 0;
	for (size_t i = 0; i < n; i++)
		if (s[i] < '0' || s[i] > '9')
			return 0;
	return 1;
}

static unsigned long long digits(const char *s, size_t n)
{
	unsigned long long v = 0;
	for (size_t i = 0; i < n; i++)
		v = v * 10 + (unsigned)(s[i] - '0');
	return v;
}

/* "COMM PID/TID SEC.FRAC" (l, n: up to the ':' after the time) into h:
 * read from the right, since a comm may hold anything. 0, or -1. */
static int parse_ids(const char *l, size_t n, struct hdr *h)
{
	size_t e = n, b, slash;
	while (e && l[e - 1] == ' ')
		e--;
	b = e;
	while (b && l[b - 1] != ' ')
		b--;
	{	/* the time: SEC.FRAC, the fraction to microseconds */
		const char *dot = memchr(l + b, '.', e - b);
		size_t fl;
		unsigned long long frac;
		if (!dot || !is_digits(l + b, (size_t)(dot - (l + b))))
			return -1;
		fl = (size_t)(l + e - dot - 1);
		if (!is_digits(dot + 1, fl) || fl > 9)
			return -1;
		frac = digits(dot + 1, fl);
		for (size_t i = fl; i < 6; i++)
			frac *= 10;
		for (size_t i = 6; i < fl; i++)
			frac /= 10;
		if (digits(l + b, (size_t)(dot - (l + b))) > 1000000000ULL)
			return -1;	/* past 30 years of uptime: not a time */
		h->t = digits(l + b, (size_t)(dot - (l + b))) * 1000000ULL + frac;
	}
	e = b;
	while (e && l[e - 1] == ' ')
		e--;
	b = e;
	while (b && l[b - 1] != ' ')
		b--;
	{	/* PID/TID */
		const char *sl = memchr(l + b, '/', e - b);
		if (!sl)
			return -1;
		slash = (size_t)(sl - l);
		if (!is_digits(l + b, slash - b) || !is_digits(sl + 1, e - slash - 1) || slash - b > 9 || e - slash - 1 > 9)
			return -1;
		h->pid = (long)digits(l + b, slash - b);
		h->tid = (long)digits(sl + 1, e - slash - 1);
	}
	while (b && l[b - 1] == ' ')
		b--;
	h->comm = l;
	h->commlen = b;
	while (h->commlen && l[0] == ' ') {	/* switch records pad the comm */
		l++;
		h->comm = l;
		h->commlen--;
	}
	return 0;
}

#define RECORD_MARK ": PERF_RECORD_"

enum { REC_SWITCH_OUT = 1, REC_SWITCH_IN, REC_FORK, REC_EXIT, REC_OTHER };

/* A number at *p (advanced past it): 0, or -1. */
static int num_at(const char **p, const char *end, long *v)
{
	const char *q = *p;
	while (*p < end && **p >= '0' && **p <= '9')
		(*p)++;
	if (*p == q || *p - q > 9)
		return -1;
	*v = (long)digits(q, (size_t)(*p - q));
	return 0;
}

static int lit(const char **p, const char *end, const char *s)
{
	size_t n = strlen(s);
	if ((size_t)(end - *p) < n || memcmp(*p, s, n))
		return -1;
	*p += n;
	return 0;
}

/* "(A:B):(C:D)" after a fork or exit record's name. */
static int parse_pair(const char *p, const char *end, long *v)
{
	if (lit(&p, end, "(") || num_at(&p, end, &v[0]) || lit(&p, end, ":") || num_at(&p, end, &v[1]) ||
	    lit(&p, end, "):(") || num_at(&p, end, &v[2]) || lit(&p, end, ":") || num_at(&p, end, &v[3]) ||
	    lit(&p, end, ")"))
		return -1;
	return 0;
}

/* A record line (switch, fork, exit): its kind (*pre: the switch out was
 * a preemption; v: the fork or exit's pid, tid, ppid, ptid), REC_OTHER
 * for the records nothing here reads (COMM, which --show-task-events
 * prints too, MMAP, ...), 0 when the line is no record, -1 when it is one
 * but unreadable. The marker is the line's last: a comm may hold it too. */
static int parse_record(const char *l, size_t ll, struct hdr *h, int *pre, long *v)
{
	const char *m = NULL, *rest, *end = l + ll;
	size_t ml = sizeof RECORD_MARK - 1;
	for (size_t i = ll >= ml ? ll - ml + 1 : 0; i-- > 0;)
		if (l[i] == ':' && !memcmp(l + i, RECORD_MARK, ml)) {
			m = l + i;
			break;
		}
	if (!m)
		return 0;
	rest = m + ml;
	*pre = 0;
	if ((size_t)(end - rest) >= 16 && !memcmp(rest, "SWITCH_CPU_WIDE ", 16)) {
		if (parse_ids(l, (size_t)(m - l), h) < 0)
			return -1;
		rest += 16;
		if (end - rest >= 4 && !memcmp(rest, "OUT ", 4)) {
			*pre = end - rest >= 11 && !memcmp(rest + 4, "preempt", 7);
			return REC_SWITCH_OUT;
		}
		if (end - rest >= 3 && !memcmp(rest, "IN ", 3))
			return REC_SWITCH_IN;
		return -1;
	}
	if ((size_t)(end - rest) >= 4 && (!memcmp(rest, "FORK", 4) || !memcmp(rest, "EXIT", 4))) {
		int kind = rest[0] == 'F' ? REC_FORK : REC_EXIT;
		if (parse_ids(l, (size_t)(m - l), h) < 0 || parse_pair(rest + 4, end, v) < 0)
			return -1;
		return kind;
	}
	return parse_ids(l, (size_t)(m - l), h) < 0 ? 0 : REC_OTHER;
}

/* A sample's header: "COMM PID/TID SEC.FRAC: EVENT: " (trailing blanks
 * cut), else the whole line is the comm (-F comm,ip). */
static void parse_header(const char *l, size_t ll, struct hdr *h)
{
	size_t e = ll;
	memset(h, 0, sizeof *h);
	h->pid = h->tid = -1;
	h->comm = l;
	h->commlen = ll;
	if (e && l[e - 1] == ':') {
		size_t c = e - 1;	/* the ':' after the event */
		while (c >= 2 && !(l[c - 2] == ':' && l[c - 1] == ' '))
			c--;
		if (c >= 2) {
			struct hdr t = *h;
			size_t evb = c;
			while (evb < e - 1 && l[evb] == ' ')
				evb++;
			if (parse_ids(l, c - 2, &t) == 0 && evb < e - 1) {
				t.ev = l + evb;
				t.evlen = e - 1 - evb;
				*h = t;
			} else
				h->bad = 1;	/* the shape of a header, but not one */
		}
	}
}

/* The sample gathered: comm, then frames leaf first, as a folded line. */
static void fold_line(struct sbuf *sb, const char *comm, size_t commlen, const char **frames, size_t nf,
		      int truncated)
{
	char c[FOLDED_MAX_FRAME + 1];
	snprintf(c, sizeof c, "%.*s", (int)(commlen < FOLDED_MAX_FRAME ? commlen : FOLDED_MAX_FRAME), comm);
	put_frame(sb, c);
	if (truncated)
		sb_puts(sb, ";[deeper]");
	for (size_t i = nf; i-- > 0;) {
		if (sb->len + FOLDED_MAX_FRAME + 2 > FOLDED_MAX_STACK)
			break;
		sb_putc(sb, ';');
		put_frame(sb, frames[i]);
	}
}

struct pstate {
	struct folded *on;
	struct offcpu *off;
	struct hdr h;
	const char *frames[FOLDED_MAX_DEPTH];
	size_t nf;
	int in_sample, truncated, kernel_leaf, leaf_seen;
};

static void flush(struct pstate *s)
{
	struct sbuf sb = {0};
	int kind = ev_kind(&s->h);
	if (!s->in_sample)
		return;
	s->in_sample = 0;
	if (!s->h.commlen && !s->nf)
		return;
	if (s->h.bad || kind == EV_OTHER || (kind == EV_OFF && (!s->off || s->h.tid < 0))) {
		s->on->bad++;	/* an event this reader does not fold */
		return;
	}
	fold_line(&sb, s->h.comm, s->h.commlen, s->frames, s->nf, s->truncated);
	if (kind == EV_OFF)
		offcpu_sample(s->off, s->h.pid, s->h.tid, s->h.t, sb.s, sb.len, s->truncated);
	else {
		s->on->truncated += s->truncated != 0;
		folded_add(s->on, sb.s, sb.len, 1);
		if (s->kernel_leaf)
			s->on->kernel++;
	}
	sb_free(&sb);
}

int perf_script_fold(const char *buf, size_t len, folded_resolve_fn fn, void *ctx, struct folded *on,
		     struct offcpu *off, char *err, size_t errlen)
{
	struct pstate s;
	size_t i = 0;
	(void)err;
	(void)errlen;
	memset(&s, 0, sizeof s);
	s.on = on;
	s.off = off;
	while (i < len) {
		const char *l = buf + i, *e = memchr(l, '\n', len - i);
		size_t ll = e ? (size_t)(e - l) : len - i;
		int preempt, rk;
		long v[4];
		struct hdr h;
		i += ll + 1;
		while (ll && (l[ll - 1] == ' ' || l[ll - 1] == '\t' || l[ll - 1] == '\r'))
			ll--;
		if (!ll) {	/* a sample ends */
			flush(&s);
			continue;
		}
		rk = parse_record(l, ll, &h, &preempt, v);
		if (rk) {
			flush(&s);
			if (rk < 0)
				on->bad++;
			else if (!off || rk == REC_OTHER)
				;
			else if (rk == REC_FORK)
				offcpu_fork(off, v[0], v[1], v[2]);
			else if (rk == REC_EXIT)
				offcpu_exit(off, v[1]);
			else
				offcpu_switch(off, h.tid, h.t, rk == REC_SWITCH_OUT, preempt);
			continue;
		}
		if (l[0] != '\t' && l[0] != ' ' ? 1 : (parse_header(l, ll, &h), h.ev && !h.bad)) {
			/* a sample's header (a comm may start with a blank: then it
			 * must read as one): a missing blank line before is tolerated */
			flush(&s);
			parse_header(l, ll, &s.h);
			s.nf = 0;
			s.in_sample = 1;
			s.truncated = s.kernel_leaf = s.leaf_seen = 0;
			continue;
		}
		{
			const char *p = l, *end = l + ll, *name;
			unsigned long long addr;
			while (p < end && (*p == '\t' || *p == ' '))
				p++;
			if (!s.in_sample || hexval(p, (size_t)(end - p), &addr) < 0) {
				on->bad++;
				continue;
			}
			if (addr >= 0xffff800000000000ULL) {
				name = fn ? fn(ctx, addr) : NULL;
				if (!name)
					name = "[kernel.module]";
				if (!s.leaf_seen)
					s.kernel_leaf = 1;
			} else {
				name = "[user]";
				/* user frames carry no symbols here: one frame for all */
				if (s.nf && !strcmp(s.frames[s.nf - 1], "[user]"))
					continue;
			}
			s.leaf_seen = 1;
			if (s.nf < FOLDED_MAX_DEPTH)
				s.frames[s.nf++] = name;
			else
				s.truncated = 1;
		}
	}
	flush(&s);
	if (off)
		offcpu_end(off);
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
	size_t bytes = 0;
	folded_sort(f);
	jw_int(w, "samples", (long long)f->samples);
	jw_int(w, "kernel_samples", (long long)f->kernel);
	jw_arr(w, "stacks");
	for (size_t i = 0; i < f->n; i++) {
		bytes += strlen(f->s[i].stack);
		if (i >= keep || bytes > FOLDED_TOP_BYTES) {
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
