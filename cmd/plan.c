/*
 * plan.c - bootbench plan: check plan files on the host with the parser the
 * appliance uses, and show the runs a plan expands to, in the order the
 * appliance will run them.
 */
const char plan_usage[] =
"usage: bootbench plan check FILE...\n"
"       bootbench plan show FILE\n"
"       bootbench plan requires FILE\n"
"\n"
"Plan files are described in docs/plans.md.\n"
"  check   parse every FILE as the appliance would; prints\n"
"           FILE: ok (N runs: L layouts x T tunable sets x W workloads x I iterations)\n"
"          (a plan with sections: I iterations of S sections: NAME L x T x W, ...)\n"
"          or the first error, \"FILE:LINE: message\", on stderr\n"
"  show    print the expanded run list, one run a line:\n"
"           ITERATION [SECTION] LAYOUT TUNABLES WORKLOAD [KEY=VALUE...]\n"
"          SECTION only in a plan with sections; TUNABLES is name=value,...\n"
"          or - when the section sets none; values holding blanks are\n"
"          double-quoted\n"
"  requires  what a boot must have for the plan (its `requires` lines),\n"
"          one \"KEY VALUE\" a line, for scripts: layer NAME (one line\n"
"          each), memory BYTES, disks N, cpus N; nothing when it has none\n"
"\n"
"exit: 0 every plan is valid, 100 a plan is invalid or unreadable.\n";

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"
#include "defaults.h"
#include "err.h"
#include "plan.h"
#include "workload.h"
#include "xio.h"

/* 0, or -1 after printing why (unreadable file or the parser's message). */
static int load(const char *file, struct plan *p)
{
	char err[512];
	size_t len;
	char *text = read_file(file, &len);
	int rc;
	if (!text) {
		warn_sys("unable to read plan %s", file);
		return -1;
	}
	rc = plan_parse(file, text, len, workload_check, p, err, sizeof err);
	free(text);
	if (rc == 0 && (rc = plan_check_workloads(file, p, err, sizeof err)) < 0)
		plan_free(p);
	if (rc < 0) {
		fprintf(stderr, "%s\n", err);
		fflush(stderr);
	}
	return rc;
}

static int check(int argc, char **argv)
{
	int bad = 0;
	if (argc < 1)
		die(EXIT_BADINPUT, "plan check needs at least one FILE (see bootbench plan --help)");
	for (int i = 0; i < argc; i++) {
		struct plan p;
		if (load(argv[i], &p) < 0) {
			bad = 1;
			continue;
		}
		if (!plan_has_sections(&p))
			printf("%s: ok (%llu runs: %zu layouts x %u tunable sets x %zu workloads x %u iterations)\n",
			       argv[i], plan_run_count(&p), p.nlayouts, plan_tunable_combos(&p.sections[0]),
			       p.nworkloads, p.iterations);
		else {
			printf("%s: ok (%llu runs: %u iterations of %zu sections:", argv[i], plan_run_count(&p),
			       p.iterations, p.nsections);
			for (size_t k = 0; k < p.nsections; k++) {
				const struct plan_section *s = &p.sections[k];
				printf("%s %s %zu x %u x %zu", k ? "," : "", s->name, s->nlayouts,
				       plan_tunable_combos(s), s->nworkloads);
			}
			printf(")\n");
		}
		plan_free(&p);
	}
	if (fflush(stdout) == EOF || ferror(stdout))
		die_sys(EXIT_SYSFAIL, "unable to write to stdout");
	return bad ? EXIT_BADINPUT : 0;
}

static void put_value(const char *v)
{
	if (strpbrk(v, " \t#"))
		printf("\"%s\"", v);
	else
		fputs(v, stdout);
}

static int show(int argc, char **argv)
{
	struct plan p;
	struct plan_run *runs;
	char tun[512];
	size_t n;
	if (argc != 1)
		die(EXIT_BADINPUT, "plan show takes one FILE (see bootbench plan --help)");
	if (load(argv[0], &p) < 0)
		return EXIT_BADINPUT;
	n = plan_expand(&p, &runs);
	for (size_t i = 0; i < n; i++) {
		const struct plan_run *r = &runs[i];
		const struct plan_section *s = r->section;
		printf("%u ", r->iteration);
		if (s->name)
			printf("%s ", s->name);
		plan_tunables_text(s, r->tunables_index, tun, sizeof tun);
		printf("%s %s", r->layout->name, tun);
		printf(" %s", r->workload->name);
		for (size_t k = 0; k < r->workload->nparams; k++) {
			printf(" %s=", r->workload->params[k].key);
			put_value(r->workload->params[k].val);
		}
		putchar('\n');
	}
	free(runs);
	plan_free(&p);
	if (fflush(stdout) == EOF || ferror(stdout))
		die_sys(EXIT_SYSFAIL, "unable to write the run list");
	return 0;
}

static int requires(int argc, char **argv)
{
	struct plan p;
	if (argc != 1)
		die(EXIT_BADINPUT, "plan requires takes one FILE (see bootbench plan --help)");
	if (load(argv[0], &p) < 0)
		return EXIT_BADINPUT;
	for (size_t i = 0; i < p.req.nlayers; i++)
		printf("layer %s\n", p.req.layers[i]);
	if (p.req.memory)
		printf("memory %llu\n", p.req.memory);
	if (p.req.disks)
		printf("disks %u\n", p.req.disks);
	if (p.req.cpus)
		printf("cpus %u\n", p.req.cpus);
	plan_free(&p);
	if (fflush(stdout) == EOF || ferror(stdout))
		die_sys(EXIT_SYSFAIL, "unable to write to stdout");
	return 0;
}

int plan_main(int argc, char **argv)
{
	if (argc < 2) {
		fputs(plan_usage, stderr);
		return EXIT_BADINPUT;
	}
	if (!strcmp(argv[1], "check"))
		return check(argc - 2, argv + 2);
	if (!strcmp(argv[1], "show"))
		return show(argc - 2, argv + 2);
	if (!strcmp(argv[1], "requires"))
		return requires(argc - 2, argv + 2);
	fputs(plan_usage, stderr);
	die(EXIT_BADINPUT, "unknown plan subcommand %s (check, show or requires)", argv[1]);
}
