/*
 * mkscratch.c - bootbench mkscratch: label a disk as scratch, i.e. tell every
 * future boot of the appliance that it may destroy this disk's contents.
 */
const char mkscratch_usage[] =
"usage: bootbench mkscratch DEV|IMAGE... --yes-destroy [--force]\n"
"\n"
"Writes the bootbench scratch label into the first sector. The appliance then\n"
"claims the disk without bootbench.disks= and builds layouts on it, destroying\n"
"its contents on every boot. Refuses, unless --force is given, a disk that\n"
"libblkid finds anything on: a partition table, a filesystem, an md, LVM,\n"
"LUKS, ZFS or bcache member, swap. A disk already labelled is relabelled\n"
"when it holds only what the appliance leaves (ext2/3/4, xfs, its own md\n"
"array). The appliance rewrites the label after each layout; if a boot dies\n"
"mid-layout the label may be gone, and the disk is then simply not claimed\n"
"(label it again). A labelled disk that somebody has since put anything\n"
"else on is not claimed either.\n"
"exit: 0 labelled, 100 refused or bad usage, 111 system failure.\n";

#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "claim.h"
#include "commands.h"
#include "defaults.h"
#include "err.h"
#include "probe.h"
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
		unsigned char label[512];
		char held[1024];
		int fd;
		if (argv[i][0] == '-')
			continue;
		n++;
		fd = open(argv[i], O_RDWR | O_CLOEXEC);
		if (fd < 0)
			die_sys(EXIT_SYSFAIL, "unable to open %s", argv[i]);
		/* a disk already labelled is relabelled, unless something that
		 * is not the appliance's own was put on it since */
		if (!force && probe_holds(fd, 1, held, sizeof held))
			die(EXIT_BADINPUT, "%s holds %s; refusing to label it scratch (add --force after checking)", argv[i], held);
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
