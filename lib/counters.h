/*
 * counters.h - system counters beside every figure: /proc/stat CPU time,
 * /proc/vmstat paging, /proc/diskstats per device, /proc/meminfo. Parsers
 * take buffers and tolerate every kernel era's format (2.4's /proc/stat page
 * and swap lines, diskstats with 14, 18 or 20 fields); the monitor samples
 * them while a run executes and summarises (mean, max) with the trace.
 */
#ifndef BB_COUNTERS_H
#define BB_COUNTERS_H

#include <stddef.h>

#include "json.h"

#define CTR_MAX_DISKS 16

struct cpu_times {
	unsigned long long user, nice, system, idle, iowait, irq, softirq, steal;
	int fields;		/* how many the kernel gave (4 on 2.4, 8+ today) */
	/* the rest of /proc/stat: cumulative context switches and interrupts,
	 * tasks runnable and blocked on I/O now (2.6+) */
	unsigned long long ctxt, intr, running, blocked;
};

struct vm_counts {
	unsigned long long pgpgin, pgpgout, pswpin, pswpout, pgfault, pgmajfault;
	/* pages scanned and reclaimed, kswapd + direct + khugepaged, summed over
	 * zones on kernels that split them (2.6-4.7) */
	unsigned long long pgscan, pgsteal;
	/* the same, kswapd's and direct reclaim's apart (0 where the kernel
	 * does not split them: 2.6's pgsteal_ZONE) */
	unsigned long long pgscan_kswapd, pgscan_direct, pgsteal_kswapd, pgsteal_direct;
	int have_faults;	/* pgfault/pgmajfault exist (2.6+) */
};

struct disk_counts {
	char name[32];
	unsigned long long reads, rsect, writes, wsect, io_ticks, queue_ms;	/* io_ticks: ms busy */
};

struct mem_info {
	unsigned long long total, free, buffers, cached, dirty, writeback;	/* KiB */
};

/* Parsers: 0 on success, -1 when the text is not what they expect. */
/* /proc/PID/stat: utime + stime in clock ticks (comm may hold anything:
 * read from the last ')'). */
int parse_task_stat(const char *buf, size_t len, unsigned long long *ticks);
int parse_proc_stat(const char *buf, size_t len, struct cpu_times *cpu, struct vm_counts *vm);
int parse_vmstat(const char *buf, size_t len, struct vm_counts *vm);
/* Whole disks only (partitions, ram, loop, zram skipped); returns count. */
int parse_diskstats(const char *buf, size_t len, struct disk_counts *d, int max);
int parse_meminfo(const char *buf, size_t len, struct mem_info *m);

struct ctr_snapshot {
	double t;	/* seconds since the monitor started */
	struct cpu_times cpu;
	struct vm_counts vm;
	struct disk_counts disk[CTR_MAX_DISKS];
	int ndisk;
	struct mem_info mem;
	unsigned long long kswapd_ticks;	/* CPU time of every kswapd thread, clock ticks */
	int nkswapd;				/* how many were read */
};

/* Read the live /proc files into a snapshot. */
void ctr_sample(struct ctr_snapshot *s, double t);

/* A run's samples are bounded: past CTR_MAX_SAMPLES every other one is
 * dropped and the stride doubles, so a long run at a short interval keeps
 * an evenly spaced trace of at most that many points (and says so). */
#define CTR_MAX_SAMPLES 512

struct ctr_monitor {
	unsigned interval_ms;
	double t0;
	struct ctr_snapshot *snap;
	size_t n, cap;
	unsigned long ticks;	/* samples taken */
	unsigned stride;	/* keep one sample in stride */
	int pending;		/* snap[n-1] is the latest, not a kept one */
};

void ctr_start(struct ctr_monitor *m, unsigned interval_ms, double t0);
void ctr_tick(struct ctr_monitor *m, double t);	/* takes a sample */
/* Write "counters": {interval_ms, samples, [decimated_by], summary{series:
 * {mean,max,unit}}, trace{t,...}} as a member of the object being written. */
void ctr_json(const struct ctr_monitor *m, struct jw *w);
void ctr_free(struct ctr_monitor *m);

#endif
