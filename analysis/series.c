/*
 * series.c - compare --series K1,K2,...: seed 003's question, a run of
 * kernels each as a percentage of the first. Every kernel is judged
 * against the first with the same test and the same Benjamini-Hochberg
 * family as any comparison (compare.c does that); this file only lays the
 * answer out along the series: per figure, its mean as % of K1 at each
 * kernel, '*' where it changed against K1, and the first kernel along the
 * series at which it did. The report draws it as a line chart per figure.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "compare.h"

/* The first kernel of the series (after the first) at which G changed
 * significantly against the first, or 0 when none did. */
static size_t first_change(const struct cmp *c, const struct cmp_group *G)
{
	for (size_t k = 0; k < c->nkernels && k < G->ncell; k++)
		if (k != c->base && G->cell[k].significant)
			return k;
	return 0;
}

/* G on kernel k as % of the first kernel: 100 + the change compare judged
 * (relative to |K1's mean|, so a negative figure's direction holds), NAN
 * when there is none (no runs a side, K1's mean 0). */
static double pct(const struct cmp *c, const struct cmp_group *G, size_t k)
{
	const struct cmp_cell *a = &G->cell[c->base], *x = &G->cell[k];
	if (k >= G->ncell || !x->n || !a->n || a->s.mean == 0)
		return NAN;
	if (k == c->base)
		return 100;
	return isfinite(x->change) ? 100 * (1 + x->change) : NAN;
}

static const char *better_word(const struct cmp_group *G)
{
	int d = cmp_direction(G->better);
	return d > 0 ? "higher is better" : d < 0 ? "lower is better" : "no direction";
}

/* Why G has no test against K1 at kernel k (not K1), or NULL: it has one */
static const char *untested_why(const struct cmp *c, const struct cmp_group *G, size_t k)
{
	const struct cmp_cell *a = &G->cell[c->base], *x = k < G->ncell ? &G->cell[k] : NULL;
	if (!x || !x->n)
		return "no ok runs there";
	if (isfinite(x->p))
		return NULL;
	if (!a->n)
		return "K1 has no ok runs of it";
	if (a->s.mean == 0)
		return "K1's mean is 0";
	return "one boot a side, or settings that differ";
}

/* The kernels (not K1) at which G has no test against K1, each with why
 * ("K2 (no ok runs there), K4 (one boot a side, ...)") into buf; returns
 * how many. */
static size_t untested(const struct cmp *c, const struct cmp_group *G, char *buf, size_t len)
{
	size_t n = 0, l = 0;
	buf[0] = 0;
	for (size_t k = 0; k < c->nkernels; k++) {
		const char *why = k == c->base ? NULL : untested_why(c, G, k);
		if (!why)
			continue;
		if (l + 80 < len)
			l += (size_t)snprintf(buf + l, len - l, "%sK%zu (%s)", n ? ", " : "", k + 1, why);
		else if (l + 5 < len && !strstr(buf, "..."))
			l += (size_t)snprintf(buf + l, len - l, ", ...");
		n++;
	}
	return n;
}

/* "K2 6.1.192 generic: -16.4% [-18.0%, -15.1%] q=2.5e-08, worse";
 * "-" when it changed nowhere and was tested everywhere, else which
 * kernels could not be tested and why */
static void first_text(const struct cmp *c, const struct cmp_group *G, char *out, size_t len)
{
	size_t k = first_change(c, G);
	const struct cmp_cell *x;
	char iv[64] = "", ks[512];
	if (!k) {
		if (untested(c, G, ks, sizeof ks))
			snprintf(out, len, "not tested at %s", ks);
		else
			snprintf(out, len, "-");
		return;
	}
	x = &G->cell[k];
	if (isfinite(x->lo) && isfinite(x->hi))
		snprintf(iv, sizeof iv, " [%+.1f%%, %+.1f%%]", x->lo * 100, x->hi * 100);
	snprintf(out, len, "K%zu %s: %+.1f%%%s q=%.2g, %s", k + 1, c->kernels[k].label, x->change * 100, iv, x->q,
		 cmp_word(G, x));
}

void cmp_print_series(const struct cmp *c, FILE *o)
{
	for (size_t m = 0; m < c->nmodes; m++) {
		const char *mode = c->modes[m];
		int tw = 24;
		size_t changed = 0, figures = 0, notest = 0;
		if (!cmp_mode_has(c, mode, CMP_FIGURE))
			continue;
		for (size_t g = 0; g < c->ngroups; g++) {
			const struct cmp_group *G = &c->groups[g];
			char t[512];
			if (G->kind != CMP_FIGURE || strcmp(G->mode, mode))
				continue;
			cmp_group_title(G, t, sizeof t);
			if ((int)strlen(t) > tw)
				tw = (int)strlen(t);
			figures++;
			if (first_change(c, G))
				changed++;
			else {
				char ks[512];
				notest += !!untested(c, G, ks, sizeof ks);
			}
		}
		fprintf(o, "\n== series, mode %s: each figure as %% of K1, the first kernel ==\n", mode);
		for (size_t k = 0; k < c->nkernels; k++)
			fprintf(o, "%sK%zu %s%s", k ? ", " : "  ", k + 1, c->kernels[k].label, k == c->base ? " (baseline)" : "");
		fprintf(o, "\n  '*' changed against K1 (q < %g, |change| >= %g%%); %zu of %zu figures changed somewhere "
			   "along the series, %zu more not tested at some kernel; \"first changed\": the first kernel at "
			   "which it did\n", c->fdr, c->min_effect * 100, changed, figures, notest);
		fprintf(o, "%-*s %-10s", tw, "figure", "unit");
		for (size_t k = 0; k < c->nkernels; k++) {
			char h[24];
			snprintf(h, sizeof h, "K%zu", k + 1);
			fprintf(o, " %8s", h);
		}
		fputs("  first changed\n", o);
		for (size_t g = 0; g < c->ngroups; g++) {
			const struct cmp_group *G = &c->groups[g];
			char t[512], f[600];
			if (G->kind != CMP_FIGURE || strcmp(G->mode, mode))
				continue;
			cmp_group_title(G, t, sizeof t);
			fprintf(o, "%-*s %-10s", tw, t, G->unit);
			for (size_t k = 0; k < c->nkernels; k++) {
				double p = pct(c, G, k);
				char v[24];
				const char *star = k != c->base && G->cell[k].significant ? "*" : "";
				if (!isfinite(p))
					snprintf(v, sizeof v, "-");
				else if (fabs(p) >= 1e5)
					snprintf(v, sizeof v, "%.3g%s", p, star);	/* never cut to fit */
				else
					snprintf(v, sizeof v, "%.1f%s", p, star);
				fprintf(o, " %8s", v);
			}
			first_text(c, G, f, sizeof f);
			fprintf(o, "  %s (%s)\n", f, better_word(G));
		}
	}
}

/* One figure along the series: x the kernels in order, y % of K1, each
 * point with its interval; a changed point red (worse), green (better) or
 * orange (no direction), a dashed line at 100%. */
static void series_chart(FILE *o, const struct cmp *c, const struct cmp_group *G)
{
	const int W = 360, H = 170, L = 44, R = 12, T = 10, B = 24;
	size_t nk = c->nkernels, first = first_change(c, G);
	double lo = 100, hi = 100;
	char title[512], f[600];
	for (size_t k = 0; k < nk; k++) {
		const struct cmp_cell *x = &G->cell[k];
		double p = pct(c, G, k);
		if (!isfinite(p))
			continue;
		lo = fmin(lo, p), hi = fmax(hi, p);
		if (k != c->base && isfinite(x->lo) && isfinite(x->hi))
			lo = fmin(lo, 100 * (1 + x->lo)), hi = fmax(hi, 100 * (1 + x->hi));
	}
	if (hi - lo < 1)
		lo -= 0.5, hi += 0.5;
	{
		double pad = (hi - lo) * 0.08;
		lo -= pad, hi += pad;
	}
#define SX(k) (L + (nk > 1 ? (double)(k) * (W - L - R) / (double)(nk - 1) : (W - L - R) / 2.0))
#define SY(v) (T + (hi - (v)) * (H - T - B) / (hi - lo))
	cmp_group_title(G, title, sizeof title);
	fputs("<figure class=\"bc series\"><figcaption>", o);
	html_esc(o, title);
	fputs(" (% of K1; ", o);
	html_esc(o, G->unit);
	fputs(", ", o);
	html_esc(o, better_word(G));
	fputs(")", o);
	html_note(o, ", ", "", cmp_tool_label(c, G));
	fputs(": ", o);
	first_text(c, G, f, sizeof f);
	if (first) {
		fputs("first changed at ", o);
		html_esc(o, f);
	} else if (strcmp(f, "-")) {
		html_esc(o, f);
	} else {
		fputs("no change along the series", o);
	}
	fprintf(o, "</figcaption><svg class=\"chart\" width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\" role=\"img\">", W, H,
		W, H);
	fprintf(o, "<path d=\"M%d %.1fH%d\" stroke=\"#999\" stroke-dasharray=\"4 3\"/>", L, SY(100), W - R);
	fprintf(o, "<text x=\"%d\" y=\"%.1f\" class=\"cl\" text-anchor=\"end\">100%%</text>", L - 4, SY(100) + 3);
	/* the axis's ends, where they do not sit on the 100% label */
	if (SY(100) - SY(hi) > 14)
		fprintf(o, "<text x=\"%d\" y=\"%.1f\" class=\"cl\" text-anchor=\"end\">%.4g%%</text>", L - 4, SY(hi) + 8, hi);
	if (SY(lo) - SY(100) > 14)
		fprintf(o, "<text x=\"%d\" y=\"%.1f\" class=\"cl\" text-anchor=\"end\">%.4g%%</text>", L - 4, SY(lo), lo);
	{
		int pen = 0;
		fputs("<path class=\"line\" fill=\"none\" stroke=\"#4e79a7\" d=\"", o);
		for (size_t k = 0; k < nk; k++) {
			double p = pct(c, G, k);
			if (!isfinite(p))
				continue;
			fprintf(o, "%c%.1f %.1f", pen++ ? 'L' : 'M', SX(k), SY(p));
		}
		fputs("\"/>", o);
	}
	for (size_t k = 0; k < nk; k++) {
		const struct cmp_cell *x = &G->cell[k];
		double p = pct(c, G, k);
		const char *fill = "#4e79a7";
		/* a label every few kernels where they would overlap (32 in 300 px) */
		if (nk <= 12 || k % ((nk + 11) / 12) == 0 || k == nk - 1)
			fprintf(o, "<text x=\"%.1f\" y=\"%d\" class=\"cl\" text-anchor=\"middle\">K%zu</text>", SX(k), H - 8,
				k + 1);
		if (!isfinite(p))
			continue;
		if (k != c->base && isfinite(x->lo) && isfinite(x->hi))
			fprintf(o, "<path class=\"err\" d=\"M%.1f %.1fV%.1f\" stroke=\"#222\"/>", SX(k), SY(100 * (1 + x->lo)),
				SY(100 * (1 + x->hi)));
		if (k != c->base && x->significant) {
			int v = cmp_verdict(G, x);
			fill = v == CMP_WORSE ? "#b00" : v == CMP_BETTER ? "#070" : "#e08000";
		}
		fprintf(o, "<circle class=\"pt%s\" cx=\"%.1f\" cy=\"%.1f\" r=\"4\" fill=\"%s\"><title>K%zu ",
			k != c->base && x->significant ? " sig" : "", SX(k), SY(p), fill, k + 1);
		html_esc(o, c->kernels[k].label);
		fprintf(o, ": %.1f%% of K1, n %zu", p, x->n);
		if (k != c->base && isfinite(x->q))
			fprintf(o, ", q %.2g, %s", x->q, cmp_word(G, x));
		fputs("</title></circle>", o);
	}
#undef SX
#undef SY
	fputs("</svg></figure>\n", o);
}

void cmp_series_html(const struct cmp *c, FILE *o)
{
	for (size_t m = 0; m < c->nmodes; m++) {
		const char *mode = c->modes[m];
		if (!cmp_mode_has(c, mode, CMP_FIGURE))
			continue;
		fputs("<h2>Series, mode ", o);
		html_esc(o, mode);
		fputs("</h2>\n<p>Each figure as % of K1, the first kernel, along the series: ", o);
		for (size_t k = 0; k < c->nkernels; k++) {
			fprintf(o, "%s<b>K%zu</b> ", k ? ", " : "", k + 1);
			html_esc(o, c->kernels[k].label);
		}
		fputs(". A filled red (worse), green (better) or orange point changed against K1 (the same test and "
		      "false discovery rate as the summary); bars are each change's interval.</p>\n<div class=\"charts\">\n", o);
		for (size_t g = 0; g < c->ngroups; g++) {
			const struct cmp_group *G = &c->groups[g];
			if (G->kind == CMP_FIGURE && !strcmp(G->mode, mode))
				series_chart(o, c, G);
		}
		fputs("</div>\n", o);
	}
}
