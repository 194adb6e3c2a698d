/*
 * layout.c - build and tear down the layouts of a plan: raw disk, md RAID
 * 0/1/5, ext2/3/4 or xfs on top, brd ramdisk, tmpfs. Everything is built the
 * same way on every boot with the userland's own tools, mkfs options pinned,
 * and a fingerprint of what was built goes into each run record.
 *
 * Only claimed disks (init/claim) are ever opened for writing here.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "claim.h"
#include "defaults.h"
#include "err.h"
#include "init.h"
#include "json.h"
#include "layout.h"
#include "spawn.h"
#include "xio.h"

#define MD_DEV "/dev/md0"
#define TOOL_TIMEOUT_MS (10 * 60 * 1000)

static int fail(struct built_layout *bl, const char *status, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static int fail(struct built_layout *bl, const char *status, const char *fmt, ...)
{
	va_list ap;
	snprintf(bl->status, sizeof bl->status, "%s", status);
	va_start(ap, fmt);
	vsnprintf(bl->reason, sizeof bl->reason, fmt, ap);
	va_end(ap);
	return -1;
}

/* Run a tool; on failure put its last output line in the reason. */
static int tool(struct built_layout *bl, char **argv, struct sbuf *out)
{
	struct sbuf local = {0};
	struct run_result r;
	struct sbuf *o = out ? out : &local;
	char st[64];
	if (bl->pl && getenv("BOOTBENCH_DEBUG"))
		info("layout %s: running %s", bl->pl->name, argv[0]);
	if (run_capture(argv, o, TOOL_TIMEOUT_MS, &r) < 0) {
		sb_free(&local);
		return fail(bl, "failed", "unable to run %s: %s", argv[0], strerror(errno));
	}
	if (r.dropped) {
		/* said in the fingerprint, so in every run record on this layout */
		warning("%s printed %llu bytes past the %u MiB capture limit: dropped", argv[0], r.dropped,
		     PROC_CAPTURE_MAX >> 20);
		if (bl->nwarnings < sizeof bl->warnings / sizeof *bl->warnings)
			snprintf(bl->warnings[bl->nwarnings++], sizeof *bl->warnings,
				 "%s printed %llu bytes past the %u MiB capture limit: dropped", argv[0], r.dropped,
				 PROC_CAPTURE_MAX >> 20);
	}
	if (r.timed_out || !WIFEXITED(r.status) || WEXITSTATUS(r.status)) {
		char why[200];
		tool_reason(o, NULL, why, sizeof why);
		status_text(r.status, st, sizeof st);
		fail(bl, "failed", "%s %s: %s", argv[0], r.timed_out ? "timed out" : st, why);
		sb_free(&local);
		return -1;
	}
	sb_free(&local);
	return 0;
}

/* A block device's size in bytes; 0 when it cannot be read. */
static uint64_t dev_size(const char *path)
{
	uint64_t size = 0;
	unsigned lbs;
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd >= 0) {
		if (dev_geometry(fd, &size, &lbs) < 0)
			size = 0;
		close(fd);
	}
	return size;
}

/* Zero the first and last MiB: partition tables, fs and md superblocks
 * (0.90/1.0 live at the end) of an earlier layout must not leak into this one. */
static int wipe(struct built_layout *bl, const char *name, int relabel)
{
	char path[64];
	static unsigned char zero[1 << 20];
	uint64_t size;
	unsigned lbs;
	int fd;
	snprintf(path, sizeof path, "/dev/%s", name);
	/* belt and braces: claim() never hands one out */
	for (size_t i = 0; i < A.ndevs; i++)
		if (!strcmp(A.devs[i].name, name) && claim_listed(&A.devs[i], A.conf.readonly))
			return fail(bl, "failed", "refusing to write %s: it is named in bootbench.readonly=", path);
	fd = open(path, O_RDWR | O_CLOEXEC | O_EXCL);
	if (fd < 0)
		return fail(bl, "failed", "unable to open %s exclusively: %s", path, strerror(errno));
	if (dev_geometry(fd, &size, &lbs) < 0 || size < 2 * sizeof zero) {
		close(fd);
		return fail(bl, "failed", "%s is too small or unreadable", path);
	}
	if (pwrite_all(fd, zero, sizeof zero, 0) < 0 || pwrite_all(fd, zero, sizeof zero, size - sizeof zero) < 0) {
		close(fd);
		return fail(bl, "failed", "unable to wipe %s: %s", path, strerror(errno));
	}
	/* A label that is not written back, or not flushed, silently stops the
	 * disk being claimed on the next boot: that is a failure of the layout. */
	if (relabel) {
		unsigned char label[512];
		scratch_label_make(label);
		if (pwrite_all(fd, label, sizeof label, 0) < 0) {
			close(fd);
			return fail(bl, "failed", "unable to write the scratch label back to %s: %s", path,
				    strerror(errno));
		}
	}
	if (fsync(fd) < 0) {
		int e = errno;
		close(fd);
		return fail(bl, "failed", "unable to flush %s%s: %s", path, relabel ? " (its scratch label)" : "",
			    strerror(e));
	}
	if (close(fd) < 0)
		return fail(bl, "failed", "unable to close %s: %s", path, strerror(errno));
	return 0;
}

static void add_text(struct jw *w, const char *key, const struct sbuf *sb)
{
	char *s = xstrndup(sb->s ? sb->s : "", sb->len);
	size_t l = strlen(s);
	while (l && (s[l - 1] == '\n' || s[l - 1] == ' '))
		s[--l] = 0;
	jw_str(w, key, s);
	free(s);
}

static void mounts_line(const char *dir, char *out, size_t len)
{
	char *m = read_file("/proc/mounts", NULL), *line, *save = NULL;
	out[0] = 0;
	if (!m)
		return;
	for (line = strtok_r(m, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char dev[128], mp[128];
		if (sscanf(line, "%127s %127s", dev, mp) == 2 && !strcmp(mp, dir))
			snprintf(out, len, "%s", line);
	}
	free(m);
}

static int wait_resync(struct built_layout *bl, double *waited)
{
	double t0 = mono_now();
	for (;;) {
		char *a = read_attr("/sys/block/md0/md/sync_action");
		int idle = a && !strcmp(a, "idle");
		free(a);
		if (idle)
			break;
		if (mono_now() - t0 > 3600)
			return fail(bl, "failed", "md resync did not finish within an hour");
		usleep(200000);
	}
	*waited = mono_now() - t0;
	return 0;
}

int layout_build(const struct plan_layout *pl, const size_t *claimed, size_t nclaimed,
		 const int *labelled, struct built_layout *bl)
{
	const struct plan_layout *L = pl;
	struct jw fp;
	struct sbuf md_detail = {0}, fsinfo = {0}, mkfs_used = {0};
	char resync[64] = "", mline[512];
	double t0 = mono_now();
	const char *fs = L->fs ? L->fs : "none";
	unsigned long long ram_fs_size = 0;	/* a bigger ramdisk than asked: mkfs this much of it */

	memset(bl, 0, sizeof *bl);
	bl->pl = L;
	bl->ro = -1;
	/* ---- members ---- */
	if (L->kind == LAYOUT_DISK || L->kind == LAYOUT_MD) {
		if (L->ndisks > nclaimed)
			return fail(bl, "skipped", "layout %s needs %u claimed disks, %zu claimed (bootbench.disks= or bootbench mkscratch)",
				    L->name, L->ndisks, nclaimed);
		if (L->ndisks > LAYOUT_MAX_MEMBERS)
			return fail(bl, "skipped", "layout %s needs more than %d disks", L->name, LAYOUT_MAX_MEMBERS);
		for (unsigned i = 0; i < L->ndisks; i++) {
			snprintf(bl->members[i], sizeof bl->members[i], "%s", A.devs[claimed[i]].name);
			bl->labelled[i] = labelled[claimed[i]];
			bl->nmembers++;
			if (wipe(bl, bl->members[i], bl->labelled[i]) < 0)
				return -1;
		}
	}
	switch (L->kind) {
	case LAYOUT_DISK:
		snprintf(bl->dev, sizeof bl->dev, "/dev/%s", bl->members[0]);
		break;
	case LAYOUT_MD: {
		char *argv[32];
		char level[32], ndev[32], chunk[48];
		size_t n = 0;
		double waited = 0;
		argv[n++] = (char *)"/sbin/mdadm";
		argv[n++] = (char *)"--create";
		argv[n++] = (char *)MD_DEV;
		argv[n++] = (char *)"--run";
		argv[n++] = (char *)"--metadata=1.2";
		/* the array's name marks it the appliance's own (MD_NAME): a
		 * scratch-labelled disk holding any other md member was used
		 * by somebody since it was labelled, and is not claimed */
		argv[n++] = (char *)"--name=" MD_NAME;
		snprintf(level, sizeof level, "--level=%s", L->md_level);
		argv[n++] = level;
		snprintf(ndev, sizeof ndev, "--raid-devices=%zu", bl->nmembers);
		argv[n++] = ndev;
		if (L->chunk) {
			snprintf(chunk, sizeof chunk, "--chunk=%lluK", L->chunk / 1024);
			argv[n++] = chunk;
		}
		if (strcmp(L->md_level, "raid0") && (!L->resync || !strcmp(L->resync, "assume-clean")))
			argv[n++] = (char *)"--assume-clean";
		for (size_t i = 0; i < bl->nmembers; i++)
			argv[n++] = xasprintf("/dev/%s", bl->members[i]);
		argv[n] = NULL;
		if (tool(bl, argv, NULL) < 0)
			return -1;
		bl->md_created = 1;
		snprintf(bl->dev, sizeof bl->dev, "%s", MD_DEV);
		if (!strcmp(L->md_level, "raid0"))
			snprintf(resync, sizeof resync, "none (raid0)");
		else if (!L->resync || !strcmp(L->resync, "assume-clean"))
			snprintf(resync, sizeof resync, "assume-clean");
		else if (!strcmp(L->resync, "wait")) {
			if (wait_resync(bl, &waited) < 0)
				return -1;
			snprintf(resync, sizeof resync, "resynced (waited %.1f s)", waited);
		} else
			snprintf(resync, sizeof resync, "resync running during the runs (skews figures)");
		{
			char *dargv[] = { (char *)"/sbin/mdadm", (char *)"--detail", (char *)MD_DEV, NULL };
			tool(bl, dargv, &md_detail);
			bl->status[0] = 0;	/* detail is informative only */
		}
		break;
	}
	case LAYOUT_RAMDISK: {
		char params[96];
		struct stat st;
		module_unload("brd");
		snprintf(params, sizeof params, "rd_nr=1 rd_size=%llu max_part=0", L->size / 1024);
		if (module_load_named("brd", params) < 0 && stat("/dev/ram0", &st) < 0)
			return fail(bl, "failed", "unable to load brd (%s) and no /dev/ram0", strerror(errno));
		bl->brd_loaded = 1;
		for (int i = 0; i < 50 && stat("/dev/ram0", &st) < 0; i++)
			usleep(20000);
		snprintf(bl->dev, sizeof bl->dev, "/dev/ram0");
		/* A built-in brd ignores rd_size: its disks have the size the
		 * kernel was built (or booted, brd.rd_size=) with. */
		{
			uint64_t have = dev_size(bl->dev);
			if (have < L->size)
				return fail(bl, "skipped", "/dev/ram0 holds %llu MiB, the layout asks %llu MiB (brd is built "
					    "into this kernel and ignores rd_size: boot it with brd.rd_size=KIB)",
					    (unsigned long long)have >> 20, L->size >> 20);
			if (have > L->size) {
				ram_fs_size = L->size;
				snprintf(bl->warnings[bl->nwarnings++], sizeof bl->warnings[0],
					 "/dev/ram0 holds %llu MiB (brd built in); the filesystem is made %llu MiB, as asked",
					 (unsigned long long)have >> 20, L->size >> 20);
			}
		}
		break;
	}
	case LAYOUT_TMPFS:
		break;
	case LAYOUT_READONLY: {
		/* nothing is built and nothing written: the disk is only named */
		char why[256];
		int i = readonly_disk(A.devs, A.ndevs, A.conf.readonly, L->readonly, A.results_dev, why, sizeof why);
		if (i < 0)
			return fail(bl, "skipped", "%s", why);
		bl->ro = i;
		snprintf(bl->dev, sizeof bl->dev, "/dev/%s", A.devs[i].name);
		break;
	}
	}
	/* ---- filesystem ---- */
	mkdir(LAYOUT_MNT, 0755);
	if (L->kind == LAYOUT_TMPFS) {
		char opts[64];
		snprintf(opts, sizeof opts, "size=%llu", L->size);
		if (mount("tmpfs", LAYOUT_MNT, "tmpfs", 0, opts) < 0)
			return fail(bl, "failed", "unable to mount tmpfs: %s", strerror(errno));
		bl->mounted = 1;
		snprintf(bl->dir, sizeof bl->dir, "%s", LAYOUT_MNT);
		fs = "tmpfs";
	} else if (strcmp(fs, "none")) {
		char *argv[96], pinned[512], extra[512], *tool_path, fs_size[48];
		size_t n = 0;
		int xfs = !strcmp(fs, "xfs");
		uint64_t size = dev_size(bl->dev);
		if (xfs && size < XFS_MIN_BYTES && !(L->mkfs && strstr(L->mkfs, "--unsupported")))
			return fail(bl, "skipped", "xfs on %s (%llu MB) is below mkfs.xfs's 300 MB minimum: give the layout more space or mkfs=\"--unsupported\"",
				    bl->dev, (unsigned long long)size / 1000000);
		snprintf(pinned, sizeof pinned, "%s", !strcmp(fs, "ext2") ? MKFS_EXT2 : !strcmp(fs, "ext3") ? MKFS_EXT3 :
			 !strcmp(fs, "ext4") ? MKFS_EXT4 : MKFS_XFS);
		snprintf(extra, sizeof extra, "%s", L->mkfs ? L->mkfs : "");
		tool_path = xfs ? (char *)"/sbin/mkfs.xfs" : (char *)"/sbin/mke2fs";
		argv[n++] = tool_path;
		if (!xfs) {
			argv[n++] = (char *)"-F";
			argv[n++] = (char *)"-q";
		}
		sb_printf(&mkfs_used, "%s %s%s%s", tool_path, xfs ? "" : "-F -q ", pinned, extra[0] ? " " : "");
		sb_puts(&mkfs_used, extra);
		n = argv_split(pinned, argv, n, 90);
		if (n != (size_t)-1)
			n = argv_split(extra, argv, n, 90);
		if (n == (size_t)-1)
			return fail(bl, "failed", "mkfs=\"%s\": more than 90 words of mkfs options", L->mkfs ? L->mkfs : "");
		if (ram_fs_size && xfs) {
			snprintf(fs_size, sizeof fs_size, "size=%llu", ram_fs_size);
			argv[n++] = (char *)"-d";
			argv[n++] = fs_size;
		}
		argv[n++] = bl->dev;
		if (ram_fs_size && !xfs) {
			snprintf(fs_size, sizeof fs_size, "%lluk", ram_fs_size / 1024);
			argv[n++] = fs_size;
		}
		argv[n] = NULL;
		if (tool(bl, argv, NULL) < 0)
			return -1;
		{
			char *margv[] = { (char *)BUSYBOX, (char *)"mount", (char *)"-t", (char *)fs,
					  (char *)"-o", L->mount ? L->mount : (char *)"defaults", bl->dev, (char *)LAYOUT_MNT, NULL };
			if (tool(bl, margv, NULL) < 0)
				return -1;
			bl->mounted = 1;
			snprintf(bl->dir, sizeof bl->dir, "%s", LAYOUT_MNT);
		}
		if (xfs) {
			char *iargv[] = { (char *)"/sbin/xfs_info", (char *)LAYOUT_MNT, NULL };
			tool(bl, iargv, &fsinfo);
		} else {
			char *iargv[] = { (char *)"/sbin/dumpe2fs", (char *)"-h", bl->dev, NULL };
			tool(bl, iargv, &fsinfo);
		}
		bl->status[0] = 0;
		bl->reason[0] = 0;
	}
	bl->build_s = mono_now() - t0;

	/* ---- fingerprint ---- */
	jw_init(&fp);
	jw_obj(&fp, NULL);
	jw_str(&fp, "name", L->name);
	jw_str(&fp, "kind", L->kind == LAYOUT_MD ? "md" : L->kind == LAYOUT_RAMDISK ? "ramdisk" :
			     L->kind == LAYOUT_TMPFS ? "tmpfs" : L->kind == LAYOUT_READONLY ? "readonly" : "disk");
	jw_str(&fp, "device", bl->dev[0] ? bl->dev : NULL);
	jw_arr(&fp, "members");
	for (size_t i = 0; i < bl->nmembers; i++) {
		const struct blkdev *d = NULL;
		for (size_t k = 0; k < A.ndevs; k++)
			if (!strcmp(A.devs[k].name, bl->members[i]))
				d = &A.devs[k];
		jw_obj(&fp, NULL);
		jw_str(&fp, "name", bl->members[i]);
		jw_str(&fp, "serial", d ? d->serial : NULL);
		jw_int(&fp, "size_bytes", d ? (long long)d->size : 0);
		jw_obj_end(&fp);
	}
	jw_arr_end(&fp);
	if (L->kind == LAYOUT_MD) {
		jw_obj(&fp, "md");
		jw_str(&fp, "level", L->md_level);
		jw_int(&fp, "chunk_bytes", L->chunk);
		jw_str(&fp, "resync", resync);
		add_text(&fp, "detail", &md_detail);
		jw_obj_end(&fp);
	}
	if (L->kind == LAYOUT_RAMDISK || L->kind == LAYOUT_TMPFS)
		jw_int(&fp, "size_bytes", L->size);
	if (bl->ro >= 0) {
		const struct blkdev *d = &A.devs[bl->ro];
		jw_obj(&fp, "readonly");
		jw_str(&fp, "token", L->readonly);
		jw_str(&fp, "name", d->name);
		jw_str(&fp, "serial", d->serial);
		jw_int(&fp, "size_bytes", (long long)d->size);
		jw_obj_end(&fp);
	}
	jw_obj(&fp, "fs");
	jw_str(&fp, "type", fs);
	if (mkfs_used.len)
		add_text(&fp, "mkfs", &mkfs_used);
	/* A built-in brd bigger than asked: the filesystem is cut to the
	 * layout's size (given to mkfs after the options above, which are the
	 * layout's identity and so the same on every kernel). */
	if (ram_fs_size)
		jw_int(&fp, "size_bytes", (long long)ram_fs_size);
	if (fsinfo.len) {
		const char *feat = strstr(fsinfo.s, "Filesystem features:");
		if (feat) {
			char f[512];
			sscanf(feat, "Filesystem features: %511[^\n]", f);
			jw_str(&fp, "features", f);
		}
		add_text(&fp, "superblock", &fsinfo);
	}
	mounts_line(LAYOUT_MNT, mline, sizeof mline);
	jw_str(&fp, "mount", bl->mounted ? mline : NULL);
	jw_obj_end(&fp);
	jw_obj(&fp, "build_time");
	jw_num(&fp, "value", bl->build_s);
	jw_str(&fp, "unit", "s");
	jw_str(&fp, "better", "lower");
	jw_obj_end(&fp);
	if (bl->nwarnings) {
		jw_arr(&fp, "warnings");
		for (size_t i = 0; i < bl->nwarnings; i++)
			jw_str(&fp, NULL, bl->warnings[i]);
		jw_arr_end(&fp);
	}
	jw_obj_end(&fp);
	bl->fingerprint = sb_steal(&fp.sb);
	sb_free(&md_detail);
	sb_free(&fsinfo);
	sb_free(&mkfs_used);
	return 0;
}

void layout_unmount_check(struct built_layout *bl, char *verdict, size_t len)
{
	const char *fs = bl->pl && bl->pl->fs ? bl->pl->fs : "none";
	int xfs = !strcmp(fs, "xfs");
	char *argv[6];
	struct sbuf out = {0};
	struct run_result r;
	char st[64], why[161];
	sync();
	/* what let go of the mount (nfsd's export cache) may drop its last
	 * reference a moment later: EBUSY is tried again for 5 s */
	for (int i = 0; bl->mounted && umount2(LAYOUT_MNT, 0) < 0; i++) {
		if (errno != EBUSY || i == 50) {
			snprintf(verdict, len, "unable to unmount %s: %s", LAYOUT_MNT, strerror(errno));
			return;
		}
		usleep(100000);
	}
	bl->mounted = 0;
	if (!bl->dev[0] || !strcmp(fs, "none") || !strcmp(fs, "tmpfs")) {
		snprintf(verdict, len, "unmounted (%s: nothing to check)", bl->dev[0] ? fs : "tmpfs");
		return;
	}
	/* read-only checks: -n answers no to every repair */
	argv[0] = xfs ? (char *)"/sbin/xfs_repair" : (char *)"/sbin/e2fsck";
	argv[1] = (char *)"-n";
	argv[2] = xfs ? bl->dev : (char *)"-f";
	argv[3] = xfs ? NULL : bl->dev;
	argv[4] = NULL;
	if (run_capture(argv, &out, TOOL_TIMEOUT_MS, &r) < 0)
		snprintf(verdict, len, "unable to run %s: %s", argv[0], strerror(errno));
	else if (WIFEXITED(r.status) && WEXITSTATUS(r.status) == 0)
		snprintf(verdict, len, "clean");
	else {
		status_text(r.status, st, sizeof st);
		tool_reason(&out, NULL, why, sizeof why);
		snprintf(verdict, len, "%s %s: %s", argv[0], st, why);
	}
	sb_free(&out);
}

void layout_teardown(struct built_layout *bl)
{
	tunables_forget();
	sync();
	if (bl->mounted && umount2(LAYOUT_MNT, 0) < 0) {
		warn_sys("unable to unmount %s; detaching it", LAYOUT_MNT);
		umount2(LAYOUT_MNT, MNT_DETACH);
	}
	bl->mounted = 0;
	if (bl->md_created) {
		char *argv[] = { (char *)"/sbin/mdadm", (char *)"--stop", (char *)MD_DEV, NULL };
		struct sbuf out = {0};
		struct run_result r;
		if (run_capture(argv, &out, TOOL_TIMEOUT_MS, &r) < 0 || !WIFEXITED(r.status) || WEXITSTATUS(r.status))
			warning("mdadm --stop %s failed: %s", MD_DEV, out.s ? out.s : "");
		sb_free(&out);
		bl->md_created = 0;
	}
	for (size_t i = 0; i < bl->nmembers; i++) {
		char keep_status[12], keep_reason[256];
		memcpy(keep_status, bl->status, sizeof keep_status);
		memcpy(keep_reason, bl->reason, sizeof keep_reason);
		if (wipe(bl, bl->members[i], bl->labelled[i]) < 0)
			warning("teardown: %s", bl->reason);
		memcpy(bl->status, keep_status, sizeof keep_status);
		memcpy(bl->reason, keep_reason, sizeof keep_reason);
	}
	if (bl->brd_loaded) {
		module_unload("brd");
		bl->brd_loaded = 0;
	}
	free(bl->fingerprint);
	bl->fingerprint = NULL;
}

size_t layout_modules(const struct plan_layout *pl, const char **mods, size_t max)
{
	size_t n = 0;
#define ADD(m) do { if (n < max) mods[n++] = (m); } while (0)
	if (pl->kind == LAYOUT_MD) {
		ADD("md_mod");
		if (!strcmp(pl->md_level, "raid0"))
			ADD("raid0");
		else if (!strcmp(pl->md_level, "raid1"))
			ADD("raid1");
		else
			ADD("raid456");	/* raid4/5/6: its load benchmarks raid6 and xor */
	}
	if (pl->fs && (!strcmp(pl->fs, "ext2") || !strcmp(pl->fs, "ext3") || !strcmp(pl->fs, "ext4")))
		ADD("ext4");	/* ext2 and ext3 are served by ext4 (EXT4_USE_FOR_EXT2) */
	else if (pl->fs && !strcmp(pl->fs, "xfs"))
		ADD("xfs");
#undef ADD
	return n;
}
