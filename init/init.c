/*
 * init.c - bootbench's PID 1.
 *
 * Runs a fixed table of steps, each with its own policy (fatal or warn, as
 * s6-linux-init decides per call), then ends the boot. PID 1 never exits:
 * every path, the fatal ones included, ends in end_boot(), which records why,
 * syncs and powers off (or reboots with bootbench.reboot=1).
 *
 * Signals are blocked from the first instruction and looked up in a small
 * table between steps (sinit); no work happens in signal handlers.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/reboot.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "err.h"
#include "gpt.h"
#include "init.h"
#include "json.h"
#include "spawn.h"
#include "xio.h"

struct appliance A;

static void __attribute__((noreturn)) end_boot(const char *why, int failed);

static void fatal_hook(int code, const char *msg)
{
	(void)code;
	end_boot(msg, 1);
}

/* A fatal error while ending (say, no memory during the upload): PID 1 must
 * not exit, and end_boot must not recurse; sync and go. */
static void last_hook(int code, const char *msg)
{
	(void)code;
	if (getpid() != 1)
		_exit(EXIT_SYSFAIL);
	fprintf(stderr, "bootbench: fatal while ending the boot: %s; syncing and %s\n", msg,
		A.conf.reboot ? "rebooting" : "powering off");
	sync();
	reboot(A.conf.reboot ? RB_AUTOBOOT : RB_POWER_OFF);
	for (;;)
		pause();
}

/* ---- signals: a small table, consulted between steps ---- */
static const struct {
	int sig;
	const char *what;
} sigtab[] = {
	{ SIGINT, "ctrl-alt-del" },
	{ SIGTERM, "SIGTERM" },
	{ SIGUSR1, "SIGUSR1 (halt)" },
	{ SIGUSR2, "SIGUSR2 (power off)" },
};

void init_check_signals(void)
{
	sigset_t set;
	struct timespec zero = { 0, 0 };
	int sig;
	sigemptyset(&set);
	for (size_t i = 0; i < sizeof sigtab / sizeof *sigtab; i++)
		sigaddset(&set, sigtab[i].sig);
	sigaddset(&set, SIGCHLD);
	while ((sig = sigtimedwait(&set, NULL, &zero)) > 0) {
		if (sig == SIGCHLD) {
			reap_children();
			continue;
		}
		for (size_t i = 0; i < sizeof sigtab / sizeof *sigtab; i++)
			if (sigtab[i].sig == sig) {
				info("%s received: ending the boot after this step", sigtab[i].what);
				A.stop_requested = 1;
			}
	}
}

/* ---- steps ---- */

static int do_mount(const char *src, const char *dst, const char *type, unsigned long fl, const char *opt)
{
	mkdir(dst, 0755);
	if (mount(src, dst, type, fl, opt) < 0 && errno != EBUSY) {
		warn_sys("unable to mount %s on %s", type, dst);
		return -1;
	}
	return 0;
}

static int step_mounts(void)
{
	int rc = 0;
	rc |= do_mount("proc", "/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC, NULL);
	rc |= do_mount("sysfs", "/sys", "sysfs", MS_NOSUID | MS_NODEV | MS_NOEXEC, NULL);
	/* Debian's kernels do not auto-mount devtmpfs */
	rc |= do_mount("devtmpfs", "/dev", "devtmpfs", MS_NOSUID, "mode=0755");
	do_mount("tmpfs", "/run", "tmpfs", MS_NOSUID | MS_NODEV, "mode=0755");
	do_mount("tmpfs", "/tmp", "tmpfs", MS_NOSUID | MS_NODEV, "mode=1777");
	/*
	 * Every run drops the page cache, and each drop makes the kernel print
	 * "init (1): drop_caches: 3" straight to the UART, ahead of whatever
	 * the tty still holds of the record line just written: the console
	 * copy of that record is cut in two (seen in faults-powercut under
	 * load: 3 of 163 records). Writing 4 once silences the message for the
	 * rest of the boot; a kernel that does not know the bit refuses the
	 * write, which costs nothing but the noise.
	 */
	write_file("/proc/sys/vm/drop_caches", "4");
	/* no console was open (no /dev/console in the archive): open it now */
	if (fcntl(1, F_GETFD) < 0) {
		int fd = open("/dev/console", O_RDWR | O_NOCTTY);
		if (fd >= 0) {
			dup2(fd, 0);
			dup2(fd, 1);
			dup2(fd, 2);
			if (fd > 2)
				close(fd);
		}
	}
	return rc;
}

static int step_identity(void)
{
	struct utsname u;
	char *id, *up;
	if (uname(&u) == 0) {
		snprintf(A.release, sizeof A.release, "%s", u.release);
		snprintf(A.version, sizeof A.version, "%s", u.version);
		snprintf(A.machine, sizeof A.machine, "%s", u.machine);
	}
	up = read_attr("/proc/uptime");
	if (up) {
		A.uptime_start = strtod(up, NULL);
		free(up);
	}
	id = read_attr(USERLAND_ID_FILE);
	snprintf(A.userland_id, sizeof A.userland_id, "%s", id ? id : "unknown");
	if (!id)
		warning("no %s: the userland id archive was not appended; reporting \"unknown\"", USERLAND_ID_FILE);
	free(id);
	return 0;
}

static int step_cmdline(void)
{
	struct sbuf warnings = {0};
	char err[512];
	size_t len;
	A.cmdline_raw = read_file("/proc/cmdline", &len);
	if (!A.cmdline_raw)
		die_sys(EXIT_SYSFAIL, "unable to read /proc/cmdline");
	while (len && A.cmdline_raw[len - 1] == '\n')
		A.cmdline_raw[--len] = 0;
	if (cmdline_split(A.cmdline_raw, len, &A.cl, err, sizeof err) < 0)
		die(EXIT_BADINPUT, "bad kernel command line: %s", err);
	if (bbconf_parse(&A.cl, &A.conf, &warnings, err, sizeof err) < 0) {
		A.conf.reboot = 0;
		die(EXIT_BADINPUT, "%s", err);
	}
	A.cmdline_shown = redact_token(A.cmdline_raw, A.conf.upload);
	A.upload_shown = redact_token(A.conf.upload, A.conf.upload);
	if (A.conf.debug)
		setenv("BOOTBENCH_DEBUG", "1", 1);	/* helpers and layouts say more */
	if (A.conf.upload)
		A.rec.keep = &A.lines;	/* for a boot whose records reach only the console */
	if (warnings.len) {
		char *line, *save = NULL;
		for (line = strtok_r(warnings.s, "\n", &save); line; line = strtok_r(NULL, "\n", &save))
			warning("%s", line);
	}
	sb_free(&warnings);
	return 0;
}

static int step_devices(void)
{
	A.ndevs = blkdev_scan(A.devs, MAX_BLOCKDEVS);
	return 0;
}

static int step_boot_record(void)
{
	char *json = boot_record_json();
	print_summary();
	rec_emit(&A.rec, RS_BOOT, json);
	free(json);
	return 0;
}

static int step_started(void)
{
	if (A.conf.upload)
		upload_started();
	return 0;
}

static int step_shell(void)
{
	char *argv[] = { (char *)BUSYBOX, (char *)"sh", NULL };
	struct run_result r;
	if (!A.conf.shell)
		return 0;
	busy_stop();
	info("bootbench.shell=1: starting a shell; exit it to end the boot");
	run_capture(argv, NULL, 0, &r);
	return 0;
}

static int busy_step(void)
{
	busy_start();
	return 0;
}

enum policy { FATAL, WARN };

static const struct step {
	const char *what;
	int (*fn)(void);
	enum policy policy;
} steps[] = {
	{ "mount the kernel filesystems", step_mounts, FATAL },
	{ "identify the kernel and userland", step_identity, WARN },
	{ "read the kernel command line", step_cmdline, FATAL },
	/* from here on init waits on disks (the kernel's partition scan of
	 * each as its driver loads): keep a deterministic clock from leaping
	 * while it does (init/busy.c) */
	{ "keep the clock from leaping", busy_step, WARN },
	{ "load the drivers of the machine's devices", load_modules, WARN },
	{ "discover block devices", step_devices, WARN },
	{ "open the results partition", open_results, WARN },
	{ "read the plan", read_plan, WARN },
	{ "load the modules the plan needs", load_the_plans_modules, WARN },
	{ "record the boot", step_boot_record, WARN },
	{ "tell the boot server this boot started", step_started, WARN },
	{ "run the plan", run_plan, WARN },
	{ "run the debug shell", step_shell, WARN },
};

/* ---- the end of every boot ---- */

static void __attribute__((noreturn)) end_boot(const char *why, int failed)
{
	static int ending;
	struct jw w;
	int cmd = A.conf.reboot ? RB_AUTOBOOT : RB_POWER_OFF;

	/* Only PID 1 ends the boot (toybox oneit checks getpid() the same way): a
	 * forked child that got here by mistake must not power the machine off
	 * under the plan. It exits, and its parent sees a failure. */
	if (getpid() != 1) {
		fprintf(stderr, "bootbench: fatal: pid %d is not PID 1 and may not end the boot (%s): exiting\n",
			(int)getpid(), why);
		fflush(NULL);
		_exit(EXIT_SYSFAIL);
	}
	die_hook = last_hook;	/* a failure from here on must not recurse */
	if (!ending) {
		ending = 1;
		jw_init(&w);
		jw_obj(&w, NULL);
		jw_str(&w, "reason", why);
		jw_str(&w, "status", failed ? "failed" : "ok");
		jw_str(&w, "action", A.conf.reboot ? "reboot" : "poweroff");
		if (A.first_run_uptime) {
			/* how long the boot took to start measuring (docs/determinism.md) */
			jw_obj(&w, "first_run_uptime");
			jw_num(&w, "value", A.first_run_uptime);
			jw_str(&w, "unit", "s");
			jw_str(&w, "better", "lower");
			jw_obj_end(&w);
		}
		jw_obj_end(&w);
		if (A.rec.console)
			rec_emit(&A.rec, RS_END, w.sb.s);
		sb_free(&w.sb);
		/* After the end record, so that it travels too; bounded by the
		 * upload's own timeouts. */
		if (A.conf.upload)
			upload_results(&A.lines);
	}
	fprintf(stderr, "bootbench: %s: %s\n", failed ? "boot failed" : "done", why);
	fprintf(stderr, "bootbench: syncing and %s\n", A.conf.reboot ? "rebooting" : "powering off");
	fflush(NULL);
	sync();
	reboot(cmd);
	/* reboot() failed: PID 1 must not exit, so wait forever */
	warn_sys("unable to %s", A.conf.reboot ? "reboot" : "power off");
	for (;;)
		pause();
}

int main(int argc, char **argv);

int init_main(int argc, char **argv)
{
	sigset_t all;
	(void)argc;
	(void)argv;

	sigfillset(&all);
	sigprocmask(SIG_BLOCK, &all, NULL);
	/* ctrl-alt-del becomes SIGINT to us instead of an instant reboot */
	reboot(RB_DISABLE_CAD);
	/* line-buffered before any fork, so the console never repeats a line */
	setvbuf(stdout, NULL, _IOLBF, 0);
	setvbuf(stderr, NULL, _IONBF, 0);
	A.rec.console = stdout;
	prog_name = "bootbench";
	die_hook = fatal_hook;
	umask(022);
	setenv("PATH", "/sbin:/bin:/usr/sbin:/usr/bin", 1);

	if (getpid() != 1)
		warning("running as pid %d, not 1: this is the appliance's init", (int)getpid());
	info("init starting");
	for (size_t i = 0; i < sizeof steps / sizeof *steps; i++) {
		if (steps[i].fn() < 0) {
			if (steps[i].policy == FATAL)
				die(EXIT_SYSFAIL, "unable to %s", steps[i].what);
			warning("step \"%s\" had problems; going on", steps[i].what);
		}
		reap_children();
		init_check_signals();
		if (A.stop_requested)
			end_boot("stopped by a signal", 1);
	}
	end_boot("all steps done", 0);
}
