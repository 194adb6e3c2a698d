/*
 * mkscratch.c - bootbench mkscratch: label a disk as scratch, i.e. tell every
 * future boot of the appliance that it may destroy this disk's contents.
 */
const char mkscratch_usage[] =
"usage: bootbench mkscratch DEV|IMAGE... --yes-destroy [--force]\n"
"\n"
"Writes the bootbench scratch label into the first sector. The appliance then\n"
"claims the disk without bootbench.disks= and builds layouts on it, destroying\n"
"its contents on every boot. Refuses a disk holding a partition table or a\n"
"filesystem/RAID signature unless --force is given. The appliance rewrites\n"
"the label after each layout; if a boot dies mid-layout the label may be gone,\n"
"and the disk is then simply not claimed (label it again).\n"
"exit: 0 labelled, 100 refused or bad usage, 111 system failure.\n";

#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "claim.h"
#include "commands.h"
#include "defaults.h"
#include "err.h"
#include "xio.h"

int mkscratch_main(int argc, char **argv)
{
	int yes = 0, force = 0, n = 0;
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--yes-destroy"))
			yes = 1;
		else if (!strcmp(argv[i], "--force"))
			force = 1;
		else if (argv[i][0] == '-')
			die(EXIT_BADINPUT, "unknown option %s (see bootbench mkscratch --help)", argv[i]);
	}
	if (!yes)
		die(EXIT_BADINPUT, "labelling a disk as scratch lets the appliance destroy it: add --yes-destroy");
	for (int i = 1; i < argc; i++) {
		unsigned char label[512], first[512];
		const char *sig;
		int fd;
		if (argv[i][0] == '-')
			continue;
		n++;
		fd = open(argv[i], O_RDWR | O_CLOEXEC);
		if (fd < 0)
			die_sys(EXIT_SYSFAIL, "unable to open %s", argv[i]);
		sig = disk_signature(fd);
		if (pread_all(fd, first, sizeof first, 0) == sizeof first && scratch_label_ok(first, sizeof first))
			sig = NULL;	/* already ours */
		if (sig && !force)
			die(EXIT_BADINPUT, "%s holds %s; refusing to label it scratch (add --force after checking)", argv[i], sig);
		scratch_label_make(label);
		if (pwrite_all(fd, label, sizeof label, 0) < 0 || fsync(fd) < 0)
			die_sys(EXIT_SYSFAIL, "unable to write the label to %s", argv[i]);
		close(fd);
		info("%s: labelled as a bootbench scratch disk", argv[i]);
	}
	if (!n)
		die(EXIT_BADINPUT, "no DEV given (see bootbench mkscratch --help)");
	return 0;
}
