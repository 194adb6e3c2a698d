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
#define WHY_ONLY 12	/* one-sided functions named after them */
#define WHY_EXPERIMENTS 12	/* why blocks in the full output (--why: every match) */
#define WHY_STALLS 16	/* pressure (5) and delays (6) of one experiment, and room */

int why_same_experiment(const struct cmp_group *a, const struct cmp_group *b)
{
	return a->xid == b->xid;
}

/* The groups of F's experiment (cmp_finish indexed them): [*first, *end) of c->xg. */
static void exp_range(const struct cmp *c, const struct cmp_group *F, size_t *first, size_t *end)
{
	*first = c->xoff[F->xid];
	*end = c->xoff[F->xid + 1];
}

size_t why_stalls(const struct cmp *c, const struct cmp_group *F, size_t k, const struct cmp_group **out, size_t max)
{
	size_t n = 0, j, end;
	for (exp_range(c, F, &j, &end); j < end && n < max; j++) {
		const struct cmp_group *G = &c->groups[c->xg[j]];
		if (G->kind != CMP_COUNTER || (strncmp(G->metric, "pressure_", 9) && strncmp(G->metric, "delay_", 6)) ||
		    G->ncell <= k || G->ncell <= c->base)
			continue;
		if (G->cell[c->base].n || G->cell[k].n)
			out[n++] = G;
	}
	return n;
}

static int by_move(const void *x, const void *y)
{
	const struct why_fn *a = x, *b = y;
	double da = fabs(a->b - a->a), db = fabs(b->b - b->a);
	if (da != db)
		return da > db ? -1 : 1;
	return strcmp(a->G->metric, b->G->metric);
}

/* A side's share statistics for the test, its sd floored by the counting
 * noise of a share of `samples` samples, sqrt(p(1-p)/samples): deterministic
 * runs can repeat a share exactly, and a zero sd would make one or two
 * samples' difference "certain". */
static struct sample_stats floored(const struct cmp_cell *x, double samples)
{
	struct sample_stats s = x->s;
	double p = s.mean / 100, fl = samples > 0 ? sqrt(p * (1 - p) / samples) * 100 : 0;
	if (!isfinite(s.sd) || s.sd < fl)
		s.sd = fl;
	return s;
}

size_t why_functions(const struct cmp *c, const struct cmp_group *F, size_t k, struct why_fn *out, size_t max,
		     unsigned *runs_a, unsigned *runs_b, double *samples_a, double *samples_b)
{
	struct why_fn *all = NULL;
	double *p, *q;
	size_t n = 0, cap = 0, j, end;
	const struct cmp_exp *e = &c->exps[F->xid];
	*runs_a = e->runs[c->base];
	*runs_b = e->runs[k];
	*samples_a = e->runs[c->base] ? e->samples[c->base] / e->runs[c->base] : NAN;
	*samples_b = e->runs[k] ? e->samples[k] / e->runs[k] : NAN;
	for (exp_range(c, F, &j, &end); j < end; j++) {
		const struct cmp_group *G = &c->groups[c->xg[j]];
		const struct cmp_cell *a, *b;
		struct why_fn *f;
		if (G->kind != CMP_PROFILE || G->ncell <= k || G->ncell <= c->base)
			continue;
		a = &G->cell[c->base];
		b = &G->cell[k];
		if (!a->n || !b->n)
			continue;	/* not profiled on one side */
		if (n == cap) {
			cap = cap ? cap * 2 : 64;
			all = xrealloc(all, cap * sizeof *all);
		}
		f = &all[n++];
		memset(f, 0, sizeof *f);
		f->G = G;
		f->a = a->s.mean;
		f->b = b->s.mean;
		/* missing from a run whose list was cut: below the cut, not 0 */
		f->cut = (a->listed < a->runs && e->cut[c->base]) || (b->listed < b->runs && e->cut[k]);
		if (!f->cut)
			f->only = !a->listed && b->listed ? 1 : a->listed && !b->listed ? 2 : 0;
		if (a->n >= 2 && b->n >= 2 && !f->cut) {
			struct sample_stats sa = floored(a, *samples_a), sb = floored(b, *samples_b);
			f->p = welch_t_test(&sa, &sb, NULL, NULL);
		} else {
			f->p = NAN;
		}
	}
	/* Benjamini-Hochberg over the experiment's testable functions */
	p = xcalloc(n + 1, sizeof *p);
	q = xcalloc(n + 1, sizeof *q);
	for (size_t i = 0; i < n; i++)
		p[i] = all[i].p;
	bh_adjust(p, q, n);
	for (size_t i = 0; i < n; i++)
		all[i].q = q[i];
	free(p);
	free(q);
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

int why_profiled(const struct cmp *c, const struct cmp_group *F, size_t k)
{
	return c->exps[F->xid].runs[k] > 0;
}

const char *why_none(const struct cmp *c, const struct cmp_group *F, size_t k, char *buf, size_t len)
{
	int pa = why_profiled(c, F, c->base), pb = why_profiled(c, F, k);
	const struct cmp_exp *e = &c->exps[F->xid];
	if (pa && pb && !e->functions && (e->cut[c->base] || e->cut[k]))
		snprintf(buf, len, "both kernels were profiled, but this experiment's functions were not kept (the input "
			 "names more than %d profile functions)", CMP_MAX_GROUPS);
	else if (pa && pb)
		snprintf(buf, len, "both kernels were profiled, but no kernel function was sampled (user code, or runs "
			 "too short for a 250 Hz tick)");
	else if (pa || pb)
		snprintf(buf, len, "only %s was profiled here: nothing to set beside it", c->kernels[pa ? c->base : k].label);
	else
		snprintf(buf, len, "none (plan `profile on`, kernel booted with profile=2: docs/why.md)");
	return buf;
}

static void print_fig(FILE *o, const struct cmp_group *G, const struct cmp_cell *x)
{
	fprintf(o, "    %-28s", G->metric);
	if (isfinite(x->change))
		fprintf(o, " %+8.1f%%", x->change * 100);
	else
		fprintf(o, " %9s", "-");
	if (isfinite(x->q))
		fprintf(o, "  q=%-8.2g", x->q);
	else
		fprintf(o, "  %-10s", "untested");
	fprintf(o, " %s (%s%s%s)\n", cmp_word(G, x),
		G->unit, G->better[0] ? ", " : "", G->better[0] ? (!strcmp(G->better, "lower") ? "lower is better" : "higher is better") : "");
}

/* The functions only one side sampled (every list whole): those sampled
 * in the most of that side's runs first (a path the kernel always takes,
 * like rt_spin_lock, before one a single run happened to hit), then by share. */
static const struct cmp *only_c;
static size_t only_k;

static int by_presence(const void *x, const void *y)
{
	const struct why_fn *a = x, *b = y;
	size_t la = a->G->cell[only_k].listed, lb = b->G->cell[only_k].listed;
	double sa = a->only == 1 ? a->b : a->a, sb = b->only == 1 ? b->b : b->a;
	if (la != lb)
		return la > lb ? -1 : 1;
	if (sa != sb)
		return sa > sb ? -1 : 1;
	return strcmp(a->G->metric, b->G->metric);
}

static void print_only(const struct cmp *c, FILE *o, const struct why_fn *fn, size_t n, int side, size_t k)
{
	struct why_fn *v = xcalloc(n + 1, sizeof *v);
	size_t m = 0, kk = side == 1 ? k : c->base;
	unsigned runs = c->exps[fn && n ? fn[0].G->xid : 0].runs[kk];
	for (size_t i = 0; i < n; i++)
		if (fn[i].only == side)
			v[m++] = fn[i];
	only_c = c;
	only_k = kk;
	qsort(v, m, sizeof *v, by_presence);
	for (size_t i = 0; i < m && i < WHY_ONLY; i++) {
		if (!i)
			fprintf(o, "   sampled only on %s:", c->kernels[kk].label);
		fprintf(o, "%s %s %.1f%% (%zu/%u runs)", i ? "," : "", v[i].G->metric, side == 1 ? v[i].b : v[i].a,
			v[i].G->cell[kk].listed, runs);
	}
	if (m > WHY_ONLY)
		fprintf(o, " and %zu more", m - WHY_ONLY);
	if (m)
		fputc('\n', o);
	free(v);
}

static void print_one(const struct cmp *c, FILE *o, const struct cmp_group *F, size_t k, int all_figs)
{
	/* every function of the experiment: the top moves, then the one-sided ones */
	size_t j, end, n, nall, figs = 0;
	struct why_fn *fn;
	unsigned ra, rb;
	double sa, sb;
	int stalls = 0;
	exp_range(c, F, &j, &end);
	fn = xcalloc(end - j + 1, sizeof *fn);
	fprintf(o, "  %s vs %s\n", c->kernels[k].label, c->kernels[c->base].label);
	fprintf(o, "   figures:\n");
	for (; j < end; j++) {
		const struct cmp_group *G = &c->groups[c->xg[j]];
		if (G->kind == CMP_FIGURE && G->ncell > k && (all_figs || G->cell[k].significant)) {
			print_fig(o, G, &G->cell[k]);
			figs++;
		}
	}
	if (!figs)
		fprintf(o, "    none changed against the baseline\n");
	exp_range(c, F, &j, &end);
	nall = why_functions(c, F, k, fn, end - j, &ra, &rb, &sa, &sb);
	n = nall < WHY_FUNCS ? nall : WHY_FUNCS;
	if (!n) {
		char why[160];
		fprintf(o, "   kernel profile: %s", why_none(c, F, k, why, sizeof why));
		if (why_profiled(c, F, c->base) && why_profiled(c, F, k))
			fprintf(o, " (%.0f vs %.0f samples a run)", sa, sb);
		fputc('\n', o);
	} else {
		fprintf(o, "   kernel profile, share of the kernel's samples (%u vs %u profiled runs; %.0f vs %.0f samples a run):\n",
			ra, rb, sa, sb);
		fprintf(o, "    %22.22s %22.22s %9s %-9s function\n", c->kernels[c->base].label, c->kernels[k].label, "change", "q");
		for (size_t i = 0; i < n; i++) {
			const char *only = fn[i].only == 1 ? "  (never sampled on the baseline)" :
					   fn[i].only == 2 ? "  (never sampled on this kernel)" :
					   fn[i].cut ? "  (below a cut list on one side: untested)" : "";
			char q[16];
			if (isfinite(fn[i].q))
				snprintf(q, sizeof q, "%.2g", fn[i].q);
			else
				snprintf(q, sizeof q, "untested");
			fprintf(o, "    %21.1f%% %21.1f%% %+7.1fpp %-9s %s%s\n", fn[i].a, fn[i].b, fn[i].b - fn[i].a, q,
				fn[i].G->metric, only);
		}
		if (nall > n)
			fprintf(o, "    ... %zu more functions moved less\n", nall - n);
		print_only(c, o, fn, nall, 1, k);
		print_only(c, o, fn, nall, 2, k);
	}
	free(fn);
	const struct cmp_group *sg[WHY_STALLS];
	size_t ns = why_stalls(c, F, k, sg, WHY_STALLS);
	for (size_t i = 0; i < ns; i++) {
		const struct cmp_group *G = sg[i];
		const struct cmp_cell *a = &G->cell[c->base], *b = &G->cell[k];
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
	unsigned char *seen = xcalloc(c->nexps + 1, 1);
	size_t shown = 0, more = 0;
	for (size_t g = 0; g < c->ngroups; g++) {
		const struct cmp_group *F = &c->groups[g];
		size_t j, end;
		int any = 0;
		if (F->kind != CMP_FIGURE || seen[F->xid] || !matches(F, filter))
			continue;
		seen[F->xid] = 1;
		/* without a filter: the experiments in which a figure changed */
		for (exp_range(c, F, &j, &end); j < end && !any; j++) {
			const struct cmp_group *G = &c->groups[c->xg[j]];
			for (size_t k = 0; k < c->nkernels && !any; k++)
				any = k != c->base && G->kind == CMP_FIGURE && G->ncell > k && G->cell[k].significant;
		}
		if (!filter && !any)
			continue;
		if (!filter && shown == WHY_EXPERIMENTS) {
			more++;
			continue;
		}
		fprintf(o, "\n== why: %s%s%s%s / %s, mode %s ==\n", F->workload, F->label[0] ? " [" : "", F->label,
			F->label[0] ? "]" : "", F->layout, F->mode);
		for (size_t k = 0; k < c->nkernels; k++)
			if (k != c->base)
				print_one(c, o, F, k, filter != NULL);
		shown++;
	}
	if (more)
		fprintf(o, "\n... and %zu more experiments with a change: bootbench compare --why WORKLOAD[@LAYOUT] explains any\n",
			more);
	free(seen);
	return shown;
}

void cmp_experiments(const struct cmp *c, struct sbuf *out, size_t max)
{
	struct strmap seen = {0};
	size_t n = 0;
	for (size_t g = 0; g < c->ngroups; g++) {
		const struct cmp_group *G = &c->groups[g];
		char *k;
		if (G->kind != CMP_FIGURE)
			continue;
		k = xasprintf("%s@%s", G->workload, G->layout);
		if (strmap_get(&seen, k) == (size_t)-1) {
			strmap_put(&seen, k, 0);
			if (n++ < max)
				sb_printf(out, "%s%s", n > 1 ? ", " : "", k);
		}
		free(k);
	}
	if (n > max)
		sb_printf(out, ", ... (%zu in all)", n);
	strmap_free(&seen);
}
