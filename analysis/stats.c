/*
 * stats.c - sample summaries, Welch's t-test, the Student t and normal
 * distributions, and power arithmetic for `bootbench compare` (see stats.h).
 *
 * Everything rests on the regularized incomplete beta function I_x(a,b),
 * evaluated with the continued fraction of Numerical Recipes (6.4) by the
 * modified Lentz method, on whichever side of the mean of Beta(a,b) it
 * converges fast. The t tail is I_x(df/2, 1/2) with x = df/(df+t^2); x and
 * 1-x are both formed directly, so neither small t nor large t loses digits
 * to cancellation, which is what keeps p-values of 1e-12 accurate.
 * Quantiles are found by a safeguarded Newton iteration on log(tail), which
 * is close to linear in the heavy tails where plain Newton crawls.
 */
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "rng.h"
#include "stats.h"
#include "xio.h"

#define PI 3.14159265358979323846
#define SQRT1_2 0.70710678118654752440

/* The continued fraction for I_x(a,b) * B(a,b) * a / (x^a (1-x)^b). */
static double beta_cf(double a, double b, double x)
{
	const double tiny = 1e-300, eps = 1e-15;
	double qab = a + b, qap = a + 1, qam = a - 1;
	double c = 1, d = 1 - qab * x / qap, h;

	if (fabs(d) < tiny)
		d = tiny;
	d = 1 / d;
	h = d;
	/* On the side ibeta() picks it needs O(sqrt(max(a,b))) terms at worst;
	 * for the t (b = 1/2) a few dozen at any df. The cap stops a runaway. */
	for (int m = 1; m <= 100000; m++) {
		double m2 = 2.0 * m, aa, del;

		aa = m * (b - m) * x / ((qam + m2) * (a + m2));
		d = 1 + aa * d;
		if (fabs(d) < tiny)
			d = tiny;
		c = 1 + aa / c;
		if (fabs(c) < tiny)
			c = tiny;
		d = 1 / d;
		h *= d * c;
		aa = -(a + m) * (qab + m) * x / ((a + m2) * (qap + m2));
		d = 1 + aa * d;
		if (fabs(d) < tiny)
			d = tiny;
		c = 1 + aa / c;
		if (fabs(c) < tiny)
			c = tiny;
		d = 1 / d;
		del = d * c;
		h *= del;
		if (fabs(del - 1) < eps)
			break;
	}
	return h;
}

/* The Stirling series remainder lgamma(x) - ((x-0.5) log x - x + log(2 pi)/2),
 * to 1e-20 for x >= 1000. */
static double stirling_corr(double x)
{
	double r = 1 / (x * x);
	return (1.0 / 12 - r * (1.0 / 360 - r / 1260)) / x;
}

/* log B(a,b). lgamma(a+b) - lgamma(a) - lgamma(b) cancels badly when one
 * argument is large (df/2 of a big Welch df, with b = 1/2): lgamma(5e5) is
 * 6e6, its last bit 1e-9. Past 1000 the difference is formed from Stirling's
 * series instead, where nothing large is subtracted. */
static double lbeta(double a, double b)
{
	double big = fmax(a, b), small = fmin(a, b);

	if (big < 1000)
		return lgamma(a) + lgamma(b) - lgamma(a + b);
	/* lgamma(big + small) - lgamma(big) */
	return lgamma(small) - (small * log(big) + (big + small - 0.5) * log1p(small / big) - small
				+ stirling_corr(big + small) - stirling_corr(big));
}

/* Regularized incomplete beta I_x(a,b); the caller passes y = 1 - x computed
 * on its own, so that whichever of x and y is small keeps its precision.
 */
static double ibeta(double a, double b, double x, double y)
{
	double lx, ly, front;

	if (isnan(x) || isnan(y) || !(a > 0) || !(b > 0))
		return NAN;
	if (x <= 0)
		return 0;
	if (y <= 0)
		return 1;
	lx = x > 0.5 ? log1p(-y) : log(x);
	ly = y > 0.5 ? log1p(-x) : log(y);
	front = exp(a * lx + b * ly - lbeta(a, b));
	if (x < (a + 1) / (a + b + 2))
		return front * beta_cf(a, b, x) / a;
	return 1 - front * beta_cf(b, a, y) / b;
}

/* P(T > |t|), one-sided, for finite df > 0. */
static double t_tail(double t, double df)
{
	double x, y;

	t = fabs(t);
	if (t == 0)
		return 0.5;
	/* The fraction below loses about df/t^2 of its precision when x is
	 * within a few 1/df of 1 (it subtracts numbers near 1 in every term):
	 * ~1e-9 relative at df 1e8. Far past any Welch df of real samples, the
	 * first term of the expansion in 1/df (Abramowitz & Stegun 26.7.5)
	 * takes over; what it leaves out is of order t^8/df^2, ~1e-9 relative
	 * at t = 12 (p 1e-33) and df 1e8. */
	if (df > 1e8)
		return 0.5 * erfc(t * SQRT1_2)
		       + exp(-0.5 * t * t) / sqrt(2 * PI) * (t * t + 1) * t / (4 * df);
	if (t > 1) {	/* by df/t^2, so that t^2 cannot overflow */
		double r = df / t / t;
		x = r / (1 + r);
		y = 1 / (1 + r);
	} else {
		double t2 = t * t;
		x = df / (df + t2);
		y = t2 / (df + t2);
	}
	return 0.5 * ibeta(df / 2, 0.5, x, y);
}

static double t_pdf(double t, double df)
{
	return exp(lgamma((df + 1) / 2) - lgamma(df / 2) - 0.5 * log(df * PI)
		   - (df + 1) / 2 * log1p(t / df * t));
}

double normal_cdf(double z)
{
	return 0.5 * erfc(-z * SQRT1_2);
}

double student_t_cdf(double t, double df)
{
	double tail;

	if (isnan(t) || isnan(df) || !(df > 0))
		return NAN;
	if (isinf(df))
		return normal_cdf(t);
	tail = t_tail(t, df);
	return t < 0 ? tail : 1 - tail;
}

double student_t_p2(double t, double df)
{
	double p;

	if (isnan(t) || isnan(df) || !(df > 0))
		return NAN;
	if (isinf(df))
		p = erfc(fabs(t) * SQRT1_2);
	else
		p = 2 * t_tail(t, df);
	return p > 1 ? 1 : p;
}

/* The t >= 0 with P(T > t) = q, for 0 < q <= 0.5. */
static double t_upper(double q, double df)
{
	double lo = 0, hi, t, lq = log(q);

	if (q == 0.5)
		return 0;
	if (isinf(df))
		return -normal_quantile(q);
	/* Bracket: tail(lo) > q >= tail(hi). The normal quantile is a lower
	 * bound for t's, so the search starts there and only grows. */
	hi = fmax(1, -normal_quantile(q));
	while (t_tail(hi, df) > q) {
		lo = hi;
		hi *= 4;
		if (isinf(hi))
			return INFINITY;
	}
	t = hi;
	for (int i = 0; i < 400; i++) {
		double tail = t_tail(t, df), pdf = t_pdf(t, df), next;

		if (tail == q)
			return t;
		if (tail > q)
			lo = t;
		else
			hi = t;
		/* Newton on f(t) = log tail(t) - log q, f'(t) = -pdf/tail */
		next = t + (log(tail) - lq) * tail / pdf;
		if (!(next > lo && next < hi))	/* also catches NaN and inf */
			next = lo > 0 && hi > 4 * lo ? sqrt(lo * hi) : (lo + hi) / 2;
		if (fabs(next - t) <= 4 * DBL_EPSILON * t || hi - lo <= 4 * DBL_EPSILON * hi)
			return next;
		t = next;
	}
	return t;
}

double student_t_quantile(double p, double df)
{
	if (isnan(p) || isnan(df) || !(df > 0) || !(p > 0 && p < 1))
		return NAN;
	return p < 0.5 ? -t_upper(p, df) : t_upper(1 - p, df);
}

double student_t_crit(double alpha, double df)
{
	if (isnan(alpha) || isnan(df) || !(df > 0) || !(alpha > 0 && alpha < 1))
		return NAN;
	return t_upper(alpha / 2, df);
}

/* Wichura, "Algorithm AS 241: The percentage points of the normal
 * distribution", Applied Statistics 37 (1988), PPND16. */
double normal_quantile(double p)
{
	double q = p - 0.5, r, v;

	if (isnan(p) || p < 0 || p > 1)
		return NAN;
	if (p == 0)
		return -INFINITY;
	if (p == 1)
		return INFINITY;
	if (fabs(q) <= 0.425) {
		r = 0.180625 - q * q;
		return q * (((((((r * 2509.0809287301226727 + 33430.575583588128105) * r
				 + 67265.770927008700853) * r + 45921.953931549871457) * r
			       + 13731.693765509461125) * r + 1971.5909503065514427) * r
			     + 133.14166789178437745) * r + 3.387132872796366608)
		       / (((((((r * 5226.495278852545925 + 28729.085735721942674) * r
				+ 39307.89580009271061) * r + 21213.794301586595867) * r
			      + 5394.1960214247511077) * r + 687.1870074920579083) * r
			    + 42.313330701600911252) * r + 1);
	}
	r = sqrt(-log(q < 0 ? p : 1 - p));
	if (r <= 5) {
		r -= 1.6;
		v = (((((((r * 7.7454501427834140764e-4 + 0.0227238449892691845833) * r
			  + 0.24178072517745061177) * r + 1.27045825245236838258) * r
			+ 3.64784832476320460504) * r + 5.7694972214606914055) * r
		      + 4.6303378461565452959) * r + 1.42343711074968357734)
		    / (((((((r * 1.05075007164441684324e-9 + 5.475938084995344946e-4) * r
			    + 0.0151986665636164571966) * r + 0.14810397642748007459) * r
			  + 0.68976733498510000455) * r + 1.6763848301838038494) * r
			+ 2.05319162663775882187) * r + 1);
	} else {
		r -= 5;
		v = (((((((r * 2.01033439929228813265e-7 + 2.71155556874348757815e-5) * r
			  + 0.0012426609473880784386) * r + 0.026532189526576123093) * r
			+ 0.29656057182850489123) * r + 1.7848265399172913358) * r
		      + 5.4637849111641143699) * r + 6.6579046435011037772)
		    / (((((((r * 2.04426310338993978564e-15 + 1.4215117583164458887e-7) * r
			    + 1.8463183175100546818e-5) * r + 7.868691311456132591e-4) * r
			  + 0.0148753612908506148525) * r + 0.13692988092273580531) * r
			+ 0.59983220655588793769) * r + 1);
	}
	return q < 0 ? -v : v;
}

void stats_describe(const double *x, size_t n, struct sample_stats *out)
{
	double sum = 0, ss = 0, comp = 0, mean;

	out->n = n;
	out->mean = out->sd = out->cov = out->min = out->max = NAN;
	if (n == 0)
		return;
	out->min = out->max = x[0];
	for (size_t i = 0; i < n; i++) {
		sum += x[i];
		/* fmin/fmax would drop a NaN; a NaN sample must show */
		if (x[i] < out->min || isnan(x[i]))
			out->min = x[i];
		if (x[i] > out->max || isnan(x[i]))
			out->max = x[i];
	}
	mean = sum / n;
	if (n < 2) {
		out->mean = mean;
		return;
	}
	/* Two passes with the compensation term: exact for boot times of a
	 * few seconds measured to the nanosecond, where sum-of-squares is not. */
	for (size_t i = 0; i < n; i++) {
		double d = x[i] - mean;
		ss += d * d;
		comp += d;
	}
	out->mean = mean + comp / n;
	out->sd = sqrt((ss - comp * comp / n) / (n - 1));
	out->cov = out->mean != 0 ? out->sd / fabs(out->mean) : NAN;
}

/* se^2 of the difference and the Welch-Satterthwaite df; 0 if the
 * difference is usable, -1 if either group is too small. */
static int welch_parts(const struct sample_stats *a, const struct sample_stats *b,
		       double *se2, double *df)
{
	double sa, sb, ra, rb;

	if (a->n < 2 || b->n < 2 || isnan(a->sd) || isnan(b->sd))
		return -1;
	sa = a->sd * a->sd / a->n;
	sb = b->sd * b->sd / b->n;
	*se2 = sa + sb;
	/* df = se2^2 / (sa^2/(na-1) + sb^2/(nb-1)), with the shares of se2
	 * so that tiny or huge variances neither underflow nor overflow. */
	ra = sa / *se2;
	rb = sb / *se2;
	*df = 1 / (ra * ra / (a->n - 1) + rb * rb / (b->n - 1));
	return 0;
}

double welch_t_test(const struct sample_stats *a, const struct sample_stats *b, double *t, double *df)
{
	double se2, dof, diff = b->mean - a->mean, tv, p;

	if (welch_parts(a, b, &se2, &dof) < 0 || isnan(diff)) {
		tv = dof = p = NAN;
	} else if (se2 == 0) {
		dof = NAN;
		tv = diff == 0 ? 0 : copysign(INFINITY, diff);
		p = diff == 0 ? 1 : 0;
	} else {
		tv = diff / sqrt(se2);
		p = student_t_p2(tv, dof);
	}
	if (t)
		*t = tv;
	if (df)
		*df = dof;
	return p;
}

void welch_ci(const struct sample_stats *a, const struct sample_stats *b, double alpha, double *lo, double *hi)
{
	double se2, df, diff = b->mean - a->mean, w;

	*lo = *hi = NAN;
	if (welch_parts(a, b, &se2, &df) < 0 || !(alpha > 0 && alpha < 1))
		return;
	w = se2 == 0 ? 0 : student_t_crit(alpha, df) * sqrt(se2);
	*lo = diff - w;
	*hi = diff + w;
}

int ratio_ci(const struct sample_stats *a, const struct sample_stats *b, double alpha, double *lo, double *hi)
{
	double ra, rb, se2, df, w, l;
	*lo = *hi = NAN;
	if (a->n < 2 || b->n < 2 || isnan(a->sd) || isnan(b->sd) || !(alpha > 0 && alpha < 1))
		return 0;
	if (!(a->mean > 0 && b->mean > 0) || !isfinite(a->mean) || !isfinite(b->mean)) {
		welch_ci(a, b, alpha, lo, hi);
		if (a->mean != 0 && isfinite(a->mean)) {
			*lo /= fabs(a->mean);
			*hi /= fabs(a->mean);
		} else {
			*lo = *hi = NAN;
		}
		return 0;
	}
	ra = a->sd / a->mean;
	rb = b->sd / b->mean;
	ra = ra * ra / (double)a->n;
	rb = rb * rb / (double)b->n;
	se2 = ra + rb;
	l = log(b->mean / a->mean);
	if (se2 == 0) {
		*lo = *hi = expm1(l);
		return 1;
	}
	df = 1 / ((ra / se2) * (ra / se2) / (double)(a->n - 1) + (rb / se2) * (rb / se2) / (double)(b->n - 1));
	w = student_t_crit(alpha, df) * sqrt(se2);
	*lo = expm1(l - w);
	*hi = expm1(l + w);
	return 1;
}

static double n_choose(size_t n, size_t k)
{
	double r = 1;
	if (k > n - k)
		k = n - k;
	for (size_t i = 1; i <= k; i++)
		r = r * (double)(n - k + i) / (double)i;
	return r;
}

double perm_min_p(size_t na, size_t nb)
{
	double ways = n_choose(na + nb, na);
	if (!na || !nb)
		return NAN;
	/* equal sizes: a split and its mirror are equally extreme */
	return (na == nb ? 2 : 1) / (ways > PERM_EXACT_MAX ? PERM_DRAWS + 1.0 : ways);
}

double perm_test(const double *a, size_t na, const double *b, size_t nb)
{
	size_t n = na + nb, idx[64];
	double *v, total = 0, sa = 0, obs, tol, ways, hits = 0, tried = 0;
	if (!na || !nb)
		return NAN;
	if (na > nb)	/* the statistic is symmetric: draw the smaller side */
		return perm_test(b, nb, a, na);
	v = xcalloc(n, sizeof *v);
	for (size_t i = 0; i < na; i++)
		v[i] = a[i], sa += a[i];
	for (size_t i = 0; i < nb; i++)
		v[na + i] = b[i];
	for (size_t i = 0; i < n; i++)
		total += v[i];
	obs = fabs((total - sa) / (double)nb - sa / (double)na);
	/* ties within rounding count as at least as extreme */
	tol = 1e-9 * (fabs(total) / (double)n + obs) + 1e-300;
	ways = n_choose(n, na);
	if (ways <= PERM_EXACT_MAX && na <= sizeof idx / sizeof *idx) {
		/* every na-subset of the n values, in lexicographic order */
		for (size_t i = 0; i < na; i++)
			idx[i] = i;
		for (;;) {
			double s = 0;
			for (size_t i = 0; i < na; i++)
				s += v[idx[i]];
			tried++;
			if (fabs((total - s) / (double)nb - s / (double)na) >= obs - tol)
				hits++;
			size_t i = na;
			while (i > 0 && idx[i - 1] == n - na + i - 1)
				i--;
			if (i == 0)
				break;
			idx[i - 1]++;
			for (size_t j = i; j < na; j++)
				idx[j] = idx[j - 1] + 1;
		}
		free(v);
		return hits / tried;
	}
	{
		uint64_t st = rng_seed(0x9e7);	/* fixed: one data set, one p */
		double *w = v;
		for (unsigned d = 0; d < PERM_DRAWS; d++) {
			double s = 0;
			/* the first na of a partial Fisher-Yates shuffle; the array
			 * stays a permutation of the values, so each draw shuffles on
			 * from the last: O(na) a draw */
			for (size_t i = 0; i < na; i++) {
				size_t j = i + (size_t)(rng_next(&st) % (uint64_t)(n - i));
				double t = w[i];
				w[i] = w[j];
				w[j] = t;
				s += w[i];
			}
			if (fabs((total - s) / (double)nb - s / (double)na) >= obs - tol)
				hits++;
		}
		free(w);
		return (hits + 1) / (PERM_DRAWS + 1.0);
	}
}

double stats_pooled_cov(const struct sample_stats *a, const struct sample_stats *b)
{
	if (a->n < 2 || b->n < 2)
		return NAN;
	return sqrt(((a->n - 1) * a->cov * a->cov + (b->n - 1) * b->cov * b->cov)
		    / (a->n + b->n - 2));
}

/* z_{1-alpha/2} + z_{power}; z_{1-alpha/2} as -z_{alpha/2}, which keeps
 * small alphas exact. */
static double z_sum(double alpha, double power)
{
	if (!(alpha > 0 && alpha < 1) || !(power > 0 && power < 1))
		return NAN;
	return -normal_quantile(alpha / 2) + normal_quantile(power);
}

double min_detectable_change(double cov, size_t n, double alpha, double power)
{
	if (n == 0)
		return NAN;
	return z_sum(alpha, power) * sqrt(2.0 / n) * cov;
}

size_t runs_needed(double cov, double effect, double alpha, double power)
{
	double k, v;

	if (!(cov >= 0) || !(effect > 0))
		return 0;
	k = z_sum(alpha, power) * cov / effect;
	v = ceil(2 * k * k);
	if (!(v < (double)(SIZE_MAX / 2)))	/* NaN, inf, or absurd */
		return 0;
	return v < 2 ? 2 : (size_t)v;
}

/* Whether n boots a side meet s2 (t_p(2n - 2) / d)^2 <= n: Welch's df at
 * equal sizes and spreads. */
static int boots_enough(double s2, double p, double d, double n)
{
	double t = student_t_quantile(p, 2 * n - 2);
	return s2 * (t / d) * (t / d) <= n;
}

/* The smallest n that does. It holds for every n past the first that
 * does (t falls as n grows): doubled from the normal estimate until it
 * holds, then bisected. INFINITY past 10^6. */
static double boots_for(double s2, double p, double d)
{
	double z = normal_quantile(p), lo = ceil(s2 * (z / d) * (z / d)), hi;
	if (lo < 2)
		lo = 2;
	if (!(lo < 1e6))
		return INFINITY;
	for (hi = lo; !boots_enough(s2, p, d, hi); hi *= 2)
		if (hi > 1e6)
			return INFINITY;
	if (hi == lo)
		return lo;
	/* boots_enough(hi), not boots_enough(lo) */
	while (hi - lo > 1) {
		double mid = floor((lo + hi) / 2);
		if (boots_enough(s2, p, d, mid))
			hi = mid;
		else
			lo = mid;
	}
	return hi;
}

size_t boots_to_decide(const struct sample_stats *a, const struct sample_stats *b, unsigned looks, double fdr,
		       double alpha, double margin, double min_effect, size_t perm_below)
{
	double ch, s2, need = INFINITY;
	if (!looks || a->n < 2 || b->n < 2 || !(a->mean > 0) || !(b->mean > 0) || !isfinite(a->sd) || !isfinite(b->sd))
		return 0;
	ch = fabs(b->mean - a->mean) / a->mean;
	s2 = (a->sd / a->mean) * (a->sd / a->mean) + (b->sd / b->mean) * (b->sd / b->mean);
	if (ch >= min_effect && ch > 0) {
		double n = boots_for(s2, 1 - fdr / looks / 2, ch);
		/* the permutation test, where it applies, cannot go below 2 / C(2n, n) */
		size_t m = 2;
		while (m < perm_below && perm_min_p(m, m) >= fdr / looks)
			m++;
		need = n > (double)m ? n : (double)m;
	}
	if (ch < margin) {
		double n = boots_for(s2, 1 - alpha / looks, margin - ch);
		if (n < need)
			need = n;
	}
	if (!(need < 1e6))
		return SIZE_MAX;
	return (size_t)need;
}

struct bh_item {
	double p;
	size_t i;
};

static int bh_by_p(const void *a, const void *b)
{
	const struct bh_item *x = a, *y = b;
	if (x->p != y->p)
		return x->p < y->p ? -1 : 1;
	return x->i < y->i ? -1 : x->i > y->i;
}

void bh_adjust(const double *p, double *q, size_t n)
{
	struct bh_item *v = malloc((n + 1) * sizeof *v);
	size_t m = 0;
	double run = 1;
	if (!v) {
		for (size_t i = 0; i < n; i++)
			q[i] = isfinite(p[i]) ? 1 : NAN;	/* no memory: the most cautious answer */
		return;
	}
	for (size_t i = 0; i < n; i++) {
		q[i] = NAN;
		if (isfinite(p[i]))
			v[m++] = (struct bh_item){ p[i], i };
	}
	qsort(v, m, sizeof *v, bh_by_p);
	for (size_t i = m; i-- > 0;) {
		double x = v[i].p * (double)m / (double)(i + 1);
		if (x < run)
			run = x;
		q[v[i].i] = run;
	}
	free(v);
}

void moments_add(struct moments *m, double v)
{
	double d = v - m->mean;
	if (!m->n || v < m->min)
		m->min = v;
	if (!m->n || v > m->max)
		m->max = v;
	m->n++;
	m->mean += d / (double)m->n;
	m->m2 += d * (v - m->mean);
}

void moments_merge(struct moments *into, const struct moments *m)
{
	double n, d;
	if (!m->n)
		return;
	if (!into->n) {
		*into = *m;
		return;
	}
	n = (double)(into->n + m->n);
	d = m->mean - into->mean;
	into->m2 += m->m2 + d * d * (double)into->n * (double)m->n / n;
	into->mean += d * (double)m->n / n;
	if (m->min < into->min)
		into->min = m->min;
	if (m->max > into->max)
		into->max = m->max;
	into->n += m->n;
}

void moments_stats(const struct moments *m, struct sample_stats *out)
{
	out->n = m->n;
	out->mean = out->sd = out->cov = out->min = out->max = NAN;
	if (!m->n)
		return;
	out->mean = m->mean;
	out->min = m->min;
	out->max = m->max;
	if (m->n >= 2) {
		out->sd = sqrt(m->m2 > 0 ? m->m2 / (double)(m->n - 1) : 0);
		out->cov = out->mean != 0 ? out->sd / fabs(out->mean) : NAN;
	}
}

int confirm_look(const struct sample_stats *a, const struct sample_stats *b, double q, unsigned looks, double fdr,
		 double alpha, double margin, double min_effect, double *change, double *lo, double *hi)
{
	double ch = NAN, l = NAN, h = NAN;
	int v = CONFIRM_UNDECIDED;
	if (change)
		*change = NAN;
	if (lo)
		*lo = *hi = NAN;
	if (!looks || a->n < 2 || b->n < 2 || !isfinite(a->mean) || a->mean == 0 || !isfinite(b->mean))
		return CONFIRM_NONE;
	ch = (b->mean - a->mean) / fabs(a->mean);
	ratio_ci(a, b, 2 * alpha / looks, &l, &h);
	/* changed also needs its interval to leave out no change: the test is
	 * on the values, the interval on the log of their ratio, and with a
	 * very noisy baseline they can disagree (+137% at q 0.012, [-2.5%,
	 * +478%]): a change is called only where both say so */
	if (isfinite(q) && q < fdr / looks && fabs(ch) >= min_effect && !(isfinite(l) && isfinite(h) && l <= 0 && h >= 0))
		v = CONFIRM_CHANGED;
	else if (isfinite(l) && isfinite(h) && l > -margin && h < margin)
		v = CONFIRM_UNCHANGED;
	if (change)
		*change = ch;
	if (lo) {
		*lo = l;
		*hi = h;
	}
	return v;
}

void qb_side(const double *share, const double *n, size_t boots, struct qb_side *out)
{
	double x = 0, N = 0, inv = 0, mean = 0, ss = 0;
	memset(out, 0, sizeof *out);
	for (size_t i = 0; i < boots; i++) {
		if (!(n[i] > 0) || !isfinite(share[i]))
			continue;
		x += share[i] * n[i];
		N += n[i];
		inv += 1 / n[i];
		mean += share[i];
		out->m++;
	}
	if (!out->m)
		return;
	out->n = N;
	out->p = x / N;
	mean /= out->m;
	for (size_t i = 0; i < boots; i++)
		if (n[i] > 0 && isfinite(share[i]))
			ss += (share[i] - mean) * (share[i] - mean);
	out->v = out->m > 1 ? ss / (out->m - 1) : 0;
	out->bin = out->p * (1 - out->p) * inv / out->m;
}

void qb_pool(const struct qb_side *a, const struct qb_side *b, struct qb_pool *pool)
{
	const struct qb_side *s[2] = { a, b };
	for (int i = 0; i < 2; i++)
		if (s[i]->p > 0 && s[i]->p < 1 && s[i]->m > 1) {
			pool->excess += s[i]->v - s[i]->bin;
			pool->p2 += s[i]->p * s[i]->p;
			pool->df += s[i]->m - 1;
		}
}

double qb_test(const struct qb_side *a, const struct qb_side *b, const struct qb_pool *pool)
{
	struct qb_pool own = { 0, 0, 0 };
	double alpha, df, var, z;
	if (a->m < 2 || b->m < 2 || !pool->df || !(pool->p2 > 0) || (a->p <= 0 && b->p <= 0) || !(a->n > 0) ||
	    !(b->n > 0))
		return NAN;
	alpha = pool->excess / pool->p2;
	if (!(alpha > 0))
		alpha = 0;	/* the boots agree no worse than counting noise */
	df = pool->df;
	/* a function that varies between boots by more than the rest: its
	 * own alpha, on its own few df (on the pooled df its false positives
	 * were 0.11 at 0.05, simulated; on its own, 0.05) */
	qb_pool(a, b, &own);
	if (own.df && own.p2 > 0 && own.excess / own.p2 > alpha) {
		alpha = own.excess / own.p2;
		df = own.df;
	}
	var = a->p * (1 - a->p) / a->n + alpha * a->p * a->p / a->m + b->p * (1 - b->p) / b->n +
	      alpha * b->p * b->p / b->m;
	if (!(var > 0))
		return NAN;
	z = (b->p - a->p) / sqrt(var);
	return student_t_p2(z, df);
}
