/*
 * flame.c - perf's call paths of an experiment as trees, for the "why"
 * view's call trees and the report's differential flame graphs: one of
 * where the CPUs were (FLAME_CPU: cpu-clock samples), one of where the
 * run's tasks blocked (FLAME_OFF: off-CPU stacks weighted by µs blocked).
 *
 * A node is a path prefix of the folded stacks ("comm;outer;...;frame"):
 * the root is the run's whole weight, its children the processes, and
 * below them the frames as perf unwound them, root-most first. Each node
 * keeps, per boot, its share of each run's weight summed over the boot's
 * runs, so that a path's share can be tested across boots (the unit)
 * exactly as a function's share is: a boot's share is the mean over its
 * runs, a run whose stacks did not reach the node counting 0; a side's
 * share is pooled over its boots' events (samples; off-CPU: blocks, since
 * microseconds are not independent draws), the quasi-binomial test
 * (stats.h) takes the dispersion between boots shared by the pair's
 * paths, then Benjamini-Hochberg over them. Memory: a node holds an entry
 * (16 bytes) for each boot that reached it, so the bound on nodes bounds
 * nodes times boots; the two trees share FLAME_ALL_NODES.
 *
 * Everything read is hostile: frames are checked by folded_split before
 * they get here, and the nodes are bounded per experiment and in all; a
 * stack past the bound keeps the part of its path that exists, and its
 * weight past there is counted (dropped), never guessed.
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "compare.h"
#include "folded.h"
#include "sbuf.h"
#include "xio.h"

#define NONE ((unsigned)-1)

struct flame_ent {
	unsigned long long unit;	/* the boot (cmp_unit.unit) */
	double sum;			/* its runs' shares of this node, summed (fractions) */
};

struct flame_node {
	char *name;
	unsigned parent, child, next;	/* first child, next sibling */
	double run;			/* weight of the run being read (samples; µs blocked) */
	struct flame_ent *e;
	unsigned ne, ecap;
};

struct flame {
	struct flame_node *n;
	size_t nn, cap;
	struct strmap ix;		/* "PARENT|name" -> node */
	unsigned *touched;		/* nodes with samples in the run being read */
	size_t nt, tcap;
	struct cmp_exp_boot *boots;	/* boots with perf-profiled runs of the experiment, their runs */
	size_t nboots, bcap;
	unsigned runs[CMP_MAX_KERNELS];
	double events[CMP_MAX_KERNELS];		/* what the test counts: samples, or blocks */
	double weight[CMP_MAX_KERNELS];		/* what shares are of: samples, or µs */
};

static unsigned node_new(struct cmp *c, struct flame *f, unsigned parent, const char *name)
{
	struct flame_node *n;
	if (f->nn == f->cap) {
		f->cap = f->cap ? f->cap * 2 : 256;
		f->n = xrealloc(f->n, f->cap * sizeof *f->n);
	}
	n = &f->n[f->nn];
	memset(n, 0, sizeof *n);
	n->name = xstrdup(name);
	n->parent = parent;
	n->child = NONE;
	n->next = NONE;
	if (parent != NONE) {
		n->next = f->n[parent].child;
		f->n[parent].child = (unsigned)f->nn;
	}
	c->flame_nodes++;
	return (unsigned)f->nn++;
}

static struct flame *flame_of(struct cmp *c, size_t x, int t)
{
	struct cmp_exp *e = &c->exps[x];
	if (!e->fl[t]) {
		e->fl[t] = xcalloc(1, sizeof *e->fl[t]);
		node_new(c, e->fl[t], NONE, "all");
	}
	return e->fl[t];
}

static void touch(struct flame *f, unsigned i, double w)
{
	if (f->n[i].run == 0) {
		if (f->nt == f->tcap) {
			f->tcap = f->tcap ? f->tcap * 2 : 256;
			f->touched = xrealloc(f->touched, f->tcap * sizeof *f->touched);
		}
		f->touched[f->nt++] = i;
	}
	f->n[i].run += w;
}

int flame_stack(struct cmp *c, size_t x, int t, const char *const *frames, size_t nf, double w)
{
	struct flame *f = flame_of(c, x, t);
	unsigned at = 0;
	char key[FOLDED_MAX_FRAME + 16];
	touch(f, 0, w);
	for (size_t i = 0; i < nf; i++) {
		size_t got;
		snprintf(key, sizeof key, "%u|%s", at, frames[i]);
		got = strmap_get(&f->ix, key);
		if (got == (size_t)-1) {
			if (f->nn >= FLAME_EXP_NODES || c->flame_nodes >= FLAME_ALL_NODES) {
				c->flame_dropped[t] += w;	/* the path past here is not kept */
				return -1;
			}
			got = node_new(c, f, at, frames[i]);
			strmap_put(&f->ix, key, got);
		}
		at = (unsigned)got;
		touch(f, at, w);
	}
	return 0;
}

void flame_run_end(struct cmp *c, size_t x, int t, int k, double total, double events)
{
	struct flame *f = flame_of(c, x, t);
	struct cmp_exp_boot *eb = f->nboots ? &f->boots[f->nboots - 1] : NULL;
	for (size_t i = 0; i < f->nt; i++) {
		struct flame_node *n = &f->n[f->touched[i]];
		if (!n->ne || n->e[n->ne - 1].unit != c->cur_unit) {
			if (n->ne == n->ecap) {
				n->ecap = n->ecap ? n->ecap * 2 : 4;
				n->e = xrealloc(n->e, n->ecap * sizeof *n->e);
			}
			n->e[n->ne].unit = c->cur_unit;
			n->e[n->ne++].sum = 0;
		}
		n->e[n->ne - 1].sum += total > 0 ? n->run / total : 0;
		n->run = 0;
	}
	f->nt = 0;
	f->runs[k]++;
	f->events[k] += events;
	f->weight[k] += total;
	if (!eb || eb->unit != c->cur_unit) {
		if (f->nboots == f->bcap) {
			f->bcap = f->bcap ? f->bcap * 2 : 4;
			f->boots = xrealloc(f->boots, f->bcap * sizeof *f->boots);
		}
		eb = &f->boots[f->nboots++];
		memset(eb, 0, sizeof *eb);
		eb->unit = c->cur_unit;
		eb->k = (unsigned)k;
	}
	eb->runs++;
	eb->samples += events;
}

static int ent_by_unit(const void *x, const void *y)
{
	const struct flame_ent *a = x, *b = y;
	return a->unit < b->unit ? -1 : a->unit > b->unit;
}

/* A boot's runs can arrive apart (records of one boot from two sources):
 * one entry a boot. */
void flame_finish(struct cmp *c)
{
	for (size_t x = 0; x < c->nexps * FLAME_TREES; x++) {
		struct flame *f = c->exps[x / FLAME_TREES].fl[x % FLAME_TREES];
		size_t m;
		if (!f)
			continue;
		for (size_t i = 0; i < f->nn; i++) {
			struct flame_node *n = &f->n[i];
			if (!n->ne)
				continue;
			qsort(n->e, n->ne, sizeof *n->e, ent_by_unit);
			m = 0;
			for (unsigned j = 1; j < n->ne; j++)
				if (n->e[j].unit == n->e[m].unit)
					n->e[m].sum += n->e[j].sum;
				else
					n->e[++m] = n->e[j];
			n->ne = (unsigned)m + 1;
		}
		cmp_exp_boots_merge(f->boots, &f->nboots);
	}
}

void flame_free(struct flame *f)
{
	if (!f)
		return;
	for (size_t i = 0; i < f->nn; i++) {
		free(f->n[i].name);
		free(f->n[i].e);
	}
	free(f->n);
	free(f->touched);
	free(f->boots);
	strmap_free(&f->ix);
	free(f);
}

int flame_have(const struct cmp *c, size_t x, int t, size_t k)
{
	const struct flame *f = c->exps[x].fl[t];
	return f && k < CMP_MAX_KERNELS && f->runs[k] > 0;
}

double flame_events(const struct cmp *c, size_t x, int t, size_t k, unsigned *runs)
{
	const struct flame *f = c->exps[x].fl[t];
	*runs = f && k < CMP_MAX_KERNELS ? f->runs[k] : 0;
	return *runs ? f->events[k] / *runs : NAN;
}

double flame_weight(const struct cmp *c, size_t x, int t, size_t k)
{
	const struct flame *f = c->exps[x].fl[t];
	return f && k < CMP_MAX_KERNELS && f->runs[k] ? f->weight[k] / f->runs[k] : NAN;
}

/* Node n's side on kernel k: each boot's share (its runs' shares summed,
 * over its runs: their mean) and samples. */
static void node_side(const struct flame *f, const struct flame_node *n, size_t k, double *share, double *cnt,
		      struct qb_side *s)
{
	size_t m = 0;
	for (size_t j = 0; j < f->nboots; j++) {
		const struct cmp_exp_boot *eb = &f->boots[j];
		struct flame_ent key = { .unit = eb->unit }, *got;
		if (eb->k != k || !eb->runs)
			continue;
		got = n->ne ? bsearch(&key, n->e, n->ne, sizeof *n->e, ent_by_unit) : NULL;
		share[m] = got ? got->sum / eb->runs : 0;
		cnt[m++] = eb->samples;
	}
	qb_side(share, cnt, m, s);
}

static const struct flame_diff *by_d;
static int by_share(const void *x, const void *y)
{
	const struct flame_diff *a = &by_d[*(const size_t *)x], *b = &by_d[*(const size_t *)y];
	double wa = a->b > a->a ? a->b : a->a, wb = b->b > b->a ? b->b : b->a;
	if (a->b != b->b)
		return a->b > b->b ? -1 : 1;
	if (wa != wb)
		return wa > wb ? -1 : 1;
	return strcmp(a->name, b->name);
}

size_t flame_diff(const struct cmp *c, size_t x, int t, size_t k, struct flame_diff **out)
{
	const struct flame *f = c->exps[x].fl[t];
	struct flame_diff *all;
	size_t n = 0, *order, *stack, sp = 0, *kids, got = 0;
	double *p, *q, *share, *cnt;
	struct qb_pool pool = { 0, 0, 0 };
	struct qb_side *sides;
	*out = NULL;
	if (!f || !flame_have(c, x, t, c->base) || !flame_have(c, x, t, k))
		return 0;
	all = xcalloc(f->nn, sizeof *all);
	p = xcalloc(f->nn, sizeof *p);
	q = xcalloc(f->nn, sizeof *q);
	sides = xcalloc(2 * f->nn, sizeof *sides);
	share = xcalloc(f->nboots + 1, sizeof *share);
	cnt = xcalloc(f->nboots + 1, sizeof *cnt);
	/* each path's two sides, then the dispersion they share (the root,
	 * every sample, has none), then each path's test */
	for (size_t i = 0; i < f->nn; i++) {
		struct flame_diff *d = &all[i];
		node_side(f, &f->n[i], c->base, share, cnt, &sides[2 * i]);
		node_side(f, &f->n[i], k, share, cnt, &sides[2 * i + 1]);
		d->node = i;
		d->name = f->n[i].name;
		d->a = sides[2 * i].p * 100;
		d->b = sides[2 * i + 1].p * 100;
		/* the spread between boots from the leaves only: a node above
		 * sums its children, whose jitters partly cancel, and the big
		 * ones' small relative spread would set it too small for the
		 * rest (simulated A/A, 2 + 2 boots: 7 of 30 flagged a path
		 * with every node pooled); the nodes above are tested with the
		 * leaves' spread, which overstates theirs */
		if (i && f->n[i].child == NONE)
			qb_pool(&sides[2 * i], &sides[2 * i + 1], &pool);
	}
	for (size_t i = 0; i < f->nn; i++)
		all[i].p = i ? qb_test(&sides[2 * i], &sides[2 * i + 1], &pool) : NAN;
	free(sides);
	free(share);
	free(cnt);
	/* Benjamini-Hochberg over the paths of this pair with a share on a side */
	for (size_t i = 0; i < f->nn; i++)
		if (all[i].a > 0 || all[i].b > 0)
			p[n++] = all[i].p;
	bh_adjust(p, q, n);
	n = 0;
	for (size_t i = 0; i < f->nn; i++)
		all[i].q = all[i].a > 0 || all[i].b > 0 ? q[n++] : NAN;
	free(p);
	free(q);
	/* depth first from the root, the children by share on kernel k */
	order = xcalloc(f->nn, sizeof *order);
	stack = xcalloc(f->nn + 1, sizeof *stack);
	kids = xcalloc(f->nn + 1, sizeof *kids);
	by_d = all;
	stack[sp++] = 0;
	all[0].depth = 0;
	all[0].parent = SIZE_MAX;
	while (sp) {
		size_t i = stack[--sp], nk = 0;
		size_t at = got;
		order[got++] = i;
		for (unsigned ch = f->n[i].child; ch != NONE; ch = f->n[ch].next)
			if (all[ch].a > 0 || all[ch].b > 0)
				kids[nk++] = ch;
		qsort(kids, nk, sizeof *kids, by_share);
		for (size_t j = nk; j-- > 0;) {
			all[kids[j]].depth = all[i].depth + 1;
			all[kids[j]].parent = at;	/* its parent's place in the output */
			stack[sp++] = kids[j];
		}
	}
	*out = xcalloc(got + 1, sizeof **out);
	for (size_t i = 0; i < got; i++)
		(*out)[i] = all[order[i]];
	free(order);
	free(stack);
	free(kids);
	free(all);
	return got;
}

char *flame_path(const struct cmp *c, size_t x, int t, const struct flame_diff *d, size_t frames)
{
	const struct flame *f = c->exps[x].fl[t];
	const char *part[FOLDED_MAX_DEPTH + 2];
	size_t n = 0;
	struct sbuf sb = { 0 };
	for (unsigned i = (unsigned)d->node; i && i != NONE && n < sizeof part / sizeof *part; i = f->n[i].parent)
		part[n++] = f->n[i].name;
	/* the process, then the last `frames` frames */
	for (size_t j = n; j-- > 0;) {
		if (j != n - 1 && j >= frames) {
			if (j == frames && n - 1 > frames)
				sb_puts(&sb, ";...");
			continue;
		}
		sb_printf(&sb, "%s%s", j == n - 1 ? "" : ";", part[j]);
	}
	if (!sb.s)
		sb_puts(&sb, "all");
	return sb_steal(&sb);
}
