/*
 * probe.h - what a disk holds, asked of util-linux's libblkid: every "does
 * this disk hold somebody's data?" decision (mkscratch, mkresults --device,
 * and the appliance before it claims a scratch-labelled disk). libblkid
 * knows some 80 formats with their checksums (filesystems, md, LVM, LUKS,
 * ZFS, bcache, swap, partition tables); bootbench's own two (a results
 * partition, a scratch label) are ours to know.
 */
#ifndef BB_PROBE_H
#define BB_PROBE_H

#include <stddef.h>
#include <stdint.h>

#define PROBE_MAX 16

struct probe_sig {
	char type[32];		/* libblkid's TYPE or PTTYPE: "ext4", "crypto_LUKS", "gpt", or ours */
	char usage[16];		/* "filesystem", "raid", "crypto", "other", "partition table" */
	char label[64];		/* LABEL, when the format has one */
	uint64_t off;		/* where its magic is, bytes from the start */
	int badcsum;		/* found, but its checksum is wrong (still somebody's data) */
};

struct probe_result {
	size_t n;		/* signatures found (at most PROBE_MAX kept) */
	size_t more;		/* found past PROBE_MAX */
	struct probe_sig sig[PROBE_MAX];
	int scratch;		/* the first sector is our scratch label */
};

/* Probe fd (a block device or an image file) from offset 0: every
 * signature libblkid finds, plus ours. 0, or -1 with the reason in err. */
int disk_probe(int fd, struct probe_result *r, char *err, size_t errlen);

/* One line for messages: "ext4 (a filesystem, at byte 1080), LVM2_member
 * (a RAID or volume member, at byte 536)". Empty when nothing was found. */
void probe_describe(const struct probe_result *r, char *out, size_t len);

/* How many of r's signatures are not of a kind the appliance itself leaves
 * on a scratch disk (ext2/3/4, xfs, members of an md array named MD_NAME,
 * the scratch label), i.e. signs that somebody used the disk after it was
 * labelled. mke2fs, mkfs.xfs, pvcreate, mkswap and cryptsetup overwrite
 * sector 0 and so the label; mdadm --create does not. */
size_t probe_foreign(const struct probe_result *r);

/* The question the host tools ask before they write a disk: does fd hold
 * somebody's data? 1 with what it holds in `what` (or why it could not be
 * probed: an unreadable disk counts as holding data), else 0. scratch_ok:
 * a disk carrying our scratch label, with nothing on it but what the
 * appliance leaves there (probe_foreign() == 0), holds nothing. */
int probe_holds(int fd, int scratch_ok, char *what, size_t len);

/* libblkid's version, for the boot record: "2.38.1 (04-Aug-2022)". */
const char *probe_library_version(void);

#endif
