/*
 * json.c - JSON writer and bounded recursive-descent parser.
 */
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json.h"
#include "xio.h"

/* ---------------- writer ---------------- */

/* Length of the well-formed UTF-8 sequence at p (p < end, *p >= 0x80), 0 if
 * it is not one (RFC 3629: no overlongs, no surrogates, at most U+10FFFF). */
static size_t utf8_len(const unsigned char *p, const unsigned char *end)
{
	size_t n = end - p;
	unsigned char c = p[0];
	if (c >= 0xc2 && c <= 0xdf)
		return n >= 2 && (p[1] & 0xc0) == 0x80 ? 2 : 0;
	if (c >= 0xe0 && c <= 0xef) {
		unsigned char lo = c == 0xe0 ? 0xa0 : 0x80, hi = c == 0xed ? 0x9f : 0xbf;
		return n >= 3 && p[1] >= lo && p[1] <= hi && (p[2] & 0xc0) == 0x80 ? 3 : 0;
	}
	if (c >= 0xf0 && c <= 0xf4) {
		unsigned char lo = c == 0xf0 ? 0x90 : 0x80, hi = c == 0xf4 ? 0x8f : 0xbf;
		return n >= 4 && p[1] >= lo && p[1] <= hi && (p[2] & 0xc0) == 0x80 && (p[3] & 0xc0) == 0x80 ? 4 : 0;
	}
	return 0;
}


/* Integers print as integers; other values with the fewest digits that read
 * back exactly (%.15g, else %.17g), so a dump re-parses to the same number.
 * The range check comes before the cast: out-of-range casts are undefined. */
static void put_num(struct sbuf *sb, double v)
{
	char buf[40];
	if (!isfinite(v)) {
		sb_puts(sb, "null");
		return;
	}
	if (fabs(v) < 1e15 && v == (double)(long long)v) {
		sb_printf(sb, "%lld", (long long)v);
		return;
	}
	snprintf(buf, sizeof buf, "%.15g", v);
	if (strtod(buf, NULL) != v)
		snprintf(buf, sizeof buf, "%.17g", v);
	sb_puts(sb, buf);
}

void jw_init(struct jw *w)
{
	memset(w, 0, sizeof *w);
	w->first[0] = 1;
}

void json_quote(struct sbuf *sb, const char *s)
{
	const unsigned char *p = (const unsigned char *)s, *end = p + strlen(s);
	sb_putc(sb, '"');
	for (; *p; p++) {
		switch (*p) {
		case '"': sb_puts(sb, "\\\""); break;
		case '\\': sb_puts(sb, "\\\\"); break;
		case '\n': sb_puts(sb, "\\n"); break;
		case '\r': sb_puts(sb, "\\r"); break;
		case '\t': sb_puts(sb, "\\t"); break;
		default:
			if (*p < 0x20 || *p == 0x7f)
				sb_printf(sb, "\\u%04x", *p);
			else if (*p < 0x80)
				sb_putc(sb, *p);
			else {
				/* what JSON text must be: a byte that does not start
				 * well-formed UTF-8 becomes U+FFFD */
				size_t n = utf8_len(p, end);
				if (n) {
					sb_add(sb, (const char *)p, n);
					p += n - 1;
				} else
					sb_puts(sb, "\\ufffd");
			}
		}
	}
	sb_putc(sb, '"');
}

static void sep(struct jw *w, const char *key)
{
	if (!w->first[w->depth])
		sb_putc(&w->sb, ',');
	w->first[w->depth] = 0;
	if (key) {
		json_quote(&w->sb, key);
		sb_putc(&w->sb, ':');
	}
}

static void open_level(struct jw *w, const char *key, char c)
{
	sep(w, key);
	sb_putc(&w->sb, c);
	if (w->depth + 1 < (int)sizeof w->first)
		w->depth++;
	w->first[w->depth] = 1;
}

void jw_obj(struct jw *w, const char *key) { open_level(w, key, '{'); }
void jw_arr(struct jw *w, const char *key) { open_level(w, key, '['); }

void jw_obj_end(struct jw *w)
{
	sb_putc(&w->sb, '}');
	if (w->depth)
		w->depth--;
}

void jw_arr_end(struct jw *w)
{
	sb_putc(&w->sb, ']');
	if (w->depth)
		w->depth--;
}

void jw_str(struct jw *w, const char *key, const char *val)
{
	sep(w, key);
	if (val)
		json_quote(&w->sb, val);
	else
		sb_puts(&w->sb, "null");
}

void jw_int(struct jw *w, const char *key, long long val)
{
	sep(w, key);
	sb_printf(&w->sb, "%lld", val);
}

void jw_num(struct jw *w, const char *key, double val)
{
	sep(w, key);
	put_num(&w->sb, val);
}

void jw_bool(struct jw *w, const char *key, int val)
{
	sep(w, key);
	sb_puts(&w->sb, val ? "true" : "false");
}

void jw_null(struct jw *w, const char *key)
{
	sep(w, key);
	sb_puts(&w->sb, "null");
}

void jw_raw(struct jw *w, const char *key, const char *json)
{
	sep(w, key);
	sb_puts(&w->sb, json);
}

/* ---------------- parser ----------------
 *
 * Memory is linear in the input with a small constant: every node, string
 * and item array comes from one arena per document (no per-allocation
 * overhead), strings get exactly their decoded length, and a container's
 * items gather on one shared stack and are copied once, exact-sized, when
 * it closes. Worst case, "[0,0,0,...]": 40 bytes of tree per 2 bytes of
 * input; json_free() releases the whole arena at once, so it takes only
 * what json_parse() returned. Strings must be valid UTF-8 (no overlong
 * forms, no surrogates, none past U+10FFFF, no lone \u surrogate) and an
 * object's keys unique: a record whose meaning depends on which duplicate
 * a reader believes is refused instead.
 */

#define ARENA_CHUNK (64u << 10)

struct chunk {
	struct chunk *next;
	size_t used, cap;
	max_align_t data[];
};

struct jroot {
	struct chunk *chunks;	/* every chunk of the document, this one among them */
	struct jv v;
};

struct jp {
	const char *p, *end, *start;
	char *err;
	size_t errlen;
	int failed;
	struct chunk *chunks;
	/* the items (and keys) of the containers being parsed, innermost last */
	struct jv **stack;
	char **kstack;
	size_t depth_items, stack_cap;
};

static void fail(struct jp *jp, const char *what)
{
	if (!jp->failed && jp->err)
		snprintf(jp->err, jp->errlen, "%s at byte %ld", what, (long)(jp->p - jp->start));
	jp->failed = 1;
}

static void *arena_alloc(struct jp *jp, size_t size, size_t align)
{
	struct chunk *c = jp->chunks;
	size_t at = c ? (c->used + align - 1) & ~(align - 1) : 0;
	if (!c || at + size > c->cap) {
		size_t cap = size > ARENA_CHUNK ? size : ARENA_CHUNK;
		c = xmalloc(sizeof *c + cap);
		c->cap = cap;
		c->used = 0;
		c->next = jp->chunks;
		jp->chunks = c;
		at = 0;
	}
	c->used = at + size;
	return (char *)c->data + at;
}

static void arena_free(struct chunk *c)
{
	while (c) {
		struct chunk *next = c->next;
		free(c);
		c = next;
	}
}

static void ws(struct jp *jp)
{
	while (jp->p < jp->end && (*jp->p == ' ' || *jp->p == '\t' || *jp->p == '\n' || *jp->p == '\r'))
		jp->p++;
}

static struct jv *newv(struct jp *jp, enum jtype t)
{
	struct jv *v = arena_alloc(jp, sizeof *v, _Alignof(struct jv));
	memset(v, 0, sizeof *v);
	v->t = t;
	return v;
}

static int hex4(const char *p, unsigned *out)
{
	unsigned v = 0;
	for (int i = 0; i < 4; i++) {
		char c = p[i];
		v <<= 4;
		if (c >= '0' && c <= '9') v |= c - '0';
		else if (c >= 'a' && c <= 'f') v |= c - 'a' + 10;
		else if (c >= 'A' && c <= 'F') v |= c - 'A' + 10;
		else return -1;
	}
	*out = v;
	return 0;
}

static char *put_utf8(char *o, unsigned cp)
{
	if (cp < 0x80) *o++ = cp;
	else if (cp < 0x800) { *o++ = 0xc0 | cp >> 6; *o++ = 0x80 | (cp & 0x3f); }
	else if (cp < 0x10000) { *o++ = 0xe0 | cp >> 12; *o++ = 0x80 | ((cp >> 6) & 0x3f); *o++ = 0x80 | (cp & 0x3f); }
	else { *o++ = 0xf0 | cp >> 18; *o++ = 0x80 | ((cp >> 12) & 0x3f); *o++ = 0x80 | ((cp >> 6) & 0x3f); *o++ = 0x80 | (cp & 0x3f); }
	return o;
}

static char *parse_string(struct jp *jp)
{
	const char *q = ++jp->p;	/* after the opening quote */
	char *out, *o;
	/* the decoded string is never longer than its source text */
	while (q < jp->end && *q != '"')
		q += *q == '\\' && q + 1 < jp->end ? 2 : 1;
	if (q >= jp->end) {
		jp->p = jp->end;
		fail(jp, "unterminated string");
		return NULL;
	}
	o = out = arena_alloc(jp, (size_t)(q - jp->p) + 1, 1);
	while (*jp->p != '"') {
		unsigned char c = *jp->p;
		if (c < 0x20) {
			fail(jp, "control character in string");
			return NULL;
		}
		if (c >= 0x80) {
			size_t n = utf8_len((const unsigned char *)jp->p, (const unsigned char *)jp->end);
			if (!n) {
				fail(jp, "invalid UTF-8 in string");
				return NULL;
			}
			memcpy(o, jp->p, n);
			o += n;
			jp->p += n;
			continue;
		}
		if (c != '\\') {
			*o++ = c;
			jp->p++;
			continue;
		}
		jp->p++;
		switch (*jp->p) {
		case '"': *o++ = '"'; break;
		case '\\': *o++ = '\\'; break;
		case '/': *o++ = '/'; break;
		case 'b': *o++ = '\b'; break;
		case 'f': *o++ = '\f'; break;
		case 'n': *o++ = '\n'; break;
		case 'r': *o++ = '\r'; break;
		case 't': *o++ = '\t'; break;
		case 'u': {
			unsigned cp, lo;
			if (jp->end - jp->p < 5 || hex4(jp->p + 1, &cp)) {
				fail(jp, "bad \\u escape");
				return NULL;
			}
			jp->p += 4;
			if (cp >= 0xd800 && cp < 0xdc00) {
				if (jp->end - jp->p < 7 || jp->p[1] != '\\' || jp->p[2] != 'u' || hex4(jp->p + 3, &lo) ||
				    lo < 0xdc00 || lo >= 0xe000) {
					fail(jp, "lone surrogate in \\u escape");
					return NULL;
				}
				cp = 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
				jp->p += 6;
			} else if (cp >= 0xdc00 && cp < 0xe000) {
				fail(jp, "lone surrogate in \\u escape");
				return NULL;
			}
			if (cp == 0) {
				fail(jp, "NUL in string");
				return NULL;
			}
			o = put_utf8(o, cp);
			break;
		}
		default:
			fail(jp, "bad escape");
			return NULL;
		}
		jp->p++;
	}
	*o = 0;
	jp->p++;
	return out;
}

static int keycmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Unique keys: pairwise for small objects, sorted otherwise (a hostile
 * object with 10^6 keys must not cost 10^12 compares). */
static const char *duplicate_key(char **keys, size_t n)
{
	const char *dup = NULL;
	char **sorted;
	if (n <= 16) {
		for (size_t i = 0; i < n; i++)
			for (size_t j = i + 1; j < n; j++)
				if (!strcmp(keys[i], keys[j]))
					return keys[i];
		return NULL;
	}
	sorted = xmalloc(n * sizeof *sorted);
	memcpy(sorted, keys, n * sizeof *sorted);
	qsort(sorted, n, sizeof *sorted, keycmp);
	for (size_t i = 1; i < n && !dup; i++)
		if (!strcmp(sorted[i - 1], sorted[i]))
			dup = sorted[i];
	free(sorted);
	return dup;
}

static void push(struct jp *jp, struct jv *item, char *key)
{
	if (jp->depth_items == jp->stack_cap) {
		jp->stack_cap = jp->stack_cap ? jp->stack_cap * 2 : 64;
		jp->stack = xrealloc(jp->stack, jp->stack_cap * sizeof *jp->stack);
		jp->kstack = xrealloc(jp->kstack, jp->stack_cap * sizeof *jp->kstack);
	}
	jp->stack[jp->depth_items] = item;
	jp->kstack[jp->depth_items] = key;
	jp->depth_items++;
}

static struct jv *parse_value(struct jp *jp, int depth);

static struct jv *parse_container(struct jp *jp, int depth, int obj)
{
	struct jv *v = newv(jp, obj ? J_OBJ : J_ARR);
	size_t base = jp->depth_items;
	char close = obj ? '}' : ']';

	jp->p++;
	ws(jp);
	if (jp->p < jp->end && *jp->p == close) {
		jp->p++;
		return v;
	}
	for (;;) {
		char *key = NULL;
		struct jv *item;
		ws(jp);
		if (obj) {
			if (jp->p >= jp->end || *jp->p != '"') {
				fail(jp, "expected key");
				break;
			}
			key = parse_string(jp);
			if (!key)
				break;
			ws(jp);
			if (jp->p >= jp->end || *jp->p != ':') {
				fail(jp, "expected ':'");
				break;
			}
			jp->p++;
		}
		item = parse_value(jp, depth + 1);
		if (!item)
			break;
		push(jp, item, key);
		ws(jp);
		if (jp->p < jp->end && *jp->p == ',') {
			jp->p++;
			continue;
		}
		if (jp->p < jp->end && *jp->p == close) {
			const char *dup;
			jp->p++;
			v->n = jp->depth_items - base;
			v->items = arena_alloc(jp, v->n * sizeof *v->items, _Alignof(struct jv *));
			memcpy(v->items, jp->stack + base, v->n * sizeof *v->items);
			if (obj) {
				v->keys = arena_alloc(jp, v->n * sizeof *v->keys, _Alignof(char *));
				memcpy(v->keys, jp->kstack + base, v->n * sizeof *v->keys);
				if ((dup = duplicate_key(v->keys, v->n))) {
					char what[96];
					snprintf(what, sizeof what, "duplicate key \"%.40s\"", dup);
					fail(jp, what);
					break;
				}
			}
			jp->depth_items = base;
			return v;
		}
		fail(jp, obj ? "expected ',' or '}'" : "expected ',' or ']'");
		break;
	}
	jp->depth_items = base;
	return NULL;
}

static struct jv *parse_value(struct jp *jp, int depth)
{
	struct jv *v;
	if (depth > JSON_MAX_DEPTH) {
		fail(jp, "nesting too deep");
		return NULL;
	}
	ws(jp);
	if (jp->p >= jp->end) {
		fail(jp, "unexpected end");
		return NULL;
	}
	switch (*jp->p) {
	case '{': return parse_container(jp, depth, 1);
	case '[': return parse_container(jp, depth, 0);
	case '"': {
		char *s = parse_string(jp);
		if (!s)
			return NULL;
		v = newv(jp, J_STR);
		v->str = s;
		return v;
	}
	case 't':
		if (jp->end - jp->p >= 4 && !memcmp(jp->p, "true", 4)) {
			jp->p += 4;
			v = newv(jp, J_BOOL);
			v->b = 1;
			return v;
		}
		break;
	case 'f':
		if (jp->end - jp->p >= 5 && !memcmp(jp->p, "false", 5)) {
			jp->p += 5;
			return newv(jp, J_BOOL);
		}
		break;
	case 'n':
		if (jp->end - jp->p >= 4 && !memcmp(jp->p, "null", 4)) {
			jp->p += 4;
			return newv(jp, J_NULL);
		}
		break;
	default: {
		/* strict JSON number grammar, then strtod on a bounded copy */
		const char *s = jp->p;
		char tmp[64];
		double num;
		if (s < jp->end && *s == '-') s++;
		if (s >= jp->end || !(*s >= '0' && *s <= '9'))
			break;
		if (*s == '0') s++;
		else while (s < jp->end && *s >= '0' && *s <= '9') s++;
		if (s < jp->end && *s == '.') {
			s++;
			if (s >= jp->end || !(*s >= '0' && *s <= '9')) break;
			while (s < jp->end && *s >= '0' && *s <= '9') s++;
		}
		if (s < jp->end && (*s == 'e' || *s == 'E')) {
			s++;
			if (s < jp->end && (*s == '+' || *s == '-')) s++;
			if (s >= jp->end || !(*s >= '0' && *s <= '9')) break;
			while (s < jp->end && *s >= '0' && *s <= '9') s++;
		}
		if ((size_t)(s - jp->p) >= sizeof tmp) {
			fail(jp, "number too long");
			return NULL;
		}
		memcpy(tmp, jp->p, s - jp->p);
		tmp[s - jp->p] = 0;
		num = strtod(tmp, NULL);
		if (!isfinite(num)) {
			fail(jp, "number out of range");
			return NULL;
		}
		v = newv(jp, J_NUM);
		v->num = num;
		jp->p = s;
		return v;
	}
	}
	fail(jp, "unexpected character");
	return NULL;
}

struct jv *json_parse(const char *buf, size_t len, char *err, size_t errlen)
{
	struct jp jp = { buf, buf + len, buf, err, errlen, 0, NULL, NULL, NULL, 0, 0 };
	struct jroot *root = arena_alloc(&jp, sizeof *root, _Alignof(struct jroot));
	struct jv *v = parse_value(&jp, 0);
	free(jp.stack);
	free(jp.kstack);
	if (v) {
		ws(&jp);
		if (jp.p != jp.end) {
			fail(&jp, "trailing data");
			v = NULL;
		}
	}
	if (!v) {
		arena_free(jp.chunks);
		return NULL;
	}
	root->v = *v;	/* the root node lives beside the chunk list */
	root->chunks = jp.chunks;
	return &root->v;
}

void json_free(struct jv *v)
{
	if (v)
		arena_free(((struct jroot *)((char *)v - offsetof(struct jroot, v)))->chunks);
}

const struct jv *json_get(const struct jv *obj, const char *key)
{
	if (!obj || obj->t != J_OBJ)
		return NULL;
	for (size_t i = 0; i < obj->n; i++)
		if (!strcmp(obj->keys[i], key))
			return obj->items[i];
	return NULL;
}

const char *json_get_str(const struct jv *obj, const char *key)
{
	const struct jv *v = json_get(obj, key);
	return v && v->t == J_STR ? v->str : NULL;
}

double json_get_num(const struct jv *obj, const char *key, double def)
{
	const struct jv *v = json_get(obj, key);
	return v && v->t == J_NUM ? v->num : def;
}

void json_dump(struct sbuf *sb, const struct jv *v)
{
	switch (v->t) {
	case J_NULL: sb_puts(sb, "null"); break;
	case J_BOOL: sb_puts(sb, v->b ? "true" : "false"); break;
	case J_NUM: put_num(sb, v->num); break;
	case J_STR: json_quote(sb, v->str); break;
	case J_ARR:
	case J_OBJ:
		sb_putc(sb, v->t == J_OBJ ? '{' : '[');
		for (size_t i = 0; i < v->n; i++) {
			if (i)
				sb_putc(sb, ',');
			if (v->t == J_OBJ) {
				json_quote(sb, v->keys[i]);
				sb_putc(sb, ':');
			}
			json_dump(sb, v->items[i]);
		}
		sb_putc(sb, v->t == J_OBJ ? '}' : ']');
		break;
	}
}
