/*
 * confirm.c - confirmation rounds (analysis/stats.c confirm_look) by
 * simulation, as docs/compare.md states them: after each round of boots
 * (m runs a kernel), look at all runs so far; at most R looks, each
 * spending 1/R of the error rates (Bonferroni over a fixed maximum).
 *   1,000 A/A series (no change): "changed" in at most fdr of them (the
 *     stated error rate), and most stop at "unchanged";
 *   1,000 series with a 3% change: confirmed "changed" within the budget in
 *     at least 80%, and never "unchanged" (3% is outside the margin).
 * Seeded: the same figures on every run. The figures are printed for the
 * record (error rate, power, mean rounds used).
 */
#include <math.h>
#include <stdint.h>

#include "stats.h"
#include "tap.h"

static uint64_t rng = 0x9e3779b97f4a7c15ull;

static double uniform(void)
{
	rng ^= rng >> 12;
	rng ^= rng << 25;
	rng ^= rng >> 27;
	return ((rng * 0x2545f4914f6cdd1dull) >> 11) * (1.0 / 9007199254740992.0);
}

static double gauss(void)
{
	double u = uniform(), v = uniform();
	if (u < 1e-300)
		u = 1e-300;
	return sqrt(-2 * log(u)) * cos(2 * M_PI * v);
}

struct sim {
	unsigned changed, unchanged, undecided, rounds_used, confirmed_by_round[64];
};

/* One series: kernel b's mean is (1 + effect) times a's; noise cov. */
static int series(double effect, double cov, unsigned m, unsigned R, double margin, unsigned *used)
{
	struct moments a = {0}, b = {0};
	for (unsigned j = 1; j <= R; j++) {
		struct sample_stats sa, sb;
		int v;
		for (unsigned i = 0; i < m; i++) {
			moments_add(&a, 100 * (1 + cov * gauss()));
			moments_add(&b, 100 * (1 + effect) * (1 + cov * gauss()));
		}
		moments_stats(&a, &sa);
		moments_stats(&b, &sb);
		/* one figure: its q is its p */
		v = confirm_look(&sa, &sb, welch_t_test(&sa, &sb, NULL, NULL), R, 0.05, 0.05, margin, 0.005, NULL, NULL,
				 NULL);
		if (v == CONFIRM_CHANGED || v == CONFIRM_UNCHANGED) {
			*used = j;
			return v;
		}
	}
	*used = R;
	return CONFIRM_UNDECIDED;
}

static void simulate(struct sim *s, double effect, double cov, unsigned m, unsigned R, double margin, unsigned n)
{
	memset(s, 0, sizeof *s);
	for (unsigned i = 0; i < n; i++) {
		unsigned used;
		int v = series(effect, cov, m, R, margin, &used);
		s->rounds_used += used;
		if (v == CONFIRM_CHANGED) {
			s->changed++;
			s->confirmed_by_round[used]++;
		} else if (v == CONFIRM_UNCHANGED) {
			s->unchanged++;
		} else {
			s->undecided++;
		}
	}
}

int main(void)
{
	struct sim s;
	const unsigned N = 1000, R = 12, m = 3;
	const double cov = 0.02, margin = 0.02;
	tap_plan(11);

	/* the primitives first */
	{
		struct moments x = {0}, y = {0}, all = {0};
		struct sample_stats st, sx;
		double v[] = { 3, 1, 4, 1, 5, 9, 2, 6 };
		for (int i = 0; i < 8; i++) {
			moments_add(i < 3 ? &x : &y, v[i]);
			moments_add(&all, v[i]);
		}
		moments_merge(&x, &y);
		moments_stats(&x, &sx);
		moments_stats(&all, &st);
		ok(x.n == 8 && fabs(sx.mean - 3.875) < 1e-12 && fabs(sx.sd - st.sd) < 1e-12 && sx.min == 1 && sx.max == 9,
		   "moments merged round by round equal the moments of all runs (mean %.4f, sd %.4f)", sx.mean, sx.sd);
	}
	{
		struct sample_stats a = { .n = 10, .mean = 100, .sd = 1 }, b = { .n = 10, .mean = 100.2, .sd = 1 };
		double ch, lo, hi;
		a.cov = b.cov = 0.01;
		is_int(confirm_look(&a, &b, 0.9, 1, 0.05, 0.05, 0.02, 0.005, &ch, &lo, &hi), CONFIRM_UNCHANGED,
		       "0.2%% apart, sd 1%%, n 10: unchanged within a 2%% margin (interval %.2f%% .. %.2f%%)", lo * 100,
		       hi * 100);
		is_int(confirm_look(&a, &b, 0.9, 1, 0.05, 0.05, 0.001, 0.005, &ch, &lo, &hi), CONFIRM_UNDECIDED,
		       "... undecided within a 0.1%% margin");
		b.mean = 105;
		is_int(confirm_look(&a, &b, 1e-6, 1, 0.05, 0.05, 0.02, 0.005, &ch, &lo, &hi), CONFIRM_CHANGED,
		       "5%% apart with q 1e-6: changed");
		is_int(confirm_look(&a, &b, 0.004, 20, 0.05, 0.05, 0.02, 0.005, &ch, &lo, &hi), CONFIRM_UNDECIDED,
		       "... but q 0.004 is not below 0.05/20 at one of 20 looks");
		b.n = 1;
		is_int(confirm_look(&a, &b, 1e-6, 1, 0.05, 0.05, 0.02, 0.005, &ch, &lo, &hi), CONFIRM_NONE,
		       "one run: nothing to look at");
	}

	simulate(&s, 0, cov, m, R, margin, N);
	printf("# A/A: %u series, %u runs a kernel a round, CoV %.0f%%, margin %.0f%%, at most %u rounds: "
	       "%u changed (%.1f%%), %u unchanged, %u undecided; %.2f rounds on average\n",
	       N, m, cov * 100, margin * 100, R, s.changed, 100.0 * s.changed / N, s.unchanged, s.undecided,
	       (double)s.rounds_used / N);
	ok(s.changed <= N * 5 / 100, "A/A: 'changed' in %u of %u series: at most the stated 5%%", s.changed, N);
	ok(s.unchanged >= N * 80 / 100, "A/A: %u of %u series stop at 'unchanged' within %u rounds (at least 80%%)",
	   s.unchanged, N, R);

	simulate(&s, 0.03, cov, m, R, margin, N);
	{
		unsigned by[5] = {0}, cum = 0;
		for (unsigned j = 1; j <= R; j++) {
			cum += s.confirmed_by_round[j];
			if (j <= 4)
				by[j] = cum;
		}
		printf("# 3%% change: %u changed (%.1f%%), %u unchanged, %u undecided; %.2f rounds on average; "
		       "confirmed by round 2: %u, 3: %u, 4: %u\n",
		       s.changed, 100.0 * s.changed / N, s.unchanged, s.undecided, (double)s.rounds_used / N, by[2], by[3],
		       by[4]);
	}
	ok(s.changed >= N * 80 / 100, "3%% change: confirmed in %u of %u series within %u rounds (at least 80%%)",
	   s.changed, N, R);
	is_int(s.unchanged, 0, "3%% change: never called unchanged (it is outside the 2%% margin)");

	/* the correction is what keeps the rate: without it (each look at the
	 * full 5%), repeated looks at A/A data flag more often */
	{
		unsigned naive = 0;
		rng = 42;
		for (unsigned i = 0; i < N; i++) {
			struct moments a = {0}, b = {0};
			for (unsigned j = 1; j <= R; j++) {
				struct sample_stats sa, sb;
				for (unsigned k = 0; k < m; k++) {
					moments_add(&a, 100 * (1 + cov * gauss()));
					moments_add(&b, 100 * (1 + cov * gauss()));
				}
				moments_stats(&a, &sa);
				moments_stats(&b, &sb);
				if (welch_t_test(&sa, &sb, NULL, NULL) < 0.05) {
					naive++;
					break;
				}
			}
		}
		printf("# uncorrected looks (each at 5%%): 'changed' in %u of %u A/A series\n", naive, N);
		ok(naive > N * 5 / 100, "uncorrected, %u looks flag %u of %u A/A series: more than 5%%, as the "
		   "correction expects", R, naive, N);
	}
	return tap_failed ? 1 : 0;
}
