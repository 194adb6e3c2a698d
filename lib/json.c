/*
 * json.c - JSON writer and bounded recursive-descent parser.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json.h"
#include "xio.h"

/* ---------------- writer ---------------- */

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
	const unsigned char *p = (const unsigned char *)s;
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
			else
				sb_putc(sb, *p);
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

/* ---------------- parser ---------------- */

struct jp {
	const char *p, *end, *start;
	char *err;
	size_t errlen;
	int failed;
};

static void fail(struct jp *jp, const char *what)
{
	if (!jp->failed && jp->err)
		snprintf(jp->err, jp->errlen, "%s at byte %ld", what, (long)(jp->p - jp->start));
	jp->failed = 1;
}

static void ws(struct jp *jp)
{
	while (jp->p < jp->end && (*jp->p == ' ' || *jp->p == '\t' || *jp->p == '\n' || *jp->p == '\r'))
		jp->p++;
}

static struct jv *newv(enum jtype t)
{
	struct jv *v = xcalloc(1, sizeof *v);
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

static void put_utf8(struct sbuf *sb, unsigned cp)
{
	char b[4];
	if (cp < 0x80) { b[0] = cp; sb_add(sb, b, 1); }
	else if (cp < 0x800) { b[0] = 0xc0 | cp >> 6; b[1] = 0x80 | (cp & 0x3f); sb_add(sb, b, 2); }
	else if (cp < 0x10000) { b[0] = 0xe0 | cp >> 12; b[1] = 0x80 | ((cp >> 6) & 0x3f); b[2] = 0x80 | (cp & 0x3f); sb_add(sb, b, 3); }
	else { b[0] = 0xf0 | cp >> 18; b[1] = 0x80 | ((cp >> 12) & 0x3f); b[2] = 0x80 | ((cp >> 6) & 0x3f); b[3] = 0x80 | (cp & 0x3f); sb_add(sb, b, 4); }
}

static char *parse_string(struct jp *jp)
{
	struct sbuf sb = {0};
	jp->p++;	/* opening quote */
	while (jp->p < jp->end && *jp->p != '"') {
		unsigned char c = *jp->p;
		if (c < 0x20) {
			fail(jp, "control character in string");
			goto bad;
		}
		if (c != '\\') {
			sb_putc(&sb, c);
			jp->p++;
			continue;
		}
		if (jp->end - jp->p < 2) {
			fail(jp, "truncated escape");
			goto bad;
		}
		jp->p++;
		switch (*jp->p) {
		case '"': sb_putc(&sb, '"'); break;
		case '\\': sb_putc(&sb, '\\'); break;
		case '/': sb_putc(&sb, '/'); break;
		case 'b': sb_putc(&sb, '\b'); break;
		case 'f': sb_putc(&sb, '\f'); break;
		case 'n': sb_putc(&sb, '\n'); break;
		case 'r': sb_putc(&sb, '\r'); break;
		case 't': sb_putc(&sb, '\t'); break;
		case 'u': {
			unsigned cp, lo;
			if (jp->end - jp->p < 5 || hex4(jp->p + 1, &cp)) {
				fail(jp, "bad \\u escape");
				goto bad;
			}
			jp->p += 4;
			if (cp >= 0xd800 && cp < 0xdc00 && jp->end - jp->p >= 7 &&
			    jp->p[1] == '\\' && jp->p[2] == 'u' && !hex4(jp->p + 3, &lo) &&
			    lo >= 0xdc00 && lo < 0xe000) {
				cp = 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
				jp->p += 6;
			}
			if (cp == 0) {
				fail(jp, "NUL in string");
				goto bad;
			}
			put_utf8(&sb, cp);
			break;
		}
		default:
			fail(jp, "bad escape");
			goto bad;
		}
		jp->p++;
	}
	if (jp->p >= jp->end) {
		fail(jp, "unterminated string");
		goto bad;
	}
	jp->p++;
	return sb_steal(&sb);
bad:
	sb_free(&sb);
	return NULL;
}

static struct jv *parse_value(struct jp *jp, int depth);

static struct jv *parse_container(struct jp *jp, int depth, int obj)
{
	struct jv *v = newv(obj ? J_OBJ : J_ARR);
	size_t cap = 0;
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
				free(key);
				fail(jp, "expected ':'");
				break;
			}
			jp->p++;
		}
		item = parse_value(jp, depth + 1);
		if (!item) {
			free(key);
			break;
		}
		if (v->n == cap) {
			cap = cap ? cap * 2 : 8;
			v->items = xrealloc(v->items, cap * sizeof *v->items);
			if (obj)
				v->keys = xrealloc(v->keys, cap * sizeof *v->keys);
		}
		v->items[v->n] = item;
		if (obj)
			v->keys[v->n] = key;
		v->n++;
		ws(jp);
		if (jp->p < jp->end && *jp->p == ',') {
			jp->p++;
			continue;
		}
		if (jp->p < jp->end && *jp->p == close) {
			jp->p++;
			return v;
		}
		fail(jp, obj ? "expected ',' or '}'" : "expected ',' or ']'");
		break;
	}
	json_free(v);
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
		v = newv(J_STR);
		v->str = s;
		return v;
	}
	case 't':
		if (jp->end - jp->p >= 4 && !memcmp(jp->p, "true", 4)) {
			jp->p += 4;
			v = newv(J_BOOL);
			v->b = 1;
			return v;
		}
		break;
	case 'f':
		if (jp->end - jp->p >= 5 && !memcmp(jp->p, "false", 5)) {
			jp->p += 5;
			return newv(J_BOOL);
		}
		break;
	case 'n':
		if (jp->end - jp->p >= 4 && !memcmp(jp->p, "null", 4)) {
			jp->p += 4;
			return newv(J_NULL);
		}
		break;
	default: {
		/* strict JSON number grammar, then strtod on a bounded copy */
		const char *s = jp->p;
		char tmp[64];
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
		v = newv(J_NUM);
		v->num = strtod(tmp, NULL);
		if (!isfinite(v->num)) {
			free(v);
			fail(jp, "number out of range");
			return NULL;
		}
		jp->p = s;
		return v;
	}
	}
	fail(jp, "unexpected character");
	return NULL;
}

struct jv *json_parse(const char *buf, size_t len, char *err, size_t errlen)
{
	struct jp jp = { buf, buf + len, buf, err, errlen, 0 };
	struct jv *v = parse_value(&jp, 0);
	if (!v)
		return NULL;
	ws(&jp);
	if (jp.p != jp.end) {
		fail(&jp, "trailing data");
		json_free(v);
		return NULL;
	}
	return v;
}

void json_free(struct jv *v)
{
	if (!v)
		return;
	for (size_t i = 0; i < v->n; i++) {
		json_free(v->items[i]);
		if (v->keys)
			free(v->keys[i]);
	}
	free(v->items);
	free(v->keys);
	free(v->str);
	free(v);
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
