/*
 * compare.c - bootbench compare: is kernel B different from kernel A, per
 * figure, given the noise? Groups runs by (workload, layout, tunables,
 * metric), one column per kernel, Welch's t-test against the baseline.
 */
const char compare_usage[] =
"usage: bootbench compare RESULTS... [--baseline KERNEL] [--csv] [--html FILE]\n"
"                         [--alpha A] [--min-effect PCT] [--noisy PCT]\n"
"\n"
"RESULTS are results images, devices, console logs or `bootbench collect`\n"
"output, in any mix. Runs are grouped by workload, layout, tunables and\n"
"metric; each kernel (release and flavour, e.g. \"6.1.192 rt\") gets a column\n"
"with the mean and coefficient of variation of its ok runs. For each kernel\n"
"other than the baseline: the % change, better/worse by the metric's\n"
"direction, Welch's t-test p-value, and '*' when p < alpha AND the change is\n"
"at least --min-effect (default 0.5%: with near-zero noise a t-test flags\n"
"meaningless differences). MDC is the minimum detectable change at alpha\n"
"and 80% power for the runs at hand; n5% the runs per kernel needed to see a\n"
"5% change. '~' marks a figure whose CoV exceeds --noisy (default 5%).\n"
"Measurement modes (wallclock, deterministic) are never mixed: each gets its\n"
"own table. Failed, timed-out, crashed and skipped runs are counted per kernel.\n"
"  --baseline K   the kernel to compare against (default: the first booted)\n"
"  --csv          one CSV row per figure and kernel instead of the table\n"
"  --html FILE    also write a self-contained HTML report\n"
"exit: 0 compared, 1 no usable records, 100 bad usage.\n";

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"
#include "compare.h"
#include "defaults.h"
#include "err.h"
#include "json.h"
#include "source.h"
#include "stats.h"
#include "xio.h"

static void on_line(void *ctx, const char *line, size_t len, const char *where)
{
	struct cmp *c = ctx;
	char err[160];
	struct jv *v = json_parse(line, len, err, sizeof err);
	if (!v) {
		warn("%s: %s: damaged record (%s), skipped", c->src, where, err);
		return;
	}
	cmp_add_record(c, v);
	json_free(v);
}

int compare_main(int argc, char **argv)
{
	struct cmp c;
	const char *html = NULL;
	int csv = 0, nsrc = 0, rc = 0;

	cmp_init(&c);
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		char *end;
		if (!strcmp(a, "--baseline") && i + 1 < argc) {
			c.baseline = argv[++i];
		} else if (!strcmp(a, "--csv")) {
			csv = 1;
		} else if (!strcmp(a, "--html") && i + 1 < argc) {
			html = argv[++i];
		} else if (!strcmp(a, "--alpha") && i + 1 < argc) {
			c.alpha = strtod(argv[++i], &end);
			if (*end || !(c.alpha > 0 && c.alpha < 1))
				die(EXIT_BADINPUT, "bad --alpha \"%s\" (between 0 and 1, e.g. 0.05)", argv[i]);
		} else if (!strcmp(a, "--min-effect") && i + 1 < argc) {
			c.min_effect = strtod(argv[++i], &end) / 100;
			if (*end || c.min_effect < 0)
				die(EXIT_BADINPUT, "bad --min-effect \"%s\" (a percentage, e.g. 0.5)", argv[i]);
		} else if (!strcmp(a, "--noisy") && i + 1 < argc) {
			c.noisy = strtod(argv[++i], &end) / 100;
			if (*end || c.noisy <= 0)
				die(EXIT_BADINPUT, "bad --noisy \"%s\" (a percentage, e.g. 5)", argv[i]);
		} else if (a[0] == '-' && a[1]) {
			die(EXIT_BADINPUT, "unknown or incomplete option %s (see bootbench compare --help)", a);
		}
	}
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		if (!strcmp(a, "--baseline") || !strcmp(a, "--html") || !strcmp(a, "--alpha") ||
		    !strcmp(a, "--min-effect") || !strcmp(a, "--noisy")) {
			i++;
			continue;
		}
		if (a[0] == '-' && a[1])
			continue;
		nsrc++;
		c.src = a;
		if (source_read(a, on_line, &c, 1))
			rc = 1;
	}
	if (!nsrc) {
		fputs(compare_usage, stderr);
		die(EXIT_BADINPUT, "no RESULTS given");
	}
	if (cmp_finish(&c) < 0)
		return 1;
	if (csv)
		cmp_print_csv(&c, stdout);
	else
		cmp_print_table(&c, stdout);
	if (html && cmp_write_html(&c, html) < 0)
		die_sys(EXIT_SYSFAIL, "unable to write %s", html);
	cmp_free(&c);
	return rc;
}
