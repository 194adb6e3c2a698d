/*
 * collect.c - bootbench collect: every valid record of a results disk image,
 * block device, bare partition or console log, in order.
 */
const char collect_usage[] =
"usage: bootbench collect SOURCE... [--format jsonl|csv] [--metric SPEC [--param K=V]...]\n"
"\n"
"SOURCE is a disk image or block device with a GPT partition named\n"
"bootbench-results, a bare results partition, a console log holding\n"
"`BOOTBENCH {...}` lines, or a LAVA job's log of that console (lava-run's\n"
"output, lavacli jobs logs --raw). Prints every valid record in order, one\n"
"per line:\n"
"  jsonl  {\"seq\":N,\"boot_id\":\"...\",\"type\":\"boot|run|end\",\"data\":{...}}\n"
"  csv    seq,boot_id,kernel,type,plan,workload,layout,tunables,params,\n"
"         iteration,status,metric,value,unit,better   (one row per metric)\n"
"         tunables: what the plan set and whether it held (\"-\": none);\n"
"         params: the workload's every parameter, defaults included, sorted\n"
"  --metric [WORKLOAD.]METRIC[@LAYOUT]  csv rows of ok runs of that figure\n"
"         only (e.g. forkexec.forkexec_us@ramdisk-ext2); implies csv. When\n"
"         the rows come from runs of different parameters or tunables, the\n"
"         kinds are listed on stderr and the exit is 100: pick one with\n"
"  --param K=V  (repeatable) only runs whose parameter K is V, or whose\n"
"         tunable K held at V (a setting the plan did not make is not a\n"
"         tunable here). With --metric, a run that arrives twice (same boot\n"
"         id and sequence number, e.g. an image and its console log) prints\n"
"         once; plain jsonl and csv print what each source holds\n"
"A partition and the console log of the same boots print identical jsonl.\n"
"Corrupt or torn records are reported on stderr with their byte offset (or\n"
"line number) and skipped; so are bytes after the last record that are not\n"
"free space (zeros), a partition cut short (a truncated image is still read)\n"
"and lines longer than any record. A torn last record (its write never\n"
"completed: a power cut) is reported but lost nothing acknowledged.\n"
"\n"
"exit: 0 when every source was read whole, 2 when records were read but some\n"
"were lost (damaged records, a damaged tail or lines; all printed records are\n"
"good), 1 when a source has no results partition or cannot be read, 100 on\n"
"bad usage.\n";

#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "commands.h"
#include "defaults.h"
#include "err.h"
#include "json.h"
#include "record.h"
#include "results.h"
#include "runid.h"
#include "recsource.h"
#include "strmap.h"
#include "xio.h"

struct out {
	int csv;
	/* --metric: keep only ok rows of this figure (NULL parts match all) */
	char *m_workload, *m_metric, *m_layout;
	const char **m_param;	/* --param K=V */
	size_t m_nparam;
	struct strmap kinds;	/* distinct run identities among the selected rows */
	struct strmap seen;	/* --metric: (boot id, seq) of the runs printed */
	struct strmap boot_ix;	/* boot id -> index into boot, kernel */
	unsigned dups;
	unsigned long long lost;	/* records lost: damaged, in a damaged tail, refused lines */
	const char *src;
	/* kernel release per boot id, for the csv kernel column */
	char (*boot)[33];
	char **kernel;
	size_t nboot;
};


static const char *kernel_of(struct out *o, const char *boot)
{
	size_t i = strmap_get(&o->boot_ix, boot);
	return i == (size_t)-1 ? NULL : o->kernel[i];
}

static void print_csv(struct out *o, const struct jv *rec)
{
	const struct jv *data = json_get(rec, "data"), *metrics, *layout;
	const char *type = json_get_str(rec, "type"), *boot = json_get_str(rec, "boot_id");
	struct sbuf seq = {0}, iter = {0};
	struct run_id rid;
	const char *kernel, *layout_name = NULL;
	size_t nrows = 1;
	int selected = 0;

	if (!type || !boot)
		return;
	if (!strcmp(type, "boot")) {
		const char *rel = json_get_str(json_get(data, "kernel"), "release");
		if (o->nboot % 1024 == 0) {
			o->boot = xrealloc(o->boot, (o->nboot + 1024) * sizeof *o->boot);
			o->kernel = xrealloc(o->kernel, (o->nboot + 1024) * sizeof *o->kernel);
		}
		snprintf(o->boot[o->nboot], 33, "%s", boot);
		strmap_put(&o->boot_ix, boot, o->nboot);
		o->kernel[o->nboot++] = xstrdup(rel ? rel : "");
	}
	kernel = kernel_of(o, boot);
	if (json_get(rec, "seq") && json_get(rec, "seq")->t == J_NUM)
		json_dump(&seq, json_get(rec, "seq"));
	if (o->m_metric && !strcmp(type, "run") && json_get(rec, "seq") && json_get(rec, "seq")->t == J_NUM &&
	    strlen(boot) <= 32) {
		/* the same run from two sources is one sample */
		char key[64];
		snprintf(key, sizeof key, "%.32s:%.0f", boot, json_get(rec, "seq")->num);
		if (strmap_get(&o->seen, key) != (size_t)-1) {
			o->dups++;
			sb_free(&seq);
			return;
		}
		strmap_put(&o->seen, key, 0);
	}
	run_identity(data, &rid);
	if (json_get(data, "iteration"))
		json_dump(&iter, json_get(data, "iteration"));
	layout = json_get(data, "layout");
	layout_name = layout && layout->t == J_OBJ ? json_get_str(layout, "name") : json_get_str(data, "layout");
	metrics = json_get(data, "metrics");
	if (metrics && metrics->t == J_ARR && metrics->n)
		nrows = metrics->n;
	for (size_t i = 0; i < nrows; i++) {
		const struct jv *m = metrics && metrics->t == J_ARR && i < metrics->n ? metrics->items[i] : NULL;
		struct sbuf val = {0};
		if (o->m_metric) {
			const char *wl = json_get_str(data, "workload"), *st = json_get_str(data, "status");
			const char *mn = m ? json_get_str(m, "name") : NULL;
			int params_ok = 1;
			for (size_t p = 0; p < o->m_nparam; p++)
				params_ok &= params_match(rid.params.s, o->m_param[p]) || params_match(rid.tunables.s, o->m_param[p]);
			if (!mn || strcmp(mn, o->m_metric) || !st || strcmp(st, "ok") || !params_ok ||
			    (o->m_workload && (!wl || strcmp(wl, o->m_workload))) ||
			    (o->m_layout && (!layout_name || strcmp(layout_name, o->m_layout))))
				continue;
			selected = 1;
		}
		if (m && json_get(m, "value"))
			json_dump(&val, json_get(m, "value"));
		csv_field(stdout, seq.s); putchar(',');
		csv_field(stdout, boot); putchar(',');
		csv_field(stdout, kernel); putchar(',');
		csv_field(stdout, type); putchar(',');
		csv_field(stdout, json_get_str(data, "plan")); putchar(',');
		csv_field(stdout, json_get_str(data, "workload")); putchar(',');
		csv_field(stdout, layout_name); putchar(',');
		csv_field(stdout, !strcmp(type, "run") ? rid.tunables.s : NULL); putchar(',');
		csv_field(stdout, !strcmp(type, "run") ? rid.params.s : NULL); putchar(',');
		csv_field(stdout, iter.s); putchar(',');
		csv_field(stdout, json_get_str(data, "status")); putchar(',');
		csv_field(stdout, m ? json_get_str(m, "name") : NULL); putchar(',');
		csv_field(stdout, val.s); putchar(',');
		csv_field(stdout, m ? json_get_str(m, "unit") : NULL); putchar(',');
		csv_field(stdout, m ? json_get_str(m, "better") : NULL);
		putchar('\n');
		sb_free(&val);
	}
	if (selected) {
		char *kind = xasprintf("params %s, tunables %s, layout %s", rid.params.s, rid.tunables.s, rid.layout.s);
		strmap_put(&o->kinds, kind, o->kinds.n);
		free(kind);
	}
	run_id_free(&rid);
	sb_free(&seq);
	sb_free(&iter);
}

/* One record's canonical line: parse it (it must be JSON) and dump it, so
 * the partition and the console print byte-identical text. */
static int emit(struct out *o, const char *line, size_t len, char *err, size_t errlen)
{
	struct jv *v = json_parse(line, len, err, errlen);
	struct sbuf sb = {0};
	if (!v)
		return -1;
	if (v->t != J_OBJ || !json_get_str(v, "type") || !json_get(v, "data") ||
	    json_get(v, "data")->t != J_OBJ) {
		snprintf(err, errlen, "not a bootbench record (needs type and data)");
		json_free(v);
		return -1;
	}
	if (o->csv) {
		print_csv(o, v);
	} else {
		json_dump(&sb, v);
		puts(sb.s);
		sb_free(&sb);
	}
	json_free(v);
	return 0;
}

static void on_line(void *ctx, const char *line, size_t len, const char *where)
{
	struct out *o = ctx;
	char err[160];
	if (emit(o, line, len, err, sizeof err) < 0) {
		warning("%s: %s: damaged record (%s), skipped", o->src, where, err);
		o->lost++;
	}
}

/* [WORKLOAD.]METRIC[@LAYOUT] */
static void parse_metric_spec(struct out *o, const char *spec)
{
	char *s = xstrdup(spec), *at = strchr(s, '@'), *dot;
	if (at) {
		*at++ = 0;
		if (!*at)
			die(EXIT_BADINPUT, "--metric %s: empty layout after @", spec);
		o->m_layout = at;
	}
	dot = strchr(s, '.');
	if (dot) {
		*dot++ = 0;
		if (!*s)
			die(EXIT_BADINPUT, "--metric %s: empty workload before .", spec);
		o->m_workload = s;
		o->m_metric = dot;
	} else {
		o->m_metric = s;
	}
	if (!*o->m_metric)
		die(EXIT_BADINPUT, "--metric %s: no metric name ([WORKLOAD.]METRIC[@LAYOUT])", spec);
	o->csv = 1;
}

int collect_main(int argc, char **argv)
{
	struct out o = {0};
	int rc = 0, nsrc = 0;

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--format") || !strncmp(argv[i], "--format=", 9)) {
			const char *f = argv[i][8] == '=' ? argv[i] + 9 : (i + 1 < argc ? argv[++i] : "");
			if (!strcmp(f, "csv"))
				o.csv = 1;
			else if (strcmp(f, "jsonl"))
				die(EXIT_BADINPUT, "unknown format \"%s\" (jsonl or csv)", f);
		} else if (!strcmp(argv[i], "--metric") || !strncmp(argv[i], "--metric=", 9)) {
			const char *f = argv[i][8] == '=' ? argv[i] + 9 : (i + 1 < argc ? argv[++i] : "");
			parse_metric_spec(&o, f);
		} else if (!strcmp(argv[i], "--param") && i + 1 < argc) {
			const char *kv = argv[++i], *eq = strchr(kv, '=');
			if (!eq || eq == kv || strchr(kv, ' '))
				die(EXIT_BADINPUT, "--param %s: expected KEY=VALUE", kv);
			o.m_param = xrealloc(o.m_param, (o.m_nparam + 1) * sizeof *o.m_param);
			o.m_param[o.m_nparam++] = kv;
		} else if (argv[i][0] == '-' && argv[i][1]) {
			die(EXIT_BADINPUT, "unknown option %s (see bootbench collect --help)", argv[i]);
		}
	}
	if (o.m_nparam && !o.m_metric)
		die(EXIT_BADINPUT, "--param selects among the runs of --metric: give --metric too");
	if (o.csv)
		puts("seq,boot_id,kernel,type,plan,workload,layout,tunables,params,iteration,status,metric,value,unit,better");
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--format") || !strcmp(argv[i], "--metric") || !strcmp(argv[i], "--param")) {
			i++;
			continue;
		}
		if (!strncmp(argv[i], "--format=", 9) || !strncmp(argv[i], "--metric=", 9))
			continue;
		nsrc++;
		o.src = argv[i];
		if (source_read(argv[i], on_line, &o, 0, &o.lost))
			rc = 1;
		fflush(stdout);
	}
	if (!nsrc) {
		fputs(collect_usage, stderr);
		die(EXIT_BADINPUT, "no SOURCE given");
	}
	if (o.kinds.n > 1) {
		/* a median over different experiments means nothing */
		warning("--metric %s matches runs of %zu different kinds; pick one with --param K=V:", o.m_metric, o.kinds.n);
		/* in the order they were met (the map's own order is its hash's) */
		const char **k = xcalloc(o.kinds.n + 1, sizeof *k);
		for (size_t i = 0; i < o.kinds.cap; i++)
			if (o.kinds.key[i])
				k[o.kinds.val[i]] = o.kinds.key[i];
		for (size_t i = 0; i < o.kinds.n; i++)
			fprintf(stderr, "  %s\n", k[i]);
		free(k);
		rc = EXIT_BADINPUT;
	}
	if (o.dups)
		warning("%u run records arrived twice (same boot id and sequence number): printed once", o.dups);
	if (o.lost && !rc) {
		warning("records were lost: %llu damaged or unreadable (each reported above)", o.lost);
		rc = EXIT_LOST;
	}
	strmap_free(&o.kinds);
	strmap_free(&o.seen);
	strmap_free(&o.boot_ix);
	for (size_t i = 0; i < o.nboot; i++)
		free(o.kernel[i]);
	free(o.kernel);
	free(o.boot);
	free(o.m_param);
	return rc;
}
