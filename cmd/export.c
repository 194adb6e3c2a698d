/*
 * export.c - bootbench export --kcidb: records as KernelCI's KCIDB v5.3
 * submission, so a regression lives where kernel people look, not in one
 * HTML file. Read the records as compare reads them (two passes, then the
 * statistics), then once more to write one test per figure and run.
 */
const char export_usage[] =
"usage: bootbench export --kcidb RESULTS... [-o FILE] [--origin NAME]\n"
"                        [--baseline KERNEL] [--fdr Q] [--alpha A] [--min-effect PCT]\n"
"                        [--noisy PCT] [--rounds N] [--equivalence PCT] [--care W[@L]]\n"
"\n"
"Writes one KCIDB submission (schema v5.3: kernelci/kcidb-io) of the records\n"
"of RESULTS (results images, devices, console logs, LAVA job logs, `bootbench collect`\n"
"output, a boot server's targets/MAC/records.jsonl, in any mix):\n"
"  checkouts  one per kernel source: its git commit where the kernel was\n"
"             built from a git tree (scripts/build-kernel --tree), else the\n"
"             package, version and sha256 in misc\n"
"  builds     one per kernel build: architecture, compiler, config name;\n"
"             release, version, config hash and label in misc\n"
"  tests      per run, bootbench.WORKLOAD.LAYOUT with PASS (ok), FAIL\n"
"             (failed), ERROR (timed out, crashed) or SKIP; per figure of an\n"
"             ok run, bootbench.WORKLOAD.LAYOUT[.VARIANT].METRIC with DONE\n"
"             (FAIL when the run marked the figure invalid) and its number\n"
"             (value, unit); environment.comment the machine that ran it\n"
"             (its DMI serial or product: a LAVA device's name); misc holds\n"
"             the run (boot id, seq, parameters,\n"
"             tunables), the kernel's boots and runs of that figure (boots,\n"
"             runs, mean of the boot means, CoV) and\n"
"             the comparison with the baseline as `bootbench compare` makes it\n"
"             (change, interval, p, q, verdict; with --rounds the confirmation\n"
"             verdict and the round that reached it)\n"
"VARIANT names the parameters and tunables that tell the figure from its\n"
"siblings, so that one path is one experiment. Characters a KCIDB path may\n"
"not hold become '_'. Ids are `ORIGIN:` and a hash of what identifies the\n"
"object (a test: its boot id, run sequence number and figure), so\n"
"exporting the same records twice gives the same ids and KCIDB merges\n"
"rather than duplicates. A run without its boot record is not exported\n"
"(it has no build): they are counted on stderr.\n"
"  --kcidb        the format (the only one)\n"
"  -o FILE        write FILE (whole, or not at all) instead of stdout (-:\n"
"                 stdout; one of the RESULTS is refused)\n"
"  --origin NAME  the submitting CI system, [a-z0-9_]+ (default bootbench)\n"
"  --baseline, --fdr, --alpha, --min-effect, --noisy, --rounds,\n"
"  --equivalence, --care:\n"
"                 as for bootbench compare\n"
"exit: 0 written, 1 no usable records or a source unreadable (the rest written), 100 bad\n"
"usage, 111 unable to write (or a source read once and not again).\n";

#define _GNU_SOURCE
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "commands.h"
#include "compare.h"
#include "defaults.h"
#include "err.h"
#include "hash.h"
#include "json.h"
#include "runid.h"
#include "recsource.h"
#include "stats.h"
#include "strmap.h"
#include "xio.h"

/* What a boot record says of the kernel, as KCIDB objects. */
struct xboot {
	char checkout[80], build[80];
};

struct exporter {
	struct cmp c;
	int pass;		/* 0 boots, 1 runs (compare), 2 write */
	const char *origin, *src;
	struct strmap boot_ix, seen, objs;	/* boot id -> xboot; runs written; checkout/build ids written */
	struct xboot *boots;
	size_t nboots, bcap;
	struct jw checkouts, builds, tests;
	unsigned long checkouts_n, builds_n, tests_n, no_boot, not_finite, over_kernels, conflict_runs;
};

/* "ORIGIN:" and 32 hex digits of the sha256 of the parts, each length-
 * prefixed so that no part can shift into the next. */
static void object_id(const struct exporter *x, char *out, size_t len, const char *const *parts, size_t n)
{
	struct sha256 s;
	unsigned char d[32];
	char hex[65];
	sha256_init(&s);
	for (size_t i = 0; i < n; i++) {
		char pre[24];
		int l = snprintf(pre, sizeof pre, "%zu:", strlen(parts[i]));
		sha256_update(&s, pre, (size_t)l);
		sha256_update(&s, parts[i], strlen(parts[i]));
	}
	sha256_final(&s, d);
	hexify(d, 16, hex);
	snprintf(out, len, "%s:%s", x->origin, hex);
}

static const char *str(const struct jv *o, const char *k)
{
	const char *s = json_get_str(o, k);
	return s ? s : "";
}

/* The compiler in /proc/version: "Linux version R (BUILDER) (COMPILER, LD) #..."
 * gives COMPILER, parentheses inside it kept. */
static void proc_compiler(const char *pv, char *out, size_t len)
{
	const char *p = strstr(pv, ") (");
	size_t n = 0;
	int depth = 0;
	out[0] = 0;
	if (!p)
		return;
	for (p += 3; *p && n + 1 < len; p++) {
		if (*p == '(')
			depth++;
		else if (*p == ')' && !depth--)
			break;
		else if (*p == ',' && !depth)
			break;
		out[n++] = *p;
	}
	out[n] = 0;
}

static void add_boot(struct exporter *x, const char *id, const struct jv *d)
{
	const struct jv *k = json_get(d, "kernel"), *desc = json_get(k, "descriptor");
	const char *source = str(desc, "source"), *release = str(k, "release"), *version = str(k, "version");
	char commit[41] = "", compiler[256], config[200];
	struct xboot *b;
	int dirty = 0;
	if (strmap_get(&x->boot_ix, id) != (size_t)-1)
		return;
	if (x->nboots == x->bcap) {
		x->bcap = x->bcap ? x->bcap * 2 : 64;
		x->boots = xrealloc(x->boots, x->bcap * sizeof *x->boots);
	}
	b = &x->boots[x->nboots];
	strmap_put(&x->boot_ix, id, x->nboots++);
	/* a kernel built from a git tree: "git:<40 hex>" (+dirty) */
	if (!strncmp(source, "git:", 4) && strspn(source + 4, "0123456789abcdef") == 40 &&
	    (!source[44] || !strcmp(source + 44, "+dirty"))) {
		memcpy(commit, source + 4, 40);
		dirty = source[44] != 0;
	}
	{
		/* what names the source: a commit, else a package's bytes, else
		 * (a plain directory, no descriptor) its path and what it built */
		int named = commit[0] || *str(desc, "package") || *str(desc, "sha256");
		const char *parts[] = { "checkout", commit, dirty ? "dirty" : "", str(desc, "package"), str(desc, "version"),
					str(desc, "sha256"), named ? "" : source, named ? "" : release, named ? "" : version };
		object_id(x, b->checkout, sizeof b->checkout, parts, sizeof parts / sizeof *parts);
	}
	snprintf(compiler, sizeof compiler, "%s", str(desc, "compiler"));
	if (!compiler[0])
		proc_compiler(str(k, "proc_version"), compiler, sizeof compiler);
	if (*str(desc, "config_base"))
		snprintf(config, sizeof config, "%s+%s", str(desc, "config_base"), str(desc, "config_fragment"));
	else
		snprintf(config, sizeof config, "%s", *str(desc, "package") ? str(desc, "package") : str(desc, "name"));
	{
		const char *parts[] = { "build", b->checkout, release, version, str(k, "config_sha256"), str(desc, "sha256"),
					str(desc, "key"), compiler, str(k, "machine") };
		object_id(x, b->build, sizeof b->build, parts, sizeof parts / sizeof *parts);
	}
	if (strmap_get(&x->objs, b->checkout) == (size_t)-1) {
		struct jw *w = &x->checkouts;
		strmap_put(&x->objs, b->checkout, 0);
		x->checkouts_n++;
		jw_obj(w, NULL);
		jw_str(w, "id", b->checkout);
		jw_str(w, "origin", x->origin);
		if (commit[0])
			jw_str(w, "git_commit_hash", commit);
		jw_obj(w, "misc");
		if (desc && desc->t == J_OBJ) {
			static const char *const keys[] = { "name", "kind", "package", "version", "sha256", "source" };
			for (size_t i = 0; i < sizeof keys / sizeof *keys; i++)
				if (*str(desc, keys[i]))
					jw_str(w, keys[i], str(desc, keys[i]));
		} else {
			jw_str(w, "release", release);
			jw_str(w, "version", version);
		}
		if (dirty)
			jw_bool(w, "dirty", 1);
		jw_obj_end(w);
		jw_obj_end(w);
	}
	if (strmap_get(&x->objs, b->build) == (size_t)-1) {
		struct jw *w = &x->builds;
		char label[64], machine[65];
		size_t n = 0;
		strmap_put(&x->objs, b->build, 0);
		x->builds_n++;
		/* KCIDB's architecture is [a-z0-9_]* */
		for (const char *m = str(k, "machine"); *m && n + 1 < sizeof machine; m++)
			if (islower((unsigned char)*m) || isdigit((unsigned char)*m) || *m == '_')
				machine[n++] = *m;
		machine[n] = 0;
		kernel_label(release, version, label, sizeof label);
		jw_obj(w, NULL);
		jw_str(w, "id", b->build);
		jw_str(w, "origin", x->origin);
		jw_str(w, "checkout_id", b->checkout);
		if (machine[0])
			jw_str(w, "architecture", machine);
		if (compiler[0])
			jw_str(w, "compiler", compiler);
		if (config[0])
			jw_str(w, "config_name", config);
		/* it booted and ran the plan: that is the build's test */
		jw_str(w, "status", "PASS");
		jw_obj(w, "misc");
		jw_str(w, "release", release);
		jw_str(w, "version", version);
		jw_str(w, "label", label);
		if (*str(k, "config_sha256"))
			jw_str(w, "config_sha256", str(k, "config_sha256"));
		if (*str(desc, "flavour"))
			jw_str(w, "flavour", str(desc, "flavour"));
		jw_obj_end(w);
		jw_obj_end(w);
	}
}

/* One path component: the characters KCIDB allows ([A-Za-z0-9_-]), others
 * '_', at most 80; never empty. */
static void path_part(struct sbuf *p, const char *s)
{
	size_t n = 0;
	sb_puts(p, ".");
	for (; *s && n < 80; s++, n++) {
		char ch = isalnum((unsigned char)*s) || *s == '-' || *s == '_' ? *s : '_';
		sb_add(p, &ch, 1);
	}
	if (!n)
		sb_puts(p, "_");
}

static void num_if(struct jw *w, const char *k, double v)
{
	if (isfinite(v))
		jw_num(w, k, v);
}

/* The comparison of figure G for kernel k, as compare judged it. */
static void comparison(const struct exporter *x, const struct cmp_group *G, size_t k, struct jw *w)
{
	const struct cmp *c = &x->c;
	const struct cmp_cell *a = &G->cell[k];
	const char *verdict;
	jw_int(w, "boots", (long long)a->n);
	jw_int(w, "runs", (long long)a->runs);
	num_if(w, "mean", a->s.mean);
	num_if(w, "cov", a->s.cov);
	jw_str(w, "baseline", c->kernels[c->base].label);
	verdict = k == c->base ? "baseline" : cmp_word(G, a);
	num_if(w, "change", a->change);
	if (isfinite(a->lo) && isfinite(a->hi)) {
		jw_arr(w, "interval");
		jw_num(w, NULL, a->lo);
		jw_num(w, NULL, a->hi);
		jw_arr_end(w);
	}
	num_if(w, "p", a->p);
	num_if(w, "q", a->q);
	jw_str(w, "verdict", verdict);
	cmp_confirm_json(c, G, k, w);
}

/* Opens a test object with the fields every test has. */
static void test_head(const struct exporter *x, struct jw *w, const char *id, const char *build, const char *path,
		      const char *status)
{
	jw_obj(w, NULL);
	jw_str(w, "id", id);
	jw_str(w, "origin", x->origin);
	jw_str(w, "build_id", build);
	jw_str(w, "path", path);
	jw_str(w, "status", status);
}

/* A test's environment: the machine (a LAVA lab's device) that ran it,
 * where its boot record names one. */
static void environment(struct jw *w, const struct cmp_boot *cb)
{
	if (!cb->machine[0])
		return;
	jw_obj(w, "environment");
	jw_str(w, "comment", cb->machine);
	jw_obj_end(w);
}

static void add_run(struct exporter *x, const char *id, const struct jv *rec, const struct jv *d)
{
	const struct cmp_boot *cb = cmp_boot_of(&x->c, id);
	size_t bi = strmap_get(&x->boot_ix, id);
	const struct jv *seq = json_get(rec, "seq"), *layout = json_get(d, "layout"), *metrics = json_get(d, "metrics");
	const char *status = json_get_str(d, "status"), *wl = str(d, "workload"), *lname = str(layout, "name");
	const char *kstatus = "FAIL";
	char seqs[32], rid_s[80];
	struct run_id rid;
	struct sbuf path = {0};
	struct jw *w = &x->tests;
	if (cb && bi != (size_t)-1 && cb->kernel < 0) {
		x->over_kernels++;	/* its kernel is past CMP_MAX_KERNELS */
		return;
	}
	if (cb && cb->conflict) {
		x->conflict_runs++;	/* its boot id came with two kernels: compare said so */
		return;
	}
	if (!cb || bi == (size_t)-1) {
		x->no_boot++;
		return;
	}
	if (seq && seq->t == J_NUM && seq->num >= 0 && seq->num < 1e15 && seq->num == floor(seq->num))
		snprintf(seqs, sizeof seqs, "%.0f", seq->num);
	else {
		/* no sequence number: the record's own text tells it apart */
		struct sbuf t = {0};
		char hex[65];
		json_dump(&t, rec);
		sha256_hex(t.s, t.len, hex);
		snprintf(seqs, sizeof seqs, "t%.24s", hex);
		sb_free(&t);
	}
	{
		char key[128];
		snprintf(key, sizeof key, "%s:%s", id, seqs);
		if (strmap_get(&x->seen, key) != (size_t)-1)
			return;	/* the same run from a second source */
		strmap_put(&x->seen, key, 0);
	}
	if (!status)
		status = "failed";
	if (!strcmp(status, "ok"))
		kstatus = "PASS";
	else if (!strcmp(status, "timeout") || !strcmp(status, "crashed"))
		kstatus = "ERROR";
	else if (!strcmp(status, "skipped"))
		kstatus = "SKIP";
	run_identity(d, &rid);
	sb_puts(&path, "bootbench");
	path_part(&path, wl);
	path_part(&path, lname);
	{
		const char *parts[] = { "run", id, seqs };
		object_id(x, rid_s, sizeof rid_s, parts, 3);
	}
	/* the run itself */
	test_head(x, w, rid_s, x->boots[bi].build, path.s, kstatus);
	{
		const struct jv *du = json_get(json_get(d, "duration"), "value");
		if (du && du->t == J_NUM && isfinite(du->num) && du->num >= 0)
			jw_num(w, "duration", du->num);
	}
	environment(w, cb);
	jw_obj(w, "misc");
	jw_str(w, "boot_id", id);
	jw_str(w, "seq", seqs);
	jw_str(w, "kernel", cb->label);
	jw_str(w, "mode", cb->mode);
	jw_str(w, "status", status);
	if (json_get_str(d, "reason"))
		jw_str(w, "reason", json_get_str(d, "reason"));
	jw_str(w, "params", rid.params.s);
	jw_str(w, "layout", rid.layout.s);
	jw_str(w, "tunables", rid.tunables.s);
	jw_obj_end(w);
	jw_obj_end(w);
	x->tests_n++;
	/* its figures */
	for (size_t i = 0; !strcmp(status, "ok") && metrics && metrics->t == J_ARR && i < metrics->n; i++) {
		const struct jv *m = metrics->items[i], *val = json_get(m, "value"), *inv = json_get(m, "invalid");
		const char *name = str(m, "name"), *unit = str(m, "unit"), *better = str(m, "better");
		const struct cmp_group *G;
		struct sbuf mp = {0};
		char tid[80];
		int invalid = inv && inv->t == J_BOOL && inv->b;
		if (!val || val->t != J_NUM)
			continue;
		if (!isfinite(val->num)) {
			x->not_finite++;
			continue;
		}
		G = cmp_group_lookup(&x->c, CMP_FIGURE, cb->mode, wl, &rid, *name ? name : "?", unit, better);
		sb_puts(&mp, path.s);
		if (G && G->label && *G->label)
			path_part(&mp, G->label);
		path_part(&mp, *name ? name : "?");
		{
			/* its place in the run too: a run may repeat a name */
			char ix[24];
			snprintf(ix, sizeof ix, "%zu", i);
			const char *parts[] = { "figure", id, seqs, name, unit, ix };
			object_id(x, tid, sizeof tid, parts, 6);
		}
		test_head(x, w, tid, x->boots[bi].build, mp.s, invalid ? "FAIL" : "DONE");
		jw_obj(w, "number");
		jw_num(w, "value", val->num);
		if (*unit)
			jw_str(w, "unit", unit);
		jw_obj_end(w);
		environment(w, cb);
		jw_obj(w, "misc");
		jw_str(w, "run_id", rid_s);
		jw_str(w, "boot_id", id);
		jw_str(w, "seq", seqs);
		jw_str(w, "kernel", cb->label);
		jw_str(w, "mode", cb->mode);
		if (*better)
			jw_str(w, "better", better);
		if (invalid)
			jw_bool(w, "invalid", 1);
		jw_str(w, "params", rid.params.s);
		jw_str(w, "layout", rid.layout.s);
		jw_str(w, "tunables", rid.tunables.s);
		if (G && G->label && *G->label)
			jw_str(w, "variant", G->label);
		if (G && (size_t)cb->kernel < G->ncell) {
			jw_obj(w, "comparison");
			comparison(x, G, (size_t)cb->kernel, w);
			jw_obj_end(w);
		}
		jw_obj_end(w);
		jw_obj_end(w);
		sb_free(&mp);
		x->tests_n++;
	}
	sb_free(&path);
	run_id_free(&rid);
}

static void on_line(void *ctx, const char *line, size_t len, const char *where)
{
	struct exporter *x = ctx;
	char err[160];
	struct jv *v;
	const char *type, *id;
	/* pass 0 wants boot records only: skip the lines that cannot be one
	 * without parsing them. Any spacing is valid JSON (Python's json.dumps
	 * puts a blank after the colon), so look for the value alone: a run
	 * record that holds "boot" somewhere is parsed and its type decides. */
	if (x->pass == 0 && !memmem(line, len, "\"boot\"", 6))
		return;
	v = json_parse(line, len, err, sizeof err);
	if (!v) {
		if (x->pass == 1)
			warning("%s: %s: damaged record (%s), skipped", x->src, where, err);
		return;
	}
	if (x->pass < 2) {
		x->c.boots_only = x->pass == 0;
		cmp_add_record(&x->c, v);
	}
	type = json_get_str(v, "type");
	id = json_get_str(v, "boot_id");
	if (type && id && *id && strlen(id) <= 32 && json_get(v, "data") && json_get(v, "data")->t == J_OBJ) {
		if (x->pass == 0 && !strcmp(type, "boot"))
			add_boot(x, id, json_get(v, "data"));
		else if (x->pass == 2 && !strcmp(type, "run"))
			add_run(x, id, v, json_get(v, "data"));
	}
	json_free(v);
}

static int origin_ok(const char *s)
{
	if (!*s || strlen(s) > 64)
		return 0;
	for (; *s; s++)
		if (!(islower((unsigned char)*s) || isdigit((unsigned char)*s) || *s == '_'))
			return 0;
	return 1;
}

/* Options that take a value, so that the sources are the rest. */
static int takes_value(const char *a)
{
	return !strcmp(a, "-o") || !strcmp(a, "--origin") || cmp_option_takes_value(a);
}

int export_main(int argc, char **argv)
{
	struct exporter x = { .origin = "bootbench" };
	const char *out = NULL;
	int kcidb = 0, nsrc = 0, rc = 0;
	char *failed;	/* per argument: its source could not be read */
	struct jw top;

	cmp_init(&x.c);
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		if (!strcmp(a, "--kcidb")) {
			kcidb = 1;
		} else if (takes_value(a)) {
			if (i + 1 >= argc)
				die(EXIT_BADINPUT, "%s needs a value (see bootbench export --help)", a);
			const char *v = argv[++i];
			if (!strcmp(a, "-o"))
				out = v;
			else if (!strcmp(a, "--origin")) {
				if (!origin_ok(v))
					die(EXIT_BADINPUT, "bad --origin \"%s\" (KCIDB wants [a-z0-9_]+, e.g. bootbench)", v);
				x.origin = v;
			} else
				cmp_option(&x.c, a, v);
		} else if (a[0] == '-' && a[1]) {
			die(EXIT_BADINPUT, "unknown option %s (see bootbench export --help)", a);
		} else
			nsrc++;
	}
	if (!kcidb)
		die(EXIT_BADINPUT, "say which format: --kcidb (the only one)");
	if (!nsrc) {
		fputs(export_usage, stderr);
		die(EXIT_BADINPUT, "no RESULTS given");
	}
	jw_init(&x.checkouts);
	jw_init(&x.builds);
	jw_init(&x.tests);
	jw_arr(&x.checkouts, NULL);
	jw_arr(&x.builds, NULL);
	jw_arr(&x.tests, NULL);
	if (out && !strcmp(out, "-"))
		out = NULL;
	failed = xcalloc((size_t)argc, 1);
	for (x.pass = 0; x.pass < 3; x.pass++) {
		if (x.pass == 2 && cmp_finish(&x.c) < 0)
			return 1;
		for (int i = 1; i < argc; i++) {
			const char *a = argv[i];
			struct stat so, sa;
			if (takes_value(a)) {
				i++;
				continue;
			}
			if (a[0] == '-' && a[1])
				continue;
			if (x.pass == 0 && out && !stat(out, &so) && !stat(a, &sa) && so.st_dev == sa.st_dev &&
			    so.st_ino == sa.st_ino)
				die(EXIT_BADINPUT, "-o %s is one of the RESULTS: it would be replaced by the submission", out);
			if (failed[i])
				continue;	/* said once */
			x.src = a;
			if (!source_read(a, on_line, &x, 1, NULL))
				continue;
			/* a source read whole in one pass and not in the next
			 * would leave its tests out of the submission unsaid */
			if (x.pass > 0 && !failed[i])
				die(EXIT_SYSFAIL, "%s could be read once and not again: nothing written", a);
			failed[i] = 1;
			rc = 1;
		}
	}
	free(failed);
	jw_arr_end(&x.checkouts);
	jw_arr_end(&x.builds);
	jw_arr_end(&x.tests);
	if (x.no_boot)
		warning("%lu runs have no boot record in these sources: not exported (no build to hang them on)",
			x.no_boot);
	if (x.not_finite)
		warning("%lu figures are not finite numbers: not exported", x.not_finite);
	if (x.over_kernels)
		warning("%lu runs of kernels past the first %d were not exported (compare's limit): export them apart",
			x.over_kernels, CMP_MAX_KERNELS);
	if (x.conflict_runs)
		warning("%lu runs of boot ids that came with two different boot records were not exported",
			x.conflict_runs);
	if (x.c.dropped_values)
		warning("%llu figure tests were exported without a comparison: the input names more than %d figures and "
			"counters (or %u MiB of them), compare's limit", x.c.dropped_values, CMP_MAX_GROUPS,
			CMP_MAX_GROUP_BYTES >> 20);
	if (!x.tests_n && !rc) {
		warning("no test to export: no run record with a boot record in these sources");
		rc = 1;
	}
	jw_init(&top);
	jw_obj(&top, NULL);
	jw_obj(&top, "version");
	jw_int(&top, "major", 5);
	jw_int(&top, "minor", 3);
	jw_obj_end(&top);
	jw_raw(&top, "checkouts", x.checkouts.sb.s);
	jw_raw(&top, "builds", x.builds.sb.s);
	jw_raw(&top, "tests", x.tests.sb.s);
	jw_obj_end(&top);
	sb_puts(&top.sb, "\n");
	if (out) {
		if (write_file_whole(out, top.sb.s, top.sb.len) < 0)
			die_sys(EXIT_SYSFAIL, "unable to write %s", out);
	} else if (fwrite(top.sb.s, 1, top.sb.len, stdout) != top.sb.len || fflush(stdout))
		die_sys(EXIT_SYSFAIL, "unable to write the submission to stdout");
	info("%lu checkouts, %lu builds, %lu tests", x.checkouts_n, x.builds_n, x.tests_n);
	sb_free(&top.sb);
	sb_free(&x.checkouts.sb);
	sb_free(&x.builds.sb);
	sb_free(&x.tests.sb);
	strmap_free(&x.boot_ix);
	strmap_free(&x.seen);
	strmap_free(&x.objs);
	free(x.boots);
	cmp_free(&x.c);
	return rc;
}
