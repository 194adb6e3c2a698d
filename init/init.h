/*
 * init.h - state shared by the PID-1 steps.
 */
#ifndef BB_INIT_H
#define BB_INIT_H

#include "blkdev.h"
#include "cmdline.h"
#include "defaults.h"
#include "record.h"
#include "sbuf.h"

struct appliance {
	double uptime_start;		/* /proc/uptime when init began */
	double first_run_uptime;	/* /proc/uptime when the first run began, 0: none yet */
	char *cmdline_raw;
	char *cmdline_shown;	/* cmdline_raw with the upload token replaced (redact_token):
				 * what records and the console show */
	char *upload_shown;	/* bootbench.upload's URL, likewise */
	struct cmdline cl;
	struct bbconf conf;
	char release[65], version[257], machine[65];
	char userland_id[65];
	struct sbuf mod_loaded, mod_missing, mod_failed;	/* space separated */
	struct sbuf mod_why;		/* "module\twhy it was loaded\n" per loaded module */
	unsigned nloaded, nmissing, nfailed;
	struct blkdev devs[MAX_BLOCKDEVS];
	size_t ndevs;
	struct recorder rec;
	char results_dev[64];		/* "" when none */
	int stop_requested;		/* a signal asked us to end early */
	struct sbuf lines;		/* this boot's record lines (for the upload) */
};

extern struct appliance A;

/* init/modules.c: the drivers of the machine's devices (a step), then
 * what the plan's layouts need (NULL: nothing) */
struct plan;
int load_modules(void);
int load_plan_modules(const struct plan *p);
/* init/bootrec.c */
char *boot_record_json(void);
long long meminfo_kib(const char *key);	/* a /proc/meminfo field, -1: unreadable */
void print_summary(void);
/* init/plan.c: read and parse the plan (before the modules it needs), then
 * run it (after the boot record) */
int read_plan(void);
int load_the_plans_modules(void);
int run_plan(void);
/* init/init.c: look at pending signals (between runs) */
void init_check_signals(void);
/* init/busy.c: a spinner that keeps a deterministic boot's clock from
 * leaping while init waits on disks; stopped around every run */
void busy_start(void);
void busy_stop(void);
/* init/results.c */
int open_results(void);
/* init/upload.c: with bootbench.upload=URL, send the records not yet
 * acknowledged (this_boot: the records of this boot, for console-only boots) */
void upload_results(const struct sbuf *this_boot);
/* ... and before the plan runs, tell the server this boot started (a
 * signed empty POST): the evidence its schedule moves on */
void upload_started(void);

#endif
