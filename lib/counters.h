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
};

struct vm_counts {
	unsigned long long pgpgin, pgpgout, pswpin, pswpout, pgfault, pgmajfault;
	int have_faults;	/* pgfault/pgmajfault exist (2.6+) */
};

struct disk_counts {
	char name[32];
	unsigned long long reads, rsect, writes, wsect, io_ticks, queue_ms;
};

struct mem_info {
	unsigned long long total, free, buffers, cached, dirty, writeback;	/* KiB */
};

/* Parsers: 0 on success, -1 when the text is not what they expect. */
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
};

/* Read the live /proc files into a snapshot. */
void ctr_sample(struct ctr_snapshot *s, double t);

struct ctr_monitor {
	unsigned interval_ms;
	double t0;
	struct ctr_snapshot *snap;
	size_t n, cap;
};

void ctr_start(struct ctr_monitor *m, unsigned interval_ms, double t0);
void ctr_tick(struct ctr_monitor *m, double t);	/* takes a sample */
/* Write "counters": {interval_ms, summary{series:{mean,max,unit}}, trace{t,...}}
 * as a member of the object being written. */
void ctr_json(const struct ctr_monitor *m, struct jw *w);
void ctr_free(struct ctr_monitor *m);

#endif
