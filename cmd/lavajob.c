/*
 * lavajob.c - bootbench lava-job: a LAVA job definition that boots the
 * appliance with one kernel and a plan, and reads every figure from the
 * console as a LAVA test case with its measurement and unit (the appliance
 * prints them with bootbench.lava=1). LAVA's monitors action parses them; no
 * shell and no overlay are needed inside the appliance.
 */
const char lavajob_usage[] =
"usage: bootbench lava-job --kernel NAME --plan P --out DIR [options]\n"
"\n"
"Writes DIR/job.yaml, DIR/vmlinuz and DIR/initrd.img (the userland, its id\n"
"and the kernel's module archive, concatenated) for one boot of\n"
"build/kernels/NAME. Run it with lava-run, or submit it to a LAVA server.\n"
"  --kernel NAME     kernel directory under --build (scripts/fetch-kernel NAME)\n"
"  --plan P          bootbench.plan=P\n"
"  --out DIR         where the job and its images go (created)\n"
"  --device TYPE     qemu (default: deploy to tmpfs, boot method qemu) or\n"
"                    ipxe (deploy to tftp, boot method ipxe: a lab machine)\n"
"  --url-base URL    the images' URL prefix in the job (default file://DIR/;\n"
"                    for a server, where DIR's files will be published)\n"
"  --append ARGS     more kernel command line (e.g. bootbench.disks=...)\n"
"  --results-image PATH  (qemu) a results disk image on the worker, named\n"
"                    in the job's context (bootbench_results) for the device\n"
"                    dictionary to attach (scripts/lava-device's does; the\n"
"                    server must allow the variable: EXTRA_CONTEXT_VARIABLES,\n"
"                    as scripts/lava-lab sets it): the records are stored\n"
"                    there too, and the image outlives the job (LAVA's\n"
"                    copies of the images do not). Neither made nor checked\n"
"                    here: make it first (bootbench mkresults) where the\n"
"                    worker will open it. An absolute path to a file named\n"
"                    results.img: letters, digits, . _ / + -, no ..\n"
"  --tag TAG         the job runs only on a device with that LAVA tag\n"
"                    (scripts/lava-lab tags each device with its name)\n"
"  --timeout MIN     boot-to-power-off limit in minutes (default 20)\n"
"  --build DIR       the build directory (default: the one this bootbench\n"
"                    was built into, else ./build)\n"
"  --name TEXT       job name (default \"bootbench NAME plan P\")\n"
"Every figure becomes a test case named WORKLOAD.LAYOUT.METRIC (LAVA\n"
"lowercases it) in the suite \"bootbench\", with MEASUREMENT and UNITS; a run\n"
"that failed is a failed test case. The appliance gets bootbench.results=none\n"
"unless --results-image is given or --append names a results device: LAVA\n"
"keeps the figures.\n"
"exit: 0 written, 100 bad usage, 111 unable to write.\n";

#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "commands.h"
#include "defaults.h"
#include "err.h"
#include "sbuf.h"
#include "units.h"
#include "xio.h"

/* Writes len bytes to path (created or truncated), durably. */
static void put_file(const char *path, const char *buf, size_t len, int append)
{
	int o = open(path, O_WRONLY | O_CREAT | O_CLOEXEC | (append ? O_APPEND : O_TRUNC), 0644);
	if (o < 0)
		die_sys(EXIT_SYSFAIL, "unable to create %s", path);
	if (write_all(o, buf, len) < 0 || fsync(o) < 0 || close(o) < 0)
		die_sys(EXIT_SYSFAIL, "unable to write %s", path);
}

/* out = the files of in, concatenated. */
static void concat(const char *out, char *const in[], size_t n)
{
	put_file(out, "", 0, 0);
	for (size_t i = 0; i < n; i++) {
		size_t len;
		char *buf = read_file(in[i], &len);
		if (!buf)
			die_sys(EXIT_SYSFAIL, "unable to read %s", in[i]);
		put_file(out, buf, len, 1);
		free(buf);
	}
}

static char *cat2(const char *a, const char *b)
{
	struct sbuf sb = {0};
	sb_printf(&sb, "%s%s", a, b);
	return sb_steal(&sb);
}

/* What may go into the job's quoted strings: printable, and none of the
 * characters that end or escape a YAML or shell quote, or start a comment. */
static int valid_word(const char *s)
{
	for (; *s; s++)
		if ((unsigned char)*s < 0x20 || *s == 0x7f || strchr("\"'\\{}#`$", *s))
			return 0;
	return 1;
}


int lavajob_main(int argc, char **argv)
{
	const char *kernel = NULL, *plan = NULL, *out = NULL, *device = "qemu", *urlbase = NULL;
	const char *append = "", *build = "build", *name = NULL, *resimg = NULL, *tag = NULL;
	long timeout = 20;
	char dir[PATH_MAX], *kdir, *vmlinuz, *path;
	struct sbuf y = {0}, args = {0}, base = {0}, jname = {0};
	struct stat st;

	for (int i = 1; i < argc; i++) {
		const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
		if (!v)
			die(EXIT_BADINPUT, "%s needs a value (see bootbench lava-job --help)", a);
		i++;
		const struct { const char *opt; const char **val; } strs[] = {
			{ "--kernel", &kernel }, { "--plan", &plan }, { "--out", &out }, { "--device", &device },
			{ "--url-base", &urlbase }, { "--append", &append }, { "--build", &build }, { "--name", &name },
			{ "--results-image", &resimg }, { "--tag", &tag },
		};
		size_t k = 0;
		while (k < sizeof strs / sizeof *strs && strcmp(a, strs[k].opt))
			k++;
		if (k < sizeof strs / sizeof *strs)
			*strs[k].val = v;
		else if (!strcmp(a, "--timeout")) {
			unsigned long long t;
			if (parse_duration(v, 60000, 1440, &t) < 0 || t < 1)
				die(EXIT_BADINPUT, "bad --timeout \"%s\" (minutes, 1..1440: " DURATION_HELP ")", v);
			timeout = (long)t;
		} else
			die(EXIT_BADINPUT, "unknown option %s (see bootbench lava-job --help)", a);
	}
	if (!strcmp(build, "build")) {
		/* the directory of this executable, when it is a build directory */
		static char exe[PATH_MAX];
		ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
		if (n > 0) {
			char *slash, *probe;
			exe[n] = 0;
			slash = strrchr(exe, '/');
			if (slash) {
				*slash = 0;
				probe = cat2(exe, "/userland.cpio.gz");
				if (access(probe, R_OK) == 0)
					build = exe;
				free(probe);
			}
		}
	}
	if (!kernel || !plan || !out)
		die(EXIT_BADINPUT, "--kernel, --plan and --out are required (see bootbench lava-job --help)");
	if (strcmp(device, "qemu") && strcmp(device, "ipxe"))
		die(EXIT_BADINPUT, "--device is qemu or ipxe, not \"%s\"", device);
	if (!name_ok(kernel, 100, "._-") || !name_ok(plan, 100, "._-"))
		die(EXIT_BADINPUT, "--kernel and --plan are names: letters, digits, . _ -");
	if (!valid_word(append) || (name && !valid_word(name)) || (urlbase && (!*urlbase || !valid_word(urlbase))))
		die(EXIT_BADINPUT, "control characters, quotes, braces, #, $, ` and backslashes are not allowed in "
				   "--append, --name or --url-base (nor an empty --url-base)");
	/* it goes into a QEMU option: a comma or blank would be another one;
	 * the device dictionary attaches nothing else (scripts/lava-device) */
	if (resimg && (resimg[0] != '/' || !name_ok(resimg + 1, PATH_MAX, "._/+-") || strlen(resimg) < 12 ||
		       strcmp(resimg + strlen(resimg) - 12, "/results.img") || strstr(resimg, "..")))
		die(EXIT_BADINPUT, "--results-image wants an absolute path of letters, digits, . _ / + -, to a file "
				   "named results.img, without ..");
	if (resimg && strcmp(device, "qemu"))
		die(EXIT_BADINPUT, "--results-image is for --device qemu (a lab machine keeps its own disks)");
	if (resimg && strstr(append, "bootbench.results="))
		die(EXIT_BADINPUT, "--results-image and bootbench.results= in --append: the image would not be written");
	if (tag && !name_ok(tag, 64, "._-"))
		die(EXIT_BADINPUT, "--tag wants letters, digits, . _ - (at most 64)");
	kdir = cat2(build, "/kernels/");
	{
		char *k = cat2(kdir, kernel);
		free(kdir);
		kdir = k;
	}
	vmlinuz = cat2(kdir, "/vmlinuz");
	if (stat(vmlinuz, &st) < 0)
		die(EXIT_BADINPUT, "no %s: fetch the kernel first (scripts/fetch-kernel %s)", vmlinuz, kernel);
	if (mkdir(out, 0755) < 0 && errno != EEXIST)
		die_sys(EXIT_SYSFAIL, "unable to create %s", out);
	if (!realpath(out, dir))
		die_sys(EXIT_SYSFAIL, "unable to resolve %s", out);
	if (!valid_word(dir) || strchr(dir, ' '))
		die(EXIT_BADINPUT, "the --out path %s has characters a job URL cannot carry", dir);
	{
		char *initrd[3] = { cat2(build, "/userland.cpio.gz"), cat2(build, "/userland-id.cpio.gz"),
				    cat2(kdir, "/modules.cpio.gz") };
		char *dst = cat2(dir, "/vmlinuz");
		concat(dst, &vmlinuz, 1);
		free(dst);
		dst = cat2(dir, "/initrd.img");
		concat(dst, initrd, access(initrd[2], R_OK) == 0 ? 3 : 2);
		free(dst);
		for (int i = 0; i < 3; i++)
			free(initrd[i]);
	}

	if (urlbase)
		sb_printf(&base, "%s%s", urlbase, urlbase[strlen(urlbase) - 1] == '/' ? "" : "/");
	else
		sb_printf(&base, "file://%s/", dir);
	sb_printf(&args, "console=ttyS0,115200 panic=-1 " KERNEL_SAFE_ARGS " bootbench.lava=1 bootbench.plan=%s", plan);
	if (!strstr(append, "bootbench.results=") && !resimg)
		sb_puts(&args, " bootbench.results=none");
	if (*append)
		sb_printf(&args, " %s", append);
	if (name)
		sb_puts(&jname, name);
	else
		sb_printf(&jname, "bootbench %s plan %s", kernel, plan);

	sb_printf(&y, "# Written by bootbench lava-job: %s on %s, plan %s.\n", kernel, device, plan);
	sb_printf(&y, "device_type: %s\njob_name: \"%s\"\n", device, jname.s);
	sb_printf(&y, "timeouts:\n  job:\n    minutes: %ld\n  action:\n    minutes: %ld\n"
		      "  connection:\n    minutes: 2\n", timeout + 10, timeout + 5);
	sb_puts(&y, "priority: medium\nvisibility: public\n");
	if (tag)
		sb_printf(&y, "tags:\n- %s\n", tag);
	if (!strcmp(device, "qemu"))
		sb_puts(&y, "context:\n  arch: amd64\n");
	if (resimg)
		sb_printf(&y, "  bootbench_results: '%s'\n", resimg);
	sb_puts(&y, "actions:\n");
	if (!strcmp(device, "qemu")) {
		sb_printf(&y, "- deploy:\n    timeout:\n      minutes: 5\n    to: tmpfs\n    images:\n"
			      "      kernel:\n        image_arg: '-kernel {kernel} -append \"%s\"'\n"
			      "        url: '%svmlinuz'\n"
			      "      ramdisk:\n        image_arg: '-initrd {ramdisk}'\n"
			      "        url: '%sinitrd.img'\n",
			  args.s, base.s, base.s);
		sb_printf(&y, "- boot:\n    timeout:\n      minutes: %ld\n    method: qemu\n    media: tmpfs\n"
			      "    prompts:\n    - 'bootbench: init starting'\n",
			  timeout);
	} else {
		sb_printf(&y, "- deploy:\n    timeout:\n      minutes: 5\n    to: tftp\n"
			      "    kernel:\n      url: '%svmlinuz'\n      type: bzimage\n"
			      "    ramdisk:\n      url: '%sinitrd.img'\n"
			      "    os: oe\n",
			  base.s, base.s);
		sb_printf(&y, "- boot:\n    timeout:\n      minutes: %ld\n    method: ipxe\n    commands: ramdisk\n"
			      "    parameters:\n      shutdown-message: 'bootbench: done'\n"
			      "    prompts:\n    - 'bootbench: init starting'\n",
			  timeout);
	}
	/* LAVA runs monitors one after another, each from its own start
	 * string, so one monitor must take both line shapes: a failed run has
	 * no measurement (LAVA records it as null). */
	sb_printf(&y, "- test:\n    timeout:\n      minutes: %ld\n    monitors:\n", timeout);
	sb_puts(&y, "    - name: bootbench\n"
		    "      start: 'bootbench: ---- boot summary ----'\n"
		    "      end: 'bootbench: (done|boot failed):'\n"
		    "      pattern: '<LAVA_SIGNAL_TESTCASE TEST_CASE_ID=(?P<test_case_id>[^ >]+) RESULT=(?P<result>pass|fail)"
		    "(?: MEASUREMENT=(?P<measurement>[^ >]+) UNITS=(?P<units>[^ >]+))?>'\n"
		    "      fixupdict:\n        pass: pass\n        fail: fail\n");
	path = cat2(dir, "/job.yaml");
	put_file(path, y.s, y.len, 0);
	printf("%s\n", path);
	free(path);
	free(kdir);
	free(vmlinuz);
	sb_free(&y);
	sb_free(&args);
	sb_free(&base);
	sb_free(&jname);
	return 0;
}
