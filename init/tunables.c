/*
 * tunables.c - block-queue tunables from the plan, applied to every device
 * of a layout (the top device and its members), read back, and recorded as
 * in force. A tunable the kernel or device lacks is recorded as skipped with
 * its reason; the run goes on.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "err.h"
#include "init.h"
#include "json.h"
#include "layout.h"
#include "xio.h"

static const struct {
	const char *name, *attr;
} attrs[] = {
	{ "scheduler", "queue/scheduler" },
	{ "read_ahead_kb", "queue/read_ahead_kb" },
	{ "nr_requests", "queue/nr_requests" },
	{ "queue_depth", "device/queue_depth" },
};

static const char *attr_of(const char *name)
{
	for (size_t i = 0; i < sizeof attrs / sizeof *attrs; i++)
		if (!strcmp(attrs[i].name, name))
			return attrs[i].attr;
	return NULL;
}

/* "[mq-deadline] none" -> "mq-deadline" */
static void active(char *v)
{
	char *a = strchr(v, '['), *b;
	if (a && (b = strchr(a, ']'))) {
		memmove(v, a + 1, b - a - 1);
		v[b - a - 1] = 0;
	}
}

static void one_device(struct jw *w, struct jw *skipped, const struct plan *p, unsigned combo, const char *dev)
{
	jw_obj(w, dev);
	for (size_t t = 0; t < p->ntunables; t++) {
		const char *name = p->tunables[t].name, *want = plan_tunable_value(p, combo, t);
		const char *attr = attr_of(name);
		char path[256], *got;
		snprintf(path, sizeof path, "/sys/block/%s/%s", dev, attr ? attr : name);
		if (!attr || access(path, F_OK) != 0) {
			jw_obj(skipped, NULL);
			jw_str(skipped, "tunable", name);
			jw_str(skipped, "device", dev);
			jw_str(skipped, "reason", attr ? "the device has no such attribute (kernel or driver lacks it)" : "unknown tunable");
			jw_obj_end(skipped);
			continue;
		}
		int wrote = write_file(path, want) == 0;
		if (!wrote) {
			char *avail = read_attr(path), why[320];
			snprintf(why, sizeof why, "the kernel refused %s=%s (%s); offered: %s", name, want, strerror(errno),
				 avail ? avail : "?");
			jw_obj(skipped, NULL);
			jw_str(skipped, "tunable", name);
			jw_str(skipped, "device", dev);
			jw_str(skipped, "reason", why);
			jw_obj_end(skipped);
			free(avail);
		}
		got = read_attr(path);
		if (got && !strcmp(name, "scheduler"))
			active(got);
		if (wrote && got && strcmp(got, want)) {
			/* bio-based devices (md, brd) accept and ignore some values */
			char why[320];
			snprintf(why, sizeof why, "requested %s=%s, the kernel keeps %s", name, want, got);
			jw_obj(skipped, NULL);
			jw_str(skipped, "tunable", name);
			jw_str(skipped, "device", dev);
			jw_str(skipped, "reason", why);
			jw_obj_end(skipped);
		}
		jw_str(w, name, got);
		free(got);
	}
	jw_obj_end(w);
}

char *tunables_apply(const struct plan *p, unsigned combo, const struct built_layout *bl)
{
	struct jw w, skipped;
	const char *top = bl->dev[0] ? strrchr(bl->dev, '/') + 1 : NULL;
	int dropped;

	jw_init(&w);
	jw_init(&skipped);
	jw_arr(&skipped, NULL);
	jw_obj(&w, NULL);
	jw_obj(&w, "requested");
	for (size_t t = 0; t < p->ntunables; t++)
		jw_str(&w, p->tunables[t].name, plan_tunable_value(p, combo, t));
	jw_obj_end(&w);
	jw_obj(&w, "in_force");
	if (p->ntunables) {
		if (top)
			one_device(&w, &skipped, p, combo, top);
		for (size_t i = 0; i < bl->nmembers; i++)
			if (!top || strcmp(top, bl->members[i]))
				one_device(&w, &skipped, p, combo, bl->members[i]);
	}
	jw_obj_end(&w);
	jw_arr_end(&skipped);
	if (p->ntunables && !top && !bl->nmembers) {
		sb_reset(&skipped.sb);
		sb_printf(&skipped.sb, "[{\"tunable\":\"*\",\"device\":null,\"reason\":\"%s has no block device\"}]",
			  bl->pl->kind == LAYOUT_TMPFS ? "tmpfs" : "this layout");
	}
	jw_raw(&w, "skipped", skipped.sb.s);
	/* the same cold start for every run */
	sync();
	dropped = write_file("/proc/sys/vm/drop_caches", "3") == 0;
	jw_bool(&w, "drop_caches", dropped);
	jw_obj_end(&w);
	sb_free(&skipped.sb);
	return sb_steal(&w.sb);
}
