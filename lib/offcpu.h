/*
 * offcpu.h - where tasks blocked, and for how long: perf's context-switch
 * samples (`-e cs/period=1/`, a call chain at every switch out) paired
 * with its switch records (`--switch-events`). The appliance's perf has no
 * libtraceevent, so sched:sched_switch is not readable; the cs software
 * event and the switch records need none and work under QEMU TCG.
 *
 * A block: task T's cs sample (its stack as it left the CPU), then its
 * switch-out record not marked preempt (a preempted task was runnable: it
 * waited for a CPU, not for something), then the switch-in record of T:
 * the time between is the block's weight. Blocks still open when the
 * data ends are counted apart (unfinished), as are cs samples no switch
 * record followed (unpaired); they never weigh a stack. A task's last
 * switch, after its exit record, is no block (exits). Whose blocks count:
 * with a root (the run's workload process), the root and every process
 * forked from one that counts (perf's fork records), so kernel threads
 * waiting for work and init waiting for the run are not in it; without
 * one, every task but the PIDs in skip.
 *
 * Everything read is perf's output, treated as hostile: tasks blocked at
 * once are bounded (OFFCPU_MAX_PENDING, the rest counted), stacks go into
 * a bounded struct folded.
 */
#ifndef BB_OFFCPU_H
#define BB_OFFCPU_H

#include "folded.h"
#include "json.h"

#define OFFCPU_MAX_PENDING 1024	/* tasks blocked at one time that are followed */
#define OFFCPU_MAX_SKIP 4
#define OFFCPU_MAX_TASKS 131072	/* processes of the run, and tasks exited, known */

struct offcpu_set {		/* a set of ids, open addressing (offcpu.c) */
	long *k;
	size_t n, cap, tombs;
};

struct offcpu_pend {
	long tid;
	unsigned long long t;	/* µs: the cs sample's, then the switch out's */
	int out;		/* the switch out was seen (not preempted): blocked */
	char *stack;
};

struct offcpu {
	struct folded f;		/* stacks: samples = µs blocked, events = blocks */
	unsigned long long blocks, us;	/* blocks paired, and their time */
	unsigned long long preempted;	/* switched out while runnable: not blocks */
	unsigned long long unfinished, unfinished_us;	/* blocked when the data ended (µs to its last event) */
	unsigned long long unpaired;	/* cs samples without a switch out and in after */
	unsigned long long untracked;	/* blocks past OFFCPU_MAX_PENDING at once */
	unsigned long long skipped;	/* cs samples of tasks not the run's (or skipped PIDs) */
	unsigned long long exits;	/* a task's last switch, after its exit */
	unsigned long long overflow;	/* processes or exits past OFFCPU_MAX_TASKS: not known */
	long root;			/* the run's process, 0: none */
	struct offcpu_set procs;	/* the root and what it forked */
	struct offcpu_set exited;	/* tasks whose exit was read */
	unsigned long long last;	/* µs: the last event's time */
	long skip[OFFCPU_MAX_SKIP];
	size_t nskip;
	struct offcpu_pend *p;
	size_t np;
};

/* Leave PID pid out (up to OFFCPU_MAX_SKIP; without a root only). */
void offcpu_skip(struct offcpu *o, long pid);
/* The run's own process: only it and its descendants count. */
void offcpu_root(struct offcpu *o, long pid);
/* perf's fork and exit records (task pid/tid, its parent's ppid/ptid). */
void offcpu_fork(struct offcpu *o, long pid, long tid, long ppid);
void offcpu_exit(struct offcpu *o, long tid);
/* A cs sample of task tid (process pid) at t µs, its folded stack
 * (truncated: cut at the depth bound, counted when the task is the run's). */
void offcpu_sample(struct offcpu *o, long pid, long tid, unsigned long long t, const char *stack, size_t len,
		   int truncated);
/* A switch record of tid at t: out (preempt: runnable) or in. */
void offcpu_switch(struct offcpu *o, long tid, unsigned long long t, int out, int preempt);
/* The data ended: blocks still open counted as unfinished. */
void offcpu_end(struct offcpu *o);
/* The members of the open object "offcpu": the top `keep` stacks. */
void offcpu_json(struct jw *w, struct offcpu *o, size_t keep);
void offcpu_free(struct offcpu *o);

#endif
