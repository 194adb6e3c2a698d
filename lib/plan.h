/*
 * plan.h - the plan language (docs/plans.md): what to build, what to run,
 * how often, with which block tunables. One plan per file.
 *
 *   # comment
 *   plan quick                      the plan's name (optional; default: file name)
 *   iterations 3                    runs of every (layout, tunables, workload)
 *   timeout 300                     per-run watchdog, seconds
 *   profile on|perf|offcpu          kernel profile and delay accounting per run (off by default);
 *                                   perf: perf's call-chain samples too; offcpu: and every
 *                                   context switch, where the run's tasks blocked (docs/why.md)
 *   requires layer=postgresql memory=1G disks=2 cpus=1   what a boot must have (checked before the first run)
 *   layout raid1-ext3 md=raid1 disks=2 fs=ext3 mkfs="-b 4096" mount=noatime
 *   layout ram ramdisk=256M fs=ext3
 *   layout tmp tmpfs=128M
 *   tunable scheduler mq-deadline none
 *   tunable read_ahead_kb 0 256
 *   workload stream size=64M bs=1M
 *   nfsserver threads=8 transports=tcp export=rw,sync,no_wdelay   export each layout over NFSv3
 *   nfsclient options=noac              run the section's workloads through the kernel's NFS client
 *
 * or, in sections, several such matrices in one plan (one per question):
 *
 *   section seed-000 "2.4 vs 2.6 on md RAID1"
 *   layout ...
 *   workload ...
 *   section seed-001
 *   ...
 *
 * The parser takes a buffer and never opens files. Errors are
 * "FILE:LINE: message", the same on the host (bootbench plan check) and in
 * the appliance; an error about the plan as a whole (no layout, no workload,
 * too many runs) has no line: "FILE: message".
 */
#ifndef BB_PLAN_H
#define BB_PLAN_H

#include <stddef.h>

#define PLAN_MAX_LAYOUTS 32
#define PLAN_MAX_WORKLOADS 32
#define PLAN_MAX_TUNABLES 32	/* all sections together; names unique within one */
#define PLAN_MAX_SECTIONS 16
#define PLAN_MAX_VALUES 8
#define PLAN_MAX_PARAMS 16
#define PLAN_MAX_NAME 64	/* plan, layout, workload and parameter names */
#define PLAN_MAX_VALUE 255	/* any one value: mkfs="...", a parameter */
#define PLAN_MAX_RUNS 100000	/* the expanded matrix */
#define PLAN_DEFAULT_ITERATIONS 1
#define PLAN_DEFAULT_TIMEOUT 600

/* The why instruments a plan asks for (`profile off|on|perf|offcpu`).
 * perf's sampling is its own level: a perf session beside the workload
 * costs a fork loop about 12% and moves deterministic figures, so the
 * cheap tick profile and delays do not bring it along; offcpu (perf, and
 * every context switch sampled: where tasks blocked) costs more again,
 * and more on rt, so it is a level above perf. */
enum { PROFILE_OFF, PROFILE_TICK, PROFILE_PERF, PROFILE_OFFCPU };
int profile_level(const char *word);	/* "off", "on", "perf", "offcpu"; -1 for any other word */
const char *profile_name(int level);

struct kvpair {
	char *key, *val;
};

enum layout_kind { LAYOUT_DISK, LAYOUT_MD, LAYOUT_RAMDISK, LAYOUT_TMPFS, LAYOUT_READONLY };

struct plan_layout {
	char *name;
	enum layout_kind kind;
	char *md_level;		/* "raid0" "raid1" "raid5" (LAYOUT_MD) */
	unsigned ndisks;	/* disks it needs (DISK: 1, MD: >= 2) */
	unsigned long long chunk;	/* md chunk in bytes, 0: mdadm default (recorded) */
	char *resync;		/* "assume-clean" (default), "wait", "skip" */
	unsigned long long size;	/* ramdisk / tmpfs bytes */
	char *fs;		/* "none", "ext2", "ext3", "ext4", "xfs"; tmpfs: "tmpfs" */
	char *mkfs;		/* extra mkfs arguments, NULL: the pinned defaults */
	char *mount;		/* mount options, NULL: none */
	char *readonly;		/* LAYOUT_READONLY: the disk (serial, WWN or by-path), never written */
	int line;
};

struct plan_tunable {
	char *name;		/* scheduler, read_ahead_kb, nr_requests, queue_depth */
	size_t nvalues;
	char *values[PLAN_MAX_VALUES];
	int line;
};

struct plan_workload {
	char *name;
	size_t nparams;
	struct kvpair params[PLAN_MAX_PARAMS];
	int line;
};

/* `nfsserver key=value...`: the section's layouts are exported by the
 * kernel's NFS server once built, and it is stopped before each is torn
 * down (init/nfsserver.c, docs/nfs.md). */
#define PLAN_NFS_THREADS_MAX 1024
struct plan_nfsserver {
	int line;		/* 0: the section has none */
	unsigned threads;	/* default 8 */
	char *versions;		/* "3" */
	char *transports;	/* "tcp", "udp", "tcp,udp" */
	char *export;		/* export options, exportfs style */
};

/* `nfsclient [options=OPTS]`: with nfsserver in the section, the booted
 * kernel's NFS client mounts the export and the section's workloads run in
 * that mount instead of on the layout. The appliance sets what reaches its
 * own server (vers, proto, addr, port, mountport, nolock); options adds the
 * rest (noac, rsize=...). */
#define PLAN_NFSCLIENT_OPTIONS_MAX 200
struct plan_nfsclient {
	int line;		/* 0: the section has none */
	char *options;		/* "" when none given */
};

/* One matrix of layouts x tunable sets x workloads. A plan without a
 * `section` line has one, unnamed, holding everything; otherwise each
 * section holds the layouts, tunables and workloads written under it. The
 * pointers point into struct plan's arrays below: never copy a plan. */
struct plan_section {
	char *name;		/* NULL: the plan has no sections */
	char *title;		/* the optional quoted text after the name, or NULL */
	int line;
	struct plan_layout *layouts;
	struct plan_tunable *tunables;
	struct plan_workload *workloads;
	size_t nlayouts, ntunables, nworkloads;
	struct plan_nfsserver nfs;
	struct plan_nfsclient nfsc;
};

/* `requires KEY=VALUE...` (any number of lines, each key once): what the
 * machine must give the plan. The appliance checks it before the first run
 * and refuses the plan, naming what is missing; scripts/boot-qemu reads it
 * (`bootbench plan requires`) to add the layers and size the guest. */
#define PLAN_MAX_LAYERS 4
#define PLAN_LAYER_NAME 32	/* a-z 0-9 -, as rootfs/build-userland's layer names */
struct plan_requires {
	int line;			/* first requires line, 0: none */
	unsigned long long memory;	/* bytes of RAM at least (0: any) */
	unsigned disks;			/* claimed disks at least */
	unsigned cpus;			/* online CPUs at least */
	size_t nlayers;
	char layers[PLAN_MAX_LAYERS][PLAN_LAYER_NAME + 1];
};

struct plan {
	char *name;
	struct plan_requires req;
	unsigned iterations;	/* default 1 */
	unsigned timeout_s;	/* default 600 */
	int profile;		/* PROFILE_*: "profile on" a kernel profile and delay accounting per run,
				 * "profile perf" perf's call-chain samples besides, "profile offcpu"
				 * and every context switch */
	size_t nlayouts, ntunables, nworkloads;	/* all sections together */
	struct plan_layout layouts[PLAN_MAX_LAYOUTS];
	struct plan_tunable tunables[PLAN_MAX_TUNABLES];
	struct plan_workload workloads[PLAN_MAX_WORKLOADS];
	size_t nsections;	/* at least 1 after a successful parse */
	struct plan_section sections[PLAN_MAX_SECTIONS];
};

/* Workload names and parameter names the parser accepts are checked by a
 * callback so lib/ does not depend on workloads/: return 0 when the workload
 * exists and every parameter is known, else -1 with a message in err. */
typedef int (*plan_workload_check)(const char *name, const struct kvpair *params, size_t n,
				   char *err, size_t errlen);

/* Parse text (len bytes) named `file` in messages. Returns 0, or -1 with
 * "file:line: message" in err. check may be NULL (no workload checking).
 * On error *p holds nothing to free; after success, plan_free(p). */
int plan_parse(const char *file, const char *text, size_t len, plan_workload_check check,
	       struct plan *p, char *err, size_t errlen);
void plan_free(struct plan *p);

/* One run of the expanded matrix. */
struct plan_run {
	unsigned iteration;	/* 1-based */
	const struct plan_section *section;	/* its tunables are the run's */
	const struct plan_layout *layout;
	unsigned tunables_index;	/* index into the section's tunables cartesian product */
	const struct plan_workload *workload;
	int first_of_layout;	/* build the layout before this run */
	int last_of_layout;	/* tear it down after this run */
};

/* Number of tunable combinations of a section (product of value counts; 1
 * when none). */
unsigned plan_tunable_combos(const struct plan_section *s);
/* The value of the section's tunable t in combination c. */
const char *plan_tunable_value(const struct plan_section *s, unsigned c, size_t t);
/* "name=value,..." of combination c (the plan show / console form), or "-"
 * when the section sets no tunable; truncated to len. */
void plan_tunables_text(const struct plan_section *s, unsigned c, char *out, size_t len);
/* Whether the plan was written in sections (else it has one, unnamed). */
int plan_has_sections(const struct plan *p);
/* Runs the plan expands to: iterations x the sum over sections of layouts x
 * tunable sets x workloads. */
unsigned long long plan_run_count(const struct plan *p);
/* Expand in the fixed order documented in docs/plans.md: iterations outermost;
 * within an iteration the layouts in plan order, section after section
 * (reversed as a whole on even iterations, so slow drift does not line up
 * with one layout), then the layout's section's tunable combinations, then
 * its workloads. Returns the count; *out is malloc'd. */
size_t plan_expand(const struct plan *p, struct plan_run **out);

#endif
