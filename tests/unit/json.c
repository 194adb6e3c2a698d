/*
 * json.c - the record payload language: writer output parses back to the
 * same text, and malformed input is refused with an offset.
 */
#include <math.h>

#include "json.h"
#include "tap.h"

static const struct {
	const char *in;
	int ok;
	const char *out;	/* canonical dump, or the error when !ok */
} cases[] = {
	{ "{\"a\":1,\"b\":[true,false,null],\"c\":\"x\\ny\"}", 1, "{\"a\":1,\"b\":[true,false,null],\"c\":\"x\\ny\"}" },
	{ " { \"n\" : -1.5e3 } ", 1, "{\"n\":-1500}" },
	{ "{\"u\":\"\\u00e9\\ud83d\\ude00\"}", 1, "{\"u\":\"\xc3\xa9\xf0\x9f\x98\x80\"}" },
	{ "[0.1,1e-7]", 1, "[0.1,1e-07]" },
	{ "[1234567890123.4,1e19,0.30000000000000004]", 1, "[1234567890123.4,1e+19,0.30000000000000004]" },
	{ "[1e400]", 0, "number out of range at byte 1" },
	{ "{\"a\":1,}", 0, "expected key at byte 7" },
	{ "{\"a\" 1}", 0, "expected ':' at byte 5" },
	{ "[1 2]", 0, "expected ',' or ']' at byte 3" },
	{ "\"abc", 0, "unterminated string at byte 4" },
	{ "01", 0, "trailing data at byte 1" },
	{ "{\"a\":tru}", 0, "unexpected character at byte 5" },
	{ "\"\\u0000\"", 0, "NUL in string at byte 6" },
	{ "", 0, "unexpected end at byte 0" },
	/* strings are valid UTF-8, keys unique */
	{ "[\"\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80\"]", 1, "[\"\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80\"]" },
	{ "[\"a\xc3\"]", 0, "invalid UTF-8 in string at byte 3" },
	{ "[\"\xc0\xaf\"]", 0, "invalid UTF-8 in string at byte 2" },
	{ "[\"\xed\xa0\x80\"]", 0, "invalid UTF-8 in string at byte 2" },
	{ "[\"\xf4\x90\x80\x80\"]", 0, "invalid UTF-8 in string at byte 2" },
	{ "[\"\xff\"]", 0, "invalid UTF-8 in string at byte 2" },
	{ "[\"\\ud800\"]", 0, "lone surrogate in \\u escape at byte 7" },
	{ "[\"\\udc00x\"]", 0, "lone surrogate in \\u escape at byte 7" },
	{ "{\"a\":1,\"b\":2,\"a\":3}", 0, "duplicate key \"a\" at byte 19" },
	{ "{\"x\":{\"k\":1,\"k\":1}}", 0, "duplicate key \"k\" at byte 18" },
};

#include <malloc.h>

/* Bytes the allocator has handed out (heap and mmap'd blocks). */
static size_t in_use(void)
{
	struct mallinfo2 m = mallinfo2();
	return m.uordblks + m.hblkhd;
}

/* The tree of a hostile record stays within 24 bytes per input byte (the
 * worst, "[0,0,...]", is 20: a 32-byte node and an 8-byte item pointer per
 * 2 bytes); it took over 90 (a string cost at least 256 bytes) before the
 * arena. */
static void memory_bound(void)
{
	static const char *const unit[] = { "0,", "\"\",", "{\"\":0},", "[[]]," };
	static const char *const what[] = { "numbers", "empty strings", "one-key objects", "nested arrays" };
	size_t len = 8u << 20;
	for (size_t u = 0; u < sizeof unit / sizeof *unit; u++) {
		struct sbuf sb = {0};
		size_t before, used;
		char err[128];
		struct jv *v;
		sb_putc(&sb, '[');
		while (sb.len < len)
			sb_puts(&sb, unit[u]);
		sb_puts(&sb, "0]");
		before = in_use();
		v = json_parse(sb.s, sb.len, err, sizeof err);
		used = in_use() - before;
		ok(v && used <= 24 * sb.len, "a %zu MiB array of %s takes %.1f bytes per input byte (at most 24)",
		   sb.len >> 20, what[u], (double)used / sb.len);
		json_free(v);
		sb_free(&sb);
	}
}


int main(void)
{
	size_t n = sizeof cases / sizeof *cases;
	char err[128], deep[200];
	struct jw w;
	struct jv *v;

	tap_plan(n + 4 + 4 + 1);
	for (size_t i = 0; i < n; i++) {
		struct sbuf sb = {0};
		err[0] = 0;
		v = json_parse(cases[i].in, strlen(cases[i].in), err, sizeof err);
		if (cases[i].ok) {
			if (v)
				json_dump(&sb, v);
			is_str(sb.s, cases[i].out, "parse+dump %s", cases[i].in);
		} else {
			is_str(v ? "accepted" : err, cases[i].out, "rejects %s", cases[i].in);
		}
		sb_free(&sb);
		json_free(v);
	}
	memset(deep, '[', sizeof deep);
	v = json_parse(deep, sizeof deep, err, sizeof err);
	ok(!v && strstr(err, "nesting too deep"), "nesting depth is bounded");

	jw_init(&w);
	jw_obj(&w, NULL);
	jw_str(&w, "s", "tab\there \"q\" \x01");
	jw_num(&w, "nan", NAN);
	jw_num(&w, "pi", 3.14159265358979);
	jw_int(&w, "big", 1234567890123LL);
	jw_arr(&w, "a");
	jw_obj(&w, NULL);
	jw_obj_end(&w);
	jw_arr_end(&w);
	jw_obj_end(&w);
	is_str(w.sb.s, "{\"s\":\"tab\\there \\\"q\\\" \\u0001\",\"nan\":null,\"pi\":3.14159265358979,\"big\":1234567890123,\"a\":[{}]}",
	       "writer output");
	v = json_parse(w.sb.s, w.sb.len, err, sizeof err);
	{
		struct sbuf sb = {0};
		if (v)
			json_dump(&sb, v);
		is_str(sb.s, w.sb.s, "writer output parses and dumps back to the same bytes");
		sb_free(&sb);
	}
	is_str(json_get_str(v, "s"), "tab\there \"q\" \x01", "string value unescaped");
	json_free(v);
	sb_free(&w.sb);
	jw_init(&w);
	jw_str(&w, NULL, "a\xff\xc3(\xc3\xa9");
	is_str(w.sb.s, "\"a\\ufffd\\ufffd(\xc3\xa9\"", "writer: bytes that are not UTF-8 become U+FFFD, the rest is kept");
	sb_free(&w.sb);
	memory_bound();
	return tap_done();
}
