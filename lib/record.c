/*
 * record.c - store-then-mirror of records (see record.h).
 *
 * A record too big for the partition (past RECORD_PAYLOAD_MAX) is never a
 * reason to stop storing: it is stored cut down to its small members, marked
 * "truncated" with its original size and what was kept and dropped, the
 * console still gets it whole, and later records are stored as usual.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "defaults.h"
#include "err.h"
#include "hash.h"
#include "json.h"
#include "record.h"
#include "xio.h"

void rec_line(struct sbuf *sb, uint64_t seq, const unsigned char boot_id[16], uint32_t type,
	      const char *payload, size_t len)
{
	char hex[33];
	const char *tn = rs_type_name(type);
	hexify(boot_id, 16, hex);
	if (seq)
		sb_printf(sb, "{\"seq\":%llu,", (unsigned long long)seq);
	else
		sb_puts(sb, "{\"seq\":null,");
	sb_printf(sb, "\"boot_id\":\"%s\",\"type\":", hex);
	if (tn)
		sb_printf(sb, "\"%s\"", tn);
	else
		sb_printf(sb, "\"type-%u\"", type);
	sb_puts(sb, ",\"data\":");
	sb_add(sb, payload, len);
	sb_putc(sb, '}');
}

/* The head of text as a JSON string, cut on a UTF-8 character boundary. */
static void quote_head(struct sbuf *sb, const char *text, size_t len, size_t max)
{
	char *head;
	if (len > max) {
		len = max;
		while (len && ((unsigned char)text[len] & 0xc0) == 0x80)
			len--;
	}
	head = xstrndup(text, len);
	json_quote(sb, head);
	free(head);
}

void rec_truncate(struct sbuf *out, const char *payload, size_t len, size_t budget)
{
	char err[128];
	struct jv *v = json_parse(payload, len, err, sizeof err);
	struct sbuf kept = {0}, names = {0}, dropped = {0};
	size_t used = 0, nkept = 0, ndropped = 0;

	sb_putc(out, '{');
	if (v && v->t == J_OBJ) {
		for (size_t i = 0; i < v->n; i++) {
			struct sbuf m = {0};
			json_dump(&m, v->items[i]);
			/* the small members (names, status, figures) fit; the ones
			 * that grow with the run (traces, details) are what is cut */
			if (m.len <= REC_TRUNC_MEMBER_MAX && used + m.len <= budget &&
			    strcmp(v->keys[i], "truncated")) {
				json_quote(&kept, v->keys[i]);
				sb_putc(&kept, ':');
				sb_add(&kept, m.s, m.len);
				sb_putc(&kept, ',');
				if (nkept++)
					sb_putc(&names, ',');
				json_quote(&names, v->keys[i]);
				used += m.len;
			} else {
				if (ndropped++)
					sb_putc(&dropped, ',');
				json_quote(&dropped, v->keys[i]);
			}
			sb_free(&m);
		}
		if (kept.len)
			sb_add(out, kept.s, kept.len);
	}
	sb_printf(out, "\"truncated\":{\"original_bytes\":%zu,\"kept\":[", len);
	if (names.len)
		sb_add(out, names.s, names.len);
	sb_puts(out, "],\"dropped\":[");
	if (dropped.len)
		sb_add(out, dropped.s, dropped.len);
	sb_putc(out, ']');
	if (!v || v->t != J_OBJ) {
		/* not an object (or not JSON at all): keep its beginning as text */
		sb_puts(out, ",\"head\":");
		quote_head(out, payload, len, REC_TRUNC_MEMBER_MAX);
	}
	sb_puts(out, "}}");
	json_free(v);
	sb_free(&kept);
	sb_free(&names);
	sb_free(&dropped);
}

int rec_emit(struct recorder *r, uint32_t type, const char *payload)
{
	struct sbuf line = {0};
	uint64_t seq = 0;
	int rc = 1;
	size_t len = strlen(payload);

	if (r->stored) {
		int st = rs_append(&r->w, type, payload, len, &seq);
		if (st < 0 && errno == EFBIG) {
			struct sbuf cut = {0};
			rec_truncate(&cut, payload, len, REC_TRUNC_BUDGET);
			st = rs_append(&r->w, type, cut.s, cut.len, &seq);
			if (st == 0)
				warning("a %s record of %zu bytes is past the partition's %d-byte limit: stored "
				     "truncated to %zu bytes (the console has it whole)",
				     rs_type_name(type) ? rs_type_name(type) : "?", len, RECORD_PAYLOAD_MAX, cut.len);
			sb_free(&cut);
		}
		if (st == 0) {
			rc = 0;
		} else if (errno == ENOSPC) {
			warning("results partition is full: this and later records are on the console only");
			r->stored = 0;
		} else {
			warn_sys("unable to write a record to the results partition (console only from now on)");
			r->stored = 0;
			rc = -1;
		}
	}
	sb_puts(&line, CONSOLE_PREFIX);
	rec_line(&line, seq, r->boot_id, type, payload, len);
	sb_putc(&line, '\n');
	if (r->keep)
		sb_add(r->keep, line.s + strlen(CONSOLE_PREFIX), line.len - strlen(CONSOLE_PREFIX));
	if (r->console) {
		fwrite(line.s, 1, line.len, r->console);
		fflush(r->console);
	}
	sb_free(&line);
	return rc;
}
