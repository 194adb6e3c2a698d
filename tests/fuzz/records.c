/*
 * records.c - libFuzzer target for everything that reads records back: the
 * results header and record scanner (lib/results.c), the JSON parser and
 * dumper (lib/json.c), and the canonical line of lib/record.c.  These read
 * damaged partitions and arbitrary console logs, so they must survive any
 * bytes.  Built and run by `make fuzz` (clang, ASan, UBSan).
 *
 * The first input byte picks a mode, the rest is the material:
 *   0  raw region: the bytes are a whole results partition, header included
 *   1  a valid header (fixed instance, data at 4096) is put in front and the
 *      bytes are the record area, verbatim
 *   2  as 1, but every block that starts with the record magic gets this
 *      region's instance and correct checksums, so mutated payloads reach
 *      json_parse instead of dying at a CRC the fuzzer cannot solve
 *   3  console log text, split and trimmed as `bootbench collect` does
 *      (its loop is static in cmd/collect.c, so it is mirrored here)
 * Bits 2-3 of the first byte pick the block size of modes 1 and 2.
 *
 * Properties checked on every payload and line that parses (abort() when
 * broken, so libFuzzer keeps the input): the compact dump parses again and
 * dumps to the same text with the same strings and keys; a payload that
 * parses alone also parses inside its rec_line() line, with the right type.
 */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hash.h"
#include "json.h"
#include "record.h"
#include "results.h"
#include "sbuf.h"

#define FUZZ_INSTANCE "bootbench-fuzz!!"	/* 16 bytes; mkseeds.c uses it too */

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void violated(const char *what, const char *a, size_t alen, const char *b, size_t blen)
{
	fprintf(stderr, "records fuzz: property violated: %s\n  first:  %.*s\n  second: %.*s\n",
		what, (int)(alen > 2000 ? 2000 : alen), a ? a : "", (int)(blen > 2000 ? 2000 : blen),
		b ? b : "");
	abort();
}

/* Same shape, same strings and keys; numbers are compared by their dumped
 * text (json_dump rounds to 10 digits by design). */
static int same(const struct jv *a, const struct jv *b)
{
	if (a->t != b->t)
		return 0;
	switch (a->t) {
	case J_NULL: return 1;
	case J_BOOL: return !a->b == !b->b;
	case J_NUM: return 1;
	case J_STR: return !strcmp(a->str, b->str);
	case J_ARR:
	case J_OBJ:
		if (a->n != b->n)
			return 0;
		for (size_t i = 0; i < a->n; i++)
			if ((a->t == J_OBJ && strcmp(a->keys[i], b->keys[i])) || !same(a->items[i], b->items[i]))
				return 0;
		return 1;
	}
	return 0;
}

static int depth_of(const struct jv *v)
{
	int d = 0;
	if (v->t == J_ARR || v->t == J_OBJ)
		for (size_t i = 0; i < v->n; i++) {
			int c = depth_of(v->items[i]) + 1;
			if (c > d)
				d = c;
		}
	return d;
}

/* Parse, and when it parses, check dump(parse(dump(v))) == dump(v).
 * Returns the parsed value (caller frees) or NULL. */
static struct jv *parse_checked(const char *buf, size_t len)
{
	char err[160];
	struct jv *v = json_parse(buf, len, err, sizeof err), *v2;
	struct sbuf d1 = {0}, d2 = {0};

	if (!v)
		return NULL;
	/* what collect's csv path reads; must not crash on any shape */
	(void)json_get_str(v, "type");
	(void)json_get_num(v, "seq", 0);
	(void)json_get_str(json_get(v, "data"), "workload");
	json_dump(&d1, v);
	v2 = json_parse(d1.s, d1.len, err, sizeof err);
	if (!v2)
		violated("json_dump output does not parse again", d1.s, d1.len, err, strlen(err));
	json_dump(&d2, v2);
	if (d1.len != d2.len || memcmp(d1.s, d2.s, d1.len))
		violated("dump of the re-parsed dump differs", d1.s, d1.len, d2.s, d2.len);
	if (!same(v, v2))
		violated("re-parsed dump has other strings, keys or shape", buf, len, d1.s, d1.len);
	json_free(v2);
	sb_free(&d1);
	sb_free(&d2);
	return v;
}

static void on_record(void *ctx, const struct rs_rec *r)
{
	struct sbuf line = {0};
	struct jv *pv = parse_checked(r->payload, r->len), *lv;
	const char *tn = rs_type_name(r->type), *got;
	char want[32];

	(void)ctx;
	/* collect's partition path: the canonical line, then emit() */
	rec_line(&line, r->seq, r->boot_id, r->type, r->payload, r->len);
	lv = parse_checked(line.s, line.len);
	/* the line nests the payload one level deeper, so a payload at the
	 * parser's depth limit legitimately fails there */
	if (pv && !lv && depth_of(pv) < JSON_MAX_DEPTH)
		violated("payload parses but its rec_line() line does not", r->payload, r->len, line.s, line.len);
	if (lv) {
		if (tn)
			snprintf(want, sizeof want, "%s", tn);
		else
			snprintf(want, sizeof want, "type-%u", r->type);
		got = json_get_str(lv, "type");
		if (!got || strcmp(got, want))
			violated("rec_line() type differs from the record's", want, strlen(want),
				 got, got ? strlen(got) : 0);
	}
	json_free(pv);
	json_free(lv);
	sb_free(&line);
}

static void on_corrupt(void *ctx, uint64_t off, const char *why)
{
	(void)ctx; (void)off; (void)why;
}

struct mem { const unsigned char *p; size_t len; };

/* A region in memory: short reads at the end, like rs_fd_read. */
static long mem_read(void *ctx, void *buf, size_t len, uint64_t off)
{
	const struct mem *m = ctx;
	if (off >= m->len)
		return 0;
	if (len > m->len - off)
		len = m->len - off;
	memcpy(buf, m->p + off, len);
	return (long)len;
}

/* As collect_one: decode the header, clamp its size to what is there, scan. */
static void scan_region(const unsigned char *p, size_t len)
{
	static const struct rs_scan_ops ops = { on_record, on_corrupt };
	struct mem m = { p, len };
	struct rs_header h;
	struct rs_scan_result res;
	char err[256];

	if (rs_header_decode(p, len, &h, err, sizeof err) < 0)
		return;
	if (h.size > len)
		h.size = len;
	if (rs_scan(mem_read, &m, &h, &ops, NULL, &res, err, sizeof err) < 0)
		violated("rs_scan reported a read error on memory", err, strlen(err), NULL, 0);
	/* end is where the writer appends: never before the data, never past
	 * the region unless the region ends before its data starts */
	if (res.end < h.data_off || (res.end > h.size && res.end != h.data_off))
		violated("rs_scan end outside the region", NULL, 0, NULL, 0);
}

static void put32(unsigned char *p, uint32_t v) { p[0] = v; p[1] = v >> 8; p[2] = v >> 16; p[3] = v >> 24; }

/* Header at 0, data at 4096, the fuzz bytes as the record area. */
static void scan_with_header(const uint8_t *area, size_t alen, uint32_t block, int fixup)
{
	struct rs_header h = {0};
	size_t len = 4096 + (alen < block ? block : alen);
	unsigned char *reg = calloc(1, len), *a;

	if (!reg)
		return;
	h.version = RS_VERSION;
	h.created = 1700000000;
	h.size = len;
	memcpy(h.instance, FUZZ_INSTANCE, 16);
	h.data_off = 4096;
	h.block = block;
	snprintf(h.plan_name, sizeof h.plan_name, "fuzz");
	rs_header_encode(&h, reg);
	a = reg + 4096;
	memcpy(a, area, alen);
	if (fixup) {
		for (size_t o = 0; o + RS_REC_HDR <= len - 4096; o += block) {
			unsigned char *b = a + o;
			uint32_t plen;
			if (memcmp(b, RS_REC_MAGIC, 8))
				continue;
			memcpy(b + 8, h.instance, 16);
			plen = b[52] | b[53] << 8 | b[54] << 16 | (uint32_t)b[55] << 24;
			if (plen <= len - 4096 - o - RS_REC_HDR)
				put32(b + 56, crc32c(0, b + RS_REC_HDR, plen));
			put32(b + 60, crc32c(0, b, 60));
		}
	}
	scan_region(reg, len);
	free(reg);
}

/* collect_console's loop: every line holding "BOOTBENCH {", trimmed. */
static void scan_console(const char *buf, size_t len)
{
	const char *p = buf, *end = buf + len;
	const size_t plen = strlen(CONSOLE_PREFIX);

	while (p < end) {
		const char *nl = memchr(p, '\n', end - p), *rec;
		if (!nl)
			nl = end;
		rec = memmem(p, nl - p, CONSOLE_PREFIX "{", plen + 1);
		if (rec) {
			const char *json = rec + plen;
			size_t rl = nl - json;
			struct jv *v;
			while (rl && (json[rl - 1] == '\r' || json[rl - 1] == ' '))
				rl--;
			v = parse_checked(json, rl);
			json_free(v);
		}
		p = nl + 1;
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint32_t block;
	if (size < 1)
		return 0;
	block = 512u << ((data[0] >> 2) & 3);
	switch (data[0] & 3) {
	case 0:
		/* copy: the scanner must not read past what it was given */
		if (size - 1 >= 4096) {
			unsigned char *reg = malloc(size - 1);
			if (!reg)
				return 0;
			memcpy(reg, data + 1, size - 1);
			scan_region(reg, size - 1);
			free(reg);
		}
		break;
	case 1:
		scan_with_header(data + 1, size - 1, block, 0);
		break;
	case 2:
		scan_with_header(data + 1, size - 1, block, 1);
		break;
	case 3: {
		char *text = malloc(size - 1 ? size - 1 : 1);
		if (!text)
			return 0;
		memcpy(text, data + 1, size - 1);
		scan_console(text, size - 1);
		free(text);
		break;
	}
	}
	return 0;
}
