/*
 * spawn.c - run_capture: output is kept up to PROC_CAPTURE_MAX and what is
 * past it is counted (dropped), never lost without a word; a deadline kills
 * the child; the exit status comes back.
 */
#include <signal.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "spawn.h"
#include "tap.h"

int main(void)
{
	struct sbuf out = {0};
	struct run_result r;
	char cmd[128];
	char *argv[] = { (char *)"/bin/sh", (char *)"-c", cmd, NULL };

	tap_plan(26);
	snprintf(cmd, sizeof cmd, "head -c %u /dev/zero; exit 3", PROC_CAPTURE_MAX + 12345);
	is_int(run_capture(argv, &out, 60000, &r), 0, "a chatty child runs");
	is_int(out.len, PROC_CAPTURE_MAX, "its output is kept up to the %u MiB limit", PROC_CAPTURE_MAX >> 20);
	is_int(r.dropped, 12345, "what is past the limit is counted as dropped");
	ok(WIFEXITED(r.status) && WEXITSTATUS(r.status) == 3, "its exit status comes back");
	sb_free(&out);

	snprintf(cmd, sizeof cmd, "echo hello");
	run_capture(argv, &out, 60000, &r);
	is_int(r.dropped, 0, "a quiet child drops nothing");
	ok(out.len == 6 && !memcmp(out.s, "hello\n", 6), "... and its output is whole");
	sb_free(&out);

	snprintf(cmd, sizeof cmd, "sleep 30");
	run_capture(argv, &out, 300, &r);
	is_int(r.timed_out, 1, "a child past its deadline is killed");
	ok(r.wall_s < 10, "... promptly (%.1f s)", r.wall_s);
	sb_free(&out);

	/* argv_split: appends, and refuses (never cuts) what does not fit */
	{
		char s1[] = "  -a\tb  c ", s2[] = "x y z";
		char *v[4] = { "first" };
		size_t n = argv_split(s1, v, 1, 4);
		ok(n == 4 && !strcmp(v[1], "-a") && !strcmp(v[2], "b") && !strcmp(v[3], "c"),
		   "argv_split: blanks and tabs separate, words append after the first");
		is_int((long long)argv_split(s2, v, 2, 4), -1, "argv_split: words past max are an error, not a cut");
		char s3[] = "   ";
		is_int((long long)argv_split(s3, v, 0, 4), 0, "argv_split: only blanks is no word");
	}
	/* tool_reason: the prefixed line, else the last non-blank one */
	{
		struct sbuf o = { 0 };
		char why[64];
		sb_puts(&o, "fio: failed parsing rw=x\nfio: job dropped\n\n  \n");
		tool_reason(&o, "fio: ", why, sizeof why);
		is_str(why, "fio: failed parsing rw=x", "tool_reason: the first line with the prefix");
		tool_reason(&o, NULL, why, sizeof why);
		is_str(why, "fio: job dropped", "tool_reason: else the last non-blank line");
		tool_reason(&o, "perf: ", why, sizeof why);
		is_str(why, "fio: job dropped", "tool_reason: a prefix nowhere falls back to the last line");
		sb_reset(&o);
		tool_reason(&o, NULL, why, sizeof why);
		is_str(why, "no output", "tool_reason: no output says so");
		sb_puts(&o, "last line without newline\r");
		tool_reason(&o, NULL, why, 10);
		is_str(why, "last line", "tool_reason: cut to the buffer, CR dropped");
		sb_free(&o);
	}
	/* spawn_here / child_exited / stop_child */
	{
		int st = -1;
		char *sl[] = { "/bin/sleep", "30", NULL }, *ex[] = { "/bin/sh", "-c", "exit 7", NULL };
		int pid = spawn_here(sl, -1);
		ok(pid > 0, "spawn_here starts a child");
		is_int(child_exited(pid, &st), 0, "child_exited: it is running");
		double t0 = mono_now();
		is_int(stop_child(pid, 2000, &st), 0, "stop_child reaps it");
		ok(WIFSIGNALED(st) && WTERMSIG(st) == SIGTERM && mono_now() - t0 < 1.5, "... with SIGTERM, at once");
		pid = spawn_here(ex, -1);
		usleep(300000);
		is_int(child_exited(pid, &st), 1, "child_exited: an exited child is reaped");
		ok(WIFEXITED(st) && WEXITSTATUS(st) == 7, "... with its exit status");
		is_int(child_exited(pid, &st), -1, "child_exited: a pid that is not a child any more is -1, not 'exited'");
		is_int(stop_child(pid, 100, &st), -1, "stop_child: nothing to reap is -1");
		char *tr[] = { "/bin/sh", "-c", "trap '' TERM; sleep 30", NULL };
		pid = spawn_here(tr, -1);
		usleep(200000);
		t0 = mono_now();
		is_int(stop_child(pid, 300, &st), 0, "stop_child: a child that ignores SIGTERM ...");
		ok(WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL && mono_now() - t0 < 2, "... is killed after the grace time");
	}
	return tap_done();
}
