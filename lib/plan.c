/*
 * plan.c - the plan language (docs/plans.md): split lines into words, check
 * each directive against a table, expand the matrix in its fixed order.
 *
 * Every rule that can reject a plan lives here, so `bootbench plan check` on
 * the host and the appliance refuse the same plans with the same words.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "defaults.h"
#include "nfsd.h"
#include "plan.h"
#include "sbuf.h"
#include "units.h"
#include "xio.h"

struct ctx {
	const char *file;
	int line;
	char *err;
	size_t errlen;
};

static int fail(struct ctx *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int fail(struct ctx *c, const char *fmt, ...)
{
	va_list ap;
	int n;
	if (c->line > 0)
		n = snprintf(c->err, c->errlen, "%s:%d: ", c->file, c->line);
	else
		n = snprintf(c->err, c->errlen, "%s: ", c->file);
	if (n >= 0 && (size_t)n < c->errlen) {
		va_start(ap, fmt);
		vsnprintf(c->err + n, c->errlen - n, fmt, ap);
		va_end(ap);
	}
	return -1;
}

/* ---- words ---- */

struct word {
	char *s;
	long eq;	/* offset of the first '=' outside quotes, -1: none */
};

struct words {
	struct word *w;
	size_t n;
};

static void words_free(struct words *ws)
{
	for (size_t i = 0; i < ws->n; i++)
		free(ws->w[i].s);
	free(ws->w);
	ws->w = NULL;
	ws->n = 0;
}

/* Split one line (no newline in it) on blanks. Double quotes group and are
 * removed; '#' outside quotes ends the line. */
static int split_line(struct ctx *c, const char *s, size_t len, struct words *ws)
{
	size_t i = 0;
	while (i < len) {
		struct sbuf sb = {0};
		int inq = 0;
		long eq = -1;
		while (i < len && (s[i] == ' ' || s[i] == '\t' || s[i] == '\r'))
			i++;
		if (i >= len || s[i] == '#')
			break;
		sb_add(&sb, "", 0);
		while (i < len && (inq || (s[i] != ' ' && s[i] != '\t' && s[i] != '\r' && s[i] != '#'))) {
			char ch = s[i++];
			if (ch == '"') {
				inq = !inq;
				continue;
			}
			if (ch == '=' && !inq && eq < 0)
				eq = (long)sb.len;
			sb_putc(&sb, ch);
		}
		if (inq) {
			sb_free(&sb);
			return fail(c, "unterminated quote");
		}
		ws->w = xrealloc(ws->w, (ws->n + 1) * sizeof *ws->w);
		ws->w[ws->n].s = sb_steal(&sb);
		ws->w[ws->n].eq = eq;
		ws->n++;
	}
	return 0;
}

/* ---- value checks ---- */

/* [A-Za-z0-9._-] (upper: also capitals and dots), 1..PLAN_MAX_NAME long. */
static int valid_name(const char *s, int wide)
{
	size_t n = strlen(s);
	if (!n || n > PLAN_MAX_NAME)
		return 0;
	for (; *s; s++) {
		char ch = *s;
		if ((ch >= 'a' && ch <= 'z') || (ch >= '0' && ch <= '9') || ch == '_' || ch == '-')
			continue;
		if (wide && ((ch >= 'A' && ch <= 'Z') || ch == '.'))
			continue;
		return 0;
	}
	return 1;
}

#define NAME_HELP "letters, digits and . _ -, at most 64 characters"
#define LOWER_HELP "a-z, 0-9, _ and -, at most 64 characters"

/* A whole number: digits only. -1 when malformed or above max. */
static int parse_uint(const char *s, unsigned long long max, unsigned long long *out)
{
	unsigned long long v = 0;
	if (!*s)
		return -1;
	for (; *s; s++) {
		if (*s < '0' || *s > '9')
			return -1;
		if (v > (max - (unsigned)(*s - '0')) / 10)
			return -1;
		v = v * 10 + (unsigned)(*s - '0');
	}
	*out = v;
	return 0;
}

/* ---- layouts ---- */

enum lkey { LK_MD, LK_DISKS, LK_CHUNK, LK_RESYNC, LK_RAMDISK, LK_TMPFS, LK_FS, LK_MKFS, LK_MOUNT, LK_READONLY, LK_N };
enum ltype { LT_ENUM, LT_DISKS, LT_CHUNK, LT_SIZE, LT_TEXT, LT_DISKID };

#define MIN_SIZE (1ULL << 20)
#define MAX_SIZE (1ULL << 40)
#define MIN_CHUNK (4ULL << 10)
#define MAX_CHUNK (16ULL << 20)

static const struct lkeydef {
	const char *name;
	enum ltype type;
	const char *choices;	/* LT_ENUM */
} lkeys[LK_N] = {
	[LK_MD] = { "md", LT_ENUM, "raid0|raid1|raid5" },
	[LK_DISKS] = { "disks", LT_DISKS, NULL },
	[LK_CHUNK] = { "chunk", LT_CHUNK, NULL },
	[LK_RESYNC] = { "resync", LT_ENUM, "assume-clean|wait|skip" },
	[LK_RAMDISK] = { "ramdisk", LT_SIZE, NULL },
	[LK_TMPFS] = { "tmpfs", LT_SIZE, NULL },
	[LK_FS] = { "fs", LT_ENUM, "none|ext2|ext3|ext4|xfs" },
	[LK_MKFS] = { "mkfs", LT_TEXT, NULL },
	[LK_MOUNT] = { "mount", LT_TEXT, NULL },
	[LK_READONLY] = { "readonly", LT_DISKID, NULL },
};

static const char *lkey_list(void)
{
	static char list[128];
	if (!list[0])
		for (size_t i = 0; i < LK_N; i++) {
			if (i)
				strcat(list, ", ");
			strcat(list, lkeys[i].name);
		}
	return list;
}

static const char *kind_name[] = {
	[LAYOUT_DISK] = "disk", [LAYOUT_MD] = "md", [LAYOUT_RAMDISK] = "ramdisk", [LAYOUT_TMPFS] = "tmpfs",
	[LAYOUT_READONLY] = "readonly",
};

/* The section a layout, tunable or workload line adds to: the last
 * `section`, or the one unnamed section of a plan without them. */
static struct plan_section *current(struct plan *p)
{
	struct plan_section *s;
	if (p->nsections)
		return &p->sections[p->nsections - 1];
	s = &p->sections[p->nsections++];
	s->layouts = &p->layouts[p->nlayouts];
	s->tunables = &p->tunables[p->ntunables];
	s->workloads = &p->workloads[p->nworkloads];
	return s;
}

static void layout_free(struct plan_layout *l)
{
	free(l->name);
	free(l->md_level);
	free(l->resync);
	free(l->fs);
	free(l->mkfs);
	free(l->mount);
	free(l->readonly);
	memset(l, 0, sizeof *l);
}

/* Check one value on its own; the rules between keys come after. */
static int layout_value(struct ctx *c, enum lkey k, const char *v, unsigned long long *num)
{
	const struct lkeydef *d = &lkeys[k];
	switch (d->type) {
	case LT_ENUM:
		if (!in_choices(v, d->choices))
			return fail(c, "bad value for %s: \"%s\" (expected one of %s)", d->name, v, d->choices);
		break;
	case LT_DISKS:
		if (parse_uint(v, MAX_BLOCKDEVS, num) < 0 || *num < 1)
			return fail(c, "bad value for disks: \"%s\" (expected a whole number from 1 to %d)", v,
				    MAX_BLOCKDEVS);
		break;
	case LT_CHUNK:
		if (parse_size(v, MAX_CHUNK, num) < 0 || *num < MIN_CHUNK || *num > MAX_CHUNK || (*num & (*num - 1)))
			return fail(c, "bad value for chunk: \"%s\" (expected a power of two from 4K to 16M)", v);
		break;
	case LT_SIZE:
		if (parse_size(v, MAX_SIZE, num) < 0 || *num < MIN_SIZE || *num > MAX_SIZE || *num % 4096)
			return fail(c, "bad value for %s: \"%s\" (expected a size from 1M to 1024G, a multiple of 4K; "
				    "bytes or K, M, G)", d->name, v);
		break;
	case LT_DISKID:
		/* as bootbench.disks= tokens are: no blanks, commas or quotes */
		if (strlen(v) > PLAN_MAX_VALUE || strpbrk(v, " \t,\"'#"))
			return fail(c, "bad value for %s: \"%s\" (expected a disk's serial, WWN or by-path name, at most %d "
				    "characters, no blanks or commas)", d->name, v, PLAN_MAX_VALUE);
		break;
	case LT_TEXT:
		if (strlen(v) > PLAN_MAX_VALUE)
			return fail(c, "value of %s is longer than %d characters", d->name, PLAN_MAX_VALUE);
		break;
	}
	return 0;
}

static int parse_layout(struct ctx *c, const struct words *ws, struct plan *p)
{
	const char *val[LK_N] = {0};
	unsigned long long num[LK_N] = {0};
	const char *name;
	struct plan_layout *l;
	int nkinds = 0;
	char kinds[64] = "";

	if (ws->n < 2 || ws->w[1].eq >= 0)
		return fail(c, "layout needs a name: layout NAME key=value...");
	name = ws->w[1].s;
	if (!valid_name(name, 1))
		return fail(c, "bad layout name \"%s\" (expected " NAME_HELP ")", name);
	for (size_t i = 0; i < p->nlayouts; i++)
		if (!strcmp(p->layouts[i].name, name))
			return fail(c, "layout \"%s\" already defined on line %d", name, p->layouts[i].line);
	if (p->nlayouts >= PLAN_MAX_LAYOUTS)
		return fail(c, "more than %d layouts", PLAN_MAX_LAYOUTS);

	for (size_t i = 2; i < ws->n; i++) {
		char *w = ws->w[i].s, *v;
		int k;
		if (ws->w[i].eq < 0)
			return fail(c, "expected key=value, got \"%s\" (layout NAME key=value...)", w);
		w[ws->w[i].eq] = 0;	/* our copy: split it in place */
		v = w + ws->w[i].eq + 1;
		for (k = 0; k < LK_N && strcmp(lkeys[k].name, w); k++)
			;
		if (k == LK_N)
			return fail(c, "unknown layout key \"%s\" (valid: %s)", w, lkey_list());
		if (val[k])
			return fail(c, "layout key %s given twice", w);
		if (!*v)
			return fail(c, "layout key %s needs a value (%s=...)", w, w);
		if (layout_value(c, k, v, &num[k]) < 0)
			return -1;
		val[k] = v;
	}

	/* one kind per layout */
	for (int k = 0; k < LK_N; k++)
		if ((k == LK_MD || k == LK_RAMDISK || k == LK_TMPFS || k == LK_READONLY) && val[k]) {
			if (nkinds++)
				strcat(kinds, " and ");
			strcat(kinds, lkeys[k].name);
		}
	if (nkinds > 1)
		return fail(c, "%s exclude each other (one kind of layout per line)", kinds);

	l = &p->layouts[p->nlayouts];
	memset(l, 0, sizeof *l);
	l->kind = val[LK_MD] ? LAYOUT_MD : val[LK_RAMDISK] ? LAYOUT_RAMDISK : val[LK_TMPFS] ? LAYOUT_TMPFS :
		  val[LK_READONLY] ? LAYOUT_READONLY : LAYOUT_DISK;
	if (l->kind == LAYOUT_READONLY)
		for (int k = 0; k < LK_N; k++)
			if (k != LK_READONLY && val[k])
				return fail(c, "%s is not allowed in a read-only layout (the disk is read as it is: no "
					    "filesystem, RAID or other setup)", lkeys[k].name);

	if (val[LK_DISKS] && (l->kind == LAYOUT_RAMDISK || l->kind == LAYOUT_TMPFS))
		return fail(c, "disks applies to disk and md layouts only (this is a %s layout)", kind_name[l->kind]);
	if (val[LK_RESYNC] && l->kind != LAYOUT_MD)
		return fail(c, "resync applies to md layouts only (this is a %s layout)", kind_name[l->kind]);
	if (val[LK_CHUNK] && (l->kind != LAYOUT_MD || !strcmp(val[LK_MD], "raid1")))
		return fail(c, "chunk applies to md=raid0 and md=raid5 layouts only");
	if (l->kind == LAYOUT_TMPFS && (val[LK_FS] || val[LK_MKFS]))
		return fail(c, "%s is not allowed in a tmpfs layout (its filesystem is tmpfs)",
			    val[LK_FS] ? "fs" : "mkfs");
	if (l->kind == LAYOUT_MD) {
		unsigned min = strcmp(val[LK_MD], "raid5") ? 2 : 3;
		if (!val[LK_DISKS])
			return fail(c, "md=%s needs disks=N (at least %u)", val[LK_MD], min);
		if (num[LK_DISKS] < min)
			return fail(c, "md=%s needs at least %u disks (disks=%llu)", val[LK_MD], min, num[LK_DISKS]);
	}
	if (l->kind == LAYOUT_DISK && val[LK_DISKS] && num[LK_DISKS] != 1)
		return fail(c, "a disk layout uses exactly one disk (disks=%llu; for more, add md=raid0|raid1|raid5)",
			    num[LK_DISKS]);
	if (l->kind != LAYOUT_TMPFS && l->kind != LAYOUT_READONLY && !val[LK_FS])
		return fail(c, "a %s layout needs fs=none|ext2|ext3|ext4|xfs", kind_name[l->kind]);
	if (val[LK_FS] && !strcmp(val[LK_FS], "none") && (val[LK_MKFS] || val[LK_MOUNT]))
		return fail(c, "%s needs a filesystem (this layout has fs=none)", val[LK_MKFS] ? "mkfs" : "mount");

	l->name = xstrdup(name);
	l->line = c->line;
	l->ndisks = l->kind == LAYOUT_MD ? (unsigned)num[LK_DISKS] : l->kind == LAYOUT_DISK ? 1 : 0;
	if (l->kind == LAYOUT_MD) {
		l->md_level = xstrdup(val[LK_MD]);
		l->chunk = num[LK_CHUNK];
		l->resync = xstrdup(val[LK_RESYNC] ? val[LK_RESYNC] : "assume-clean");
	}
	if (l->kind == LAYOUT_RAMDISK || l->kind == LAYOUT_TMPFS)
		l->size = num[l->kind == LAYOUT_RAMDISK ? LK_RAMDISK : LK_TMPFS];
	l->fs = xstrdup(l->kind == LAYOUT_TMPFS ? "tmpfs" : l->kind == LAYOUT_READONLY ? "none" : val[LK_FS]);
	l->readonly = val[LK_READONLY] ? xstrdup(val[LK_READONLY]) : NULL;
	l->mkfs = val[LK_MKFS] ? xstrdup(val[LK_MKFS]) : NULL;
	l->mount = val[LK_MOUNT] ? xstrdup(val[LK_MOUNT]) : NULL;
	current(p)->nlayouts++;	/* first: it may start the section at this layout */
	p->nlayouts++;
	return 0;
}

/* ---- tunables ---- */

/* Block-queue settings (per device of the layout) and VM settings (the
 * whole machine, /proc/sys/vm): every one may also be given `default`,
 * the kernel's own value, read back and recorded (init/tunables.c). */
static const struct tundef {
	const char *name;
	int numeric;
	unsigned long long min, max;
} tunables[] = {
	{ "scheduler", 0, 0, 0 },
	{ "read_ahead_kb", 1, 0, 1048576 },
	{ "nr_requests", 1, 4, 65536 },
	{ "queue_depth", 1, 1, 65536 },
	{ "vm.dirty_ratio", 1, 0, 100 },
	{ "vm.dirty_background_ratio", 1, 0, 100 },
	{ "vm.dirty_expire_centisecs", 1, 0, 8640000 },
	{ "vm.dirty_writeback_centisecs", 1, 0, 8640000 },
	{ "vm.swappiness", 1, 0, 200 },
	{ "vm.vfs_cache_pressure", 1, 0, 100000 },
	{ "vm.min_free_kbytes", 1, 0, 67108864 },
};
#define NTUNDEFS (sizeof tunables / sizeof *tunables)

static const char *tunable_list(void)
{
	static char list[512];
	if (!list[0])
		for (size_t i = 0; i < NTUNDEFS; i++) {
			if (i)
				strcat(list, ", ");
			strcat(list, tunables[i].name);
		}
	return list;
}

static void tunable_free(struct plan_tunable *t)
{
	free(t->name);
	for (size_t i = 0; i < t->nvalues; i++)
		free(t->values[i]);
	memset(t, 0, sizeof *t);
}

static int parse_tunable(struct ctx *c, const struct words *ws, struct plan *p)
{
	const struct tundef *d = NULL;
	struct plan_tunable *t;
	struct plan_section *s = current(p);
	if (ws->n < 2)
		return fail(c, "tunable needs a name and values: tunable NAME VALUE...");
	for (size_t i = 0; i < NTUNDEFS; i++)
		if (!strcmp(tunables[i].name, ws->w[1].s))
			d = &tunables[i];
	if (!d)
		return fail(c, "unknown tunable \"%s\" (valid: %s)", ws->w[1].s, tunable_list());
	for (size_t i = 0; i < s->ntunables; i++)
		if (!strcmp(s->tunables[i].name, d->name))
			return fail(c, "tunable %s already set on line %d", d->name, s->tunables[i].line);
	if (ws->n < 3)
		return fail(c, "tunable %s needs at least one value", d->name);
	if (ws->n - 2 > PLAN_MAX_VALUES)
		return fail(c, "tunable %s has more than %d values", d->name, PLAN_MAX_VALUES);
	if (p->ntunables >= PLAN_MAX_TUNABLES)
		return fail(c, "more than %d tunables (all sections together)", PLAN_MAX_TUNABLES);
	for (size_t i = 2; i < ws->n; i++) {
		const char *v = ws->w[i].s;
		unsigned long long u;
		if (!strcmp(v, "default"))
			;	/* the kernel's own value: any tunable */
		else if (d->numeric && (parse_uint(v, d->max, &u) < 0 || u < d->min))
			return fail(c, "bad value for tunable %s: \"%s\" (expected a whole number from %llu to %llu, or default)",
				    d->name, v, d->min, d->max);
		if (!d->numeric && !valid_name(v, 0))
			return fail(c, "bad value for tunable %s: \"%s\" (expected a name of " LOWER_HELP ", or default)", d->name, v);
		for (size_t j = 2; j < i; j++)
			if (!strcmp(ws->w[j].s, v))
				return fail(c, "tunable %s lists \"%s\" twice", d->name, v);
	}
	s->ntunables++;
	t = &p->tunables[p->ntunables++];
	t->name = xstrdup(d->name);
	t->line = c->line;
	t->nvalues = ws->n - 2;
	for (size_t i = 0; i < t->nvalues; i++)
		t->values[i] = xstrdup(ws->w[i + 2].s);
	return 0;
}

/* ---- workloads ---- */

static void workload_free(struct plan_workload *w)
{
	free(w->name);
	for (size_t i = 0; i < w->nparams; i++) {
		free(w->params[i].key);
		free(w->params[i].val);
	}
	memset(w, 0, sizeof *w);
}

static int parse_workload(struct ctx *c, const struct words *ws, struct plan *p, plan_workload_check check)
{
	struct plan_workload *w;
	const char *name;
	char cerr[256];
	if (ws->n < 2 || ws->w[1].eq >= 0)
		return fail(c, "workload needs a name: workload NAME key=value...");
	name = ws->w[1].s;
	if (!valid_name(name, 0))
		return fail(c, "bad workload name \"%s\" (expected " LOWER_HELP ")", name);
	if (p->nworkloads >= PLAN_MAX_WORKLOADS)
		return fail(c, "more than %d workloads", PLAN_MAX_WORKLOADS);
	if (ws->n - 2 > PLAN_MAX_PARAMS)
		return fail(c, "workload %s has more than %d parameters", name, PLAN_MAX_PARAMS);
	for (size_t i = 2; i < ws->n; i++) {
		char *k = ws->w[i].s, *v;
		if (ws->w[i].eq < 0)
			return fail(c, "expected key=value, got \"%s\" (workload NAME key=value...)", k);
		k[ws->w[i].eq] = 0;
		v = k + ws->w[i].eq + 1;
		if (!valid_name(k, 0) || strchr(k, '-'))
			return fail(c, "bad workload parameter name \"%s\" (expected a-z, 0-9 and _, at most 64 characters)", k);
		if (!*v)
			return fail(c, "workload parameter %s needs a value (%s=...)", k, k);
		if (strlen(v) > PLAN_MAX_VALUE)
			return fail(c, "value of %s is longer than %d characters", k, PLAN_MAX_VALUE);
		for (size_t j = 2; j < i; j++)
			if (!strcmp(ws->w[j].s, k))
				return fail(c, "workload parameter %s given twice", k);
	}
	w = &p->workloads[p->nworkloads];
	memset(w, 0, sizeof *w);
	w->name = xstrdup(name);
	w->line = c->line;
	for (size_t i = 2; i < ws->n; i++) {
		const char *k = ws->w[i].s;
		w->params[w->nparams].key = xstrdup(k);
		w->params[w->nparams].val = xstrdup(k + strlen(k) + 1);
		w->nparams++;
	}
	cerr[0] = 0;
	if (check && check(w->name, w->params, w->nparams, cerr, sizeof cerr) < 0) {
		workload_free(w);
		return fail(c, "%s", cerr[0] ? cerr : "workload rejected");
	}
	current(p)->nworkloads++;	/* first: it may start the section at this workload */
	p->nworkloads++;
	return 0;
}

/* ---- the NFS server ---- */

static int parse_nfsserver(struct ctx *c, const struct words *ws, struct plan *p)
{
	struct plan_section *s = current(p);
	struct plan_nfsserver n = { .threads = 8 };
	const char *versions = "3", *transports = "tcp", *exp = NFSD_DEFAULT_EXPORT;
	char err[256];
	unsigned flags;
	if (s->nfs.line)
		return fail(c, "nfsserver given twice in this section (first on line %d)", s->nfs.line);
	for (size_t i = 1; i < ws->n; i++) {
		char *k = ws->w[i].s, *v;
		if (ws->w[i].eq < 0)
			return fail(c, "expected key=value, got \"%s\" (nfsserver [threads=N] [versions=3] "
				    "[transports=tcp|udp|tcp,udp] [export=OPTIONS])", k);
		k[ws->w[i].eq] = 0;
		v = k + ws->w[i].eq + 1;
		if (!*v)
			return fail(c, "nfsserver %s needs a value", k);
		if (!strcmp(k, "threads")) {
			unsigned long long u;
			if (parse_uint(v, PLAN_NFS_THREADS_MAX, &u) < 0 || u < 1)
				return fail(c, "bad value for nfsserver threads: \"%s\" (expected 1 to %d)", v,
					    PLAN_NFS_THREADS_MAX);
			n.threads = (unsigned)u;
		} else if (!strcmp(k, "versions")) {
			if (strcmp(v, "3"))
				return fail(c, "nfsserver versions=%s: only 3 is served (NFSv4 needs rpc.idmapd and "
					    "nfsdcld, which come with nfs-utils; it cannot be built here)", v);
			versions = v;
		} else if (!strcmp(k, "transports")) {
			if (strcmp(v, "tcp") && strcmp(v, "udp") && strcmp(v, "tcp,udp") && strcmp(v, "udp,tcp"))
				return fail(c, "bad value for nfsserver transports: \"%s\" (expected tcp, udp or tcp,udp)", v);
			transports = v;
		} else if (!strcmp(k, "export")) {
			if (strlen(v) > PLAN_MAX_VALUE || nfsd_export_flags(v, &flags, err, sizeof err) < 0)
				return fail(c, "bad nfsserver export options: %s", strlen(v) > PLAN_MAX_VALUE ? "too long" : err);
			exp = v;
		} else
			return fail(c, "nfsserver has no setting \"%s\" (valid: threads versions transports export)", k);
	}
	s->nfs = n;
	s->nfs.line = c->line;
	s->nfs.versions = xstrdup(versions);
	s->nfs.transports = xstrdup(transports);
	s->nfs.export = xstrdup(exp);
	return 0;
}

/* The mount options a plan may add: the client's caching, transfer sizes,
 * timeouts and retries. An allowlist, not a list of what the appliance
 * sets itself: the kernel takes the last of any option given twice, and
 * names like v4.1 or nfsvers would otherwise slip past a denylist and move
 * the mount off what the record says (vers=3, our server). */
static const char *const nfsclient_allowed[] = {
	"ac", "noac", "actimeo", "acregmin", "acregmax", "acdirmin", "acdirmax", "rsize", "wsize", "bsize",
	"hard", "soft", "softerr", "timeo", "retrans", "lookupcache", "cto", "nocto", "nconnect", "sharecache",
	"nosharecache", "rdirplus", "nordirplus", "fsc", "nofsc", "local_lock", "write",
};

static int parse_nfsclient(struct ctx *c, const struct words *ws, struct plan *p)
{
	struct plan_section *s = current(p);
	const char *opts = "";
	if (s->nfsc.line)
		return fail(c, "nfsclient given twice in this section (first on line %d)", s->nfsc.line);
	for (size_t i = 1; i < ws->n; i++) {
		char *k = ws->w[i].s, *v;
		if (ws->w[i].eq < 0)
			return fail(c, "expected key=value, got \"%s\" (nfsclient [options=OPTIONS])", k);
		k[ws->w[i].eq] = 0;
		v = k + ws->w[i].eq + 1;
		if (strcmp(k, "options"))
			return fail(c, "nfsclient has no setting \"%s\" (valid: options)", k);
		if (!*v)
			return fail(c, "nfsclient options needs a value");
		if (strlen(v) > PLAN_NFSCLIENT_OPTIONS_MAX)
			return fail(c, "nfsclient options: too long (at most %d characters)", PLAN_NFSCLIENT_OPTIONS_MAX);
		for (const char *o = v; *o;) {
			size_t n = strcspn(o, ","), kn = strcspn(o, "=,");
			if (!n)
				return fail(c, "nfsclient options \"%s\": an empty option", v);
			for (size_t j = 0; j < n; j++)
				if (!((o[j] >= 'a' && o[j] <= 'z') || (o[j] >= '0' && o[j] <= '9') || o[j] == '_' ||
				      o[j] == '=' || o[j] == '.'))
					return fail(c, "nfsclient options \"%s\": only a-z 0-9 _ . = in an option", v);
			{
				int known = 0;
				for (size_t r = 0; r < sizeof nfsclient_allowed / sizeof *nfsclient_allowed; r++)
					known |= strlen(nfsclient_allowed[r]) == kn && !strncmp(o, nfsclient_allowed[r], kn);
				if (!known)
					return fail(c, "nfsclient options: %.*s is not one a plan may set (caching, sizes, "
						    "timeouts: docs/nfs.md; vers, proto, addr, port and lock are the "
						    "appliance's)", (int)kn, o);
			}
			o += n + (o[n] == ',');
			if (o[-1] == ',' && !*o)
				return fail(c, "nfsclient options \"%s\": an empty option", v);
		}
		opts = v;
	}
	s->nfsc.line = c->line;
	s->nfsc.options = xstrdup(opts);
	return 0;
}

/* ---- sections ---- */

static int parse_section(struct ctx *c, const struct words *ws, struct plan *p)
{
	struct plan_section *s;
	const char *name;
	if (ws->n < 2 || ws->n > 3 || ws->w[1].eq >= 0)
		return fail(c, "section takes a name and an optional quoted title: section NAME [\"TITLE\"]");
	name = ws->w[1].s;
	if (!valid_name(name, 1))
		return fail(c, "bad section name \"%s\" (expected " NAME_HELP ")", name);
	if (ws->n == 3 && ws->w[2].eq >= 0)
		return fail(c, "section title \"%s\" looks like key=value: quote the title", ws->w[2].s);
	if (ws->n == 3 && strlen(ws->w[2].s) > PLAN_MAX_VALUE)
		return fail(c, "section title is longer than %d characters", PLAN_MAX_VALUE);
	if (p->nsections && !plan_has_sections(p)) {
		const struct plan_section *u = &p->sections[0];
		int first = c->line;	/* the earliest of them */
		if (u->nlayouts && u->layouts[0].line < first)
			first = u->layouts[0].line;
		if (u->ntunables && u->tunables[0].line < first)
			first = u->tunables[0].line;
		if (u->nworkloads && u->workloads[0].line < first)
			first = u->workloads[0].line;
		return fail(c, "section after a layout, tunable or workload outside any section (line %d): in a plan "
			    "with sections every one belongs to a section", first);
	}
	for (size_t i = 0; i < p->nsections; i++)
		if (!strcmp(p->sections[i].name, name))
			return fail(c, "section \"%s\" already defined on line %d", name, p->sections[i].line);
	if (p->nsections >= PLAN_MAX_SECTIONS)
		return fail(c, "more than %d sections", PLAN_MAX_SECTIONS);
	s = &p->sections[p->nsections++];
	s->name = xstrdup(name);
	s->title = ws->n == 3 ? xstrdup(ws->w[2].s) : NULL;
	s->line = c->line;
	s->layouts = &p->layouts[p->nlayouts];
	s->tunables = &p->tunables[p->ntunables];
	s->workloads = &p->workloads[p->nworkloads];
	return 0;
}

/* ---- the plan ---- */

/* ---- requires ---- */

static int parse_requires(struct ctx *c, const struct words *ws, struct plan *p)
{
	struct plan_requires *r = &p->req;
	if (ws->n < 2)
		return fail(c, "requires needs KEY=VALUE (layer=NAME[,NAME], memory=SIZE, disks=N, cpus=N)");
	if (!r->line)
		r->line = c->line;
	for (size_t i = 1; i < ws->n; i++) {
		const char *w = ws->w[i].s, *v;
		unsigned long long u;
		size_t kl;
		if (ws->w[i].eq < 0)
			return fail(c, "requires: \"%s\" is not KEY=VALUE", w);
		kl = (size_t)ws->w[i].eq;
		v = w + kl + 1;
		if (kl == 5 && !strncmp(w, "layer", 5)) {
			if (r->nlayers)
				return fail(c, "requires: layer given twice (name several as layer=A,B)");
			for (const char *s = v;;) {
				size_t l = strcspn(s, ",");
				int ok = l > 0 && l <= PLAN_LAYER_NAME && s[0] != '-';
				for (size_t k = 0; k < l; k++)
					ok &= (s[k] >= 'a' && s[k] <= 'z') || (s[k] >= '0' && s[k] <= '9') || s[k] == '-';
				if (!ok)
					return fail(c, "requires: bad layer name \"%.*s\" (a-z, 0-9 and -, at most %d)", (int)l,
						    s, PLAN_LAYER_NAME);
				if (r->nlayers == PLAN_MAX_LAYERS)
					return fail(c, "requires: at most %d layers", PLAN_MAX_LAYERS);
				snprintf(r->layers[r->nlayers++], PLAN_LAYER_NAME + 1, "%.*s", (int)l, s);
				if (!s[l])
					break;
				s += l + 1;
			}
		} else if (kl == 6 && !strncmp(w, "memory", 6)) {
			if (r->memory)
				return fail(c, "requires: memory given twice");
			if (parse_size(v, 1ULL << 50, &u) < 0 || u < (1ULL << 20))
				return fail(c, "requires: bad memory \"%s\" (" SIZE_HELP ", at least 1M)", v);
			r->memory = u;
		} else if ((kl == 5 && !strncmp(w, "disks", 5)) || (kl == 4 && !strncmp(w, "cpus", 4))) {
			unsigned *dst = kl == 5 ? &r->disks : &r->cpus;
			if (*dst)
				return fail(c, "requires: %.*s given twice", (int)kl, w);
			if (parse_uint(v, 1024, &u) < 0 || u < 1)
				return fail(c, "requires: bad %.*s \"%s\" (a whole number from 1 to 1024)", (int)kl, w, v);
			*dst = (unsigned)u;
		} else {
			return fail(c, "requires: unknown key \"%.*s\" (valid: layer, memory, disks, cpus)", (int)kl, w);
		}
	}
	return 0;
}

static int parse_once(struct ctx *c, const struct words *ws, int *seen, const char *what,
		      const char *usage, const char **arg)
{
	if (*seen)
		return fail(c, "%s given twice (first on line %d)", what, *seen);
	if (ws->n != 2)
		return fail(c, "%s takes one value: %s", what, usage);
	*seen = c->line;
	*arg = ws->w[1].s;
	return 0;
}

static int parse_line(struct ctx *c, const struct words *ws, struct plan *p, plan_workload_check check,
		      int seen[4])
{
	const char *d = ws->w[0].s, *arg = NULL;
	unsigned long long u;
	if (!strcmp(d, "plan")) {
		if (parse_once(c, ws, &seen[0], "plan", "plan NAME", &arg) < 0)
			return -1;
		if (!valid_name(arg, 1))
			return fail(c, "bad plan name \"%s\" (expected " NAME_HELP ")", arg);
		free(p->name);
		p->name = xstrdup(arg);
		return 0;
	}
	if (!strcmp(d, "iterations")) {
		if (parse_once(c, ws, &seen[1], "iterations", "iterations N", &arg) < 0)
			return -1;
		if (parse_uint(arg, 1000, &u) < 0 || u < 1)
			return fail(c, "bad value for iterations: \"%s\" (expected a whole number from 1 to 1000)", arg);
		p->iterations = (unsigned)u;
		return 0;
	}
	if (!strcmp(d, "timeout")) {
		if (parse_once(c, ws, &seen[2], "timeout", "timeout SECONDS", &arg) < 0)
			return -1;
		if (parse_duration(arg, 1000, 86400, &u) < 0 || u < 1)
			return fail(c, "bad value for timeout: \"%s\" (expected seconds from 1 to 86400: " DURATION_HELP ")",
				    arg);
		p->timeout_s = (unsigned)u;
		return 0;
	}
	if (!strcmp(d, "profile")) {
		if (parse_once(c, ws, &seen[3], "profile", "profile on|perf|offcpu|off", &arg) < 0)
			return -1;
		p->profile = profile_level(arg);
		if (p->profile < 0)
			return fail(c, "bad value for profile: \"%s\" (expected on, perf, offcpu or off)", arg);
		return 0;
	}
	if (!strcmp(d, "requires"))
		return parse_requires(c, ws, p);
	if (!strcmp(d, "section"))
		return parse_section(c, ws, p);
	if (!strcmp(d, "layout"))
		return parse_layout(c, ws, p);
	if (!strcmp(d, "tunable"))
		return parse_tunable(c, ws, p);
	if (!strcmp(d, "workload"))
		return parse_workload(c, ws, p, check);
	if (!strcmp(d, "nfsserver"))
		return parse_nfsserver(c, ws, p);
	if (!strcmp(d, "nfsclient"))
		return parse_nfsclient(c, ws, p);
	return fail(c, "unknown directive \"%s\" (valid: plan, iterations, timeout, profile, requires, section, layout, tunable, workload, nfsserver, nfsclient)", d);
}

/* The default name: the file's base name without ".plan". */
static char *name_from_file(const char *file)
{
	const char *b = strrchr(file, '/');
	size_t n;
	b = b ? b + 1 : file;
	n = strlen(b);
	if (n > 5 && !strcmp(b + n - 5, ".plan"))
		n -= 5;
	return xstrndup(b, n);
}

int plan_parse(const char *file, const char *text, size_t len, plan_workload_check check,
	       struct plan *p, char *err, size_t errlen)
{
	struct ctx c = { file, 0, err, errlen };
	int seen[4] = {0};	/* line of plan, iterations, timeout, profile */
	unsigned long long runs;
	size_t i = 0;

	memset(p, 0, sizeof *p);
	p->iterations = PLAN_DEFAULT_ITERATIONS;
	p->timeout_s = PLAN_DEFAULT_TIMEOUT;
	while (i < len) {
		struct words ws = {0};
		size_t start = i;
		int rc;
		c.line++;
		while (i < len && text[i] != '\n')
			i++;
		for (size_t j = start; j < i; j++) {
			unsigned char ch = (unsigned char)text[j];
			if (ch < 0x20 && ch != '\t' && ch != '\r') {
				fail(&c, "control character 0x%02x in the plan", ch);
				goto bad;
			}
		}
		rc = split_line(&c, text + start, i - start, &ws);
		if (rc == 0 && ws.n)
			rc = parse_line(&c, &ws, p, check, seen);
		words_free(&ws);
		if (rc < 0)
			goto bad;
		i++;	/* the newline */
	}
	c.line = 0;
	if (!plan_has_sections(p)) {
		if (!p->nlayouts) {
			fail(&c, "plan has no layout");
			goto bad;
		}
		if (!p->nworkloads) {
			fail(&c, "plan has no workload");
			goto bad;
		}
	}
	for (size_t k = 0; k < p->nsections; k++) {
		const struct plan_section *s = &p->sections[k];
		c.line = s->line;
		if (s->name && !s->nlayouts) {
			fail(&c, "section %s has no layout", s->name);
			goto bad;
		}
		if (s->name && !s->nworkloads) {
			fail(&c, "section %s has no workload", s->name);
			goto bad;
		}
		if (s->nfsc.line && !s->nfs.line) {
			c.line = s->nfsc.line;
			fail(&c, "nfsclient needs nfsserver in the same %s (the client mounts that server's export)",
			     s->name ? "section" : "plan");
			goto bad;
		}
		if (s->nfsc.line && !strstr(s->nfs.transports, "tcp")) {
			c.line = s->nfsc.line;
			fail(&c, "nfsclient mounts over tcp (Debian's kernels have no NFS client over udp): the "
			     "nfsserver line needs transports=tcp or tcp,udp");
			goto bad;
		}
	}
	c.line = 0;
	runs = plan_run_count(p);
	if (runs > PLAN_MAX_RUNS) {
		fail(&c, "plan expands to %llu runs (at most %d)", runs, PLAN_MAX_RUNS);
		goto bad;
	}
	if (!p->name)
		p->name = name_from_file(file);
	return 0;
bad:
	plan_free(p);
	return -1;
}

void plan_free(struct plan *p)
{
	free(p->name);
	for (size_t i = 0; i < p->nsections; i++) {
		free(p->sections[i].name);
		free(p->sections[i].title);
		free(p->sections[i].nfs.versions);
		free(p->sections[i].nfs.transports);
		free(p->sections[i].nfs.export);
		free(p->sections[i].nfsc.options);
	}
	for (size_t i = 0; i < p->nlayouts; i++)
		layout_free(&p->layouts[i]);
	for (size_t i = 0; i < p->ntunables; i++)
		tunable_free(&p->tunables[i]);
	for (size_t i = 0; i < p->nworkloads; i++)
		workload_free(&p->workloads[i]);
	memset(p, 0, sizeof *p);
}

/* ---- expansion ---- */

unsigned plan_tunable_combos(const struct plan_section *s)
{
	unsigned n = 1;
	for (size_t t = 0; t < s->ntunables; t++)
		n *= (unsigned)s->tunables[t].nvalues;
	return n;
}

/* Combination c read as a number whose digits are value indexes, the last
 * tunable the lowest digit. */
const char *plan_tunable_value(const struct plan_section *s, unsigned c, size_t t)
{
	unsigned div = 1;
	if (t >= s->ntunables)
		return NULL;
	for (size_t u = t + 1; u < s->ntunables; u++)
		div *= (unsigned)s->tunables[u].nvalues;
	return s->tunables[t].values[(c / div) % s->tunables[t].nvalues];
}

void plan_tunables_text(const struct plan_section *s, unsigned c, char *out, size_t len)
{
	size_t o = 0;
	snprintf(out, len, "-");
	for (size_t t = 0; t < s->ntunables && o < len; t++)
		o += (size_t)snprintf(out + o, len - o, "%s%s=%s", t ? "," : "", s->tunables[t].name,
				      plan_tunable_value(s, c, t));
}

int plan_has_sections(const struct plan *p)
{
	return p->nsections && p->sections[0].name;
}

/* At most 32 layouts x 8^4 tunable sets (4 tunable names, unique in a
 * section) x 32 workloads x 1000 iterations: no overflow in 64 bits. */
unsigned long long plan_run_count(const struct plan *p)
{
	unsigned long long n = 0;
	for (size_t k = 0; k < p->nsections; k++) {
		const struct plan_section *s = &p->sections[k];
		n += (unsigned long long)s->nlayouts * plan_tunable_combos(s) * s->nworkloads;
	}
	return n * p->iterations;
}

/* The section a layout belongs to. */
static const struct plan_section *section_of(const struct plan *p, const struct plan_layout *l)
{
	for (size_t k = 0; k < p->nsections; k++)
		if (l >= p->sections[k].layouts && l < p->sections[k].layouts + p->sections[k].nlayouts)
			return &p->sections[k];
	return &p->sections[0];	/* unreachable after a successful parse */
}

size_t plan_expand(const struct plan *p, struct plan_run **out)
{
	size_t n = (size_t)plan_run_count(p), k = 0;
	struct plan_run *r = xcalloc(n ? n : 1, sizeof *r);

	for (unsigned it = 1; it <= p->iterations; it++)
		for (size_t li = 0; li < p->nlayouts; li++) {
			const struct plan_layout *l = &p->layouts[it % 2 ? li : p->nlayouts - 1 - li];
			const struct plan_section *s = section_of(p, l);
			unsigned combos = plan_tunable_combos(s);
			size_t first = k;
			for (unsigned c = 0; c < combos; c++)
				for (size_t w = 0; w < s->nworkloads; w++) {
					r[k].iteration = it;
					r[k].section = s;
					r[k].layout = l;
					r[k].tunables_index = c;
					r[k].workload = &s->workloads[w];
					k++;
				}
			if (k > first) {
				r[first].first_of_layout = 1;
				r[k - 1].last_of_layout = 1;
			}
		}
	*out = r;
	return k;
}

/* The profile words, indexed by level: the one table for both ways. */
static const char *const profile_words[] = { [PROFILE_OFF] = "off", [PROFILE_TICK] = "on", [PROFILE_PERF] = "perf",
						    [PROFILE_OFFCPU] = "offcpu" };

int profile_level(const char *word)
{
	for (int i = 0; word && i < (int)(sizeof profile_words / sizeof *profile_words); i++)
		if (!strcmp(word, profile_words[i]))
			return i;
	return -1;
}

const char *profile_name(int level)
{
	return level >= 0 && level < (int)(sizeof profile_words / sizeof *profile_words) ? profile_words[level] : "off";
}
