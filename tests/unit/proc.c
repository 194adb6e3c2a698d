/*
 * proc.c - run_capture: output is kept up to PROC_CAPTURE_MAX and what is
 * past it is counted (dropped), never lost without a word; a deadline kills
 * the child; the exit status comes back.
 */
#include <sys/wait.h>

#include "proc.h"
#include "tap.h"

int main(void)
{
	struct sbuf out = {0};
	struct run_result r;
	char cmd[128];
	char *argv[] = { (char *)"/bin/sh", (char *)"-c", cmd, NULL };

	tap_plan(8);
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
	return tap_done();
}
