/*
 * why.c - compare's "why" view: beside a figure that changed, the kernel
 * functions whose share of the profile samples moved most between the
 * kernels, and where the workload's processes waited (pressure, delay
 * accounting), each kernel against the baseline over the same runs.
 *
 * A share is a run's samples in one function over all of its samples, so a
 * function can gain share only because another lost it: read the list as a
 * whole. The boot is the unit. The tick's shares are tested with Welch's
 * test across boots, each side's sd floored at its counting noise; perf's
 * (thousands of samples a run) with the quasi-binomial test of stats.h,
 * the dispersion between boots shared by the list. The false discoveries
 * are controlled over the functions of one experiment.
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "compare.h"
#include "sbuf.h"
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

/* One side of a function of a perf-profiled experiment: each boot's share
 * (the mean of its runs', a run without the function counting 0) and its
 * samples, from the experiment's boots. */
static void perf_side(const struct cmp_exp *e, const struct cmp_cell *x, double *share, double *cnt,
		      struct qb_side *s)
{
	size_t m = 0;
	for (size_t i = 0; i < x->nunits; i++) {
		struct cmp_exp_boot key = { .unit = x->units[i].unit };
		const struct cmp_exp_boot *eb = bsearch(&key, e->boots, e->nboots, sizeof *e->boots, cmp_exp_boot_by_unit);
		if (!eb || !(eb->samples > 0))
			continue;
		share[m] = x->units[i].m.mean / 100;
		cnt[m++] = eb->samples;
	}
	qb_side(share, cnt, m, s);
}

/* The spread between boots is estimated from the functions' own (self)
 * shares, each a sum over few stacks: an inclusive share sums many, whose
 * jitters partly cancel, and the big outer frames' small relative spread
 * would set a spread too small for the rest (simulated A/A: 3 of 30
 * flagged something with the inclusive list's own estimate). Both lists
 * are tested with the self list's. */
static void perf_tests(const struct cmp *c, const struct cmp_group *F, size_t k, struct why_fn *all, size_t n)
{
	const struct cmp_exp *e = &c->exps[F->xid];
	struct qb_side *sd = xcalloc(2 * n, sizeof *sd), sa, sb;
	double *share = xcalloc(e->nboots + 1, sizeof *share), *cnt = xcalloc(e->nboots + 1, sizeof *cnt);
	struct qb_pool pool = { 0, 0, 0 };
	size_t j, end;
	for (exp_range(c, F, &j, &end); j < end; j++) {
		const struct cmp_group *G = &c->groups[c->xg[j]];
		if (G->kind != CMP_PROFILE || strcmp(G->unit, CMP_UNIT_PERF) || G->ncell <= k || G->ncell <= c->base)
			continue;
		perf_side(e, &G->cell[c->base], share, cnt, &sa);
		perf_side(e, &G->cell[k], share, cnt, &sb);
		qb_pool(&sa, &sb, &pool);
	}
	for (size_t i = 0; i < n; i++) {
		perf_side(e, &all[i].G->cell[c->base], share, cnt, &sd[2 * i]);
		perf_side(e, &all[i].G->cell[k], share, cnt, &sd[2 * i + 1]);
		all[i].a = sd[2 * i].p * 100;
		all[i].b = sd[2 * i + 1].p * 100;
		all[i].p = all[i].cut ? NAN : qb_test(&sd[2 * i], &sd[2 * i + 1], &pool);
	}
	free(sd);
	free(share);
	free(cnt);
}

int why_perf(const struct cmp *c, const struct cmp_group *F, size_t k)
{
	const struct cmp_exp *e = &c->exps[F->xid];
	return e->runs[k] && e->perf[k] == e->runs[k];
}

size_t why_functions(const struct cmp *c, const struct cmp_group *F, size_t k, int incl, struct why_fn *out, size_t max,
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
	int perf = why_perf(c, F, c->base) && why_perf(c, F, k);
	/* the list: perf's own or inclusive shares where both sides are
	 * perf's, else the tick's (a side of the other kind has none) */
	const char *unit = perf ? (incl ? CMP_UNIT_PERF_INCL : CMP_UNIT_PERF) : CMP_UNIT_TICK;
	if (!perf && (why_perf(c, F, c->base) || why_perf(c, F, k)))
		return 0;	/* perf on one side, the tick on the other: why_none says so */
	double oa = e->samples[c->base] > 0 ? e->other[c->base] / e->samples[c->base] * 100 : 0;
	double ob = e->samples[k] > 0 ? e->other[k] / e->samples[k] * 100 : 0;
	for (exp_range(c, F, &j, &end); j < end; j++) {
		const struct cmp_group *G = &c->groups[c->xg[j]];
		const struct cmp_cell *a, *b;
		struct why_fn *f;
		if (G->kind != CMP_PROFILE || G->ncell <= k || G->ncell <= c->base || strcmp(G->unit, unit))
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
		/* missing from a run whose list was cut: below the cut, not 0;
		 * perf's "cut" is the samples past a run's kept top, which can
		 * hide a function only up to their share: one larger than that
		 * on either side is not hidden there */
		if (perf) {
			double big = fmax(a->s.mean, b->s.mean);
			f->cut = (a->listed < a->runs && e->cut[c->base] && big <= oa) ||
				 (b->listed < b->runs && e->cut[k] && big <= ob);
		} else {
			f->cut = (a->listed < a->runs && e->cut[c->base]) || (b->listed < b->runs && e->cut[k]);
		}
		if (!f->cut)
			f->only = !a->listed && b->listed ? 1 : a->listed && !b->listed ? 2 : 0;
		if (!perf && a->n >= 2 && b->n >= 2 && !f->cut) {	/* perf's: perf_tests */
			struct sample_stats sa = floored(a, *samples_a), sb = floored(b, *samples_b);
			f->p = welch_t_test(&sa, &sb, NULL, NULL);
		} else {
			f->p = NAN;
		}
	}
	/* perf's shares on both sides: tested on the samples, with the
	 * dispersion between boots shared by the list's functions (stats.h) */
	if (n && perf)
		perf_tests(c, F, k, all, n);
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
	if (pa && pb && why_perf(c, F, c->base) != why_perf(c, F, k))
		snprintf(buf, len, "one kernel's runs were sampled by perf (shares of all samples, every CPU), the "
			 "other's by the tick (of kernel samples): not compared; profile both alike (docs/why.md)");
	else if (pa && pb && !e->functions && (e->cut[c->base] || e->cut[k]))
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

static void fmt_q(char *buf, size_t len, double q)
{
	if (isfinite(q))
		snprintf(buf, len, "%.2g", q);
	else
		snprintf(buf, len, "untested");
}

/* One table of functions (self, or inclusive shares): the largest moves,
 * then (self only: the inclusive list would repeat them) those one side
 * never sampled. */
static void print_functions(const struct cmp *c, FILE *o, const struct cmp_group *F, size_t k, int incl, size_t show,
			    const char *title)
{
	size_t j, end, n, nall;
	struct why_fn *fn;
	unsigned ra, rb;
	double sa, sb;
	exp_range(c, F, &j, &end);
	fn = xcalloc(end - j + 1, sizeof *fn);
	nall = why_functions(c, F, k, incl, fn, end - j, &ra, &rb, &sa, &sb);
	n = nall < show ? nall : show;
	if (title)
		fprintf(o, "   %s\n", title);
	fprintf(o, "    %22.22s %22.22s %9s %-9s function\n", c->kernels[c->base].label, c->kernels[k].label, "change", "q");
	for (size_t i = 0; i < n; i++) {
		const char *only = fn[i].only == 1 ? "  (never sampled on the baseline)" :
				   fn[i].only == 2 ? "  (never sampled on this kernel)" :
				   fn[i].cut ? "  (below a cut list on one side: untested)" : "";
		char q[16];
		fmt_q(q, sizeof q, fn[i].q);
		fprintf(o, "    %21.1f%% %21.1f%% %+7.1fpp %-9s %s%s\n", fn[i].a, fn[i].b, fn[i].b - fn[i].a, q,
			fn[i].G->metric, only);
	}
	if (nall > n)
		fprintf(o, "    ... %zu more functions moved less\n", nall - n);
	if (!incl) {
		print_only(c, o, fn, nall, 1, k);
		print_only(c, o, fn, nall, 2, k);
	}
	free(fn);
}

/* The call paths whose share moved most: of a chain of frames that moved
 * together, its deepest frame (the most specific path that still carries
 * the move), largest moves first. */
static const struct flame_diff *mv_d;
static int by_path_move(const void *x, const void *y)
{
	const struct flame_diff *a = &mv_d[*(const size_t *)x], *b = &mv_d[*(const size_t *)y];
	double da = fabs(a->b - a->a), db = fabs(b->b - b->a);
	if (da != db)
		return da > db ? -1 : 1;
	return a->node < b->node ? -1 : a->node > b->node;
}

size_t why_paths(const struct flame_diff *d, size_t n, size_t *out, size_t max)
{
	unsigned char *carried = xcalloc(n + 1, 1);
	size_t m = 0, *all = xcalloc(n + 1, sizeof *all);
	/* a node whose child moved by nearly as much is carried by that child */
	for (size_t i = 1; i < n; i++) {
		size_t p = d[i].parent;
		double dc = d[i].b - d[i].a, dp;
		if (p == SIZE_MAX || p >= n)
			continue;
		dp = d[p].b - d[p].a;
		if (dp != 0 && dc * dp > 0 && fabs(dc) >= 0.9 * fabs(dp))
			carried[p] = 1;
	}
	for (size_t i = 0; i < n; i++)
		if (d[i].depth >= 2 && !carried[i] && d[i].b != d[i].a)
			all[m++] = i;
	mv_d = d;
	qsort(all, m, sizeof *all, by_path_move);
	if (m > max)
		m = max;
	memcpy(out, all, m * sizeof *out);
	free(all);
	free(carried);
	return m;
}

#define WHY_PATHS 8		/* call paths that moved most */
#define WHY_TREE_LINES 60	/* lines of the call tree */
#define WHY_TREE_MIN 1.0	/* its paths: at least this share (%) on a side */

/* A tree's paths that moved most and its call tree, kernel k against the
 * baseline (d: flame_diff's n paths). */
static void print_tree(const struct cmp *c, FILE *o, const struct cmp_group *F, int t, size_t k,
		       const struct flame_diff *d, size_t n)
{
	size_t idx[WHY_PATHS], np, lines = 0, shown_more = 0, *lvl;
	char q[16];
	/* off-CPU: a share of the time blocked, and about that time (ms a
	 * run: the pooled share times the mean time blocked a run, not
	 * tested): one path's new block shrinks every other path's share */
	double wa = t == FLAME_OFF ? flame_weight(c, F->xid, t, c->base) / 1000 : NAN;
	double wb = t == FLAME_OFF ? flame_weight(c, F->xid, t, k) / 1000 : NAN;
	np = why_paths(d, n, idx, WHY_PATHS);
	if (np) {
		fprintf(o, "   call paths whose share moved most (the process; ...; the last frames):\n");
		fprintf(o, "    %22.22s %22.22s %9s %-9s path\n", c->kernels[c->base].label, c->kernels[k].label, "change", "q");
		for (size_t i = 0; i < np; i++) {
			char *path = flame_path(c, F->xid, t, &d[idx[i]], 4);
			fmt_q(q, sizeof q, d[idx[i]].q);
			fprintf(o, "    %21.1f%% %21.1f%% %+7.1fpp %-9s %s", d[idx[i]].a, d[idx[i]].b,
				d[idx[i]].b - d[idx[i]].a, q, path);
			if (isfinite(wa) && isfinite(wb))
				fprintf(o, "  (%.1f -> %.1f ms a run)", d[idx[i]].a / 100 * wa, d[idx[i]].b / 100 * wb);
			fputc('\n', o);
			free(path);
		}
	}
	fprintf(o, "   call tree (paths at %.0f%% or more on a side; a chain of frames with one path below is one line):\n",
		WHY_TREE_MIN);
	fprintf(o, "    %8.8s %8.8s %9s %-9s\n", "baseline", "this", "change", "q");
	lvl = xcalloc(n + 1, sizeof *lvl);
	for (size_t i = 1; i < n; i++) {
		struct sbuf name = { 0 };
		size_t at = i;
		if (d[i].a < WHY_TREE_MIN && d[i].b < WHY_TREE_MIN)
			continue;
		if (lines == WHY_TREE_LINES) {
			shown_more++;
			continue;
		}
		sb_puts(&name, d[i].name);
		/* the chain below: one child at the limit, the same shares */
		for (;;) {
			size_t only = SIZE_MAX, kids = 0;
			for (size_t j = at + 1; j < n && d[j].depth > d[at].depth; j++)
				if (d[j].parent == at && (d[j].a >= WHY_TREE_MIN || d[j].b >= WHY_TREE_MIN)) {
					kids++;
					only = j;
				}
			if (kids != 1 || fabs(d[only].a - d[at].a) >= 0.05 || fabs(d[only].b - d[at].b) >= 0.05 ||
			    d[at].depth < 1)
				break;
			if (name.len < 600)
				sb_printf(&name, ";%s", d[only].name);
			at = only;
		}
		fmt_q(q, sizeof q, d[at].q);
		/* indented by the lines above it, not by its frames */
		lvl[at] = d[i].parent < n ? lvl[d[i].parent] + 1 : 1;
		fprintf(o, "    %7.1f%% %7.1f%% %+7.1fpp %-9s %*s%s\n", d[at].a, d[at].b, d[at].b - d[at].a, q,
			(int)(lvl[at] < 30 ? 2 * (lvl[at] - 1) : 58), "", name.s);
		sb_free(&name);
		lines++;
		i = at;	/* its chain is printed */
	}
	if (shown_more)
		fprintf(o, "    ... %zu more paths at %.0f%% or more (the report's flame graph draws them all)\n", shown_more,
			WHY_TREE_MIN);
	free(lvl);
}

static void print_perf(const struct cmp *c, FILE *o, const struct cmp_group *F, size_t k)
{
	const struct cmp_exp *e = &c->exps[F->xid];
	struct flame_diff *d;
	size_t n = flame_diff(c, F->xid, FLAME_CPU, k, &d);
	unsigned ra, rb;
	double sa = flame_events(c, F->xid, FLAME_CPU, c->base, &ra), sb = flame_events(c, F->xid, FLAME_CPU, k, &rb);
	double oa = e->samples[c->base] > 0 ? e->other[c->base] / e->samples[c->base] * 100 : 0;
	double ob = e->samples[k] > 0 ? e->other[k] / e->samples[k] * 100 : 0;
	fprintf(o, "   perf samples with call chains (%u vs %u runs; %.0f vs %.0f samples a run; shares of all samples, "
		   "every CPU)%s\n", ra, rb, sa, sb, oa > 0 || ob > 0 ? "" : ":");
	if (oa > 0 || ob > 0)
		fprintf(o, "   (%.1f%% vs %.1f%% of the samples were in stacks past each run's kept top: in no function "
			   "below)\n", oa, ob);
	print_functions(c, o, F, k, 0, WHY_FUNCS, "functions, own samples (self):");
	print_functions(c, o, F, k, 1, WHY_FUNCS / 2, "functions, inclusive (the function and what it called):");
	print_tree(c, o, F, FLAME_CPU, k, d, n);
	free(d);
}

/* Where the tasks blocked (perf's switches, offcpu.h): shares of the
 * time blocked, tested with the blocks as the count. */
static void print_offcpu(const struct cmp *c, FILE *o, const struct cmp_group *F, size_t k)
{
	struct flame_diff *d;
	size_t n;
	unsigned ra, rb;
	double ba, bb, ua, ub;
	int ha = flame_have(c, F->xid, FLAME_OFF, c->base), hb = flame_have(c, F->xid, FLAME_OFF, k);
	if (!ha && !hb)
		return;	/* neither asked for it (profile offcpu) */
	if (!ha || !hb) {
		fprintf(o, "   where the tasks blocked: recorded on %s only (the other's runs were made without profile "
			   "offcpu, or perf gave them nothing)\n", ha ? "the baseline" : "this kernel");
		return;
	}
	ba = flame_events(c, F->xid, FLAME_OFF, c->base, &ra);
	bb = flame_events(c, F->xid, FLAME_OFF, k, &rb);
	ua = flame_weight(c, F->xid, FLAME_OFF, c->base);
	ub = flame_weight(c, F->xid, FLAME_OFF, k);
	fprintf(o, "   where the tasks blocked, off-CPU (perf: a task's stack as it left the CPU not runnable, weighted by "
		   "the time until it ran again; the run's own processes; %u vs %u runs; %.1f vs %.1f ms "
		   "blocked and %.0f vs %.0f blocks a run; shares of the time blocked, tested with the blocks as the "
		   "count; ms a run: share times the mean, untested):\n", ra, rb, ua / 1000, ub / 1000, ba, bb);
	n = flame_diff(c, F->xid, FLAME_OFF, k, &d);
	print_tree(c, o, F, FLAME_OFF, k, d, n);
	free(d);
}

static void print_one(const struct cmp *c, FILE *o, const struct cmp_group *F, size_t k, int all_figs)
{
	size_t j, end, figs = 0;
	int stalls = 0;
	fprintf(o, "  %s vs %s\n", c->kernels[k].label, c->kernels[c->base].label);
	fprintf(o, "   figures:\n");
	for (exp_range(c, F, &j, &end); j < end; j++) {
		const struct cmp_group *G = &c->groups[c->xg[j]];
		if (G->kind == CMP_FIGURE && G->ncell > k && (all_figs || G->cell[k].significant)) {
			print_fig(o, G, &G->cell[k]);
			figs++;
		}
	}
	if (!figs)
		fprintf(o, "    none changed against the baseline\n");
	if (why_perf(c, F, c->base) && why_perf(c, F, k) && flame_have(c, F->xid, FLAME_CPU, c->base) && flame_have(c, F->xid, FLAME_CPU, k)) {
		print_perf(c, o, F, k);
	} else {
		struct why_fn one;
		unsigned ra, rb;
		double sa, sb;
		if (!why_functions(c, F, k, 0, &one, 1, &ra, &rb, &sa, &sb)) {
			char why[256];
			fprintf(o, "   kernel profile: %s", why_none(c, F, k, why, sizeof why));
			if (why_profiled(c, F, c->base) && why_profiled(c, F, k))
				fprintf(o, " (%.0f vs %.0f samples a run)", sa, sb);
			fputc('\n', o);
		} else {
			char title[200];
			snprintf(title, sizeof title, "kernel profile, share of the kernel's samples (%u vs %u profiled runs; "
				 "%.0f vs %.0f samples a run):", ra, rb, sa, sb);
			print_functions(c, o, F, k, 0, WHY_FUNCS, title);
		}
	}
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
	print_offcpu(c, o, F, k);
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
