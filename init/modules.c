/*
 * modules.c - load the kernel's module archive (appended as a second cpio)
 * in modules.dep order with softdeps first, skipping built-ins, and name
 * every module the appliance needs that is neither loaded nor built in.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "err.h"
#include "init.h"
#include "kmod.h"
#include "xio.h"

/* Loaded on demand, not at boot: brd with parameters by the layouts that
 * need it, nfsd (and what only it needs) by the nfsserver directive, the
 * NFSv3 client by the nfsclient directive, so a plan without NFS runs on a
 * kernel with no NFS in it. */
static const char *const deferred_roots[] = { "brd", "nfsd", "nfsv3" };
static char **deferred;
static size_t ndeferred;

static int present(const char *path, void *ctx)
{
	char full[512];
	snprintf(full, sizeof full, "%s/%s", (const char *)ctx, path);
	return access(full, R_OK) == 0;
}

static void listadd(struct sbuf *sb, unsigned *count, const char *name)
{
	if (sb->len)
		sb_putc(sb, ' ');
	sb_puts(sb, name);
	(*count)++;
}

static int is_deferred(const char *name)
{
	for (size_t i = 0; i < ndeferred; i++)
		if (!strcmp(deferred[i], name))
			return 1;
	return 0;
}

static const struct kmod *find_mod(const struct kmod_db *db, const char *name)
{
	for (size_t i = 0; i < db->n; i++)
		if (!strcmp(db->m[i].name, name))
			return &db->m[i];
	return NULL;
}

static int in_list(char **l, size_t n, const char *name)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(l[i], name))
			return 1;
	return 0;
}

/* The deferred roots and their dependencies (modules.dep lists them all,
 * transitively), less any that a module loaded at boot depends on. */
static void compute_deferred(const struct kmod_db *db)
{
	size_t cap = 0;
	for (size_t r = 0; r < sizeof deferred_roots / sizeof *deferred_roots; r++) {
		const struct kmod *m = find_mod(db, deferred_roots[r]);
		cap += 1 + (m ? m->ndeps : 0);
	}
	deferred = xcalloc(cap + 1, sizeof *deferred);
	for (size_t r = 0; r < sizeof deferred_roots / sizeof *deferred_roots; r++) {
		const struct kmod *m = find_mod(db, deferred_roots[r]);
		if (!in_list(deferred, ndeferred, deferred_roots[r]))
			deferred[ndeferred++] = xstrdup(deferred_roots[r]);
		for (size_t d = 0; m && d < m->ndeps; d++) {
			char *n = kmod_name(m->deps[d]);
			if (in_list(deferred, ndeferred, n))
				free(n);
			else
				deferred[ndeferred++] = n;
		}
	}
	for (size_t i = 0; i < db->n; i++) {
		if (in_list(deferred, ndeferred, db->m[i].name))
			continue;
		for (size_t d = 0; d < db->m[i].ndeps; d++) {
			char *n = kmod_name(db->m[i].deps[d]);
			int root = 0;
			for (size_t r = 0; r < sizeof deferred_roots / sizeof *deferred_roots; r++)
				root |= !strcmp(deferred_roots[r], n);
			for (size_t k = 0; k < ndeferred && !root; k++)
				if (!strcmp(deferred[k], n)) {
					free(deferred[k]);
					deferred[k] = deferred[--ndeferred];
					break;
				}
			free(n);
		}
	}
}

static int load_one(const char *dir, const char *path, const char *params)
{
	char full[512];
	int fd, rc;
	snprintf(full, sizeof full, "%s/%s", dir, path);
	fd = open(full, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	rc = syscall(SYS_finit_module, fd, params ? params : "", 0);
	if (rc < 0 && errno == EEXIST)
		rc = 0;
	{
		int e = errno;
		close(fd);
		errno = e;
	}
	return rc;
}

static void slurp(const char *dir, const char *file, struct kmod_db *db,
		  int (*parse)(struct kmod_db *, const char *, size_t))
{
	char path[512];
	size_t len;
	char *buf;
	snprintf(path, sizeof path, "%s/%s", dir, file);
	buf = read_file(path, &len);
	if (buf) {
		parse(db, buf, len);
		free(buf);
	}
}

int load_modules(void)
{
	char dir[256];
	struct kmod_db db = {0};
	struct kmod_step *steps;
	size_t n;
	struct stat st;
	int rc = 0;
	const char *needed = NEEDED_MODULES;

	snprintf(dir, sizeof dir, "%s/%s", MODULES_DIR, A.release);
	if (stat(dir, &st) < 0) {
		info("no module archive for %s (%s): assuming everything needed is built in", A.release, dir);
		return 0;
	}
	slurp(dir, "modules.dep", &db, kmod_parse_dep);
	slurp(dir, "modules.softdep", &db, kmod_parse_softdep);
	slurp(dir, "modules.builtin", &db, kmod_parse_builtin);
	slurp(dir, "modules.alias", &db, kmod_parse_alias);
	if (!db.n)
		warning("%s/modules.dep is missing or empty: no modules loaded", dir);
	compute_deferred(&db);
	n = kmod_plan(&db, present, dir, &steps);
	for (size_t i = 0; i < n; i++) {
		const struct kmod_step *s = &steps[i];
		switch (s->action) {
		case KMOD_LOAD:
			if (is_deferred(s->name))
				break;
			if (load_one(dir, s->path, NULL) < 0) {
				warn_sys("unable to load module %s", s->name);
				listadd(&A.mod_failed, &A.nfailed, s->name);
				rc = -1;
			} else {
				listadd(&A.mod_loaded, &A.nloaded, s->name);
			}
			break;
		case KMOD_MISSING:
			warning("missing module %s (needed by %s): not in the kernel's module archive", s->name, s->why);
			listadd(&A.mod_missing, &A.nmissing, s->name);
			rc = -1;
			break;
		case KMOD_SKIP:
			warning("module %s not loaded: its dependency %s is missing", s->name, s->why);
			listadd(&A.mod_failed, &A.nfailed, s->name);
			rc = -1;
			break;
		}
	}
	/* what the layouts need: in the archive, or built into the kernel */
	while (*needed) {
		char name[64];
		size_t l = strcspn(needed, " ");
		int found;
		snprintf(name, sizeof name, "%.*s", (int)l, needed);
		needed += l + (needed[l] == ' ');
		found = kmod_is_builtin(&db, name);
		for (size_t i = 0; !found && i < db.n; i++)
			if (!strcmp(db.m[i].name, name) && present(db.m[i].path, dir))
				found = 1;
		if (!found && !strstr(A.mod_missing.s ? A.mod_missing.s : "", name)) {
			warning("missing module %s: needed by the appliance, neither built in nor in the archive", name);
			listadd(&A.mod_missing, &A.nmissing, name);
			rc = -1;
		}
	}
	free(steps);
	kmod_free(&db);
	return rc;
}

/* The archive's dependency and built-in lists, for loading one module on
 * demand: 1 when name is built in (nothing to load), else 0 with db
 * filled (kmod_free it) and dir set. */
static int archive_db(const char *name, char *dir, size_t dirlen, struct kmod_db *db)
{
	memset(db, 0, sizeof *db);
	snprintf(dir, dirlen, "%s/%s", MODULES_DIR, A.release);
	slurp(dir, "modules.dep", db, kmod_parse_dep);
	slurp(dir, "modules.builtin", db, kmod_parse_builtin);
	if (kmod_is_builtin(db, name)) {
		kmod_free(db);
		return 1;
	}
	return 0;
}

/* Load one module of the archive by name, with parameters (brd rd_size=...):
 * its dependencies are already loaded at boot. Built-in: nothing to do. */
int module_load_named(const char *name, const char *params)
{
	char dir[256];
	struct kmod_db db;
	const struct kmod *m;
	int rc = -1;
	if (archive_db(name, dir, sizeof dir, &db))
		return 0;
	errno = ENOENT;
	if ((m = find_mod(&db, name)))
		rc = load_one(dir, m->path, params);
	kmod_free(&db);
	return rc;
}

int module_load_deps(const char *name, char *err, size_t errlen)
{
	char dir[256];
	struct kmod_db db;
	const struct kmod *m;
	int rc = 0;
	if (archive_db(name, dir, sizeof dir, &db))
		return 0;
	m = find_mod(&db, name);
	if (!m) {
		snprintf(err, errlen, "module %s is neither built into %s nor in its module archive", name, A.release);
		kmod_free(&db);
		return -1;
	}
	/* modules.dep lists a module's dependencies so that loading them
	 * from the last to the first works */
	for (size_t d = m->ndeps; d-- > 0 && rc == 0;)
		if (load_one(dir, m->deps[d], NULL) < 0) {
			snprintf(err, errlen, "unable to load %s (needed by %s): %s", m->deps[d], name, strerror(errno));
			rc = -1;
		}
	if (rc == 0 && load_one(dir, m->path, NULL) < 0) {
		snprintf(err, errlen, "unable to load %s: %s", m->path, strerror(errno));
		rc = -1;
	}
	kmod_free(&db);
	return rc;
}

int module_unload(const char *name)
{
	char sys[128];
	snprintf(sys, sizeof sys, "/sys/module/%s", name);
	if (access(sys, F_OK) != 0)
		return 0;
	return syscall(SYS_delete_module, name, O_NONBLOCK);
}
