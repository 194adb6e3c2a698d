/*
 * compare.c - grouping runs and judging differences (see compare.h).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compare.h"
#include "err.h"
#include "sbuf.h"
#include "xio.h"

static const char *const st_names[ST_N] = { "ok", "failed", "timeout", "crashed", "skipped" };

void cmp_init(struct cmp *c)
{
	memset(c, 0, sizeof *c);
	c->alpha = 0.05;
	c->min_effect = 0.005;
	c->noisy = 0.05;
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

static const char *str_or(const struct jv *o, const char *k, const char *def)
{
	const char *s = json_get_str(o, k);
	return s ? s : def;
}

static size_t kernel_index(struct cmp *c, const struct cmp_boot *b)
{
	for (size_t i = 0; i < c->nkernels; i++)
		if (!strcmp(c->kernels[i].label, b->label))
			return i;
	if (c->nkernels == CMP_MAX_KERNELS)
		die(100, "more than %d kernels to compare", CMP_MAX_KERNELS);
	struct cmp_kernel *k = &c->kernels[c->nkernels];
	snprintf(k->label, sizeof k->label, "%s", b->label);
	snprintf(k->release, sizeof k->release, "%s", b->release);
	snprintf(k->config, sizeof k->config, "%s", b->config);
	snprintf(k->userland, sizeof k->userland, "%s", b->userland);
	snprintf(k->accel, sizeof k->accel, "%s", b->accel);
	return c->nkernels++;
}

static const struct cmp_boot *find_boot(const struct cmp *c, const char *id)
{
	for (size_t i = 0; i < c->nboots; i++)
		if (!strcmp(c->boots[i].id, id))
			return &c->boots[i];
	return NULL;
}

static void compact(struct sbuf *sb, const struct jv *v)
{
	if (!v || v->t != J_OBJ || !v->n) {
		sb_puts(sb, "-");
		return;
	}
	for (size_t i = 0; i < v->n; i++) {
		sb_printf(sb, "%s%s=", i ? "," : "", v->keys[i]);
		if (v->items[i]->t == J_STR)
			sb_puts(sb, v->items[i]->str);
		else
			json_dump(sb, v->items[i]);
	}
}

static void add_mode(struct cmp *c, const char *mode)
{
	for (size_t i = 0; i < c->nmodes; i++)
		if (!strcmp(c->modes[i], mode))
			return;
	c->modes = xrealloc(c->modes, (c->nmodes + 1) * sizeof *c->modes);
	c->modes[c->nmodes++] = xstrdup(mode);
}

static struct cmp_group *group_of(struct cmp *c, const char *mode, const char *wl, const char *layout,
				  const char *tun, const char *metric, const char *unit, const char *better)
{
	for (size_t i = 0; i < c->ngroups; i++) {
		struct cmp_group *g = &c->groups[i];
		if (!strcmp(g->mode, mode) && !strcmp(g->workload, wl) && !strcmp(g->layout, layout) &&
		    !strcmp(g->tunables, tun) && !strcmp(g->metric, metric))
			return g;
	}
	c->groups = xrealloc(c->groups, (c->ngroups + 1) * sizeof *c->groups);
	struct cmp_group *g = &c->groups[c->ngroups++];
	memset(g, 0, sizeof *g);
	g->mode = xstrdup(mode);
	g->workload = xstrdup(wl);
	g->layout = xstrdup(layout);
	g->tunables = xstrdup(tun);
	g->metric = xstrdup(metric);
	g->unit = xstrdup(unit);
	g->better = xstrdup(better);
	return g;
}

void cmp_add_record(struct cmp *c, const struct jv *rec)
{
	const char *type = json_get_str(rec, "type"), *id = json_get_str(rec, "boot_id");
	const struct jv *d = json_get(rec, "data");
	if (!type || !id || !d || d->t != J_OBJ)
		return;
	if (!strcmp(type, "boot")) {
		const struct jv *k = json_get(d, "kernel");
		struct cmp_boot *b;
		if (find_boot(c, id))
			return;	/* the same boot from two sources (image and console) */
		c->boots = xrealloc(c->boots, (c->nboots + 1) * sizeof *c->boots);
		b = &c->boots[c->nboots++];
		memset(b, 0, sizeof *b);
		snprintf(b->id, sizeof b->id, "%s", id);
		snprintf(b->release, sizeof b->release, "%s", str_or(k, "release", "unknown"));
		snprintf(b->version, sizeof b->version, "%s", str_or(k, "version", ""));
		snprintf(b->config, sizeof b->config, "%s", str_or(k, "config_sha256", ""));
		snprintf(b->userland, sizeof b->userland, "%s", str_or(d, "userland", ""));
		snprintf(b->mode, sizeof b->mode, "%s", str_or(d, "mode", "wallclock"));
		snprintf(b->accel, sizeof b->accel, "%s", str_or(d, "accel", ""));
		kernel_label(b->release, b->version, b->label, sizeof b->label);
		if (json_get_str(d, "tag")) {
			size_t l = strlen(b->label);
			snprintf(b->label + l, sizeof b->label - l, " [%s]", json_get_str(d, "tag"));
		}
		c->kernels[kernel_index(c, b)].boots++;
		add_mode(c, b->mode);
		return;
	}
	if (strcmp(type, "run"))
		return;
	{
		const struct cmp_boot *b = find_boot(c, id);
		const struct jv *metrics = json_get(d, "metrics"), *layout = json_get(d, "layout");
		const char *status = str_or(d, "status", "failed"), *wl = str_or(d, "workload", "?");
		const char *lname = layout && layout->t == J_OBJ ? str_or(layout, "name", "?") : "?";
		struct sbuf tun = {0};
		size_t k;
		int st = ST_FAILED;
		struct cmp_boot unknown = { .label = "unknown boot", .mode = "wallclock" };
		if (!b)
			b = &unknown;
		k = kernel_index(c, b);
		for (int s = 0; s < ST_N; s++)
			if (!strcmp(status, st_names[s]))
				st = s;
		c->kernels[k].st[st]++;
		c->nruns++;
		if (st != ST_OK)
			return;
		compact(&tun, json_get(json_get(d, "tunables"), "requested"));
		for (size_t i = 0; metrics && metrics->t == J_ARR && i < metrics->n; i++) {
			const struct jv *m = metrics->items[i], *val = json_get(m, "value");
			struct cmp_group *g;
			struct cmp_cell *cell;
			if (!val || val->t != J_NUM)
				continue;
			g = group_of(c, b->mode, wl, lname, tun.s, str_or(m, "name", "?"), str_or(m, "unit", ""),
				     str_or(m, "better", ""));
			cell = &g->cell[k];
			if (cell->n == cell->cap) {
				cell->cap = cell->cap ? cell->cap * 2 : 8;
				cell->v = xrealloc(cell->v, cell->cap * sizeof *cell->v);
			}
			cell->v[cell->n++] = val->num;
		}
		{
			const struct jv *ctr = json_get(d, "counters");
			/* runs long enough to draw: at least 3 samples (two intervals) */
			if (ctr && ctr->t == J_OBJ && json_get(ctr, "trace") && json_get_num(ctr, "samples", 0) >= 3 &&
			    c->ntraces < CMP_MAX_TRACES) {
				struct sbuf sb = {0};
				json_dump(&sb, ctr);
				c->traces[c->ntraces].title = xasprintf("%s: %s on %s (%s)", b->label, wl, lname, tun.s);
				c->traces[c->ntraces++].json = sb_steal(&sb);
			}
		}
		sb_free(&tun);
	}
}

int cmp_finish(struct cmp *c)
{
	if (!c->nruns) {
		warn("no run records to compare (only boot/end records, or none at all)");
		return -1;
	}
	c->base = 0;
	if (c->baseline) {
		size_t i;
		for (i = 0; i < c->nkernels; i++)
			if (!strcmp(c->kernels[i].label, c->baseline) || !strcmp(c->kernels[i].release, c->baseline))
				break;
		if (i == c->nkernels) {
			struct sbuf sb = {0};
			for (size_t k = 0; k < c->nkernels; k++)
				sb_printf(&sb, "%s\"%s\"", k ? ", " : "", c->kernels[k].label);
			warn("no kernel \"%s\" in these records (have: %s)", c->baseline, sb.s ? sb.s : "none");
			sb_free(&sb);
			return -1;
		}
		c->base = i;
	}
	for (size_t g = 0; g < c->ngroups; g++) {
		struct cmp_group *G = &c->groups[g];
		struct cmp_cell *a = &G->cell[c->base];
		int lower = !strcmp(G->better, "lower");
		for (size_t k = 0; k < c->nkernels; k++) {
			struct cmp_cell *x = &G->cell[k];
			stats_describe(x->v, x->n, &x->s);
			x->noisy = x->n >= 2 && isfinite(x->s.cov) && x->s.cov > c->noisy;
			x->p = NAN;
			x->change = NAN;
		}
		G->mdc = NAN;
		G->n5 = 0;
		for (size_t k = 0; k < c->nkernels; k++) {
			struct cmp_cell *x = &G->cell[k];
			if (k == c->base || !x->n || !a->n)
				continue;
			if (a->s.mean != 0)
				x->change = (x->s.mean - a->s.mean) / fabs(a->s.mean);
			x->worse = isfinite(x->change) && (lower ? x->change > 0 : x->change < 0);
			if (x->n >= 2 && a->n >= 2) {
				double cov;
				x->p = welch_t_test(&a->s, &x->s, NULL, NULL);
				x->significant = isfinite(x->p) && x->p < c->alpha && isfinite(x->change) &&
						 fabs(x->change) >= c->min_effect;
				cov = stats_pooled_cov(&a->s, &x->s);
				if (!isfinite(G->mdc) || min_detectable_change(cov, x->n < a->n ? x->n : a->n, c->alpha, 0.8) > G->mdc) {
					G->mdc = min_detectable_change(cov, x->n < a->n ? x->n : a->n, c->alpha, 0.8);
					G->n5 = runs_needed(cov, 0.05, c->alpha, 0.8);
				}
			}
		}
	}
	return 0;
}

static void fmt_val(char *out, size_t len, double v)
{
	double a = fabs(v);
	if (!isfinite(v))
		snprintf(out, len, "-");
	else if (a >= 1e6 || (a > 0 && a < 1e-3))
		snprintf(out, len, "%.3g", v);
	else if (a >= 100)
		snprintf(out, len, "%.1f", v);
	else
		snprintf(out, len, "%.4g", v);
}

static void cell_text(const struct cmp_cell *x, char *out, size_t len)
{
	char m[32];
	if (!x->n) {
		snprintf(out, len, "-");
		return;
	}
	fmt_val(m, sizeof m, x->s.mean);
	if (x->n >= 2 && isfinite(x->s.cov))
		snprintf(out, len, "%s ±%.1f%%%s n=%zu", m, x->s.cov * 100, x->noisy ? "~" : "", x->n);
	else
		snprintf(out, len, "%s n=%zu", m, x->n);
}

static void change_text(const struct cmp_cell *x, char *out, size_t len)
{
	if (!isfinite(x->change)) {
		snprintf(out, len, "-");
		return;
	}
	if (isfinite(x->p))
		snprintf(out, len, "%+.1f%% %s p=%.2g%s", x->change * 100, x->worse ? "worse" : "better", x->p,
			 x->significant ? " *" : "");
	else
		snprintf(out, len, "%+.1f%% %s (n<2)", x->change * 100, x->worse ? "worse" : "better");
}

void cmp_print_table(const struct cmp *c, FILE *o)
{
	fprintf(o, "bootbench compare: %zu kernels, %zu boots, %u runs; baseline %s\n", c->nkernels, c->nboots,
		c->nruns, c->kernels[c->base].label);
	fprintf(o, "'*' significant: Welch p < %g and |change| >= %g%%; '~' noisy: CoV > %g%%; "
		   "MDC: smallest change these runs can detect (80%% power); n5%%: runs per kernel to detect 5%%\n",
		c->alpha, c->min_effect * 100, c->noisy * 100);
	for (size_t m = 0; m < c->nmodes; m++) {
		const char *mode = c->modes[m];
		int any = 0;
		for (size_t g = 0; g < c->ngroups; g++)
			any |= !strcmp(c->groups[g].mode, mode);
		if (!any)
			continue;
		fprintf(o, "\n== mode %s%s ==\n", mode,
			!strcmp(mode, "deterministic") ? " (instruction-derived: QEMU icount, 1 ns per instruction)" :
							 " (wall-clock time)");
		fprintf(o, "%-44s %-18s %-6s", "workload / layout / tunables", "metric", "unit");
		for (size_t k = 0; k < c->nkernels; k++)
			fprintf(o, " %-22s", c->kernels[k].label);
		for (size_t k = 0; k < c->nkernels; k++)
			if (k != c->base)
				fprintf(o, " %-30s", "change vs baseline");
		fprintf(o, " %7s %4s\n", "MDC", "n5%");
		for (size_t g = 0; g < c->ngroups; g++) {
			const struct cmp_group *G = &c->groups[g];
			char what[256], cell[64];
			if (strcmp(G->mode, mode))
				continue;
			snprintf(what, sizeof what, "%s / %s / %s", G->workload, G->layout, G->tunables);
			fprintf(o, "%-44s %-18s %-6s", what, G->metric, G->unit);
			for (size_t k = 0; k < c->nkernels; k++) {
				cell_text(&G->cell[k], cell, sizeof cell);
				fprintf(o, " %-22s", cell);
			}
			for (size_t k = 0; k < c->nkernels; k++) {
				if (k == c->base)
					continue;
				change_text(&G->cell[k], cell, sizeof cell);
				fprintf(o, " %-30s", cell);
			}
			if (isfinite(G->mdc))
				fprintf(o, " %6.1f%% %4zu\n", G->mdc * 100, G->n5);
			else
				fprintf(o, " %7s %4s\n", "-", "-");
		}
	}
	fprintf(o, "\nruns per kernel:\n");
	for (size_t k = 0; k < c->nkernels; k++) {
		const struct cmp_kernel *K = &c->kernels[k];
		fprintf(o, "  %-22s %u boots: %u ok, %u failed, %u timeout, %u crashed, %u skipped\n", K->label, K->boots,
			K->st[ST_OK], K->st[ST_FAILED], K->st[ST_TIMEOUT], K->st[ST_CRASHED], K->st[ST_SKIPPED]);
	}
	fprintf(o, "kernels:\n");
	for (size_t k = 0; k < c->nkernels; k++) {
		const struct cmp_kernel *K = &c->kernels[k];
		fprintf(o, "  %-22s release %s, config %.12s, userland %.12s%s%s\n", K->label, K->release,
			K->config[0] ? K->config : "not exposed", K->userland, K->accel[0] ? ", accel " : "", K->accel);
	}
	{
		int mixed = 0;
		for (size_t k = 1; k < c->nkernels; k++)
			mixed |= strcmp(c->kernels[k].userland, c->kernels[0].userland) != 0;
		if (mixed)
			fprintf(o, "WARNING: the kernels ran different userlands: the comparison is not only of kernels\n");
	}
}

static void csv_s(FILE *o, const char *s)
{
	if (strpbrk(s, ",\"\n")) {
		fputc('"', o);
		for (; *s; s++) {
			if (*s == '"')
				fputc('"', o);
			fputc(*s, o);
		}
		fputc('"', o);
	} else {
		fputs(s, o);
	}
}

void cmp_print_csv(const struct cmp *c, FILE *o)
{
	fprintf(o, "mode,workload,layout,tunables,metric,unit,better,kernel,baseline,n,mean,sd,cov,change_pct,verdict,p,significant,mdc_pct,runs_for_5pct\n");
	for (size_t g = 0; g < c->ngroups; g++) {
		const struct cmp_group *G = &c->groups[g];
		for (size_t k = 0; k < c->nkernels; k++) {
			const struct cmp_cell *x = &G->cell[k];
			const char *fields[] = { G->mode, G->workload, G->layout, G->tunables, G->metric, G->unit, G->better,
						 c->kernels[k].label };
			for (size_t f = 0; f < sizeof fields / sizeof *fields; f++) {
				csv_s(o, fields[f]);
				fputc(',', o);
			}
			fprintf(o, "%d,%zu,", k == c->base, x->n);
			if (x->n)
				fprintf(o, "%.10g,%.10g,%.10g,", x->s.mean, x->s.sd, x->s.cov);
			else
				fprintf(o, ",,,");
			if (isfinite(x->change))
				fprintf(o, "%.10g,%s,", x->change * 100, x->worse ? "worse" : "better");
			else
				fprintf(o, ",,");
			if (isfinite(x->p))
				fprintf(o, "%.10g,%d,", x->p, x->significant);
			else
				fprintf(o, ",0,");
			if (isfinite(G->mdc))
				fprintf(o, "%.6g,%zu\n", G->mdc * 100, G->n5);
			else
				fprintf(o, ",\n");
		}
	}
}

void cmp_free(struct cmp *c)
{
	for (size_t g = 0; g < c->ngroups; g++) {
		struct cmp_group *G = &c->groups[g];
		for (size_t k = 0; k < CMP_MAX_KERNELS; k++)
			free(G->cell[k].v);
		free(G->mode);
		free(G->workload);
		free(G->layout);
		free(G->tunables);
		free(G->metric);
		free(G->unit);
		free(G->better);
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
}
