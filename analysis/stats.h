/*
 * stats.h - the little statistics `bootbench compare` needs to say whether
 * kernel B differs from kernel A: sample summaries, Welch's t-test and its
 * confidence interval, the Student t and normal distributions behind them,
 * and the power arithmetic that says how many boots a comparison needs.
 * Dependency-free (libm only). Against scipy (tests/unit/stats.c,
 * tests/host-stats.t): t CDFs and p-values agree to 1e-10 relative for df up
 * to 1e6, 3e-9 beyond, down to p = 1e-12 and far below; t quantiles to 3e-9,
 * which is scipy's own error there; normal quantiles to 1e-15.
 *
 * Conventions: differences and t are B minus A, so a positive t or CI means
 * B is larger (slower, for a time). Anything that cannot be computed (too few
 * runs, a probability outside (0,1), NaN input) gives NAN, never a guess.
 */
#ifndef BB_STATS_H
#define BB_STATS_H

#include <stddef.h>

struct sample_stats {
	size_t n;
	double mean, sd, cov;	/* sd: sample (n-1); cov = sd/|mean| (NAN if mean==0 or n<2) */
	double min, max;
};

/* n == 0: everything NAN. n == 1: mean, min, max set; sd and cov NAN. */
void stats_describe(const double *x, size_t n, struct sample_stats *out);

/*
 * Welch's unequal-variance t-test, two-sided; returns p in [0,1], and, when
 * the pointers are not NULL, t = (mean_b - mean_a) / se (scipy's
 * ttest_ind(b, a, equal_var=False)) and the Welch-Satterthwaite df.
 * Edge cases:
 *   n < 2 in either group: p, t and df are NAN (no variance estimate).
 *   both variances zero: p = 1 if the means are equal, else 0; t is 0 or
 *     +-INFINITY; df is NAN (0/0).
 *   one variance zero: the ordinary formula, df = n-1 of the other group.
 */
double welch_t_test(const struct sample_stats *a, const struct sample_stats *b, double *t, double *df);

/* Student t distribution with df > 0 degrees of freedom (df may be
 * fractional, as Welch's is, or INFINITY for the normal). */
double student_t_cdf(double t, double df);
/* Two-sided tail P(|T| >= |t|), without the cancellation of 2*(1-cdf). */
double student_t_p2(double t, double df);
/* Quantile: the t with student_t_cdf(t, df) == p, for 0 < p < 1. */
double student_t_quantile(double p, double df);
/* Two-sided critical value, the quantile of 1 - alpha/2 (computed from
 * alpha directly, so tiny alphas keep their precision): 0.05, 10 -> 2.228. */
double student_t_crit(double alpha, double df);

/* Standard normal CDF and quantile (Wichura's AS241, ~1e-16 relative). */
double normal_cdf(double z);
double normal_quantile(double p);

/* 1 - alpha confidence interval of mean_b - mean_a (Welch). NAN bounds when
 * either n < 2; [diff, diff] when both variances are zero. */
void welch_ci(const struct sample_stats *a, const struct sample_stats *b, double alpha, double *lo, double *hi);

/* 1 - alpha interval of the relative change mean_b / mean_a - 1, on the
 * log scale where a change cannot pass -100%: log(mean_b / mean_a) +- t *
 * sqrt(cov_a^2/n_a + cov_b^2/n_b) (the delta method), Welch-Satterthwaite
 * df from the same two terms, then back to a ratio. Returns 1 when done so;
 * when the means are not both above 0 (no ratio to take the log of), the
 * Welch interval of the difference over |mean_a| instead, and 0; NAN
 * bounds (and 0) when either n < 2. */
int ratio_ci(const struct sample_stats *a, const struct sample_stats *b, double alpha, double *lo, double *hi);

/* Two-sided permutation test of mean(b) - mean(a): the share of the ways
 * to split a and b's values into groups of their sizes whose difference of
 * means is at least as far from 0 as the observed one. Exact while there
 * are at most PERM_EXACT_MAX ways; past that PERM_DRAWS random splits
 * (seeded: the same values give the same p), (hits + 1) / (draws + 1).
 * It holds its level whatever the values' distribution, bimodal and
 * heavy-tailed included; its smallest p is 2 / C(na + nb, na) for equal
 * sizes (0.1 at 3 + 3). NAN when either n < 1. */
#define PERM_EXACT_MAX 200000
#define PERM_DRAWS 20000
double perm_test(const double *a, size_t na, const double *b, size_t nb);
/* The smallest p perm_test can give at these sizes. */
double perm_min_p(size_t na, size_t nb);

/* Rounds that stop: the boots a side at which a look of confirm_look's
 * rule (Bonferroni over `looks`, FDR level fdr, TOST at alpha, +-margin,
 * the floor min_effect) would decide a figure whose true change and
 * boot-to-boot spread are what a and b show: changed once
 * |change| / se >= z(1 - fdr/looks/2) (and, below perm_below boots a
 * side where the permutation test joins Welch, once it can reach
 * fdr/looks at all: 0, never), unchanged once |change| +
 * z(1 - alpha/looks) se < margin, se = sqrt((cov_a^2 + cov_b^2) / n),
 * with Student's t at 2n - 2 df for z. At the observed change: "about", a
 * median, not a promise. 0 when it cannot be estimated (fewer than 2 boots a side, a
 * mean not above 0); SIZE_MAX when no number of boots would do (past
 * 10^6). */
size_t boots_to_decide(const struct sample_stats *a, const struct sample_stats *b, unsigned looks, double fdr,
		       double alpha, double margin, double min_effect, size_t perm_below);

/* The pooled coefficient of variation of two samples, for the two functions
 * below: sqrt(((na-1) cov_a^2 + (nb-1) cov_b^2) / (na + nb - 2)), i.e. the
 * relative variances pooled like variances are. NAN if either cov is. */
double stats_pooled_cov(const struct sample_stats *a, const struct sample_stats *b);

/*
 * Minimum detectable change, as a fraction of the baseline mean, for a
 * two-sample comparison with n runs per side, at significance alpha
 * (two-sided) and the given power (e.g. 0.8), for a coefficient of variation
 * cov: (z_{1-alpha/2} + z_{power}) * sqrt(2/n) * cov. NAN for n == 0 or an
 * alpha or power outside (0,1).
 */
/* Benjamini-Hochberg: q[i] for p[i], i < n (q_(i) = min over j >= i of
 * n p_(j) / j, at most 1), in the order given. NAN p's are not counted
 * and get NAN q's. */
void bh_adjust(const double *p, double *q, size_t n);

/*
 * Shares of samples across boots (perf's profile, compare's why): a boot
 * gives a share s_i of its n_i samples. Counting noise alone makes s_i a
 * binomial draw, variance p(1-p)/n_i; boots differ by more than that (a
 * boot lays memory out differently, a profile aliases with a loop), and by
 * more the larger the share: measured and simulated, the excess grows as
 * p^2 (a relative jitter of each path's weight between boots), so the
 * model is var(s_i) = p(1-p)/n_i + alpha p^2, alpha the squared relative
 * spread between boots (the negative-binomial form). With two or three
 * boots a side one function's own alpha says little, so alpha is
 * estimated from every function of the list at once (method of moments:
 * the summed excess of the boots' sample variance over the binomial's,
 * over the summed p^2; shared dispersion, as edgeR and DESeq share it
 * across genes for the same few-replicates problem); a function whose own
 * estimate is larger keeps its own, on its own degrees of freedom.
 */
struct qb_side {
	double p;		/* the pooled share: sum s_i n_i / sum n_i */
	double n;		/* sum n_i */
	unsigned m;		/* boots */
	double v;		/* the boots' shares' sample variance (m >= 2) */
	double bin;		/* what binomial noise alone gives it: p(1-p) mean(1/n_i) */
};
/* One side of one function: its boots' shares (fractions) and samples. */
void qb_side(const double *share, const double *n, size_t boots, struct qb_side *out);
/* Add a function's two sides to the shared estimate: excess variance,
 * p^2, and degrees of freedom (boots - 1 a side). */
struct qb_pool { double excess, p2; unsigned df; };
void qb_pool(const struct qb_side *a, const struct qb_side *b, struct qb_pool *pool);
/* Two-sided p of b's share against a's: z over each side's binomial
 * variance plus alpha p^2 over its boots (alpha the pool's, or the
 * function's own where larger, each on its own df; Student's t). NAN when
 * a side has fewer than 2 boots, both shares are 0, or nothing was pooled. */
double qb_test(const struct qb_side *a, const struct qb_side *b, const struct qb_pool *pool);

double min_detectable_change(double cov, size_t n, double alpha, double power);

/* Runs per side to detect a relative change `effect` (e.g. 0.05):
 * ceil(2 * ((z_{1-alpha/2} + z_{power}) * cov / effect)^2), at least 2.
 * 0 when it cannot be computed (NaN or negative cov, effect <= 0, alpha or
 * power outside (0,1), or a count that does not fit). */
size_t runs_needed(double cov, double effect, double alpha, double power);

/* Running moments (Welford), mergeable (Chan et al.): a figure's runs of
 * one round, summed round by round into the looks of a confirmation. */
struct moments {
	size_t n;
	double mean, m2, min, max;
};
void moments_add(struct moments *m, double v);
void moments_merge(struct moments *into, const struct moments *m);
void moments_stats(const struct moments *m, struct sample_stats *out);

/*
 * Confirmation rounds (docs/compare.md): after each interleaved round of
 * boots, one look at everything measured so far, at most `looks` looks.
 * The error of looking repeatedly is bounded by a fixed maximum with a
 * Bonferroni correction: each look spends 1/looks of the error rates, so
 * over all looks together a change is declared by chance with probability
 * at most fdr (for one figure: alpha-spending with equal parts), and an
 * equivalence at most alpha.
 *   CHANGED    q < fdr/looks (q: p adjusted across the figures of the look,
 *              or p for a single figure) and |change| >= min_effect
 *   UNCHANGED  the 1 - 2 alpha/looks interval of the change lies within
 *              +-margin of the baseline mean: two one-sided tests (TOST),
 *              each at alpha/looks
 *   UNDECIDED  neither: another round, while the budget lasts
 * a is the baseline, b the kernel; change, lo and hi (may be NULL) get the
 * change and the TOST interval as fractions of a's mean.
 */
enum { CONFIRM_NONE, CONFIRM_UNDECIDED, CONFIRM_CHANGED, CONFIRM_UNCHANGED };
int confirm_look(const struct sample_stats *a, const struct sample_stats *b, double q, unsigned looks, double fdr,
		 double alpha, double margin, double min_effect, double *change, double *lo, double *hi);

#endif
