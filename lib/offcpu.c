/*
 * offcpu.c - perf's context-switch samples paired with its switch records
 * into stacks weighted by the time a task was blocked (see offcpu.h).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "offcpu.h"
#include "xio.h"

void offcpu_skip(struct offcpu *o, long pid)
{
	if (o->nskip < OFFCPU_MAX_SKIP)
		o->skip[o->nskip++] = pid;
}

/* The set: open addressing, ids stored plus one; 0 an empty slot, TOMB
 * one whose id was taken out (a PID used again), so that deleting is
 * O(1) too (rebuilding the set each time was quadratic once PIDs
 * wrapped: 17 s for 100,000 forks). */
#define TOMB (-1L)

static size_t home(const struct offcpu_set *s, long v)
{
	return ((unsigned long)v * 0x9e3779b97f4a7c15UL) & (s->cap - 1);
}

/* Where v is, or SIZE_MAX. */
static size_t find_slot(const struct offcpu_set *s, long v)
{
	if (!s->cap)
		return SIZE_MAX;
	for (size_t j = home(s, v), i = 0; i < s->cap && s->k[j]; j = (j + 1) & (s->cap - 1), i++)
		if (s->k[j] == v + 1)
			return j;
	return SIZE_MAX;
}

static int set_has(const struct offcpu_set *s, long v)
{
	return find_slot(s, v) != SIZE_MAX;
}

static void put(struct offcpu_set *s, long v)
{
	size_t j = home(s, v);
	while (s->k[j] && s->k[j] != TOMB)
		j = (j + 1) & (s->cap - 1);
	if (s->k[j] == TOMB)
		s->tombs--;
	s->k[j] = v + 1;
	s->n++;
}

/* 0, or -1 when the set is full (counted by the caller). */
static int set_add(struct offcpu_set *s, long v)
{
	if (v < 0 || set_has(s, v))
		return 0;
	if (s->n >= OFFCPU_MAX_TASKS)
		return -1;
	if ((s->n + s->tombs + 1) * 2 > s->cap) {
		/* grown, or rehashed in place of its tombstones */
		size_t ncap = (s->n + 1) * 4 > s->cap ? (s->cap ? s->cap * 2 : 256) : s->cap;
		struct offcpu_set g = { xcalloc(ncap, sizeof *g.k), 0, ncap, 0 };
		for (size_t i = 0; i < s->cap; i++)
			if (s->k[i] && s->k[i] != TOMB)
				put(&g, s->k[i] - 1);
		free(s->k);
		*s = g;
	}
	put(s, v);
	return 0;
}

static void set_del(struct offcpu_set *s, long v)
{
	size_t j = find_slot(s, v);
	if (j == SIZE_MAX)
		return;
	s->k[j] = TOMB;
	s->n--;
	s->tombs++;
}

void offcpu_root(struct offcpu *o, long pid)
{
	if (pid <= 0)
		return;
	o->root = pid;
	set_add(&o->procs, pid);
}

void offcpu_fork(struct offcpu *o, long pid, long tid, long ppid)
{
	set_del(&o->exited, tid);	/* a new task with an old task's id */
	if (!o->root || pid == ppid || pid == o->root)
		return;	/* a thread: its process counts or not; the root's own fork (from init) */
	if (!set_has(&o->procs, ppid))
		set_del(&o->procs, pid);
	else if (set_add(&o->procs, pid) < 0)
		o->overflow++;
}

/* Tasks blocked at once are few (tens in the appliance): a short array. */
static struct offcpu_pend *find(struct offcpu *o, long tid)
{
	for (size_t i = 0; i < o->np; i++)
		if (o->p[i].tid == tid)
			return &o->p[i];
	return NULL;
}

static void drop(struct offcpu *o, struct offcpu_pend *p)
{
	free(p->stack);
	*p = o->p[--o->np];
}

static void seen(struct offcpu *o, unsigned long long t)
{
	if (t > o->last)
		o->last = t;
}

void offcpu_exit(struct offcpu *o, long tid)
{
	struct offcpu_pend *p = find(o, tid);
	if (p)
		drop(o, p);	/* its last switch is on its way out, not a block */
	if (set_add(&o->exited, tid) < 0)
		o->overflow++;
}

void offcpu_sample(struct offcpu *o, long pid, long tid, unsigned long long t, const char *stack, size_t len,
		   int truncated)
{
	struct offcpu_pend *p;
	seen(o, t);
	if (o->root ? !set_has(&o->procs, pid) : 0) {
		o->skipped++;
		return;
	}
	for (size_t i = 0; !o->root && i < o->nskip; i++)
		if (o->skip[i] == pid) {
			o->skipped++;
			return;
		}
	if (set_has(&o->exited, tid)) {
		o->exits++;
		return;
	}
	if ((p = find(o, tid)) != NULL) {
		/* a sample again before the last one's switch came back: that
		 * one is never paired */
		o->unpaired++;
		drop(o, p);
	}
	if (o->np == OFFCPU_MAX_PENDING) {
		o->untracked++;
		return;
	}
	o->f.truncated += truncated != 0;
	if (!o->p)
		o->p = xcalloc(OFFCPU_MAX_PENDING, sizeof *o->p);
	p = &o->p[o->np++];
	p->tid = tid;
	p->t = t;
	p->out = 0;
	p->stack = xstrndup(stack, len);
}

void offcpu_switch(struct offcpu *o, long tid, unsigned long long t, int out, int preempt)
{
	struct offcpu_pend *p;
	seen(o, t);
	if (!(p = find(o, tid)))
		return;
	if (out) {
		if (p->out) {	/* out twice: the first was never followed by an in */
			o->unpaired++;
			drop(o, p);
			return;
		}
		if (preempt) {
			o->preempted++;
			drop(o, p);
			return;
		}
		p->out = 1;
		p->t = t;
		return;
	}
	if (!p->out) {	/* in without the out: the sample's switch was not recorded */
		o->unpaired++;
		drop(o, p);
		return;
	}
	{
		unsigned long long us = t > p->t ? t - p->t : 0;
		folded_add_w(&o->f, p->stack, strlen(p->stack), us, 1);
		o->blocks++;
		o->us += us;
	}
	drop(o, p);
}

void offcpu_end(struct offcpu *o)
{
	while (o->np) {
		struct offcpu_pend *p = &o->p[o->np - 1];
		if (p->out) {
			o->unfinished++;
			o->unfinished_us += o->last > p->t ? o->last - p->t : 0;
		} else
			o->unpaired++;
		drop(o, p);
	}
}

void offcpu_json(struct jw *w, struct offcpu *o, size_t keep)
{
	/* the top `keep` stacks by time, and at most FOLDED_TOP_BYTES of them */
	unsigned long long rest_us = o->f.other, rest_n = o->f.other_events;
	size_t bytes = 0;
	folded_sort(&o->f);
	jw_str(w, "unit", "us");
	jw_int(w, "us", (long long)o->us);
	jw_int(w, "blocks", (long long)o->blocks);
	jw_arr(w, "stacks");
	for (size_t i = 0; i < o->f.n; i++) {
		bytes += strlen(o->f.s[i].stack);
		if (i >= keep || bytes > FOLDED_TOP_BYTES) {
			rest_us += o->f.s[i].samples;
			rest_n += o->f.s[i].events;
			continue;
		}
		jw_obj(w, NULL);
		jw_str(w, "stack", o->f.s[i].stack);
		jw_int(w, "us", (long long)o->f.s[i].samples);
		jw_int(w, "blocks", (long long)o->f.s[i].events);
		jw_obj_end(w);
	}
	jw_arr_end(w);
	jw_int(w, "other_us", (long long)rest_us);
	jw_int(w, "other_blocks", (long long)rest_n);
	jw_int(w, "preempted", (long long)o->preempted);
	jw_int(w, "unfinished", (long long)o->unfinished);
	jw_int(w, "unfinished_us", (long long)o->unfinished_us);
	jw_int(w, "unpaired", (long long)o->unpaired);
	jw_int(w, "exits", (long long)o->exits);
	jw_int(w, "not_the_runs", (long long)o->skipped);
	if (o->untracked)
		jw_int(w, "untracked", (long long)o->untracked);
	if (o->overflow)
		jw_int(w, "tasks_unknown", (long long)o->overflow);
	if (o->f.truncated)
		jw_int(w, "truncated_stacks", (long long)o->f.truncated);
}

void offcpu_free(struct offcpu *o)
{
	while (o->np)
		drop(o, &o->p[o->np - 1]);
	free(o->p);
	free(o->procs.k);
	free(o->exited.k);
	folded_free(&o->f);
	memset(o, 0, sizeof *o);
}
