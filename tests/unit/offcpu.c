/*
 * offcpu.c - perf's context-switch samples, switch records and fork and
 * exit records into stacks weighted by the time blocked: the shapes perf
 * 6.12's `perf script -F comm,pid,tid,time,event,ip --show-switch-events
 * --show-task-events` prints, preempted switches (runnable: not a block),
 * blocks open at the end, samples with no switch after them, skipped
 * PIDs, a root and what it forked (threads, exits, PIDs used again, PIDs
 * that wrap), the bounds on tasks followed and known, and hostile lines
 * (comms with blanks, colons and the records' own marker, COMM records).
 */
#include <stdlib.h>

#include "folded.h"
#include "offcpu.h"
#include "sbuf.h"
#include "tap.h"
#include "xio.h"

static const char *resolve(void *ctx, unsigned long long a)
{
	(void)ctx;
	if (a == 0xffffffff81000010ULL)
		return "schedule";
	if (a == 0xffffffff81000020ULL)
		return "io_schedule";
	if (a == 0xffffffff81000030ULL)
		return "blkdev_read_iter";
	if (a == 0xffffffff81000040ULL)
		return "do_nanosleep";
	return NULL;
}

static const struct folded_stack *find(struct folded *f, const char *stack)
{
	for (size_t i = 0; i < f->cap; i++)
		if (f->s[i].stack && !strcmp(f->s[i].stack, stack))
			return &f->s[i];
	return NULL;
}

#define IO "\tffffffff81000010\n\tffffffff81000020\n\tffffffff81000030\n\n"
#define SLEEP "\tffffffff81000010\n\tffffffff81000040\n\n"

int main(void)
{
	struct folded on = {0};
	struct offcpu off = {0};
	const struct folded_stack *s;
	char err[100];
	struct jw w;

	tap_plan(29);
	static const char perf[] =
		/* a clock sample, then hdparm blocks for I/O twice: 1000 us and 250.5 us */
		"hdparm    200/200    10.000100: cpu-clock/freq=6000/: \n"
		"\tffffffff81000030\n\n"
		"hdparm    200/200    10.001000:         cs/period=1/: \n" IO
		"          hdparm   200/200     10.001004: PERF_RECORD_SWITCH_CPU_WIDE OUT          next pid/tid:     0/0    \n"
		"         swapper     0/0       10.001005: PERF_RECORD_SWITCH_CPU_WIDE IN           prev pid/tid:   200/200  \n"
		"          hdparm   200/200     10.002004: PERF_RECORD_SWITCH_CPU_WIDE IN           prev pid/tid:     0/0    \n"
		"hdparm    200/200    10.003000:         cs/period=1/: \n" IO
		"          hdparm   200/200     10.003000: PERF_RECORD_SWITCH_CPU_WIDE OUT          next pid/tid:     0/0    \n"
		"          hdparm   200/200     10.0032505: PERF_RECORD_SWITCH_CPU_WIDE IN           prev pid/tid:     0/0    \n"
		/* a thread (tid 201 of pid 200) preempted: runnable, no block */
		"hdparm    200/201    10.004000:         cs/period=1/: \n" SLEEP
		"          hdparm   200/201     10.004001: PERF_RECORD_SWITCH_CPU_WIDE OUT preempt  next pid/tid:   300/300  \n"
		"          hdparm   200/201     10.009000: PERF_RECORD_SWITCH_CPU_WIDE IN           prev pid/tid:   300/300  \n"
		/* init (pid 1) waits for the run: skipped */
		"init      1/1        10.000050:         cs/period=1/: \n" SLEEP
		"            init     1/1       10.000051: PERF_RECORD_SWITCH_CPU_WIDE OUT          next pid/tid:     0/0    \n"
		"            init     1/1       10.009000: PERF_RECORD_SWITCH_CPU_WIDE IN           prev pid/tid:     0/0    \n"
		/* a hostile comm: blanks, a colon, the record's marker; it sleeps 2000 us */
		"a b: PERF_REC  77/77    10.005000:         cs/period=1/: \n" SLEEP
		"   a b: PERF_REC  77/77     10.005000: PERF_RECORD_SWITCH_CPU_WIDE OUT          next pid/tid:     0/0    \n"
		"   a b: PERF_REC  77/77     10.007000: PERF_RECORD_SWITCH_CPU_WIDE IN           prev pid/tid:     0/0    \n"
		/* a sample whose switch never came (the data was cut) */
		"sync      90/90      10.008000:         cs/period=1/: \n" SLEEP
		/* still blocked at the end: 10.008500 to 10.009000 */
		"jbd2/vda-8  50/50    10.008500:         cs/period=1/: \n" IO
		"       jbd2/vda-8    50/50     10.008500: PERF_RECORD_SWITCH_CPU_WIDE OUT          next pid/tid:     0/0    \n"
		/* junk: a switch record with no time, an unknown event */
		"   x 9/9 PERF_RECORD_SWITCH_CPU_WIDE OUT\n"
		"   y 9/9 10.0: PERF_RECORD_SWITCH_CPU_WIDE SIDEWAYS\n"
		"z    9/9    10.000000:     page-faults: \n\tffffffff81000010\n\n";
	offcpu_skip(&off, 0);
	offcpu_skip(&off, 1);
	is_int(perf_script_fold(perf, sizeof perf - 1, resolve, NULL, &on, &off, err, sizeof err), 0, "perf's output is read");
	is_int(on.samples, 1, "the clock sample goes to the on-CPU stacks, and only it");
	ok(find(&on, "hdparm;blkdev_read_iter") != NULL, "... as hdparm;blkdev_read_iter");
	s = find(&off.f, "hdparm;blkdev_read_iter;io_schedule;schedule");
	ok(s && s->samples == 1250 && s->events == 2, "hdparm's two I/O blocks: 1000 + 250 us, two blocks (%llu us, %llu)",
	   s ? s->samples : 0, s ? s->events : 0);
	is_int(off.preempted, 1, "a preempted switch is counted, not a block");
	ok(!find(&off.f, "hdparm;do_nanosleep;schedule"), "... and weighs no stack");
	is_int(off.skipped, 1, "init's block is left out");
	ok(!find(&off.f, "init;do_nanosleep;schedule"), "... and weighs nothing");
	s = find(&off.f, "a b: PERF_REC;do_nanosleep;schedule");
	ok(s && s->samples == 2000, "a comm with blanks, a colon and the marker's start is read whole (%llu us)",
	   s ? s->samples : 0);
	is_int(off.blocks, 3, "three blocks paired");
	is_int(off.us, 3250, "... 3250 us in all");
	is_int(off.unfinished, 1, "a block open at the end is unfinished");
	is_int(off.unfinished_us, 500, "... 500 us to the last event");
	ok(!find(&off.f, "jbd2/vda-8;blkdev_read_iter;io_schedule;schedule"), "... and weighs no stack");
	is_int(off.unpaired, 1, "a sample no switch followed is unpaired");
	ok(on.bad >= 3, "junk switch records and other events are counted bad (%llu)", on.bad);

	jw_init(&w);
	jw_obj(&w, NULL);
	offcpu_json(&w, &off, 1);
	jw_obj_end(&w);
	ok(strstr(w.sb.s, "\"unit\":\"us\",\"us\":3250,\"blocks\":3") &&
	   strstr(w.sb.s, "\"stack\":\"a b: PERF_REC;do_nanosleep;schedule\",\"us\":2000,\"blocks\":1") &&
	   strstr(w.sb.s, "\"other_us\":1250,\"other_blocks\":2") && strstr(w.sb.s, "\"unfinished_us\":500"),
	   "the record: the top stack by time, the rest in other (%s)", w.sb.s);
	sb_free(&w.sb);
	folded_free(&on);
	offcpu_free(&off);

	/* with the run's process as root: only it and what it forked count */
	{
		static const char tree[] =
			"  init  1/1  29.000000: PERF_RECORD_FORK(500:500):(1:1)\n"
			"  run  500/500  30.000000: PERF_RECORD_FORK(501:501):(500:500)\n"
			"  run  501/501  30.000001: PERF_RECORD_FORK(501:502):(501:501)\n"
			"  other 7/7     30.000002: PERF_RECORD_FORK(600:600):(7:7)\n"
			/* the root, its child's thread, a kernel thread, an outsider: each blocks 100 us */
			"run  500/500  30.001000:  cs/period=1/: \n" SLEEP
			"  run  500/500  30.001000: PERF_RECORD_SWITCH_CPU_WIDE OUT   next pid/tid: 0/0\n"
			"  run  500/500  30.001100: PERF_RECORD_SWITCH_CPU_WIDE IN   prev pid/tid: 0/0\n"
			"child  501/502  30.002000:  cs/period=1/: \n" IO
			"  child  501/502  30.002000: PERF_RECORD_SWITCH_CPU_WIDE OUT   next pid/tid: 0/0\n"
			"  child  501/502  30.002100: PERF_RECORD_SWITCH_CPU_WIDE IN   prev pid/tid: 0/0\n"
			"kworker/0:1  40/40  30.003000:  cs/period=1/: \n" SLEEP
			"  kworker/0:1  40/40  30.003000: PERF_RECORD_SWITCH_CPU_WIDE OUT   next pid/tid: 0/0\n"
			"  kworker/0:1  40/40  30.003100: PERF_RECORD_SWITCH_CPU_WIDE IN   prev pid/tid: 0/0\n"
			"other  600/600  30.004000:  cs/period=1/: \n" SLEEP
			"  other  600/600  30.004000: PERF_RECORD_SWITCH_CPU_WIDE OUT   next pid/tid: 0/0\n"
			"  other  600/600  30.004100: PERF_RECORD_SWITCH_CPU_WIDE IN   prev pid/tid: 0/0\n"
			/* the child exits: its last switch is no block, and never unfinished */
			"  child  501/501  30.005000: PERF_RECORD_EXIT(501:501):(500:500)\n"
			":501  501/501  30.005001:  cs/period=1/: \n" SLEEP
			"  :501  501/501  30.005001: PERF_RECORD_SWITCH_CPU_WIDE OUT   next pid/tid: 0/0\n"
			/* its PID used again by an outsider's child: not the run's */
			"  other  600/600  30.006000: PERF_RECORD_FORK(501:501):(600:600)\n"
			"again  501/501  30.007000:  cs/period=1/: \n" SLEEP
			"  again  501/501  30.007000: PERF_RECORD_SWITCH_CPU_WIDE OUT   next pid/tid: 0/0\n"
			"  again  501/501  30.007100: PERF_RECORD_SWITCH_CPU_WIDE IN   prev pid/tid: 0/0\n"
			/* a fork record that is not one */
			"  run  500/500  30.008000: PERF_RECORD_FORK(5x:1):(500:500)\n";
		offcpu_root(&off, 500);
		perf_script_fold(tree, sizeof tree - 1, resolve, NULL, &on, &off, err, sizeof err);
		ok(off.blocks == 2 && find(&off.f, "run;do_nanosleep;schedule") &&
		   find(&off.f, "child;blkdev_read_iter;io_schedule;schedule"),
		   "with a root: its blocks and its child's thread's count, 2 (%llu)", off.blocks);
		ok(!find(&off.f, "kworker/0:1;do_nanosleep;schedule") && !find(&off.f, "other;do_nanosleep;schedule") &&
		   off.skipped == 3, "... a kernel thread's, an outsider's, and a reused PID's do not (%llu skipped)", off.skipped);
		ok(off.exits == 1 && off.unfinished == 0, "an exited task's last switch is an exit, not a block left open "
		   "(%llu exits, %llu unfinished)", off.exits, off.unfinished);
		ok(on.bad == 1, "a fork record that is not one is counted bad (%llu)", on.bad);
		folded_free(&on);
		offcpu_free(&off);
	}

	/* hostile lines: a comm holding the records' marker, a comm that starts
	 * with a blank, a COMM record (--show-task-events prints them) */
	{
		static const char odd[] =
			"x: PERF_RECORD_  700/700  40.000000:  cs/period=1/: \n" SLEEP
			"  x: PERF_RECORD_  700/700  40.000001: PERF_RECORD_SWITCH_CPU_WIDE OUT   next pid/tid: 0/0\n"
			"  x: PERF_RECORD_  700/700  40.000101: PERF_RECORD_SWITCH_CPU_WIDE IN   prev pid/tid: 0/0\n"
			" lead  701/701  40.001000:  cs/period=1/: \n" IO
			"  lead  701/701  40.001000: PERF_RECORD_SWITCH_CPU_WIDE OUT   next pid/tid: 0/0\n"
			"  lead  701/701  40.001200: PERF_RECORD_SWITCH_CPU_WIDE IN   prev pid/tid: 0/0\n"
			"sh  702/702  40.002000: PERF_RECORD_COMM exec: sh:702/702\n";
		perf_script_fold(odd, sizeof odd - 1, resolve, NULL, &on, &off, err, sizeof err);
		s = find(&off.f, "x: PERF_RECORD_;do_nanosleep;schedule");
		ok(s && s->samples == 100, "a comm holding ': PERF_RECORD_': its records still read (%llu us)", s ? s->samples : 0);
		s = find(&off.f, "lead;blkdev_read_iter;io_schedule;schedule");
		ok(s && s->samples == 200, "a comm that starts with a blank: its sample is a header, not frames (%llu us)",
		   s ? s->samples : 0);
		ok(on.samples == 0 && on.bad == 0, "a COMM record is no sample and no error (%llu samples, %llu bad)", on.samples,
		   on.bad);
		folded_free(&on);
		offcpu_free(&off);
	}
	/* PIDs that wrap: 100,000 forks and exits of the run's process over
	 * 32768 PIDs, each used again; the sets stay small and right */
	{
		struct sbuf sb = {0};
		for (int i = 0; i < 100000; i++) {
			int pid = 300 + i % 32000;
			sb_printf(&sb, "  r 9/9 50.%06d: PERF_RECORD_FORK(%d:%d):(9:9)\n", i % 1000000, pid, pid);
			sb_printf(&sb, "  c %d/%d 50.%06d: PERF_RECORD_EXIT(%d:%d):(9:9)\n", pid, pid, i % 1000000, pid, pid);
		}
		offcpu_root(&off, 9);
		perf_script_fold(sb.s, sb.len, resolve, NULL, &on, &off, err, sizeof err);
		ok(off.procs.n == 32001 && off.exited.n == 32000 && off.overflow == 0,
		   "100,000 forks over 32,000 PIDs: 32,001 processes known, 32,000 exited (%zu, %zu)", off.procs.n,
		   off.exited.n);
		sb_free(&sb);
		folded_free(&on);
		offcpu_free(&off);
	}
	/* more processes than are known: counted */
	{
		struct sbuf sb = {0};
		for (int i = 0; i < OFFCPU_MAX_TASKS + 5; i++)
			sb_printf(&sb, "  r 9/9 60.000000: PERF_RECORD_FORK(%d:%d):(9:9)\n", 1000 + i, 1000 + i);
		offcpu_root(&off, 9);
		perf_script_fold(sb.s, sb.len, resolve, NULL, &on, &off, err, sizeof err);
		jw_init(&w);
		jw_obj(&w, NULL);
		offcpu_json(&w, &off, 1);
		jw_obj_end(&w);
		ok(off.overflow == 6 && strstr(w.sb.s, "\"tasks_unknown\":6"), "past %d processes known, the rest are counted "
		   "and said (%llu)", OFFCPU_MAX_TASKS, off.overflow);
		sb_free(&w.sb);
		sb_free(&sb);
		folded_free(&on);
		offcpu_free(&off);
	}

	/* more tasks blocked at once than are followed: counted, bounded */
	{
		struct sbuf sb = {0};
		for (int i = 0; i < OFFCPU_MAX_PENDING + 10; i++) {
			sb_printf(&sb, "t    %d/%d    20.%06d:    cs/period=1/: \n" SLEEP, 1000 + i, 1000 + i, i);
			sb_printf(&sb, "  t  %d/%d   20.%06d: PERF_RECORD_SWITCH_CPU_WIDE OUT    next pid/tid: 0/0\n",
				  1000 + i, 1000 + i, i);
		}
		for (int i = 0; i < OFFCPU_MAX_PENDING + 10; i++)
			sb_printf(&sb, "  t  %d/%d   21.%06d: PERF_RECORD_SWITCH_CPU_WIDE IN    prev pid/tid: 0/0\n",
				  1000 + i, 1000 + i, i);
		perf_script_fold(sb.s, sb.len, resolve, NULL, &on, &off, err, sizeof err);
		ok(off.blocks == OFFCPU_MAX_PENDING && off.untracked == 10, "past %d tasks blocked at once the rest are counted "
		   "(%llu blocks, %llu untracked)", OFFCPU_MAX_PENDING, off.blocks, off.untracked);
		sb_free(&sb);
		folded_free(&on);
		offcpu_free(&off);
	}
	/* binary junk: read, never a block */
	{
		char junk[8192];
		for (size_t i = 0; i < sizeof junk; i++)
			junk[i] = (char)(i * 131 + 7);
		is_int(perf_script_fold(junk, sizeof junk, resolve, NULL, &on, &off, err, sizeof err), 0, "binary junk is read");
		ok(off.blocks == 0 && off.f.n == 0, "... and is no block");
		folded_free(&on);
		offcpu_free(&off);
	}
	return tap_done();
}
