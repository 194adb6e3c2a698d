/*
 * report.c - the HTML report of a comparison: one self-contained file (no
 * network, no scripts). The answer first: per kernel against the baseline,
 * the summary and a forest plot of every figure's change with its interval,
 * grouped by workload, regressions in red; then per workload, folded, the
 * table, a bar chart with error bars per figure and the counters compared;
 * then counter traces of chosen runs and the boot identities. Every string
 * that came from a record is escaped.
 */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "compare.h"
#include "json.h"
#include "xio.h"

static const char *const palette[] = { "#4e79a7", "#e15759", "#59a14f", "#f28e2b", "#76b7b2", "#b07aa1", "#edc948", "#9c755f" };

void html_esc(FILE *o, const char *s)
{
	for (; s && *s; s++) {
		switch (*s) {
		case '<': fputs("&lt;", o); break;
		case '>': fputs("&gt;", o); break;
		case '&': fputs("&amp;", o); break;
		case '"': fputs("&quot;", o); break;
		default: fputc(*s, o);
		}
	}
}

static void bar_chart(FILE *o, const struct cmp *c, const struct cmp_group *G)
{
	const int W = 360, H = 150, top = 8, bottom = 30, left = 10;
	double maxv = 0;
	size_t nk = c->nkernels;
	for (size_t k = 0; k < nk; k++) {
		const struct cmp_cell *x = &G->cell[k];
		double hi = x->n ? x->s.mean + (isfinite(x->s.sd) ? x->s.sd : 0) : 0;
		if (hi > maxv)
			maxv = hi;
	}
	if (maxv <= 0)
		maxv = 1;
	/* the title is HTML, so a long one wraps instead of being cut */
	char title[512];
	cmp_group_title(G, title, sizeof title);
	fputs("<figure class=\"bc\"><figcaption>", o);
	html_esc(o, title);
	fprintf(o, " (");
	html_esc(o, G->unit);
	if (G->better[0]) {
		fputs(", ", o);
		html_esc(o, G->better);
		fputs(" is better", o);
	}
	fputs(")", o);
	html_note(o, "<br>", "", cmp_tool_label(c, G));
	fprintf(o, "</figcaption><svg class=\"chart\" width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\" role=\"img\">",
		W, H, W, H);
	for (size_t k = 0; k < nk; k++) {
		const struct cmp_cell *x = &G->cell[k];
		double bw = (double)(W - 2 * left) / nk, x0 = left + k * bw + bw * 0.15, w = bw * 0.7;
		double scale = (H - top - bottom) / maxv;
		if (!x->n)
			continue;
		double h = x->s.mean * scale, y = H - bottom - h;
		fprintf(o, "<rect class=\"bar\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"%s\"><title>",
			x0, y, w, h > 0 ? h : 0, palette[k % 8]);
		html_esc(o, c->kernels[k].label);
		fprintf(o, ": mean %.6g, sd %.3g, n %zu</title></rect>", x->s.mean, x->s.sd, x->n);
		if (x->n >= 2 && isfinite(x->s.sd)) {
			double cx = x0 + w / 2, y1 = H - bottom - (x->s.mean + x->s.sd) * scale,
			       y2 = H - bottom - fmax(x->s.mean - x->s.sd, 0) * scale;
			fprintf(o, "<path class=\"err\" d=\"M%.1f %.1fV%.1fM%.1f %.1fH%.1fM%.1f %.1fH%.1f\" stroke=\"#222\"/>",
				cx, y1, y2, cx - 6, y1, cx + 6, cx - 6, y2, cx + 6);
		}
		fprintf(o, "<text x=\"%.1f\" y=\"%d\" class=\"cl\" text-anchor=\"middle\">", x0 + w / 2, H - bottom + 14);
		html_esc(o, c->kernels[k].label);
		fprintf(o, "</text><text x=\"%.1f\" y=\"%d\" class=\"cl\" text-anchor=\"middle\">%.4g%s</text>", x0 + w / 2,
			H - bottom + 26, x->s.mean,
			k != c->base && x->significant ? (cmp_verdict(G, x) == CMP_WORSE ? " (worse*)" :
							  cmp_verdict(G, x) == CMP_BETTER ? " (better*)" : " (changed*)") : "");
	}
	fputs("</svg></figure>\n", o);
}

/* A trace: {"interval_ms":N,"trace":{"t":[...],"series a":[...],...}} */
static void trace_chart(FILE *o, const char *title, const char *json)
{
	char err[64];
	struct jv *v = json_parse(json, strlen(json), err, sizeof err);
	const struct jv *tr = json_get(v, "trace"), *t = json_get(tr, "t");
	const int W = 640, H = 200, L = 40, R = 190, T = 24, B = 24;
	int si = 0;
	if (!v || !t || t->t != J_ARR || t->n < 2) {
		json_free(v);
		return;
	}
	double tmax = t->items[t->n - 1]->num;
	fputs("<figure class=\"bc\"><figcaption>", o);
	html_esc(o, title);
	fprintf(o, "</figcaption><svg class=\"trace\" width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\">", W, H, W, H);
	fprintf(o, "<path d=\"M%d %dH%d\" stroke=\"#999\"/>", L, H - B, W - R);
	for (size_t i = 0; i < tr->n; i++) {
		const struct jv *s = tr->items[i];
		double mx = 0;
		const char *key = tr->keys[i];
		/* what a reader looks for first: CPU, paging, disk I/O */
		int wanted = !strcmp(key, "cpu_user") || !strcmp(key, "cpu_system") || !strcmp(key, "cpu_iowait") ||
			     !strcmp(key, "pgpgin") || !strcmp(key, "pgpgout") || (!strncmp(key, "disk_", 5) && strstr(key, "_ios"));
		if (!wanted || s->t != J_ARR || s->n != t->n)
			continue;
		for (size_t k = 0; k < s->n; k++)
			if (s->items[k]->t == J_NUM && s->items[k]->num > mx)
				mx = s->items[k]->num;
		if (mx <= 0)
			mx = 1;
		fprintf(o, "<polyline class=\"series\" fill=\"none\" stroke=\"%s\" points=\"", palette[si % 8]);
		for (size_t k = 0; k < s->n; k++) {
			double x = L + (tmax > 0 ? t->items[k]->num / tmax : 0) * (W - L - R);
			double y = H - B - (s->items[k]->t == J_NUM ? s->items[k]->num / mx : 0) * (H - T - B);
			fprintf(o, "%.1f,%.1f ", x, y);
		}
		fprintf(o, "\"/><text x=\"%d\" y=\"%d\" class=\"cl\" fill=\"%s\">", W - R + 6, T + 14 * si, palette[si % 8]);
		html_esc(o, tr->keys[i]);
		fprintf(o, " (max %.4g", mx);
		{
			const char *u = json_get_str(json_get(json_get(v, "summary"), tr->keys[i]), "unit");
			if (u) {
				fputc(' ', o);
				html_esc(o, u);
			}
		}
		fputs(")</text>", o);
		si++;
	}
	fprintf(o, "<text x=\"%d\" y=\"%d\" class=\"cl\">each series scaled to its own max</text>", W - R + 6, H - 8);
	fprintf(o, "<text x=\"%d\" y=\"%d\" class=\"cl\">0</text><text x=\"%d\" y=\"%d\" class=\"cl\">%.1f s</text></svg></figure>\n", L,
		H - 8, W - R - 30, H - 8, tmax);
	json_free(v);
}


static const char *mode_title(const char *mode)
{
	return !strcmp(mode, "deterministic") ? " (figures are instruction-derived, not real time)" : " (wall-clock time)";
}

/* The significant changes of one kind, as the text summary lists them. */
static void summary_rows(FILE *o, const struct cmp *c, size_t k, const size_t *ix, size_t n, size_t max)
{
	static const char *const cls[] = { "worse sig", "better sig", "sig" };
	fputs("<table class=\"sum\"><tr><th>change</th><th>interval</th><th>q</th><th class=\"l\">figure</th>"
	      "<th class=\"l\">unit</th><th class=\"l\">note</th></tr>\n", o);
	for (size_t i = 0; i < n && i < max; i++) {
		const struct cmp_group *G = &c->groups[ix[i]];
		const struct cmp_cell *x = &G->cell[k];
		int v = cmp_verdict(G, x);
		char title[512];
		cmp_group_title(G, title, sizeof title);
		fprintf(o, "<tr class=\"%s\"><td>%+.1f%% %s</td>", cls[v], x->change * 100, cmp_word(G, x));
		if (isfinite(x->lo))
			fprintf(o, "<td>[%+.1f%%, %+.1f%%]</td>", x->lo * 100, x->hi * 100);
		else
			fputs("<td>-</td>", o);
		fprintf(o, "<td>%.2g</td><td class=\"l\">", x->q);
		html_esc(o, title);
		fputs("</td><td class=\"l\">", o);
		html_esc(o, G->unit);
		if (v != CMP_CHANGED) {
			fputs(", ", o);
			html_esc(o, G->better);
			fputs(" is better", o);
		}
		fputs("</td><td class=\"l\">", o);
		if (G->inforce_diff) {
			fputs("tunables in force differ: ", o);
			html_esc(o, G->inforce_diff);
		}
		fputs("</td></tr>\n", o);
	}
	if (n > max)
		fprintf(o, "<tr><td class=\"l\" colspan=\"6\">... and %zu more (in the per-workload tables)</td></tr>\n", n - max);
	fputs("</table>\n", o);
}

/* Under a regression: the experiment's top kernel functions, the baseline's
 * share beside this kernel's (a horizontal bar each), then the stalls. */
static void why_html(FILE *o, const struct cmp *c, const struct cmp_group *F, size_t k, size_t *frames)
{
	enum { NF = 10 };
	struct why_fn fn[NF];
	unsigned ra, rb;
	double sa, sb, maxv = 1;
	const int rowh = 26, left = 230, plot = 300, W = left + plot + 220;
	size_t n = why_functions(c, F, k, 0, fn, NF, &ra, &rb, &sa, &sb);
	fputs("<div class=\"why\"><p class=\"ch\">Why (", o);
	html_esc(o, F->workload);
	if (F->label[0]) {
		fputs(" [", o);
		html_esc(o, F->label);
		fputs("]", o);
	}
	fputs(" on ", o);
	html_esc(o, F->layout);
	fputs("): ", o);
	if (!n) {
		char why[256];
		fputs("kernel profile: ", o);
		html_esc(o, why_none(c, F, k, why, sizeof why));
		fputs(".</p>", o);
	} else {
		for (size_t i = 0; i < n; i++)
			maxv = fmax(maxv, fmax(fn[i].a, fn[i].b));
		if (why_perf(c, F, c->base) && why_perf(c, F, k))
			fprintf(o, "the functions whose own share of perf's samples (every CPU, with call chains) moved most, "
				   "%u vs %u profiled runs (%.0f vs %.0f samples a run).</p>\n", ra, rb, sa, sb);
		else
			fprintf(o, "the kernel functions whose share of the profile samples moved most, %u vs %u profiled runs "
				   "(%.0f vs %.0f samples a run).</p>\n", ra, rb, sa, sb);
		fprintf(o, "<svg class=\"chart why\" width=\"%d\" height=\"%zu\" viewBox=\"0 0 %d %zu\" role=\"img\">", W,
			n * rowh + 24, W, n * rowh + 24);
		fprintf(o, "<rect x=\"%d\" y=\"4\" width=\"10\" height=\"8\" fill=\"%s\"/><text x=\"%d\" y=\"12\" class=\"cl\">",
			left, palette[c->base % 8], left + 14);
		html_esc(o, c->kernels[c->base].label);
		fprintf(o, "</text><rect x=\"%d\" y=\"4\" width=\"10\" height=\"8\" fill=\"%s\"/><text x=\"%d\" y=\"12\" "
			   "class=\"cl\">", left + 160, palette[k % 8], left + 174);
		html_esc(o, c->kernels[k].label);
		fputs("</text>", o);
		for (size_t i = 0; i < n; i++) {
			int y = 20 + (int)i * rowh;
			double wa = fn[i].a / maxv * plot, wb = fn[i].b / maxv * plot;
			fprintf(o, "<text x=\"%d\" y=\"%d\" class=\"fl\" text-anchor=\"end\">", left - 6, y + 15);
			html_esc(o, fn[i].G->metric);
			fprintf(o, "</text><rect x=\"%d\" y=\"%d\" width=\"%.1f\" height=\"10\" fill=\"%s\"><title>", left, y + 2,
				wa, palette[c->base % 8]);
			html_esc(o, c->kernels[c->base].label);
			fprintf(o, ": %.2f%%</title></rect><rect x=\"%d\" y=\"%d\" width=\"%.1f\" height=\"10\" fill=\"%s\"><title>",
				fn[i].a, left, y + 12, wb, palette[k % 8]);
			html_esc(o, c->kernels[k].label);
			fprintf(o, ": %.2f%%</title></rect><text x=\"%.1f\" y=\"%d\" class=\"cl\">%.1f%% / %.1f%% (%+.1fpp", fn[i].b,
				left + fmax(wa, wb) + 4, y + 15, fn[i].a, fn[i].b, fn[i].b - fn[i].a);
			if (isfinite(fn[i].q))
				fprintf(o, ", q=%.2g", fn[i].q);
			fputs(")</text>", o);
		}
		fputs("</svg>\n", o);
	}
	if (why_perf(c, F, c->base) && why_perf(c, F, k))
		flame_svg(o, c, F->xid, FLAME_CPU, k, frames);
	{
		int any = 0;
		const struct cmp_group *sg[16];
		size_t ns = why_stalls(c, F, k, sg, 16);
		for (size_t i = 0; i < ns; i++) {
			const struct cmp_group *G = sg[i];
			const struct cmp_cell *a = &G->cell[c->base], *b = &G->cell[k];
			if ((!a->n || a->s.mean == 0) && (!b->n || b->s.mean == 0))
				continue;	/* nothing waited there */
			if (!any++) {
				fputs("<table class=\"sum\"><tr><th class=\"l\">where the processes waited (ms a run)</th><th>", o);
				html_esc(o, c->kernels[c->base].label);
				fputs("</th><th>", o);
				html_esc(o, c->kernels[k].label);
				fputs("</th><th>q</th></tr>\n", o);
			}
			fputs("<tr><td class=\"l\">", o);
			html_esc(o, G->metric);
			fputs("</td>", o);
			if (a->n)
				fprintf(o, "<td>%.3f</td>", a->s.mean);
			else
				fputs("<td>-</td>", o);
			if (b->n)
				fprintf(o, "<td>%.3f</td>", b->s.mean);
			else
				fputs("<td>-</td>", o);
			if (isfinite(b->q))
				fprintf(o, "<td>%.2g</td></tr>\n", b->q);
			else
				fputs("<td>-</td></tr>\n", o);
		}
		if (any)
			fputs("</table>\n", o);
	}
	/* beside the waits' totals, where the tasks blocked, by path (none
	 * drawn unless both sides have the off-CPU view) */
	flame_svg(o, c, F->xid, FLAME_OFF, k, frames);
	fputs("</div>\n", o);
}

/* A why block under each regression, once per experiment, worst first,
 * then under each improvement (a kernel engineer asks why a path got
 * cheaper too), for the first REPORT_WHYS of them (the page stays
 * readable). */
#define REPORT_WHYS 12
static void whys_html(FILE *o, const struct cmp *c, size_t k, const size_t *ix, size_t n, size_t *frames)
{
	unsigned char *seen = xcalloc(c->nexps + 1, 1);
	size_t shown = 0, more[2] = { 0, 0 };
	for (int pass = 0; pass < 2; pass++) {
		int want = pass ? CMP_BETTER : CMP_WORSE, said = 0;
		for (size_t i = 0; i < n; i++) {
			const struct cmp_group *F = &c->groups[ix[i]];
			if (cmp_verdict(F, &F->cell[k]) != want || seen[F->xid])
				continue;
			seen[F->xid] = 1;
			if (shown == REPORT_WHYS) {
				more[pass]++;
				continue;
			}
			if (pass && !said++)
				fputs("<p class=\"ch\">And why the improvements:</p>\n", o);
			why_html(o, c, F, k, frames);
			shown++;
		}
	}
	if (more[0] || more[1])
		fprintf(o, "<p class=\"ch\">... and %zu more regressions and %zu more improvements: <code>bootbench compare "
			   "--why WORKLOAD@LAYOUT</code> explains any of them.</p>\n", more[0], more[1]);
	free(seen);
}

static void summary_html(FILE *o, const struct cmp *c, const char *mode, size_t k, size_t *ix, size_t *frames)
{
	struct cmp_tally t;
	size_t n;
	cmp_tally(c, mode, k, &t);
	fputs("<h3 class=\"vs\">", o);
	html_esc(o, c->kernels[k].label);
	fputs(" vs ", o);
	html_esc(o, c->kernels[c->base].label);
	fprintf(o, "</h3>\n<p class=\"counts\">%zu figures: <span class=\"worse sig\">%zu worse</span>, "
		   "<span class=\"better sig\">%zu better</span>, %zu unchanged, %zu undecided", t.figures, t.worse, t.better,
		t.same, t.undecided);
	if (t.changed)
		fprintf(o, ", %zu changed with no direction", t.changed);
	if (t.untested)
		fprintf(o, ", %zu not testable (fewer than 2 boots a side: boot-to-boot spread unknown; or a baseline mean of 0)", t.untested);
	if (t.missing)
		fprintf(o, ", %zu missing (no ok run of this kernel)", t.missing);
	fputs(".</p>\n", o);
	n = cmp_significant(c, mode, CMP_FIGURE, k, ix);
	if (n) {
		summary_rows(o, c, k, ix, n, (size_t)-1);
		whys_html(o, c, k, ix, n, frames);
	} else
		fputs("<p>No significant change.</p>\n", o);
	n = cmp_significant(c, mode, CMP_COUNTER, k, ix);
	if (n) {
		fputs("<p class=\"ch\">Counters that moved (they explain the figures; they are not figures):</p>\n", o);
		summary_rows(o, c, k, ix, n, 12);
	}
}

/* One row per figure: the change and its interval against zero. */
static void forest(FILE *o, const struct cmp *c, const char *mode, size_t k)
{
	const int row = 18, head = 34, plot = 420, right = 210;
	size_t rows = 0, maxlab = 0;
	double range = 0.01;
	const char *last = NULL;
	int y;
	for (size_t g = 0; g < c->ngroups; g++) {
		const struct cmp_group *G = &c->groups[g];
		const struct cmp_cell *x = &G->cell[k];
		char t[512];
		size_t l;
		if (G->kind != CMP_FIGURE || strcmp(G->mode, mode) || !isfinite(x->change))
			continue;
		if (!last || strcmp(last, G->workload))
			rows++;
		last = G->workload;
		rows++;
		snprintf(t, sizeof t, "%s%s/ %s: %s", G->label, G->label[0] ? " " : "", G->layout, G->metric);
		l = strlen(t) + 2;
		if (l > maxlab)
			maxlab = l;
		double lo = isfinite(x->lo) ? x->lo : x->change, hi = isfinite(x->hi) ? x->hi : x->change;
		if (fabs(lo) > range) range = fabs(lo);
		if (fabs(hi) > range) range = fabs(hi);
	}
	if (!rows)
		return;
	if (range > 1)
		range = 1;	/* beyond +-100% the interval is drawn clipped, with an arrow */
	int labw = (int)(maxlab * 6.4) + 16, W = labw + plot + right, H = head + (int)rows * row + 8;
	double x0 = labw + plot / 2.0, sc = (plot / 2.0 - 8) / range;
	fprintf(o, "<svg class=\"forest\" width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\" role=\"img\">", W, H, W, H);
	fputs("<text x=\"4\" y=\"14\" class=\"ct\">change of ", o);
	html_esc(o, c->kernels[k].label);
	fputs(" against ", o);
	html_esc(o, c->kernels[c->base].label);
	fprintf(o, " with its %g%% interval (red: worse, significant; green: better, significant; orange: changed, no direction; grey: not significant)</text>",
		(1 - c->alpha) * 100);
	fprintf(o, "<path d=\"M%.1f %dV%d\" stroke=\"#888\"/>", x0, head - 6, H - 4);
	fprintf(o, "<text x=\"%.1f\" y=\"%d\" class=\"cl\" text-anchor=\"middle\">0</text>", x0, head - 8);
	fprintf(o, "<text x=\"%d\" y=\"%d\" class=\"cl\">%+.3g%%</text>", labw, head - 8, -range * 100);
	fprintf(o, "<text x=\"%d\" y=\"%d\" class=\"cl\" text-anchor=\"end\">%+.3g%%</text>", labw + plot, head - 8,
		range * 100);
	y = head;
	last = NULL;
	for (size_t g = 0; g < c->ngroups; g++) {
		const struct cmp_group *G = &c->groups[g];
		const struct cmp_cell *x = &G->cell[k];
		const char *col;
		if (G->kind != CMP_FIGURE || strcmp(G->mode, mode) || !isfinite(x->change))
			continue;
		if (!last || strcmp(last, G->workload)) {
			fprintf(o, "<text x=\"4\" y=\"%d\" class=\"fw\">", y + 13);
			html_esc(o, G->workload);
			fputs("</text>", o);
			y += row;
		}
		last = G->workload;
		{
			/* a figure with no direction is neither red nor green */
			static const char *const cols[] = { "#c00", "#080", "#a60" }, *const cls[] = { "reg", "imp", "chg" };
			int v = cmp_verdict(G, x);
			col = x->significant ? cols[v] : "#999";
			fprintf(o, "<g class=\"%s\"><text x=\"16\" y=\"%d\" class=\"fl\">",
				x->significant ? cls[v] : x->decision == CMP_D_UNCHANGED ? "same" : "undecided", y + 13);
		}
		if (G->label[0]) {
			html_esc(o, G->label);
			fputc(' ', o);
		}
		fputs("/ ", o);
		html_esc(o, G->layout);
		fputs(": ", o);
		html_esc(o, G->metric);
		fputs("</text>", o);
		{
			double lo = isfinite(x->lo) ? x->lo : x->change, hi = isfinite(x->hi) ? x->hi : x->change;
			double cl = fmax(-range, fmin(range, lo)), ch = fmax(-range, fmin(range, hi));
			double cx = fmax(-range, fmin(range, x->change));
			fprintf(o, "<path d=\"M%.1f %dH%.1f\" stroke=\"%s\" stroke-width=\"2\"/>", x0 + cl * sc, y + 9,
				x0 + ch * sc, col);
			if (lo < -range)
				fprintf(o, "<path d=\"M%.1f %dl6 -4v8z\" fill=\"%s\"/>", x0 - range * sc, y + 9, col);
			if (hi > range)
				fprintf(o, "<path d=\"M%.1f %dl-6 -4v8z\" fill=\"%s\"/>", x0 + range * sc, y + 9, col);
			fprintf(o, "<circle cx=\"%.1f\" cy=\"%d\" r=\"4\" fill=\"%s\"/>", x0 + cx * sc, y + 9, col);
		}
		fprintf(o, "<text x=\"%d\" y=\"%d\" class=\"fl\" fill=\"%s\">%+.1f%%", labw + plot + 8, y + 13, col,
			x->change * 100);
		if (isfinite(x->q))
			fprintf(o, " q=%.2g %s", x->q, cmp_word(G, x));
		fputs("</text></g>", o);
		y += row;
	}
	fputs("</svg>\n", o);
}

/* Under a figure's name: the words its reference tool prints, and the plan
 * section its runs came from. */
static void metric_notes(FILE *o, const struct cmp *c, const struct cmp_group *G)
{
	html_note(o, "<br>", "", cmp_tool_label(c, G));
	html_note(o, "<br>", "section ", G->section);
}

void html_note(FILE *o, const char *before, const char *prefix, const char *text)
{
	if (!text)
		return;
	fprintf(o, "%s<span class=\"tool\">%s", before, prefix);
	html_esc(o, text);
	fputs("</span>", o);
}

static void group_rows(FILE *o, const struct cmp *c, size_t g0, size_t g1, int kind)
{
	fprintf(o, "<div class=\"tw\"><table><tr><th class=\"l\">what differs</th><th class=\"l\">layout</th><th class=\"l\">%s</th><th>unit</th>",
		kind == CMP_FIGURE ? "metric" : "counter (per-run mean)");
	for (size_t k = 0; k < c->nkernels; k++) {
		fputs("<th>", o);
		html_esc(o, c->kernels[k].label);
		fputs(k == c->base ? " (baseline)</th>" : "</th><th>change</th><th>interval</th><th>p</th><th>q</th>", o);
	}
	fputs("<th>MDC</th><th>n for 5%</th></tr>\n", o);
	for (size_t g = g0; g < g1; g++) {
		const struct cmp_group *G = &c->groups[g];
		if (G->kind != kind)
			continue;
		fputs("<tr><td class=\"l\">", o);
		html_esc(o, G->label[0] ? G->label : "-");
		fputs("</td><td class=\"l\">", o);
		html_esc(o, G->layout);
		fputs("</td><td class=\"l\">", o);
		html_esc(o, G->metric);
		if (kind == CMP_FIGURE)
			metric_notes(o, c, G);
		fputs("</td><td>", o);
		html_esc(o, G->unit);
		fputs("</td>", o);
		for (size_t k = 0; k < c->nkernels; k++) {
			const struct cmp_cell *x = &G->cell[k];
			if (x->n)
				fprintf(o, "<td class=\"%s\">%.5g &plusmn;%.1f%% (n=%zu)%s", x->noisy ? "noisy" : "", x->s.mean,
					isfinite(x->s.cov) ? x->s.cov * 100 : 0, x->n, x->invalid ? "" : "</td>");
			else
				fputs(x->invalid ? "<td>" : "<td>-</td>", o);
			if (x->invalid)
				fprintf(o, " <span class=\"invalid\">INVALID &times;%zu</span></td>", x->invalid);
			if (k == c->base)
				continue;
			if (isfinite(x->change))
				fprintf(o, "<td class=\"%s\">%+.1f%% %s%s</td>",
					!x->significant ? "" : (const char *const[]){ "worse sig", "better sig", "sig" }[cmp_verdict(G, x)],
					x->change * 100, cmp_word(G, x), x->significant ? " *" : "");
			else
				fputs("<td>-</td>", o);
			if (isfinite(x->lo))
				fprintf(o, "<td>[%+.1f%%, %+.1f%%]</td>", x->lo * 100, x->hi * 100);
			else
				fputs("<td>-</td>", o);
			if (isfinite(x->p))
				fprintf(o, "<td>%.2g</td><td>%.2g</td>", x->p, x->q);
			else
				fputs("<td>-</td><td>-</td>", o);
		}
		if (isfinite(G->mdc))
			fprintf(o, "<td>%.1f%%</td><td>%zu</td></tr>\n", G->mdc * 100, G->n5);
		else
			fputs("<td>-</td><td>-</td></tr>\n", o);
		if (G->inforce_diff) {
			fprintf(o, "<tr><td class=\"l note\" colspan=\"%zu\">tunables in force differ: ", 6 + 5 * c->nkernels);
			html_esc(o, G->inforce_diff);
			fputs("</td></tr>\n", o);
		}
	}
	fputs("</table></div>\n", o);
}

/* requested load N of a figure named loadN_<what>, or 0 */
static unsigned long long load_of(const char *metric, const char *what)
{
	unsigned long long n;
	int used = 0;
	char tail[24];
	if (sscanf(metric, "load%llu_%23[a-z0-9_]%n", &n, tail, &used) != 2 || metric[used] || strcmp(tail, what))
		return 0;
	return n;
}

/* the mean a chart draws: the valid runs', else the invalid ones' */
static double point(const struct cmp_cell *x, int *invalid)
{
	*invalid = !x->n && x->invalid;
	return x->n ? x->s.mean : x->invalid ? x->invalid_sum / x->invalid : NAN;
}

/* A loadN_ops or loadN_resp_ms figure of an experiment, for the curves. */
struct curve_pt {
	size_t xid, g;
	unsigned long long n;
	int resp;
};

static int curve_cmp(const void *a, const void *b)
{
	const struct curve_pt *x = a, *y = b;
	if (x->xid != y->xid)
		return x->xid < y->xid ? -1 : 1;
	if (x->n != y->n)
		return x->n < y->n ? -1 : 1;
	return x->resp - y->resp;
}

/* One experiment's curve: np points (requested load, its ops and resp
 * groups), sorted by requested load. */
static void draw_curve(FILE *o, const struct cmp *c, const struct cmp_group *G, const unsigned long long *req,
		       const size_t *ops, const size_t *resp, size_t np)
{
	const int W = 460, H = 280, L = 56, R = 12, T = 10, B = 40;
	double xmax = 0, ymax = 0;
	for (size_t i = 0; i < np; i++)
		for (size_t k = 0; k < c->nkernels; k++) {
			int inv;
			double x = point(&c->groups[ops[i]].cell[k], &inv), y = point(&c->groups[resp[i]].cell[k], &inv);
			if (isfinite(x) && x > xmax)
				xmax = x;
			if (isfinite(y) && y > ymax)
				ymax = y;
		}
	if (xmax <= 0 || ymax <= 0)
		return;
	fputs("<figure class=\"lc\"><figcaption>Response time against achieved throughput, per requested load (", o);
	html_esc(o, G->workload);
	fputs(" on ", o);
	html_esc(o, G->layout);
	if (G->label && G->label[0]) {
		fputs(", ", o);
		html_esc(o, G->label);
	}
	fprintf(o, "): SFS's curve; hollow red: INVALID</figcaption><svg class=\"curve\" width=\"%d\" height=\"%d\" "
		   "viewBox=\"0 0 %d %d\" role=\"img\">", W, H, W, H);
	fprintf(o, "<path d=\"M%d %dV%dH%d\" stroke=\"#444\" fill=\"none\"/>", L, T, H - B, W - R);
	fprintf(o, "<text x=\"%d\" y=\"%d\" class=\"cl\" text-anchor=\"middle\">achieved ops/s (0 to %.4g)</text>",
		(L + W - R) / 2, H - 8, xmax);
	fprintf(o, "<text x=\"12\" y=\"%d\" class=\"cl\" transform=\"rotate(-90 12 %d)\" text-anchor=\"middle\">"
		   "response ms (0 to %.4g)</text>", (T + H - B) / 2, (T + H - B) / 2, ymax);
	for (size_t k = 0; k < c->nkernels; k++) {
		struct sbuf d = {0};
		for (size_t i = 0; i < np; i++) {
			int i1, i2;
			double x = point(&c->groups[ops[i]].cell[k], &i1), y = point(&c->groups[resp[i]].cell[k], &i2);
			double px, py;
			if (!isfinite(x) || !isfinite(y))
				continue;
			px = L + x / xmax * (W - L - R);
			py = H - B - y / ymax * (H - B - T);
			sb_printf(&d, "%s%.1f %.1f", d.len ? "L" : "M", px, py);
			if (i1 || i2)
				fprintf(o, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"5\" class=\"inv\" fill=\"none\" "
					   "stroke=\"#b00\" stroke-width=\"2\"><title>", px, py);
			else
				fprintf(o, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"4\" fill=\"%s\"><title>", px, py,
					palette[k % 8]);
			html_esc(o, c->kernels[k].label);
			fprintf(o, ": requested %llu ops/s, achieved %.4g ops/s, response %.4g ms%s</title></circle>", req[i],
				x, y, i1 || i2 ? " (INVALID)" : "");
		}
		if (d.len) {
			fprintf(o, "<path d=\"%s\" stroke=\"%s\" stroke-width=\"2\" fill=\"none\"/>", d.s, palette[k % 8]);
			fprintf(o, "<text x=\"%d\" y=\"%zu\" class=\"cl\" fill=\"%s\">", L + 8, T + 12 + 14 * k,
				palette[k % 8]);
			html_esc(o, c->kernels[k].label);
			fputs("</text>", o);
		}
		sb_free(&d);
	}
	fputs("</svg></figure>\n", o);
}

/* SFS's own picture: response time against achieved throughput, one line
 * per kernel, for each experiment with loadN_ops and loadN_resp_ms figures
 * (nfsmix). A step every run of which was INVALID is a hollow red point.
 * The figures are found in one pass and sorted: a hostile record with
 * thousands of metrics costs G log G, not G^2. */
static void load_curves(FILE *o, const struct cmp *c, size_t g0, size_t g1)
{
	enum { MAXP = 16 };
	struct curve_pt *pt = xcalloc(g1 - g0 + 1, sizeof *pt);
	size_t n = 0;
	for (size_t g = g0; g < g1; g++) {
		const struct cmp_group *G = &c->groups[g];
		unsigned long long v;
		if (G->kind != CMP_FIGURE)
			continue;
		if ((v = load_of(G->metric, "ops")))
			pt[n++] = (struct curve_pt){ G->xid, g, v, 0 };
		else if ((v = load_of(G->metric, "resp_ms")))
			pt[n++] = (struct curve_pt){ G->xid, g, v, 1 };
	}
	qsort(pt, n, sizeof *pt, curve_cmp);
	for (size_t i = 0; i < n;) {
		size_t j = i, np = 0, ops[MAXP], resp[MAXP];
		unsigned long long req[MAXP];
		while (j < n && pt[j].xid == pt[i].xid)
			j++;
		/* an ops figure followed by the resp figure of the same load */
		for (size_t k = i; k + 1 < j && np < MAXP; k++)
			if (!pt[k].resp && pt[k + 1].resp && pt[k + 1].n == pt[k].n) {
				req[np] = pt[k].n;
				ops[np] = pt[k].g;
				resp[np] = pt[k + 1].g;
				np++;
			}
		if (np >= 2)
			draw_curve(o, c, &c->groups[ops[0]], req, ops, resp, np);
		i = j;
	}
	free(pt);
}

/* Per workload, folded unless it holds a significant change. The groups
 * are sorted by workload (cmp_finish), so each workload is one stretch. */
static void details(FILE *o, const struct cmp *c, const char *mode)
{
	for (size_t g0 = 0, g1; g0 < c->ngroups; g0 = g1) {
		const char *wl = c->groups[g0].workload;
		size_t figs = 0, sig = 0;
		for (g1 = g0; g1 < c->ngroups && !strcmp(c->groups[g1].workload, wl) && !strcmp(c->groups[g1].mode, c->groups[g0].mode); g1++) {
			const struct cmp_group *G = &c->groups[g1];
			if (G->kind != CMP_FIGURE)
				continue;
			figs++;
			for (size_t k = 0; k < c->nkernels; k++)
				sig += G->cell[k].significant;
		}
		if (strcmp(c->groups[g0].mode, mode))
			continue;
		fprintf(o, "<details class=\"wl\"%s><summary>", sig ? " open" : "");
		html_esc(o, wl);
		fprintf(o, ": %zu figures, %zu significant changes</summary>\n", figs, sig);
		group_rows(o, c, g0, g1, CMP_FIGURE);
		fputs("<div class=\"charts\">\n", o);
		load_curves(o, c, g0, g1);
		for (size_t g = g0; g < g1; g++)
			if (c->groups[g].kind == CMP_FIGURE)
				bar_chart(o, c, &c->groups[g]);
		fputs("</div>\n", o);
		for (size_t g = g0; g < g1; g++)
			if (c->groups[g].kind == CMP_COUNTER) {
				fputs("<p class=\"ch\">System counters during these runs (they explain the figures):</p>\n", o);
				group_rows(o, c, g0, g1, CMP_COUNTER);
				break;
			}
		fputs("</details>\n", o);
	}
}

/* Confirmation rounds: every figure's verdict and the round that reached it. */
static void confirm_html(FILE *o, const struct cmp *c, const char *mode, size_t k)
{
	fprintf(o, "<h3>Confirmation rounds: ");
	html_esc(o, c->kernels[k].label);
	fprintf(o, "</h3>\n<p>At most %u rounds of boots; after each complete round every figure is looked at once: "
		   "<b>changed</b> when q &lt; %g/%u and the change is at least %g%%, <b>unchanged</b> when the %g%% interval "
		   "of the change lies within &plusmn;%g%% (two one-sided tests), else <b>undecided</b>. The first look that "
		   "decides stands; spending 1/%u of the error rate per look (Bonferroni) keeps a false &lsquo;changed&rsquo; "
		   "over all looks below %g.</p>\n<table><tr><th class=\"l\">figure</th><th class=\"l\">verdict</th>"
		   "<th>round</th><th>change</th><th>interval</th></tr>\n",
		c->rounds, c->fdr, c->rounds, c->min_effect * 100, (1 - 2 * c->alpha / c->rounds) * 100, c->margin * 100,
		c->rounds, c->fdr);
	for (size_t g = 0; g < c->ngroups; g++) {
		const struct cmp_group *G = &c->groups[g];
		const struct cmp_cell *x;
		char title[256], more[96];
		if (G->kind != CMP_FIGURE || strcmp(G->mode, mode) || k >= G->ncell || !G->cell[k].confirm)
			continue;
		x = &G->cell[k];
		cmp_group_title(G, title, sizeof title);
		fputs("<tr><td class=\"l\">", o);
		html_esc(o, title);
		fprintf(o, "</td><td class=\"l\">%s", cmp_confirm_name(x->confirm));
		if (*cmp_more_text(x, more, sizeof more))
			fprintf(o, "<br><small>%s</small>", more);	/* our own words: nothing to escape */
		fputs("</td>", o);
		if (x->confirm_round)
			fprintf(o, "<td>%u of %u</td>", x->confirm_round, x->looks);
		else
			fprintf(o, "<td>none in %u</td>", x->looks);
		if (isfinite(x->conf_change) && isfinite(x->conf_lo) && isfinite(x->conf_hi))
			fprintf(o, "<td>%+.2f%%</td><td>[%+.2f%%, %+.2f%%]</td></tr>\n", x->conf_change * 100,
				x->conf_lo * 100, x->conf_hi * 100);
		else
			fputs("<td></td><td></td></tr>\n", o);
	}
	fputs("</table>\n", o);
}

static void say_warning(void *o, const char *text)
{
	fputs("<p class=\"warning\"><b>WARNING</b>: ", o);
	html_esc(o, text);
	fputs("</p>\n", o);
}

int cmp_write_html(const struct cmp *c, const char *path)
{
	/* a regular file only, emptied once it is known to be one: run as
	 * root, --html /dev/sda must not write into the disk, nor a FIFO hang
	 * compare, nor a symbolic link lead the report elsewhere */
	int fd = open_regular(path, O_WRONLY | O_CREAT | O_NOFOLLOW, 0644);
	FILE *o = fd >= 0 && ftruncate(fd, 0) == 0 ? fdopen(fd, "w") : NULL;
	size_t *ix, frames = 0;	/* flame graph frames drawn: a budget a report */
	if (!o) {
		if (fd >= 0) {
			int e = errno;
			close(fd);
			errno = e;
		}
		return -1;
	}
	ix = xcalloc(c->ngroups + 1, sizeof *ix);
	fputs("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>bootbench comparison</title>\n"
	      "<style>body{font:14px/1.4 sans-serif;margin:1.5em;color:#222}table{border-collapse:collapse;margin:.5em 0 1.5em}"
	      "td,th{border:1px solid #ccc;padding:2px 6px;text-align:right;white-space:nowrap}th{background:#f2f2f2}"
	      "td.l,th.l{text-align:left}.worse{color:#b00}.better{color:#070}.sig{font-weight:bold}.noisy{color:#a60}.invalid{color:#fff;background:#b00;padding:0 .3em;font-weight:bold}"
	      ".charts{display:flex;flex-wrap:wrap;gap:8px}.chart,.trace,.forest{border:1px solid #ddd;background:#fff}"
	      "figure.bc{margin:0;border:1px solid #ddd;padding:2px}figure.bc figcaption{font-size:11px;font-weight:bold;max-width:360px}"
	      ".trace+figcaption,figure.bc:has(.trace) figcaption{max-width:640px}.chart,.trace{border:0}"
	      ".ct{font-size:11px;font-weight:bold}.cl{font-size:10px}.fl{font-size:11px}.fw{font-size:12px;font-weight:bold}"
	      "details.wl{margin:.4em 0;border:1px solid #ddd;padding:.3em .6em}details.wl>summary{font-weight:bold;cursor:pointer}"
	      ".tw{overflow-x:auto}.note{color:#a60;white-space:normal}.counts{font-size:15px}.tool{font-weight:normal;font-style:italic}.warning{color:#a00}</style></head><body>\n", o);
	{
		char cw[96], bw[64];
		if (c->by == CMP_BY_KERNEL)
			fputs("<h1>bootbench: is kernel B different from kernel A?</h1>\n", o);
		else {
			fputs("<h1>bootbench: does ", o);
			html_esc(o, cmp_by_word(c, bw, sizeof bw));
			fputs(" change the figures?</h1>\n", o);
		}
		fprintf(o, "<p>%zu ", c->nkernels);
		html_esc(o, cmp_columns_word(c, cw, sizeof cw));
		fprintf(o, ", %zu boots, %u runs. Baseline: <b>", cmp_boots_read(c), c->nruns);
	}
	html_esc(o, c->kernels[c->base].label);
	fprintf(o, "</b>. The boot is the unit: a boot's runs of a figure are averaged first, and n counts boots. "
		   "A figure is <b>changed</b> (*) when Welch's t-test p (for wall-clock figures with fewer than %d boots "
		   "a side, the larger of it and the permutation test's p, which holds on bimodal and heavy-tailed figures), "
		   "adjusted by Benjamini&ndash;Hochberg "
		   "across all figures of the comparison, gives q &lt; %g, and the change is at least %g%%: at most %g%% of the "
		   "changes so marked are expected to be chance; <b>unchanged</b> when the %g%% interval lies within "
		   "&plusmn;%g%% (two one-sided tests); <b>undecided</b> otherwise: not significant is not unchanged. "
		   "Intervals are %g%% (Welch, on the log of the ratio: never past &minus;100%%) of each change on its own, relative "
		   "to the baseline mean. Figures whose coefficient of variation exceeds %g%% are marked noisy (~). MDC is the "
		   "smallest change the boots at hand can detect at 80%% power. Runs are grouped by workload and its every "
		   "parameter, the layout as built and the tunables that held; <i>what differs</i> names what tells a "
		   "row from its siblings.</p>\n",
		CMP_PERM_BELOW, c->fdr, c->min_effect * 100, c->fdr * 100, (1 - 2 * c->alpha) * 100, c->margin * 100,
		(1 - c->alpha) * 100, c->noisy * 100);
	if (c->dup_runs)
		fprintf(o, "<p>%u run records arrived twice (same boot id and sequence number) and were counted once.</p>\n",
			c->dup_runs);
	cmp_warnings(c, say_warning, o);
	if (c->nseries)
		cmp_series_html(c, o);
	for (size_t m = 0; m < c->nmodes; m++) {
		const char *mode = c->modes[m];
		if (!cmp_mode_has(c, mode, CMP_FIGURE))
			continue;
		fputs("<h2>Summary, mode ", o);
		html_esc(o, mode);
		fprintf(o, "%s</h2>\n", mode_title(mode));
		for (size_t k = 0; k < c->nkernels; k++)
			if (k != c->base) {
				summary_html(o, c, mode, k, ix, &frames);
				forest(o, c, mode, k);
				if (c->rounds)
					confirm_html(o, c, mode, k);
			}
		fputs("<h2>Per workload, mode ", o);
		html_esc(o, mode);
		fputs("</h2>\n", o);
		details(o, c, mode);
	}
	free(ix);
	fputs("<h2>Runs per kernel</h2><table><tr><th class=\"l\">kernel</th><th>boots</th><th>ok</th><th>failed</th>"
	      "<th>timeout</th><th>crashed</th><th>skipped</th></tr>\n", o);
	for (size_t k = 0; k < c->nkernels; k++) {
		const struct cmp_kernel *K = &c->kernels[k];
		fputs("<tr><td class=\"l\">", o);
		html_esc(o, K->label);
		fprintf(o, "</td><td>%u</td><td>%u</td><td>%u</td><td>%u</td><td>%u</td><td>%u</td></tr>\n", K->boots,
			K->st[ST_OK], K->st[ST_FAILED], K->st[ST_TIMEOUT], K->st[ST_CRASHED], K->st[ST_SKIPPED]);
	}
	fputs("</table>\n<h2>Counter traces</h2>\n", o);
	if (!c->ntraces)
		fputs("<p>These records carry no counter traces.</p>\n", o);
	for (size_t t = 0; t < c->ntraces; t++)
		trace_chart(o, c->traces[t].title, c->traces[t].json);
	fputs("<h2>Boots</h2><table><tr><th class=\"l\">boot id</th><th class=\"l\">kernel</th><th class=\"l\">release</th>"
	      "<th class=\"l\">version</th><th class=\"l\">config sha256</th><th class=\"l\">userland id</th><th class=\"l\">mode</th>"
	      "<th class=\"l\">QEMU setup</th><th class=\"l\">machine</th></tr>\n", o);
	for (size_t b = 0; b < c->nboots; b++) {
		const struct cmp_boot *B = &c->boots[b];
		const char *cols[] = { B->id, B->label, B->release, B->version, B->config[0] ? B->config : "(not exposed)",
				       B->userland, B->mode, B->qemu_setup, B->machine };
		fputs("<tr>", o);
		for (size_t i = 0; i < sizeof cols / sizeof *cols; i++) {
			fputs("<td class=\"l\">", o);
			html_esc(o, cols[i]);
			fputs("</td>", o);
		}
		fputs("</tr>\n", o);
	}
	fputs("</table>\n</body></html>\n", o);
	return fclose(o);
}
