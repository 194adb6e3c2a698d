/*
 * tunables.c - block-queue tunables from the plan, applied to every device
 * of a layout (the top device and its members); then every queue setting a
 * figure may depend on is read back and recorded as in force, whether the
 * plan set it or not. A value the kernel refused (or accepted and ignored)
 * is recorded as refused with what stayed in force; one the device lacks,
 * as skipped. The run goes on either way: compare keys by what held.
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

/* Every block-queue setting a result may depend on: the ones a plan may set
 * and the ones it may not (rotational, write cache, request size), each read
 * back from sysfs for the top device and every member on every run. */
static const struct {
	const char *name, *attr;
	int settable;
} attrs[] = {
	{ "scheduler", "queue/scheduler", 1 },
	{ "read_ahead_kb", "queue/read_ahead_kb", 1 },
	{ "nr_requests", "queue/nr_requests", 1 },
	{ "queue_depth", "device/queue_depth", 1 },
	{ "rotational", "queue/rotational", 0 },
	{ "write_cache", "queue/write_cache", 0 },
	{ "max_sectors_kb", "queue/max_sectors_kb", 0 },
};

static const char *attr_of(const char *name)
{
	for (size_t i = 0; i < sizeof attrs / sizeof *attrs; i++)
		if (!strcmp(attrs[i].name, name) && attrs[i].settable)
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

static char *read_value(const char *dev, const char *attr, const char *name)
{
	char path[256], *v;
	snprintf(path, sizeof path, "/sys/block/%s/%s", dev, attr);
	v = read_attr(path);
	if (v && !strcmp(name, "scheduler"))
		active(v);
	return v;
}

static void note(struct jw *list, const char *name, const char *dev, const char *want, const char *got, const char *why)
{
	jw_obj(list, NULL);
	jw_str(list, "tunable", name);
	jw_str(list, "device", dev);
	if (want)
		jw_str(list, "requested", want);
	if (got)
		jw_str(list, "in_force", got);
	jw_str(list, "reason", why);
	jw_obj_end(list);
}

/* Set what the plan asks on one device, then read back everything. */
static void one_device(struct jw *w, struct jw *refused, struct jw *skipped, const struct plan_section *p,
		       unsigned combo, const char *dev)
{
	for (size_t t = 0; t < p->ntunables; t++) {
		const char *name = p->tunables[t].name, *want = plan_tunable_value(p, combo, t);
		const char *attr = attr_of(name);
		char path[256], *got;
		snprintf(path, sizeof path, "/sys/block/%s/%s", dev, attr ? attr : name);
		if (!attr || access(path, F_OK) != 0) {
			note(skipped, name, dev, want, NULL,
			     attr ? "the device has no such attribute (kernel or driver lacks it)" : "unknown tunable");
			continue;
		}
		if (write_file(path, want) != 0) {
			char *avail = read_attr(path), why[320];
			snprintf(why, sizeof why, "the kernel refused %s=%s (%s); offered: %s", name, want, strerror(errno),
				 avail ? avail : "?");
			got = read_value(dev, attr, name);
			note(refused, name, dev, want, got, why);
			free(avail);
			free(got);
			continue;
		}
		got = read_value(dev, attr, name);
		if (got && strcmp(got, want)) {
			/* bio-based devices (md, brd) accept and ignore some values */
			char why[320];
			snprintf(why, sizeof why, "requested %s=%s, the kernel keeps %s", name, want, got);
			note(refused, name, dev, want, got, why);
		}
		free(got);
	}
	jw_obj(w, dev);
	for (size_t i = 0; i < sizeof attrs / sizeof *attrs; i++) {
		char *v = read_value(dev, attrs[i].attr, attrs[i].name);
		if (v)
			jw_str(w, attrs[i].name, v);
		free(v);
	}
	jw_obj_end(w);
}

char *tunables_apply(const struct plan_section *p, unsigned combo, const struct built_layout *bl)
{
	struct jw w, refused, skipped;
	const char *top = bl->dev[0] ? strrchr(bl->dev, '/') + 1 : NULL;
	int dropped;

	jw_init(&w);
	jw_init(&refused);
	jw_arr(&refused, NULL);
	jw_init(&skipped);
	jw_arr(&skipped, NULL);
	jw_obj(&w, NULL);
	jw_obj(&w, "requested");
	for (size_t t = 0; t < p->ntunables; t++)
		jw_str(&w, p->tunables[t].name, plan_tunable_value(p, combo, t));
	jw_obj_end(&w);
	/* in force, whether the plan set anything or not */
	jw_obj(&w, "in_force");
	if (top)
		one_device(&w, &refused, &skipped, p, combo, top);
	for (size_t i = 0; i < bl->nmembers; i++)
		if (!top || strcmp(top, bl->members[i]))
			one_device(&w, &refused, &skipped, p, combo, bl->members[i]);
	jw_obj_end(&w);
	jw_arr_end(&refused);
	jw_arr_end(&skipped);
	if (p->ntunables && !top && !bl->nmembers) {
		sb_reset(&skipped.sb);
		sb_printf(&skipped.sb, "[{\"tunable\":\"*\",\"device\":null,\"reason\":\"%s has no block device\"}]",
			  bl->pl->kind == LAYOUT_TMPFS ? "tmpfs" : "this layout");
	}
	jw_raw(&w, "refused", refused.sb.s);
	jw_raw(&w, "skipped", skipped.sb.s);
	/* the same cold start for every run */
	sync();
	dropped = write_file("/proc/sys/vm/drop_caches", "3") == 0;
	jw_bool(&w, "drop_caches", dropped);
	jw_obj_end(&w);
	sb_free(&refused.sb);
	sb_free(&skipped.sb);
	return sb_steal(&w.sb);
}
