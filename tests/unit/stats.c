/*
 * stats.c - analysis/stats against reference values from scipy 1.10 (Debian 12's
 * python3-scipy), hard-coded with the command that printed them, so anyone
 * can regenerate a table: sample pairs through Welch's test and its CI, the
 * t CDF and two-sided tail, critical values, normal quantiles, the power
 * formulas, and the edge cases (n < 2, zero variances, bad probabilities).
 * Values agree to 1e-6 relative (1e-12 absolute where the reference is 0);
 * the largest relative error seen is printed as a diagnostic.
 *
 * With arguments it is the driver of tests/host-stats.t instead, which
 * checks a few hundred seeded random cases against scipy on the fly:
 *   stats.t --driver   reads lines   welch NA NB A... B...   cdf T DF
 *                                    p2 T DF   crit ALPHA DF   z P
 *                      and prints one line of results for each.
 */
#include <math.h>
#include <stdint.h>

#include "stats.h"
#include "tap.h"

static double max_rel;

/* 1e-6 relative, 1e-12 absolute when the reference is 0; NaN and the
 * infinities must match exactly. */
static int close_to(double got, double want)
{
	double err;

	if (isnan(want) || isnan(got))
		return isnan(want) && isnan(got);
	if (isinf(want) || isinf(got))
		return got == want;
	err = fabs(got - want);
	if (want == 0)
		return err <= 1e-12;
	err /= fabs(want);
	if (err > max_rel)
		max_rel = err;
	return err <= 1e-6;
}

#define is_num(got, want, ...) do { double g_ = (got), w_ = (want); \
	if (!ok(close_to(g_, w_), __VA_ARGS__)) printf("#   got %.17g, want %.17g\n", g_, w_); } while (0)

/*
 * Sample pairs: A then B, and what scipy says, in the order of the ref[]
 * fields. Each row was printed by this command, with A and B replaced by the
 * row's two lists (t is B - A: ttest_ind(b, a); df and the 95% CI from the
 * Welch-Satterthwaite formula and scipy's t.ppf, as scipy 1.10's ttest_ind
 * reports neither):
 *
 * /usr/bin/python3 -W ignore -c 'import numpy as np,scipy.stats as s;a=np.array(A);b=np.array(B);r=s.ttest_ind(b,a,equal_var=False);va,vb=a.var(ddof=1)/len(a),b.var(ddof=1)/len(b);df=(va+vb)**2/(va**2/(len(a)-1)+vb**2/(len(b)-1));q=s.t.ppf(0.975,df)*(va+vb)**0.5;d=b.mean()-a.mean();print(*map(repr,[a.mean(),a.std(ddof=1),b.mean(),b.std(ddof=1),r.statistic,df,r.pvalue,d-q,d+q]))'
 */
enum { MEAN_A, SD_A, MEAN_B, SD_B, T, DF, P, LO, HI, NREF };
static const struct {
	const char *name;
	size_t na, nb;
	double a[20], b[20];
	double ref[NREF];
} pairs[] = {
	{ "n=3 boots, B slower", 3, 3, { 4.512, 4.498, 4.53 },
	  { 4.601, 4.587, 4.622 },
	  { 4.513333333333333, 0.01604161255402133, 4.603333333333333, 0.017616280348965143, 6.5426914575808315, 3.9654334829379008, 0.0029072506265767654, 0.05167610132617528, 0.12832389867382443 } },
	{ "n=3 boots, no change", 3, 3, { 4.512, 4.498, 4.53 },
	  { 4.505, 4.527, 4.496 },
	  { 4.513333333333333, 0.01604161255402133, 4.509333333333333, 0.015947831618540822, -0.30628593653406033, 3.9998624966366836, 0.7746677334971768, -0.040260009571338566, 0.03226000957133945 } },
	{ "n=5", 5, 5, { 1.21, 1.19, 1.25, 1.22, 1.2 },
	  { 1.24, 1.27, 1.22, 1.26, 1.25 },
	  { 1.214, 0.023021728866442697, 1.2479999999999998, 0.01923538406167136, 2.5342103744997453, 7.7549066539013864, 0.035893954863333535, 0.0028906790103690114, 0.0651093209896306 } },
	{ "n=20", 20, 20, { 11.9683, 11.9223, 12.0224, 11.7315, 12.0427, 11.9517, 11.8911, 12.0148, 11.7073, 11.9762, 11.8903, 12.0615, 12.0664, 11.8608, 11.86, 11.7795, 11.8818, 12.0479, 12.1286, 12.0343 },
	  { 12.087, 11.9065, 12.1192, 11.9169, 12.1279, 12.0395, 12.2512, 12.1205, 12.3538, 11.9984, 12.2312, 12.125, 12.4193, 11.6876, 12.2549, 11.8753, 11.9063, 12.0763, 11.7779, 11.8411 },
	  { 11.941970000000001, 0.11620377337835641, 12.055789999999998, 0.19304760225613282, 2.259056175041595, 31.170887773337615, 0.031017746214598498, 0.01108424134281892, 0.2165557586571749 } },
	{ "variances 1e5 apart, n 4 and 12", 4, 12, { 2.0, 2.001, 1.999, 2.0 },
	  { 1.9967, 2.1065, 1.1578, 1.7758, 2.2125, 2.2208, 1.9026, 2.2975, 1.992, 3.0041, 1.8145, 2.3355 },
	  { 2.0, 0.0008164965809276362, 2.068025, 0.4330173230316018, 0.5441912900407462, 11.000234658320553, 0.5971675450560611, -0.20710183238703112, 0.3431518323870311 } },
	{ "wide n=3 against tight n=8 (df near 2)", 3, 8, { 10.0, 12.0, 14.5 },
	  { 20.01, 20.02, 19.99, 20.0, 20.03, 19.98, 20.0, 20.01 },
	  { 12.166666666666666, 2.254624876411447, 20.005000000000003, 0.016035674514745912, 6.021517350762558, 2.0000758787341955, 0.02648630895885272, 2.2376851470591195, 13.438981519607553 } },
	{ "p around 1e-8", 10, 10, { 4.9902, 5.0171, 4.9806, 5.0175, 4.9761, 4.9727, 4.989, 5.0018, 4.9696, 4.9899 },
	  { 5.0569, 5.0563, 5.0745, 5.0727, 5.0637, 5.0753, 5.0758, 5.0348, 5.1007, 5.056 },
	  { 4.99045, 0.017081325085211384, 5.066669999999999, 0.017495716936185037, 9.857457602087885, 17.98966750703274, 1.1195056401792802e-08, 0.05997454633314766, 0.09246545366685091 } },
	{ "identical samples", 4, 4, { 3.1, 3.3, 3.2, 3.25 },
	  { 3.1, 3.3, 3.2, 3.25 },
	  { 3.2125000000000004, 0.08539125638299654, 3.2125000000000004, 0.08539125638299654, 0.0, 6.0, 1.0, -0.147746339439813, 0.147746339439813 } },
	{ "one variance zero", 3, 4, { 7.0, 7.0, 7.0 },
	  { 7.1, 7.3, 7.2, 7.25 },
	  { 7.0, 0.0, 7.2124999999999995, 0.08539125638299674, 4.977090372037503, 3.0, 0.015587358121496291, 0.07662345581017485, 0.3483765441898241 } },
	{ "B faster (t < 0), n 6 and 3", 6, 3, { 9.81, 9.95, 9.78, 10.02, 9.88, 9.9 },
	  { 9.41, 9.6, 9.52 },
	  { 9.89, 0.08854377448471447, 9.51, 0.0953939201416943, -5.768179036829731, 3.811307451637072, 0.00519402590556513, -0.5665358096491594, -0.19346419035084217 } },
};

/* /usr/bin/python3 -c "from scipy.stats import t;[print('{ %r, %r, %r },'%(x,d,t.cdf(x,d))) for d in (1,2.5,10,1000) for x in (-1e6,-30,-2.5,-0.1,0,0.7,3,12)]" */
static const struct { double t, df, want; } cdfs[] = {
	{ -1000000.0, 1, 3.1830988618368455e-07 },
	{ -30, 1, 0.010606402405535424 },
	{ -2.5, 1, 0.12111894159084335 },
	{ -0.1, 1, 0.4682744825694464 },
	{ 0, 1, 0.5 },
	{ 0.7, 1, 0.6944001122142147 },
	{ 3, 1, 0.8975836176504333 },
	{ 12, 1, 0.9735353239404101 },
	{ -1000000.0, 2.5, 7.193397190814231e-16 },
	{ -30, 2.5, 0.00014553235457869776 },
	{ -2.5, 2.5, 0.052284981539077686 },
	{ -0.1, 2.5, 0.4639032720312448 },
	{ 0, 2.5, 0.5 },
	{ 0.7, 2.5, 0.7282975284052259 },
	{ 3, 2.5, 0.9637119522254841 },
	{ 12, 2.5, 0.9985818924849609 },
	{ -1000000.0, 10, 1.2304687499436141e-56 },
	{ -30, 10, 1.9808961710156598e-11 },
	{ -2.5, 10, 0.015723422118304388 },
	{ -0.1, 10, 0.46116035928220417 },
	{ 0, 10, 0.5 },
	{ 0.7, 10, 0.7500562149135578 },
	{ 3, 10, 0.9933281724887152 },
	{ 12, 10, 0.9999998539295587 },
	{ -1000000.0, 1000, 0.0 },	/* 1e-5000 underflows on both sides */
	{ -30, 1000, 7.687343722021657e-142 },
	{ -2.5, 1000, 0.006289283900545397 },
	{ -0.1, 1000, 0.4601821845118021 },
	{ 0, 1000, 0.5 },
	{ 0.7, 1000, 0.7579549430036987 },
	{ 3, 1000, 0.9986166454778809 },
	{ 12, 1000, 1.0 },
};

/* Two-sided tails too small for 2*(1-cdf):
 * /usr/bin/python3 -c "from scipy.stats import t;[print('{ %r, %r, %r },'%(x,d,2*t.sf(x,d))) for d,x in ((1,3e11),(2.5,900.0),(10,25.0),(1000,7.3),(4,1e-9))]" */
static const struct { double t, df, want; } tails[] = {
	{ 300000000000.0, 1, 2.1220659078919377e-12 },
	{ 900.0, 2.5, 5.920473749604802e-08 },
	{ 25.0, 10, 2.3993927600633416e-10 },
	{ 7.3, 1000, 5.861620177399947e-13 },
	{ 1e-09, 4, 0.9999999992499999 },
};

/* The quantile of 1 - alpha/2, as t.isf(alpha/2) to keep tiny alphas exact.
 * scipy 1.10's t quantiles are good to only ~1e-9 (its own t.sf at its
 * isf(5e-13, 20) gives 5.0000002e-13; at ours, 5.00000000000003e-13): those
 * and the CIs built on them are where the largest differences come from.
 * /usr/bin/python3 -c "from scipy.stats import t;[print('{ %r, %r, %r },'%(a,d,t.isf(a/2,d))) for a,d in ((0.05,10),(0.05,1),(0.05,2),(0.05,2.5),(0.05,3.9654334829379008),(0.01,30),(0.1,1000),(1e-6,5),(1e-12,1),(1e-12,20),(0.5,7))]" */
static const struct { double alpha, df, want; } crits[] = {
	{ 0.05, 10, 2.2281388519649385 },
	{ 0.05, 1, 12.706204736432102 },
	{ 0.05, 2, 4.3026527299112765 },
	{ 0.05, 2.5, 3.574654842011878 },
	{ 0.05, 3.9654334829379008, 2.786016049715843 },	/* the n=3 pair's df */
	{ 0.01, 30, 2.7499956535670305 },
	{ 0.1, 1000, 1.6463788172854645 },
	{ 1e-06, 5, 28.47847346300838 },
	{ 1e-12, 1, 636619772367.5814 },
	{ 1e-12, 20, 15.728920161535754 },
	{ 0.5, 7, 0.7111417780816957 },
};

/* Every branch of AS241 (|q| <= 0.425, r <= 5, r > 5) and its edges:
 * /usr/bin/python3 -c "from scipy.stats import norm;[print('{ %r, %r },'%(p,norm.ppf(p))) for p in (0.5,0.975,0.8,1e-6,0.075,0.925,0.02425,0.3,1e-12,1e-300,1-1e-10)]" */
static const struct { double p, want; } zs[] = {
	{ 0.5, 0.0 },
	{ 0.975, 1.959963984540054 },
	{ 0.8, 0.8416212335729143 },
	{ 1e-06, -4.753424308822899 },
	{ 0.075, -1.4395314709384563 },
	{ 0.925, 1.4395314709384563 },
	{ 0.02425, -1.972961051311885 },
	{ 0.3, -0.5244005127080409 },
	{ 1e-12, -7.034483825301131 },
	{ 1e-300, -37.0470962993612 },
	{ 0.9999999999, 6.361340889697422 },
};

/* /usr/bin/python3 -c "from scipy.stats import norm;z=lambda a,w:norm.ppf(1-a/2)+norm.ppf(w);[print('{ %r, %d, %r, %r, %r },'%(c,n,a,w,z(a,w)*(2/n)**0.5*c)) for c,n,a,w in ((0.02,3,0.05,0.8),(0.01,10,0.05,0.8),(0.05,20,0.01,0.9),(0.003,100,0.05,0.95))]" */
static const struct { double cov; size_t n; double alpha, power, want; } mdcs[] = {
	{ 0.02, 3, 0.05, 0.8, 0.04574969503533793 },
	{ 0.01, 10, 0.05, 0.8, 0.012529069984918345 },
	{ 0.05, 20, 0.01, 0.9, 0.060990546745476326 },
	{ 0.003, 100, 0.05, 0.95, 0.001529394586815811 },
};

/* /usr/bin/python3 -c "import math;from scipy.stats import norm;z=lambda a,w:norm.ppf(1-a/2)+norm.ppf(w);[print('{ %r, %r, %r, %r, %d },'%(c,e,a,w,max(2,math.ceil(2*(z(a,w)*c/e)**2)))) for c,e,a,w in ((0.02,0.05,0.05,0.8),(0.01,0.01,0.05,0.8),(0.05,0.02,0.05,0.8),(0.03,0.01,0.01,0.9),(0.001,0.05,0.05,0.8),(0.0,0.05,0.05,0.8))]" */
static const struct { double cov, effect, alpha, power; long long want; } runs[] = {
	{ 0.02, 0.05, 0.05, 0.8, 3 },
	{ 0.01, 0.01, 0.05, 0.8, 16 },
	{ 0.05, 0.02, 0.05, 0.8, 99 },
	{ 0.03, 0.01, 0.01, 0.9, 268 },
	{ 0.001, 0.05, 0.05, 0.8, 2 },
	{ 0.0, 0.05, 0.05, 0.8, 2 },
};

#define N(a) (sizeof a / sizeof *a)

static void check_pair(size_t i)
{
	struct sample_stats a, b;
	const double *r = pairs[i].ref;
	const char *name = pairs[i].name;
	double t, df, p, lo, hi;

	stats_describe(pairs[i].a, pairs[i].na, &a);
	stats_describe(pairs[i].b, pairs[i].nb, &b);
	ok(a.n == pairs[i].na && close_to(a.mean, r[MEAN_A]) && close_to(a.sd, r[SD_A]),
	   "%s: A's mean %.17g and sd %.17g", name, a.mean, a.sd);
	ok(b.n == pairs[i].nb && close_to(b.mean, r[MEAN_B]) && close_to(b.sd, r[SD_B]),
	   "%s: B's mean %.17g and sd %.17g", name, b.mean, b.sd);
	p = welch_t_test(&a, &b, &t, &df);
	is_num(t, r[T], "%s: t", name);
	is_num(df, r[DF], "%s: df", name);
	is_num(p, r[P], "%s: p", name);
	welch_ci(&a, &b, 0.05, &lo, &hi);
	ok(close_to(lo, r[LO]) && close_to(hi, r[HI]), "%s: 95%% CI [%.17g, %.17g]", name, lo, hi);
}

/* The test of shares across boots (perf's profile): binomial noise plus
 * alpha p^2 between boots, alpha shared by a list. */
static void check_qb(void)
{
	double sh[] = { 0.10, 0.12 }, n[] = { 1000, 1000 }, sh2[] = { 0.1, 0.5 }, n2[] = { 1000, 0 };
	struct qb_side s, a = { .p = 0.10, .n = 2000, .m = 2, .v = 0, .bin = 0 },
			  b = { .p = 0.12, .n = 2000, .m = 2, .v = 0, .bin = 0 };
	struct qb_pool pool = { .excess = 0.0001, .p2 = 1, .df = 8 }, none = { 0, 0, 0 }, mine = { 0, 0, 0 };
	double bin = 0.10 * 0.90 / 2000 + 0.12 * 0.88 / 2000, z;
	qb_side(sh, n, 2, &s);
	ok(fabs(s.p - 0.11) < 1e-12 && s.m == 2 && fabs(s.v - 0.0002) < 1e-12 && fabs(s.bin - 0.11 * 0.89 / 1000) < 1e-15 &&
	   s.n == 2000, "qb_side: pooled share 0.11 of 2000 samples, the boots' variance 0.0002 against 9.79e-05 binomial");
	qb_side(sh2, n2, 2, &s);
	ok(s.p == 0.1 && s.m == 1 && s.v == 0, "qb_side: a boot without samples is not one");
	/* alpha = 0.0001: var = binomial + alpha p^2 / boots a side */
	z = 0.02 / sqrt(bin + 0.0001 * (0.01 + 0.0144) / 2);
	is_num(qb_test(&a, &b, &pool), student_t_p2(z, 8), "qb_test: binomial noise plus the pool's alpha p^2, on its 8 df");
	/* the pool: excess over binomial, over p^2, df per side */
	a.v = 0.0004;
	a.bin = 0.0001;
	qb_pool(&a, &b, &mine);
	ok(fabs(mine.excess - 0.0003) < 1e-15 && fabs(mine.p2 - (0.01 + 0.0144)) < 1e-15 && mine.df == 2,
	   "qb_pool: excess 0.0003 over p^2 0.0244 on 2 df");
	/* a's own alpha (0.0003 / 0.0244 = 0.0123) is larger than the pool's: its own, on its 2 df */
	z = 0.02 / sqrt(bin + 0.0003 / 0.0244 * (0.01 + 0.0144) / 2);
	is_num(qb_test(&a, &b, &pool), student_t_p2(z, 2), "qb_test: a function noisier than the rest keeps its own alpha and df");
	a.v = a.bin = 0;
	pool.excess = -0.01;
	is_num(qb_test(&a, &b, &pool), student_t_p2(0.02 / sqrt(bin), 8), "qb_test: a negative excess is alpha 0, binomial noise");
	ok(isnan(qb_test(&a, &b, &none)), "qb_test: nothing pooled is untested");
	a.m = 1;
	ok(isnan(qb_test(&a, &b, &pool)), "qb_test: one boot a side is untested");
	a.m = 2;
	a.p = b.p = 0;
	ok(isnan(qb_test(&a, &b, &pool)), "qb_test: a share of 0 on both sides is untested");
}

static void check_edges(void)
{
	static const double one[] = { 4.5 }, flat[] = { 7, 7, 7 }, flat2[] = { 7.5, 7.5 },
		three[] = { 4.512, 4.498, 4.530 }, zero_mean[] = { -1, 1 };
	struct sample_stats s0, s1, f, f2, s3, z;
	double t, df, p, lo, hi;

	stats_describe(one, 0, &s0);
	ok(s0.n == 0 && isnan(s0.mean) && isnan(s0.sd) && isnan(s0.cov) && isnan(s0.min) && isnan(s0.max),
	   "n=0: everything NAN");
	stats_describe(one, 1, &s1);
	ok(s1.mean == 4.5 && s1.min == 4.5 && s1.max == 4.5 && isnan(s1.sd) && isnan(s1.cov),
	   "n=1: mean, min, max; sd and cov NAN");
	stats_describe(three, 3, &s3);
	ok(s3.min == 4.498 && s3.max == 4.530, "min and max");
	/* 0.01604161255402133 / 4.513333333333333, the n=3 pair's A */
	is_num(s3.cov, 0.0035542716146280645, "cov = sd/|mean|");
	stats_describe(zero_mean, 2, &z);
	ok(isnan(z.cov) && z.sd > 0, "mean 0: cov NAN");

	p = welch_t_test(&s1, &s3, &t, &df);
	ok(isnan(p) && isnan(t) && isnan(df), "n<2 in A: p, t, df NAN");
	p = welch_t_test(&s3, &s1, NULL, NULL);
	ok(isnan(p), "n<2 in B: NAN, NULL out-params accepted");
	welch_ci(&s3, &s1, 0.05, &lo, &hi);
	ok(isnan(lo) && isnan(hi), "n<2: CI NAN");

	stats_describe(flat, 3, &f);
	stats_describe(flat2, 2, &f2);
	p = welch_t_test(&f, &f, &t, &df);
	ok(p == 1 && t == 0 && isnan(df), "both variances zero, equal means: p 1, t 0, df NAN");
	p = welch_t_test(&f, &f2, &t, &df);
	ok(p == 0 && t == INFINITY, "both variances zero, B larger: p 0, t +inf");
	p = welch_t_test(&f2, &f, &t, NULL);
	ok(p == 0 && t == -INFINITY, "both variances zero, B smaller: p 0, t -inf");
	welch_ci(&f, &f2, 0.05, &lo, &hi);
	ok(lo == 0.5 && hi == 0.5, "both variances zero: CI [diff, diff]");
	welch_ci(&s3, &s3, 1.5, &lo, &hi);
	ok(isnan(lo) && isnan(hi), "CI with alpha outside (0,1): NAN");

	/* the n=3 and n=6/3 pairs' CoVs pooled:
	 * /usr/bin/python3 -c "import numpy as np;a=np.array([4.512,4.498,4.530]);b=np.array([4.601,4.587,4.622]);ca,cb=a.std(ddof=1)/a.mean(),b.std(ddof=1)/b.mean();print(repr(((2*ca**2+2*cb**2)/4)**0.5))"
	 * /usr/bin/python3 -c "import numpy as np;a=np.array([9.81,9.95,9.78,10.02,9.88,9.90]);b=np.array([9.41,9.60,9.52]);ca,cb=a.std(ddof=1)/a.mean(),b.std(ddof=1)/b.mean();print(repr(((5*ca**2+2*cb**2)/7)**0.5))" */
	stats_describe(pairs[0].b, pairs[0].nb, &f);
	is_num(stats_pooled_cov(&s3, &f), 0.0036930780666782383, "pooled CoV, n 3 and 3");
	{
		const size_t last = N(pairs) - 1;
		struct sample_stats a, b;
		stats_describe(pairs[last].a, pairs[last].na, &a);
		stats_describe(pairs[last].b, pairs[last].nb, &b);
		is_num(stats_pooled_cov(&a, &b), 0.00927366917422514, "pooled CoV, n 6 and 3");
	}
	ok(isnan(stats_pooled_cov(&s1, &s3)), "pooled CoV with n<2: NAN");

	ok(isnan(student_t_cdf(NAN, 3)) && isnan(student_t_cdf(1, 0)) && isnan(student_t_cdf(1, -2)),
	   "t CDF: NaN t or df <= 0 give NAN");
	ok(student_t_cdf(-INFINITY, 3) == 0 && student_t_cdf(INFINITY, 3) == 1, "t CDF at +-inf");
	/* /usr/bin/python3 -c "from scipy.stats import norm;print(repr(norm.cdf(1.5)))" */
	is_num(student_t_cdf(1.5, INFINITY), 0.9331927987311419, "t CDF, df inf: the normal");
	ok(isnan(student_t_crit(0, 5)) && isnan(student_t_crit(1, 5)) && isnan(student_t_crit(0.05, 0)),
	   "crit: alpha outside (0,1) or df 0: NAN");
	is_num(student_t_quantile(0.025, 10), -2.2281388519649385, "quantile of 0.025 is minus crit(0.05)");
	ok(normal_quantile(0) == -INFINITY && normal_quantile(1) == INFINITY &&
	   isnan(normal_quantile(-0.1)) && isnan(normal_quantile(NAN)), "normal quantile at 0, 1 and outside");

	ok(isnan(min_detectable_change(0.02, 0, 0.05, 0.8)) && isnan(min_detectable_change(0.02, 3, 0, 0.8)) &&
	   isnan(min_detectable_change(0.02, 3, 0.05, 1)), "MDC: n 0, alpha 0, power 1: NAN");
	ok(runs_needed(NAN, 0.05, 0.05, 0.8) == 0 && runs_needed(0.02, 0, 0.05, 0.8) == 0 &&
	   runs_needed(0.02, 0.05, 0.05, 0) == 0 && runs_needed(1e300, 1e-300, 0.05, 0.8) == 0,
	   "runs_needed: NaN cov, effect 0, power 0, overflow: 0");
}

/* tests/host-stats.t's side: one result line per request line. */
static int driver(void)
{
	char op[16];
	double x[2 * 1000];

	while (scanf("%15s", op) == 1) {
		if (!strcmp(op, "welch")) {
			size_t na, nb;
			struct sample_stats a, b;
			double t, df, p, lo, hi;

			if (scanf("%zu %zu", &na, &nb) != 2 || na > 1000 || nb > 1000)
				return 100;
			for (size_t i = 0; i < na + nb; i++)
				if (scanf("%lf", &x[i]) != 1)
					return 100;
			stats_describe(x, na, &a);
			stats_describe(x + na, nb, &b);
			p = welch_t_test(&a, &b, &t, &df);
			welch_ci(&a, &b, 0.05, &lo, &hi);
			printf("%.17g %.17g %.17g %.17g %.17g\n", t, df, p, lo, hi);
		} else {
			double u, v = 0;
			int want = strcmp(op, "z") ? 2 : 1;

			if (scanf("%lf", &u) != 1 || (want == 2 && scanf("%lf", &v) != 1))
				return 100;
			if (!strcmp(op, "cdf"))
				printf("%.17g\n", student_t_cdf(u, v));
			else if (!strcmp(op, "p2"))
				printf("%.17g\n", student_t_p2(u, v));
			else if (!strcmp(op, "crit"))
				printf("%.17g\n", student_t_crit(u, v));
			else if (!strcmp(op, "z"))
				printf("%.17g\n", normal_quantile(u));
			else
				return 100;
		}
	}
	return 0;
}

/* The permutation test against splits counted by hand, and the log-scale
 * interval against scipy (t.ppf on the Welch-Satterthwaite df of the two
 * relative variances: -0.9340016173997225, -0.8484811353550054). */
static void check_perm_ratio(void)
{
	static const double a3[] = { 1, 2, 3 }, b3[] = { 4, 5, 6 }, a2[] = { 1, 2 }, b3b[] = { 3, 4, 5 };
	static const double same[] = { 7, 7, 7 };
	static const double x[] = { 100, 110, 90 }, y[] = { 10, 12, 8 };
	double big_a[40], big_b[40], lo, hi;
	struct sample_stats sa, sb;
	is_num(perm_test(a3, 3, b3, 3), 0.1, "perm: 1 2 3 vs 4 5 6: 2 of 20 splits as extreme");
	is_num(perm_min_p(3, 3), 0.1, "perm: the smallest p at 3 + 3 is 0.1");
	is_num(perm_test(a2, 2, b3b, 3), 0.2, "perm: 1 2 vs 3 4 5: 2 of 10 splits");
	is_num(perm_test(same, 3, same, 3), 1, "perm: identical values: p 1");
	ok(isnan(perm_test(a3, 0, b3, 3)), "perm: an empty side: NAN");
	for (int i = 0; i < 40; i++) {
		big_a[i] = 100 + i % 7;
		big_b[i] = 100 + i % 7 + 0.01 * (i % 3);
	}
	{
		double p = perm_test(big_a, 40, big_b, 40);
		ok(p > 0.05 && p <= 1, "perm: 40 + 40 nearly equal (random splits): p %g not small", p);
		for (int i = 0; i < 40; i++)
			big_b[i] = big_a[i] + 3;
		p = perm_test(big_a, 40, big_b, 40);
		ok(p < 0.001 && p >= 1.0 / (PERM_DRAWS + 1), "perm: 40 + 40 shifted by 3 (random splits): p %g at its floor", p);
	}
	stats_describe(x, 3, &sa);
	stats_describe(y, 3, &sb);
	is_int(ratio_ci(&sa, &sb, 0.05, &lo, &hi), 1, "ratio_ci: positive means, on the log scale");
	is_num(lo, -0.9340016173997225, "ratio_ci: -90%% at CoV 10%%/20%%, low end above -100%%");
	is_num(hi, -0.8484811353550054, "ratio_ci: high end");
	stats_describe(same, 3, &sa);
	stats_describe(same, 3, &sb);
	ratio_ci(&sa, &sb, 0.05, &lo, &hi);
	ok(lo == 0 && hi == 0, "ratio_ci: no spread, no change: [0, 0]");
	{
		static const double neg[] = { -5, -6, -4 };
		stats_describe(neg, 3, &sb);
		is_int(ratio_ci(&sa, &sb, 0.05, &lo, &hi), 0, "ratio_ci: a mean below 0: Welch's difference instead");
	}
}

/* Rounds that stop: boots a side to decide, by hand from the quantiles
 * this file checks above. +10% at CoV 5% (s2 = 0.005), looks 6:
 * t(1 - 0.05/12, 8 df) = 3.479 gives 0.005 (3.479 / 0.1)^2 = 6.05 > 5,
 * t(.., 10 df) = 3.277 gives 5.37 <= 6: 6. +30%: 3, and 5 where the
 * permutation test must reach 0.05/6 (2/252 at 5 + 5). No change at CoV
 * 1% (s2 = 2e-4): t(1 - 0.05/6, 6 df) = 3.287 gives 5.40 > 4, 8 df: 3.016,
 * 4.55 <= 5: 5. +10% at CoV 30%, looks 12: 151. */
static void check_boots_to_decide(void)
{
	struct sample_stats a = { .n = 3, .mean = 100, .sd = 5 }, b = { .n = 3, .mean = 110, .sd = 5.5 };
	is_int(boots_to_decide(&a, &b, 6, 0.05, 0.05, 0.02, 0.005, 0), 6, "boots_to_decide: +10%% at CoV 5%%: 6 a side");
	b.mean = 130, b.sd = 6.5;
	is_int(boots_to_decide(&a, &b, 6, 0.05, 0.05, 0.02, 0.005, 0), 3, "boots_to_decide: +30%% at CoV 5%%: 3 a side");
	is_int(boots_to_decide(&a, &b, 6, 0.05, 0.05, 0.02, 0.005, 30), 5,
	       "boots_to_decide: ... 5 where the permutation test must reach q < 0.05/6");
	a.sd = 1, b.mean = 100, b.sd = 1;
	is_int(boots_to_decide(&a, &b, 6, 0.05, 0.05, 0.02, 0.005, 0), 5,
	       "boots_to_decide: no change at CoV 1%%: unchanged (TOST within 2%%) at 5 a side");
	a.sd = 30, b.mean = 110, b.sd = 33;
	is_int(boots_to_decide(&a, &b, 12, 0.05, 0.05, 0.02, 0.005, 0), 151, "boots_to_decide: +10%% at CoV 30%%: 151 a side");
	b.mean = 103;
	ok(boots_to_decide(&a, &b, 12, 0.05, 0.05, 0.02, 0.5, 0) == SIZE_MAX,
	   "boots_to_decide: +3%% with a floor of 50%% and a margin of 2%%: no number of boots");
	a.n = 1;
	is_int(boots_to_decide(&a, &b, 12, 0.05, 0.05, 0.02, 0.005, 0), 0, "boots_to_decide: 1 boot a side: 0, cannot say");
	a.n = 3, a.mean = 0;
	is_int(boots_to_decide(&a, &b, 12, 0.05, 0.05, 0.02, 0.005, 0), 0, "boots_to_decide: a baseline mean of 0: 0");
}

int main(int argc, char **argv)
{
	if (argc == 2 && !strcmp(argv[1], "--driver"))
		return driver();
	if (argc > 1) {
		fprintf(stderr, "usage: %s [--driver]\n", argv[0]);
		return 100;
	}

	tap_plan(N(pairs) * 6 + N(cdfs) + N(tails) + N(crits) + N(zs) + N(mdcs) + N(runs) + 24 + 12 + 8 + 9);
	for (size_t i = 0; i < N(pairs); i++)
		check_pair(i);
	for (size_t i = 0; i < N(cdfs); i++)
		is_num(student_t_cdf(cdfs[i].t, cdfs[i].df), cdfs[i].want, "t CDF(%g, df %g)", cdfs[i].t, cdfs[i].df);
	for (size_t i = 0; i < N(tails); i++)
		is_num(student_t_p2(tails[i].t, tails[i].df), tails[i].want, "two-sided tail P(|T| > %g), df %g",
		       tails[i].t, tails[i].df);
	for (size_t i = 0; i < N(crits); i++)
		is_num(student_t_crit(crits[i].alpha, crits[i].df), crits[i].want, "crit(alpha %g, df %g)",
		       crits[i].alpha, crits[i].df);
	for (size_t i = 0; i < N(zs); i++)
		is_num(normal_quantile(zs[i].p), zs[i].want, "normal quantile(%g)", zs[i].p);
	for (size_t i = 0; i < N(mdcs); i++)
		is_num(min_detectable_change(mdcs[i].cov, mdcs[i].n, mdcs[i].alpha, mdcs[i].power), mdcs[i].want,
		       "MDC(cov %g, n %zu, alpha %g, power %g)", mdcs[i].cov, mdcs[i].n, mdcs[i].alpha, mdcs[i].power);
	for (size_t i = 0; i < N(runs); i++)
		is_int(runs_needed(runs[i].cov, runs[i].effect, runs[i].alpha, runs[i].power), runs[i].want,
		       "runs_needed(cov %g, effect %g, alpha %g, power %g)",
		       runs[i].cov, runs[i].effect, runs[i].alpha, runs[i].power);
	check_edges();
	check_qb();
	check_perm_ratio();
	check_boots_to_decide();
	printf("# largest relative error against scipy: %.3g\n", max_rel);
	return tap_done();
}
