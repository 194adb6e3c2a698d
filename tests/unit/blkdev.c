/*
 * blkdev.c - block device discovery parser on captured sysfs attributes and
 * /proc/partitions of two kernel eras (2.4 had per-device stats columns).
 */
#include <stdlib.h>

#include "blkdev.h"
#include "sbuf.h"
#include "tap.h"
#include "xio.h"

#define FIX "tests/fixtures/blk/"

static int parse(const char *file, const char *name, struct blkdev *d)
{
	size_t len;
	char *b = read_file(file, &len);
	int rc;
	if (!b) {
		printf("Bail out! cannot read %s (run from the repository top)\n", file);
		exit(1);
	}
	rc = blkdev_parse(d, name, b, len);
	free(b);
	return rc;
}

static char *names_of(const char *file)
{
	size_t len, n;
	char *b = read_file(file, &len), **v;
	struct sbuf sb = {0};
	n = blkdev_parse_partitions(b, len, &v);
	for (size_t i = 0; i < n; i++) {
		sb_printf(&sb, "%s%s", i ? " " : "", v[i]);
		free(v[i]);
	}
	free(v);
	free(b);
	return sb_steal(&sb);
}

int main(void)
{
	struct blkdev d;
	char *s, path[128];

	tap_plan(22);
	s = names_of(FIX "partitions-6.1.txt");
	is_str(s, "vda vdb nvme0n1 sda mmcblk0", "6.1 /proc/partitions: whole disks only, no ram/loop/md");
	free(s);
	s = names_of(FIX "partitions-2.4.txt");
	is_str(s, "hda sdb", "2.4 /proc/partitions with stats columns");
	free(s);

	is_int(parse(FIX "virtio.attrs", "vda", &d), 0, "virtio disk parses");
	is_int(d.size, 8 << 20, "virtio size from 512-byte sectors");
	is_str(d.serial, "bootbench-results", "virtio serial");
	is_str(d.path_id, "pci-0000:00:02.0", "virtio by-path id");
	is_str(d.model, "0x1af4", "virtio has only a vendor id");

	is_int(parse(FIX "sata.attrs", "sda", &d), 0, "SATA disk parses (unknown attribute ignored)");
	is_int(d.size, 1953525168ULL * 512, "SATA size");
	is_str(d.model, "ATA WDC WD10EZEX-08W", "vendor and model joined, trimmed");
	is_str(d.path_id, "pci-0000:00:17.0-ata-3", "SATA by-path id names the ata port");
	ok(!strncmp(d.wwid, "t10.ATA", 7), "SATA wwid");
	is_int(d.rotational, 1, "rotational");

	is_int(parse(FIX "nvme4k.attrs", "nvme0n1", &d), 0, "NVMe 4Kn parses");
	is_int(d.lbs, 4096, "4096-byte logical blocks");
	is_str(d.path_id, "pci-0000:3d:00.0-nvme-1", "NVMe by-path id: the last PCI function, namespace 1");
	is_str(d.serial, "S4EVNX0N123456", "NVMe serial");
	is_int(d.rotational, 0, "not rotational");

	is_int(parse(FIX "bad-size.attrs", "x", &d), -1, "garbage size rejected");
	is_int(parse(FIX "no-size.attrs", "x", &d), -1, "missing size rejected");

	human_size(3ULL << 30, path, sizeof path);
	is_str(path, "3.0GiB", "human size GiB");
	human_size(512, path, sizeof path);
	is_str(path, "512B", "human size bytes");
	return tap_done();
}
