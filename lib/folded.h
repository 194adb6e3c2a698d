/*
 * folded.h - call stacks as folded lines ("comm;outer;...;leaf" and a
 * weight, the format of flame graphs): built from `perf script` output in
 * the appliance (cpu-clock samples; with offcpu.h the blocks), bounded, and read back from records
 * by compare. Parsers take buffers; everything read is hostile (a record,
 * perf's output): frames and stacks are bounded and checked, never
 * trusted.
 */
#ifndef BB_FOLDED_H
#define BB_FOLDED_H

#include <stddef.h>

#include "json.h"

#define FOLDED_MAX_DEPTH 64		/* frames kept of a stack: the leaf-most (the hot end) */
#define FOLDED_MAX_FRAME 128		/* bytes of a frame's name */
#define FOLDED_MAX_STACK 4096		/* bytes of a folded line */
#define FOLDED_MAX_DISTINCT 65536	/* stacks told apart; samples of more are counted in "other" */
#define FOLDED_TOP 1000		/* stacks a run record keeps, by weight; the rest in "other" */
#define FOLDED_TOP_BYTES (1u << 20)	/* ... and at most this much stack text a list: perf's and the
					 * off-CPU lists stay well inside a record (RECORD_PAYLOAD_MAX) */

struct folded_stack {
	char *stack;			/* "comm;outer;...;leaf" */
	unsigned long long samples;	/* its weight: samples (off-CPU: µs) */
	unsigned long long events;	/* what was counted (off-CPU: blocks); samples otherwise */
};

struct folded {
	struct folded_stack *s;		/* open-addressed table (cap), then sorted by folded_sort */
	size_t n, cap;
	int sorted;
	unsigned long long samples;	/* every sample read */
	unsigned long long kernel;	/* samples whose leaf is in the kernel */
	unsigned long long other;	/* samples not kept in s (too many distinct stacks) */
	unsigned long long other_events;	/* their events */
	unsigned long long truncated;	/* stacks deeper than FOLDED_MAX_DEPTH, cut at the root */
	unsigned long long bad;		/* lines that were not a sample's, samples of events not folded, records
					 * that did not read */
};

/* Resolve a kernel text address to its function name, NULL when not
 * kernel text (ctx: the caller's symbol table). */
typedef const char *(*folded_resolve_fn)(void *ctx, unsigned long long addr);

struct offcpu;

/* Fold `perf script -F comm,pid,tid,time,event,ip --show-switch-events
 * --show-task-events` output: a line "COMM PID/TID SEC.USEC: EVENT: " per sample (or the
 * older "COMM " alone: -F comm,ip), then its callchain leaf first, one
 * tab-indented hex address a line, then a blank line; switch records a
 * line each ("COMM PID/TID SEC.USEC: PERF_RECORD_SWITCH_CPU_WIDE OUT
 * [preempt] next pid/tid: P/T", "... IN prev pid/tid: P/T") and fork and
 * exit records ("... PERF_RECORD_FORK(P:T):(PP:PT)"). cpu-clock
 * samples (and those of no named event) fold into on; with off, cs
 * samples and the switch records pair into off (offcpu.h), else they are
 * counted bad. Kernel text resolves through fn; other kernel addresses
 * (modules) become "[kernel.module]", user ones one "[user]" frame. 0, or
 * -1 with the reason (no memory). */
int perf_script_fold(const char *buf, size_t len, folded_resolve_fn fn, void *ctx, struct folded *on,
		     struct offcpu *off, char *err, size_t errlen);
/* Add n samples of one folded line (compare, reading records). */
void folded_add(struct folded *f, const char *stack, size_t len, unsigned long long n);
/* Add a weight and the events it is made of (off-CPU: µs, blocks). */
void folded_add_w(struct folded *f, const char *stack, size_t len, unsigned long long weight,
		  unsigned long long events);
/* Sort by samples, then by text (equal profiles print alike). */
void folded_sort(struct folded *f);
/* "stacks": [{"stack", "samples"}] of the top `keep` (and FOLDED_TOP_BYTES) after folded_sort,
 * "other_samples" (past them, and the uncounted), "samples",
 * "kernel_samples", "truncated_stacks" as members of the open object. */
void folded_json(struct jw *w, struct folded *f, size_t keep);
void folded_free(struct folded *f);

/* A folded line from outside (a record): its frames, at most max, each
 * pointing into buf (the line, copied and split in place: ';' becomes
 * NUL). Returns the frame count, or -1 when the line is not one: empty,
 * too long or deep, an empty frame, a control byte, a frame too long. */
int folded_split(char *buf, const char **frames, size_t max);

#endif
