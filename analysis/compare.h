/*
 * compare.h - the analysis behind `bootbench compare` and its HTML report:
 * records in; per measurement mode, one group per experiment (workload, its
 * every parameter, the layout as built, the tunables that held) and figure,
 * a column per kernel, each kernel judged against the baseline with
 * Welch's t-test, false discoveries controlled by Benjamini-Hochberg across
 * the figures of one comparison; the system counters compared the same way,
 * apart from the figures, since they explain rather than measure.
 */
#ifndef BB_COMPARE_H
#define BB_COMPARE_H

#include <stdio.h>

#include "json.h"
#include "stats.h"
#include "strmap.h"

#define CMP_MAX_KERNELS 32
#define CMP_MAX_MODES 8
#define CMP_MACHINES 4	/* machines a column lists by name */
#define CMP_MACHINE_LEN 129	/* a DMI string as the appliance records it (at most 128 bytes) */
#define CMP_MAX_TRACES 16
#define CMP_TRACES_PER_KERNEL 4

enum { ST_OK, ST_FAILED, ST_TIMEOUT, ST_CRASHED, ST_SKIPPED, ST_N };
/* CMP_PROFILE: one kernel function's share of the kernel profile samples
 * of an experiment's runs (%), a run without the function counting 0; read
 * by the "why" view (why.c), never judged as a figure. */
enum { CMP_FIGURE, CMP_COUNTER, CMP_PROFILE };
/* perf's call-path trees of an experiment (flame.c): where the CPUs were
 * (cpu-clock samples), and where tasks blocked (off-CPU, weighted by time). */
enum { FLAME_CPU, FLAME_OFF, FLAME_TREES };

/* CMP_PROFILE groups' units: the tick's shares (of kernel samples), perf's
 * own and inclusive shares (of all samples): three lists never mixed */
#define CMP_UNIT_TICK "%"
#define CMP_UNIT_PERF "% perf"
#define CMP_UNIT_PERF_INCL "% perf incl"
/* Functions of one run's profile that compare reads (a hostile record can
 * list more; ours keep KPROF_TOP). */
#define CMP_PROFILE_FUNCS 256

struct cmp_boot {
	char id[33];
	char label[64];		/* "6.1.192 rt [tag]"; compare --by: the factor's value ("read_ahead_kb=0") */
	char klabel[64];	/* the kernel alone: "6.1.192 rt" (a row's kernel under --by) */
	char factor[64];	/* --by memory, cmdline.KEY, tag: this boot's value */
	char raw[64];		/* its boot record's label, before what tells it from its kernel's first boot */
	char mode[24];		/* wallclock, deterministic */
	char accel[16];
	char release[65], version[160], config[65], userland[65];
	char qemu_setup[64];	/* how QEMU ran it, where that changes figures: "entry pvh, disk reads capped 16777216 B/s" */
	char machine[CMP_MACHINE_LEN];	/* the machine that ran it, as its firmware names it (DMI serial,
					 * else product; a LAVA lab's device name): "" where the record
					 * does not say */
	int kernel;		/* index into kernels, -1 if over the limit */
	unsigned round;		/* confirmation round: its kernel's boots before it */
	int conflict;		/* its id came with two different boot records: its runs are skipped */
	size_t real;		/* --by: the boot (index) whose runs at one value this boot holds */
};

/* compare --by FACTOR: what the columns are. By kernel (the default) a
 * column is a kernel and a boot its unit; by anything else a column is one
 * value of the factor, a row is everything else with the kernel among it,
 * and the unit is a boot's runs at that value (a tunable varies within a
 * boot: each boot gives each of its values one unit). */
enum { CMP_BY_KERNEL, CMP_BY_TUNABLE, CMP_BY_MEMORY, CMP_BY_CMDLINE, CMP_BY_SECTION, CMP_BY_TAG, CMP_BY_LAYOUT };

struct cmp_kernel {
	char label[64];
	char release[65], config[65], userland[65], accel[16], qemu_setup[64];
	unsigned boots;
	unsigned mboots[CMP_MAX_MODES];	/* boots per measurement mode: its confirmation rounds */
	unsigned st[ST_N];	/* runs by status */
	int mixed;		/* its boots differ in userland, config, accelerator or QEMU setup */
	/* the machines its boots ran on, the first CMP_MACHINES of them with
	 * their boots, and the boots on any other */
	char machine[CMP_MACHINES][CMP_MACHINE_LEN];
	unsigned machine_boots[CMP_MACHINES], machines, machine_other;
	int filled;		/* --series: a boot has matched its slot (label and identity are the boot's) */
};

/* One boot's runs of one figure: the boot is the unit of replication, so
 * its runs are reduced to their mean before any test across kernels (runs
 * of one boot share its memory layout, page placement and firmware state,
 * and are not independent samples of the kernel). */
struct cmp_unit {
	unsigned long long unit;	/* the boot: its index, or past CMP_UNIT_UNKNOWN one without a record */
	unsigned round;			/* its confirmation round */
	struct moments m;		/* its runs */
};
#define CMP_UNIT_UNKNOWN (1ULL << 40)
/* Wall-clock cells with fewer boots than this are also judged by the
 * permutation test: past it Welch's t holds on any shape with a variance
 * (the central limit theorem), and the test would cost more than it tells. */
#define CMP_PERM_BELOW 30

struct cmp_cell {
	/* sums (Welford) of the boot means, made from units by cmp_finish:
	 * n counts boots (figures, counters and profile shares alike) */
	size_t n;
	double mean, m2, min, max;
	struct sample_stats s;
	struct cmp_unit *units;	/* figures and counters: the runs by boot */
	size_t nunits, ucap;
	size_t runs;		/* after cmp_finish: the runs behind n */
	/* the variance split (after cmp_finish), as fractions of the mean,
	 * NAN where unknown: sd between boots (the boot means' spread less
	 * what their runs explain) and between runs of one boot (needs a
	 * boot with 2 runs or more) */
	double cov_boot, cov_run;
	/* vs the baseline, NAN when not computable: change and its 1-alpha
	 * interval as fractions of the baseline mean, Welch p, BH q */
	double p, q, change, lo, hi;	/* p: Welch's, or the permutation test's where larger (perm_p) */
	double perm_p;		/* wall-clock, fewer than CMP_PERM_BELOW boots: the permutation
				 * test's p (p is the larger of it and Welch's), else NAN */
	int significant, noisy, worse;	/* worse/better only for a figure with a direction */
	int decision;		/* CMP_D_*: changed, unchanged (TOST), undecided; none for the baseline or untested */
	char *inforce;		/* tunables in force that the plan did not set ("*": runs disagreed: not tested) */
	size_t listed;		/* CMP_PROFILE: runs whose list named the function (the rest of
				 * the profiled runs count 0; runs counts them all) */
	double invalid_sum;	/* their values, for a chart's hollow point only */
	size_t invalid;		/* runs whose figure was marked invalid (an SFS step past 1% failed calls):
				 * counted and shown, never in n, the mean or the test */
	/* confirmation rounds (cmp.rounds > 0, figures only): the runs of each
	 * round, and the verdict of the looks (CONFIRM_* of stats.h), the
	 * look that reached it (1-based), the looks made, and that look's
	 * change and TOST interval (fractions of the baseline mean) */
	struct moments *rm;
	int confirm;
	unsigned confirm_round, looks;
	double conf_change, conf_lo, conf_hi;
	size_t more;		/* undecided at the last look, and not decidable within the rounds
				 * left at its observed noise: about this many more boots a side
				 * (SIZE_MAX: none would do); 0 otherwise (boots_to_decide) */
};

struct cmp_group {
	int kind;		/* CMP_FIGURE or CMP_COUNTER */
	char *mode, *workload, *params, *layout, *lkey, *tunables, *metric, *unit, *better;
	char *key;		/* what cmp_group_lookup finds it by */
	char *label;		/* parameters and tunables that tell this group from its siblings */
	char *section;		/* figures: the plan sections its runs came from ("seed-002"; a few, then
				 * "..."), NULL when none said */
	char *inforce_diff;	/* tunables in force that differ between kernels, or NULL */
	struct cmp_cell *cell;	/* one per kernel: grown as kernels appear, to nkernels by cmp_finish */
	size_t ncell;
	double mdc;		/* fraction of the baseline mean */
	size_t n5;		/* boots per kernel to detect 5% (normal approximation) */
	size_t xid;		/* its experiment: index into cmp.exps */
};

/* An experiment (mode, workload, parameters, layout, tunables) and its
 * profiled runs per kernel, so that a function missing from a run's profile
 * counts as a share of 0 there. Functions past CMP_EXP_FUNCS in one
 * experiment (hostile input: random names) are not kept, and the lists
 * they came in count as cut. */
#define CMP_EXP_FUNCS 4096
/* Groups a comparison holds at most: figures and counters (each by
 * experiment), and apart from them profile functions. A group costs about
 * 1.7 KB here and a figure in a record about 60 bytes, so hostile input (a
 * million distinct names, 62 MB) made compare hold 1.43 GB; with the bound
 * it holds 124 MB. A plan of ours makes about 80 figures and counters an
 * experiment, and at most a few hundred functions. Values past the bound
 * are counted and warned about (dropped_values, dropped_functions). */
#define CMP_MAX_GROUPS 65536
/* And at most this many bytes in all groups (their strings, and a cell a
 * kernel), so that long names or 32 kernels cannot multiply the above:
 * hostile records of 2 MB made 0.6-1.6 GB with the count bound alone. */
#define CMP_MAX_GROUP_BYTES (256u << 20)
/* A boot's profiled runs of one experiment: a function its runs did not
 * list had a share of 0 in each of them. */
struct cmp_exp_boot {
	unsigned long long unit;	/* the boot, as cmp_unit.unit */
	unsigned round;
	unsigned k;			/* its kernel */
	size_t runs;
	double samples;			/* summed over those runs (perf's: the shares' test weighs by them) */
};
/* qsort/bsearch order of cmp_exp_boot (and of flame.c's boots): by unit */
int cmp_exp_boot_by_unit(const void *a, const void *b);
/* Sort boots by unit and make one entry a boot (a boot's runs can arrive
 * apart: one boot's records from two sources), its runs and samples summed. */
void cmp_exp_boots_merge(struct cmp_exp_boot *b, size_t *n);
struct cmp_exp {
	size_t functions;			/* its CMP_PROFILE groups (at most CMP_EXP_FUNCS; perf makes
						 * two a function, self and inclusive) */
	struct cmp_exp_boot *boots;		/* sorted by unit, one each, after cmp_finish */
	size_t nboots, bcap;
	unsigned runs[CMP_MAX_KERNELS];
	unsigned cut[CMP_MAX_KERNELS];		/* runs whose list was cut (it had "other" samples) */
	double samples[CMP_MAX_KERNELS];	/* summed over those runs */
	unsigned perf[CMP_MAX_KERNELS];		/* of those runs, profiled by perf's call chains (the rest: the tick) */
	double other[CMP_MAX_KERNELS];		/* perf: samples in stacks past each run's kept top, summed */
	struct flame *fl[FLAME_TREES];		/* perf's call paths (flame.c), on-CPU and off; NULL without */
};

/* A run's counter trace kept for the report. */
struct cmp_trace {
	char *title;		/* kernel, workload, layout */
	char *json;		/* the run's "counters" object */
};

struct cmp {
	/* settings */
	const char *baseline;
	double alpha;		/* interval level 1-alpha, and the MDC's */
	double fdr;		/* Benjamini-Hochberg q */
	double min_effect, noisy;
	unsigned rounds;	/* confirmation rounds: at most this many looks (0: none) */
	double margin;		/* --equivalence: what counts as unchanged, fraction of the baseline */
	const char *care[16];	/* --care W[@L]: the figures whose verdicts decide another round */
	size_t ncare;
	const char *src;	/* for messages */
	int by;			/* CMP_BY_*: --by */
	const char *by_name;	/* --by tunable.NAME, cmdline.KEY: the NAME or KEY */
	/* A figure's label in its reference tool's words, or NULL: the
	 * workloads know them (wl_tool_label); the analysis is linked without
	 * them into the unit tests, so the command passes the lookup in. */
	const char *(*tool_label)(const char *workload, const char *metric);
	/* data */
	struct cmp_boot *boots;
	size_t nboots, bcap;
	struct cmp_kernel kernels[CMP_MAX_KERNELS];
	size_t nkernels;
	size_t base;		/* index of the baseline kernel */
	struct cmp_group *groups;
	size_t ngroups, gcap;
	size_t nvalue_groups, nprofile_groups;	/* of ngroups: figures and counters, and profile functions,
						 * each at most CMP_MAX_GROUPS */
	size_t group_bytes;	/* what the groups hold, roughly: at most CMP_MAX_GROUP_BYTES */
	char **modes;
	size_t nmodes;		/* at most CMP_MAX_MODES: more are one "other" mode */
	struct cmp_trace traces[CMP_MAX_TRACES];
	size_t ntraces;
	unsigned nruns;
	unsigned dup_runs;	/* the same run (boot id, seq) from a second source */
	unsigned bad_ids;	/* records whose boot id is not 1-32 characters: skipped */
	int boots_only;		/* the first pass over the sources: boot records only */
	unsigned over_kernels;	/* runs of kernels past CMP_MAX_KERNELS, not compared */
	char over_names[256];	/* which kernels those were (the first few) */
	unsigned traces_of[CMP_MAX_KERNELS];
	struct cmp_exp *exps;
	size_t nexps, ecap;
	size_t *xoff, *xg;	/* after cmp_finish: the groups of experiment x are xg[xoff[x] .. xoff[x+1]) */
	unsigned bad_profiles;	/* profiles whose shares sum past 1: not read */
	unsigned cut_perf;	/* runs whose perf output was cut at the appliance's capture limit */
	unsigned long long dropped_functions;	/* functions past CMP_EXP_FUNCS in one experiment, or past
						 * CMP_MAX_GROUPS in all: not kept */
	unsigned long long dropped_values;	/* figures' and counters' values past CMP_MAX_GROUPS, not compared */
	size_t flame_nodes;			/* perf call-path nodes held, at most FLAME_ALL_NODES */
	double flame_dropped[FLAME_TREES];	/* weight whose path was not kept past a node bound (samples; µs) */
	unsigned long long bad_stacks;		/* perf stacks that were not a folded line: not read */
	unsigned long long past_stacks;		/* perf stacks past CMP_PERF_STACKS in their run: not read */
	struct strmap boot_ix, group_ix, seen_s, exp_ix;	/* seen_s: runs of boots without a boot record */
	struct strmap unit_ix;	/* boot ids without a boot record: their unit */
	unsigned bad_better;	/* figures whose better was neither "higher" nor "lower" */
	unsigned conflicts, conflict_runs;	/* boot ids with two boot records, and their runs skipped */
	char bad_better_eg[32];
	unsigned long long cur_unit;	/* the run being read: its boot (struct cmp_unit) */
	unsigned cur_round;
	struct u64set seen;	/* (boot index, seq) of every run read */
	struct strmap by_ix;	/* --by: "boot index|value" -> the boot that holds its runs */
	struct strmap first_ix;	/* a kernel label -> index into first: what its other boots differ from */
	struct cmp_ident { char mem[24], cpus[16]; char *cmd; } *first;
	size_t nfirst;
	struct strmap label_ix;	/* a boot's label -> index into label_hash: the identity it stands for */
	char (*label_hash)[17];
	size_t nlabels;
	unsigned by_unknown;	/* --by: runs without a boot record, not compared */
	unsigned by_unset;	/* --by tunable.NAME: runs that did not set NAME, not compared */
	/* compare --series K1,K2,...: the kernels in that order, each a slot
	 * made before the records are read (kernels[i] is series[i], the first
	 * the baseline); a kernel not named is left out, counted and named */
	char *series_buf;
	const char *series[CMP_MAX_KERNELS];
	size_t nseries;
	unsigned off_series;			/* runs of kernels the series does not name */
	unsigned series_unknown;		/* of them, runs without a boot record */
	char off_series_names[256];
	char series_clash[512];			/* one name matched two kernels: said by cmp_finish */
};

void cmp_init(struct cmp *c);
/* --series "K1,K2,...": each K a kernel's label ("6.1.192 rt") or release;
 * 2 to CMP_MAX_KERNELS, none twice. NULL when taken, else why not. */
const char *cmp_set_series(struct cmp *c, const char *list);
/* The series view (series.c): each figure as % of the first kernel along
 * the series, '*' where changed against it, and the first kernel at which
 * it changed; the report's line chart per figure. */
void cmp_print_series(const struct cmp *c, FILE *o);
void cmp_series_html(const struct cmp *c, FILE *o);

void cmp_add_record(struct cmp *c, const struct jv *rec);
/* Statistics; -1 (with a message) when there is nothing to compare or the
 * baseline is unknown. */
int cmp_finish(struct cmp *c);
void cmp_free(struct cmp *c);
/* The analysis options that compare and export share: --baseline, --fdr,
 * --alpha, --min-effect, --noisy, --rounds, --equivalence, --care. 1 when
 * opt was one (dies on a bad value), 0 when it is not. */
int cmp_option(struct cmp *c, const char *opt, const char *val);
int cmp_option_takes_value(const char *opt);
/* The column word for the text and the report: "kernel", or the factor
 * ("read_ahead_kb", "memory", "cmdline key mem", "section", "tag", "layout"). */
const char *cmp_by_word(const struct cmp *c, char *buf, size_t len);
/* "kernels", or under --by "values of read_ahead_kb"; and the boots read
 * (under --by a boot gives a unit to each value it ran: nboots counts those) */
const char *cmp_columns_word(const struct cmp *c, char *buf, size_t len);
size_t cmp_boots_read(const struct cmp *c);
/* compare --undecided's exit status while a round is wanted */
#define CMP_ANOTHER_ROUND 3
/* Confirmation rounds, after cmp_finish: of the figures cared for (every
 * figure without --care) of every kernel against the baseline, how many
 * changed, unchanged, undecided; *looks the fewest looks made (complete
 * rounds, at most cmp.rounds). */
/* An undecided figure's "not decidable at this noise: about N more boots a
 * side" (cmp_cell.more), or "": the same words in every output. */
const char *cmp_more_text(const struct cmp_cell *x, char *buf, size_t n);

struct cmp_confirm_tally {
	size_t changed, unchanged, undecided;
	size_t futile;		/* of the undecided: not decidable within the rounds left at their
				 * observed noise (cmp_cell.more): they hold no round open */
	size_t untestable;	/* measured twice or more on both, never testable (a zero
				 * baseline mean, settings that differ): no round helps */
	size_t figures;	/* figures cared for, on any kernel against the baseline */
	size_t cared;	/* figure groups cared for, on any kernel (the baseline's too) */
	unsigned looks;	/* complete rounds looked at (0 with no figures) */
};
void cmp_confirm_tally(const struct cmp *c, struct cmp_confirm_tally *t);
int cmp_cares(const struct cmp *c, const struct cmp_group *G);
const char *cmp_confirm_name(int verdict);
/* The confirmation of G's cell k as JSON members (export's misc). */
struct jw;
void cmp_confirm_json(const struct cmp *c, const struct cmp_group *G, size_t k, struct jw *w);
/* After cmp_finish, for a reader that goes over the records again (bootbench
 * export): a run's boot (NULL: no boot record), and the group one of its
 * figures (or counters) was counted in, from the same keys cmp_add_record
 * used (NULL: none). */
struct run_id;
const struct cmp_boot *cmp_boot_of(const struct cmp *c, const char *id);
const struct cmp_group *cmp_group_lookup(const struct cmp *c, int kind, const char *mode, const char *wl,
					 const struct run_id *id, const char *metric, const char *unit, const char *better);

/* Output (ctext.c): the summary first (per kernel against the baseline:
 * worse, better, unchanged, the significant changes sorted by size with
 * their intervals), then the table of every figure, then the counters. */
enum { CMP_OUT_SUMMARY = 1, CMP_OUT_TABLE = 2, CMP_OUT_SIGNIFICANT = 4 };
void cmp_print_text(const struct cmp *c, FILE *o, unsigned what);
/* Each warning about what was compared (input left out, kernels not only
 * kernels), one sentence each without the "WARNING: " prefix, to say(ctx,
 * text): the text output, the report and stderr say the same. */
void cmp_warnings(const struct cmp *c, void (*say)(void *ctx, const char *text), void *ctx);
void cmp_print_csv(const struct cmp *c, FILE *o);
/* The "why" view (why.c): for each experiment (workload, parameters, layout,
 * tunables) with a significant figure, or every one matching filter
 * ("WORKLOAD" or "WORKLOAD@LAYOUT"), per kernel against the baseline: its
 * figures, the kernel functions whose share of samples moved most (tested
 * across boots, BH over the experiment's functions; with perf also their
 * inclusive shares, the call paths that moved and the call tree), the
 * stalls side by side, and with profile offcpu where the run's tasks
 * blocked (paths of the time blocked). Returns how many experiments it
 * printed. */
size_t cmp_print_why(const struct cmp *c, FILE *o, const char *filter);

/* perf's call paths (flame.c): each experiment's folded stacks as trees
 * of path prefixes (FLAME_CPU, FLAME_OFF), each with every boot's share,
 * for the why view's call trees and the report's differential flame
 * graphs. Bounded: nodes past these are not made, their weight counted in
 * flame_dropped. */
#define FLAME_EXP_NODES 65536	/* the why plan's fork/exec: 4241 paths one run, 14532 four boots' */
#define FLAME_ALL_NODES (1u << 19)	/* a node about 150 bytes and 16 a boot: ~100 MB at most */
/* One stack of the run being read (frames root-most first, the process
 * first), of weight w, into tree t: 0, or -1 when its path was cut at a
 * bound. */
int flame_stack(struct cmp *c, size_t x, int t, const char *const *frames, size_t nf, double w);
/* The run's stacks are in: each node's share of the run's `total` weight
 * goes to the current boot (kernel k); `events` (samples; off-CPU: blocks)
 * weigh the boot in the test of shares. */
void flame_run_end(struct cmp *c, size_t x, int t, int k, double total, double events);
void flame_finish(struct cmp *c);
void flame_free(struct flame *f);
/* Kernel k has runs of experiment x in tree t; their events a run
 * (samples, or off-CPU blocks; and how many runs); their weight a run
 * (samples, or µs blocked). */
int flame_have(const struct cmp *c, size_t x, int t, size_t k);
double flame_events(const struct cmp *c, size_t x, int t, size_t k, unsigned *runs);
double flame_weight(const struct cmp *c, size_t x, int t, size_t k);
/* One path of the tree, kernel k against the baseline: its share of all
 * samples on each side (%, pooled over the boots' samples), the
 * quasi-binomial test's p (stats.h), BH q over the pair's
 * paths (NAN: untested). */
struct flame_diff {
	size_t node, parent;	/* parent: its index in the same output (SIZE_MAX for the root) */
	size_t depth;		/* 0: the root ("all"), 1: a process, 2..: frames */
	const char *name;
	double a, b, p, q;
};
/* The tree for k against the baseline, depth first, children by share on
 * k: *out (free it), and the count; 0 when either side has no perf paths. */
size_t flame_diff(const struct cmp *c, size_t x, int t, size_t k, struct flame_diff **out);
/* "comm;...;f2;f1" of a path: the process and its last `frames` frames (free it). */
char *flame_path(const struct cmp *c, size_t x, int t, const struct flame_diff *d, size_t frames);
/* Of a flame_diff's paths, those whose share moved most (why.c): of a chain
 * that moved together, its deepest frame; indices into d, at most max. */
size_t why_paths(const struct flame_diff *d, size_t n, size_t *out, size_t max);
/* The report's differential flame graph of experiment x, kernel k against
 * the baseline (flamegraph.c): its caption and SVG; 0 (nothing written)
 * when a side has no perf paths. *spent: the frames the report has drawn
 * so far (a report draws at most 24000 in all). */
int flame_svg(FILE *o, const struct cmp *c, size_t x, int t, size_t k, size_t *spent);
/* "WORKLOAD@LAYOUT, ..." of the figures compared, at most max (then "..."). */
void cmp_experiments(const struct cmp *c, struct sbuf *out, size_t max);

/* One function of an experiment's profile, a kernel against the baseline. */
struct why_fn {
	const struct cmp_group *G;
	double a, b;		/* mean share, baseline and kernel, % */
	double p, q;		/* across boots (the tick: Welch; perf: quasi-binomial), BH over the
				 * experiment's functions; NAN: untestable */
	int only;		/* 1: sampled on the kernel only, 2: on the baseline only (every list whole) */
	int cut;		/* missing from a side's lists that were cut: its share there is unknown */
};
/* The profile functions of figure F's experiment, kernel k vs the baseline,
 * largest |b - a| first; returns how many (at most max), with the profiled
 * runs a side in runs_a and runs_b, their mean samples in samples_a and _b.
 * incl: their inclusive shares (perf's call chains: the function and what
 * it called), else their own (self; the tick profile has only these). */
size_t why_functions(const struct cmp *c, const struct cmp_group *F, size_t k, int incl, struct why_fn *out, size_t max,
		     unsigned *runs_a, unsigned *runs_b, double *samples_a, double *samples_b);
/* Kernel k's profiled runs of F's experiment were all sampled by perf. */
int why_perf(const struct cmp *c, const struct cmp_group *F, size_t k);
/* The stall counters (pressure_*, delay_*) of F's experiment that either
 * kernel (k, the baseline) has runs of, in table order; returns how many
 * (at most max). */
size_t why_stalls(const struct cmp *c, const struct cmp_group *F, size_t k, const struct cmp_group **out, size_t max);
int why_same_experiment(const struct cmp_group *a, const struct cmp_group *b);
/* Did kernel k's runs of F's experiment carry a profile? */
int why_profiled(const struct cmp *c, const struct cmp_group *F, size_t k);
/* Why figure F's experiment has no function to set beside the baseline's
 * on kernel k, as a sentence into buf (text: the HTML escapes it). */
const char *why_none(const struct cmp *c, const struct cmp_group *F, size_t k, char *buf, size_t len);
int cmp_write_html(const struct cmp *c, const char *path);
/* s as HTML text or an attribute value: < > & " escaped (report.c) */
void html_esc(FILE *o, const char *s);
/* before, then a note in the report's smaller type: prefix and text
 * (escaped); nothing when text is NULL. A figure's reference-tool words
 * and plan section. */
void html_note(FILE *o, const char *before, const char *prefix, const char *text);

/* Helpers shared by the text and HTML output. */
enum { CMP_D_NONE, CMP_D_CHANGED, CMP_D_UNCHANGED, CMP_D_UNDECIDED };
struct cmp_tally {
	size_t figures, worse, better, changed, same, untested;	/* changed: significant, no direction;
								 * same: unchanged, equivalence shown */
	size_t undecided;	/* tested, neither changed nor shown unchanged */
	size_t missing;		/* the baseline has the figure, this kernel none */
};
enum { CMP_WORSE, CMP_BETTER, CMP_CHANGED };	/* changed: no direction (counters, or a figure without "better") */
int cmp_verdict(const struct cmp_group *G, const struct cmp_cell *x);
/* The one rule for direction: +1 "higher" is better, -1 "lower", 0 any
 * other value (a record's other words are warned about when read). */
int cmp_direction(const char *better);
/* The one word for cell x against the baseline, in every output: worse,
 * better (changed, with a direction), higher or lower (changed, none),
 * unchanged, undecided, untested. */
const char *cmp_word(const struct cmp_group *G, const struct cmp_cell *x);
/* "boots" or "runs": which would narrow this cell's mean more, from its
 * variance split; NULL when the split is unknown (one run a boot). */
const char *cmp_narrow_by(const struct cmp_cell *x);
/* How the figures of one mode fared for kernel k against the baseline. */
void cmp_tally(const struct cmp *c, const char *mode, size_t k, struct cmp_tally *t);
int cmp_mode_has(const struct cmp *c, const char *mode, int kind);
/* Indices of the groups of one mode and kind whose cell k is significant:
 * worse, then better, then changed (no direction), each largest first;
 * returns how many. */
size_t cmp_significant(const struct cmp *c, const char *mode, int kind, size_t k, size_t *out);
/* G's label in its reference tool's words ("ab: Requests per second"), or NULL */
const char *cmp_tool_label(const struct cmp *c, const struct cmp_group *G);
/* "workload [label] / layout: metric" */
void cmp_group_title(const struct cmp_group *G, char *out, size_t len);
/* "6.1.192 rt" from a release and version string. */
void kernel_label(const char *release, const char *version, char *out, size_t len);

#endif
