/*
 * blkdev.h - block device discovery, split into a pure parser and a reader.
 *
 * The reader (blkdev_scan) turns each /sys/block entry into a small
 * "key=value" text; blkdev_parse turns that text into a struct blkdev. Tests
 * feed the parser fixture files captured from real machines.
 */
#ifndef BB_BLKDEV_H
#define BB_BLKDEV_H

#include <stddef.h>

struct blkdev {
	char name[32];
	unsigned long long size;	/* bytes */
	unsigned lbs;			/* logical block size, bytes */
	int ro, removable, rotational;
	char model[64];
	char serial[64];
	char wwid[128];
	char path_id[128];		/* udev-style by-path id: pci-0000:00:04.0 */
};

/* Parse one device's attribute text (lines "key=value"; keys: size (512-byte
 * sectors, as sysfs), logical_block_size, ro, removable, rotational, model,
 * vendor, serial, wwid, devpath). Returns 0, or -1 when size is missing or
 * not a number. Unknown keys are ignored (newer kernels add attributes). */
int blkdev_parse(struct blkdev *d, const char *name, const char *text, size_t len);

/* udev-style by-path id from a sysfs device path, "" when none applies. */
void blkdev_path_id(const char *devpath, char *out, size_t outlen);

/* Names of whole disks in /proc/partitions text, skipping partitions (those
 * whose name extends a disk listed before them), ram*, loop*, zram*, fd*,
 * sr*. Returns count; names are malloc'd. */
size_t blkdev_parse_partitions(const char *text, size_t len, char ***names);

/* Read /sys for each disk of /proc/partitions. */
size_t blkdev_scan(struct blkdev *out, size_t max);

/* "1.0GiB" style human size. */
void human_size(unsigned long long bytes, char *out, size_t outlen);

#endif
