/*
 * modules.c - load what this boot needs from the kernel's module archive
 * (appended as a second cpio), and nothing else: the drivers of the devices
 * the machine has (their modaliases matched against modules.alias, as udev
 * would), then the closure of what the plan's layouts need (md, raid, the
 * filesystems), each with its dependencies and softdeps first. Every module
 * loaded is recorded with the reason it was loaded; one that is needed but
 * neither built in nor in the archive is named.
 *
 * Loading all 48 modules of the archive cost a deterministic boot 2.8 guest
 * seconds before the first run (xfs 1.8 s of it, raid6's self-benchmark,
 * SCSI and e1000 under QEMU); a tmpfs plan needs none of them.
 */
#define _GNU_SOURCE
#include <dirent.h>
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
#include "layout.h"
#include "xio.h"

/* The archive's indexes, read once (load_modules) and kept for the plan's
 * modules and the ones loaded on demand (brd, nfsd, nfsv3). */
static struct kmod_db db;
static char dir[256];
static int have_db;

static int present(const char *path, void *ctx)
{
	char full[512];
	snprintf(full, sizeof full, "%s/%s", (const char *)ctx, path);
	return access(full, R_OK) == 0;
}

static int has_word(const struct sbuf *sb, const char *name)
{
	size_t l = strlen(name);
	for (const char *p = sb->s; p && (p = strstr(p, name)); p += l)
		if ((p == sb->s || p[-1] == ' ') && (p[l] == 0 || p[l] == ' '))
			return 1;
	return 0;
}

static void listadd(struct sbuf *sb, unsigned *count, const char *name)
{
	if (has_word(sb, name))
		return;
	if (sb->len)
		sb_putc(sb, ' ');
	sb_puts(sb, name);
	(*count)++;
}

static const struct kmod *find_mod(const char *name)
{
	for (size_t i = 0; i < db.n; i++)
		if (!strcmp(db.m[i].name, name))
			return &db.m[i];
	return NULL;
}

static int load_one(const char *path, const char *params)
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

static void slurp(const char *file, int (*parse)(struct kmod_db *, const char *, size_t))
{
	char path[512];
	size_t len;
	char *buf;
	snprintf(path, sizeof path, "%s/%s", dir, file);
	buf = read_file(path, &len);
	if (buf) {
		parse(&db, buf, len);
		free(buf);
	}
}

static int open_db(void)
{
	struct stat st;
	if (have_db)
		return have_db > 0 ? 0 : -1;
	snprintf(dir, sizeof dir, "%s/%s", MODULES_DIR, A.release);
	if (stat(dir, &st) < 0) {
		have_db = -1;
		return -1;
	}
	slurp("modules.dep", kmod_parse_dep);
	slurp("modules.softdep", kmod_parse_softdep);
	slurp("modules.builtin", kmod_parse_builtin);
	slurp("modules.alias", kmod_parse_alias);
	if (!db.n)
		warning("%s/modules.dep is missing or empty: no modules loaded", dir);
	have_db = 1;
	return 0;
}

/* Load the roots' closure; every module loaded is recorded with why. */
static int load_roots(const char *const *roots, const char *const *why, size_t n)
{
	struct kmod_step *steps;
	size_t ns = kmod_plan_roots(&db, roots, why, n, present, dir, &steps);
	int rc = 0;
	for (size_t i = 0; i < ns; i++) {
		const struct kmod_step *s = &steps[i];
		switch (s->action) {
		case KMOD_LOAD:
			if (has_word(&A.mod_loaded, s->name))
				break;
			if (load_one(s->path, NULL) < 0) {
				warn_sys("unable to load module %s", s->name);
				listadd(&A.mod_failed, &A.nfailed, s->name);
				rc = -1;
			} else {
				listadd(&A.mod_loaded, &A.nloaded, s->name);
				sb_printf(&A.mod_why, "%s\t%s\n", s->name, s->why ? s->why : "");
			}
			break;
		case KMOD_MISSING:
			if (has_word(&A.mod_missing, s->name))
				break;
			warning("missing module %s (needed by %s): neither built in nor in the kernel's module archive",
				s->name, s->why);
			listadd(&A.mod_missing, &A.nmissing, s->name);
			rc = -1;
			break;
		case KMOD_SKIP:
			if (has_word(&A.mod_failed, s->name))
				break;
			warning("module %s not loaded: its dependency %s is missing", s->name, s->why);
			listadd(&A.mod_failed, &A.nfailed, s->name);
			rc = -1;
			break;
		}
	}
	free(steps);
	return rc;
}

/* One pass over every device's modalias: the drivers in the archive that
 * serve them and are not loaded yet become roots. Returns how many. */
#define MAX_DEVICE_ROOTS 64
static size_t device_roots(char names[][64], char whys[][160])
{
	DIR *buses = opendir("/sys/bus");
	struct dirent *b;
	size_t n = 0;
	if (!buses)
		return 0;
	while ((b = readdir(buses)) && n < MAX_DEVICE_ROOTS) {
		char path[300];
		DIR *devs;
		struct dirent *d;
		if (b->d_name[0] == '.')
			continue;
		snprintf(path, sizeof path, "/sys/bus/%s/devices", b->d_name);
		if (!(devs = opendir(path)))
			continue;
		while ((d = readdir(devs)) && n < MAX_DEVICE_ROOTS) {
			char ma[600], *alias;
			const char *match[8];
			size_t nm;
			if (d->d_name[0] == '.')
				continue;
			snprintf(ma, sizeof ma, "/sys/bus/%s/devices/%s/modalias", b->d_name, d->d_name);
			if (!(alias = read_attr(ma)))
				continue;
			nm = kmod_alias_match(&db, alias, match, 8);
			for (size_t k = 0; k < nm && k < 8 && n < MAX_DEVICE_ROOTS; k++) {
				const struct kmod *m = find_mod(match[k]);
				int dup = 0;
				if (!m || !present(m->path, dir) || has_word(&A.mod_loaded, m->name) ||
				    has_word(&A.mod_failed, m->name))
					continue;
				for (size_t j = 0; j < n; j++)
					dup |= !strcmp(names[j], m->name);
				if (dup)
					continue;
				snprintf(names[n], 64, "%s", m->name);
				snprintf(whys[n], 160, "device %.24s %.40s (%.80s)", b->d_name, d->d_name, alias);
				n++;
			}
			free(alias);
		}
		closedir(devs);
	}
	closedir(buses);
	return n;
}

int load_modules(void)
{
	int rc = 0;
	if (open_db() < 0) {
		info("no module archive for %s (%s): assuming everything needed is built in", A.release, dir);
		return 0;
	}
	/* A driver's devices can carry drivers of their own (virtio_pci
	 * makes the virtio devices virtio_blk serves; ahci the SCSI disks
	 * of sd_mod): again until nothing new matches, a few rounds at most. */
	for (int round = 0; round < 4; round++) {
		static char names[MAX_DEVICE_ROOTS][64], whys[MAX_DEVICE_ROOTS][160];
		const char *roots[MAX_DEVICE_ROOTS], *why[MAX_DEVICE_ROOTS];
		size_t n = device_roots(names, whys);
		if (!n)
			break;
		for (size_t i = 0; i < n; i++) {
			roots[i] = names[i];
			why[i] = whys[i];
		}
		if (load_roots(roots, why, n) < 0)
			rc = -1;
	}
	return rc;
}

int load_plan_modules(const struct plan *p)
{
	const char *roots[PLAN_MAX_LAYOUTS * 4], *why[PLAN_MAX_LAYOUTS * 4];
	static char reasons[PLAN_MAX_LAYOUTS][160];
	size_t n = 0;
	if (!p)
		return 0;
	for (size_t l = 0; l < p->nlayouts; l++) {
		const char *mods[4];
		size_t nm = layout_modules(&p->layouts[l], mods, 4);
		snprintf(reasons[l], sizeof reasons[l], "layout %s", p->layouts[l].name);
		for (size_t k = 0; k < nm; k++) {
			roots[n] = mods[k];
			why[n++] = reasons[l];
		}
	}
	if (!n)
		return 0;
	if (open_db() < 0) {
		/* a kernel without modules: what the layouts need must be built in,
		 * and a layout that finds its filesystem missing says so */
		return 0;
	}
	return load_roots(roots, why, n);
}

/* modules.dep lists a module's dependencies so that loading them from the
 * last to the first works. */
static int load_deps_of(const struct kmod *m, char *err, size_t errlen)
{
	for (size_t d = m->ndeps; d-- > 0;)
		if (load_one(m->deps[d], NULL) < 0) {
			snprintf(err, errlen, "unable to load %s (needed by %s): %s", m->deps[d], m->name,
				 strerror(errno));
			return -1;
		}
	return 0;
}

/* Load one module of the archive by name, with parameters (brd rd_size=...),
 * after its dependencies. Built in: nothing to do. */
int module_load_named(const char *name, const char *params)
{
	const struct kmod *m;
	char err[256];
	if (open_db() == 0 && kmod_is_builtin(&db, name))
		return 0;
	errno = ENOENT;
	if (!(m = find_mod(name)))
		return -1;
	if (load_deps_of(m, err, sizeof err) < 0)
		return -1;
	return load_one(m->path, params);
}

int module_load_deps(const char *name, char *err, size_t errlen)
{
	const struct kmod *m;
	if (open_db() == 0 && kmod_is_builtin(&db, name))
		return 0;
	if (!(m = find_mod(name))) {
		snprintf(err, errlen, "module %s is neither built into %s nor in its module archive", name, A.release);
		return -1;
	}
	if (load_deps_of(m, err, errlen) < 0)
		return -1;
	if (load_one(m->path, NULL) < 0) {
		snprintf(err, errlen, "unable to load %s: %s", m->path, strerror(errno));
		return -1;
	}
	return 0;
}

int module_unload(const char *name)
{
	char sys[128];
	snprintf(sys, sizeof sys, "/sys/module/%s", name);
	if (access(sys, F_OK) != 0)
		return 0;
	return syscall(SYS_delete_module, name, O_NONBLOCK);
}
