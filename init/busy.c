/*
 * busy.c - keep the one vCPU of a deterministic boot busy while the
 * appliance itself waits on its disks.
 *
 * Under QEMU's instruction counting (-icount shift=0,sleep=off) guest time
 * is executed instructions, and an idle vCPU has its clock warped straight
 * to the next timer deadline. A read of the results disk completes in host
 * time, so while the guest idles for it the clock jumps from deadline to
 * deadline: the 64 MiB scan of an empty results partition took 3.5 guest
 * seconds, a record write ~0.1 s, and a boot's uptime said more about the
 * host's disk than about the kernel (FINDINGS.md: [5.2 s] -> [581.3 s]).
 * A process that only spins, at the lowest priority, keeps the vCPU from
 * idling: the clock then advances by the instructions spun while the host
 * finishes the I/O, a few milliseconds.
 *
 * Only the appliance's own work runs beside it (finding and reading the
 * results partition, the records, claiming disks, building layouts): it is
 * stopped before every run and started again after, so no figure is ever
 * measured with it. Wall-clock boots never start it.
 */
#define _GNU_SOURCE
#include <signal.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "err.h"
#include "init.h"

static pid_t busy_pid = -1;

void busy_start(void)
{
	pid_t pid;
	if (!A.conf.mode || strcmp(A.conf.mode, "deterministic") || busy_pid > 0)
		return;
	fflush(NULL);
	pid = fork();
	if (pid < 0) {
		warn_sys("unable to start the idle spinner (guest time may leap while init waits on disks)");
		return;
	}
	if (pid == 0) {
		volatile unsigned long n = 0;
		setpriority(PRIO_PROCESS, 0, 19);
		for (;;)
			n++;
	}
	busy_pid = pid;
}

void busy_stop(void)
{
	if (busy_pid <= 0)
		return;
	/* It never ends by itself, so reap_children cannot have taken it and
	 * its pid is still this child's: 0 from WNOHANG says so. */
	if (waitpid(busy_pid, NULL, WNOHANG) == 0) {
		kill(busy_pid, SIGKILL);
		waitpid(busy_pid, NULL, 0);
	}
	busy_pid = -1;
}
