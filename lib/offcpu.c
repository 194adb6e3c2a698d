/*
 * offcpu.c - perf's context-switch samples paired with its switch records
 * into stacks weighted by the time a task was blocked (see offcpu.h).
 */
#include <stdlib.h>
#include <string.h>

#include "offcpu.h"
#include "xio.h"

void offcpu_skip(struct offcpu *o, long pid)
{
	if (o->nskip < OFFCPU_MAX_SKIP)
		o->skip[o->nskip++] = pid;
}

static size_t slot(const struct offcpu_set *s, long v)
{
	size_t j = ((unsigned long)v * 0x9e3779b97f4a7c15UL) & (s->cap - 1);
	while (s->k[j] && s->k[j] != v + 1)
		j = (j + 1) & (s->cap - 1);
	return j;
}

static int set_has(const struct offcpu_set *s, long v)
{
	return s->cap && s->k[slot(s, v)] == v + 1;
}

/* 0, or -1 when the set is full (counted by the caller). Ids are stored
 * plus one: 0 is the empty slot. */
static int set_add(struct offcpu_set *s, long v)
{
	if (v < 0)
		return 0;
	if (set_has(s, v))
		return 0;
	if (s->n >= OFFCPU_MAX_TASKS)
		return -1;
	if ((s->n + 1) * 2 > s->cap) {
		struct offcpu_set g = { xcalloc(s->cap ? s->cap * 2 : 256, sizeof *g.k), s->n, s->cap ? s->cap * 2 : 256 };
		for (size_t i = 0; i < s->cap; i++)
			if (s->k[i])
				g.k[slot(&g, s->k[i] - 1)] = s->k[i];
		free(s->k);
		*s = g;
	}
	s->k[slot(s, v)] = v + 1;
	s->n++;
	return 0;
}

void offcpu_root(struct offcpu *o, long pid)
{
	if (pid <= 0)
		return;
	o->root = pid;
	set_add(&o->procs, pid);
}

/* An id out of the set (a PID used again): the set rebuilt without it.
 * Rare: only where PIDs wrap within a run. */
static void set_del(struct offcpu_set *s, long v)
{
	struct offcpu_set g = { 0 };
	if (!set_has(s, v))
		return;
	for (size_t i = 0; i < s->cap; i++)
		if (s->k[i] && s->k[i] != v + 1)
			set_add(&g, s->k[i] - 1);
	free(s->k);
	*s = g;
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

void offcpu_exit(struct offcpu *o, long pid, long tid)
{
	struct offcpu_pend *p = find(o, tid);
	(void)pid;
	if (p)
		drop(o, p);	/* its last switch is on its way out, not a block */
	if (set_add(&o->exited, tid) < 0)
		o->overflow++;
}

void offcpu_sample(struct offcpu *o, long pid, long tid, unsigned long long t, const char *stack, size_t len)
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
	unsigned long long rest_us = o->f.other, rest_n = o->f.other_events;
	folded_sort(&o->f);
	jw_str(w, "unit", "us");
	jw_int(w, "us", (long long)o->us);
	jw_int(w, "blocks", (long long)o->blocks);
	jw_arr(w, "stacks");
	for (size_t i = 0; i < o->f.n; i++) {
		if (i >= keep) {
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
