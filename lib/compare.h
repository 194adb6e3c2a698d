/*
 * compare.h - the analysis behind `bootbench compare` and its HTML report:
 * records in, one table per measurement mode out.
 */
#ifndef BB_COMPARE_H
#define BB_COMPARE_H

#include <stdio.h>

#include "json.h"
#include "stats.h"

#define CMP_MAX_KERNELS 16
#define CMP_MAX_TRACES 64

enum { ST_OK, ST_FAILED, ST_TIMEOUT, ST_CRASHED, ST_SKIPPED, ST_N };

struct cmp_boot {
	char id[33];
	char label[64];		/* "6.1.192 rt" */
	char mode[24];		/* wallclock, deterministic */
	char accel[16];
	char release[65], version[160], config[65], userland[65];
};

struct cmp_kernel {
	char label[64];
	char release[65], config[65], userland[65], accel[16];
	unsigned boots;
	unsigned st[ST_N];	/* runs by status */
};

struct cmp_cell {
	double *v;
	size_t n, cap;
	struct sample_stats s;
	double p, change;	/* vs the baseline; NAN when not computable */
	int significant, noisy, worse;
};

struct cmp_group {
	char *mode, *workload, *layout, *tunables, *metric, *unit, *better;
	struct cmp_cell cell[CMP_MAX_KERNELS];
	double mdc;		/* fraction of the baseline mean */
	size_t n5;		/* runs per kernel to detect 5% */
};

/* A run's counter trace kept for the report (issue: system counters). */
struct cmp_trace {
	char *title;		/* kernel, workload, layout */
	char *json;		/* the run's "counters" object */
};

struct cmp {
	/* settings */
	const char *baseline;
	double alpha, min_effect, noisy;
	const char *src;	/* for messages */
	/* data */
	struct cmp_boot *boots;
	size_t nboots;
	struct cmp_kernel kernels[CMP_MAX_KERNELS];
	size_t nkernels;
	size_t base;		/* index of the baseline kernel */
	struct cmp_group *groups;
	size_t ngroups;
	char **modes;
	size_t nmodes;
	struct cmp_trace traces[CMP_MAX_TRACES];
	size_t ntraces;
	unsigned nruns;
};

void cmp_init(struct cmp *c);
void cmp_add_record(struct cmp *c, const struct jv *rec);
/* Statistics; -1 (with a message) when there is nothing to compare or the
 * baseline is unknown. */
int cmp_finish(struct cmp *c);
void cmp_print_table(const struct cmp *c, FILE *o);
void cmp_print_csv(const struct cmp *c, FILE *o);
int cmp_write_html(const struct cmp *c, const char *path);
void cmp_free(struct cmp *c);
/* "6.1.192 rt" from a release and version string. */
void kernel_label(const char *release, const char *version, char *out, size_t len);

#endif
