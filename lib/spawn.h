/*
 * spawn.h - running a helper program (mdadm, mkfs, zcat) with its output
 * captured and a deadline, safely from PID 1 (signals are blocked there:
 * the child gets an empty mask and its own process group, so a timeout kills
 * the whole group).
 */
#ifndef BB_SPAWN_H
#define BB_SPAWN_H

#include <sys/resource.h>

#include "sbuf.h"

/* Output kept per run: a chatty tool cannot eat memory. What is past it is
 * counted in run_result.dropped, for the caller to say so. */
#define PROC_CAPTURE_MAX (16u << 20)

struct run_result {
	int status;		/* wait status */
	int timed_out;
	double wall_s;
	unsigned long long dropped;	/* output bytes past PROC_CAPTURE_MAX, not kept */
	struct rusage ru;	/* the program's (wait4: with the children it waited for) */
};

/* Run argv[0] (a full path) with stdout+stderr captured into out (if not
 * NULL; else inherited). timeout_ms 0: none. Returns 0 when it ran (look at
 * res), -1 when it could not be started. */
int run_capture(char *const argv[], struct sbuf *out, unsigned timeout_ms, struct run_result *res);
/* The same, but the program stays in the caller's process group, so that
 * killing the caller's group (a workload's watchdog) kills it and whatever
 * it forked too: for the tools a workload drives (fio, perf). A timeout
 * here kills the program only. */
int run_capture_here(char *const argv[], struct sbuf *out, unsigned timeout_ms, struct run_result *res);
/* run_capture_here with stdin from in_fd (-1: /dev/null), as `prog < file`. */
int run_capture_in(char *const argv[], int in_fd, struct sbuf *out, unsigned timeout_ms, struct run_result *res);
/* Start argv[0] (a full path) in the background, in the caller's process
 * group, with an empty signal mask, stdin on /dev/null, stdout and stderr on
 * outfd (or /dev/null when outfd < 0), and SIGTERM when the caller dies: a
 * load that runs beside a measurement. Returns its pid, or -1. */
int spawn_here(char *const argv[], int outfd);
/* Whether pid has exited (reaped, status in *status): 1; 0 while it runs;
 * -1 when it cannot be waited for (not our child). */
int child_exited(int pid, int *status);
/* Stop a spawned child: SIGTERM, then SIGKILL after grace_ms; reaps it.
 * Returns 0 with its wait status in *status, or -1 if it was not reaped. */
int stop_child(int pid, unsigned grace_ms, int *status);
/* A scratch file for a child tool to open by name (its job file, its JSON
 * output): created in dir and unlinked at once, so nothing is left behind
 * even when the watchdog kills the run; the fd stays open without
 * FD_CLOEXEC, and name gets "/proc/self/fd/N", which names it in any child
 * that inherited it. Returns the fd, or -1 with errno set. */
int scratch_file(const char *dir, char *name, size_t len);
/* Split s in place at blanks (space, tab) into argv[n..max-1]; returns the
 * new count, or (size_t)-1 when the words do not fit (never a silent cut). */
size_t argv_split(char *s, char **argv, size_t n, size_t max);
/* Why a tool failed, from its captured output: the first line that starts
 * with prefix (when prefix is not NULL and one does), else the last
 * non-blank line, else "no output"; cut to fit buf. */
void tool_reason(const struct sbuf *out, const char *prefix, char *buf, size_t len);
/* Text for a wait status: "exit 0", "killed by signal 9 (Killed)". */
void status_text(int status, char *buf, size_t len);
/* Reap every exited child without blocking; returns how many. */
int reap_children(void);
double mono_now(void);

#endif
