/*
 * compare.c - bootbench compare: is kernel B different from kernel A, per
 * figure, given the noise and the number of figures? The analysis lives in
 * analysis/ (compare.c groups and judges, ctext.c and report.c print).
 */
const char compare_usage[] =
"usage: bootbench compare RESULTS... [--by FACTOR | --series K1,K2,...] [--baseline KERNEL|VALUE]\n"
"                         [--summary | --significant]\n"
"                         [--csv] [--html FILE] [--fdr Q] [--alpha A]\n"
"                         [--min-effect PCT] [--noisy PCT] [--why WORKLOAD[@LAYOUT]]\n"
"                         [--rounds N [--equivalence PCT] [--care W[@L]]... [--undecided]]\n"
"\n"
"RESULTS are results images, devices, console logs (a LAVA job's too) or\n"
"`bootbench collect` output, in any mix; a run that arrives twice (same boot\n"
"id and sequence number) counts once. Runs are grouped by what produced them: workload and\n"
"its every parameter (defaults included), the layout as built, the tunables\n"
"that held (a refused one never pools with runs where it held), and metric.\n"
"Settings in force that the plan did not set (kernel defaults) never split\n"
"a row: where they differ between kernels the row says so.\n"
"Each kernel (release and flavour, e.g. \"6.1.192 rt\") gets a column with\n"
"the mean and coefficient of variation of its boots (each boot's ok runs\n"
"averaged first: the boot is the unit).\n"
"\n"
"The answer comes first: per kernel against the baseline, how many figures\n"
"got worse or better (changed), stayed (unchanged: the 90% interval within\n"
"--equivalence, 2%) or are undecided (neither), and the changes, largest\n"
"first, each with its interval and q. '*' (changed) means: Welch's t-test p\n"
"(for wall-clock figures of fewer than 30 boots a side, the larger of it and\n"
"the permutation test's p, which holds on bimodal figures; at 3 + 3 boots\n"
"it cannot go below 0.1), adjusted by Benjamini-Hochberg across all figures\n"
"of that comparison, gives\n"
"q < --fdr (default 0.05), AND the change is at least --min-effect (default\n"
"0.5%: with near-zero noise a t-test flags meaningless differences). So at\n"
"most that share (--fdr) of the changes marked '*' are expected to be chance. The\n"
"system counters (CPU, context switches, paging, reclaim, memory, disk\n"
"utilisation; per-run means, averaged by boot) are compared the same way,\n"
"as a family of\n"
"their own, in their own section: they explain the figures.\n"
"Why: for every experiment in which a figure changed, the kernel functions\n"
"whose share of the profile samples moved most (runs made with the plan's\n"
"`profile on` and the kernel booted with profile=2), with Welch's q across\n"
"runs, and where the workload's processes waited (pressure stall totals and\n"
"delay accounting), the kernel beside the baseline (docs/why.md).\n"
"The boot is the unit of replication: a boot's runs of a figure are averaged\n"
"first, and n counts boots; where a boot ran a figure more than once, the\n"
"spread is split into boot-to-boot and run-to-run, and the table says which\n"
"(more boots or more runs a boot) would narrow the mean. With one boot a side\n"
"nothing is tested: boot-to-boot spread is unknown.\n"
"MDC is the minimum detectable change at alpha and 80% power for the boots at\n"
"hand; n5% the boots per kernel needed to see a 5% change. '~' marks a figure\n"
"whose CoV exceeds --noisy (default 5%). Measurement modes (wallclock,\n"
"deterministic) are never mixed. Failed, timed-out, crashed and skipped runs\n"
"are counted per kernel.\n"
"  --baseline K   the kernel to compare against (default: the first booted)\n"
"  --by FACTOR    the columns: kernel (the default), tunable.NAME (its values,\n"
"                 in one boot or many: e.g. tunable.read_ahead_kb), memory\n"
"                 (MemTotal, rounded up to 64 MiB), cmdline.KEY (the boot's\n"
"                 KEY=VALUE), section, tag or layout. A row is then everything\n"
"                 else, the kernel included (values are compared within one\n"
"                 kernel; runs that did not set the tunable are left out);\n"
"                 the unit is a boot's runs at one value. --baseline\n"
"                 names a value (for a tunable, 0 or read_ahead_kb=0); the\n"
"                 default is the tunable's `default` (the kernel's own\n"
"                 setting), else the first value read.\n"
"  --series K1,K2,...  a series of kernels (seed 003's six 2.4 kernels): the\n"
"                 columns in that order, K1 the baseline (--baseline, if\n"
"                 given, must name K1). Each K is a kernel's label (\"6.1.192\n"
"                 rt\") or its release (uname -r), each kernel once; a comma\n"
"                 and a space belong to a name (\"6.1.192 rt, 1024 MiB\"). A\n"
"                 release that two labels share is refused, not pooled;\n"
"                 kernels not named are left out, and said so. Adds the\n"
"                 series view: each figure as % of K1 at every kernel, '*'\n"
"                 where it changed against K1 (the same test and FDR as the\n"
"                 rest), and the first kernel at which it changed, or where\n"
"                 it could not be tested and why; the report draws a line\n"
"                 chart per figure.\n"
"  --summary      the summary only\n"
"  --significant  the summary, then only the rows with a significant change\n"
"  --csv          one CSV row per figure, counter and kernel instead\n"
"  --html FILE    also write a self-contained HTML report\n"
"  --why W[@L]    only the why view of workload W (on layout L), every figure\n"
"  --fdr Q        false discovery rate (default 0.05)\n"
"  --alpha A      intervals are 1-A (default 0.05: 95%), and the MDC's level\n"
"Confirmation rounds (docs/compare.md): boots alternate A B, B A, ...; the\n"
"j-th boot of a kernel, in the order the sources are read, is of round j.\n"
"With --rounds N every figure is looked at after each complete round, at\n"
"most N looks, and judged changed (q < FDR/N and at least --min-effect),\n"
"unchanged (the change's 1-2A/N interval inside +-PCT: two one-sided\n"
"tests at A/N) or undecided; the first look that decides stands. Spending\n"
"1/N of each error rate per look (Bonferroni) keeps the chance of a false\n"
"'changed' over all N looks at FDR, of a false 'unchanged' at A. From 3\n"
"boots a side, an undecided figure that the boots left would not decide at\n"
"its observed change and spread is 'not decidable at this noise: about M\n"
"more boots a side', and holds no round open.\n"
"  --rounds N       the most rounds (the boot budget per kernel)\n"
"  --equivalence P  a change within +-P% is no change (default 2)\n"
"  --care W[@L]     (repeatable) the figures whose verdict matters for\n"
"                   another round: workload W (on layout L); default all\n"
"  --undecided      print the round's decision only; exit 3 while a figure\n"
"                   cared for is undecided, decidable, and rounds remain,\n"
"                   else 0\n"
"exit: 0 compared, 1 no usable records, 3 (--undecided) another round, 100 bad usage.\n";

#define _GNU_SOURCE
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"
#include "compare.h"
#include "defaults.h"
#include "err.h"
#include "json.h"
#include "recsource.h"
#include "stats.h"
#include "workload.h"
#include "xio.h"

static void on_line(void *ctx, const char *line, size_t len, const char *where)
{
	struct cmp *c = ctx;
	char err[160];
	struct jv *v;
	/* the first pass wants boot records only: skip the rest unparsed
	 * (records are canonical JSON, as collect and the console print them) */
	if (c->boots_only && !memmem(line, len, "\"type\":\"boot\"", 13))
		return;
	v = json_parse(line, len, err, sizeof err);
	if (!v) {
		if (!c->boots_only)
			warning("%s: %s: damaged record (%s), skipped", c->src, where, err);
		return;
	}
	cmp_add_record(c, v);
	json_free(v);
}

static void warn_stderr(void *ctx, const char *text)
{
	(void)ctx;
	warning("%s", text);
}

int compare_main(int argc, char **argv)
{
	struct cmp c;
	const char *html = NULL, *why = NULL, *series = NULL;
	int csv = 0, nsrc = 0, rc = 0, view = 0, undecided = 0;
	unsigned what = CMP_OUT_SUMMARY | CMP_OUT_TABLE;

	cmp_init(&c);
	c.tool_label = wl_tool_label;
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		if (cmp_option_takes_value(a)) {
			if (i + 1 >= argc)
				die(EXIT_BADINPUT, "%s needs a value (see bootbench compare --help)", a);
			cmp_option(&c, a, argv[++i]);
		} else if (!strcmp(a, "--csv")) {
			csv = 1;
		} else if (!strcmp(a, "--summary")) {
			what = CMP_OUT_SUMMARY;
			view = 1;
		} else if (!strcmp(a, "--significant")) {
			what = CMP_OUT_SUMMARY | CMP_OUT_TABLE | CMP_OUT_SIGNIFICANT;
			view = 1;
		} else if (!strcmp(a, "--undecided")) {
			undecided = 1;
		} else if (!strcmp(a, "--series")) {
			const char *bad;
			if (i + 1 >= argc)
				die(EXIT_BADINPUT, "--series needs a value: K1,K2,... (see bootbench compare --help)");
			series = argv[++i];
			if ((bad = cmp_set_series(&c, series)))
				die(EXIT_BADINPUT, "%s", bad);
		} else if (!strcmp(a, "--html") && i + 1 < argc) {
			html = argv[++i];
		} else if (!strcmp(a, "--why") && i + 1 < argc) {
			why = argv[++i];
			if (!*why || *why == '@' || why[strlen(why) - 1] == '@' || strchr(strchr(why, '@') ? strchr(why, '@') + 1 : "", '@') ||
			    strlen(why) > 200)
				die(EXIT_BADINPUT, "bad --why \"%s\" (WORKLOAD or WORKLOAD@LAYOUT, e.g. forkexec@tmpfs)", why);
		} else if (a[0] == '-' && a[1]) {
			die(EXIT_BADINPUT, "unknown or incomplete option %s (see bootbench compare --help)", a);
		}
	}
	if (series && c.by != CMP_BY_KERNEL)
		die(EXIT_BADINPUT, "--series orders kernels: not with --by (a series is of kernels)");
	if (series && c.baseline && strcmp(c.baseline, c.series[0]))
		die(EXIT_BADINPUT, "--series makes its first kernel the baseline: drop --baseline, or put \"%s\" first",
		    c.baseline);
	if (c.by != CMP_BY_KERNEL && c.rounds)
		die(EXIT_BADINPUT, "--rounds confirms kernels against kernels, boot after boot: not with --by");
	if (undecided && !c.rounds)
		die(EXIT_BADINPUT, "--undecided answers for confirmation rounds: give --rounds N (the most rounds)");
	if (undecided && (csv || view || why))
		die(EXIT_BADINPUT, "--undecided prints the round's decision alone (--html goes with it)");
	if (why && (csv || view))
		die(EXIT_BADINPUT, "--why prints the why view alone: it does not go with --csv, --summary or --significant "
		    "(--html does)");
	/* two passes: every boot record first, so a run read before its boot
	 * record (another source, another order) still finds its kernel */
	for (int pass = 0; pass < 2; pass++) {
		c.boots_only = pass == 0;
		nsrc = 0;
		for (int i = 1; i < argc; i++) {
			const char *a = argv[i];
			if (cmp_option_takes_value(a) || !strcmp(a, "--html") || !strcmp(a, "--why") || !strcmp(a, "--series")) {
				i++;
				continue;
			}
			if (a[0] == '-' && a[1])
				continue;
			nsrc++;
			c.src = a;
			if (source_read(a, on_line, &c, 1, NULL) && pass)
				rc = 1;
		}
		if (!nsrc)
			break;
	}
	if (!nsrc) {
		fputs(compare_usage, stderr);
		die(EXIT_BADINPUT, "no RESULTS given");
	}
	if (cmp_finish(&c) < 0)
		return 1;
	if (csv || undecided || why)
		cmp_warnings(&c, warn_stderr, NULL);	/* the text output and the report carry them */
	if (why) {
		if (!cmp_print_why(&c, stdout, why)) {
			struct sbuf have = {0};
			cmp_experiments(&c, &have, 20);
			warning("no figures of %s in these records (they have: %s)", why, have.s ? have.s : "none");
			sb_free(&have);
			rc = 1;
		}
	} else if (undecided) {
		struct cmp_confirm_tally t;
		cmp_confirm_tally(&c, &t);
		if (!t.cared && c.ncare) {
			/* a typo in --care must not end the rounds as "decided" */
			struct sbuf have = {0};
			cmp_experiments(&c, &have, 20);
			die(EXIT_BADINPUT, "--care names no figure of these records (they have: %s)", have.s ? have.s : "none");
		}
		if (!t.figures) {
			/* one kernel so far (the other's boots failed, or are to come) */
			printf("round 0 of %u: no figure measured on two kernels yet: %s\n", c.rounds,
			       c.rounds > 1 ? "another round" : "budget spent");
			rc = c.rounds > 1 ? CMP_ANOTHER_ROUND : 0;
			goto done;
		}
		printf("round %u of %u: %zu changed, %zu unchanged, %zu undecided", t.looks, c.rounds, t.changed,
		       t.unchanged, t.undecided);
		if (t.futile)
			printf(" (%zu not decidable at this noise in the rounds left)", t.futile);
		if (t.untestable)
			printf(", %zu never testable (a zero baseline, or settings that differ)", t.untestable);
		printf("%s: %s\n", c.ncare ? " (of the figures cared for)" : "",
		       !t.undecided ? "decided" : t.looks >= c.rounds ? "budget spent, undecided stay undecided" :
		       t.futile == t.undecided ? "no more rounds, none would decide what is left" : "another round");
		if (t.undecided > t.futile && t.looks < c.rounds)
			rc = CMP_ANOTHER_ROUND;
	} else if (csv)
		cmp_print_csv(&c, stdout);
	else
		cmp_print_text(&c, stdout, what);
done:
	if (html && cmp_write_html(&c, html) < 0)
		die_sys(EXIT_SYSFAIL, "unable to write %s (a report goes to a regular file only, not through a symbolic link)", html);
	cmp_free(&c);
	return rc;
}
