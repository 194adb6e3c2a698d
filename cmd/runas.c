/*
 * runas.c - `bootbench runas USER PROGRAM [ARGS...]`: run a program as a user
 * that is not root, for the workloads that drive servers refusing root
 * (PostgreSQL: workloads/pgbench.c). The workload stays root, so that it
 * can make and remove what the program works in; only the program drops.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <grp.h>
#include <pwd.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <unistd.h>

#include "commands.h"

const char runas_usage[] =
"usage: bootbench runas USER PROGRAM [ARGS...]\n"
"\n"
"Runs PROGRAM (a full path) as USER, who must not be root and whose group\n"
"must not be root's, with no supplementary groups, a clean environment\n"
"(PATH=/usr/bin:/bin, LC_ALL=C, HOME=/nonexistent: no PG* variable of the\n"
"caller changes what is measured) and SIGKILL when its parent dies (the\n"
"workload that started it: a killed run leaves no server behind). For the\n"
"workloads' own use; exit 100 on bad usage, 111 when it cannot become\n"
"USER or run PROGRAM.\n";

int runas_main(int argc, char **argv)
{
	static char *env[] = { "PATH=/usr/bin:/bin", "LC_ALL=C", "HOME=/nonexistent", NULL };
	struct passwd *pw;
	pid_t parent = getppid();
	/* only as the first word: the program's own arguments may hold -h
	 * (psql's and pgbench's host) */
	if (argc > 1 && (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help"))) {
		fputs(runas_usage, stdout);
		return 0;
	}
	if (argc < 3 || argv[2][0] != '/') {
		fputs(runas_usage, stderr);
		return 100;
	}
	if (!(pw = getpwnam(argv[1])) || pw->pw_uid == 0 || pw->pw_gid == 0) {
		fprintf(stderr, "bootbench runas: %s: %s\n", argv[1],
			pw ? "root, or in root's group: refused" : "no such user");
		return 111;
	}
	if (setgroups(0, NULL) < 0 || setgid(pw->pw_gid) < 0 || setuid(pw->pw_uid) < 0) {
		fprintf(stderr, "bootbench runas: unable to become %s: %s\n", argv[1], strerror(errno));
		return 111;
	}
	/* setuid cleared it; and the parent may have gone in between */
	if (prctl(PR_SET_PDEATHSIG, SIGKILL) < 0 || getppid() != parent)
		return 111;
	execve(argv[2], argv + 2, env);
	fprintf(stderr, "bootbench runas: unable to run %s: %s\n", argv[2], strerror(errno));
	return 111;
}
