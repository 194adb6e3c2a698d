/*
 * main.c - the bootbench multicall binary: host tool and appliance init.
 *
 * Invoked as /init (or as PID 1) it is the appliance; otherwise the first
 * argument names a command from the table below.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "commands.h"
#include "defaults.h"
#include "err.h"

const char init_usage[] =
"usage: bootbench init\n"
"\n"
"The appliance's PID 1 (the userland's /init is a link to bootbench). It\n"
"mounts /proc, /sys and devtmpfs, reads bootbench.* keys from the kernel\n"
"command line, loads the kernel's module archive, finds disks and the\n"
"results partition, records the boot, runs the plan, and powers off.\n"
"Refuses to run on the host unless it is PID 1.\n";

const struct command commands[] = {
	{ "collect", collect_main, "print the records of a results disk, partition or console log", collect_usage },
	{ "mkresults", mkresults_main, "create a results disk image, or format a device as one", mkresults_usage },
	{ "plan", plan_main, "check a plan file, or show the runs it expands to", plan_usage },
	{ "compare", compare_main, "compare kernels: change, significance and noise per figure", compare_usage },
	{ "export", export_main, "records as a KCIDB submission, for KernelCI", export_usage },
	{ "judge", judge_main, "a bisect step: is this commit's figure the good endpoint's or the bad one's?", judge_usage },
	{ "run", run_main, "run one workload here, under the appliance's watchdog", run_usage },
	{ "mkscratch", mkscratch_main, "label disks the appliance may destroy", mkscratch_usage },
	{ "serve", serve_main, "serve a document over HTTP with the http workload's server", serve_usage },
	{ "lava-job", lavajob_main, "write a LAVA job that boots the appliance and records every figure", lavajob_usage },
	{ "pxe", pxe_main, "boot server: hand out the rotation, serve kernels, receive results", pxe_usage },
	{ "runas", runas_main, "run a program as a user that is not root (for the workloads)", runas_usage },
	{ "init", init_main, "the appliance's PID 1 (only inside the appliance)", init_usage },
	{ NULL, NULL, NULL, NULL },
};

int wants_help(int argc, char **argv)
{
	for (int i = 1; i < argc; i++)
		if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h"))
			return 1;
	return 0;
}

static void usage(FILE *o)
{
	fprintf(o, "usage: bootbench COMMAND [ARGS...]   (bootbench COMMAND --help for more)\n\ncommands:\n");
	for (const struct command *c = commands; c->name; c++)
		fprintf(o, "  %-10s %s\n", c->name, c->summary);
	fprintf(o, "\nexit codes: 0 ok, 1 nothing found/readable, %d bad input, %d system failure\n",
		EXIT_BADINPUT, EXIT_SYSFAIL);
}

int main(int argc, char **argv)
{
	const char *base = strrchr(argv[0], '/');
	base = base ? base + 1 : argv[0];
	if (getpid() == 1 || !strcmp(base, "init")) {
		if (getpid() != 1) {
			fputs(init_usage, stderr);
			die(EXIT_BADINPUT, "init runs only as PID 1 inside the appliance");
		}
		return init_main(argc, argv);
	}
	if (argc < 2) {
		usage(stderr);
		return EXIT_BADINPUT;
	}
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") || !strcmp(argv[1], "help")) {
		usage(stdout);
		return 0;
	}
	for (const struct command *c = commands; c->name; c++)
		if (!strcmp(c->name, argv[1])) {
			/* runas: the program's own arguments may hold -h (a host) */
			if (strcmp(c->name, "runas") ? wants_help(argc - 1, argv + 1)
						     : argc > 2 && (!strcmp(argv[2], "--help") || !strcmp(argv[2], "-h"))) {
				fputs(c->usage, stdout);
				return 0;
			}
			if (!strcmp(c->name, "init") && getpid() != 1)
				die(EXIT_BADINPUT, "init runs only as PID 1 inside the appliance");
			return c->main(argc - 1, argv + 1);
		}
	usage(stderr);
	die(EXIT_BADINPUT, "unknown command %s", argv[1]);
}
