/*
 * why.c - compare's "why" view: beside a figure that changed, the kernel
 * functions whose share of the profile samples moved most between the
 * kernels, and where the workload's processes waited (pressure, delay
 * accounting), each kernel against the baseline over the same runs.
 *
 * A share is a run's samples in one function over all of its samples, so a
 * function can gain share only because another lost it: read the list as a
 * whole. Significance is Welch's test across runs (boots), and the false
 * discoveries are controlled over the functions of one experiment.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "compare.h"
#include "xio.h"

#define WHY_FUNCS 12	/* functions printed per experiment and kernel */

int why_same_experiment(const struct cmp_group *a, const struct cmp_group *b)
{
	return !strcmp(a->mode, b->mode) && !strcmp(a->workload, b->workload) && !strcmp(a->params, b->params) &&
	       !strcmp(a->lkey, b->lkey) && !strcmp(a->tunables, b->tunables);
}

int why_is_stall(const struct cmp_group *F, const struct cmp_group *G)
{
	return G->kind == CMP_COUNTER && (!strncmp(G->metric, "pressure_", 9) || !strncmp(G->metric, "delay_", 6)) &&
	       why_same_experiment(F, G);
}

static int by_move(const void *x, const void *y)
{
	const struct why_fn *a = x, *b = y;
	double da = fabs(a->b - a->a), db = fabs(b->b - b->a);
	if (da != db)
		return da > db ? -1 : 1;
	return strcmp(a->G->metric, b->G->metric);
}

static int by_p_fn(const void *x, const void *y)
{
	const struct why_fn *const *a = x, *const *b = y;
	return (*a)->p < (*b)->p ? -1 : (*a)->p > (*b)->p;
}

size_t why_functions(const struct cmp *c, const struct cmp_group *F, size_t k, struct why_fn *out, size_t max,
		     unsigned *runs_a, unsigned *runs_b, double *samples_a, double *samples_b)
{
	struct why_fn *all = NULL, **byp;
	size_t n = 0, m = 0, cap = 0;
	*runs_a = *runs_b = 0;
	*samples_a = *samples_b = NAN;
	for (size_t g = 0; g < c->ngroups; g++) {
		const struct cmp_group *G = &c->groups[g];
		const struct cmp_cell *a, *b;
		struct why_fn *f;
		if (G->kind != CMP_PROFILE || !G->exp || !why_same_experiment(F, G) || G->ncell <= k || G->ncell <= c->base)
			continue;
		a = &G->cell[c->base];
		b = &G->cell[k];
		if (!a->n || !b->n)
			continue;	/* not profiled on one side */
		if (!*runs_a) {
			const struct cmp_exp *e = &c->exps[G->exp - 1];
			*runs_a = e->runs[c->base];
			*runs_b = e->runs[k];
			*samples_a = e->runs[c->base] ? e->samples[c->base] / e->runs[c->base] : NAN;
			*samples_b = e->runs[k] ? e->samples[k] / e->runs[k] : NAN;
		}
		if (n == cap) {
			cap = cap ? cap * 2 : 64;
			all = xrealloc(all, cap * sizeof *all);
		}
		f = &all[n++];
		f->G = G;
		f->a = a->s.mean;
		f->b = b->s.mean;
		f->p = a->n >= 2 && b->n >= 2 ? welch_t_test(&a->s, &b->s, NULL, NULL) : NAN;
		f->q = NAN;
	}
	/* Benjamini-Hochberg over the experiment's testable functions */
	byp = xcalloc(n + 1, sizeof *byp);
	for (size_t i = 0; i < n; i++)
		if (isfinite(all[i].p))
			byp[m++] = &all[i];
	qsort(byp, m, sizeof *byp, by_p_fn);
	for (size_t i = m; i-- > 0;) {
		double q = byp[i]->p * (double)m / (double)(i + 1);
		if (i + 1 < m && byp[i + 1]->q < q)
			q = byp[i + 1]->q;
		byp[i]->q = q > 1 ? 1 : q;
	}
	free(byp);
	if (n)
		qsort(all, n, sizeof *all, by_move);
	if (n > max)
		n = max;
	if (n)
		memcpy(out, all, n * sizeof *out);
	free(all);
	return n;
}

static int matches(const struct cmp_group *G, const char *filter)
{
	const char *at;
	size_t wl;
	if (!filter)
		return 1;
	at = strchr(filter, '@');
	wl = at ? (size_t)(at - filter) : strlen(filter);
	if (strlen(G->workload) != wl || strncmp(G->workload, filter, wl))
		return 0;
	return !at || !strcmp(G->layout, at + 1);
}

/* Did kernel k's runs of F's experiment carry a profile? */
static int profiled(const struct cmp *c, const struct cmp_group *F, size_t k)
{
	for (size_t g = 0; g < c->ngroups; g++) {
		const struct cmp_group *G = &c->groups[g];
		if (G->kind == CMP_PROFILE && G->exp && why_same_experiment(F, G))
			return c->exps[G->exp - 1].runs[k] > 0;
	}
	return 0;
}

static void print_fig(FILE *o, const struct cmp_group *G, const struct cmp_cell *x)
{
	int v = cmp_verdict(G, x);
	fprintf(o, "    %-28s", G->metric);
	if (isfinite(x->change))
		fprintf(o, " %+8.1f%%", x->change * 100);
	else
		fprintf(o, " %9s", "-");
	if (isfinite(x->q))
		fprintf(o, "  q=%-8.2g", x->q);
	else
		fprintf(o, "  %-10s", "untested");
	fprintf(o, " %s (%s%s%s)\n", !x->significant ? "unchanged" : v == CMP_WORSE ? "worse" : v == CMP_BETTER ? "better" : "changed",
		G->unit, G->better[0] ? ", " : "", G->better[0] ? (!strcmp(G->better, "lower") ? "lower is better" : "higher is better") : "");
}

static void print_one(const struct cmp *c, FILE *o, const struct cmp_group *F, size_t k, int all_figs)
{
	struct why_fn fn[WHY_FUNCS];
	unsigned ra, rb;
	double sa, sb;
	size_t n;
	int stalls = 0;
	fprintf(o, "  %s vs %s\n", c->kernels[k].label, c->kernels[c->base].label);
	fprintf(o, "   figures:\n");
	for (size_t g = 0; g < c->ngroups; g++) {
		const struct cmp_group *G = &c->groups[g];
		if (G->kind == CMP_FIGURE && why_same_experiment(F, G) && G->ncell > k && (all_figs || G->cell[k].significant))
			print_fig(o, G, &G->cell[k]);
	}
	n = why_functions(c, F, k, fn, WHY_FUNCS, &ra, &rb, &sa, &sb);
	if (!n) {
		int pa = profiled(c, F, c->base), pb = profiled(c, F, k);
		if (pa || pb)
			fprintf(o, "   kernel profile: only %s was profiled here: nothing to set beside it\n",
				c->kernels[pa ? c->base : k].label);
		else
			fprintf(o, "   kernel profile: none (plan `profile on`, kernel booted with profile=2: docs/why.md)\n");
	} else {
		fprintf(o, "   kernel profile, share of the kernel's samples (%u vs %u profiled runs; %.0f vs %.0f samples a run):\n",
			ra, rb, sa, sb);
		fprintf(o, "    %22.22s %22.22s %9s %-9s function\n", c->kernels[c->base].label, c->kernels[k].label, "change", "q");
		for (size_t i = 0; i < n; i++) {
			const char *only = fn[i].a == 0 && fn[i].b > 0 ? "  (never sampled on the baseline)" :
					   fn[i].b == 0 && fn[i].a > 0 ? "  (never sampled on this kernel)" : "";
			char q[16];
			if (isfinite(fn[i].q))
				snprintf(q, sizeof q, "%.2g", fn[i].q);
			else
				snprintf(q, sizeof q, "untested");
			fprintf(o, "    %21.1f%% %21.1f%% %+7.1fpp %-9s %s%s\n", fn[i].a, fn[i].b, fn[i].b - fn[i].a, q,
				fn[i].G->metric, only);
		}
	}
	for (size_t g = 0; g < c->ngroups; g++) {
		const struct cmp_group *G = &c->groups[g];
		const struct cmp_cell *a, *b;
		if (!why_is_stall(F, G) || G->ncell <= k)
			continue;
		a = &G->cell[c->base];
		b = &G->cell[k];
		if (!a->n && !b->n)
			continue;
		if (!stalls++)
			fprintf(o, "   where the processes waited (ms a run, mean):\n    %22.22s %22.22s %9s %-9s stall\n",
				c->kernels[c->base].label, c->kernels[k].label, "change", "q");
		if (a->n)
			fprintf(o, "    %22.3f", a->s.mean);
		else
			fprintf(o, "    %22s", "-");
		if (b->n)
			fprintf(o, " %22.3f", b->s.mean);
		else
			fprintf(o, " %22s", "-");
		if (isfinite(b->change))
			fprintf(o, " %+8.1f%%", b->change * 100);
		else
			fprintf(o, " %9s", "-");
		if (isfinite(b->q))
			fprintf(o, " %-9.2g", b->q);
		else
			fprintf(o, " %-9s", "untested");
		fprintf(o, " %s\n", G->metric);
	}
	if (!stalls)
		fprintf(o, "   where the processes waited: not recorded (records older than pressure and delays)\n");
}

size_t cmp_print_why(const struct cmp *c, FILE *o, const char *filter)
{
	struct strmap seen = {0};
	size_t shown = 0;
	for (size_t g = 0; g < c->ngroups; g++) {
		const struct cmp_group *F = &c->groups[g];
		struct sbuf key = {0};
		int any = 0;
		if (F->kind != CMP_FIGURE || !matches(F, filter))
			continue;
		sb_printf(&key, "%zu:%s|%zu:%s|%zu:%s|%zu:%s|%s", strlen(F->mode), F->mode, strlen(F->workload), F->workload,
			  strlen(F->params), F->params, strlen(F->lkey), F->lkey, F->tunables);
		if (strmap_get(&seen, key.s) != (size_t)-1) {
			sb_free(&key);
			continue;
		}
		strmap_put(&seen, key.s, 0);
		sb_free(&key);
		/* without a filter: the experiments in which a figure changed */
		for (size_t k = 0; k < c->nkernels; k++)
			for (size_t h = g; h < c->ngroups && !any && k != c->base; h++) {
				const struct cmp_group *G = &c->groups[h];
				any = G->kind == CMP_FIGURE && why_same_experiment(F, G) && G->ncell > k && G->cell[k].significant;
			}
		if (!filter && !any)
			continue;
		fprintf(o, "\n== why: %s%s%s%s / %s, mode %s ==\n", F->workload, F->label[0] ? " [" : "", F->label,
			F->label[0] ? "]" : "", F->layout, F->mode);
		for (size_t k = 0; k < c->nkernels; k++)
			if (k != c->base)
				print_one(c, o, F, k, filter != NULL);
		shown++;
	}
	strmap_free(&seen);
	return shown;
}
