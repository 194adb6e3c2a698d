/*
 * tunables.c - the plan's tunables: block-queue settings applied to every
 * device of a layout (the top device and its members), and VM settings
 * (/proc/sys/vm) applied to the machine before the run and put back after
 * it. Then every setting a figure may depend on is read back and recorded
 * as in force, whether the plan set it or not. A value the kernel refused
 * (or accepted and ignored) is recorded as refused with what stayed in
 * force; one the device lacks, as skipped. `default` is the kernel's own
 * value: the one the setting had before the plan first changed it (on this
 * layout, for a device's; in this boot, for the machine's), written back
 * if a run before changed it, and recorded under "defaults". The run goes
 * on either way: compare keys by what held.
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

/* The VM settings a run records, the plan may set (lib/plan.c), and
 * init puts back after each run. */
static const char *const vm_names[] = {
	"vm.dirty_ratio", "vm.dirty_background_ratio", "vm.dirty_expire_centisecs",
	"vm.dirty_writeback_centisecs", "vm.swappiness", "vm.vfs_cache_pressure", "vm.min_free_kbytes",
};
#define NVM (sizeof vm_names / sizeof *vm_names)

static int is_vm(const char *name)
{
	return !strncmp(name, "vm.", 3);
}

static void vm_path(const char *name, char *path, size_t len)
{
	snprintf(path, len, "/proc/sys/vm/%s", name + 3);
}

/* What a setting held before the plan first wrote it: per (device,
 * attribute) of the layout in place (tunables_forget at its teardown), and
 * per VM setting for the whole boot. */
#define MAX_ORIG 256
static struct orig {
	char dev[32], name[40];
	char *value;
} orig[MAX_ORIG];
static size_t norig;
static int vm_changed[NVM];

static const char *orig_get(const char *dev, const char *name)
{
	for (size_t i = 0; i < norig; i++)
		if (!strcmp(orig[i].dev, dev) && !strcmp(orig[i].name, name))
			return orig[i].value;
	return NULL;
}

/* Remember v as the original of (dev, name) unless one is known already. */
static const char *orig_keep(const char *dev, const char *name, const char *v)
{
	const char *o = orig_get(dev, name);
	if (o || !v || norig == MAX_ORIG)
		return o;
	snprintf(orig[norig].dev, sizeof orig[norig].dev, "%s", dev);
	snprintf(orig[norig].name, sizeof orig[norig].name, "%s", name);
	orig[norig].value = xstrdup(v);
	return orig[norig++].value;
}

void tunables_forget(void)
{
	size_t keep = 0;
	for (size_t i = 0; i < norig; i++) {
		if (!strcmp(orig[i].dev, "vm")) {
			orig[keep++] = orig[i];
			continue;
		}
		free(orig[i].value);
	}
	norig = keep;
}

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
static void one_device(struct jw *w, struct jw *refused, struct jw *skipped, struct jw *defaults,
		       const struct plan_section *p, unsigned combo, const char *dev)
{
	for (size_t t = 0; t < p->ntunables; t++) {
		const char *name = p->tunables[t].name, *want = plan_tunable_value(p, combo, t);
		const char *attr = attr_of(name);
		char path[256], *got, *now;
		if (is_vm(name))
			continue;
		snprintf(path, sizeof path, "/sys/block/%s/%s", dev, attr ? attr : name);
		if (!attr || access(path, F_OK) != 0) {
			note(skipped, name, dev, want, NULL,
			     attr ? "the device has no such attribute (kernel or driver lacks it)" : "unknown tunable");
			continue;
		}
		now = read_value(dev, attr, name);
		orig_keep(dev, name, now);
		free(now);
		if (!strcmp(want, "default")) {
			/* the kernel's own, as it was before this layout's first write */
			const char *o = orig_get(dev, name);
			char key[80];
			snprintf(key, sizeof key, "%s/%s", dev, name);
			jw_str(defaults, key, o);
			if (!o)
				continue;
			want = o;
			got = read_value(dev, attr, name);
			if (got && !strcmp(got, o)) {
				free(got);
				continue;
			}
			free(got);
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

/* The plan's VM settings for this run (default: the boot's own), then
 * every VM setting as read back, into "vm". */
static void vm_apply(struct jw *w, struct jw *refused, struct jw *skipped, struct jw *defaults,
		     const struct plan_section *p, unsigned combo)
{
	for (size_t t = 0; t < p->ntunables; t++) {
		const char *name = p->tunables[t].name, *want = plan_tunable_value(p, combo, t), *o;
		char path[96], *now, *got;
		size_t k;
		if (!is_vm(name))
			continue;
		for (k = 0; k < NVM && strcmp(vm_names[k], name); k++)
			;
		vm_path(name, path, sizeof path);
		now = read_attr(path);
		if (!now) {
			note(skipped, name, NULL, want, NULL, "this kernel has no such setting");
			continue;
		}
		o = orig_keep("vm", name, now);
		free(now);
		if (!strcmp(want, "default")) {
			jw_str(defaults, name, o);
			want = o;
		}
		if (!want)
			continue;
		if (k < NVM)
			vm_changed[k] = 1;
		if (write_file(path, want) != 0) {
			char why[200];
			snprintf(why, sizeof why, "the kernel refused %s=%s (%s)", name, want, strerror(errno));
			got = read_attr(path);
			note(refused, name, NULL, want, got, why);
			free(got);
			continue;
		}
		got = read_attr(path);
		if (got && strcmp(got, want)) {
			char why[200];
			snprintf(why, sizeof why, "requested %s=%s, the kernel keeps %s", name, want, got);
			note(refused, name, NULL, want, got, why);
		}
		free(got);
	}
	jw_obj(w, "vm");
	for (size_t k = 0; k < NVM; k++) {
		char path[96], *v;
		vm_path(vm_names[k], path, sizeof path);
		if ((v = read_attr(path)))
			jw_str(w, vm_names[k], v);
		free(v);
	}
	jw_obj_end(w);
}

void tunables_restore(void)
{
	for (size_t k = 0; k < NVM; k++) {
		char path[96];
		const char *o = orig_get("vm", vm_names[k]);
		if (!vm_changed[k] || !o)
			continue;
		vm_path(vm_names[k], path, sizeof path);
		if (write_file(path, o) != 0)
			warning("unable to put %s back to %s after the run: %s", vm_names[k], o, strerror(errno));
		vm_changed[k] = 0;
	}
}

char *tunables_apply(const struct plan_section *p, unsigned combo, const struct built_layout *bl)
{
	struct jw w, refused, skipped, defaults;
	const char *top = bl->dev[0] ? strrchr(bl->dev, '/') + 1 : NULL;
	int dropped, blk = 0;

	jw_init(&w);
	jw_init(&refused);
	jw_arr(&refused, NULL);
	jw_init(&skipped);
	jw_arr(&skipped, NULL);
	jw_init(&defaults);
	jw_obj(&defaults, NULL);
	jw_obj(&w, NULL);
	jw_obj(&w, "requested");
	for (size_t t = 0; t < p->ntunables; t++) {
		jw_str(&w, p->tunables[t].name, plan_tunable_value(p, combo, t));
		blk |= !is_vm(p->tunables[t].name);
	}
	jw_obj_end(&w);
	/* in force, whether the plan set anything or not */
	jw_obj(&w, "in_force");
	if (top)
		one_device(&w, &refused, &skipped, &defaults, p, combo, top);
	for (size_t i = 0; i < bl->nmembers; i++)
		if (!top || strcmp(top, bl->members[i]))
			one_device(&w, &refused, &skipped, &defaults, p, combo, bl->members[i]);
	jw_obj_end(&w);
	vm_apply(&w, &refused, &skipped, &defaults, p, combo);
	jw_arr_end(&refused);
	jw_arr_end(&skipped);
	jw_obj_end(&defaults);
	if (blk && !top && !bl->nmembers) {
		/* the block settings have no device here; the VM ones do not need one */
		sb_free(&skipped.sb);
		jw_init(&skipped);
		jw_arr(&skipped, NULL);
		for (size_t t = 0; t < p->ntunables; t++)
			if (!is_vm(p->tunables[t].name))
				note(&skipped, p->tunables[t].name, NULL, plan_tunable_value(p, combo, t), NULL,
				     bl->pl->kind == LAYOUT_TMPFS ? "tmpfs has no block device" : "this layout has no block device");
		jw_arr_end(&skipped);
	}
	jw_raw(&w, "refused", refused.sb.s);
	jw_raw(&w, "skipped", skipped.sb.s);
	jw_raw(&w, "defaults", defaults.sb.s);
	sb_free(&defaults.sb);
	/* the same cold start for every run */
	dropped = drop_page_cache() == 0;
	jw_bool(&w, "drop_caches", dropped);
	jw_obj_end(&w);
	sb_free(&refused.sb);
	sb_free(&skipped.sb);
	return sb_steal(&w.sb);
}
