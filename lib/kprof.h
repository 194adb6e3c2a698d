/*
 * kprof.h - the kernel's own sampling profiler (CONFIG_PROFILING: the
 * `profile=N` boot option and /proc/profile), resolved against
 * /proc/kallsyms. No third-party code and nothing to build: every Debian
 * kernel carries it. It samples the interrupted kernel address at each timer
 * tick that lands in kernel mode, into one counter per 2^N bytes of kernel
 * text; writing to /proc/profile clears it. The readers take a descriptor
 * (kprof_read) or a buffer and open nothing themselves, so the tests feed
 * them made-up files through a pipe.
 */
#ifndef BB_KPROF_H
#define BB_KPROF_H

#include <stddef.h>
#include <stdint.h>

#include "json.h"

/* Functions a run record keeps, largest first; the rest are summed as
 * "other". A fork/exec loop samples about 100, so a run's list is
 * normally complete, and compare can say a function was never sampled. */
#define KPROF_TOP 256
/* Bounds on what is read from /proc (a kernel is ~14 MB of text, kallsyms
 * ~10 MB): a bigger file is refused rather than half-read. */
#define KPROF_MAX_KALLSYMS (128u << 20)
#define KPROF_MAX_PROFILE (256u << 20)

struct ksym {
	unsigned long long addr;
	const char *name;	/* into ksyms.names */
};

/* Text symbols (types t/T/w/W) of the kernel and of the modules loaded
 * when kallsyms was read, sorted.
 * Held in mappings a fork does not inherit (MADV_DONTFORK), never in PID
 * 1's heap, and only between a run's end and its record (kprof_read loads
 * and drops them): a workload forked from PID 1 inherits its heap and
 * copies those page tables on each of its own forks (+39% on fork/exec
 * under instruction counting, when they were malloc'd), and even held apart
 * the 1.8 MB cost fork/exec 2%. */
struct ksyms {
	struct ksym *s;
	size_t n;
	char *names;
	size_t s_bytes, names_bytes;	/* the mappings' lengths */
	void *file;			/* names are in this mapping of a kprof_live's table instead */
	size_t file_bytes;
	unsigned long long stext, etext;	/* _stext and _etext, 0 if absent */
	unsigned long long mod_lo;		/* the lowest module text symbol, 0: none */
};

/* 0, or -1 with a reason (no _stext, or every address 0: kptr_restrict). */
int ksyms_parse(const char *buf, size_t len, struct ksyms *k, char *err, size_t errlen);
/* The symbol holding addr (the last one at or below it), or NULL. */
const struct ksym *ksyms_find(const struct ksyms *k, unsigned long long addr);
void ksyms_free(struct ksyms *k);

struct khit {
	uint32_t i;		/* the counter's index */
	uint32_t count;		/* its samples, never 0 */
};
/* /proc/profile: a native unsigned int (the bytes per counter, 2^shift),
 * then one native int counter per step of text from _stext; the kernel puts
 * hits past the text (modules) into the last counter. Held sparse: a run
 * samples a few hundred of the 3.5 million counters; hit is by index,
 * ascending, each index once (kprof_top relies on it). */
struct kprofile {
	unsigned step;
	size_t n;		/* counters, the last the catch-all */
	const struct khit *hit;	/* the counters not 0, by index */
	size_t nhit;
};
/* Append the counters of count[0..n) that are not 0 to out (room for n), as
 * indexes from first (first + n must fit 32 bits: at most 64M counters are
 * read); returns how many. */
size_t kprof_hits(const unsigned *count, size_t n, size_t first, struct khit *out);

struct kfunc {
	const char *name;
	unsigned long long samples;
};

struct kprof_top {
	char names[KPROF_TOP][512];	/* f[i].name points here (KSYM_NAME_LEN): the top outlives the symbols */
	unsigned long long total;	/* every sample */
	unsigned long long outside;	/* the last counter: modules, or past the text */
	unsigned long long other;	/* functions past the top */
	size_t nfuncs;			/* functions with a sample */
	struct kfunc f[KPROF_TOP];
	size_t n;
};
/* Sum the counters per function and keep the top ones, largest first (ties
 * by name, so equal profiles print alike). */
void kprof_top(const struct kprofile *p, const struct ksyms *k, struct kprof_top *t);

/* "profile" member of a run record: source, step, the tick rate (null when
 * unknown), totals, and the functions with their samples and share of all
 * samples. */
void kprof_json(struct jw *w, const struct kprof_top *t, unsigned step, unsigned hz);

/* Live side (the appliance). kprof_open checks that there is a profile;
 * returns 0, or -1 with the reason there is none (no /proc/profile: the
 * kernel was booted without profile=N). kallsyms and the tick rate are
 * read once, by the first kprof_resolve, after the first profiled run. */
struct kprof_live {
	size_t nsyms;		/* text symbols kallsyms had at kprof_open */
	int symfd;		/* a memfd holding them, resolved (-1: read /proc/kallsyms each time) */
	struct khit *hits;	/* the counters not 0 that kprof_read found, until the next read,
				 * kprof_resolve or kprof_close */
	size_t nhits, hits_bytes, ncounters;
	unsigned step;
	int reset_failed;	/* the last kprof_reset did not clear: the next profile would hold older runs */
	char reset_err[120];
	unsigned hz;		/* the timer tick rate, estimated from /proc/timer_list, 0 unknown */
	int loaded;		/* kallsyms and hz read (at the first resolve): 1, -1 failed (why), 0 not yet */
	unsigned long long modhash;	/* /proc/modules when kallsyms was read: read again when it changes */
	int ok;
	char why[200];		/* when !ok */
};
int kprof_open(struct kprof_live *l);
int kprof_reset(struct kprof_live *l);	/* clear the counters */
/* Read the counters as they are (at a run's end, before anything else is
 * read), keeping those not 0, then resolve them against kallsyms (later:
 * loading kallsyms is kernel work the copy no longer sees). Both: 0, or -1
 * with a reason. kprof_read is the reading, from any descriptor: l->hits,
 * nhits, ncounters and step, or -1 with a reason and nothing kept. */
int kprof_snapshot(struct kprof_live *l, char *err, size_t errlen);
int kprof_read(int fd, struct kprof_live *l, char *err, size_t errlen);
/* What kprof_read kept, as a profile (into l's hits: until the next read
 * or resolve, or kprof_close). */
void kprof_profile(const struct kprof_live *l, struct kprofile *p);
int kprof_resolve(struct kprof_live *l, struct kprof_top *t, unsigned *step, char *err, size_t errlen);
void kprof_close(struct kprof_live *l);
/* The kernel's text symbols (read once, as for a profile; kprof_open need
 * not have found /proc/profile): 0 with k filled (ksyms_free it), or -1. */
int kprof_symbols(struct kprof_live *l, struct ksyms *k, char *err, size_t errlen);

#endif
