/*
 * report.c - the HTML report of a comparison: one self-contained file (no
 * network, no scripts): the comparison tables, a bar chart with error bars
 * per figure, counter traces of chosen runs, and the boot identities.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "compare.h"
#include "json.h"
#include "xio.h"

static const char *const palette[] = { "#4e79a7", "#e15759", "#59a14f", "#f28e2b", "#76b7b2", "#b07aa1", "#edc948", "#9c755f" };

static void esc(FILE *o, const char *s)
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
	const int W = 360, H = 170, top = 28, bottom = 30, left = 10;
	double maxv = 0;
	size_t nk = c->nkernels, shown = 0;
	for (size_t k = 0; k < nk; k++) {
		const struct cmp_cell *x = &G->cell[k];
		double hi = x->n ? x->s.mean + (isfinite(x->s.sd) ? x->s.sd : 0) : 0;
		if (hi > maxv)
			maxv = hi;
	}
	if (maxv <= 0)
		maxv = 1;
	fprintf(o, "<svg class=\"chart\" width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\" role=\"img\">", W, H, W, H);
	fprintf(o, "<title>");
	esc(o, G->metric);
	fprintf(o, "</title><text x=\"4\" y=\"14\" class=\"ct\">");
	esc(o, G->workload);
	fputs(" / ", o);
	esc(o, G->layout);
	fputs(": ", o);
	esc(o, G->metric);
	fprintf(o, " (");
	esc(o, G->unit);
	fprintf(o, ", %s is better)</text>", G->better);
	for (size_t k = 0; k < nk; k++) {
		const struct cmp_cell *x = &G->cell[k];
		double bw = (double)(W - 2 * left) / nk, x0 = left + k * bw + bw * 0.15, w = bw * 0.7;
		double scale = (H - top - bottom) / maxv;
		if (!x->n)
			continue;
		shown++;
		double h = x->s.mean * scale, y = H - bottom - h;
		fprintf(o, "<rect class=\"bar\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"%s\"><title>",
			x0, y, w, h > 0 ? h : 0, palette[k % 8]);
		esc(o, c->kernels[k].label);
		fprintf(o, ": mean %.6g, sd %.3g, n %zu</title></rect>", x->s.mean, x->s.sd, x->n);
		if (x->n >= 2 && isfinite(x->s.sd)) {
			double cx = x0 + w / 2, y1 = H - bottom - (x->s.mean + x->s.sd) * scale,
			       y2 = H - bottom - fmax(x->s.mean - x->s.sd, 0) * scale;
			fprintf(o, "<path class=\"err\" d=\"M%.1f %.1fV%.1fM%.1f %.1fH%.1fM%.1f %.1fH%.1f\" stroke=\"#222\"/>",
				cx, y1, y2, cx - 6, y1, cx + 6, cx - 6, y2, cx + 6);
		}
		fprintf(o, "<text x=\"%.1f\" y=\"%d\" class=\"cl\" text-anchor=\"middle\">", x0 + w / 2, H - bottom + 14);
		esc(o, c->kernels[k].label);
		fprintf(o, "</text><text x=\"%.1f\" y=\"%d\" class=\"cl\" text-anchor=\"middle\">%.4g%s</text>", x0 + w / 2,
			H - bottom + 26, x->s.mean,
			k != c->base && x->significant ? (x->worse ? " (worse*)" : " (better*)") : "");
	}
	fputs("</svg>\n", o);
	(void)shown;
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
	fprintf(o, "<svg class=\"trace\" width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\"><text x=\"4\" y=\"14\" class=\"ct\">", W, H, W, H);
	esc(o, title);
	fputs("</text>", o);
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
		esc(o, tr->keys[i]);
		fprintf(o, " (max %.4g)</text>", mx);
		si++;
	}
	fprintf(o, "<text x=\"%d\" y=\"%d\" class=\"cl\">each series scaled to its own max</text>", W - R + 6, H - 8);
	fprintf(o, "<text x=\"%d\" y=\"%d\" class=\"cl\">0</text><text x=\"%d\" y=\"%d\" class=\"cl\">%.1f s</text></svg>\n", L,
		H - 8, W - R - 30, H - 8, tmax);
	json_free(v);
}

int cmp_write_html(const struct cmp *c, const char *path)
{
	FILE *o = fopen(path, "w");
	if (!o)
		return -1;
	fputs("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>bootbench comparison</title>\n"
	      "<style>body{font:14px/1.4 sans-serif;margin:1.5em;color:#222}table{border-collapse:collapse;margin:.5em 0 1.5em}"
	      "td,th{border:1px solid #ccc;padding:2px 6px;text-align:right;white-space:nowrap}th{background:#f2f2f2}"
	      "td.l,th.l{text-align:left}.worse{color:#b00}.better{color:#070}.sig{font-weight:bold}.noisy{color:#a60}"
	      ".charts{display:flex;flex-wrap:wrap;gap:8px}.chart,.trace{border:1px solid #ddd;background:#fff}"
	      ".ct{font-size:11px;font-weight:bold}.cl{font-size:10px}</style></head><body>\n", o);
	fprintf(o, "<h1>bootbench: is kernel B different from kernel A?</h1>\n<p>%zu kernels, %zu boots, %u runs. Baseline: <b>",
		c->nkernels, c->nboots, c->nruns);
	esc(o, c->kernels[c->base].label);
	fprintf(o, "</b>. A change is marked significant (*) when Welch's t-test gives p &lt; %g and the change is at least %g%%; "
		   "figures whose coefficient of variation exceeds %g%% are marked noisy (~). MDC is the smallest change the runs "
		   "at hand can detect at 80%% power.</p>\n", c->alpha, c->min_effect * 100, c->noisy * 100);
	for (size_t m = 0; m < c->nmodes; m++) {
		const char *mode = c->modes[m];
		fprintf(o, "<h2>Mode: ");
		esc(o, mode);
		fprintf(o, "%s</h2>\n<table><tr><th class=\"l\">workload</th><th class=\"l\">layout</th><th class=\"l\">tunables</th>"
			   "<th class=\"l\">metric</th><th>unit</th>",
			!strcmp(mode, "deterministic") ? " (figures are instruction-derived, not real time)" : " (wall-clock time)");
		for (size_t k = 0; k < c->nkernels; k++) {
			fputs("<th>", o);
			esc(o, c->kernels[k].label);
			fputs(k == c->base ? " (baseline)</th>" : "</th><th>change</th><th>p</th>", o);
		}
		fputs("<th>MDC</th><th>n for 5%</th></tr>\n", o);
		for (size_t g = 0; g < c->ngroups; g++) {
			const struct cmp_group *G = &c->groups[g];
			if (strcmp(G->mode, mode))
				continue;
			fputs("<tr><td class=\"l\">", o);
			esc(o, G->workload);
			fputs("</td><td class=\"l\">", o);
			esc(o, G->layout);
			fputs("</td><td class=\"l\">", o);
			esc(o, G->tunables);
			fputs("</td><td class=\"l\">", o);
			esc(o, G->metric);
			fputs("</td><td>", o);
			esc(o, G->unit);
			fputs("</td>", o);
			for (size_t k = 0; k < c->nkernels; k++) {
				const struct cmp_cell *x = &G->cell[k];
				if (x->n)
					fprintf(o, "<td class=\"%s\">%.5g &plusmn;%.1f%% (n=%zu)</td>", x->noisy ? "noisy" : "", x->s.mean,
						isfinite(x->s.cov) ? x->s.cov * 100 : 0, x->n);
				else
					fputs("<td>-</td>", o);
				if (k == c->base)
					continue;
				if (isfinite(x->change))
					fprintf(o, "<td class=\"%s\">%+.1f%% %s%s</td>",
						x->significant ? (x->worse ? "worse sig" : "better sig") : "", x->change * 100,
						x->worse ? "worse" : "better", x->significant ? " *" : "");
				else
					fputs("<td>-</td>", o);
				if (isfinite(x->p))
					fprintf(o, "<td>%.2g</td>", x->p);
				else
					fputs("<td>-</td>", o);
			}
			if (isfinite(G->mdc))
				fprintf(o, "<td>%.1f%%</td><td>%zu</td></tr>\n", G->mdc * 100, G->n5);
			else
				fputs("<td>-</td><td>-</td></tr>\n", o);
		}
		fputs("</table>\n<div class=\"charts\">\n", o);
		for (size_t g = 0; g < c->ngroups; g++)
			if (!strcmp(c->groups[g].mode, mode))
				bar_chart(o, c, &c->groups[g]);
		fputs("</div>\n", o);
	}
	fputs("<h2>Runs per kernel</h2><table><tr><th class=\"l\">kernel</th><th>boots</th><th>ok</th><th>failed</th>"
	      "<th>timeout</th><th>crashed</th><th>skipped</th></tr>\n", o);
	for (size_t k = 0; k < c->nkernels; k++) {
		const struct cmp_kernel *K = &c->kernels[k];
		fputs("<tr><td class=\"l\">", o);
		esc(o, K->label);
		fprintf(o, "</td><td>%u</td><td>%u</td><td>%u</td><td>%u</td><td>%u</td><td>%u</td></tr>\n", K->boots,
			K->st[ST_OK], K->st[ST_FAILED], K->st[ST_TIMEOUT], K->st[ST_CRASHED], K->st[ST_SKIPPED]);
	}
	fputs("</table>\n<h2>Counter traces</h2>\n", o);
	if (!c->ntraces)
		fputs("<p>These records carry no counter traces.</p>\n", o);
	for (size_t t = 0; t < c->ntraces && t < 8; t++)
		trace_chart(o, c->traces[t].title, c->traces[t].json);
	fputs("<h2>Boots</h2><table><tr><th class=\"l\">boot id</th><th class=\"l\">kernel</th><th class=\"l\">release</th>"
	      "<th class=\"l\">version</th><th class=\"l\">config sha256</th><th class=\"l\">userland id</th><th class=\"l\">mode</th></tr>\n", o);
	for (size_t b = 0; b < c->nboots; b++) {
		const struct cmp_boot *B = &c->boots[b];
		const char *cols[] = { B->id, B->label, B->release, B->version, B->config[0] ? B->config : "(not exposed)",
				       B->userland, B->mode };
		fputs("<tr>", o);
		for (size_t i = 0; i < sizeof cols / sizeof *cols; i++) {
			fputs("<td class=\"l\">", o);
			esc(o, cols[i]);
			fputs("</td>", o);
		}
		fputs("</tr>\n", o);
	}
	fputs("</table>\n</body></html>\n", o);
	return fclose(o);
}
