/*
 * record.c - storing records: a record too big for the partition is stored
 * truncated (marked so, with its original size and what was kept), and the
 * records after it are stored as usual; the partition is never switched off
 * for it.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>

#include "defaults.h"
#include "json.h"
#include "record.h"
#include "results.h"
#include "region.h"
#include "tap.h"
#include "xio.h"

struct seen {
	int n;
	char *payload[8];
	uint32_t type[8];
};

static void on_rec(void *ctx, const struct rs_rec *r)
{
	struct seen *s = ctx;
	if (s->n < 8) {
		s->type[s->n] = r->type;
		s->payload[s->n] = xstrndup(r->payload, r->len);
	}
	s->n++;
}

static void on_bad(void *ctx, uint64_t off, const char *why)
{
	(void)ctx;
	printf("# damaged record at %llu: %s\n", (unsigned long long)off, why);
}

static const struct rs_scan_ops ops = { on_rec, on_bad };
static const unsigned char boot_id[16] = "0123456789abcdef";

static int scan(struct rs_region *reg, struct seen *s)
{
	unsigned char blk[4096];
	struct rs_header h;
	struct rs_scan_result res;
	char err[200];
	memset(s, 0, sizeof *s);
	if (rs_fd_read(reg, blk, 4096, 0) != 4096 || rs_header_decode(blk, 4096, &h, err, sizeof err))
		return -1;
	return rs_scan(rs_fd_read, reg, &h, &ops, s, &res, err, sizeof err);
}

/* A run record whose counters trace outgrew the record limit. */
static char *big_run(size_t trace_bytes)
{
	struct sbuf sb = {0};
	sb_puts(&sb, "{\"plan\":\"long\",\"workload\":\"null\",\"status\":\"ok\",\"metrics\":[{\"name\":\"x\","
		"\"value\":1,\"unit\":\"us\",\"better\":\"lower\"}],\"counters\":{\"trace\":\"");
	for (size_t i = 0; i < trace_bytes; i++)
		sb_putc(&sb, 'a' + i % 26);
	sb_puts(&sb, "\"},\"iteration\":1}");
	return sb_steal(&sb);
}

int main(void)
{
	struct recorder r = {0};
	struct rs_region reg;
	struct seen s;
	struct jv *v;
	char err[200], *big;
	const struct jv *t;
	int rc;

	tap_plan(19);
	reg = mkregion(16 << 20);
	if (rs_writer_open(&r.w, &reg, boot_id, NULL, NULL, err, sizeof err) < 0) {
		printf("Bail out! rs_writer_open: %s\n", err);
		return 1;
	}
	r.stored = 1;
	r.console = fopen("/dev/null", "w");
	memcpy(r.boot_id, boot_id, 16);

	is_int(rec_emit(&r, RS_BOOT, "{\"kernel\":\"k\"}"), 0, "a small record is stored");
	big = big_run(RECORD_PAYLOAD_MAX + 1000);
	rc = rec_emit(&r, RS_RUN, big);
	is_int(rc, 0, "a record past RECORD_PAYLOAD_MAX is still stored (truncated)");
	is_int(r.stored, 1, "... and the partition is not switched off");
	is_int(rec_emit(&r, RS_RUN, "{\"workload\":\"touch\",\"status\":\"ok\"}"), 0, "the next record is stored");
	is_int(rec_emit(&r, RS_END, "{\"reason\":\"all steps done\"}"), 0, "... and so is the end record");

	scan(&reg, &s);
	is_int(s.n, 4, "four records read back");
	is_int(s.type[1], RS_RUN, "the truncated record keeps its type");
	v = s.n > 1 ? json_parse(s.payload[1], strlen(s.payload[1]), err, sizeof err) : NULL;
	ok(v != NULL, "the truncated record is valid JSON");
	ok(s.n > 1 && strlen(s.payload[1]) < 4096, "... and small (%zu bytes)", s.n > 1 ? strlen(s.payload[1]) : 0);
	t = v ? json_get(v, "truncated") : NULL;
	ok(t && t->t == J_OBJ, "it is marked \"truncated\"");
	is_int((long long)json_get_num(t, "original_bytes", -1), (long long)strlen(big), "... with the original size");
	is_str(v ? json_get_str(v, "workload") : NULL, "null", "the small members are kept (workload)");
	ok(v && json_get(v, "metrics") && json_get(v, "metrics")->t == J_ARR, "... (metrics)");
	ok(v && !json_get(v, "counters"), "the member that outgrew the limit is dropped");
	{
		const struct jv *d = t ? json_get(t, "dropped") : NULL, *k = t ? json_get(t, "kept") : NULL;
		ok(d && d->t == J_ARR && d->n == 1 && d->items[0]->t == J_STR && !strcmp(d->items[0]->str, "counters"),
		   "\"dropped\" names it");
		ok(k && k->t == J_ARR && k->n == 5, "\"kept\" names the five kept members");
	}
	json_free(v);
	ok(s.n > 2 && !strcmp(s.payload[2], "{\"workload\":\"touch\",\"status\":\"ok\"}"),
	   "the record after the big one is stored whole");
	for (int i = 0; i < s.n && i < 8; i++)
		free(s.payload[i]);
	{
		/* not an object: its beginning is kept as text, cut on a UTF-8
		 * character boundary */
		struct sbuf cut = {0};
		size_t n = 200 * 1024;
		char *raw = xmalloc(n + 1);
		for (size_t i = 0; i < n; i += 2)
			memcpy(raw + i, "\xc3\xa9", 2);	/* é */
		raw[n] = 0;
		raw[0] = '[';
		rec_truncate(&cut, raw, n, REC_TRUNC_BUDGET);
		v = json_parse(cut.s, cut.len, err, sizeof err);
		ok(v && json_get(v, "truncated") && json_get_str(json_get(v, "truncated"), "head"),
		   "a payload that is not an object keeps its head as a string (%s)", v ? "valid JSON" : err);
		ok(cut.len < REC_TRUNC_MEMBER_MAX + 200, "... bounded (%zu bytes)", cut.len);
		json_free(v);
		sb_free(&cut);
		free(raw);
	}
	free(big);
	fclose(r.console);
	close(reg.fd);
	return tap_done();
}
