/*
 * compare.c - grouping runs and judging differences (see compare.h).
 *
 * Everything is looked up by hash (boots by id, groups by their whole key,
 * runs by boot id and sequence number), so a fleet's 10,000 boots cost
 * time linear in their records and memory linear in their figures.
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <limits.h>
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compare.h"
#include "defaults.h"
#include "folded.h"
#include "err.h"
#include "hash.h"
#include "runid.h"
#include "sbuf.h"
#include "xio.h"

static const char *const st_names[ST_N] = { "ok", "failed", "timeout", "crashed", "skipped" };

void cmp_init(struct cmp *c)
{
	memset(c, 0, sizeof *c);
	c->alpha = 0.05;
	c->fdr = 0.05;
	c->min_effect = 0.005;
	c->noisy = 0.05;
	c->margin = 0.02;
}

void kernel_label(const char *release, const char *version, char *out, size_t len)
{
	const char *deb = version ? strstr(version, "Debian ") : NULL;
	const char *flav = "generic";
	if (!release)
		release = "unknown";
	if (strstr(release, "-rt-") || strstr(release, "-rt"))
		flav = "rt";
	else if (strstr(release, "-cloud-"))
		flav = "cloud";
	if (deb) {
		char up[32];
		size_t n = strcspn(deb + 7, "- )");
		snprintf(up, sizeof up, "%.*s", (int)(n < 31 ? n : 31), deb + 7);
		snprintf(out, len, "%s %s", up, flav);
	} else {
		snprintf(out, len, "%s", release);
	}
}

/* What a record says is shown on a terminal and in CSV: control bytes
 * (an escape sequence, a carriage return) become '?' (text_clean). The
 * keys keep the bytes as they were (runid quotes them), so nothing pools. */
static char *clean_dup(const char *s)
{
	char *d = xstrdup(s);
	text_clean(d);
	return d;
}

static const char *str_or(const struct jv *o, const char *k, const char *def)
{
	const char *s = json_get_str(o, k);
	return s ? s : def;
}

static void name_once(char *list, size_t size, const char *name)
{
	size_t l = strlen(list);
	char q[80];
	snprintf(q, sizeof q, "\"%s\"", name);
	if (strstr(list, q) || (l >= 3 && !strcmp(list + l - 3, "...")))
		return;
	if (l + strlen(q) + 8 < size)
		snprintf(list + l, size - l, "%s%s", l ? ", " : "", q);
	else if (l + 6 < size)
		snprintf(list + l, size - l, ", ...");	/* the list is full: say there are more */
}

static void kernel_fill(struct cmp_kernel *k, const struct cmp_boot *b)
{
	snprintf(k->label, sizeof k->label, "%s", b->label);
	snprintf(k->release, sizeof k->release, "%s", b->release);
	snprintf(k->config, sizeof k->config, "%s", b->config);
	snprintf(k->userland, sizeof k->userland, "%s", b->userland);
	snprintf(k->accel, sizeof k->accel, "%s", b->accel);
	snprintf(k->qemu_setup, sizeof k->qemu_setup, "%s", b->qemu_setup);
	k->filled = 1;
}

/* --series: the slot a boot's kernel has, or CMP_OFF_SERIES. A name is a
 * label, or a release that only one label has: a kernel named both ways,
 * or a release that two labels share (two tags, boots apart by memory),
 * would pool or split silently, so either is refused at finish, whatever
 * order the series or the boots came in. A run without a boot record has
 * no kernel to match. */
#define CMP_OFF_SERIES (-2)
static int series_index(struct cmp *c, const struct cmp_boot *b)
{
	int by_label = -1, by_release = -1;
	if (!b->id[0]) {
		c->series_unknown++;
		return CMP_OFF_SERIES;
	}
	for (size_t i = 0; i < c->nseries; i++) {
		if (!strcmp(c->series[i], b->label))
			by_label = (int)i;
		else if (!strcmp(c->series[i], b->release))
			by_release = (int)i;
	}
	if (by_label >= 0 && by_release >= 0) {
		if (!c->series_clash[0])
			snprintf(c->series_clash, sizeof c->series_clash,
				 "--series names kernel \"%s\" twice, by its label and by its release \"%.60s\" (which "
				 "another kernel may share): name it once, by its label", b->label, b->release);
		return CMP_OFF_SERIES;
	}
	if (by_label < 0 && by_release < 0) {
		name_once(c->off_series_names, sizeof c->off_series_names, b->label);
		return CMP_OFF_SERIES;
	}
	{
		int i = by_label >= 0 ? by_label : by_release;
		struct cmp_kernel *K = &c->kernels[i];
		if (!K->filled)
			kernel_fill(K, b);
		else if (strcmp(K->label, b->label)) {
			if (!c->series_clash[0])
				snprintf(c->series_clash, sizeof c->series_clash,
					 "--series \"%.60s\" names two kernels, \"%s\" and \"%s\": name each by its label",
					 c->series[i], K->label, b->label);
			return CMP_OFF_SERIES;
		}
		return i;
	}
}

const char *cmp_set_series(struct cmp *c, const char *list)
{
	static char why[160];
	char *p;
	if (c->nseries)
		return "--series given twice";
	if (strlen(list) > 4096)
		return "--series is too long (at most 4096 bytes)";
	c->series_buf = xstrdup(list);
	/* K1,K2: a comma followed by a space is part of a name, as in the
	 * label "6.1.192 generic, 1024 MiB" */
	for (p = c->series_buf; p;) {
		char *comma = p;
		while ((comma = strchr(comma, ',')) && comma[1] == ' ')
			comma++;
		if (comma)
			*comma = 0;
		if (!*p || strlen(p) >= sizeof c->kernels[0].label) {
			snprintf(why, sizeof why, "bad --series: an empty or overlong name (over %zu bytes) in \"%.60s\"",
				 sizeof c->kernels[0].label - 1, list);
			return why;
		}
		if (c->nseries == CMP_MAX_KERNELS) {
			snprintf(why, sizeof why, "--series names more than %d kernels", CMP_MAX_KERNELS);
			return why;
		}
		for (size_t i = 0; i < c->nseries; i++)
			if (!strcmp(c->series[i], p)) {
				snprintf(why, sizeof why, "--series names \"%.60s\" twice", p);
				return why;
			}
		c->series[c->nseries++] = p;
		p = comma ? comma + 1 : NULL;
	}
	if (c->nseries < 2)
		return "--series needs two kernels at least (K1,K2,...: the first is the baseline)";
	for (size_t i = 0; i < c->nseries; i++)
		snprintf(c->kernels[i].label, sizeof c->kernels[i].label, "%s", c->series[i]);
	c->nkernels = c->nseries;
	return NULL;
}

/* -1 when the kernel would be one too many: its runs are counted apart
 * (CMP_OFF_SERIES: one the series does not name). */
static int kernel_index(struct cmp *c, const struct cmp_boot *b)
{
	if (c->nseries)
		return series_index(c, b);
	for (size_t i = 0; i < c->nkernels; i++)
		if (!strcmp(c->kernels[i].label, b->label))
			return (int)i;
	if (c->nkernels == CMP_MAX_KERNELS) {
		name_once(c->over_names, sizeof c->over_names, b->label);
		return -1;
	}
	struct cmp_kernel *k = &c->kernels[c->nkernels];
	kernel_fill(k, b);
	return (int)c->nkernels++;
}

static const struct cmp_boot *find_boot(const struct cmp *c, const char *id)
{
	size_t i = strmap_get(&c->boot_ix, id);
	return i == (size_t)-1 ? NULL : &c->boots[i];
}

static size_t mode_index(const struct cmp *c, const char *mode)
{
	for (size_t i = 0; i < c->nmodes; i++)
		if (!strcmp(c->modes[i], mode))
			return i;
	return 0;
}

static const char *add_mode(struct cmp *c, const char *mode)
{
	for (size_t i = 0; i < c->nmodes; i++)
		if (!strcmp(c->modes[i], mode))
			return c->modes[i];
	if (c->nmodes == CMP_MAX_MODES - 1 && strcmp(mode, "other"))
		return add_mode(c, "other");	/* a hostile number of modes is one more */
	c->modes = xrealloc(c->modes, (c->nmodes + 1) * sizeof *c->modes);
	c->modes[c->nmodes] = xstrdup(mode);
	return c->modes[c->nmodes++];
}

/* The experiment (mode, workload, parameters, layout, tunables: the group
 * key without the metric) of a run, by index, made when new. Keyed on the
 * raw strings as the groups are, so two experiments that print alike stay two. */
static size_t exp_of(struct cmp *c, const char *mode, const char *wl, const struct run_id *id)
{
	struct sbuf key = {0};
	const char *parts[] = { mode, wl, id->params.s, id->layout.s, id->tunables.s };
	size_t e;
	for (size_t p = 0; p < sizeof parts / sizeof *parts; p++)
		sb_printf(&key, "|%zu:%s", strlen(parts[p]), parts[p]);
	e = strmap_get(&c->exp_ix, key.s);
	if (e == (size_t)-1) {
		e = c->nexps;
		strmap_put(&c->exp_ix, key.s, e);
		if (c->nexps == c->ecap) {
			c->ecap = c->ecap ? c->ecap * 2 : 64;
			c->exps = xrealloc(c->exps, c->ecap * sizeof *c->exps);
		}
		memset(&c->exps[c->nexps++], 0, sizeof *c->exps);
	}
	sb_free(&key);
	return e;
}

static void group_key(struct sbuf *key, int kind, const char *mode, const char *wl, const struct run_id *id,
		      const char *metric, const char *unit, const char *better)
{
	/* each part length-prefixed: no byte in a part can shift it into the next */
	const char *parts[] = { mode, wl, id->params.s, id->layout.s, id->tunables.s, metric, unit, better };
	sb_printf(key, "%d", kind);
	for (size_t p = 0; p < sizeof parts / sizeof *parts; p++)
		sb_printf(key, "|%zu:%s", strlen(parts[p]), parts[p]);
}

/* The group of those keys: found, else made when make and fewer than
 * CMP_MAX_GROUPS of its kind are held, else NULL (a figure's or counter's
 * value is then counted in dropped_values here, a function by add_profile). */
/* Figures renamed since records were first written: the old name is the
 * same figure (oltp said tpm_new_order where dbt2 says new_order_tpm). */
static const char *metric_now(int kind, const char *wl, const char *metric)
{
	static const struct {
		const char *workload, *old, *now;
	} renamed[] = {
		{ "oltp", "tpm_new_order", "new_order_tpm" },
	};
	if (kind == CMP_FIGURE)
		for (size_t i = 0; i < sizeof renamed / sizeof *renamed; i++)
			if (!strcmp(wl, renamed[i].workload) && !strcmp(metric, renamed[i].old))
				return renamed[i].now;
	return metric;
}

static struct cmp_group *group_find(struct cmp *c, int kind, const char *mode, const char *wl, const struct run_id *id,
				    const char *lname, const char *metric, const char *unit, const char *better, int make)
{
	struct sbuf key = { 0 };
	size_t i;
	metric = metric_now(kind, wl, metric);
	group_key(&key, kind, mode, wl, id, metric, unit, better);
	i = strmap_get(&c->group_ix, key.s);
	if (i != (size_t)-1 || !make) {
		sb_free(&key);
		return i != (size_t)-1 ? &c->groups[i] : NULL;
	}
	/* what it will hold: its strings (the key twice, with the index's
	 * copy), a cell a kernel with its runs and tunables in force */
	size_t nk = c->nkernels > 1 ? c->nkernels : 2;
	size_t cost = sizeof(struct cmp_group) + 2 * key.len + strlen(mode) + strlen(wl) + strlen(id->params.s) + strlen(lname) +
		      strlen(id->layout.s) + strlen(id->tunables.s) + strlen(metric) + strlen(unit) + strlen(better) +
		      12 * 16 + nk * (sizeof(struct cmp_cell) + 2 * sizeof(struct cmp_unit) + strlen(id->inforce.s) + 16);
	if ((kind == CMP_PROFILE ? c->nprofile_groups : c->nvalue_groups) >= CMP_MAX_GROUPS ||
	    c->group_bytes + cost > CMP_MAX_GROUP_BYTES) {
		if (kind != CMP_PROFILE)
			c->dropped_values++;	/* add_profile counts its own */
		sb_free(&key);
		return NULL;
	}
	c->group_bytes += cost;
	if (kind == CMP_PROFILE)
		c->nprofile_groups++;
	else
		c->nvalue_groups++;
	if (c->ngroups == c->gcap) {
		c->gcap = c->gcap ? c->gcap * 2 : 64;
		c->groups = xrealloc(c->groups, c->gcap * sizeof *c->groups);
	}
	strmap_put(&c->group_ix, key.s, c->ngroups);
	struct cmp_group *g = &c->groups[c->ngroups++];
	memset(g, 0, sizeof *g);
	g->key = sb_steal(&key);
	g->xid = exp_of(c, mode, wl, id);
	g->kind = kind;
	g->mode = clean_dup(mode);
	g->workload = clean_dup(wl);
	g->params = xstrdup(id->params.s);
	g->layout = clean_dup(lname);
	g->lkey = xstrdup(id->layout.s);
	g->tunables = xstrdup(id->tunables.s);
	g->metric = clean_dup(metric);
	g->unit = clean_dup(unit);
	g->better = clean_dup(better);
	return g;
}

const struct cmp_group *cmp_group_lookup(const struct cmp *c, int kind, const char *mode, const char *wl,
					 const struct run_id *id, const char *metric, const char *unit, const char *better)
{
	struct sbuf key = { 0 };
	size_t i;
	group_key(&key, kind, mode, wl, id, metric, unit, better);
	i = strmap_get(&c->group_ix, key.s);
	sb_free(&key);
	return i != (size_t)-1 ? &c->groups[i] : NULL;
}

const struct cmp_boot *cmp_boot_of(const struct cmp *c, const char *id)
{
	return find_boot(c, id);
}

/* The plan section a figure's run came from, added to the group's list
 * (sections do not split rows: the same experiment in two sections is one
 * row, and says so); at most CMP_SECTION_BYTES of names, then "...". */
#define CMP_SECTION_BYTES 128
static void group_section(struct cmp_group *g, const char *sec)
{
	char name[72];
	size_t l;
	if (!sec || !*sec)
		return;
	snprintf(name, sizeof name, "%.64s", sec);
	text_clean(name);
	if (!g->section) {
		g->section = xstrdup(name);
		return;
	}
	l = strlen(g->section);
	if (l >= 3 && !strcmp(g->section + l - 3, "..."))
		return;
	/* already listed: as a whole name between ", " */
	for (const char *p = g->section; (p = strstr(p, name)); p++)
		if ((p == g->section || p[-1] == ' ') && (!p[strlen(name)] || p[strlen(name)] == ','))
			return;
	if (l + strlen(name) + 2 > CMP_SECTION_BYTES) {
		g->section = xrealloc(g->section, l + 6);
		memcpy(g->section + l, ", ...", 6);
		return;
	}
	g->section = xrealloc(g->section, l + strlen(name) + 3);
	snprintf(g->section + l, strlen(name) + 3, ", %s", name);
}

static struct cmp_group *group_of(struct cmp *c, int kind, const char *mode, const char *wl, const struct run_id *id,
				  const char *lname, const char *metric, const char *unit, const char *better)
{
	return group_find(c, kind, mode, wl, id, lname, metric, unit, better, 1);
}

static int profile_group_exists(struct cmp *c, const char *mode, const char *wl, const struct run_id *id,
				const char *lname, const char *name, const char *unit)
{
	return group_find(c, CMP_PROFILE, mode, wl, id, lname, name, unit, "", 0) != NULL;
}

static void grow_cells(struct cmp_group *g, size_t n)
{
	if (g->ncell >= n)
		return;
	g->cell = xrealloc(g->cell, n * sizeof *g->cell);
	memset(g->cell + g->ncell, 0, (n - g->ncell) * sizeof *g->cell);
	g->ncell = n;
}

static struct cmp_unit *unit_new(struct cmp_cell *cell, unsigned long long unit, unsigned round)
{
	struct cmp_unit *u;
	if (cell->nunits == cell->ucap) {
		cell->ucap = cell->ucap ? cell->ucap * 2 : 2;
		cell->units = xrealloc(cell->units, cell->ucap * sizeof *cell->units);
	}
	u = &cell->units[cell->nunits++];
	memset(u, 0, sizeof *u);
	u->unit = unit;
	u->round = round;
	return u;
}

/* A run's value into its boot's sums (cell_by_boot makes the cell's from
 * them). A boot's runs come together in every source we write, so the boot
 * is looked for at the end only; a boot met again later (records
 * interleaved by hand) gets a second entry, merged by cmp_finish. */
static void cell_add(struct cmp *c, struct cmp_group *g, size_t k, double v, const char *inforce)
{
	struct cmp_cell *cell;
	struct cmp_unit *u;
	if (!g)
		return;	/* past CMP_MAX_GROUPS (counters, stalls): counted by group_find */
	grow_cells(g, k + 1);
	cell = &g->cell[k];
	u = cell->nunits ? &cell->units[cell->nunits - 1] : NULL;
	if (!u || u->unit != c->cur_unit)
		u = unit_new(cell, c->cur_unit, c->cur_round);
	moments_add(&u->m, v);
	if (!cell->inforce)
		cell->inforce = xstrdup(inforce);
	else if (strcmp(cell->inforce, inforce) && strcmp(cell->inforce, "*")) {
		free(cell->inforce);
		cell->inforce = xstrdup("*");
	}
}

/* "6.1.192 rt [tag]" of a boot record, as the columns are labelled. */
static void boot_label(const struct jv *d, char *out, size_t len)
{
	const struct jv *k = json_get(d, "kernel");
	char rel[65], ver[160];
	snprintf(rel, sizeof rel, "%s", str_or(k, "release", "unknown"));
	snprintf(ver, sizeof ver, "%s", str_or(k, "version", ""));
	text_clean(rel);
	text_clean(ver);
	kernel_label(rel, ver, out, len);
	if (json_get_str(d, "tag")) {
		size_t l = strlen(out);
		snprintf(out + l, len - l, " [%s]", json_get_str(d, "tag"));
	}
	text_clean(out);
}

/* A serial the firmware's vendor left as a placeholder names no machine:
 * every board of a kind says it. */
static int placeholder_serial(const char *v)
{
	static const char *const ph[] = {
		"", "0", "none", "n/a", "na", "not specified", "not applicable", "to be filled by o.e.m.",
		"default string", "system serial number", "0123456789", "123456789", "serial number",
	};
	char low[32];
	size_t n = strlen(v);
	if (n >= sizeof low)
		return 0;
	for (size_t i = 0; i <= n; i++)
		low[i] = (char)tolower((unsigned char)v[i]);
	for (size_t i = 0; i < sizeof ph / sizeof *ph; i++)
		if (!strcmp(low, ph[i]))
			return 1;
	return 0;
}

/* The machine that ran a boot, as its firmware names it: the DMI serial
 * (a LAVA lab's QEMU device sets its name there), unless a placeholder,
 * else the product; "" when the boot record has no DMI (records before
 * 2026-12-07, no firmware). A name longer than the appliance records
 * (128 bytes) is cut. */
static void boot_machine(const struct jv *d, char *out, size_t len)
{
	const struct jv *m = json_get(d, "dmi");
	const char *v = json_get_str(m, "serial");
	if (!v || placeholder_serial(v))
		v = json_get_str(m, "product");
	snprintf(out, len, "%s", v ? v : "");
	text_clean(out);
}

/* Counts boot b among its column's machines. */
static void kernel_machine(struct cmp_kernel *K, const struct cmp_boot *b)
{
	unsigned i = 0;
	while (i < K->machines && strcmp(K->machine[i], b->machine))
		i++;
	if (i == K->machines) {
		if (i == CMP_MACHINES) {
			K->machine_other++;
			return;
		}
		snprintf(K->machine[i], sizeof K->machine[i], "%s", b->machine);
		K->machines++;
	}
	K->machine_boots[i]++;
}

/* What of QEMU's setup changes the figures: how it entered the kernel (a
 * PVH boot has no KASLR, a bzImage boot does) and a cap on the attached
 * disks' reads. "" when the boot record says neither. */
static void qemu_setup(const struct jv *q, char *out, size_t len)
{
	const char *entry = json_get_str(q, "entry");
	double bps = json_get_num(q, "disk_read_bps", 0);
	out[0] = 0;
	/* ours are "pvh" and "bzimage": another word of up to 16 name
	 * characters is shown, anything else (cut, it would pool with its
	 * prefix, or a byte of a longer character) is one word */
	if (entry)
		snprintf(out, len, "entry %s", name_ok(entry, 16, "._-") ? entry : "unreadable");
	if (bps >= 1) {
		size_t l = strlen(out);
		/* at most 16 digits, so that entry and cap fit the 64 bytes */
		snprintf(out + l, len - l, "%sdisk reads capped %.0f B/s", l ? ", " : "", bps < 1e15 ? bps : 1e15);
	}
}

/* A command-line word's key is key: "key" or "key=...". */
static int word_is(const char *p, size_t w, const char *key)
{
	size_t kl = strlen(key);
	return w >= kl && !strncmp(p, key, kl) && (w == kl || p[kl] == '=');
}

/* --by memory, cmdline.KEY or tag: the boot's value, as its column's label.
 * Memory is MemTotal rounded up to 64 MiB (what a kernel keeps for itself
 * varies by version, by less than that: QEMU's -m 512 reads 460-490 MiB). */
static void boot_factor(const struct cmp *c, const struct jv *d, char *out, size_t len)
{
	out[0] = 0;
	if (c->by == CMP_BY_MEMORY) {
		double kib = json_get_num(json_get(d, "memory"), "total_kib", 0);
		if (kib > 0 && kib < 1e15)
			snprintf(out, len, "%.0f MiB", ceil(kib / 1024 / 64) * 64);
		else
			snprintf(out, len, "memory unknown");
	} else if (c->by == CMP_BY_TAG) {
		const char *t = json_get_str(d, "tag");
		snprintf(out, len, t ? "[%s]" : "untagged", t);
	} else if (c->by == CMP_BY_CMDLINE) {
		const char *cl = json_get_str(d, "cmdline");
		snprintf(out, len, "%s unset", c->by_name);
		/* the last of the key's words wins, as the kernel's own parsing */
		for (const char *p = cl ? cl : ""; *p;) {
			size_t n = strcspn(p, " ");
			if (word_is(p, n, c->by_name))
				snprintf(out, len, "%.*s", (int)n, p);
			p += n + (p[n] == ' ');
		}
	}
	text_clean(out);
}

/* What of a boot, besides its kernel, is part of the experiment: its memory
 * (MemTotal rounded up to 64 MiB), its CPUs, and its kernel command line
 * less the words the harness itself varies (bootbench.*: nonce, upload URL,
 * plan, results disk; a bootloader's BOOT_IMAGE= and initrd=; noirqdebug,
 * which scripts/boot-qemu adds from 2026-12-07 on so that the serial
 * console is never switched off, and which older boots lack). Under --by
 * memory or cmdline.KEY, the factor itself is left out (memory and mem=,
 * which sets it; KEY's words): it makes the columns, not the rows. */
static int by_word(const void *x, const void *y)
{
	return strcmp(*(char *const *)x, *(char *const *)y);
}

static void boot_ident(const struct cmp *c, const struct jv *d, char mem[24], char cpus[16], struct sbuf *cmd)
{
	double kib = json_get_num(json_get(d, "memory"), "total_kib", 0);
	double n = json_get_num(json_get(d, "cpu"), "count", 0);
	const char *cl = json_get_str(d, "cmdline");
	const char *factor = c->by == CMP_BY_MEMORY ? "mem" : c->by == CMP_BY_CMDLINE ? c->by_name : NULL;
	/* mem= sets the memory: comparing it compares memory too */
	int by_memory = factor && !strcmp(factor, "mem");
	char **words = NULL;
	size_t nw = 0, cap = 0;
	snprintf(mem, 24, kib > 0 && kib < 1e15 && !by_memory ? "%.0f MiB" : "", ceil(kib / 1024 / 64) * 64);
	snprintf(cpus, 16, n >= 1 && n < 1e6 ? "%.0f CPUs" : "", n);
	for (const char *p = cl ? cl : ""; *p;) {
		size_t w = strcspn(p, " ");
		if (w && strncmp(p, "bootbench.", 10) && strncmp(p, "BOOT_IMAGE=", 11) && strncmp(p, "initrd=", 7) &&
		    !word_is(p, w, "noirqdebug") && !(factor && word_is(p, w, factor))) {
			if (nw == cap)
				words = xrealloc(words, (cap = cap ? cap * 2 : 16) * sizeof *words);
			words[nw++] = xstrndup(p, w);
		}
		p += w + (p[w] == ' ');
	}
	/* a set of words, in one order: "quiet console=x" is "console=x quiet" */
	qsort(words, nw, sizeof *words, by_word);
	for (size_t i = 0; i < nw; i++) {
		if (!i || strcmp(words[i], words[i - 1]))
			sb_printf(cmd, "%s%s", cmd->len ? " " : "", words[i]);
		free(words[i]);
	}
	free(words);
	if (!cmd->s)
		sb_puts(cmd, "");
}

/* The words of sorted word list a that b lacks, each as " SIGNword", into
 * out (a linear merge: a command line may hold a million words). */
static void words_missing(const char *a, const char *b, char sign, struct sbuf *out)
{
	while (*a) {
		size_t w = strcspn(a, " "), v = strcspn(b, " ");
		int cmp = !*b ? -1 : strncmp(a, b, w < v ? w : v);
		if (!cmp)
			cmp = w < v ? -1 : w > v;
		if (cmp < 0) {
			sb_printf(out, " %c%.*s", sign, (int)w, a);
			a += w + (a[w] == ' ');
		} else {
			if (!cmp)
				a += w + (a[w] == ' ');
			b += v + (b[v] == ' ');
		}
	}
}

/* lab as a label of size bytes: whole, or cut and ended by hex */
static void label_set(char *label, size_t size, const struct sbuf *lab, const char *hex)
{
	if (lab->len >= size)
		snprintf(label, size, "%.46s~%.16s", lab->s, hex);
	else
		snprintf(label, size, "%s", lab->s);
	text_clean(label);
}

#define CMD_WORDS_SHOWN 4096	/* bytes of command lines whose words a label lists; past them, a hash */

/* A boot of a kernel whose first boot had other memory, CPUs or command
 * line is another column (by kernel) or row (by anything else): its label
 * (label: b->label, or under --by tag the tagless b->klabel its rows are
 * keyed by) says what differs from that first boot ("6.1.192 generic,
 * 1024 MiB"). Labels are keys, so two boots that differ never share one:
 * each label is held with the hash of what it stands for (the kernel's own
 * label, memory, CPUs and the set of command-line words), and a label
 * that would stand for another boot's identity too (control bytes cleaned
 * to '?', a label cut to its size, a release that reads like another's
 * label) ends in that hash. */
static void apart(struct cmp *c, const struct jv *d, char *label, size_t size)
{
	size_t f = strmap_get(&c->first_ix, label), have;
	char mem[24], cpus[16], hex[65];
	struct sbuf cmd = {0}, lab = {0}, id = {0};
	const struct cmp_ident *F;
	boot_ident(c, d, mem, cpus, &cmd);
	sb_printf(&id, "%s|%s|%s|%s", label, mem, cpus, cmd.s);
	sha256_hex(id.s, id.len, hex);
	hex[16] = 0;	/* 64 bits */
	if (f == (size_t)-1) {
		struct cmp_ident *n;
		c->first = xrealloc(c->first, (c->nfirst + 1) * sizeof *c->first);
		n = &c->first[c->nfirst];
		snprintf(n->mem, sizeof n->mem, "%s", mem);
		snprintf(n->cpus, sizeof n->cpus, "%s", cpus);
		n->cmd = sb_steal(&cmd);
		strmap_put(&c->first_ix, label, c->nfirst++);
		sb_puts(&lab, label);
	} else {
		F = &c->first[f];
		sb_puts(&lab, label);
		if (strcmp(F->mem, mem))
			sb_printf(&lab, ", %s", mem[0] ? mem : "memory unknown");
		if (strcmp(F->cpus, cpus))
			sb_printf(&lab, ", %s", cpus[0] ? cpus : "CPUs unknown");
		if (strcmp(F->cmd, cmd.s)) {
			/* the words it has that the first had not (+), and the reverse (-) */
			sb_puts(&lab, ", cmdline");
			if (strlen(F->cmd) + cmd.len > CMD_WORDS_SHOWN) {
				sb_printf(&lab, " ~%.8s", hex);
			} else {
				words_missing(cmd.s, F->cmd, '+', &lab);
				words_missing(F->cmd, cmd.s, '-', &lab);
			}
		}
	}
	label_set(label, size, &lab, hex);
	have = strmap_get(&c->label_ix, label);
	if (have != (size_t)-1 && strcmp(c->label_hash[have], hex)) {
		/* the label stands for another identity already */
		sb_reset(&lab);
		sb_printf(&lab, "%s #%.16s", label, hex);
		label_set(label, size, &lab, hex);
		have = strmap_get(&c->label_ix, label);
	}
	if (have == (size_t)-1) {
		c->label_hash = xrealloc(c->label_hash, (c->nlabels + 1) * sizeof *c->label_hash);
		snprintf(c->label_hash[c->nlabels], sizeof *c->label_hash, "%.16s", hex);
		strmap_put(&c->label_ix, label, c->nlabels++);
	}
	sb_free(&cmd);
	sb_free(&lab);
	sb_free(&id);
}

static void add_boot(struct cmp *c, const char *id, const struct jv *d)
{
	const struct jv *k = json_get(d, "kernel");
	struct cmp_boot *b;
	int ki;
	size_t have = strmap_get(&c->boot_ix, id);
	if (have != (size_t)-1) {
		/* the same boot from two sources (image and console) is one boot;
		 * one id with two different boot records is no boot at all: its
		 * runs could be either kernel's */
		struct cmp_boot *o = &c->boots[have];
		char label[64];
		boot_label(d, label, sizeof label);
		if (!o->conflict && strcmp(o->raw, label)) {
			o->conflict = 1;
			c->conflicts++;
			warning("boot id %s has two boot records, kernel %s and kernel %s: its runs are not compared", o->id,
				o->raw, label);
		}
		return;
	}
	if (c->nboots == c->bcap) {
		c->bcap = c->bcap ? c->bcap * 2 : 64;
		c->boots = xrealloc(c->boots, c->bcap * sizeof *c->boots);
	}
	b = &c->boots[c->nboots];
	memset(b, 0, sizeof *b);
	snprintf(b->id, sizeof b->id, "%s", id);
	snprintf(b->release, sizeof b->release, "%s", str_or(k, "release", "unknown"));
	snprintf(b->version, sizeof b->version, "%s", str_or(k, "version", ""));
	snprintf(b->config, sizeof b->config, "%s", str_or(k, "config_sha256", ""));
	snprintf(b->userland, sizeof b->userland, "%s", str_or(d, "userland", ""));
	snprintf(b->mode, sizeof b->mode, "%s", str_or(d, "mode", "wallclock"));
	snprintf(b->accel, sizeof b->accel, "%s", str_or(d, "accel", ""));
	qemu_setup(json_get(d, "qemu"), b->qemu_setup, sizeof b->qemu_setup);
	boot_machine(d, b->machine, sizeof b->machine);
	text_clean(b->release);
	text_clean(b->version);
	text_clean(b->config);
	text_clean(b->userland);
	text_clean(b->mode);
	text_clean(b->accel);
	text_clean(b->qemu_setup);
	snprintf(b->mode, sizeof b->mode, "%s", add_mode(c, b->mode));
	boot_label(d, b->label, sizeof b->label);
	snprintf(b->raw, sizeof b->raw, "%s", b->label);
	kernel_label(b->release, b->version, b->klabel, sizeof b->klabel);
	/* boots that differ in memory, CPUs or command line are other columns
	 * (by kernel) or rows (by anything else), never one pool; under --by
	 * memory or cmdline.KEY, less the factor itself (boot_ident) */
	if (c->by == CMP_BY_TAG)
		apart(c, d, b->klabel, sizeof b->klabel);
	else
		apart(c, d, b->label, sizeof b->label);
	text_clean(b->klabel);
	b->real = c->nboots;
	boot_factor(c, d, b->factor, sizeof b->factor);
	/* --by anything but the kernel: the columns come from the runs */
	ki = c->by == CMP_BY_KERNEL ? kernel_index(c, b) : -1;
	b->kernel = ki;
	if (ki >= 0) {
		/* rounds count per measurement mode: a family's looks are its own */
		size_t mi = mode_index(c, b->mode);
		b->round = c->kernels[ki].mboots[mi]++;
	}
	strmap_put(&c->boot_ix, b->id, c->nboots++);
	if (ki >= 0) {
		struct cmp_kernel *K = &c->kernels[ki];
		/* one column, one kernel: say so when its boots were not alike */
		if (K->boots && (strcmp(K->userland, b->userland) || strcmp(K->config, b->config) || strcmp(K->accel, b->accel) ||
				 strcmp(K->qemu_setup, b->qemu_setup)))
			K->mixed = 1;
		K->boots++;
		kernel_machine(K, b);
	}
}

/* --by: the value of the factor for a run of boot real (index), its row's
 * identity made without the factor and with the kernel; returns the boot
 * that holds that boot's runs at that value (made the first time: a column
 * for a new value), or -1 past CMP_MAX_KERNELS values. */
static long factor_unit(struct cmp *c, size_t real, const struct jv *d, struct run_id *rid, const char **lname)
{
	char full[400], val[64], key[96], t[320];
	const struct cmp_boot *R = &c->boots[real];
	size_t i;
	int ki;
	switch (c->by) {
	case CMP_BY_TUNABLE:
		if (!runid_take(&rid->tunables, c->by_name, t, sizeof t)) {
			/* a run that did not set it has no value to stand in */
			c->by_unset++;
			return -1;
		}
		snprintf(full, sizeof full, "%s=%s", c->by_name, t);
		break;
	case CMP_BY_SECTION: {
		const char *sec = json_get_str(d, "section");
		snprintf(full, sizeof full, sec ? "section %.200s" : "no section", sec);
		break;
	}
	case CMP_BY_LAYOUT:
		snprintf(full, sizeof full, "%s", *lname);
		sb_free(&rid->layout);
		sb_puts(&rid->layout, "*");
		*lname = "(each layout a column)";
		break;
	default:
		snprintf(full, sizeof full, "%s", R->factor);
	}
	if (strlen(full) < sizeof val) {
		snprintf(val, sizeof val, "%.63s", full);
	} else {
		/* cut: two long values must not pool under one prefix */
		char hex[65];
		sha256_hex(full, strlen(full), hex);
		snprintf(val, sizeof val, "%.54s~%.8s", full, hex);
	}
	text_clean(val);
	/* the row keeps its kernel: values are compared within one kernel */
	runid_put(&rid->params, "kernel", c->by == CMP_BY_TAG ? R->klabel : R->label);
	snprintf(key, sizeof key, "%zu|%s", real, val);
	i = strmap_get(&c->by_ix, key);
	if (i != (size_t)-1)
		return (long)i;
	if (c->nboots == c->bcap) {
		c->bcap = c->bcap ? c->bcap * 2 : 64;
		c->boots = xrealloc(c->boots, c->bcap * sizeof *c->boots);
	}
	struct cmp_boot *b = &c->boots[c->nboots];
	*b = c->boots[real];
	snprintf(b->label, sizeof b->label, "%s", val);
	ki = kernel_index(c, b);
	b->kernel = ki;
	if (ki < 0) {
		c->over_kernels++;
		return -1;
	}
	{
		struct cmp_kernel *K = &c->kernels[ki];
		size_t mi = mode_index(c, b->mode);
		b->round = K->mboots[mi]++;
		/* a column holds every kernel's runs at its value by design:
		 * only what is not a kernel's pools unseen */
		if (K->boots && (strcmp(K->userland, b->userland) || strcmp(K->accel, b->accel) ||
				 strcmp(K->qemu_setup, b->qemu_setup)))
			K->mixed = 1;
		K->boots++;
		kernel_machine(K, b);
	}
	strmap_put(&c->by_ix, key, c->nboots);
	return (long)c->nboots++;
}

/* Per-run counter summaries ("counters":{"summary":{name:{mean,unit}}})
 * as one sample each of a counter group. */
static void add_counters(struct cmp *c, const struct cmp_boot *b, int k, const char *wl, const struct run_id *id,
			 const char *lname, const struct jv *ctr)
{
	const struct jv *sum = json_get(ctr, "summary");
	/* one interval at least, else the means are empty */
	if (!sum || sum->t != J_OBJ || json_get_num(ctr, "samples", 0) < 2)
		return;
	for (size_t i = 0; i < sum->n; i++) {
		const struct jv *m = json_get(sum->items[i], "mean");
		struct cmp_group *g;
		if (!m || m->t != J_NUM || !isfinite(m->num))
			continue;
		g = group_of(c, CMP_COUNTER, b->mode, wl, id, lname, sum->keys[i], str_or(sum->items[i], "unit", ""), "");
		cell_add(c, g, k, m->num, id->inforce.s);
	}
}

/* One value a run gives (a stall total) as one sample of a counter group. */
static void add_value(struct cmp *c, const struct cmp_boot *b, int k, const char *wl, const struct run_id *id,
		      const char *lname, const char *name, const char *unit, double v)
{
	if (!isfinite(v) || v < 0 || v > 1e12)
		return;	/* a stall is a time, at most a few days in ms */
	cell_add(c, group_of(c, CMP_COUNTER, b->mode, wl, id, lname, name, unit, ""), k, v, id->inforce.s);
}

static int is_true(const struct jv *o, const char *k)
{
	const struct jv *v = json_get(o, k);
	return v && v->t == J_BOOL && v->b;
}

/* "pressure" and "delays" (docs/why.md) as counters, in ms per run. */
static void add_stalls(struct cmp *c, const struct cmp_boot *b, int k, const char *wl, const struct run_id *id,
		       const char *lname, const struct jv *d)
{
	static const char *const res[] = { "cpu", "io", "memory" };
	static const char *const dl[] = { "cpu", "blkio", "swapin", "reclaim", "thrashing", "compact" };
	const struct jv *pr = json_get(d, "pressure"), *de = json_get(d, "delays");
	char name[48];
	if (pr && pr->t == J_OBJ && is_true(pr, "available"))
		for (size_t i = 0; i < sizeof res / sizeof *res; i++) {
			const struct jv *r = json_get(pr, res[i]), *some = json_get(r, "some_us"), *full = json_get(r, "full_us");
			if (some && some->t == J_NUM) {
				snprintf(name, sizeof name, "pressure_%s_some", res[i]);
				add_value(c, b, k, wl, id, lname, name, "ms", some->num / 1000);
			}
			if (full && full->t == J_NUM && strcmp(res[i], "cpu")) {
				snprintf(name, sizeof name, "pressure_%s_full", res[i]);
				add_value(c, b, k, wl, id, lname, name, "ms", full->num / 1000);
			}
		}
	if (de && de->t == J_OBJ && is_true(de, "available"))
		for (size_t i = 0; i < sizeof dl / sizeof *dl; i++) {
			const struct jv *x = json_get(json_get(de, dl[i]), "delay_ns");
			if (x && x->t == J_NUM) {
				snprintf(name, sizeof name, "delay_%s", dl[i]);
				add_value(c, b, k, wl, id, lname, name, "ms", x->num / 1e6);
			}
		}
}

/* Experiment x had a profiled run in the current boot (kernel k). */
static void exp_count_run(struct cmp *c, size_t x, int k)
{
	struct cmp_exp *e = &c->exps[x];
	struct cmp_exp_boot *eb = e->nboots ? &e->boots[e->nboots - 1] : NULL;
	e->runs[k]++;
	if (!eb || eb->unit != c->cur_unit) {
		if (e->nboots == e->bcap) {
			e->bcap = e->bcap ? e->bcap * 2 : 4;
			e->boots = xrealloc(e->boots, e->bcap * sizeof *e->boots);
		}
		eb = &e->boots[e->nboots++];
		eb->unit = c->cur_unit;
		eb->round = c->cur_round;
		eb->k = (unsigned)k;
		eb->runs = 0;
		eb->samples = 0;
	}
	eb->runs++;
}

/* A run's kernel profile: each function's share (%) is one sample of its
 * CMP_PROFILE group, in its boot; the experiment counts the profiled run
 * (by kernel, and by boot for the shares of 0, cmp_finish). */
static void add_profile(struct cmp *c, const struct cmp_boot *b, int k, const char *wl, const struct run_id *id,
			const char *lname, const struct jv *pf)
{
	const struct jv *fs = json_get(pf, "functions");
	double total = json_get_num(pf, "samples", 0), sum = 0;
	struct strmap once = {0};	/* a name listed twice in one run counts once */
	struct cmp_exp *e;
	size_t x;
	if (!fs || fs->t != J_ARR || !isfinite(total) || total < 0 || total > 1e15)
		return;
	if (total == 0) {
		/* profiled, but the tick never found the kernel: a run of user code */
		exp_count_run(c, exp_of(c, b->mode, wl, id), k);
		return;
	}
	for (size_t i = 0; i < fs->n && i < CMP_PROFILE_FUNCS; i++)
		sum += json_get_num(fs->items[i], "share", 0);
	if (!(sum <= 1.0001)) {
		c->bad_profiles++;	/* shares of more than all the samples */
		return;
	}
	x = exp_of(c, b->mode, wl, id);
	e = &c->exps[x];
	exp_count_run(c, x, k);
	e->samples[k] += total;
	if (json_get_num(pf, "other", 0) > 0 || fs->n > CMP_PROFILE_FUNCS)
		e->cut[k]++;
	for (size_t i = 0; i < fs->n && i < CMP_PROFILE_FUNCS; i++) {
		const char *name = json_get_str(fs->items[i], "name");
		double share = json_get_num(fs->items[i], "share", NAN);
		size_t before = c->ngroups;
		struct cmp_group *g;
		if (!name || !*name || !isfinite(share) || share < 0 || share > 1)
			continue;
		if (strmap_get(&once, name) != (size_t)-1)
			continue;
		strmap_put(&once, name, 0);
		if (c->exps[x].functions >= CMP_EXP_FUNCS && !profile_group_exists(c, b->mode, wl, id, lname, name, CMP_UNIT_TICK)) {
			c->exps[x].cut[k]++;	/* past the bound: as if the list were cut here */
			c->dropped_functions++;
			continue;
		}
		g = group_of(c, CMP_PROFILE, b->mode, wl, id, lname, name, CMP_UNIT_TICK, "");
		if (!g) {
			c->exps[x].cut[k]++;	/* past CMP_MAX_GROUPS: as above */
			c->dropped_functions++;
			continue;
		}
		if (c->ngroups > before)
			c->exps[x].functions++;
		cell_add(c, g, k, share * 100, id->inforce.s);
	}
	strmap_free(&once);
}

#define CMP_PERF_STACKS 4096

/* A stacks member's weights (key: "samples", or off-CPU's "us"): their
 * sum, or -1 when one is not a count (NaN, negative, past 1e15). */
static double stack_weights(const struct jv *st, const char *key)
{
	double sum = 0;
	for (size_t i = 0; i < st->n; i++) {
		double s = json_get_num(st->items[i], key, NAN);
		if (!isfinite(s) || s < 0 || s > 1e15)
			return -1;
		sum += s;
	}
	return sum;
}

/* Stack i of a stacks member split into fr (buf holds the copy): its
 * frame count, or 0 when it is past CMP_PERF_STACKS or not a folded line
 * (counted: past_stacks, bad_stacks), its weight then for the caller to
 * put past the kept top. */
static int stack_frames(struct cmp *c, const struct jv *st, size_t i, char *buf, const char **fr, size_t max)
{
	const char *line = json_get_str(st->items[i], "stack");
	int n;
	if (i >= CMP_PERF_STACKS) {
		c->past_stacks++;
		return 0;
	}
	if (!line || strlen(line) > FOLDED_MAX_STACK) {
		c->bad_stacks++;
		return 0;
	}
	memcpy(buf, line, strlen(line) + 1);
	n = folded_split(buf, fr, max);
	if (n < 1) {
		c->bad_stacks++;
		return 0;
	}
	return n;
}

/* A run's perf samples (profile perf: the run's `perf` member, folded
 * stacks "comm;outer;...;leaf" of its top stacks and the samples past
 * them): each function's self share (its samples as the leaf) and
 * inclusive share (samples of stacks it is in, once however often it
 * recurs) of all the run's samples, as CMP_PROFILE groups of units
 * CMP_UNIT_PERF and CMP_UNIT_PERF_INCL, and every stack into the experiment's path tree
 * (flame.c). 1 when read; 0 when the run has no usable perf samples (the
 * tick profile is read then). Hostile input: a stack that is not a folded
 * line is counted (bad_stacks) and its samples treated as past the top;
 * stacks past CMP_PERF_STACKS too; samples that add up to more than the
 * run's own count make the whole member unread (bad_profiles). */
static int add_perf(struct cmp *c, const struct cmp_boot *b, int k, const char *wl, const struct run_id *id,
		    const char *lname, const struct jv *pf)
{
	const struct jv *st = json_get(pf, "stacks");
	double total = json_get_num(pf, "samples", NAN), other = json_get_num(pf, "other_samples", 0), sum;
	struct strmap fix = { 0 };
	double *self = NULL, *incl = NULL;
	char **names = NULL;
	size_t nf = 0, cap = 0, x;
	char buf[FOLDED_MAX_STACK + 1];
	const char *fr[FOLDED_MAX_DEPTH + 2];	/* the process, "[deeper]" where perf's chain was cut, 64 frames */
	if (!st || st->t != J_ARR || !st->n)
		return 0;	/* no samples (perf failed, or an older record): the tick's, if any */
	if (!isfinite(total) || total <= 0 || total > 1e15 || !isfinite(other) || other < 0 || other > total) {
		c->bad_profiles++;	/* stacks, but no count they are a share of */
		return 0;
	}
	sum = stack_weights(st, "samples");
	if (sum < 0 || sum + other > total * 1.0001) {
		c->bad_profiles++;	/* not counts, or stacks of more than all the samples */
		return 0;
	}
	x = exp_of(c, b->mode, wl, id);
	exp_count_run(c, x, k);
	c->exps[x].samples[k] += total;
	c->exps[x].boots[c->exps[x].nboots - 1].samples += total;
	c->exps[x].perf[k]++;
	for (size_t i = 0; i < st->n; i++) {
		double s = json_get_num(st->items[i], "samples", 0);
		int n = stack_frames(c, st, i, buf, fr, FOLDED_MAX_DEPTH + 2);
		if (!n) {
			other += s;
			continue;
		}
		if (!s)
			continue;
		flame_stack(c, x, FLAME_CPU, fr, (size_t)n, s);
		/* the functions: frames past the process's name, less perf's
		 * "[deeper]" (where the recorder cut a chain: a path, no function) */
		for (int j = 1; j < n; j++) {
			size_t f = strmap_get(&fix, fr[j]);
			int seen = 0;
			if (!strcmp(fr[j], "[deeper]"))
				continue;
			for (int m = 1; m < j && !seen; m++)
				seen = !strcmp(fr[m], fr[j]);
			if (f == (size_t)-1) {
				if (nf == cap) {
					cap = cap ? cap * 2 : 64;
					self = xrealloc(self, cap * sizeof *self);
					incl = xrealloc(incl, cap * sizeof *incl);
					names = xrealloc(names, cap * sizeof *names);
				}
				f = nf++;
				self[f] = incl[f] = 0;
				names[f] = xstrdup(fr[j]);
				strmap_put(&fix, fr[j], f);
			}
			if (!seen)
				incl[f] += s;
			if (j == n - 1)
				self[f] += s;
		}
	}
	flame_run_end(c, x, FLAME_CPU, k, total, total);
	c->exps[x].other[k] += other;
	/* samples past the kept top may hold any function: a function one
	 * side never listed is then below a cut there, as with the tick */
	if (other > 0)
		c->exps[x].cut[k]++;
	for (size_t f = 0; f < nf; f++)
		for (int inc = 0; inc < 2; inc++) {
			double v = inc ? incl[f] : self[f];
			size_t before = c->ngroups;
			struct cmp_group *g;
			if (v <= 0)
				continue;
			if (c->exps[x].functions >= CMP_EXP_FUNCS &&
			    !profile_group_exists(c, b->mode, wl, id, lname, names[f], inc ? CMP_UNIT_PERF_INCL : CMP_UNIT_PERF)) {
				c->exps[x].cut[k]++;
				c->dropped_functions++;
				continue;
			}
			g = group_of(c, CMP_PROFILE, b->mode, wl, id, lname, names[f], inc ? CMP_UNIT_PERF_INCL : CMP_UNIT_PERF,
				     "");
			if (!g) {
				c->exps[x].cut[k]++;
				c->dropped_functions++;
				continue;
			}
			if (c->ngroups > before)
				c->exps[x].functions++;
			cell_add(c, g, k, v / total * 100, id->inforce.s);
		}
	for (size_t f = 0; f < nf; f++)
		free(names[f]);
	free(names);
	free(self);
	free(incl);
	strmap_free(&fix);
	return 1;
}

/* perf's off-CPU member of a run (profile offcpu: "offcpu", stacks
 * weighted by the microseconds a task was blocked, offcpu.h) into the
 * experiment's second path tree: shares of the run's time blocked, tested
 * with its blocks as the count. A member that says it is not available
 * is skipped; one that is not an object, or whose stacks add up to more
 * than its own total, or whose totals are not counts, is unread
 * (bad_profiles); a stack that is not a folded line is counted
 * (bad_stacks), its time in no path. */
static void add_offcpu(struct cmp *c, const struct cmp_boot *b, int k, const char *wl, const struct run_id *id,
		       const struct jv *oc)
{
	const struct jv *st = json_get(oc, "stacks"), *av = json_get(oc, "available");
	double total = json_get_num(oc, "us", NAN), blocks = json_get_num(oc, "blocks", NAN);
	double other = json_get_num(oc, "other_us", 0), sum;
	char buf[FOLDED_MAX_STACK + 1];
	const char *fr[FOLDED_MAX_DEPTH + 2];
	size_t x;
	if (!oc)
		return;	/* a record from before the off-CPU view, or profile perf */
	if (oc->t == J_OBJ && av && av->t == J_BOOL && !av->b)
		return;	/* asked, but perf gave nothing: the record says why */
	if (oc->t != J_OBJ || !st || st->t != J_ARR || !isfinite(total) || total < 0 || total > 1e15 ||
	    !isfinite(blocks) || blocks < 0 || blocks > 1e15 || !isfinite(other) || other < 0 || other > total ||
	    (total > 0 && blocks < 1) || (json_get_str(oc, "unit") && strcmp(json_get_str(oc, "unit"), "us"))) {
		c->bad_profiles++;	/* time without blocks, or another unit */
		return;
	}
	/* the appliance writes every block's time into a kept stack or the
	 * rest: stacks and rest are the total, give or take rounding */
	sum = stack_weights(st, "us");
	if (sum < 0 || fabs(sum + other - total) > total * 0.0001 + 1) {
		c->bad_profiles++;	/* not counts, or stacks that are not the time blocked */
		return;
	}
	x = exp_of(c, b->mode, wl, id);
	for (size_t i = 0; i < st->n; i++) {
		double s = json_get_num(st->items[i], "us", 0);
		int n = stack_frames(c, st, i, buf, fr, FOLDED_MAX_DEPTH + 2);
		if (n && s > 0)
			flame_stack(c, x, FLAME_OFF, fr, (size_t)n, s);
	}
	flame_run_end(c, x, FLAME_OFF, k, total, blocks);
}

/* A figure's direction as read: exactly "higher" or "lower", or none;
 * any other word ("Higher", "up") is counted, warned about by cmp_finish,
 * and read as no direction, so no output guesses one. */
static const char *better_of(struct cmp *c, const struct jv *m)
{
	const char *b = str_or(m, "better", "");
	if (!*b || cmp_direction(b))
		return b;
	if (!c->bad_better++) {
		snprintf(c->bad_better_eg, sizeof c->bad_better_eg, "%s", b);
		text_clean(c->bad_better_eg);
	}
	return "";
}

void cmp_add_record(struct cmp *c, const struct jv *rec)
{
	const char *type = json_get_str(rec, "type"), *id = json_get_str(rec, "boot_id");
	const struct jv *d = json_get(rec, "data"), *seq = json_get(rec, "seq");
	if (!type || !id || !d || d->t != J_OBJ)
		return;
	if (!*id || strlen(id) > 32) {
		/* ours are 32 hex digits; a longer one would be cut and misread */
		if (!c->boots_only)
			c->bad_ids++;
		return;
	}
	if (!strcmp(type, "boot")) {
		add_boot(c, id, d);
		return;
	}
	if (strcmp(type, "run") || c->boots_only)
		return;
	if (seq && seq->t == J_NUM && seq->num >= 0 && seq->num < 9007199254740992.0 && seq->num == floor(seq->num)) {
		/* a run that reached us twice (the image and its own console log,
		 * or two collects) is one run; a seq past 32 bits (a hostile or
		 * odd writer) takes the keyed path, not none */
		size_t bi = strmap_get(&c->boot_ix, id);
		int dup;
		if (bi != (size_t)-1 && seq->num < 4294967296.0) {
			dup = u64set_add(&c->seen, ((unsigned long long)(bi + 1) << 32) | (unsigned long long)seq->num);
		} else {
			char key[64];
			snprintf(key, sizeof key, "%.32s:%.0f", id, seq->num);
			dup = strmap_get(&c->seen_s, key) != (size_t)-1;
			strmap_put(&c->seen_s, key, 0);
		}
		if (dup) {
			c->dup_runs++;
			return;
		}
	}
	{
		const struct cmp_boot *b = find_boot(c, id);
		const struct jv *metrics = json_get(d, "metrics"), *layout = json_get(d, "layout");
		const char *status = str_or(d, "status", "failed"), *wl = str_or(d, "workload", "?");
		const char *lname = layout && layout->t == J_OBJ ? str_or(layout, "name", "?") : "?";
		struct run_id rid;
		int k, st = ST_FAILED, have_rid = 0;
		static const struct cmp_boot unknown = { .label = "unknown boot", .mode = "wallclock" };
		if (!b && c->by != CMP_BY_KERNEL) {
			c->by_unknown++;	/* no boot record: no factor to read */
			return;
		} else if (!b) {
			b = &unknown;
			k = kernel_index(c, b);
		} else if (b->conflict) {
			c->conflict_runs++;
			return;
		} else if (c->by != CMP_BY_KERNEL) {
			long u;
			run_identity(d, &rid);
			have_rid = 1;
			if ((u = factor_unit(c, (size_t)(b - c->boots), d, &rid, &lname)) < 0) {
				run_id_free(&rid);
				return;	/* no value, or one past CMP_MAX_KERNELS: counted */
			}
			b = &c->boots[u];
			k = b->kernel;
		} else {
			k = b->kernel;
		}
		if (k < 0) {
			if (k == CMP_OFF_SERIES)
				c->off_series++;
			else
				c->over_kernels++;
			return;
		}
		for (int s = 0; s < ST_N; s++)
			if (!strcmp(status, st_names[s]))
				st = s;
		c->kernels[k].st[st]++;
		c->nruns++;
		if (st != ST_OK) {
			if (have_rid)
				run_id_free(&rid);
			return;
		}
		if (b == &unknown)
			add_mode(c, "wallclock");
		/* the unit of replication: this run's boot */
		if (b != &unknown) {
			c->cur_unit = (unsigned long long)(b - c->boots);
			c->cur_round = b->round;
		} else {
			size_t u = strmap_get(&c->unit_ix, id);
			if (u == (size_t)-1) {
				u = c->unit_ix.n;
				strmap_put(&c->unit_ix, id, u);
			}
			c->cur_unit = CMP_UNIT_UNKNOWN + u;
			c->cur_round = 0;
		}
		if (!have_rid)
			run_identity(d, &rid);
		for (size_t i = 0; metrics && metrics->t == J_ARR && i < metrics->n; i++) {
			const struct jv *m = metrics->items[i], *val = json_get(m, "value");
			struct cmp_group *g;
			if (!val || val->t != J_NUM)
				continue;
			g = group_of(c, CMP_FIGURE, b->mode, wl, &rid, lname, str_or(m, "name", "?"), str_or(m, "unit", ""),
				     better_of(c, m));
			if (!g)
				continue;	/* past CMP_MAX_GROUPS: counted */
			group_section(g, json_get_str(d, "section"));
			if (json_get(m, "invalid") && json_get(m, "invalid")->t == J_BOOL && json_get(m, "invalid")->b) {
				grow_cells(g, (size_t)k + 1);
				g->cell[k].invalid++;
				g->cell[k].invalid_sum += val->num;
				continue;
			}
			cell_add(c, g, k, val->num, rid.inforce.s);
		}
		{
			const struct jv *ctr = json_get(d, "counters");
			add_counters(c, b, k, wl, &rid, lname, ctr);
			add_stalls(c, b, k, wl, &rid, lname, d);
			/* perf's call chains where the run asked for them (a run
			 * whose perf failed is unprofiled: its tick shares are of
			 * kernel samples, perf's of all, and never share a cell),
			 * else the tick */
			const struct jv *pf = json_get(d, "perf"), *tp = json_get(d, "profile");
			int asked = pf && pf->t == J_OBJ && is_true(pf, "asked");
			int used = pf && pf->t == J_OBJ && add_perf(c, b, k, wl, &rid, lname, pf);
			if (pf && pf->t == J_OBJ && json_get_num(pf, "lost_output_bytes", 0) > 0)
				c->cut_perf++;
			if (pf && pf->t == J_OBJ)
				add_offcpu(c, b, k, wl, &rid, json_get(pf, "offcpu"));
			if (!used && !asked && tp && tp->t == J_OBJ)
				add_profile(c, b, k, wl, &rid, lname, tp);
			/* runs long enough to draw: at least 3 samples (two intervals) */
			if (ctr && ctr->t == J_OBJ && json_get(ctr, "trace") && json_get_num(ctr, "samples", 0) >= 3 &&
			    c->ntraces < CMP_MAX_TRACES && c->traces_of[k] < CMP_TRACES_PER_KERNEL) {
				/* a few of each kernel's, so the report can set them side by side */
				c->traces_of[k]++;
				struct sbuf sb = {0};
				json_dump(&sb, ctr);
				c->traces[c->ntraces].title = xasprintf("%s: %s on %s (%s)", b->label, wl, lname, rid.tunables.s);
				c->traces[c->ntraces++].json = sb_steal(&sb);
			}
		}
		run_id_free(&rid);
	}
}

/* ---- labels: what tells a group from the others of its workload ---- */

/* Per family, which keys vary: a key varies when some distinct string of
 * the family lacks it or holds it with another value. One pass over the
 * family's distinct strings, then one over each group's own pairs. */
struct keyinfo {
	struct strmap ix;	/* key -> index */
	char **first;		/* the first value seen */
	size_t *count;		/* strings holding the key */
	int *varies;
	size_t n, strings;
};

static void keyinfo_add(struct keyinfo *ki, const char *text)
{
	ki->strings++;
	if (!strcmp(text, "-"))
		return;
	for (const char *p = text; *p;) {
		size_t m = runid_pair_len(p), klen = runid_key_len(p, m);
		char *key = xasprintf("%.*s", (int)klen, p), *val = xasprintf("%.*s", (int)(m - klen), p + klen);
		size_t i = strmap_get(&ki->ix, key);
		if (i == (size_t)-1) {
			i = strmap_put(&ki->ix, key, ki->n++);
			ki->first = xrealloc(ki->first, ki->n * sizeof *ki->first);
			ki->count = xrealloc(ki->count, ki->n * sizeof *ki->count);
			ki->varies = xrealloc(ki->varies, ki->n * sizeof *ki->varies);
			ki->first[i] = val;
			ki->count[i] = 0;
			ki->varies[i] = 0;
		} else {
			ki->varies[i] |= strcmp(ki->first[i], val) != 0;
			free(val);
		}
		ki->count[i]++;
		free(key);
		p += m + (p[m] == ' ');
	}
}

/* The pairs of `mine` whose key varies in the family, and refusals. */
static void differing(struct sbuf *out, const char *mine, const struct keyinfo *ki)
{
	if (!strcmp(mine, "-"))
		return;
	for (const char *p = mine; *p;) {
		size_t m = runid_pair_len(p), klen = runid_key_len(p, m);
		char *key = xasprintf("%.*s", (int)klen, p);
		size_t i = strmap_get(&ki->ix, key);
		/* a refusal is always shown, siblings or not */
		int differs = memmem(p, m, "(refused", 8) != NULL ||
			      (i != (size_t)-1 && (ki->varies[i] || ki->count[i] < ki->strings));
		if (differs)
			sb_printf(out, "%s%.*s", out->len ? " " : "", (int)m, p);
		free(key);
		p += m + (p[m] == ' ');
	}
}

static void keyinfo_free(struct keyinfo *ki)
{
	for (size_t i = 0; i < ki->n; i++)
		free(ki->first[i]);
	free(ki->first);
	free(ki->count);
	free(ki->varies);
	strmap_free(&ki->ix);
}

/* Distinct strings of one field among the groups of one (mode, workload
 * [, layout]), looked up by hash; small in practice, bounded by groups. */
struct distinct {
	struct strmap ix;
	const char **s;
	size_t n;
};

static void distinct_add(struct distinct *d, const char *s)
{
	if (strmap_get(&d->ix, s) != (size_t)-1)
		return;
	strmap_put(&d->ix, s, d->n);
	d->s = xrealloc(d->s, (d->n + 1) * sizeof *d->s);
	d->s[d->n++] = s;
}

static void distinct_free(struct distinct *d)
{
	strmap_free(&d->ix);
	free(d->s);
}

static void make_labels(struct cmp *c)
{
	struct strmap fam = { 0 };
	struct distinct *params = NULL, *tuns = NULL, *lkeys = NULL;
	struct keyinfo *kp, *kt;
	size_t nfam = 0;
	size_t *fp = xcalloc(c->ngroups + 1, sizeof *fp), *fl = xcalloc(c->ngroups + 1, sizeof *fl);
	/* families: (mode, workload) for parameters, (mode, workload, layout) for
	 * tunables and layout builds */
	for (size_t g = 0; g < c->ngroups; g++) {
		struct cmp_group *G = &c->groups[g];
		char *k1 = xasprintf("w\x1f%s\x1f%s", G->mode, G->workload);
		char *k2 = xasprintf("l\x1f%s\x1f%s\x1f%s", G->mode, G->workload, G->layout);
		for (int pass = 0; pass < 2; pass++) {
			const char *k = pass ? k2 : k1;
			size_t f = strmap_get(&fam, k);
			if (f == (size_t)-1) {
				f = strmap_put(&fam, k, nfam++);
				params = xrealloc(params, nfam * sizeof *params);
				tuns = xrealloc(tuns, nfam * sizeof *tuns);
				lkeys = xrealloc(lkeys, nfam * sizeof *lkeys);
				memset(&params[f], 0, sizeof *params);
				memset(&tuns[f], 0, sizeof *tuns);
				memset(&lkeys[f], 0, sizeof *lkeys);
			}
			(pass ? fl : fp)[g] = f;
		}
		distinct_add(&params[fp[g]], G->params);
		distinct_add(&tuns[fl[g]], G->tunables);
		distinct_add(&lkeys[fl[g]], G->lkey);
		free(k1);
		free(k2);
	}
	kp = xcalloc(nfam + 1, sizeof *kp);
	kt = xcalloc(nfam + 1, sizeof *kt);
	for (size_t f = 0; f < nfam; f++) {
		for (size_t i = 0; i < params[f].n; i++)
			keyinfo_add(&kp[f], params[f].s[i]);
		for (size_t i = 0; i < tuns[f].n; i++)
			keyinfo_add(&kt[f], tuns[f].s[i]);
	}
	for (size_t g = 0; g < c->ngroups; g++) {
		struct cmp_group *G = &c->groups[g];
		struct sbuf sb = { 0 };
		const struct distinct *lk = &lkeys[fl[g]];
		differing(&sb, G->params, &kp[fp[g]]);
		differing(&sb, G->tunables, &kt[fl[g]]);
		if (lk->n > 1)
			sb_printf(&sb, "%sbuild#%zu", sb.len ? " " : "", strmap_get(&lk->ix, G->lkey) + 1);
		G->label = sb.len ? sb_steal(&sb) : xstrdup("");
		sb_free(&sb);
	}
	for (size_t f = 0; f < nfam; f++) {
		distinct_free(&params[f]);
		distinct_free(&tuns[f]);
		distinct_free(&lkeys[f]);
		keyinfo_free(&kp[f]);
		keyinfo_free(&kt[f]);
	}
	free(kp);
	free(kt);
	free(params);
	free(tuns);
	free(lkeys);
	free(fp);
	free(fl);
	strmap_free(&fam);
}

/* Tunables in force the plan did not set, where they differ between the
 * kernels of a group: "ram0:read_ahead_kb: 6.1.192 generic 128, 6.1.192 rt
 * 256" (only the settings that differ). */
static void value_of(const char *text, const char *pair, size_t klen, char *out, size_t len)
{
	snprintf(out, len, "(not read)");
	for (const char *p = text; *p;) {
		size_t m = runid_pair_len(p);
		if (runid_key_len(p, m) == klen && !strncmp(p, pair, klen)) {
			snprintf(out, len, "%.*s", (int)(m - klen - 1), p + klen + 1);
			return;
		}
		p += m + (p[m] == ' ');
	}
}

static void inforce_diffs(struct cmp *c)
{
	for (size_t g = 0; g < c->ngroups; g++) {
		struct cmp_group *G = &c->groups[g];
		struct sbuf sb = { 0 };
		int mixed = 0, huge = 0, differ = 0;
		for (size_t k = 0; k < c->nkernels; k++) {
			const char *x = G->cell[k].inforce, *r = G->cell[c->base].inforce;
			mixed |= x && !strcmp(x, "*");
			huge |= x && strlen(x) > 4096;
			differ |= x && r && strcmp(x, r);
		}
		if (mixed) {
			G->inforce_diff = xstrdup("they differed between runs of one kernel");
			continue;
		}
		if (!differ)
			continue;
		if (huge) {
			/* a pair-by-pair diff is quadratic: not for a hostile record */
			G->inforce_diff = xstrdup("they differ (too many settings to list)");
			continue;
		}
		/* every key any kernel has, checked across all kernels */
		for (size_t k0 = 0; k0 < c->nkernels; k0++) {
			const char *t0 = G->cell[k0].inforce;
			if (!t0 || !strcmp(t0, "-"))
				continue;
			for (const char *p = t0; *p;) {
				size_t m = runid_pair_len(p), klen = runid_key_len(p, m);
				int differs = 0, seen = 0;
				char v0[256], v[256];
				/* a key already reported for an earlier kernel is skipped */
				for (size_t j = 0; j < k0 && !seen; j++)
					if (G->cell[j].inforce) {
						value_of(G->cell[j].inforce, p, klen, v, sizeof v);
						seen = strcmp(v, "(not read)") != 0;
					}
				value_of(t0, p, klen, v0, sizeof v0);
				for (size_t k = 0; k < c->nkernels && !seen && !differs; k++)
					if (G->cell[k].inforce) {
						value_of(G->cell[k].inforce, p, klen, v, sizeof v);
						differs = strcmp(v, v0) != 0;
					}
				if (differs) {
					sb_printf(&sb, "%s%.*s:", sb.len ? "; " : "", (int)klen, p);
					for (size_t k = 0, first = 1; k < c->nkernels; k++)
						if (G->cell[k].inforce) {
							value_of(G->cell[k].inforce, p, klen, v, sizeof v);
							sb_printf(&sb, "%s %s %s", first ? "" : ",", c->kernels[k].label, v);
							first = 0;
						}
				}
				p += m + (p[m] == ' ');
			}
		}
		if (sb.len)
			G->inforce_diff = sb_steal(&sb);
		sb_free(&sb);
	}
}

/* ---- statistics ---- */

/* One family: the cells k of the groups of one mode and kind. */
static void bh_family(struct cmp *c, const char *mode, int kind, size_t k)
{
	size_t *g = xcalloc(c->ngroups + 1, sizeof *g), m = 0;
	double *p = xcalloc(c->ngroups + 1, sizeof *p), *q = xcalloc(c->ngroups + 1, sizeof *q);
	for (size_t i = 0; i < c->ngroups; i++) {
		const struct cmp_group *G = &c->groups[i];
		if (G->kind == kind && !strcmp(G->mode, mode) && isfinite(G->cell[k].p)) {
			g[m] = i;
			p[m++] = G->cell[k].p;
		}
	}
	bh_adjust(p, q, m);
	for (size_t i = 0; i < m; i++)
		c->groups[g[i]].cell[k].q = q[i];
	free(g);
	free(p);
	free(q);
}

/* The one verdict of a tested cell: a look of the rounds' rule
 * (confirm_look) made once, over every boot: changed (significant after
 * FDR, past the floor, its interval leaving out 0), unchanged (the
 * 1-2alpha interval within +-margin: two one-sided tests), or undecided
 * (neither: not significant is not unchanged). */
static void decide(const struct cmp *c, const struct cmp_group *G, size_t k)
{
	struct cmp_cell *x = &G->cell[k], *a = &G->cell[c->base];
	int v = CONFIRM_NONE;
	if (k != c->base && isfinite(x->p) && isfinite(x->change))
		v = confirm_look(&a->s, &x->s, x->q, 1, c->fdr, c->alpha, c->margin, c->min_effect, NULL, NULL, NULL);
	x->decision = v == CONFIRM_CHANGED ? CMP_D_CHANGED : v == CONFIRM_UNCHANGED ? CMP_D_UNCHANGED :
		      v == CONFIRM_UNDECIDED ? CMP_D_UNDECIDED : CMP_D_NONE;
	x->significant = x->decision == CMP_D_CHANGED;
}

/* Wall-clock cells of few boots are judged by the permutation test too
 * (why: docs/compare.md, "The statistics"); deterministic boots repeat by
 * construction and keep Welch alone. One rule for every look. */
static int wants_perm(const struct cmp_group *G, size_t na, size_t nb)
{
	return strcmp(G->mode, "deterministic") && G->kind != CMP_PROFILE && (na < CMP_PERM_BELOW || nb < CMP_PERM_BELOW);
}

/* Rounds that stop: would the rounds left decide an undecided figure, at
 * the change and boot-to-boot spread seen after `look` looks? The boots a
 * side at the budget are those so far and as many a round again. Judged
 * from 3 boots a side: two boots' spread is one degree of freedom, too
 * wild to end a series on. 0 when they would (or cannot say yet), else
 * about how many more boots a side it needs (SIZE_MAX: none would do). */
static size_t confirm_more(const struct cmp *c, const struct cmp_group *G, const struct sample_stats *a,
			   const struct sample_stats *b, unsigned look)
{
	size_t have = a->n < b->n ? a->n : b->n, budget, need;
	if (have < 3 || !look)
		return 0;
	budget = have + (size_t)(c->rounds - look) * (have / look ? have / look : 1);
	need = boots_to_decide(a, b, c->rounds, c->fdr, c->alpha, c->margin, c->min_effect,
			       wants_perm(G, 0, 0) ? CMP_PERM_BELOW : 0);
	if (!need || need <= budget)
		return 0;
	return need == SIZE_MAX ? SIZE_MAX : need - have;
}

/* The permutation test on two cells' boot means, of the boots of rounds
 * before `rounds` (all: UINT_MAX), as a look of the rounds sees them. */
static double cell_perm(const struct cmp_cell *a, const struct cmp_cell *x, unsigned rounds)
{
	double *va = xcalloc(a->nunits + 1, sizeof *va), *vx = xcalloc(x->nunits + 1, sizeof *vx), p;
	size_t na = 0, nx = 0;
	for (size_t i = 0; i < a->nunits; i++)
		if (a->units[i].round < rounds)
			va[na++] = a->units[i].m.mean;
	for (size_t i = 0; i < x->nunits; i++)
		if (x->units[i].round < rounds)
			vx[nx++] = x->units[i].m.mean;
	p = perm_test(va, na, vx, nx);
	free(va);
	free(vx);
	return p;
}

static int by_unit(const void *a, const void *b)
{
	const struct cmp_unit *x = a, *y = b;
	return x->unit < y->unit ? -1 : x->unit > y->unit;
}

/* The boot as the unit: a figure's runs become one value a boot (the mean
 * of its runs), and the cell's sums become those of the boot means. The
 * split of the variance is one-way random effects: within boots the runs'
 * pooled variance; between boots what the boot means vary by beyond what
 * their own runs explain (var of the means less s2_run / runs per boot,
 * at least 0). Each boot's mean weighs the same, however many runs it had.
 * With rounds, each round's boot means feed the looks (confirm_family). */
/* x's units sorted by boot, one each (a boot met twice is merged). */
static void units_merge(struct cmp_cell *x)
{
	size_t m = 0;
	if (!x->nunits)
		return;
	qsort(x->units, x->nunits, sizeof *x->units, by_unit);
	for (size_t i = 1; i < x->nunits; i++) {
		if (x->units[i].unit == x->units[m].unit)
			moments_merge(&x->units[m].m, &x->units[i].m);
		else
			x->units[++m] = x->units[i];
	}
	x->nunits = m + 1;
}

int cmp_exp_boot_by_unit(const void *a, const void *b)
{
	const struct cmp_exp_boot *x = a, *y = b;
	return x->unit < y->unit ? -1 : x->unit > y->unit;
}

/* e's boots sorted by unit, one each. */
void cmp_exp_boots_merge(struct cmp_exp_boot *b, size_t *n)
{
	size_t m = 0;
	if (!*n)
		return;
	qsort(b, *n, sizeof *b, cmp_exp_boot_by_unit);
	for (size_t i = 1; i < *n; i++) {
		if (b[i].unit == b[m].unit) {
			b[m].runs += b[i].runs;
			b[m].samples += b[i].samples;
		} else
			b[++m] = b[i];
	}
	*n = m + 1;
}

/* A profile share's cell: each boot that profiled the experiment on kernel
 * k gets a share of 0 for each of its profiled runs that did not list the
 * function (a boot none of whose runs listed it: a unit of zeros), so the
 * boot's mean is over all its profiled runs. listed counts the runs that
 * named it. */
static void profile_zeros(const struct cmp_exp *e, struct cmp_cell *x, size_t k)
{
	size_t have;
	units_merge(x);
	have = x->nunits;
	x->listed = 0;
	for (size_t i = 0; i < have; i++)
		x->listed += x->units[i].m.n;
	for (size_t i = 0; i < e->nboots; i++) {
		const struct cmp_exp_boot *eb = &e->boots[i];
		struct cmp_unit key = { .unit = eb->unit }, *u;
		if (eb->k != k)
			continue;
		u = bsearch(&key, x->units, have, sizeof *x->units, by_unit);
		if (!u)
			u = unit_new(x, eb->unit, eb->round);
		if (eb->runs > u->m.n) {
			struct moments z = { .n = eb->runs - u->m.n };
			moments_merge(&u->m, &z);
		}
	}
}

static void cell_by_boot(const struct cmp *c, struct cmp_cell *x)
{
	struct moments bm = {0};
	double ssw = 0, s2run = NAN;
	x->runs = 0;
	x->cov_boot = x->cov_run = NAN;
	for (size_t i = 0; i < x->nunits; i++)
		x->runs += x->units[i].m.n;
	if (!x->nunits)
		return;
	units_merge(x);
	if (c->rounds) {
		free(x->rm);
		x->rm = xcalloc(c->rounds, sizeof *x->rm);
	}
	for (size_t i = 0; i < x->nunits; i++) {
		const struct cmp_unit *u = &x->units[i];
		moments_add(&bm, u->m.mean);
		ssw += u->m.m2;
		if (c->rounds)
			moments_add(&x->rm[u->round < c->rounds ? u->round : c->rounds - 1], u->m.mean);
	}
	x->n = bm.n;
	x->mean = bm.mean;
	x->m2 = bm.m2;
	x->min = bm.min;
	x->max = bm.max;
	if (x->runs > x->nunits && x->mean != 0) {
		s2run = ssw / (double)(x->runs - x->nunits);
		x->cov_run = sqrt(s2run) / fabs(x->mean);
		if (x->nunits >= 2) {
			double s2b = bm.m2 / (double)(bm.n - 1) - s2run / ((double)x->runs / (double)x->nunits);
			x->cov_boot = sqrt(s2b > 0 ? s2b : 0) / fabs(x->mean);
		}
	}
}

/* A cell's running sums are a struct moments in all but name: one rule
 * (stats.c) turns them into n, mean, sd, CoV, min and max. */
static void cell_stats(struct cmp_cell *x)
{
	struct moments m = { .n = x->n, .mean = x->mean, .m2 = x->m2, .min = x->min, .max = x->max };
	moments_stats(&m, &x->s);
}

/* Group order for every output: by mode, then workload (in the order the
 * workloads were first met), then as read: the forest plot and the tables
 * show each workload once, together. */
struct rank {
	size_t rank, idx;
};

static int by_rank(const void *a, const void *b)
{
	const struct rank *x = a, *y = b;
	if (x->rank != y->rank)
		return x->rank < y->rank ? -1 : 1;
	return x->idx < y->idx ? -1 : x->idx > y->idx;
}

static void sort_groups(struct cmp *c)
{
	struct strmap first = { 0 };
	struct rank *r = xcalloc(c->ngroups + 1, sizeof *r);
	struct cmp_group *sorted = xcalloc(c->ngroups + 1, sizeof *sorted);
	for (size_t g = 0; g < c->ngroups; g++) {
		char *k = xasprintf("%zu:%s|%s", strlen(c->groups[g].mode), c->groups[g].mode, c->groups[g].workload);
		r[g].rank = strmap_put(&first, k, g);	/* the first group of its (mode, workload) */
		r[g].idx = g;
		free(k);
	}
	qsort(r, c->ngroups, sizeof *r, by_rank);
	for (size_t i = 0; i < c->ngroups; i++)
		sorted[i] = c->groups[r[i].idx];
	memcpy(c->groups, sorted, c->ngroups * sizeof *sorted);
	free(sorted);
	free(r);
	strmap_free(&first);
}

/* Confirmation rounds: look j (1-based) sees rounds 0 .. j-1 of both
 * kernels; a look is made only when both have booted j times (a complete
 * round). Each figure keeps the verdict of the first look that decided it
 * (the rule stops there); BH across the figures of the family at each look. */
static void confirm_family(struct cmp *c, const char *mode, size_t k)
{
	size_t mi = mode_index(c, mode);
	unsigned nb = c->kernels[c->base].mboots[mi], nk = c->kernels[k].mboots[mi];
	unsigned looks = nb < nk ? nb : nk;
	size_t *g = xcalloc(c->ngroups + 1, sizeof *g), m;
	double *p = xcalloc(c->ngroups + 1, sizeof *p), *q = xcalloc(c->ngroups + 1, sizeof *q);
	struct sample_stats *sa = xcalloc(c->ngroups + 1, sizeof *sa), *sb = xcalloc(c->ngroups + 1, sizeof *sb);
	if (looks > c->rounds)
		looks = c->rounds;
	for (unsigned j = 1; j <= looks; j++) {
		m = 0;
		for (size_t i = 0; i < c->ngroups; i++) {
			struct cmp_group *G = &c->groups[i];
			struct cmp_cell *a = &G->cell[c->base], *x = &G->cell[k];
			struct moments ma = {0}, mb = {0};
			if (G->kind != CMP_FIGURE || strcmp(G->mode, mode) || !a->rm || !x->rm)
				continue;
			if ((x->inforce && !strcmp(x->inforce, "*")) || (a->inforce && !strcmp(a->inforce, "*")))
				continue;	/* not one sample: never tested */
			for (unsigned r = 0; r < j; r++) {
				moments_merge(&ma, &a->rm[r]);
				moments_merge(&mb, &x->rm[r]);
			}
			moments_stats(&ma, &sa[m]);
			moments_stats(&mb, &sb[m]);
			g[m] = i;
			p[m] = welch_t_test(&sa[m], &sb[m], NULL, NULL);
			if (wants_perm(G, sa[m].n, sb[m].n) && isfinite(p[m])) {
				/* the same rule as the look without rounds */
				double pp = cell_perm(a, x, j >= c->rounds ? UINT_MAX : j);
				if (pp > p[m])
					p[m] = pp;
			}
			m++;
		}
		bh_adjust(p, q, m);
		for (size_t i = 0; i < m; i++) {
			struct cmp_cell *x = &c->groups[g[i]].cell[k];
			double ch, lo, hi;
			int v = confirm_look(&sa[i], &sb[i], q[i], c->rounds, c->fdr, c->alpha, c->margin, c->min_effect,
					     &ch, &lo, &hi);
			x->looks = j;
			if (v == CONFIRM_NONE || x->confirm == CONFIRM_CHANGED || x->confirm == CONFIRM_UNCHANGED)
				continue;
			x->confirm = v;
			x->more = 0;
			if (v == CONFIRM_UNDECIDED)
				x->more = confirm_more(c, &c->groups[g[i]], &sa[i], &sb[i], j);
			x->conf_change = ch;
			x->conf_lo = lo;
			x->conf_hi = hi;
			if (v != CONFIRM_UNDECIDED)
				x->confirm_round = j;
		}
	}
	free(g);
	free(p);
	free(q);
	free(sa);
	free(sb);
}

static void confirm_all(struct cmp *c)
{
	for (size_t m = 0; m < c->nmodes; m++)
		for (size_t k = 0; k < c->nkernels; k++)
			if (k != c->base)
				confirm_family(c, c->modes[m], k);
}

const char *cmp_confirm_name(int v)
{
	return v == CONFIRM_CHANGED ? "changed" : v == CONFIRM_UNCHANGED ? "unchanged" :
	       v == CONFIRM_UNDECIDED ? "undecided" : "untested";
}

int cmp_cares(const struct cmp *c, const struct cmp_group *G)
{
	if (!c->ncare)
		return 1;
	for (size_t i = 0; i < c->ncare; i++) {
		const char *at = strchr(c->care[i], '@');
		size_t wl = at ? (size_t)(at - c->care[i]) : strlen(c->care[i]);
		if (strlen(G->workload) == wl && !strncmp(G->workload, c->care[i], wl) && (!at || !strcmp(G->layout, at + 1)))
			return 1;
	}
	return 0;
}

const char *cmp_more_text(const struct cmp_cell *x, char *buf, size_t n)
{
	if (x->confirm != CONFIRM_UNDECIDED || !x->more)
		snprintf(buf, n, "%s", "");
	else if (x->more == SIZE_MAX)
		snprintf(buf, n, "not decidable at this noise with any number of boots");
	else
		snprintf(buf, n, "not decidable at this noise: about %zu more boots a side", x->more);
	return buf;
}

void cmp_confirm_tally(const struct cmp *c, struct cmp_confirm_tally *t)
{
	memset(t, 0, sizeof *t);
	t->looks = c->rounds;
	for (size_t i = 0; i < c->ngroups; i++)
		t->cared += c->groups[i].kind == CMP_FIGURE && cmp_cares(c, &c->groups[i]);
	for (size_t k = 0; k < c->nkernels; k++) {
		if (k == c->base)
			continue;
		for (size_t i = 0; i < c->ngroups; i++) {
			const struct cmp_group *G = &c->groups[i];
			const struct cmp_cell *x;
			size_t mi = mode_index(c, G->mode);
			unsigned nb = c->kernels[c->base].mboots[mi], nk = c->kernels[k].mboots[mi], l = nb < nk ? nb : nk;
			if (G->kind != CMP_FIGURE || k >= G->ncell || !cmp_cares(c, G))
				continue;
			t->figures++;
			if (l < t->looks)
				t->looks = l;	/* the family with the fewest complete rounds */
			x = &G->cell[k];
			if (x->confirm == CONFIRM_CHANGED)
				t->changed++;
			else if (x->confirm == CONFIRM_UNCHANGED)
				t->unchanged++;
			else if (x->confirm == CONFIRM_UNDECIDED) {
				t->undecided++;
				t->futile += x->more != 0;
			} else if (x->n >= 2 && G->cell[c->base].n >= 2)
				t->untestable++;	/* samples on both, and still no test: no round helps */
			else if (x->n && G->cell[c->base].n)
				t->undecided++;	/* measured on both, not testable yet: one round is not a sample */
		}
	}
	if (!t->figures)
		t->looks = 0;
}

void cmp_confirm_json(const struct cmp *c, const struct cmp_group *G, size_t k, struct jw *w)
{
	const struct cmp_cell *x = &G->cell[k];
	if (!c->rounds || k == c->base)
		return;
	jw_obj(w, "confirmation");
	jw_str(w, "verdict", cmp_confirm_name(x->confirm));
	if (x->confirm_round)
		jw_int(w, "round", x->confirm_round);
	jw_int(w, "looks", x->looks);
	jw_int(w, "max_rounds", c->rounds);
	if (x->more == SIZE_MAX)
		jw_str(w, "not_decidable", "at this noise, with any number of boots");
	else if (x->more)
		jw_int(w, "not_decidable_more_boots", (long long)x->more);
	jw_str(w, "rule", "Bonferroni over a fixed maximum of looks; TOST for unchanged");
	jw_num(w, "equivalence_margin", c->margin);
	if (isfinite(x->conf_lo) && isfinite(x->conf_hi)) {
		jw_arr(w, "interval");
		jw_num(w, NULL, x->conf_lo);
		jw_num(w, NULL, x->conf_hi);
		jw_arr_end(w);
	}
	jw_obj_end(w);
}

static double option_num(const char *opt, const char *val, double lo, double hi, const char *eg)
{
	char *end;
	double v = strtod(val, &end);
	if (!*val || *end || !(v > lo && v < hi))
		die(EXIT_BADINPUT, "bad %s \"%s\" (%s)", opt, val, eg);
	return v;
}

const char *cmp_by_word(const struct cmp *c, char *buf, size_t len)
{
	static const char *const w[] = { "kernel", NULL, "memory", NULL, "section", "tag", "layout" };
	if (c->by == CMP_BY_TUNABLE)
		snprintf(buf, len, "%s", c->by_name);
	else if (c->by == CMP_BY_CMDLINE)
		snprintf(buf, len, "cmdline %s", c->by_name);
	else
		snprintf(buf, len, "%s", w[c->by]);
	return buf;
}

const char *cmp_columns_word(const struct cmp *c, char *buf, size_t len)
{
	char w[64];
	if (c->by == CMP_BY_KERNEL)
		snprintf(buf, len, "kernels");
	else
		snprintf(buf, len, "values of %s", cmp_by_word(c, w, sizeof w));
	return buf;
}

size_t cmp_boots_read(const struct cmp *c)
{
	size_t n = 0;
	if (c->by == CMP_BY_KERNEL)
		return c->nboots;
	for (size_t i = 0; i < c->nboots; i++)
		n += c->boots[i].real == i;
	return n;
}

/* --by FACTOR: kernel, tunable.NAME, memory, cmdline.KEY, section, tag, layout */
static void by_option(struct cmp *c, const char *v)
{
	static const char *const w[] = { "kernel", NULL, "memory", NULL, "section", "tag", "layout" };
	for (int i = 0; i < (int)(sizeof w / sizeof *w); i++)
		if (w[i] && !strcmp(v, w[i])) {
			c->by = i;
			return;
		}
	if ((!strncmp(v, "tunable.", 8) && name_ok(v + 8, 40, "._-")) ||
	    (!strncmp(v, "cmdline.", 8) && name_ok(v + 8, 40, "._-"))) {
		c->by = v[0] == 't' ? CMP_BY_TUNABLE : CMP_BY_CMDLINE;
		c->by_name = v + 8;
		return;
	}
	die(EXIT_BADINPUT, "bad --by \"%s\" (kernel, tunable.NAME, memory, cmdline.KEY, section, tag or layout; "
	    "e.g. tunable.read_ahead_kb)", v);
}

int cmp_option_takes_value(const char *opt)
{
	static const char *const v[] = { "--baseline", "--fdr", "--alpha", "--min-effect", "--noisy", "--rounds",
					  "--equivalence", "--care", "--by" };
	for (size_t i = 0; i < sizeof v / sizeof *v; i++)
		if (!strcmp(opt, v[i]))
			return 1;
	return 0;
}

int cmp_option(struct cmp *c, const char *opt, const char *val)
{
	if (!strcmp(opt, "--baseline"))
		c->baseline = val;
	else if (!strcmp(opt, "--by"))
		by_option(c, val);
	else if (!strcmp(opt, "--fdr"))
		c->fdr = option_num(opt, val, 0, 1, "between 0 and 1, e.g. 0.05");
	else if (!strcmp(opt, "--alpha"))
		/* below 0.5: the equivalence test uses the 1 - 2 alpha interval */
		c->alpha = option_num(opt, val, 0, 0.5, "above 0 and below 0.5, e.g. 0.05");
	else if (!strcmp(opt, "--min-effect"))
		c->min_effect = option_num(opt, val, -1e-300, 1e6, "a percentage, e.g. 0.5") / 100;
	else if (!strcmp(opt, "--noisy"))
		c->noisy = option_num(opt, val, 0, 1e6, "a percentage, e.g. 5") / 100;
	else if (!strcmp(opt, "--rounds")) {
		double r = option_num(opt, val, 0.5, 1000.5, "the most rounds of boots, 1 to 1000, e.g. 8");
		if (r != (unsigned)r)
			die(EXIT_BADINPUT, "bad %s \"%s\" (a whole number of rounds, 1 to 1000, e.g. 8)", opt, val);
		c->rounds = (unsigned)r;
	} else if (!strcmp(opt, "--equivalence"))
		c->margin = option_num(opt, val, 0, 100, "a percentage, e.g. 2: a change within it is no change") / 100;
	else if (!strcmp(opt, "--care")) {
		const char *at = strchr(val, '@');
		if (!*val || *val == '@' || (at && (!at[1] || strchr(at + 1, '@'))) || strlen(val) > 200)
			die(EXIT_BADINPUT, "bad --care \"%s\" (WORKLOAD or WORKLOAD@LAYOUT, e.g. fsmark@raid1-xfs)", val);
		if (c->ncare == sizeof c->care / sizeof *c->care)
			die(EXIT_BADINPUT, "--care at most %zu times", sizeof c->care / sizeof *c->care);
		c->care[c->ncare++] = val;
	} else
		return 0;
	return 1;
}

int cmp_finish(struct cmp *c)
{
	if (c->series_clash[0]) {
		warning("%s", c->series_clash);
		return -1;
	}
	for (size_t i = 0; i < c->nseries; i++)
		if (!c->kernels[i].filled) {
			warning("--series: no kernel \"%s\" in these records (a label or a release; the others were: %s)",
				c->series[i], c->off_series_names[0] ? c->off_series_names : "none");
			return -1;
		}
	if (!c->nruns) {
		warning("no run records to compare (only boot/end records, or none at all)");
		return -1;
	}
	if (c->bad_better)
		warning("better is \"%s\" in %u figures of runs%s: only \"higher\" and \"lower\" are directions, so "
			"they have none", c->bad_better_eg, c->bad_better, c->bad_better > 1 ? " (that word or others)" : "");
	c->base = 0;
	if (c->by == CMP_BY_TUNABLE && !c->baseline)
		/* a tunable against the kernel's own setting, when there are runs at it */
		for (size_t i = 0; i < c->nkernels; i++) {
			const char *l = c->kernels[i].label;
			size_t n = strlen(c->by_name);
			if (!strncmp(l, c->by_name, n) && !strcmp(l + n, "=default"))
				c->base = i;
		}
	if (c->baseline) {
		size_t i;
		for (i = 0; i < c->nkernels; i++) {
			const char *l = c->kernels[i].label;
			size_t n = c->by_name ? strlen(c->by_name) : 0;
			if (!strcmp(l, c->baseline) || (c->by == CMP_BY_KERNEL && !strcmp(c->kernels[i].release, c->baseline)))
				break;
			/* --by tunable.NAME --baseline VALUE, cmdline.KEY --baseline VALUE */
			if (n && !strncmp(l, c->by_name, n) && l[n] == '=' && !strcmp(l + n + 1, c->baseline))
				break;
		}
		if (i == c->nkernels) {
			struct sbuf sb = {0};
			for (size_t k = 0; k < c->nkernels; k++)
				sb_printf(&sb, "%s\"%s\"", k ? ", " : "", c->kernels[k].label);
			warning("no %s \"%s\" in these records (have: %s)", c->by == CMP_BY_KERNEL ? "kernel" : "column",
				c->baseline, sb.s ? sb.s : "none");
			sb_free(&sb);
			return -1;
		}
		c->base = i;
	}
	sort_groups(c);
	/* its indices are stale now: made anew for cmp_group_lookup; nothing
	 * adds groups after this */
	strmap_free(&c->group_ix);
	for (size_t g = 0; g < c->ngroups; g++)
		strmap_put(&c->group_ix, c->groups[g].key, g);
	for (size_t g = 0; g < c->ngroups; g++)
		grow_cells(&c->groups[g], c->nkernels);
	/* a profiled run that did not list a function gave it a share of 0 */
	for (size_t x = 0; x < c->nexps; x++)
		cmp_exp_boots_merge(c->exps[x].boots, &c->exps[x].nboots);
	flame_finish(c);
	for (size_t g = 0; g < c->ngroups; g++) {
		struct cmp_group *G = &c->groups[g];
		if (G->kind != CMP_PROFILE)
			continue;
		for (size_t k = 0; k < c->nkernels; k++)
			profile_zeros(&c->exps[G->xid], &G->cell[k], k);
	}
	/* each experiment's groups, for the why view: xg[xoff[x] .. xoff[x+1]) */
	c->xoff = xcalloc(c->nexps + 2, sizeof *c->xoff);
	c->xg = xcalloc(c->ngroups + 1, sizeof *c->xg);
	for (size_t g = 0; g < c->ngroups; g++)
		c->xoff[c->groups[g].xid + 1]++;
	for (size_t x = 0; x < c->nexps; x++)
		c->xoff[x + 1] += c->xoff[x];
	{
		size_t *fill = xcalloc(c->nexps + 1, sizeof *fill);
		for (size_t g = 0; g < c->ngroups; g++) {
			size_t x = c->groups[g].xid;
			c->xg[c->xoff[x] + fill[x]++] = g;
		}
		free(fill);
	}
	for (size_t g = 0; g < c->ngroups; g++) {
		struct cmp_group *G = &c->groups[g];
		struct cmp_cell *a = &G->cell[c->base];
		int lower = !strcmp(G->better, "lower"), higher = !strcmp(G->better, "higher");
		for (size_t k = 0; k < c->nkernels; k++) {
			struct cmp_cell *x = &G->cell[k];
			cell_by_boot(c, x);
			cell_stats(x);
			x->noisy = x->n >= 2 && isfinite(x->s.cov) && x->s.cov > c->noisy;
			x->p = x->q = x->change = x->lo = x->hi = x->perm_p = NAN;
		}
		G->mdc = NAN;
		G->n5 = 0;
		for (size_t k = 0; k < c->nkernels; k++) {
			struct cmp_cell *x = &G->cell[k];
			if (k == c->base || !x->n || !a->n)
				continue;
			/* runs of one kernel under different settings are not one sample */
			if ((x->inforce && !strcmp(x->inforce, "*")) || (a->inforce && !strcmp(a->inforce, "*")))
				continue;
			if (a->s.mean == 0 || !isfinite(a->s.mean) || !isfinite(x->s.mean))
				continue;	/* no relative change to judge: not testable */
			x->change = (x->s.mean - a->s.mean) / fabs(a->s.mean);
			x->worse = isfinite(x->change) && ((lower && x->change > 0) || (higher && x->change < 0));
			if (x->n >= 2 && a->n >= 2) {
				double cov, mdc;
				size_t n = x->n < a->n ? x->n : a->n;
				x->p = welch_t_test(&a->s, &x->s, NULL, NULL);
				if (wants_perm(G, a->n, x->n) && isfinite(x->p)) {
					/* wall-clock boot means may be bimodal or heavy-tailed,
					 * where Welch at few boots is far too sure: the
					 * permutation test holds its level on any shape, and
					 * the larger p of the two decides */
					x->perm_p = cell_perm(a, x, UINT_MAX);
					if (x->perm_p > x->p)
						x->p = x->perm_p;
				}
				ratio_ci(&a->s, &x->s, c->alpha, &x->lo, &x->hi);
				cov = stats_pooled_cov(&a->s, &x->s);
				mdc = min_detectable_change(cov, n, c->alpha, 0.8);
				if (!isfinite(G->mdc) || mdc > G->mdc) {
					G->mdc = mdc;
					G->n5 = runs_needed(cov, 0.05, c->alpha, 0.8);
				}
			}
		}
	}
	/* false discoveries: one family per mode, kind and kernel against the
	 * baseline, since each such comparison is read as one answer; the
	 * counters apart, so explaining a figure costs the figures no power.
	 * (With many kernels, chance findings add up across the families.) */
	for (size_t m = 0; m < c->nmodes; m++)
		for (int kind = CMP_FIGURE; kind <= CMP_COUNTER; kind++)
			for (size_t k = 0; k < c->nkernels; k++)
				if (k != c->base)
					bh_family(c, c->modes[m], kind, k);
	for (size_t g = 0; g < c->ngroups; g++)
		for (size_t k = 0; k < c->nkernels; k++)
			decide(c, &c->groups[g], k);	/* sets significant */
	if (c->rounds)
		confirm_all(c);
	make_labels(c);
	inforce_diffs(c);
	return 0;
}

/* ---- helpers for the outputs ---- */

int cmp_mode_has(const struct cmp *c, const char *mode, int kind)
{
	for (size_t g = 0; g < c->ngroups; g++)
		if (c->groups[g].kind == kind && !strcmp(c->groups[g].mode, mode))
			return 1;
	return 0;
}

void cmp_tally(const struct cmp *c, const char *mode, size_t k, struct cmp_tally *t)
{
	memset(t, 0, sizeof *t);
	for (size_t g = 0; g < c->ngroups; g++) {
		const struct cmp_group *G = &c->groups[g];
		const struct cmp_cell *x = &G->cell[k];
		if (G->kind != CMP_FIGURE || strcmp(G->mode, mode) || (!x->n && !G->cell[c->base].n))
			continue;
		t->figures++;
		if (!x->n)
			t->missing++;
		else if (x->decision == CMP_D_UNCHANGED)
			t->same++;
		else if (x->decision == CMP_D_UNDECIDED)
			t->undecided++;
		else if (x->decision != CMP_D_CHANGED)
			t->untested++;
		else if (cmp_verdict(G, x) == CMP_WORSE)
			t->worse++;
		else if (cmp_verdict(G, x) == CMP_BETTER)
			t->better++;
		else
			t->changed++;
	}
}

static const struct cmp *sort_c;
static size_t sort_k;

int cmp_verdict(const struct cmp_group *G, const struct cmp_cell *x)
{
	if (G->kind != CMP_FIGURE || !cmp_direction(G->better))
		return CMP_CHANGED;
	return x->worse ? CMP_WORSE : CMP_BETTER;
}

/* Which would narrow the mean more: another boot, or more runs a boot?
 * The mean of B boots of r runs varies by s2_boot/B + s2_run/(B r): more
 * runs shrink only the second term, so they help only while it is the
 * larger; a boot shrinks both. */
const char *cmp_narrow_by(const struct cmp_cell *x)
{
	double r;
	if (!isfinite(x->cov_boot) || !isfinite(x->cov_run) || !x->n)
		return NULL;
	r = (double)x->runs / (double)x->n;
	return x->cov_boot * x->cov_boot >= x->cov_run * x->cov_run / r ? "boots" : "runs";
}

int cmp_direction(const char *better)
{
	return !strcmp(better, "higher") ? 1 : !strcmp(better, "lower") ? -1 : 0;
}

const char *cmp_word(const struct cmp_group *G, const struct cmp_cell *x)
{
	switch (x->decision) {
	case CMP_D_CHANGED:
		/* no direction (a counter, a figure without one): the sign's word only */
		return cmp_verdict(G, x) == CMP_WORSE ? "worse" : cmp_verdict(G, x) == CMP_BETTER ? "better" :
		       x->change > 0 ? "higher" : "lower";
	case CMP_D_UNCHANGED:
		return "unchanged";
	case CMP_D_UNDECIDED:
		return "undecided";
	default:
		return "untested";
	}
}

static int by_size(const void *a, const void *b)
{
	const struct cmp_group *gx = &sort_c->groups[*(const size_t *)a], *gy = &sort_c->groups[*(const size_t *)b];
	const struct cmp_cell *x = &gx->cell[sort_k], *y = &gy->cell[sort_k];
	int vx = cmp_verdict(gx, x), vy = cmp_verdict(gy, y);
	if (vx != vy)
		return vx < vy ? -1 : 1;
	double dx = fabs(x->change), dy = fabs(y->change);
	if (dx != dy)
		return dx > dy ? -1 : 1;
	return *(const size_t *)a < *(const size_t *)b ? -1 : 1;
}

size_t cmp_significant(const struct cmp *c, const char *mode, int kind, size_t k, size_t *out)
{
	size_t n = 0;
	for (size_t g = 0; g < c->ngroups; g++) {
		const struct cmp_group *G = &c->groups[g];
		if (G->kind == kind && !strcmp(G->mode, mode) && G->cell[k].significant)
			out[n++] = g;
	}
	sort_c = c;
	sort_k = k;
	qsort(out, n, sizeof *out, by_size);
	return n;
}

const char *cmp_tool_label(const struct cmp *c, const struct cmp_group *G)
{
	return c->tool_label && G->kind == CMP_FIGURE ? c->tool_label(G->workload, G->metric) : NULL;
}

void cmp_group_title(const struct cmp_group *G, char *out, size_t len)
{
	snprintf(out, len, "%s%s%s%s / %s: %s", G->workload, G->label[0] ? " [" : "", G->label, G->label[0] ? "]" : "",
		 G->layout, G->metric);
}

/* Whether the kernels' boots differ in the string at offset off of struct
 * cmp_boot: some boot's value that another kernel's boots never had. The
 * sets are compared, so the answer does not hang on which boot came first. */
static int kernels_differ(const struct cmp *c, size_t off)
{
	struct strmap have = {0};	/* "kernel|value" */
	struct sbuf key = {0};
	int differ = 0;
	for (int pass = 0; pass < 2 && !differ; pass++)
		for (size_t b = 0; b < c->nboots && !differ; b++) {
			const struct cmp_boot *B = &c->boots[b];
			const char *v = (const char *)B + off;
			if (B->kernel < 0 || B->conflict)
				continue;
			for (size_t k = 0; k < c->nkernels && !differ; k++) {
				if (pass == 0 && k != (size_t)B->kernel)
					continue;
				key.len = 0;
				sb_printf(&key, "%zu|%s", k, v);
				if (pass == 0)
					strmap_put(&have, key.s, 0);
				else
					differ = strmap_get(&have, key.s) == (size_t)-1;
			}
		}
	sb_free(&key);
	strmap_free(&have);
	return differ;
}

/* Do two columns' boots fall on a machine in shares more than 25 points
 * apart (of the machines each column lists by name)? */
static int machines_uneven(const struct cmp *c)
{
	for (size_t k = 0; k < c->nkernels; k++) {
		const struct cmp_kernel *K = &c->kernels[k];
		for (unsigned i = 0; K->boots && i < K->machines; i++) {
			double lo = 1, hi = 0;
			for (size_t j = 0; j < c->nkernels; j++) {
				const struct cmp_kernel *J = &c->kernels[j];
				double share = 0;
				if (!J->boots)
					continue;
				for (unsigned m = 0; m < J->machines; m++)
					if (!strcmp(J->machine[m], K->machine[i]))
						share = (double)J->machine_boots[m] / J->boots;
				lo = share < lo ? share : lo;
				hi = share > hi ? share : hi;
			}
			if (hi - lo > 0.25)
				return 1;
		}
	}
	return 0;
}

void cmp_warnings(const struct cmp *c, void (*say)(void *ctx, const char *text), void *ctx)
{
	char t[512];
	if (c->over_kernels) {
		snprintf(t, sizeof t, "%u runs of %s past the first %d were not compared (%s)", c->over_kernels,
			 c->by == CMP_BY_KERNEL ? "kernels" : "values", CMP_MAX_KERNELS, c->over_names);
		say(ctx, t);
	}
	if (c->off_series) {
		char u[96] = "";
		if (c->series_unknown)
			snprintf(u, sizeof u, "%s%u runs without a boot record, so of no kernel", c->off_series_names[0] ? "; " : "",
				 c->series_unknown);
		snprintf(t, sizeof t, "%u runs of kernels the series does not name were not compared (%s%s)", c->off_series,
			 c->off_series_names, u);
		say(ctx, t);
	}
	if (c->by_unset) {
		snprintf(t, sizeof t, "%u runs did not set %s: not compared (--by tunable.%s puts the runs at each of its "
			 "values side by side)", c->by_unset, c->by_name, c->by_name);
		say(ctx, t);
	}
	if (c->by_unknown) {
		snprintf(t, sizeof t, "%u runs without a boot record were not compared (--by reads the boot's kernel, and "
			 "its memory, command line or tag, from it)", c->by_unknown);
		say(ctx, t);
	}
	if (c->dropped_values) {
		snprintf(t, sizeof t, "%llu values were not compared: the input names more than %d figures and counters "
			 "(each by workload, parameters, layout and tunables), or more than %u MiB of them, and those past "
			 "them were not kept", c->dropped_values, CMP_MAX_GROUPS, CMP_MAX_GROUP_BYTES >> 20);
		say(ctx, t);
	}
	if (c->dropped_functions) {
		snprintf(t, sizeof t, "%llu profile shares (a function in one run) were not kept: past %d functions in "
			 "one experiment, or %d in all; the why view counts those runs' lists as cut", c->dropped_functions,
			 CMP_EXP_FUNCS, CMP_MAX_GROUPS);
		say(ctx, t);
	}
	if (c->bad_profiles) {
		snprintf(t, sizeof t, "%u profiles whose shares (or perf stacks) add up to more than all their samples, or "
			 "whose counts were not counts, were not read", c->bad_profiles);
		say(ctx, t);
	}
	if (c->cut_perf) {
		snprintf(t, sizeof t, "%u runs' perf output was cut at the appliance's capture limit "
			 "(lost_output_bytes): their profile and off-CPU view cover only the run's start", c->cut_perf);
		say(ctx, t);
	}
	if (c->bad_stacks) {
		snprintf(t, sizeof t, "%llu perf stacks were not folded lines (empty, too long or deep, a control byte, an "
			 "empty frame): their samples (off-CPU: their time) count as past the kept top, in no path",
			 c->bad_stacks);
		say(ctx, t);
	}
	if (c->past_stacks) {
		snprintf(t, sizeof t, "%llu perf stacks were past the first %d of their run: their samples (off-CPU: their "
			 "time) count as past the kept top, in no path", c->past_stacks, CMP_PERF_STACKS);
		say(ctx, t);
	}
	if (c->flame_dropped[FLAME_CPU] > 0 || c->flame_dropped[FLAME_OFF] > 0) {
		snprintf(t, sizeof t, "%.0f perf samples' and %.0f us of off-CPU time's call paths were cut short: past %d "
			 "paths in one experiment's tree or %u in all (the trees share that bound; perf's functions are "
			 "counted; the call trees and flame graphs stop above them)", c->flame_dropped[FLAME_CPU],
			 c->flame_dropped[FLAME_OFF], FLAME_EXP_NODES, FLAME_ALL_NODES);
		say(ctx, t);
	}
	if (kernels_differ(c, offsetof(struct cmp_boot, userland)))
		say(ctx, "the kernels ran different userlands: the comparison is not only of kernels");
	if (kernels_differ(c, offsetof(struct cmp_boot, qemu_setup)))
		say(ctx, "QEMU ran the kernels differently (entry, disk read cap): the comparison is not only of kernels");
	if (kernels_differ(c, offsetof(struct cmp_boot, machine)))
		say(ctx, "the kernels did not all run on the same machines (their firmware's serial or product; a LAVA "
			 "lab's device names): the comparison is partly of machines (\"runs per kernel\" lists them)");
	else if (machines_uneven(c))
		say(ctx, "the kernels ran on the same machines, but in shares more than 25 points apart: the comparison "
			 "is partly of machines (\"runs per kernel\" lists them; lava-series --server pins each round's "
			 "jobs to the devices in turn)");
	for (size_t k = 0; k < c->nkernels; k++)
		if (c->kernels[k].mixed) {
			snprintf(t, sizeof t, "the boots of %s differ in userland, kernel config, accelerator or QEMU setup: "
				 "its column pools them (tag the boots, bootbench.tag=, to keep them apart)",
				 c->kernels[k].label);
			say(ctx, t);
		}
}

void cmp_free(struct cmp *c)
{
	free(c->series_buf);
	for (size_t g = 0; g < c->ngroups; g++) {
		struct cmp_group *G = &c->groups[g];
		for (size_t k = 0; k < G->ncell; k++)
			free(G->cell[k].inforce), free(G->cell[k].rm), free(G->cell[k].units);
		free(G->cell);
		free(G->mode);
		free(G->workload);
		free(G->params);
		free(G->layout);
		free(G->lkey);
		free(G->key);
		free(G->section);
		free(G->tunables);
		free(G->metric);
		free(G->unit);
		free(G->better);
		free(G->label);
		free(G->inforce_diff);
	}
	free(c->groups);
	free(c->boots);
	for (size_t m = 0; m < c->nmodes; m++)
		free(c->modes[m]);
	free(c->modes);
	for (size_t t = 0; t < c->ntraces; t++) {
		free(c->traces[t].title);
		free(c->traces[t].json);
	}
	strmap_free(&c->boot_ix);
	strmap_free(&c->by_ix);
	strmap_free(&c->first_ix);
	strmap_free(&c->label_ix);
	free(c->label_hash);
	for (size_t i = 0; i < c->nfirst; i++)
		free(c->first[i].cmd);
	free(c->first);
	strmap_free(&c->group_ix);
	strmap_free(&c->seen_s);
	strmap_free(&c->unit_ix);
	strmap_free(&c->exp_ix);
	for (size_t x = 0; x < c->nexps; x++) {
		free(c->exps[x].boots);
		for (int t = 0; t < FLAME_TREES; t++)
			flame_free(c->exps[x].fl[t]);
	}
	free(c->exps);
	free(c->xoff);
	free(c->xg);
	u64set_free(&c->seen);
}
