/*
 * stalls.h - where a run's processes waited: pressure stall information
 * (CONFIG_PSI: /proc/pressure/{cpu,io,memory}, the time in microseconds
 * some or all non-idle tasks were stalled) and per-task delay accounting
 * (CONFIG_TASK_DELAY_ACCT, read from the taskstats genetlink family: the
 * record every task sends when it exits, summed over the processes the
 * workload forked). Parsers take buffers, so tests feed them made-up input.
 */
#ifndef BB_STALLS_H
#define BB_STALLS_H

#include <stddef.h>
#include <stdint.h>

#include "json.h"

enum { PSI_CPU, PSI_IO, PSI_MEM, PSI_N };

struct psi {
	int have[PSI_N];	/* the file was there and parsed */
	int have_full[PSI_N];	/* a "full" line (cpu has one since 5.13) */
	unsigned long long some_us[PSI_N], full_us[PSI_N];
};

/* One /proc/pressure file: "some avg10=.. total=N" and "full ... total=N". */
int psi_parse(const char *buf, size_t len, unsigned long long *some, unsigned long long *full, int *have_full);
void psi_sample(struct psi *p);
/* "pressure": {available, cpu:{some_us, full_us}, io:..., memory:...}: after - before */
void psi_json(struct jw *w, const struct psi *before, const struct psi *after);

/* One task's exit record: the delay totals (ns) and counts. */
enum { DL_CPU, DL_BLKIO, DL_SWAPIN, DL_RECLAIM, DL_THRASHING, DL_COMPACT, DL_N };
extern const char *const dl_names[DL_N];

struct ts_exit {
	uint32_t pid, ppid;
	uint64_t count[DL_N], delay_ns[DL_N];
	int have[DL_N];		/* the kernel's struct is long enough to carry it */
};

/* Bounded: exit records past this many in one run are counted, not kept. */
#define TS_MAX_EXITS 262144

struct ts_listener {
	int fd;
	uint16_t family;
	uint32_t seq;
	struct ts_exit *e;
	size_t n, cap;
	int mapped;			/* e is ts_open's mapping of TS_MAX_EXITS records, not malloc's */
	unsigned long long over;	/* records past TS_MAX_EXITS */
	unsigned long long lost;	/* times the socket overflowed (ENOBUFS): each dropped one record or more */
	unsigned long long bad;		/* messages that did not parse */
	unsigned version;		/* TASKSTATS_VERSION of the kernel's records */
	char why[200];			/* when fd < 0 */
};

/* Parse one netlink datagram (one or more messages) from the taskstats
 * family; exit records are appended to l. Returns the records added, -1 when
 * the bytes are malformed (counted in l->bad). */
int ts_parse(struct ts_listener *l, const void *buf, size_t len);
/* Sum the records of every task descending from `parent` (the watchdog:
 * its workload child, its threads, and what reparented to the watchdog);
 * *nproc gets how many records were summed (tasks: processes and threads). */
void ts_sum(const struct ts_listener *l, uint32_t parent, struct ts_exit *sum, size_t *nproc);
/* "delays": {tasks, source, cpu:{delay_ns,count}, ...} plus "incomplete"
 * when records were lost, past the bound or unreadable. */
void ts_json(struct jw *w, const struct ts_listener *l, const struct ts_exit *sum, size_t nproc, int enabled);

/* Live side. ts_open registers for every possible CPU's exit records (it
 * needs CAP_NET_ADMIN); ts_drain reads what is queued without blocking. */
int ts_open(struct ts_listener *l);
void ts_drain(struct ts_listener *l);
void ts_reset(struct ts_listener *l);	/* forget the records kept (between runs) */
void ts_close(struct ts_listener *l);

/* kernel.task_delayacct (5.14+: off by default): 1 when on after the call,
 * 0 when it could not be turned on; *was gets the old value (-1: no such
 * sysctl, which means delay accounting is always on: before 5.14). */
int delayacct_enable(int *was);
void delayacct_restore(int was);

#endif
