/*
 * kmod.c - module load ordering on the real metadata of Debian's 6.1.0-57
 * module archive (tests/fixtures/kmod-6.1): dependencies and softdeps come
 * first, each module once, and a missing file is named with who needed it.
 */
#include <stdlib.h>

#include "kmod.h"
#include "tap.h"
#include "xio.h"

#define FIX "tests/fixtures/kmod-6.1/"

static const char *absent;	/* module name whose file is "missing" */

static int present(const char *path, void *ctx)
{
	char *n = kmod_name(path);
	int r = !absent || strcmp(n, absent);
	free(n);
	return r;
}

static void load(struct kmod_db *db)
{
	static const struct {
		const char *f;
		int (*p)(struct kmod_db *, const char *, size_t);
	} files[] = { { FIX "modules.dep", kmod_parse_dep }, { FIX "modules.softdep", kmod_parse_softdep },
		      { FIX "modules.builtin", kmod_parse_builtin }, { FIX "modules.alias", kmod_parse_alias } };
	for (size_t i = 0; i < 4; i++) {
		size_t len;
		char *b = read_file(files[i].f, &len);
		if (!b) {
			printf("Bail out! cannot read %s (run from the repository top)\n", files[i].f);
			exit(1);
		}
		files[i].p(db, b, len);
		free(b);
	}
}

static long pos(struct kmod_step *s, size_t n, const char *name, enum kmod_action a)
{
	for (size_t i = 0; i < n; i++)
		if (s[i].action == a && !strcmp(s[i].name, name))
			return i;
	return -1;
}

int main(void)
{
	struct kmod_db db = {0};
	struct kmod_step *s;
	size_t n;
	int once = 1, deps_first = 1;
	char *name;

	tap_plan(30);
	load(&db);
	is_int(db.n, 49, "49 modules in modules.dep");
	name = kmod_name("kernel/drivers/md/md-mod.ko");
	is_str(name, "md_mod", "md-mod.ko is module md_mod");
	free(name);
	name = kmod_name("kernel/fs/xfs/xfs.ko.xz");
	is_str(name, "xfs", "compressed module name");
	free(name);
	ok(kmod_is_builtin(&db, "crc32c") || kmod_is_builtin(&db, "af_packet"), "builtin list parsed");

	n = kmod_plan(&db, present, NULL, &s);
	is_int(n, 49, "every module planned once, nothing missing");
	for (size_t i = 0; i < n; i++) {
		if (pos(s, n, s[i].name, KMOD_LOAD) != (long)i)
			once = 0;
		for (size_t m = 0; m < db.n; m++) {
			if (strcmp(db.m[m].name, s[i].name))
				continue;
			for (size_t d = 0; d < db.m[m].ndeps; d++) {
				char *dn = kmod_name(db.m[m].deps[d]);
				if (pos(s, n, dn, KMOD_LOAD) > (long)i)
					deps_first = 0;
				free(dn);
			}
		}
	}
	ok(once, "no module loaded twice");
	ok(deps_first, "every dependency loads before its user");
	ok(pos(s, n, "crc32c_generic", KMOD_LOAD) < pos(s, n, "libcrc32c", KMOD_LOAD), "softdep: crc32c_generic before libcrc32c");
	ok(pos(s, n, "crc32c_intel", KMOD_LOAD) < pos(s, n, "libcrc32c", KMOD_LOAD), "softdep alias: crc32c_intel before libcrc32c");
	ok(pos(s, n, "libcrc32c", KMOD_LOAD) < pos(s, n, "xfs", KMOD_LOAD), "libcrc32c before xfs");
	ok(pos(s, n, "crc32c_generic", KMOD_LOAD) < pos(s, n, "ext4", KMOD_LOAD), "crypto-crc32c softdep before ext4");
	ok(pos(s, n, "md_mod", KMOD_LOAD) < pos(s, n, "raid1", KMOD_LOAD), "md_mod before raid1");
	free(s);

	absent = "libcrc32c";
	n = kmod_plan(&db, present, NULL, &s);
	{
		long m = pos(s, n, "libcrc32c", KMOD_MISSING);
		ok(m >= 0, "a missing libcrc32c is named");
		is_str(m >= 0 ? s[m].why : NULL, "xfs", "... as needed by xfs (the first module that needs it)");
		ok(pos(s, n, "xfs", KMOD_SKIP) >= 0 && pos(s, n, "xfs", KMOD_LOAD) < 0, "xfs is skipped, not loaded");
		ok(pos(s, n, "raid456", KMOD_SKIP) >= 0, "raid456 (also needs libcrc32c) is skipped");
		ok(pos(s, n, "raid1", KMOD_LOAD) >= 0, "raid1 (does not) still loads");
	}
	free(s);

	/* only what the roots need */
	absent = NULL;
	{
		const char *roots[] = { "xfs", "crc32c", "nosuch", "md-mod" }, *why[] = { "layout x", "a softdep name",
											  "layout y", "layout z" };
		n = kmod_plan_roots(&db, roots, why, 4, present, NULL, &s);
		ok(pos(s, n, "xfs", KMOD_LOAD) > pos(s, n, "libcrc32c", KMOD_LOAD) && pos(s, n, "libcrc32c", KMOD_LOAD) >= 0,
		   "roots: xfs after what it needs");
		is_str(pos(s, n, "xfs", KMOD_LOAD) >= 0 ? s[pos(s, n, "xfs", KMOD_LOAD)].why : NULL, "layout x",
		       "roots: a root is loaded for its reason");
		is_str(pos(s, n, "libcrc32c", KMOD_LOAD) >= 0 ? s[pos(s, n, "libcrc32c", KMOD_LOAD)].why : NULL, "xfs",
		       "roots: a dependency for the module that needs it");
		ok(pos(s, n, "crc32c_intel", KMOD_LOAD) >= 0, "roots: an exact alias names its module");
		is_str(pos(s, n, "nosuch", KMOD_MISSING) >= 0 ? s[pos(s, n, "nosuch", KMOD_MISSING)].why : NULL, "layout y",
		       "roots: an unknown root is missing, with who wanted it");
		ok(pos(s, n, "md_mod", KMOD_LOAD) >= 0, "roots: a file name's dashes are a module's underscores");
		ok(pos(s, n, "raid1", KMOD_LOAD) < 0 && pos(s, n, "ext4", KMOD_LOAD) < 0 && pos(s, n, "virtio_blk", KMOD_LOAD) < 0,
		   "roots: nothing else is loaded");
		free(s);
	}
	{
		const char *m[4];
		size_t k = kmod_alias_match(&db, "pci:v00001AF4d00001001sv00001AF4sd00000002bc01sc00i00", m, 4);
		ok(k == 1 && !strcmp(m[0], "virtio_pci"), "modalias: a virtio PCI device is virtio_pci's");
		k = kmod_alias_match(&db, "virtio:d00000002v00001AF4", m, 4);
		ok(k == 1 && !strcmp(m[0], "virtio_blk"), "modalias: a virtio block device is virtio_blk's");
		k = kmod_alias_match(&db, "pci:v00008086d00002922sv00001AF4sd00001100bc01sc06i01", m, 4);
		ok(k == 1 && !strcmp(m[0], "ahci"), "modalias: an AHCI controller by its class");
		k = kmod_alias_match(&db, "pci:v00001B36d00000010sv00001AF4sd00001100bc01sc08i02", m, 4);
		ok(k == 1 && !strcmp(m[0], "nvme"), "modalias: two aliases of one module match once");
		k = kmod_alias_match(&db, "pci:v00008086d00007010sv00001AF4sd00001100bc01sc01i80", m, 4);
		is_int(k, 0, "modalias: an IDE controller no module of the archive serves");
		k = kmod_alias_match(&db, "crc32c", m, 4);
		is_int(k, 0, "modalias: exact aliases are names, not devices");
	}
	kmod_free(&db);
	return tap_done();
}
