/*
 * probe.c - what a disk holds, by libblkid (probe.h).
 *
 * The probe is wipefs's way of listing (util-linux's own documented use of
 * the API): superblocks and partition tables both enabled, bad checksums
 * accepted (a damaged LUKS header is still somebody's key slots), and after
 * each signature found its magic is hidden and the same prober runs again,
 * so that two signatures of one kind are both seen. Bounded: libblkid reads
 * fixed areas of the device; the loop stops after PROBE_MAX * 4 steps.
 */
#include <blkid/blkid.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "claim.h"
#include "probe.h"
#include "results.h"
#include "xio.h"

/* Text read from a disk goes into messages on terminals and consoles:
 * anything but printable ASCII becomes '?' (C0 and C1 controls, 8-bit CSI,
 * bidi overrides, invalid UTF-8; a label in another script too, which is
 * the price). */
static void copy(char *dst, size_t len, const char *src)
{
	snprintf(dst, len, "%s", src ? src : "");
	for (unsigned char *c = (unsigned char *)dst; *c; c++)
		if (*c < 0x20 || *c > 0x7e)
			*c = '?';
}

static void add(struct probe_result *r, const char *type, const char *usage, const char *label, uint64_t off,
		int badcsum)
{
	struct probe_sig *s;
	if (r->n == PROBE_MAX) {
		r->more++;
		return;
	}
	s = &r->sig[r->n++];
	copy(s->type, sizeof s->type, type);
	copy(s->usage, sizeof s->usage, usage);
	copy(s->label, sizeof s->label, label);
	s->off = off;
	s->badcsum = badcsum;
}

int disk_probe(int fd, struct probe_result *r, char *err, size_t errlen)
{
	unsigned char first[512];
	blkid_probe pr;
	int rc, steps = 0;

	memset(r, 0, sizeof *r);
	/* ours first: libblkid knows neither */
	if (pread_all(fd, first, sizeof first, 0) == (long)sizeof first) {
		r->scratch = scratch_label_ok(first, sizeof first);
		if (r->scratch)
			add(r, "bootbench_scratch", "other", NULL, 0, 0);
		else if (!memcmp(first, RS_MAGIC, strlen(RS_MAGIC)))
			add(r, "bootbench_results", "other", NULL, 0, 0);
	}
	errno = 0;
	pr = blkid_new_probe();
	if (!pr) {
		snprintf(err, errlen, "unable to probe it with libblkid: out of memory");
		return -1;
	}
	if (blkid_probe_set_device(pr, fd, 0, 0) != 0) {
		snprintf(err, errlen, "unable to probe it with libblkid: %s", strerror(errno ? errno : EIO));
		blkid_free_probe(pr);
		return -1;
	}
	blkid_probe_enable_superblocks(pr, 1);
	blkid_probe_set_superblocks_flags(pr, BLKID_SUBLKS_MAGIC | BLKID_SUBLKS_TYPE | BLKID_SUBLKS_USAGE |
					      BLKID_SUBLKS_LABEL | BLKID_SUBLKS_BADCSUM);
	blkid_probe_enable_partitions(pr, 1);
	blkid_probe_set_partitions_flags(pr, BLKID_PARTS_MAGIC | BLKID_PARTS_FORCE_GPT);
	errno = 0;
	while ((rc = blkid_do_probe(pr)) == 0) {
		if (steps++ == PROBE_MAX * 4) {
			r->more++;	/* still finding: it holds something */
			break;
		}
		const char *type = NULL, *usage = NULL, *label = NULL, *off = NULL, *csum = NULL;
		size_t maglen = 0;
		int pt = 0;
		if (blkid_probe_lookup_value(pr, "TYPE", &type, NULL) == 0) {
			blkid_probe_lookup_value(pr, "USAGE", &usage, NULL);
			blkid_probe_lookup_value(pr, "LABEL", &label, NULL);
			blkid_probe_lookup_value(pr, "SBMAGIC_OFFSET", &off, NULL);
			blkid_probe_lookup_value(pr, "SBMAGIC", NULL, &maglen);
			blkid_probe_lookup_value(pr, "SBBADCSUM", &csum, NULL);
		} else if (blkid_probe_lookup_value(pr, "PTTYPE", &type, NULL) == 0) {
			pt = 1;
			blkid_probe_lookup_value(pr, "PTMAGIC_OFFSET", &off, NULL);
			blkid_probe_lookup_value(pr, "PTMAGIC", NULL, &maglen);
		} else {
			continue;
		}
		add(r, type, pt ? "partition table" : usage ? usage : "other", label, off ? strtoull(off, NULL, 10) : 0,
		    csum != NULL);
		if (off && maglen) {
			/* hide it and ask the same prober again */
			blkid_probe_hide_range(pr, strtoull(off, NULL, 10), maglen);
			blkid_probe_step_back(pr);
		}
	}
	blkid_free_probe(pr);
	if (rc < 0) {
		snprintf(err, errlen, "unable to probe it with libblkid: %s", strerror(errno ? errno : EIO));
		return -1;
	}
	return 0;
}

/* "ext4 (a filesystem, at byte 1080)", "crypto_LUKS (an encrypted volume
 * labelled "home", at byte 0)" */
static void describe_one(char *out, size_t len, const struct probe_sig *s)
{
	const char *what = !strcmp(s->usage, "filesystem") ? "a filesystem" :
			   !strcmp(s->usage, "raid") ? "a RAID or volume member" :
			   !strcmp(s->usage, "crypto") ? "an encrypted volume" :
			   !strcmp(s->usage, "partition table") ? "a partition table" : "a signature";
	char label[80] = "";
	if (s->label[0])
		snprintf(label, sizeof label, " labelled \"%.40s\"", s->label);
	snprintf(out, len, "%s (%s%s, at byte %llu%s)", s->type, what, label, (unsigned long long)s->off,
		 s->badcsum ? ", bad checksum" : "");
}

void probe_describe(const struct probe_result *r, char *out, size_t len)
{
	size_t at = 0, i;
	int cut;
	out[0] = 0;
	for (i = 0; i < r->n && at + 1 < len; i++) {
		char one[256];
		describe_one(one, sizeof one, &r->sig[i]);
		at += (size_t)snprintf(out + at, len - at, "%s%s", i ? ", " : "", one);
	}
	/* cut: a signature or the count left out, or one cut short */
	cut = at >= len || i < r->n;
	if (!cut && r->more) {
		if (at + 1 < len) {
			at += (size_t)snprintf(out + at, len - at, " and %zu more", r->more);
			cut = at >= len;
		} else {
			cut = 1;
		}
	}
	if (cut && len > 4) {
		/* cut: said so, in the last 4 bytes */
		size_t end = strlen(out) < len - 5 ? strlen(out) : len - 5;
		memcpy(out + end, " ...", 5);
	}
}

size_t probe_foreign(const struct probe_result *r)
{
	/* An md layout that dies before its teardown leaves the label and a
	 * member of MD_NAME. ext2/3/4 and xfs beside the label mean it was
	 * written after them with mkscratch --force (mke2fs and mkfs.xfs
	 * overwrite sector 0, so they cannot have come later): the user's
	 * own choice, kept. */
	static const char *const ours[] = { "ext2", "ext3", "ext4", "xfs", "bootbench_scratch" };
	size_t n = r->more;
	for (size_t i = 0; i < r->n; i++) {
		const struct probe_sig *s = &r->sig[i];
		/* the appliance's arrays: metadata 1.2 (at 4 KiB), its name */
		int mine = !strcmp(s->type, "linux_raid_member") && !strcmp(s->label, MD_NAME) && s->off == 4096;
		for (size_t k = 0; k < sizeof ours / sizeof *ours; k++)
			mine |= !strcmp(s->type, ours[k]);
		n += !mine;
	}
	return n;
}

int probe_holds(int fd, int scratch_ok, char *what, size_t len)
{
	struct probe_result r;
	char err[256];
	if (disk_probe(fd, &r, err, sizeof err) < 0) {
		snprintf(what, len, "contents that cannot be read (%s)", err);
		return 1;
	}
	if (!r.n || (scratch_ok && r.scratch && !probe_foreign(&r)))
		return 0;
	probe_describe(&r, what, len);
	return 1;
}

const char *probe_library_version(void)
{
	static char v[64];
	const char *ver = NULL, *date = NULL;
	blkid_get_library_version(&ver, &date);
	snprintf(v, sizeof v, "%s (%s)", ver ? ver : "?", date ? date : "?");
	return v;
}
