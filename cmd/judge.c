/*
 * judge.c - bootbench judge: is this commit's figure the known-good
 * endpoint's or the known-bad one's? The decision under each step of a
 * noisy bisect (scripts/bisect-run), from samples, not one median against
 * a threshold.
 */
const char judge_usage[] =
"usage: bootbench judge --good FILE --bad FILE --this FILE [--alpha A]\n"
"                      [--endpoint-alpha E]\n"
"\n"
"Each FILE holds one figure's samples, one number a line (the known-good\n"
"endpoint's, the known-bad endpoint's, the commit under test's). With\n"
"Welch's t-test at level A (default 0.01):\n"
"  the endpoints must differ (p < E, default A), else there is nothing\n"
"             to bisect\n"
"  bad        the commit differs from good (p < A) and lies nearer bad\n"
"             (more than half way from good's mean to bad's)\n"
"  good       it differs from bad (p < A) and lies nearer good\n"
"  undecided  neither yet: boot it again\n"
"Prints one line: the verdict, each mean and n, both p values, where the\n"
"commit lies (0 = good's mean, 1 = bad's) and the side p: the one-sided p of\n"
"its mean against the midpoint between the endpoints' means (at most 0.5;\n"
"small: the nearer side is well supported), for a step that must answer\n"
"undecided at its budget. A driver that looks again after\n"
"each boot gives each look A divided by the most looks it may take, and E\n"
"likewise over the looks at the endpoints (a boot added to each while they\n"
"seem alike is another look). E = 1 takes the endpoints as given (a driver\n"
"whose endpoint boots are spent: the commit is still judged against each).\n"
"exit: 0 good, 1 bad, 3 undecided, 4 the endpoints do not differ (yet),\n"
"100 bad usage or a file that is not numbers, 111 unable to read a file.\n";

#define _GNU_SOURCE
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"
#include "defaults.h"
#include "err.h"
#include "stats.h"

#define JUDGE_MAX_SAMPLES 100000

/* The samples of path as moments; dies on anything but numbers. */
static void read_samples(const char *path, struct moments *m)
{
	FILE *f = fopen(path, "r");
	char line[256];
	unsigned long lineno = 0;
	if (!f)
		die_sys(EXIT_SYSFAIL, "unable to read %s", path);
	while (fgets(line, sizeof line, f)) {
		char *end;
		double v;
		lineno++;
		if (!strchr(line, '\n') && !feof(f))
			die(EXIT_BADINPUT, "%s: line %lu is longer than a number", path, lineno);
		line[strcspn(line, "\r\n")] = 0;
		if (!line[strspn(line, " \t")])
			continue;
		v = strtod(line, &end);
		end += strspn(end, " \t");
		/* an overflow is infinite, refused; an underflow (1e-310) is a number */
		if (end == line || *end || !isfinite(v))
			die(EXIT_BADINPUT, "%s: line %lu is not a finite number: \"%.40s\"", path, lineno, line);
		if (m->n == JUDGE_MAX_SAMPLES)
			die(EXIT_BADINPUT, "%s: more than %d samples", path, JUDGE_MAX_SAMPLES);
		moments_add(m, v);
	}
	if (ferror(f))
		die_sys(EXIT_SYSFAIL, "unable to read %s", path);
	fclose(f);
}

/* Whether the moments of finite samples stayed finite (1e308 and -1e308
 * overflow them). */
static int averaged(const struct sample_stats *s)
{
	return (s->n < 1 || isfinite(s->mean)) && (s->n < 2 || isfinite(s->sd));
}

/* A level in (0, 1); `one` allows 1 too (--endpoint-alpha 1: the
 * endpoints taken as given). */
static double parse_alpha(const char *opt, const char *s, int one)
{
	char *end;
	double a;
	errno = 0;
	a = strtod(s, &end);
	if (end == s || *end || errno || !(a > 0 && (a < 1 || (one && a == 1))))
		die(EXIT_BADINPUT, "bad %s \"%s\" (between 0 and 1, e.g. 0.01)", opt, s);
	return a;
}

/* Which side of the midpoint between the endpoints' means the commit lies
 * on, and how well supported: the one-sided p of its mean against the
 * midpoint (never above 0.5),
 * se^2 = sd_t^2/n_t + (sd_g^2/n_g + sd_b^2/n_b)/4, Student's t at n_t - 1
 * df (conservative). An undecided step that must answer at its budget
 * answers the nearer side; this is the chance of a mean at least that far
 * on that side were the commit's true figure at the midpoint (or beyond it,
 * on the other side: less likely still).
 * NAN under 2 samples of the commit or with no spread at all. */
static double side_p(const struct sample_stats *g, const struct sample_stats *b, const struct sample_stats *t)
{
	double mid = (g->mean + b->mean) / 2, se2;
	if (t->n < 2 || g->n < 2 || b->n < 2)
		return NAN;
	se2 = t->sd * t->sd / t->n + (g->sd * g->sd / g->n + b->sd * b->sd / b->n) / 4;
	if (!(se2 > 0))
		return NAN;
	return 1 - student_t_cdf(fabs(t->mean - mid) / sqrt(se2), (double)t->n - 1);
}

int judge_main(int argc, char **argv)
{
	const char *gf = NULL, *bf = NULL, *tf = NULL;
	double alpha = 0.01, ealpha = 0, pe, pg, pb, pos;
	struct moments mg = {0}, mb = {0}, mt = {0};
	struct sample_stats g, b, t;
	const char *verdict;
	int rc;

	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		if (i + 1 >= argc)
			die(EXIT_BADINPUT, "%s: unknown, or needs a value (see bootbench judge --help)", a);
		if (!strcmp(a, "--good"))
			gf = argv[++i];
		else if (!strcmp(a, "--bad"))
			bf = argv[++i];
		else if (!strcmp(a, "--this"))
			tf = argv[++i];
		else if (!strcmp(a, "--alpha"))
			alpha = parse_alpha(a, argv[++i], 0);
		else if (!strcmp(a, "--endpoint-alpha"))
			ealpha = parse_alpha(a, argv[++i], 1);
		else
			die(EXIT_BADINPUT, "unknown option %s (see bootbench judge --help)", a);
	}
	if (!gf || !bf || !tf) {
		fputs(judge_usage, stderr);
		die(EXIT_BADINPUT, "--good, --bad and --this are all needed");
	}
	if (!ealpha)
		ealpha = alpha;
	read_samples(gf, &mg);
	read_samples(bf, &mb);
	read_samples(tf, &mt);
	moments_stats(&mg, &g);
	moments_stats(&mb, &b);
	moments_stats(&mt, &t);
	if (!averaged(&g) || !averaged(&b) || !averaged(&t))
		die(EXIT_BADINPUT, "samples too large to average (their mean or spread is not finite)");
	pe = welch_t_test(&g, &b, NULL, NULL);
	pg = welch_t_test(&g, &t, NULL, NULL);
	pb = welch_t_test(&b, &t, NULL, NULL);
	pos = g.mean != b.mean ? (t.mean - g.mean) / (b.mean - g.mean) : NAN;
	if (!(pe < ealpha) && ealpha < 1) {
		verdict = "endpoints-alike";
		rc = 4;
	} else if (pg < alpha && pos > 0.5) {
		verdict = "bad";
		rc = 1;
	} else if (pb < alpha && pos < 0.5) {
		verdict = "good";
		rc = 0;
	} else {
		verdict = "undecided";
		rc = 3;
	}
	printf("%s: this %.6g (n=%zu), good %.6g (n=%zu, p=%.2g), bad %.6g (n=%zu, p=%.2g); endpoints p=%.2g; "
	       "position %.2f (0 good, 1 bad); side p=%.2g; alpha %.3g, endpoints %.3g\n",
	       verdict, t.mean, t.n, g.mean, g.n, pg, b.mean, b.n, pb, pe, pos, side_p(&g, &b, &t), alpha, ealpha);
	return rc;
}
