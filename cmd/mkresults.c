/*
 * mkresults.c - bootbench mkresults: create a results disk image, or turn a
 * real disk into one (only when told twice, and only when it looks unused).
 */
const char mkresults_usage[] =
"usage: bootbench mkresults IMAGE [--size SIZE] [--plan FILE] [--key FILE] [--force]\n"
"       bootbench mkresults --device DEV --yes-destroy [--force] [--plan FILE] [--key FILE]\n"
"       bootbench mkresults {IMAGE | --device DEV} --set-key FILE\n"
"\n"
"Creates a GPT disk with one partition named bootbench-results (type GUID\n"
"6b6f6f62-6562-636e-6872-657375746c73) and writes an empty results header.\n"
"  IMAGE          a new sparse image file (SIZE default 64M, at most 16T; K, M,\n"
"                 G, T suffixes, powers of 1024); removed again if mkresults\n"
"                 fails after creating it\n"
"  --device DEV   a real block device: everything on it is destroyed; needs\n"
"                 --yes-destroy, and refuses a device on which libblkid finds\n"
"                 anything (partition table, filesystem, md/LVM/LUKS member,\n"
"                 swap, a scratch label) unless --force is given\n"
"  --plan FILE    store a plan in the header; boots without bootbench.plan=\n"
"                 run it (the command line wins)\n"
"  --key FILE     store an upload key in the header: the key a boot server\n"
"                 (bootbench pxe) checks this target's uploads with. FILE\n"
"                 holds it as 64 hex digits; a FILE that does not exist is\n"
"                 created (mode 0600) with a new random key. Copy FILE to\n"
"                 the boot root's targets/MAC/key (scripts/pxe-serve --key)\n"
"                 and keep it from others: whoever holds it can upload as\n"
"                 this target. The appliance never prints or sends it. One\n"
"                 key file per target: a key on two disks lets either\n"
"                 upload as the other\n"
"  --set-key FILE set or replace the key of an existing results partition:\n"
"                 only its header is rewritten, its records stay (FILE must\n"
"                 exist: the key the boot server holds for this target)\n"
"  --force        overwrite an existing IMAGE / ignore signatures on DEV\n"
"\n"
"exit: 0 created, 100 bad input or refused, 111 system failure.\n";

#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "commands.h"
#include "defaults.h"
#include "err.h"
#include "probe.h"
#include "gpt.h"
#include "results.h"
#include "units.h"
#include "uploadauth.h"
#include "xio.h"

static char *load_plan(const char *file, size_t *len, char *name, size_t namelen)
{
	char *text = read_file(file, len);
	const char *b = strrchr(file, '/');
	char *dot;
	if (!text)
		die_sys(EXIT_BADINPUT, "unable to read plan %s", file);
	if (*len > RESULTS_PLAN_MAX)
		die(EXIT_BADINPUT, "plan %s is %zu bytes; the header holds at most %d", file, *len, RESULTS_PLAN_MAX);
	snprintf(name, namelen, "%s", b ? b + 1 : file);
	dot = strrchr(name, '.');
	if (dot && !strcmp(dot, ".plan"))
		*dot = 0;
	return text;
}

/* The key in file, or (create) a new one written there (never over a
 * file). */
static void load_key(const char *file, int create, unsigned char key[UPLOAD_KEY_LEN])
{
	char hex[UPLOAD_KEY_HEX + 2], err[300];
	int fd, r = upload_key_load(file, key, err, sizeof err);
	if (r < 0)
		die(EXIT_BADINPUT, "%s", err);
	if (r > 0) {
		info("upload key from %s", file);
		return;
	}
	if (!create)
		die(EXIT_BADINPUT, "%s (--set-key takes an existing key file: the boot server's targets/MAC/key, or "
				   "the file an earlier mkresults --key made)", err);
	random_bytes(key, UPLOAD_KEY_LEN);
	upload_key_text(key, hex);
	fd = open(file, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	if (fd < 0 || write_all(fd, hex, strlen(hex)) < 0 || fsync(fd) < 0 || close(fd) < 0)
		die_sys(EXIT_SYSFAIL, "unable to write the new key file %s", file);
	info("upload key: new, in %s (copy it to the boot root's targets/MAC/key)", file);
}

/* --set-key: the key into the header of an existing results partition. */
static int set_key(const char *path, int device, const char *keyfile)
{
	unsigned char key[UPLOAD_KEY_LEN];
	struct rs_region reg;
	char err[256];
	int fd = open(path, O_RDWR | O_CLOEXEC | (device ? O_EXCL : 0)), r;
	if (fd < 0)
		die_sys(EXIT_SYSFAIL, "unable to open %s%s", path, device ? " exclusively (in use?)" : "");
	r = rs_locate(fd, path, &reg, err, sizeof err);
	if (r <= 0)
		die(r < 0 ? EXIT_SYSFAIL : EXIT_BADINPUT, "%s", err);
	if (reg.cut)
		die(EXIT_BADINPUT, "%s: the results partition runs past the end of the disk; not written", reg.desc);
	load_key(keyfile, 0, key);
	if (rs_set_key(&reg, key, err, sizeof err) < 0)
		die(EXIT_SYSFAIL, "%s", err);
	if (close(fd) < 0)
		die_sys(EXIT_SYSFAIL, "unable to flush %s", path);
	info("%s: upload key set; records untouched", reg.desc);
	return 0;
}

/* An image this run created, removed if it dies before finishing: a
 * half-made image would block the next try ("exists; refusing"). */
static const char *created;

static void remove_created(int code, const char *msg)
{
	(void)code;
	(void)msg;
	if (created && unlink(created) == 0)
		info("removed the unfinished %s", created);
	created = NULL;
}

int mkresults_main(int argc, char **argv)
{
	const char *image = NULL, *device = NULL, *planfile = NULL, *keyfile = NULL, *setkey = NULL;
	unsigned char key[UPLOAD_KEY_LEN];
	unsigned long long size = RESULTS_DEFAULT_SIZE;
	int yes = 0, force = 0, fd;
	unsigned char gtype[16];
	struct gpt_part part;
	struct rs_region reg = { 0 };
	uint64_t bytes;
	unsigned lbs;
	char *plan = NULL, planname[64] = "", err[256];
	size_t planlen = 0;

	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		if (!strcmp(a, "--size") && i + 1 < argc) {
			if (parse_size(argv[++i], RESULTS_MAX_IMAGE, &size) < 0)
				die(EXIT_BADINPUT, "bad --size \"%s\": %s (e.g. 64M, 1G; at most 16T)", argv[i],
				    errno == ERANGE ? "too large" : "not a size: " SIZE_HELP);
		} else if (!strcmp(a, "--device") && i + 1 < argc) {
			device = argv[++i];
		} else if (!strcmp(a, "--plan") && i + 1 < argc) {
			planfile = argv[++i];
		} else if (!strcmp(a, "--key") && i + 1 < argc) {
			keyfile = argv[++i];
		} else if (!strcmp(a, "--set-key") && i + 1 < argc) {
			setkey = argv[++i];
		} else if (!strcmp(a, "--yes-destroy")) {
			yes = 1;
		} else if (!strcmp(a, "--force")) {
			force = 1;
		} else if (a[0] == '-') {
			die(EXIT_BADINPUT, "unknown or incomplete option %s (see bootbench mkresults --help)", a);
		} else if (!image) {
			image = a;
		} else {
			die(EXIT_BADINPUT, "more than one IMAGE given (%s, %s)", image, a);
		}
	}
	if (!!image == !!device)
		die(EXIT_BADINPUT, "give exactly one of IMAGE or --device DEV (see bootbench mkresults --help)");
	if (setkey) {
		if (keyfile || planfile || yes || force)
			die(EXIT_BADINPUT, "--set-key changes only the key: no --key, --plan, --yes-destroy or --force with it");
		return set_key(image ? image : device, !image, setkey);
	}
	if (planfile)
		plan = load_plan(planfile, &planlen, planname, sizeof planname);
	guid_parse(RESULTS_TYPE_GUID, gtype);

	if (image) {
		struct stat st;
		int existed;
		if (size < 2 * 1024 * 1024)
			die(EXIT_BADINPUT, "--size %llu is too small: at least 2M", size);
		existed = stat(image, &st) == 0;
		if (existed && !force)
			die(EXIT_BADINPUT, "%s exists; refusing to overwrite it (use --force)", image);
		fd = open(image, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
		if (fd < 0)
			die_sys(EXIT_SYSFAIL, "unable to create %s", image);
		if (!existed) {
			created = image;
			die_hook = remove_created;
		}
		if (ftruncate(fd, (off_t)size) < 0)
			die_sys(EXIT_SYSFAIL, "unable to size %s to %llu bytes", image, size);
	} else {
		char held[1024];
		struct stat st;
		if (!yes)
			die(EXIT_BADINPUT, "--device destroys everything on %s: add --yes-destroy if you mean it", device);
		fd = open(device, O_RDWR | O_CLOEXEC | O_EXCL);
		if (fd < 0)
			die_sys(EXIT_SYSFAIL, "unable to open %s exclusively (in use?)", device);
		if (fstat(fd, &st) < 0 || !S_ISBLK(st.st_mode))
			die(EXIT_BADINPUT, "%s is not a block device (for an image file, give it as IMAGE)", device);
		if (!force && probe_holds(fd, 0, held, sizeof held))
			die(EXIT_BADINPUT, "%s holds %s; refusing to destroy it (add --force after checking)", device, held);
	}
	/* the key once the target is known to be writable: a refused image
	 * or device leaves no new key file behind */
	if (keyfile)
		load_key(keyfile, 1, key);
	if (dev_geometry(fd, &bytes, &lbs) < 0)
		die_sys(EXIT_SYSFAIL, "unable to get the size of %s", image ? image : device);
	if (gpt_write_disk(fd, bytes, lbs, gtype, RESULTS_PART_NAME, &part) < 0)
		die_sys(EXIT_SYSFAIL, "unable to write a partition table to %s", image ? image : device);
	reg.fd = fd;
	reg.base = part.first_lba * lbs;
	reg.size = (part.last_lba - part.first_lba + 1) * lbs;
	reg.lbs = lbs;
	snprintf(reg.desc, sizeof reg.desc, "%s", image ? image : device);
	if (rs_format(&reg, planname, plan, planlen, err, sizeof err) < 0)
		die(EXIT_SYSFAIL, "%s", err);
	if (keyfile && rs_set_key(&reg, key, err, sizeof err) < 0)
		die(EXIT_SYSFAIL, "%s", err);
	if (fsync(fd) < 0 || close(fd) < 0)
		die_sys(EXIT_SYSFAIL, "unable to flush %s", image ? image : device);
	created = NULL;	/* finished: it stays */
	info("%s: results partition %u, %llu KiB for records%s%s%s", image ? image : device, part.index,
	     (unsigned long long)(reg.size - RESULTS_HDR_AREA) / 1024, plan ? ", stored plan " : "",
	     plan ? planname : "", keyfile ? ", upload key set" : "");
	free(plan);
	return 0;
}
