/*
 * perfrec.h - perf record beside the runs (the appliance's static perf,
 * rootfs/recipes/linux-source-6.12.sh): every CPU, the cpu-clock software
 * event (it needs no PMU, so it samples under QEMU TCG too), kernel and
 * user call chains, at a fixed frequency; and every context switch with
 * its chain, for where tasks blocked (offcpu.h). One perf session a boot (its
 * start-up read kallsyms four times: 0.7 guest seconds, too much for each
 * run), started with its events off (-D -1), switched on before a run and
 * off after it through its control pipes (--control fd:, each switch
 * acknowledged), and its output cut after each run (--switch-output,
 * SIGUSR2), so a run's file holds that run's samples and perf's own
 * start-up and writing are never inside a run. A run's file is folded
 * (`perf script -F comm,pid,tid,time,event,ip --show-switch-events
 * --show-task-events`,
 * lib/folded.h, lib/offcpu.h) against the kernel's symbols
 * init already holds (perf script is told --kallsyms of an empty file:
 * reading the real one cost 0.5 s a run).
 */
#ifndef BB_PERFREC_H
#define BB_PERFREC_H

#include <sys/types.h>

#include "folded.h"
#include "offcpu.h"

struct perf_live {
	int ok;			/* a session runs */
	char why[200];		/* when !ok, or the last failure */
	char perf[128];		/* the program */
	char dir[64];		/* where the data goes (tmpfs) */
	unsigned hz;		/* sampling frequency */
	int offcpu;		/* every switch sampled too (offcpu.h) */
	pid_t pid;		/* the session */
	int ctl, ack, err;	/* our ends of its control pipes and its stderr */
	int enabled;
	char pending[4096];	/* stderr read but not yet a whole line */
	size_t npending;
};

/* No session, and why (perf_close then has nothing to close). */
void perf_none(struct perf_live *l, const char *why);
/* Start the session (events off; offcpu: the switches sampled too): 0, or -1 with why (no perf, no perf
 * events in this kernel, perf would not start). */
int perf_open(struct perf_live *l, const char *perf, const char *dir, unsigned hz, int offcpu);
/* Switch sampling on for a run: 0 once perf acknowledged, -1 (why). */
int perf_begin(struct perf_live *l);
/* Switch it off (the run ended): 0 acknowledged, -1. Fast: call it first. */
int perf_pause(struct perf_live *l);
/* Cut the session's output at the run's end and fold that file: the
 * cpu-clock samples into f, and with offcpu the blocks into off (offcpu.h;
 * off may be NULL; kernel text by fn): 0, or -1 with err. Bounded: perf script's output past the capture
 * limit is counted in *lost. */
int perf_collect(struct perf_live *l, folded_resolve_fn fn, void *ctx, struct folded *f, struct offcpu *off,
		 unsigned long long *lost, char *err, size_t errlen);
/* End the session and remove its files. */
void perf_close(struct perf_live *l);

#endif
