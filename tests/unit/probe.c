/*
 * probe.c - what a disk holds (lib/probe.c), without root or mkfs tools:
 * the rule of which signatures are the appliance's own (probe_foreign),
 * the messages (probe_describe, cut with a mark, never silently), and
 * disk_probe on image files holding nothing, our scratch label, our
 * results header, and a label with control and 8-bit bytes.
 */
#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>

#include "claim.h"
#include "probe.h"
#include "results.h"
#include "tap.h"
#include "xio.h"

static struct probe_result one(const char *type, const char *usage, const char *label, uint64_t off)
{
	struct probe_result r = {0};
	r.n = 1;
	snprintf(r.sig[0].type, sizeof r.sig[0].type, "%s", type);
	snprintf(r.sig[0].usage, sizeof r.sig[0].usage, "%s", usage);
	snprintf(r.sig[0].label, sizeof r.sig[0].label, "%s", label);
	r.sig[0].off = off;
	return r;
}

/* An image of 1 MiB whose first bytes are head (len bytes). */
static int image(char *path, const void *head, size_t len)
{
	int fd = mkstemp(path);
	if (fd < 0 || ftruncate(fd, 1 << 20) < 0 || (len && pwrite_all(fd, head, len, 0) < 0))
		return -1;
	return fd;
}

int main(void)
{
	struct probe_result r;
	char out[4096], err[256], path[64];
	unsigned char label[512];
	int fd;

	tap_plan(17);
	r = one("ext4", "filesystem", "", 1080);
	is_int(probe_foreign(&r), 0, "ext4 beside a label: the appliance's own kind");
	r = one("LVM2_member", "raid", "", 536);
	is_int(probe_foreign(&r), 1, "an LVM member: somebody else's");
	r = one("linux_raid_member", "raid", MD_NAME, 4096);
	is_int(probe_foreign(&r), 0, "an md 1.2 member named " MD_NAME ": the appliance's own array");
	r = one("linux_raid_member", "raid", "nas:0", 4096);
	is_int(probe_foreign(&r), 1, "an md member of another name: somebody's array");
	r = one("linux_raid_member", "raid", MD_NAME, 1048576 - 8192);
	is_int(probe_foreign(&r), 1, "an md 1.0 member (at the end) with our name: not one the appliance makes");
	r = one("ext4", "filesystem", "", 1080);
	r.more = 2;
	is_int(probe_foreign(&r), 2, "signatures past PROBE_MAX count as foreign");

	r = one("crypto_LUKS", "crypto", "home", 0);
	probe_describe(&r, out, sizeof out);
	is_str(out, "crypto_LUKS (an encrypted volume labelled \"home\", at byte 0)", "a signature described");
	probe_describe(&r, out, 20);
	is_str(out, "crypto_LUKS (an ...", "a message cut short says so");
	{
		struct probe_result two = one("ext4", "filesystem", "", 1080);
		two.n = 2;
		two.sig[1] = r.sig[0];
		probe_describe(&two, out, 34);	/* exactly the first one fits */
		is_str(out, "ext4 (a filesystem, at byte 1 ...", "a message that stops between signatures says so too");
		two.n = 1;
		two.more = 3;
		probe_describe(&two, out, 34);
		is_str(out, "ext4 (a filesystem, at byte 1 ...", "... and so does one with more left uncounted");
	}
	r.n = 0;
	probe_describe(&r, out, sizeof out);
	is_str(out, "", "nothing found: an empty description");

	strcpy(path, "/tmp/bb-unit-probe.XXXXXX");
	fd = image(path, NULL, 0);
	ok(fd >= 0 && disk_probe(fd, &r, err, sizeof err) == 0 && r.n == 0 && !r.scratch, "an empty image holds nothing");
	ok(probe_holds(fd, 0, out, sizeof out) == 0, "... and probe_holds says so");
	close(fd);
	unlink(path);

	scratch_label_make(label);
	strcpy(path, "/tmp/bb-unit-probe.XXXXXX");
	fd = image(path, label, sizeof label);
	ok(fd >= 0 && disk_probe(fd, &r, err, sizeof err) == 0 && r.scratch && r.n == 1 &&
	   !strcmp(r.sig[0].type, "bootbench_scratch"), "our scratch label is found (libblkid does not know it)");
	ok(probe_holds(fd, 1, out, sizeof out) == 0 && probe_holds(fd, 0, out, sizeof out) == 1,
	   "a scratch disk holds nothing to mkscratch, something to mkresults (%s)", out);
	close(fd);
	unlink(path);

	strcpy(path, "/tmp/bb-unit-probe.XXXXXX");
	fd = image(path, RS_MAGIC, strlen(RS_MAGIC));
	ok(fd >= 0 && disk_probe(fd, &r, err, sizeof err) == 0 && r.n == 1 && !strcmp(r.sig[0].type, "bootbench_results"),
	   "a bare results partition is found");
	close(fd);
	unlink(path);

	/* an ext2 superblock written by hand, its volume name hostile */
	{
		unsigned char sb[2048] = {0};
		const unsigned char name[16] = { 'x', 0x1b, '[', '2', 'J', 0x9b, 0xe2, 0x80, 0xae, 'y' };
		/* ext2: magic 0xef53 at 1024+56, volume name at 1024+120, a
		 * sane block size (log 0) and counts so libblkid accepts it */
		sb[1024 + 0] = 64;			/* s_inodes_count */
		sb[1024 + 4] = 0;
		sb[1024 + 5] = 4;			/* s_blocks_count 1024 */
		sb[1024 + 20] = 1;			/* s_first_data_block */
		sb[1024 + 32] = 0;
		sb[1024 + 33] = 32;			/* s_blocks_per_group 8192 */
		sb[1024 + 40] = 64;			/* s_inodes_per_group */
		sb[1024 + 56] = 0x53;
		sb[1024 + 57] = 0xef;			/* s_magic */
		sb[1024 + 58] = 1;			/* s_state: clean */
		sb[1024 + 76] = 1;			/* s_rev_level: dynamic */
		sb[1024 + 88] = 128;			/* s_inode_size */
		memcpy(sb + 1024 + 120, name, sizeof name);
		strcpy(path, "/tmp/bb-unit-probe.XXXXXX");
		fd = image(path, sb, sizeof sb);
		if (fd >= 0 && disk_probe(fd, &r, err, sizeof err) == 0 && r.n >= 1 && r.sig[0].label[0]) {
			int clean = 1;
			for (const char *c = r.sig[0].label; *c; c++)
				clean &= *c >= 0x20 && *c <= 0x7e;
			ok(clean && !strcmp(r.sig[0].label, "x?[2J????y"), "a label's control and 8-bit bytes become '?' (%s)",
			   r.sig[0].label);
		} else {
			ok(0, "a hand-made ext2 superblock with a label is found (n=%zu, %s)", r.n, err);
		}
		close(fd);
		unlink(path);
	}
	return tap_done();
}
