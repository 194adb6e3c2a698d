/*
 * commands.h - the multicall table: one command per file in cmd/ (toybox).
 * Each file starts with its usage text; `bootbench CMD --help` prints it.
 */
#ifndef BB_COMMANDS_H
#define BB_COMMANDS_H

struct command {
	const char *name;
	int (*main)(int argc, char **argv);
	const char *summary;
	const char *usage;
};

extern const struct command commands[];

int collect_main(int argc, char **argv);
int mkresults_main(int argc, char **argv);
int init_main(int argc, char **argv);
int run_main(int argc, char **argv);
int mkscratch_main(int argc, char **argv);
int compare_main(int argc, char **argv);
int plan_main(int argc, char **argv);
int serve_main(int argc, char **argv);
extern const char serve_usage[];
int pxe_main(int argc, char **argv);
extern const char pxe_usage[];
int lavajob_main(int argc, char **argv);
extern const char lavajob_usage[];
int runas_main(int argc, char **argv);
int export_main(int argc, char **argv);
int judge_main(int argc, char **argv);
extern const char judge_usage[];
extern const char export_usage[];
extern const char runas_usage[];

extern const char run_usage[], mkscratch_usage[], compare_usage[];
extern const char collect_usage[], mkresults_usage[], init_usage[], plan_usage[];

/* Small shared helpers for commands. */
int wants_help(int argc, char **argv);
/* Sizes and durations: lib/units.h, the one grammar of each. What a disk
 * holds: lib/probe.h. */

#endif
