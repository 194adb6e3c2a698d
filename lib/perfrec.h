/*
 * perfrec.h - perf record around a run (the appliance's static perf,
 * rootfs/recipes/linux-source-6.12.sh): every CPU, the cpu-clock software
 * event (it needs no PMU, so it samples under QEMU TCG too), kernel and
 * user call chains, at a fixed frequency. perf starts with its events off
 * (-D -1) and is switched on and off through its control pipes
 * (--control fd:), each switch acknowledged, so its start-up and its
 * writing of the data are never inside the run. The samples are then
 * folded (`perf script -F comm,ip`, lib/folded.h) against the kernel's
 * symbols.
 */
#ifndef BB_PERFREC_H
#define BB_PERFREC_H

#include <sys/types.h>

#include "folded.h"

struct perf_live {
	int ok;			/* perf can run here */
	char why[200];		/* when !ok, or the last failure */
	char perf[128];		/* the program */
	char dir[64];		/* where perf.data goes (tmpfs) */
	unsigned hz;		/* sampling frequency */
	pid_t pid;		/* the recording in flight, 0: none */
	int ctl, ack;		/* our ends of its control pipes */
	int enabled;
};

/* Check perf (executable, and perf_event_open allowed): 0, or -1 with why. */
int perf_open(struct perf_live *l, const char *perf, const char *dir, unsigned hz);
/* Start a recording and switch it on: 0 once perf acknowledged, -1 (why). */
int perf_begin(struct perf_live *l);
/* Switch it off (the run ended): 0 acknowledged, -1. Fast: call it first. */
int perf_pause(struct perf_live *l);
/* Stop perf, fold its samples into f (kernel text by fn); 0 or -1 with err.
 * Bounded: perf's output past the capture limit is counted as lost. */
int perf_collect(struct perf_live *l, folded_resolve_fn fn, void *ctx, struct folded *f, unsigned long long *lost,
		 char *err, size_t errlen);
/* Kill a recording still in flight (a run that timed out) and forget it. */
void perf_abort(struct perf_live *l);

#endif
