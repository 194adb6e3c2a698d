/*
 * ctext.c - compare's text and CSV output: the answer first (per kernel
 * against the baseline: how many figures got worse, better or stayed, the
 * significant changes sorted by size with their intervals, the counters
 * that moved), then the table of every figure, then the counters' table.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compare.h"
#include "strmap.h"
#include "xio.h"

#define SUMMARY_COUNTERS 12	/* counter changes listed per comparison; the table has the rest */

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


static const char *split_text(const struct cmp_cell *x)
{
	static char t[96];
	const char *by = cmp_narrow_by(x);
	if (!isfinite(x->cov_run))
		return "";
	if (!by)
		snprintf(t, sizeof t, "; run sd %.1f%%, boot sd unknown", x->cov_run * 100);
	else
		snprintf(t, sizeof t, "; boot sd %.1f%%, run sd %.1f%%: more %s", x->cov_boot * 100, x->cov_run * 100, by);
	return t;
}

static void cell_text(const struct cmp_cell *x, char *out, size_t len)
{
	char m[32], inv[32] = "", split[128] = "";
	if (x->invalid)
		snprintf(inv, sizeof inv, " INVALID x%zu", x->invalid);
	if (!x->n) {
		snprintf(out, len, "%s", x->invalid ? inv + 1 : "-");
		return;
	}
	fmt_val(m, sizeof m, x->s.mean);
	/* n counts boots; runs and the variance split only where a boot ran
	 * the figure more than once */
	if (x->runs > x->n)
		snprintf(split, sizeof split, " (%zu runs%s)", x->runs, split_text(x));
	if (x->n >= 2 && isfinite(x->s.cov))
		snprintf(out, len, "%s ±%.1f%%%s n=%zu%s%s", m, x->s.cov * 100, x->noisy ? "~" : "", x->n, split, inv);
	else
		snprintf(out, len, "%s n=%zu%s%s", m, x->n, split, inv);
}


static void change_text(const struct cmp_group *G, const struct cmp_cell *x, char *out, size_t len)
{
	if (!isfinite(x->change)) {
		snprintf(out, len, "-");
		return;
	}
	if (isfinite(x->p))
		snprintf(out, len, "%+.1f%% %s p=%.2g q=%.2g%s", x->change * 100, cmp_word(G, x), x->p, x->q,
			 x->significant ? " *" : "");
	else
		snprintf(out, len, "%+.1f%% (n<2)", x->change * 100);
}

static void interval_text(const struct cmp_cell *x, char *out, size_t len)
{
	if (isfinite(x->lo) && isfinite(x->hi))
		snprintf(out, len, "[%+.1f%%, %+.1f%%]", x->lo * 100, x->hi * 100);
	else
		snprintf(out, len, "[interval n/a]");
}

static const char *mode_note(const char *mode)
{
	return !strcmp(mode, "deterministic") ? "instruction-derived: QEMU icount, 1 ns per instruction" : "wall-clock time";
}

static void summary_line(FILE *o, const struct cmp_group *G, size_t k)
{
	const struct cmp_cell *x = &G->cell[k];
	char title[512], iv[48];
	cmp_group_title(G, title, sizeof title);
	interval_text(x, iv, sizeof iv);
	int dir = cmp_verdict(G, x) != CMP_CHANGED;
	fprintf(o, "    %+7.1f%% %-20s q=%-8.2g %s (%s%s%s)\n", x->change * 100, iv, x->q, title, G->unit,
		dir ? ", " : "", dir ? (!strcmp(G->better, "lower") ? "lower is better" : "higher is better") : "");
}

/* Did the compared boots run on more than one machine (as their records
 * name it)? Columns list their first CMP_MACHINES machines. */
static int many_machines(const struct cmp *c)
{
	for (size_t k = 0; k < c->nkernels; k++) {
		const struct cmp_kernel *K = &c->kernels[k];
		if (K->machines > 1 || K->machine_other || (K->machines && strcmp(K->machine[0], c->kernels[0].machine[0])))
			return 1;
	}
	return 0;
}

/* Boots of kernel k in this mode (a kernel may have boots in both). */
static unsigned mode_boots(const struct cmp *c, size_t k, const char *mode)
{
	unsigned n = 0;
	for (size_t i = 0; i < c->nboots; i++)
		n += c->boots[i].kernel == (int)k && !strcmp(c->boots[i].mode, mode);
	return n;
}

/* Wall-clock figures are often bimodal between boots (measured: dbload's
 * import on TCG at 0.15 s or 0.25 s). With a boots of one kernel and b of
 * the other, a figure whose boots fall into two clusters of sizes a and b
 * lines up with the kernels in 1 of C(a+b, a) boot orders (2 when a == b);
 * Welch then calls the change certain, and no per-figure look at the
 * values can tell that from a real shift. So wall-clock figures are also
 * judged by the permutation test of their boot means, whose smallest p is
 * that chance: say what it allows while it is above 1 in FEW_BOOTS_ODDS. */
#define FEW_BOOTS_ODDS 400
static void few_boots_note(FILE *o, const char *mode, unsigned a, unsigned b)
{
	double pmin;
	if (strcmp(mode, "wallclock") || a < 2 || b < 2)
		return;
	pmin = perm_min_p(a, b);
	if (!(pmin > 1.0 / FEW_BOOTS_ODDS))
		return;
	fprintf(o, "  note: %u and %u wall-clock boots: a figure whose boots fall into two clusters lines up with "
		"the kernels by chance once in %.0f figures, so the permutation test of boot means decides too, and "
		"its smallest p is %.2g%s; 6 boots of each make that 1 in 462\n", a, b, 1 / pmin, pmin,
		pmin >= 0.05 ? ": no figure can be significant" : "");
}

/* Figures some runs marked invalid (a load step past 1% failed calls):
 * never averaged in, so said here with how many runs of each side. */
static void invalid_lines(const struct cmp *c, FILE *o, const char *mode, size_t k)
{
	size_t shown = 0, more = 0;
	for (size_t g = 0; g < c->ngroups; g++) {
		const struct cmp_group *G = &c->groups[g];
		const struct cmp_cell *a = &G->cell[c->base], *b = &G->cell[k];
		char title[512];
		if (G->kind != CMP_FIGURE || strcmp(G->mode, mode) || (!a->invalid && !b->invalid))
			continue;
		if (shown == 8) {
			more++;
			continue;
		}
		if (!shown++)
			fprintf(o, "  INVALID (the workload's own rule, e.g. over 1%% of calls failed: left out of the means):\n");
		cmp_group_title(G, title, sizeof title);
		fprintf(o, "    %s: %s %zu of %zu runs, %s %zu of %zu runs\n", title, c->kernels[c->base].label, a->invalid,
			a->invalid + a->runs, c->kernels[k].label, b->invalid, b->invalid + b->runs);
	}
	if (more)
		fprintf(o, "    ... and %zu more (the table marks them all)\n", more);
}

static void print_summary(const struct cmp *c, FILE *o, const char *mode)
{
	size_t *ix = xcalloc(c->ngroups + 1, sizeof *ix);
	fprintf(o, "\n== summary, mode %s (%s) ==\n", mode, mode_note(mode));
	for (size_t k = 0; k < c->nkernels; k++) {
		struct cmp_tally t;
		size_t n;
		if (k == c->base)
			continue;
		cmp_tally(c, mode, k, &t);
		if (!t.figures)
			continue;
		fprintf(o, "%s vs %s: %zu figures: %zu worse, %zu better, %zu unchanged, %zu undecided",
			c->kernels[k].label, c->kernels[c->base].label, t.figures, t.worse, t.better, t.same, t.undecided);
		if (t.changed)
			fprintf(o, ", %zu changed with no direction (their records say no better/worse)", t.changed);
		if (t.untested)
			fprintf(o, ", %zu not testable (fewer than 2 boots a side: boot-to-boot spread unknown; or a baseline mean of 0)", t.untested);
		if (t.missing)
			fprintf(o, ", %zu missing (no ok run of this kernel)", t.missing);
		fputc('\n', o);
		few_boots_note(o, mode, mode_boots(c, k, mode), mode_boots(c, c->base, mode));
		n = cmp_significant(c, mode, CMP_FIGURE, k, ix);
		for (size_t i = 0; i < n; i++) {
			static const char *const head[] = { "worse", "better", "changed, no direction" };
			int v = cmp_verdict(&c->groups[ix[i]], &c->groups[ix[i]].cell[k]);
			if (i == 0 || v != cmp_verdict(&c->groups[ix[i - 1]], &c->groups[ix[i - 1]].cell[k]))
				fprintf(o, "  %s, largest first:\n", head[v]);
			summary_line(o, &c->groups[ix[i]], k);
		}
		n = cmp_significant(c, mode, CMP_COUNTER, k, ix);
		if (n) {
			/* largest first, whatever the direction */
			fprintf(o, "  counters that moved (they explain the figures; they are not figures):\n");
			for (size_t i = 0; i < n; i++) {
				if (i == SUMMARY_COUNTERS) {
					fprintf(o, "    ... and %zu more (the counters table has them all)\n", n - SUMMARY_COUNTERS);
					break;
				}
				summary_line(o, &c->groups[ix[i]], k);
			}
		}
		for (size_t g = 0; g < c->ngroups; g++) {
			const struct cmp_group *G = &c->groups[g];
			if (G->kind == CMP_FIGURE && !strcmp(G->mode, mode) && G->inforce_diff && G->cell[k].significant) {
				char title[512];
				cmp_group_title(G, title, sizeof title);
				fprintf(o, "  note: tunables in force differ for %s: %s\n", title, G->inforce_diff);
			}
		}
		invalid_lines(c, o, mode, k);
	}
	free(ix);
}

static void row_what(const struct cmp_group *G, char *what, size_t len)
{
	snprintf(what, len, "%s%s%s%s / %s", G->workload, G->label[0] ? " [" : "", G->label, G->label[0] ? "]" : "",
		 G->layout);
}

/* After a mode's figures: the ones a reference tool prints, in its words
 * (ab's "Requests per second"), each once, so the seeds' readers find
 * their numbers. */
static void tool_labels(const struct cmp *c, FILE *o, const char *mode)
{
	struct strmap seen = {0};
	size_t n = 0;
	for (size_t g = 0; g < c->ngroups; g++) {
		const struct cmp_group *G = &c->groups[g];
		const char *l;
		char key[256];
		if (G->kind != CMP_FIGURE || strcmp(G->mode, mode) || !(l = cmp_tool_label(c, G)))
			continue;
		snprintf(key, sizeof key, "%.120s %.120s", G->workload, G->metric);
		if (strmap_get(&seen, key) != (size_t)-1)
			continue;
		strmap_put(&seen, key, g);
		if (!n++)
			fprintf(o, "as their reference tools print them:\n");
		fprintf(o, "  %s %s: %s\n", G->workload, G->metric, l);
	}
	strmap_free(&seen);
}

static void print_table(const struct cmp *c, FILE *o, const char *mode, int kind, int only_sig)
{
	size_t rows = 0;
	int ww = 32, mw = 16;	/* column widths: the longest entry, nothing cut */
	if (!cmp_mode_has(c, mode, kind))
		return;
	for (size_t g = 0; g < c->ngroups; g++) {
		const struct cmp_group *G = &c->groups[g];
		char what[512];
		if (G->kind != kind || strcmp(G->mode, mode))
			continue;
		row_what(G, what, sizeof what);
		if ((int)strlen(what) > ww)
			ww = (int)strlen(what);
		if ((int)strlen(G->metric) > mw)
			mw = (int)strlen(G->metric);
	}
	fprintf(o, "\n== %s, mode %s (%s) ==\n", kind == CMP_FIGURE ? "figures" : "counters (per-run means)", mode,
		mode_note(mode));
	fprintf(o, "%-*s %-*s %-9s", ww, "workload [what differs] / layout", mw, kind == CMP_FIGURE ? "metric" : "counter",
		"unit");
	for (size_t k = 0; k < c->nkernels; k++)
		fprintf(o, " %-24s", c->kernels[k].label);
	for (size_t k = 0; k < c->nkernels; k++)
		if (k != c->base)
			fprintf(o, " %-40s", "change vs baseline");
	fprintf(o, " %7s %4s\n", "MDC", "n5%");
	for (size_t g = 0; g < c->ngroups; g++) {
		const struct cmp_group *G = &c->groups[g];
		char what[512], cell[256];	/* a cell: mean, CoV, n, runs and their split, INVALID */
		int sig = 0;
		if (G->kind != kind || strcmp(G->mode, mode))
			continue;
		for (size_t k = 0; k < c->nkernels; k++)
			sig |= G->cell[k].significant;
		if (only_sig && !sig)
			continue;
		rows++;
		row_what(G, what, sizeof what);
		fprintf(o, "%-*s %-*s %-9s", ww, what, mw, G->metric, G->unit);
		for (size_t k = 0; k < c->nkernels; k++) {
			cell_text(&G->cell[k], cell, sizeof cell);
			fprintf(o, " %-24s", cell);
		}
		for (size_t k = 0; k < c->nkernels; k++) {
			if (k == c->base)
				continue;
			change_text(G, &G->cell[k], cell, sizeof cell);
			fprintf(o, " %-40s", cell);
		}
		if (isfinite(G->mdc))
			fprintf(o, " %6.1f%% %4zu\n", G->mdc * 100, G->n5);
		else
			fprintf(o, " %7s %4s\n", "-", "-");
		if (G->inforce_diff && kind == CMP_FIGURE)
			fprintf(o, "    ^ tunables in force differ (not set by the plan): %s\n", G->inforce_diff);
	}
	if (only_sig && !rows)
		fprintf(o, "(no significant change)\n");
	if (kind == CMP_FIGURE)
		tool_labels(c, o, mode);
}

/* Confirmation rounds: each kernel's figures by verdict, with the round
 * that reached it. */
static void print_confirm(const struct cmp *c, FILE *o, const char *mode)
{
	fprintf(o, "\nconfirmation rounds, mode %s (at most %u; each look: changed if q < %g/%u, unchanged if the "
		   "%g%% interval lies within +-%g%%):\n",
		mode, c->rounds, c->fdr, c->rounds, (1 - 2 * c->alpha / c->rounds) * 100, c->margin * 100);
	for (size_t k = 0; k < c->nkernels; k++) {
		static const int order[] = { CONFIRM_CHANGED, CONFIRM_UNCHANGED, CONFIRM_UNDECIDED };
		size_t n[3] = {0};
		unsigned looks = 0;
		if (k == c->base)
			continue;
		for (size_t g = 0; g < c->ngroups; g++) {
			const struct cmp_group *G = &c->groups[g];
			if (G->kind != CMP_FIGURE || strcmp(G->mode, mode) || k >= G->ncell)
				continue;
			for (int v = 0; v < 3; v++)
				n[v] += G->cell[k].confirm == order[v];
			if (G->cell[k].looks > looks)
				looks = G->cell[k].looks;
		}
		fprintf(o, "  %s vs %s, %u complete rounds: %zu changed, %zu unchanged, %zu undecided\n", c->kernels[k].label,
			c->kernels[c->base].label, looks, n[0], n[1], n[2]);
		for (int v = 0; v < 3; v++)
			for (size_t g = 0; g < c->ngroups; g++) {
				const struct cmp_group *G = &c->groups[g];
				const struct cmp_cell *x;
				char title[256], when[32], more[96];
				if (G->kind != CMP_FIGURE || strcmp(G->mode, mode) || k >= G->ncell)
					continue;
				x = &G->cell[k];
				if (x->confirm != order[v])
					continue;
				cmp_group_title(G, title, sizeof title);
				if (x->confirm_round)
					snprintf(when, sizeof when, "round %u", x->confirm_round);
				else
					snprintf(when, sizeof when, "%u looks", x->looks);
				cmp_more_text(x, more, sizeof more);
				fprintf(o, "    %-9s %-9s %+6.2f%% [%+.2f%%, %+.2f%%]  %s%s%s%s\n", cmp_confirm_name(x->confirm), when,
					x->conf_change * 100, x->conf_lo * 100, x->conf_hi * 100, title,
					cmp_cares(c, G) ? "" : "  (not cared for)", *more ? "  -- " : "", more);
			}
	}
}

static void say_warning(void *o, const char *text)
{
	fprintf(o, "WARNING: %s\n", text);
}

void cmp_print_text(const struct cmp *c, FILE *o, unsigned what)
{
	char cw[96];
	fprintf(o, "bootbench compare: %zu %s, %zu boots, %u runs; baseline %s\n", c->nkernels,
		cmp_columns_word(c, cw, sizeof cw), cmp_boots_read(c), c->nruns, c->kernels[c->base].label);
	fprintf(o, "'*' significant: Benjamini-Hochberg q < %g across the figures of one comparison (the counters are "
		   "a family of their own: at most that share of the '*' are expected to be chance) and |change| >= %g%%; [lo, hi]: %g%% interval of the change (Welch, on the log of the ratio: it cannot pass -100%%); "
		   "'~' noisy: CoV > %g%%; MDC: smallest change these boots can detect (80%% power); n5%%: boots per "
		   "kernel to detect 5%%; n: boots (the unit: a boot's runs are averaged first)\n",
		c->fdr, c->min_effect * 100, (1 - c->alpha) * 100, c->noisy * 100);
	if (c->dup_runs)
		fprintf(o, "%u run records arrived twice (same boot id and sequence number) and were counted once\n",
			c->dup_runs);
	if (c->bad_ids)
		fprintf(o, "%u records with a boot id that is not 1-32 characters were skipped\n", c->bad_ids);
	if (c->conflicts)
		fprintf(o, "%u boot ids came with two different boot records: their %u runs were skipped\n", c->conflicts,
			c->conflict_runs);
	cmp_warnings(c, say_warning, o);
	if (what & CMP_OUT_SUMMARY)
		for (size_t m = 0; m < c->nmodes; m++)
			if (cmp_mode_has(c, c->modes[m], CMP_FIGURE))
				print_summary(c, o, c->modes[m]);
	if ((what & CMP_OUT_SUMMARY) && c->nseries)
		cmp_print_series(c, o);
	if ((what & CMP_OUT_SUMMARY) && c->rounds)
		for (size_t m = 0; m < c->nmodes; m++)
			if (cmp_mode_has(c, c->modes[m], CMP_FIGURE))
				print_confirm(c, o, c->modes[m]);
	if (what & CMP_OUT_TABLE)
		for (size_t m = 0; m < c->nmodes; m++) {
			print_table(c, o, c->modes[m], CMP_FIGURE, !!(what & CMP_OUT_SIGNIFICANT));
			print_table(c, o, c->modes[m], CMP_COUNTER, !!(what & CMP_OUT_SIGNIFICANT));
		}
	if (what & CMP_OUT_TABLE)
		cmp_print_why(c, o, NULL);
	fprintf(o, "\nruns per %s:\n", c->by == CMP_BY_KERNEL ? "kernel" : "value (boots: those that ran it)");
	for (size_t k = 0; k < c->nkernels; k++) {
		const struct cmp_kernel *K = &c->kernels[k];
		fprintf(o, "  %-24s %u boots: %u ok, %u failed, %u timeout, %u crashed, %u skipped", K->label, K->boots,
			K->st[ST_OK], K->st[ST_FAILED], K->st[ST_TIMEOUT], K->st[ST_CRASHED], K->st[ST_SKIPPED]);
		/* where boots ran on more than one machine, on which */
		if (many_machines(c) && (K->machines || K->machine_other)) {
			fputs("; on", o);
			for (unsigned i = 0; i < K->machines; i++)
				fprintf(o, "%s %s (%u)", i ? "," : "", K->machine[i][0] ? K->machine[i] : "unnamed",
					K->machine_boots[i]);
			if (K->machine_other)
				fprintf(o, ", others (%u)", K->machine_other);
		}
		fputc('\n', o);
	}
	fprintf(o, "%s:\n", c->by == CMP_BY_KERNEL ? "kernels" : "values (the first boot's kernel and userland)");
	for (size_t k = 0; k < c->nkernels; k++) {
		const struct cmp_kernel *K = &c->kernels[k];
		fprintf(o, "  %-24s release %s, config %.12s, userland %.12s%s%s%s%s\n", K->label, K->release,
			K->config[0] ? K->config : "not exposed", K->userland, K->accel[0] ? ", accel " : "", K->accel,
			K->qemu_setup[0] ? ", " : "", K->qemu_setup);
	}
}


static void csv_num(FILE *o, double v)
{
	if (isfinite(v))
		fprintf(o, "%.10g", v);
}

void cmp_print_csv(const struct cmp *c, FILE *o)
{
	fprintf(o, "mode,workload,layout,tunables,metric,unit,better,kernel,baseline,n,mean,sd,cov,change_pct,verdict,p,"
		   "significant,mdc_pct,runs_for_5pct,q,ci_lo_pct,ci_hi_pct,kind,label,params,invalid,runs,boot_cov,run_cov,"
		   "narrow_by\n");
	for (size_t g = 0; g < c->ngroups; g++) {
		const struct cmp_group *G = &c->groups[g];
		if (G->kind == CMP_PROFILE)
			continue;	/* the why view's, not rows of their own */
		for (size_t k = 0; k < c->nkernels; k++) {
			const struct cmp_cell *x = &G->cell[k];
			const char *fields[] = { G->mode, G->workload, G->layout, G->tunables, G->metric, G->unit, G->better,
						 c->kernels[k].label };
			for (size_t f = 0; f < sizeof fields / sizeof *fields; f++) {
				csv_field(o, fields[f]);
				fputc(',', o);
			}
			fprintf(o, "%d,%zu,", k == c->base, x->n);
			csv_num(o, x->s.mean);
			fputc(',', o);
			csv_num(o, x->s.sd);
			fputc(',', o);
			csv_num(o, x->s.cov);
			fputc(',', o);
			if (isfinite(x->change))
				fprintf(o, "%.10g,%s,", x->change * 100, cmp_word(G, x));
			else
				fprintf(o, ",,");
			if (isfinite(x->p))
				fprintf(o, "%.10g,%d,", x->p, x->significant);
			else
				fprintf(o, ",0,");
			if (isfinite(G->mdc))
				fprintf(o, "%.6g,%zu,", G->mdc * 100, G->n5);
			else
				fprintf(o, ",,");
			csv_num(o, x->q);
			fputc(',', o);
			csv_num(o, x->lo * 100);
			fputc(',', o);
			csv_num(o, x->hi * 100);
			fprintf(o, ",%s,", G->kind == CMP_FIGURE ? "figure" : "counter");
			csv_field(o, G->label);
			fputc(',', o);
			csv_field(o, G->params);
			fprintf(o, ",%zu,%zu,", x->invalid, x->runs);
			csv_num(o, x->cov_boot);
			fputc(',', o);
			csv_num(o, x->cov_run);
			fprintf(o, ",%s\n", cmp_narrow_by(x) ? cmp_narrow_by(x) : "");
		}
	}
}
