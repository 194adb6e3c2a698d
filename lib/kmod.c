/*
 * kmod.c - module metadata parsers and load ordering (see kmod.h).
 */
#include <fnmatch.h>
#include <stdlib.h>
#include <string.h>

#include "kmod.h"
#include "xio.h"

char *kmod_name(const char *path)
{
	const char *b = strrchr(path, '/');
	char *n, *dot;
	b = b ? b + 1 : path;
	n = xstrdup(b);
	dot = strstr(n, ".ko");
	if (dot)
		*dot = 0;
	for (char *p = n; *p; p++)
		if (*p == '-')
			*p = '_';
	return n;
}

/* Iterate lines of a buffer: returns a malloc'd copy of the next line. */
static char *next_line(const char **p, const char *end)
{
	const char *s = *p, *nl;
	if (s >= end)
		return NULL;
	nl = memchr(s, '\n', end - s);
	if (!nl)
		nl = end;
	*p = nl < end ? nl + 1 : end;
	return xstrndup(s, nl - s);
}

static char **split_words(char *line, size_t *n)
{
	char **w = NULL, *save = NULL, *tok;
	*n = 0;
	for (tok = strtok_r(line, " \t\r", &save); tok; tok = strtok_r(NULL, " \t\r", &save)) {
		w = xrealloc(w, (*n + 1) * sizeof *w);
		w[(*n)++] = xstrdup(tok);
	}
	return w;
}

int kmod_parse_dep(struct kmod_db *db, const char *buf, size_t len)
{
	const char *p = buf, *end = buf + len;
	char *line;
	while ((line = next_line(&p, end))) {
		char *colon = strchr(line, ':');
		struct kmod *m;
		if (!colon || line[0] == '#') {
			free(line);
			continue;
		}
		*colon = 0;
		db->m = xrealloc(db->m, (db->n + 1) * sizeof *db->m);
		m = &db->m[db->n++];
		m->path = xstrdup(line);
		m->name = kmod_name(line);
		m->deps = split_words(colon + 1, &m->ndeps);
		free(line);
	}
	return 0;
}

int kmod_parse_softdep(struct kmod_db *db, const char *buf, size_t len)
{
	const char *p = buf, *end = buf + len;
	char *line;
	while ((line = next_line(&p, end))) {
		size_t nw;
		char **w = split_words(line, &nw);
		free(line);
		if (nw >= 2 && !strcmp(w[0], "softdep")) {
			struct kmod_softdep *sd;
			int post = 0;
			db->sd = xrealloc(db->sd, (db->nsd + 1) * sizeof *db->sd);
			sd = &db->sd[db->nsd++];
			memset(sd, 0, sizeof *sd);
			sd->name = kmod_name(w[1]);
			for (size_t i = 2; i < nw; i++) {
				if (!strcmp(w[i], "pre:")) { post = 0; continue; }
				if (!strcmp(w[i], "post:")) { post = 1; continue; }
				if (post) {
					sd->post = xrealloc(sd->post, (sd->npost + 1) * sizeof(char *));
					sd->post[sd->npost++] = kmod_name(w[i]);
				} else {
					sd->pre = xrealloc(sd->pre, (sd->npre + 1) * sizeof(char *));
					sd->pre[sd->npre++] = kmod_name(w[i]);
				}
			}
		}
		for (size_t i = 0; i < nw; i++)
			free(w[i]);
		free(w);
	}
	return 0;
}

int kmod_parse_builtin(struct kmod_db *db, const char *buf, size_t len)
{
	const char *p = buf, *end = buf + len;
	char *line;
	while ((line = next_line(&p, end))) {
		if (line[0] && line[0] != '#') {
			db->builtin = xrealloc(db->builtin, (db->nbuiltin + 1) * sizeof(char *));
			db->builtin[db->nbuiltin++] = kmod_name(line);
		}
		free(line);
	}
	return 0;
}

int kmod_parse_alias(struct kmod_db *db, const char *buf, size_t len)
{
	const char *p = buf, *end = buf + len;
	char *line;
	while ((line = next_line(&p, end))) {
		size_t nw;
		char **w = split_words(line, &nw);
		free(line);
		/* exact aliases name softdep targets (crc32c); glob ones match
		 * the devices a driver serves (a modalias), and keep their
		 * spelling: '-' and '_' differ in a device id */
		if (nw == 3 && !strcmp(w[0], "alias") && !strpbrk(w[1], "*?[")) {
			db->alias = xrealloc(db->alias, (db->nalias + 1) * sizeof(char *));
			db->alias_target = xrealloc(db->alias_target, (db->nalias + 1) * sizeof(char *));
			db->alias[db->nalias] = kmod_name(w[1]);
			db->alias_target[db->nalias] = kmod_name(w[2]);
			db->nalias++;
		} else if (nw == 3 && !strcmp(w[0], "alias")) {
			db->galias = xrealloc(db->galias, (db->ngalias + 1) * sizeof(char *));
			db->galias_target = xrealloc(db->galias_target, (db->ngalias + 1) * sizeof(char *));
			db->galias[db->ngalias] = xstrdup(w[1]);
			db->galias_target[db->ngalias] = kmod_name(w[2]);
			db->ngalias++;
		}
		for (size_t i = 0; i < nw; i++)
			free(w[i]);
		free(w);
	}
	return 0;
}

static void free_strv(char **v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(v[i]);
	free(v);
}

void kmod_free(struct kmod_db *db)
{
	for (size_t i = 0; i < db->n; i++) {
		free(db->m[i].name);
		free(db->m[i].path);
		free_strv(db->m[i].deps, db->m[i].ndeps);
	}
	free(db->m);
	free_strv(db->builtin, db->nbuiltin);
	for (size_t i = 0; i < db->nsd; i++) {
		free(db->sd[i].name);
		free_strv(db->sd[i].pre, db->sd[i].npre);
		free_strv(db->sd[i].post, db->sd[i].npost);
	}
	free(db->sd);
	free_strv(db->alias, db->nalias);
	free_strv(db->alias_target, db->nalias);
	free_strv(db->galias, db->ngalias);
	free_strv(db->galias_target, db->ngalias);
	memset(db, 0, sizeof *db);
}

int kmod_is_builtin(const struct kmod_db *db, const char *name)
{
	for (size_t i = 0; i < db->nbuiltin; i++)
		if (!strcmp(db->builtin[i], name))
			return 1;
	return 0;
}

static long find_by_name(const struct kmod_db *db, const char *name)
{
	for (size_t i = 0; i < db->n; i++)
		if (!strcmp(db->m[i].name, name))
			return i;
	return -1;
}

static long find_by_path(const struct kmod_db *db, const char *path)
{
	for (size_t i = 0; i < db->n; i++)
		if (!strcmp(db->m[i].path, path))
			return i;
	return -1;
}

struct planner {
	const struct kmod_db *db;
	kmod_present_fn present;
	void *ctx;
	unsigned char *state;	/* 0 new, 1 visiting, 2 loaded, 3 failed */
	struct kmod_step *steps;
	size_t nsteps;
	char **orphans;		/* names of deps absent from modules.dep */
	size_t norphans;
};

static void add_step(struct planner *pl, enum kmod_action a, const char *name,
		     const char *path, const char *why)
{
	pl->steps = xrealloc(pl->steps, (pl->nsteps + 1) * sizeof *pl->steps);
	pl->steps[pl->nsteps++] = (struct kmod_step){ a, name, path, why };
}

static int visit(struct planner *pl, long i, const char *needed_by);

/* Softdep names may be module names or aliases ("crc32c"); those that are
 * built in or unknown are nothing to load: softdeps are optional. */
static void visit_soft(struct planner *pl, const char *name, const char *by)
{
	long j = find_by_name(pl->db, name);
	if (j >= 0) {
		visit(pl, j, by);
		return;
	}
	for (size_t a = 0; a < pl->db->nalias; a++)
		if (!strcmp(pl->db->alias[a], name) && (j = find_by_name(pl->db, pl->db->alias_target[a])) >= 0)
			visit(pl, j, by);
}

static const struct kmod_softdep *softdep_of(const struct kmod_db *db, const char *name)
{
	for (size_t i = 0; i < db->nsd; i++)
		if (!strcmp(db->sd[i].name, name))
			return &db->sd[i];
	return NULL;
}

static const char *orphan_name(struct planner *pl, const char *path)
{
	char *n = kmod_name(path);
	for (size_t i = 0; i < pl->norphans; i++)
		if (!strcmp(pl->orphans[i], n)) {
			free(n);
			return pl->orphans[i];
		}
	pl->orphans = xrealloc(pl->orphans, (pl->norphans + 1) * sizeof(char *));
	pl->orphans[pl->norphans++] = n;
	return n;
}

/* Returns 0 when module i is (or will be) loaded, -1 when it cannot be. */
static int visit(struct planner *pl, long i, const char *needed_by)
{
	const struct kmod *m = &pl->db->m[i];
	const struct kmod_softdep *sd;
	const char *missing = NULL;

	if (pl->state[i] == 2 || pl->state[i] == 1)	/* done, or a cycle: let the kernel decide */
		return 0;
	if (pl->state[i] == 3)
		return -1;
	pl->state[i] = 1;
	sd = softdep_of(pl->db, m->name);
	for (size_t k = 0; sd && k < sd->npre; k++)
		visit_soft(pl, sd->pre[k], m->name);
	/* modules.dep lists the deepest dependency last: load from the end */
	for (size_t k = m->ndeps; k-- > 0;) {
		long j = find_by_path(pl->db, m->deps[k]);
		if (j < 0) {
			const char *on = orphan_name(pl, m->deps[k]);
			add_step(pl, KMOD_MISSING, on, m->deps[k], m->name);
			missing = on;
		} else if (visit(pl, j, m->name) < 0 && !missing) {
			missing = pl->db->m[j].name;
		}
	}
	if (!pl->present(m->path, pl->ctx)) {
		add_step(pl, KMOD_MISSING, m->name, m->path, needed_by ? needed_by : "the archive's modules.dep");
		pl->state[i] = 3;
		return -1;
	}
	if (missing) {
		add_step(pl, KMOD_SKIP, m->name, m->path, missing);
		pl->state[i] = 3;
		return -1;
	}
	add_step(pl, KMOD_LOAD, m->name, m->path, needed_by);
	pl->state[i] = 2;
	for (size_t k = 0; sd && k < sd->npost; k++)
		visit_soft(pl, sd->post[k], m->name);
	return 0;
}

size_t kmod_plan(const struct kmod_db *db, kmod_present_fn present, void *ctx,
		 struct kmod_step **out)
{
	struct planner pl = { db, present, ctx, xcalloc(db->n + 1, 1), NULL, 0, NULL, 0 };
	for (size_t i = 0; i < db->n; i++)
		visit(&pl, i, NULL);
	free(pl.state);
	*out = pl.steps;
	/* The steps point at the orphan names: those few strings (one per
	 * missing module) are deliberately kept for the life of the process. */
	free(pl.orphans);
	return pl.nsteps;
}

size_t kmod_plan_roots(const struct kmod_db *db, const char *const *roots, const char *const *why,
		       size_t nroots, kmod_present_fn present, void *ctx, struct kmod_step **out)
{
	struct planner pl = { db, present, ctx, xcalloc(db->n + 1, 1), NULL, 0, NULL, 0 };
	for (size_t r = 0; r < nroots; r++) {
		char *name = kmod_name(roots[r]);
		long i = find_by_name(db, name);
		for (size_t a = 0; i < 0 && a < db->nalias; a++)
			if (!strcmp(db->alias[a], name))
				i = find_by_name(db, db->alias_target[a]);
		if (i >= 0)
			visit(&pl, i, why[r]);
		else if (!kmod_is_builtin(db, name))
			add_step(&pl, KMOD_MISSING, orphan_name(&pl, name), roots[r], why[r]);
		free(name);
	}
	free(pl.state);
	*out = pl.steps;
	free(pl.orphans);	/* the names themselves are kept, as in kmod_plan */
	return pl.nsteps;
}

size_t kmod_alias_match(const struct kmod_db *db, const char *modalias, const char **out, size_t max)
{
	size_t n = 0;
	for (size_t a = 0; a < db->ngalias; a++) {
		int dup = 0;
		if (fnmatch(db->galias[a], modalias, 0))
			continue;
		for (size_t k = 0; k < n && k < max; k++)
			dup |= !strcmp(out[k], db->galias_target[a]);
		if (dup)
			continue;
		if (n < max)
			out[n] = db->galias_target[a];
		n++;
	}
	return n;
}
