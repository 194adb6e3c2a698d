/*
 * kmod.h - modules.dep / modules.softdep / modules.alias / modules.builtin
 * parsing and the order in which init loads a kernel's module archive.
 *
 * Pure: the parsers take buffers, and kmod_plan() asks a callback whether a
 * module file is present, so tests run on fixtures with no kernel at all.
 */
#ifndef BB_KMOD_H
#define BB_KMOD_H

#include <stddef.h>

struct kmod {
	char *name;	/* normalized: '-' -> '_' */
	char *path;	/* relative to /lib/modules/RELEASE */
	size_t ndeps;
	char **deps;	/* paths, as modules.dep lists them */
};

struct kmod_softdep {
	char *name;
	size_t npre, npost;
	char **pre, **post;
};

struct kmod_db {
	struct kmod *m;
	size_t n;
	char **builtin;		/* normalized names */
	size_t nbuiltin;
	struct kmod_softdep *sd;
	size_t nsd;
	char **alias, **alias_target;	/* exact (glob-free) aliases */
	size_t nalias;
	char **galias, **galias_target;	/* glob aliases (pci:v00001AF4d*...): devices */
	size_t ngalias;
};

enum kmod_action {
	KMOD_LOAD,	/* load path */
	KMOD_MISSING,	/* listed, file absent: name it */
	KMOD_SKIP,	/* present, but a dependency is missing */
};

struct kmod_step {
	enum kmod_action action;
	const char *name, *path;
	const char *why;	/* MISSING: needed by; SKIP: the missing dependency;
				 * LOAD: the module that needs it, or the root's reason */
};

int kmod_parse_dep(struct kmod_db *db, const char *buf, size_t len);
int kmod_parse_softdep(struct kmod_db *db, const char *buf, size_t len);
int kmod_parse_builtin(struct kmod_db *db, const char *buf, size_t len);
int kmod_parse_alias(struct kmod_db *db, const char *buf, size_t len);
void kmod_free(struct kmod_db *db);

/* Normalized module name of a path or name ("kernel/drivers/md/md-mod.ko" -> "md_mod"). */
char *kmod_name(const char *path);
int kmod_is_builtin(const struct kmod_db *db, const char *name);

typedef int (*kmod_present_fn)(const char *path, void *ctx);

/* Every module of modules.dep, dependencies and softdep "pre:" first, each
 * exactly once. Returns the number of steps; *out is malloc'd. */
size_t kmod_plan(const struct kmod_db *db, kmod_present_fn present, void *ctx,
		 struct kmod_step **out);

/* Only what the roots need: each root (a module name or an exact alias,
 * why[i] saying who wants it) and its dependency and softdep closure, in
 * load order, each once. A root that is built in is nothing to do; one
 * that is neither built in nor listed is a KMOD_MISSING step. */
size_t kmod_plan_roots(const struct kmod_db *db, const char *const *roots, const char *const *why,
		       size_t nroots, kmod_present_fn present, void *ctx, struct kmod_step **out);

/* The modules whose glob aliases match a device's modalias (what udev
 * loads for it): up to max names into out (pointers into db), returns how
 * many matched (possibly more than max). */
size_t kmod_alias_match(const struct kmod_db *db, const char *modalias, const char **out, size_t max);

#endif
