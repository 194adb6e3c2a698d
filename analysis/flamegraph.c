/*
 * flamegraph.c - the report's differential flame graphs: perf's call paths
 * of one experiment (flame.c: where the CPUs were, or where the tasks
 * blocked), kernel k against the baseline, drawn as SVG by us (no script,
 * nothing fetched): each frame as wide as its share of kernel k's samples
 * (or time blocked), the processes on the bottom row and the leaves on
 * top; red where its share grew against the baseline, blue where it
 * shrank, deeper the more it moved, but only where the move is
 * significant (q below the comparison's FDR); grey otherwise. Hovering a
 * frame shows its path's shares on both kernels, the change and q.
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "compare.h"
#include "xio.h"

#define FG_W 1000		/* px: all of kernel k's samples */
#define FG_FRAME 17		/* px a frame */
#define FG_MIN_W 0.4		/* px: narrower frames are not drawn */
#define FG_MAX_FRAMES 6000	/* frames drawn at most, depth first (later subtrees lose their frames first) */
#define FG_REPORT_FRAMES 24000	/* and in one report (a frame is about 300 bytes of HTML) */
#define FG_TOP 4		/* px above the frames */
#define FG_DEPTH 70		/* rows at most: the root, the process, 64 frames */

static void fill_of(double d, double q, double fdr, double dmax, char *buf, size_t len)
{
	double t;
	int v;
	if (!isfinite(q) || q >= fdr || d == 0) {
		snprintf(buf, len, "#dcd8cf");
		return;
	}
	t = fabs(d) / dmax;
	if (t > 1)
		t = 1;
	v = (int)lround(225 - 165 * t);
	if (d > 0)
		snprintf(buf, len, "rgb(255,%d,%d)", v, v);
	else
		snprintf(buf, len, "rgb(%d,%d,255)", v, v);
}

/* The frame's name cut to what fits in w px (about 6.6 px a character at 11 px). */
static void label_in(FILE *o, const char *name, double w)
{
	size_t fit = w > 12 ? (size_t)((w - 6) / 6.6) : 0, len = strlen(name);
	char buf[160];
	if (fit < 3)
		return;
	if (len <= fit) {
		html_esc(o, name);
		return;
	}
	if (fit > sizeof buf - 1)
		fit = sizeof buf - 1;
	/* never cut a UTF-8 character: back up to its first byte */
	fit -= 2;
	while (fit && ((unsigned char)name[fit] & 0xc0) == 0x80)
		fit--;
	memcpy(buf, name, fit);
	memcpy(buf + fit, "..", 3);
	html_esc(o, buf);
}

int flame_svg(FILE *o, const struct cmp *c, size_t x, int t, size_t k, size_t *spent)
{
	struct flame_diff *d;
	size_t n = flame_diff(c, x, t, k, &d), drawn = 0, maxdepth = 0, skipped = 0, over = 0, base_only = 0;
	double *fx, *fw, *cur, dmax = 0.5;
	unsigned ra, rb;
	double sa = flame_events(c, x, t, c->base, &ra), sb = flame_events(c, x, t, k, &rb);
	int H;
	size_t left = *spent < FG_REPORT_FRAMES ? FG_REPORT_FRAMES - *spent : 0;
	size_t cap = left < FG_MAX_FRAMES ? left : FG_MAX_FRAMES;
	if (!n)
		return 0;
	if (!cap) {
		fputs("<p class=\"ch\">No flame graph here: the report has drawn its share of frames already; "
		      "<code>bootbench compare --why</code> prints this experiment's call tree.</p>\n", o);
		free(d);
		return 1;
	}
	fx = xcalloc(n, sizeof *fx);
	fw = xcalloc(n, sizeof *fw);
	cur = xcalloc(n, sizeof *cur);
	/* where each frame goes: beside its earlier siblings, within its parent */
	for (size_t i = 0; i < n; i++) {
		size_t p = d[i].parent;
		fw[i] = d[i].b / 100 * FG_W;
		fx[i] = p == SIZE_MAX || p >= i ? 0 : cur[p];
		if (p != SIZE_MAX && p < i)
			cur[p] += fw[i];
		cur[i] = fx[i];
		if (d[i].b <= 0 && d[i].a > 0 && d[i].depth >= 1 && (p == SIZE_MAX || p >= i || d[p].b > 0))
			base_only++;	/* the baseline's alone: width 0 here */
		if (fw[i] >= FG_MIN_W && d[i].depth <= FG_DEPTH) {
			if (d[i].depth > maxdepth)
				maxdepth = d[i].depth;
			if (isfinite(d[i].q) && d[i].q < c->fdr && fabs(d[i].b - d[i].a) > dmax)
				dmax = fabs(d[i].b - d[i].a);
		}
	}
	H = FG_TOP + (int)(maxdepth + 1) * FG_FRAME + 4;
	fputs(t == FLAME_OFF ? "<p class=\"ch\">Differential flame graph of where the tasks blocked (off-CPU: a task's "
		"stack as it left the CPU, weighted by the time until it ran again): " :
		"<p class=\"ch\">Differential flame graph of perf's call paths: ", o);
	html_esc(o, c->kernels[k].label);
	fputs(" against ", o);
	html_esc(o, c->kernels[c->base].label);
	if (t == FLAME_OFF)
		fprintf(o, " (%u vs %u runs, %.1f vs %.1f ms blocked and %.0f vs %.0f blocks a run). A frame is as wide as "
			   "its share of the first kernel's time blocked", rb, ra, flame_weight(c, x, t, k) / 1000,
			flame_weight(c, x, t, c->base) / 1000, sb, sa);
	else
		fprintf(o, " (%u vs %u runs, %.0f vs %.0f samples a run). A frame is as wide as its share of the first "
			   "kernel's samples", rb, ra, sb, sa);
	fprintf(o, "; red: its share grew, blue: it shrank (deeper: more), where q &lt; %.2g; grey: no "
		   "significant move. Hover a frame for both shares and q.", c->fdr);
	if (base_only)
		fprintf(o, " %zu path%s the baseline alone took %s no width here: <code>compare --why</code> lists them.",
			base_only, base_only == 1 ? "" : "s", base_only == 1 ? "has" : "have");
	fputs("</p>\n", o);
	fprintf(o, "<svg class=\"chart flame\" width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\" role=\"img\" "
		   "font-family=\"monospace\" font-size=\"11\">", FG_W, H, FG_W, H);
	for (size_t i = 0; i < n; i++) {
		char fill[32];
		int y;
		if (fw[i] < FG_MIN_W || d[i].depth > FG_DEPTH) {
			skipped += d[i].b > 0;
			continue;
		}
		if (drawn == cap) {
			over++;
			continue;
		}
		drawn++;
		y = H - 4 - (int)(d[i].depth + 1) * FG_FRAME;
		fill_of(d[i].b - d[i].a, d[i].q, c->fdr, dmax, fill, sizeof fill);
		fputs("<g class=\"fr\"><title>", o);
		html_esc(o, d[i].name);
		fputc('\n', o);
		html_esc(o, c->kernels[c->base].label);
		fprintf(o, ": %.2f%%, ", d[i].a);
		html_esc(o, c->kernels[k].label);
		fprintf(o, ": %.2f%%, change %+.2fpp, ", d[i].b, d[i].b - d[i].a);
		if (isfinite(d[i].q))
			fprintf(o, "q=%.2g", d[i].q);
		else
			fputs("untested", o);
		fprintf(o, "</title><rect x=\"%.1f\" y=\"%d\" width=\"%.1f\" height=\"%d\" fill=\"%s\" stroke=\"#fff\" "
			   "stroke-width=\"0.5\"/>", fx[i], y, fw[i], FG_FRAME - 1, fill);
		if (fw[i] > 20) {
			fprintf(o, "<text x=\"%.1f\" y=\"%d\">", fx[i] + 3, y + FG_FRAME - 5);
			label_in(o, d[i].name, fw[i]);
			fputs("</text>", o);
		}
		fputs("</g>\n", o);
	}
	fputs("</svg>\n", o);
	*spent += drawn;
	if (skipped)
		fprintf(o, "<p class=\"ch\">%zu narrower or deeper frames are not drawn.</p>\n", skipped);
	if (over)
		fprintf(o, "<p class=\"ch\">%zu more frames are not drawn: past %d a graph or %d a report "
			   "(<code>bootbench compare --why</code> prints the call tree).</p>\n", over, FG_MAX_FRAMES,
			FG_REPORT_FRAMES);
	free(fx);
	free(fw);
	free(cur);
	free(d);
	return 1;
}
