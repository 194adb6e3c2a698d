/*
 * claim.c - the safety rule: only disks named by bootbench.disks= (serial,
 * WWN or by-path id) or carrying the scratch label are claimed; names are not
 * ids; the results disk is never a layout member.
 */
#include "claim.h"
#include "tap.h"

static struct blkdev mk(const char *name, const char *serial, const char *wwid, const char *path)
{
	struct blkdev d = {0};
	snprintf(d.name, sizeof d.name, "%s", name);
	snprintf(d.serial, sizeof d.serial, "%s", serial);
	snprintf(d.wwid, sizeof d.wwid, "%s", wwid);
	snprintf(d.path_id, sizeof d.path_id, "%s", path);
	return d;
}

static const char *ro;	/* the bootbench.readonly= list of the next run() */

static char *run(const struct blkdev *devs, size_t n, const char *tokens, const int *lab, const char *res,
		 struct sbuf *notes)
{
	size_t out[16], k;
	static char s[128];
	s[0] = 0;
	sb_reset(notes);
	k = claim_disks(devs, n, tokens, lab, res, ro, out, notes);
	for (size_t i = 0; i < k; i++)
		snprintf(s + strlen(s), sizeof s - strlen(s), "%s%s", i ? " " : "", devs[out[i]].name);
	return s;
}

int main(void)
{
	struct blkdev d[5];
	int lab[5] = { 0, 0, 0, 1, 0 };
	struct sbuf notes = {0};
	unsigned char sec[512];

	d[0] = mk("vda", "bootbench-results", "", "pci-0000:00:02.0");
	d[1] = mk("vdb", "bbscratch0", "", "pci-0000:00:03.0");
	d[2] = mk("vdc", "bbscratch1", "", "pci-0000:00:04.0");
	d[3] = mk("sda", "S1", "naa.5000c500a1b2c3d4", "pci-0000:00:17.0-ata-1");
	d[4] = mk("sdb", "USERDATA", "naa.5000c500ffffffff", "pci-0000:00:17.0-ata-2");

	tap_plan(24);
	is_str(run(d, 5, NULL, NULL, "vda", &notes), "", "nothing named, nothing labelled: nothing claimed");
	is_str(run(d, 5, "bbscratch1,bbscratch0", NULL, "vda", &notes), "vdc vdb", "claimed by serial, in token order");
	is_str(run(d, 5, "naa.5000c500a1b2c3d4", NULL, "vda", &notes), "sda", "claimed by WWN");
	is_str(run(d, 5, "pci-0000:00:17.0-ata-2", NULL, "vda", &notes), "sdb", "claimed by by-path id");
	is_str(run(d, 5, "sdb,vdb", NULL, "vda", &notes), "", "kernel names are not ids (they move between boots)");
	is_str(notes.s, "bootbench.disks names sdb, but no disk has that serial, WWN or by-path id\n"
			"bootbench.disks names vdb, but no disk has that serial, WWN or by-path id\n",
	       "... and each unmatched token is reported");
	is_str(run(d, 5, "bootbench-results,bbscratch0", NULL, "vda", &notes), "vdb", "the results disk is never claimed");
	ok(notes.s && strstr(notes.s, "the results disk: not used for layouts"), "... and that is reported");
	is_str(run(d, 5, NULL, lab, "vda", &notes), "sda", "scratch label claims a disk");
	is_str(run(d, 5, "bbscratch0,bbscratch0,S1", lab, "vda", &notes), "vdb sda", "no disk claimed twice");
	scratch_label_make(sec);
	ok(scratch_label_ok(sec, sizeof sec), "a made label is recognised");
	sec[3] ^= 1;
	ok(!scratch_label_ok(sec, sizeof sec), "a damaged label is not");
	{
		/* read-only disks: named on the command line, matched by id */
		char why[256] = "";
		is_int(readonly_disk(d, 5, "USERDATA,S1", "USERDATA", "vda", why, sizeof why), 4,
		       "read-only: the disk with that serial");
		is_int(readonly_disk(d, 5, "x,naa.5000c500ffffffff", "naa.5000c500ffffffff", "vda", why, sizeof why), 4,
		       "read-only: by WWN");
		is_int(readonly_disk(d, 5, "S1", "USERDATA", "vda", why, sizeof why), -1,
		       "read-only: a disk the command line did not give is refused");
		is_str(why, "disk USERDATA is not named in bootbench.readonly= (the kernel command line says which "
		       "disks may be read)", "... saying so");
		is_int(readonly_disk(d, 5, "sdb", "sdb", "vda", why, sizeof why), -1,
		       "read-only: kernel names are not ids");
		is_int(readonly_disk(d, 5, "bootbench-results", "bootbench-results", "vda", why, sizeof why), -1,
		       "read-only: never the results disk");
		ok(claim_listed(&d[4], "S1,USERDATA") && !claim_listed(&d[3], "USERDATA"),
		   "claim_listed: a disk in the read-only list, and one not");
		is_int(readonly_disk(d, 5, "USERDATA", "naa.5000c500ffffffff", "vda", why, sizeof why), 4,
		       "read-only: the layout names the WWN, the command line the serial of the same disk");
		ro = "USERDATA,S1";
		is_str(run(d, 5, "USERDATA,bbscratch0", lab, "vda", &notes), "vdb",
		       "a disk named read-only is never claimed: not by bootbench.disks, not by its scratch label");
		ok(notes.s && strstr(notes.s, "bootbench.disks names USERDATA (sdb), which bootbench.readonly= names too: "
				     "read-only, not claimed") &&
		   strstr(notes.s, "sda carries the scratch label but bootbench.readonly= names it"), "... and each is noted");
		ro = NULL;
		sb_reset(&notes);
		is_int(claim_unmatched(d, 5, "USERDATA,wwn-0x5000c500ffffffff", &notes), 1,
		       "a read-only token that matches no disk is counted");
		ok(notes.s && strstr(notes.s, "bootbench.readonly names wwn-0x5000c500ffffffff, but no disk has"), "... and noted");
	}
	sb_free(&notes);
	return tap_done();
}
