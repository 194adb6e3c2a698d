/*
 * runid.c - a run's identity from its record (see runid.h).
 *
 * Tunables are keyed by what held, not by what was asked: a requested value
 * the kernel refused on a device reads "name=value(refused:DEV)" and is
 * never equal to a run where it held; one requested on a device that lacks
 * the attribute (tmpfs, a driver without queue_depth) is not in force and
 * not in the key. Tunables the plan did not set are kept apart (inforce):
 * they are the kernel's defaults, and a kernel that changes a default must
 * still be compared with the one before it, with the difference shown.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runid.h"
#include "xio.h"

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Sort n strings, join them with spaces into out ("-" when none), free them. */
static void join_sorted(struct sbuf *out, char **items, size_t n)
{
	qsort(items, n, sizeof *items, cmp_str);
	for (size_t i = 0; i < n; i++) {
		sb_printf(out, "%s%s", i ? " " : "", items[i]);
		free(items[i]);
	}
	if (!n)
		sb_puts(out, "-");
	free(items);
}

/* A word as it goes into a pair: itself when it is plain, else JSON-quoted,
 * so a value holding a blank, '=' or a quote (plans allow quoted values)
 * can never make two different sets read the same. */
static void word(struct sbuf *sb, const char *t)
{
	int plain = *t != 0;
	for (const unsigned char *c = (const unsigned char *)t; *c && plain; c++)
		plain = *c > ' ' && *c != '"' && *c != '\\' && *c != '=' && *c != 0x7f;
	if (plain)
		sb_puts(sb, t);
	else
		json_quote(sb, t);
}

static void value_text(struct sbuf *sb, const struct jv *v)
{
	if (!v || v->t == J_NULL) {
		sb_puts(sb, "null");
	} else if (v->t == J_STR) {
		word(sb, v->str);
	} else {
		struct sbuf d = { 0 };
		json_dump(&d, v);
		word(sb, d.s);
		sb_free(&d);
	}
}

size_t runid_pair_len(const char *p)
{
	size_t i = 0;
	int q = 0;
	for (; p[i] && (q || p[i] != ' '); i++) {
		if (q && p[i] == '\\' && p[i + 1])
			i++;
		else if (p[i] == '"')
			q = !q;
	}
	return i;
}

size_t runid_key_len(const char *p, size_t n)
{
	size_t i = 0;
	int q = 0;
	for (; i < n && (q || p[i] != '='); i++) {
		if (q && p[i] == '\\' && i + 1 < n)
			i++;
		else if (p[i] == '"')
			q = !q;
	}
	return i;
}

/* Workload parameters renamed since records were first written: the old
 * name keys the same experiment (hdparm's upper-case names could not be set
 * from a plan). */
static const struct {
	const char *workload, *old, *now;
} renamed[] = {
	{ "hdparm", "seconds_T", "cached_seconds" },
	{ "hdparm", "seconds_t", "disk_seconds" },
};

/* Workload parameters added since records were first written: at the
 * default they had before (what older records ran with, unrecorded), they
 * are left out of the key, so old and new records of one experiment pool. */
static const struct {
	const char *workload, *key, *before;
} added[] = {
	{ "dbt2", "drop_cache", "0" },
};

static int param_as_before(const char *workload, const char *key, const struct jv *v)
{
	for (size_t i = 0; workload && i < sizeof added / sizeof *added; i++)
		if (!strcmp(added[i].workload, workload) && !strcmp(added[i].key, key))
			return v && v->t == J_STR && !strcmp(v->str, added[i].before);
	return 0;
}

static const char *param_name(const char *workload, const char *key)
{
	for (size_t i = 0; workload && i < sizeof renamed / sizeof *renamed; i++)
		if (!strcmp(renamed[i].workload, workload) && !strcmp(renamed[i].old, key))
			return renamed[i].now;
	return key;
}

/* "k=v" pairs of an object, sorted, blank-separated; "-" for none. workload:
 * the object is its parameters (old names read as the new), or NULL. */
static void pairs(struct sbuf *out, const struct jv *o, const char *workload)
{
	char **items;
	size_t n = 0;
	if (!o || o->t != J_OBJ || !o->n) {
		sb_puts(out, "-");
		return;
	}
	items = xcalloc(o->n, sizeof *items);
	for (size_t i = 0; i < o->n; i++) {
		struct sbuf sb = { 0 };
		if (param_as_before(workload, o->keys[i], o->items[i]))
			continue;
		word(&sb, param_name(workload, o->keys[i]));
		sb_putc(&sb, '=');
		value_text(&sb, o->items[i]);
		items[n++] = sb_steal(&sb);
	}
	join_sorted(out, items, n);
}

/* How much of a ramdisk layout's recorded mkfs command line is its
 * identity: all of it, less the " -d size=N" or " (/dev/ramN) Nk" that
 * records written before commit 3583d3c appended when a built-in brd was
 * bigger than asked (the filesystem size is keyed as the layout's size).
 * Only a tail of exactly that shape, and only on ramdisk layouts: on any
 * other, a trailing -d size= is the plan's own mkfs option. */
static size_t mkfs_key_len(const char *s)
{
	size_t n = strlen(s), d = n;
	while (d > 0 && s[d - 1] >= '0' && s[d - 1] <= '9')
		d--;
	if (d < n && d >= 9 && !strncmp(s + d - 9, " -d size=", 9))
		return d - 9;
	if (n && s[n - 1] == 'k') {
		const char *open = NULL;
		d = n - 1;
		while (d > 0 && s[d - 1] >= '0' && s[d - 1] <= '9')
			d--;
		if (d == n - 1 || d < 2 || s[d - 1] != ' ' || s[d - 2] != ')')
			return n;
		for (const char *p = s; (p = strstr(p, " (/dev/")); p++)
			open = p;
		if (open && open < s + d - 2 && !memchr(open + 2, ' ', (size_t)(s + d - 2 - (open + 2))))
			return (size_t)(open - s);
	}
	return n;
}

static void layout_key(struct sbuf *out, const struct jv *l)
{
	const struct jv *md = json_get(l, "md"), *fs = json_get(l, "fs"), *mem = json_get(l, "members");
	const struct jv *ro = json_get(l, "readonly");
	const char *s;
	sb_printf(out, "name=%s", json_get_str(l, "name") ? json_get_str(l, "name") : "?");
	if ((s = json_get_str(l, "kind")))
		sb_printf(out, ";kind=%s", s);
	if (md && md->t == J_OBJ) {
		sb_printf(out, ";level=%s", json_get_str(md, "level") ? json_get_str(md, "level") : "?");
		sb_printf(out, ";chunk=%.0f", json_get_num(md, "chunk_bytes", 0));
	}
	if (json_get(l, "size_bytes"))
		sb_printf(out, ";size=%.0f", json_get_num(l, "size_bytes", 0));
	if (fs && fs->t == J_OBJ) {
		if ((s = json_get_str(fs, "type")))
			sb_printf(out, ";fs=%s", s);
		if ((s = json_get_str(fs, "features")))
			sb_printf(out, ";features=%s", s);
	}
	if (md && md->t == J_OBJ && (s = json_get_str(md, "resync")))
		/* the mode, not the seconds waited: "resynced (waited 3.1 s)" */
		sb_printf(out, ";resync=%.*s", (int)strcspn(s, " ("), s);
	if (fs && fs->t == J_OBJ) {
		if ((s = json_get_str(fs, "mkfs"))) {
			/* older records put a built-in brd's cut-down size at the
			 * end of the mkfs text; the size is keyed apart */
			const char *kind = json_get_str(l, "kind");
			size_t n = kind && !strcmp(kind, "ramdisk") ? mkfs_key_len(s) : strlen(s);
			sb_printf(out, ";mkfs=%.*s", (int)n, s);
		}
		if ((s = json_get_str(fs, "mount"))) {
			/* "DEV DIR TYPE OPTIONS 0 0": the options, not the device */
			const char *o = s;
			for (int f = 0; f < 3 && *o; f++)
				o += strcspn(o, " "), o += strspn(o, " ");
			sb_printf(out, ";mount=%.*s", (int)strcspn(o, " "), o);
		}
	}
	if (ro && ro->t == J_OBJ)
		/* the read-only disk by its size, as members are: not its serial */
		sb_printf(out, ";ro=%.0f", json_get_num(ro, "size_bytes", 0));
	if (mem && mem->t == J_ARR && mem->n) {
		/* how many members and how big; not which serials (another
		 * machine of the same model is the same experiment) */
		sb_printf(out, ";members=%zu", mem->n);
		for (size_t i = 0; i < mem->n; i++)
			sb_printf(out, "%s%.0f", i ? "+" : ":", json_get_num(mem->items[i], "size_bytes", 0));
	}
}

/* Where `name` did not hold and what stayed in force there, from the
 * refused list (and, in records written before it existed, the skipped
 * one): "md0=none" or "md0=none+vda=mq-deadline". */
static void refused_on(struct sbuf *out, const struct jv *t, const char *name)
{
	const char *lists[] = { "refused", "skipped" };
	int n = 0;
	for (size_t l = 0; l < 2; l++) {
		const struct jv *a = json_get(t, lists[l]);
		for (size_t i = 0; a && a->t == J_ARR && i < a->n; i++) {
			const char *tn = json_get_str(a->items[i], "tunable"), *dev = json_get_str(a->items[i], "device");
			const char *why = json_get_str(a->items[i], "reason"), *kept = json_get_str(a->items[i], "in_force");
			if (!tn || strcmp(tn, name))
				continue;
			/* old records: "skipped" mixed refusals with absent attributes */
			if (l == 1 && !(why && (strstr(why, "refused") || strstr(why, "keeps"))))
				continue;
			if (n++)
				sb_putc(out, '+');
			word(out, dev ? dev : "?");
			if (kept) {
				sb_putc(out, '=');
				word(out, kept);
			}
		}
	}
}

/* Requested where no device has it (tmpfs, no such attribute): not in force.
 * A VM setting is the machine's: in force when "vm" read it back. */
static int absent_everywhere(const struct jv *in, const struct jv *vm, const char *name)
{
	if (!strncmp(name, "vm.", 3))
		return vm && vm->t == J_OBJ && !json_get(vm, name);
	if (!in || in->t != J_OBJ)
		return 0;	/* nothing read back (old records): take the request as held */
	for (size_t d = 0; d < in->n; d++)
		if (json_get(in->items[d], name))
			return 0;
	return 1;
}

/* Properties of the device rather than settings of the kernel: a run on
 * a rotating disk or with the write cache off is another experiment. */
static int device_property(const char *attr)
{
	return !strcmp(attr, "rotational") || !strcmp(attr, "write_cache");
}

static void tunables_key(struct sbuf *out, struct sbuf *inforce, struct sbuf *hw, const struct jv *t)
{
	const struct jv *req = json_get(t, "requested"), *in = json_get(t, "in_force");
	char **items;
	size_t n = 0;

	if (req && req->t == J_OBJ && req->n) {
		items = xcalloc(req->n, sizeof *items);
		for (size_t i = 0; i < req->n; i++) {
			struct sbuf sb = { 0 }, on = { 0 };
			const char *name = req->keys[i];
			if (absent_everywhere(in, json_get(t, "vm"), name))
				continue;
			word(&sb, name);
			sb_putc(&sb, '=');
			value_text(&sb, req->items[i]);
			refused_on(&on, t, name);
			if (on.len)
				sb_printf(&sb, "(refused:%s)", on.s);
			sb_free(&on);
			items[n++] = sb_steal(&sb);
		}
		join_sorted(out, items, n);
	} else {
		sb_puts(out, "-");
	}
	/* the rest of what was in force, device by device */
	n = 0;
	if (in && in->t == J_OBJ) {
		size_t cap = 0;
		for (size_t d = 0; d < in->n; d++)
			cap += in->items[d]->t == J_OBJ ? in->items[d]->n : 0;
		items = xcalloc(cap + 1, sizeof *items);
		for (size_t d = 0; d < in->n; d++) {
			const struct jv *dv = in->items[d];
			for (size_t a = 0; dv->t == J_OBJ && a < dv->n; a++) {
				struct sbuf sb = { 0 };
				if (json_get(req, dv->keys[a]))
					continue;
				if (device_property(dv->keys[a])) {
					sb_puts(hw, hw->len ? "," : ";device=");
					word(hw, in->keys[d]);
					sb_putc(hw, ':');
					word(hw, dv->keys[a]);
					sb_putc(hw, '=');
					value_text(hw, dv->items[a]);
					continue;
				}
				word(&sb, in->keys[d]);
				sb_putc(&sb, ':');
				word(&sb, dv->keys[a]);
				sb_putc(&sb, '=');
				value_text(&sb, dv->items[a]);
				items[n++] = sb_steal(&sb);
			}
		}
		join_sorted(inforce, items, n);
	} else {
		sb_puts(inforce, "-");
	}
}

/* Start one more pair of a tunables key: "-" (nothing yet) gives way. */
static void next_pair(struct sbuf *t)
{
	if (!strcmp(t->s, "-"))
		sb_free(t);
	else
		sb_putc(t, ' ');
}

static void add_pair(struct sbuf *t, const char *k, const struct jv *v)
{
	next_pair(t);
	word(t, k);
	sb_putc(t, '=');
	value_text(t, v);
}

/* The kernel NFS server a section asked for (docs/nfs.md) is part of the
 * experiment: 8 threads against 64, or sync against async exports, never
 * pool. What was asked keys it; what the kernel reports in force and how
 * long it took to start do not (they are outcomes). So does the kernel
 * client's mount, when the section ran its workloads through one. */
static void nfs_key(struct sbuf *t, const struct jv *srv, const struct jv *cli)
{
	static const char *asked[] = { "threads", "versions", "transports", "export" };
	if (srv && srv->t == J_OBJ) {
		for (size_t i = 0; i < sizeof asked / sizeof *asked; i++) {
			char k[32];
			snprintf(k, sizeof k, "nfsd_%s", asked[i]);
			add_pair(t, k, json_get(srv, asked[i]));
		}
	}
	if (cli && cli->t == J_OBJ)
		add_pair(t, "nfs_client", json_get(cli, "options"));
}

/* The engine a workload drove when it is not the userland's own
 * (details.software: the PostgreSQL layer's build line, or a host's
 * PostgreSQL and where it was): another build is another experiment. So
 * is dbt2 on data that fitted in memory against data that did not (the
 * seed's cached and non-cached: details.fits_in_memory). */
static void software_key(struct sbuf *t, const struct jv *details)
{
	const struct jv *sw = json_get(details, "software"), *fit = json_get(details, "fits_in_memory");
	for (size_t i = 0; sw && sw->t == J_OBJ && i < sw->n; i++) {
		char k[80];
		snprintf(k, sizeof k, "software.%.60s", sw->keys[i]);
		add_pair(t, k, sw->items[i]);
	}
	if (fit && fit->t == J_BOOL)
		add_pair(t, "fits_in_memory", fit);
}

void run_identity(const struct jv *data, struct run_id *id)
{
	const struct jv *l = json_get(data, "layout");
	memset(id, 0, sizeof *id);
	pairs(&id->params, json_get(data, "params"), json_get_str(data, "workload"));
	if (l && l->t == J_OBJ)
		layout_key(&id->layout, l);
	else
		sb_puts(&id->layout, "name=?");
	{
		struct sbuf hw = { 0 };
		tunables_key(&id->tunables, &id->inforce, &hw, json_get(data, "tunables"));
		if (hw.len)
			sb_puts(&id->layout, hw.s);
		sb_free(&hw);
	}
	nfs_key(&id->tunables, json_get(data, "nfsserver"), json_get(data, "nfsclient"));
	software_key(&id->tunables, json_get(data, "details"));
	/* a run made with profile on (docs/why.md) carries "delays": its
	 * delay accounting cost a fork loop ~3%, so it never pools with plain
	 * runs, and the row says so where both exist; one sampled by perf too
	 * (profile perf: 12% on a fork loop) pools with neither, nor with one
	 * sampled at another rate or with user call chains (perf before
	 * 2026-12-07: 4000 Hz, user chains; they cost and unwind differently),
	 * nor one with every switch sampled too (profile offcpu: its cost) */
	if (json_get(data, "delays")) {
		const struct jv *pf = json_get(data, "perf"), *asked = json_get(pf, "asked");
		int perf = asked && asked->t == J_BOOL && asked->b;
		double hz = json_get_num(pf, "frequency", 0);
		const char *src = json_get_str(pf, "source");
		next_pair(&id->tunables);
		sb_puts(&id->tunables, perf ? "profile=perf" : "profile=on");
		if (perf && hz >= 1 && hz < 1e9) {
			next_pair(&id->tunables);
			sb_printf(&id->tunables, "perf_hz=%.0f", hz);
		}
		if (perf && src && !strstr(src, "--kernel-callchains")) {
			next_pair(&id->tunables);
			sb_puts(&id->tunables, "perf_chains=user");
		}
		if (perf && ((src && strstr(src, "--switch-events")) ||
			     (json_get(pf, "offcpu_asked") && json_get(pf, "offcpu_asked")->t == J_BOOL &&
			      json_get(pf, "offcpu_asked")->b))) {
			next_pair(&id->tunables);
			sb_puts(&id->tunables, "perf_offcpu=yes");
		}
	}
}

void run_id_free(struct run_id *id)
{
	sb_free(&id->params);
	sb_free(&id->layout);
	sb_free(&id->tunables);
	sb_free(&id->inforce);
}

/* Is the pair "k=v" one of the pairs of a params or tunables text? */
int params_match(const char *params, const char *pair)
{
	size_t n = strlen(pair);
	for (const char *p = params; *p;) {
		size_t m = runid_pair_len(p);
		if (m == n && !strncmp(p, pair, n))
			return 1;
		p += m + (p[m] == ' ');
	}
	return 0;
}

int runid_take(struct sbuf *text, const char *key, char *val, size_t len)
{
	size_t kl = strlen(key);
	val[0] = 0;
	if (!text->s)
		return 0;
	for (char *p = text->s; *p;) {
		size_t m = runid_pair_len(p), k = runid_key_len(p, m);
		if (k == kl && !strncmp(p, key, kl) && m > k && p[k] == '=') {
			size_t cut = m + (p[m] == ' '), at = (size_t)(p - text->s);
			snprintf(val, len, "%.*s", (int)(m - k - 1), p + k + 1);
			if (at && !p[m])
				at--, cut++;	/* the last pair: its separator before it goes */
			memmove(text->s + at, text->s + at + cut, text->len - at - cut + 1);
			text->len -= cut;
			if (!text->len)
				sb_puts(text, "-");
			return 1;
		}
		p += m + (p[m] == ' ');
	}
	return 0;
}

void runid_put(struct sbuf *text, const char *key, const char *val)
{
	struct sbuf old = *text;
	memset(text, 0, sizeof *text);
	word(text, key);
	sb_putc(text, '=');
	word(text, val);
	if (old.s && strcmp(old.s, "-"))
		sb_printf(text, " %s", old.s);
	sb_free(&old);
}
