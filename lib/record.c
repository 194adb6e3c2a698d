/*
 * record.c - store-then-mirror of records (see record.h).
 */
#include <errno.h>
#include <string.h>

#include "err.h"
#include "hash.h"
#include "json.h"
#include "record.h"

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

int rec_emit(struct recorder *r, uint32_t type, const char *payload)
{
	struct sbuf line = {0};
	uint64_t seq = 0;
	int rc = 1;
	size_t len = strlen(payload);

	if (r->stored) {
		if (rs_append(&r->w, type, payload, len, &seq) == 0) {
			rc = 0;
		} else if (errno == ENOSPC) {
			warn("results partition is full: this and later records are on the console only");
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
