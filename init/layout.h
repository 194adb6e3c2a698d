/*
 * layout.h - storage layouts built fresh on claimed disks, and torn down.
 */
#ifndef BB_LAYOUT_H
#define BB_LAYOUT_H

#include <stddef.h>

#include "plan.h"

#define LAYOUT_MAX_MEMBERS 16

struct built_layout {
	const struct plan_layout *pl;
	char dev[64];		/* top block device ("" for tmpfs) */
	char dir[64];		/* mountpoint ("" when fs=none) */
	size_t nmembers;
	char members[LAYOUT_MAX_MEMBERS][32];	/* disk names under it */
	int labelled[LAYOUT_MAX_MEMBERS];	/* member carried the scratch label */
	int brd_loaded, md_created, mounted;
	int ro;			/* LAYOUT_READONLY: index into A.devs of the disk read, else -1 */
	double build_s;
	char *fingerprint;	/* JSON object text */
	char warnings[4][160];	/* what was dropped (a tool's output past the capture limit) */
	size_t nwarnings;
	char status[12];	/* "" built, or "skipped" / "failed" */
	char reason[256];
};

/* Build pl on the claimed disks (indexes into A.devs). Always fills out;
 * returns 0 when built, -1 when skipped or failed (out->status/reason say). */
int layout_build(const struct plan_layout *pl, const size_t *claimed, size_t nclaimed,
		 const int *labelled, struct built_layout *out);
void layout_teardown(struct built_layout *bl);
/* The modules building pl needs (md_mod and its level, the filesystem),
 * by name: up to max into mods, returns how many. brd is not among them:
 * it is loaded with the ramdisk's size when the layout is built. */
size_t layout_modules(const struct plan_layout *pl, const char **mods, size_t max);
/* Unmount the layout and check its filesystem read-only (e2fsck -fn,
 * xfs_repair -n): "clean", or what the check said, in verdict. */
void layout_unmount_check(struct built_layout *bl, char *verdict, size_t len);

/* init/tunables.c: apply one tunable combination to the layout's devices,
 * drop caches, and return the JSON object of what is in force. */
char *tunables_apply(const struct plan_section *s, unsigned combo, const struct built_layout *bl);
/* After the run: the VM settings the plan changed, back to the boot's own. */
void tunables_restore(void);
/* At a layout's teardown: its devices' original settings are forgotten
 * (the next layout's devices have their own). */
void tunables_forget(void);

/* init/modules.c */
int module_load_named(const char *name, const char *params);
int module_unload(const char *name);
/* Load a module of the archive with its dependencies (nfsd): 0 when loaded
 * or built in, else -1 with err. */
int module_load_deps(const char *name, char *err, size_t errlen);

#endif
