/*
 * plan.c - the "run the plan" step: choose the plan (command line, else the
 * one stored in the results partition), claim disks, expand the matrix, and
 * for each run build the layout (fresh), apply tunables, run the workload
 * under the watchdog, and record the result with its fingerprint.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "claim.h"
#include "err.h"
#include "init.h"
#include "json.h"
#include "layer.h"
#include "layout.h"
#include "nfsserver.h"
#include "plan.h"
#include "probe.h"
#include "spawn.h"
#include "workload.h"
#include "xio.h"

/* The plan this boot runs, read and parsed before the modules it needs are
 * loaded (step "read the plan"), run after the boot is recorded. A plan
 * that cannot be read or parsed is not fatal yet: the boot record comes
 * first, then run_plan ends the boot with the reason. */
static struct plan *the_plan;
static char *plan_error;

/* The plan's text (malloc'd), NULL with *why set when there is none. */
static char *load_plan_text(char *name, size_t namelen, size_t *len, char **why)
{
	char path[512], err[256];
	char *text;
	*why = NULL;
	if (A.conf.plan) {
		snprintf(name, namelen, "%s.plan", A.conf.plan);
		snprintf(path, sizeof path, "%s/%s.plan", PLAN_DIR, A.conf.plan);
		text = read_file(path, len);
		if (!text) {
			struct sbuf msg = {0}, avail = {0};
			char *argv[] = { (char *)BUSYBOX, (char *)"ls", (char *)PLAN_DIR, NULL };
			struct run_result r;
			int e = errno;
			run_capture(argv, &avail, 5000, &r);
			for (char *p = avail.s; p && *p; p++)
				if (*p == '\n')
					*p = ' ';
			sb_printf(&msg, "no plan named %s (%s: %s); the userland has: %s", A.conf.plan, path, strerror(e),
				  avail.s ? avail.s : "none");
			sb_free(&avail);
			*why = sb_steal(&msg);
		}
		return text;
	}
	if (A.rec.stored && A.rec.w.h.plan_len) {
		snprintf(name, namelen, "%s (stored in the results partition)",
			 A.rec.w.h.plan_name[0] ? A.rec.w.h.plan_name : "plan");
		text = rs_read_plan(&A.rec.w.reg, &A.rec.w.h, err, sizeof err);
		if (!text)
			*why = xstrdup(err);
		else
			*len = strlen(text);
		return text;
	}
	return NULL;
}

int read_plan(void)
{
	char name[128], err[512];
	size_t len;
	char *text = load_plan_text(name, sizeof name, &len, &plan_error);
	struct plan *p;
	if (!text)
		return plan_error ? -1 : 0;
	p = xcalloc(1, sizeof *p);
	if (plan_parse(name, text, len, workload_check, p, err, sizeof err) < 0 ||
	    plan_check_workloads(name, p, err, sizeof err) < 0) {
		struct sbuf msg = {0};
		sb_printf(&msg, "bad plan: %s", err);
		plan_error = sb_steal(&msg);
		free(p);
		free(text);
		return -1;
	}
	free(text);
	the_plan = p;
	return 0;
}

int load_the_plans_modules(void)
{
	return load_plan_modules(the_plan);
}

/* What the plan `requires` that this boot does not have, in why: 0 when
 * everything is there. Checked before the first run, so a refused plan
 * leaves no run record behind. */
static int requires_unmet(const struct plan *p, size_t nclaimed, struct sbuf *why)
{
	const struct plan_requires *r = &p->req;
	int dfd = open(LAYERS_DIR, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	for (size_t i = 0; i < r->nlayers; i++) {
		struct layer ly;
		if (dfd < 0 || layer_read(dfd, r->layers[i], &ly) < 0)
			sb_printf(why, "%slayer %s, which this boot does not carry (scripts/boot-qemu --layer %s, "
				  "scripts/pxe-serve --layer %s, or make layer NAME=%s to build it)",
				  why->len ? "; " : "", r->layers[i], r->layers[i], r->layers[i], r->layers[i]);
	}
	if (dfd >= 0)
		close(dfd);
	if (r->memory) {
		/* MemTotal is what the kernel kept of the RAM after its own
		 * reservations, 5-8% less than the machine has */
		long long kib = meminfo_kib("MemTotal:");
		if (kib >= 0 && (double)kib * 1024 < 0.9 * (double)r->memory)
			sb_printf(why, "%smemory=%llu MiB, and this boot has %lld MiB (MemTotal, which must be at least "
				  "90%% of it)", why->len ? "; " : "", r->memory >> 20, kib >> 10);
	}
	if (r->cpus) {
		long n = sysconf(_SC_NPROCESSORS_ONLN);
		if (n > 0 && (unsigned long)n < r->cpus)
			sb_printf(why, "%scpus=%u, and this boot has %ld online", why->len ? "; " : "", r->cpus, n);
	}
	if (r->disks && nclaimed < r->disks)
		sb_printf(why, "%sdisks=%u, and this boot may write %zu (bootbench.disks= or bootbench mkscratch)",
			  why->len ? "; " : "", r->disks, nclaimed);
	return why->len ? -1 : 0;
}

/* Which disks this boot may write. A scratch label only counts when the
 * disk holds nothing the appliance did not put there itself (libblkid's
 * answer, lib/probe.c): LVM, LUKS, md or partition tables written after the
 * label leave sector 0 alone, and the label would then hand somebody's new
 * data over. What every claimed disk held before this boot wipes it goes
 * into a "claim" event record, so that a wrong bootbench.disks= is at
 * least on the record. */
static void claim(size_t *claimed, size_t *nclaimed, int *labelled)
{
	struct sbuf notes = {0};
	char (*held)[2048] = xcalloc(A.ndevs + 1, sizeof *held);	/* PROBE_MAX signatures fit */
	struct jw ev;
	for (size_t i = 0; i < A.ndevs; i++) {
		char path[64], err[256];
		struct probe_result pr;
		int fd;
		labelled[i] = 0;
		snprintf(path, sizeof path, "/dev/%s", A.devs[i].name);
		fd = open(path, O_RDONLY | O_CLOEXEC);
		if (fd < 0) {
			snprintf(held[i], sizeof held[i], "unreadable: %s", strerror(errno));
			continue;
		}
		if (disk_probe(fd, &pr, err, sizeof err) < 0) {
			snprintf(held[i], sizeof held[i], "%s", err);
			if (pr.scratch)
				sb_printf(&notes, "disk %s carries the scratch label but what else it holds cannot be read "
					  "(%s): not claimed\n", A.devs[i].name, err);
		} else {
			probe_describe(&pr, held[i], sizeof held[i]);
			labelled[i] = pr.scratch;
			if (pr.scratch && probe_foreign(&pr)) {
				labelled[i] = 0;
				sb_printf(&notes, "disk %s carries the scratch label but also what the appliance never "
					  "writes: %s. Somebody used it after it was labelled: not claimed (once it "
					  "holds nothing you need, label it again with bootbench mkscratch --force)\n",
					  A.devs[i].name, held[i]);
			}
		}
		close(fd);
	}
	*nclaimed = claim_disks(A.devs, A.ndevs, A.conf.disks, labelled, A.results_dev, A.conf.readonly, claimed,
				&notes);
	claim_unmatched(A.devs, A.ndevs, A.conf.readonly, &notes);
	if (notes.len) {
		char *save = NULL;
		for (char *l = strtok_r(notes.s, "\n", &save); l; l = strtok_r(NULL, "\n", &save))
			warning("%s", l);
	}
	sb_free(&notes);
	jw_init(&ev);
	jw_obj(&ev, NULL);
	jw_str(&ev, "event", "claim");
	jw_str(&ev, "probe", probe_library_version());
	jw_arr(&ev, "disks");
	for (size_t i = 0; i < A.ndevs; i++) {
		int c = 0;
		const char *how;
		for (size_t k = 0; k < *nclaimed; k++)
			c |= claimed[k] == i;
		how = !strcmp(A.devs[i].name, A.results_dev) ? "results disk (only its results partition is written)" :
		      claim_listed(&A.devs[i], A.conf.readonly) ? "read-only (bootbench.readonly): opened O_RDONLY, never written" :
		      c ? (labelled[i] ? "claimed (scratch label)" : "claimed (bootbench.disks)") :
			  "not claimed: never written";
		info("disk %s: %s%s%s", A.devs[i].name, how, c && held[i][0] ? "; held before this boot: " : "",
		     c ? held[i] : "");
		jw_obj(&ev, NULL);
		jw_str(&ev, "name", A.devs[i].name);
		jw_str(&ev, "serial", A.devs[i].serial);
		jw_str(&ev, "decision", how);
		jw_str(&ev, "held", held[i]);
		jw_obj_end(&ev);
	}
	jw_arr_end(&ev);
	jw_obj_end(&ev);
	rec_emit(&A.rec, RS_EVENT, ev.sb.s);
	sb_free(&ev.sb);
	free(held);
}

static void params_json(struct jw *w, const struct plan_workload *pw)
{
	const struct workload *wl = workload_find(pw->name);
	jw_obj(w, "params");
	/* every parameter with the value in force, defaults included */
	for (const struct wparam *p = wl ? wl->params : NULL; p && p->name; p++) {
		const char *v = p->def;
		for (size_t i = 0; i < pw->nparams; i++)
			if (!strcmp(pw->params[i].key, p->name))
				v = pw->params[i].val;
		jw_str(w, p->name, v);
	}
	jw_obj_end(w);
}

/* With bootbench.lava=1 every figure is also a LAVA test-case signal, so a
 * LAVA monitor stores it natively (ids: [a-z0-9_.], LAVA lowercases them). */
static void lava_signals(const char *wl, const char *layout, const struct run_outcome *o)
{
	char id[160];
	if (strcmp(o->status, "ok")) {
		snprintf(id, sizeof id, "%s.%s", wl, layout);
		for (char *c = id; *c; c++)
			if (!((*c >= 'a' && *c <= 'z') || (*c >= '0' && *c <= '9') || *c == '.'))
				*c = '_';
		printf("<LAVA_SIGNAL_TESTCASE TEST_CASE_ID=%s RESULT=fail>\n", id);
		return;
	}
	for (size_t i = 0; i < o->nmetrics; i++) {
		snprintf(id, sizeof id, "%s.%s.%s", wl, layout, o->metrics[i].name);
		for (char *c = id; *c; c++) {
			if (*c >= 'A' && *c <= 'Z')
				*c += 'a' - 'A';
			if (!((*c >= 'a' && *c <= 'z') || (*c >= '0' && *c <= '9') || *c == '.'))
				*c = '_';
		}
		printf("<LAVA_SIGNAL_TESTCASE TEST_CASE_ID=%s RESULT=pass MEASUREMENT=%.6g UNITS=%s>\n", id,
		       o->metrics[i].value, o->metrics[i].unit);
	}
	fflush(stdout);
}

/* The kernel's client unmounted (when the section had one), the NFS server
 * off, the layout unmounted and checked: an event record says whether nfsd
 * left the filesystem clean, and how the client let go of it. */
static void nfs_stop(struct nfs_server *ns, struct nfs_client *nc, struct built_layout *bl, const char *layout)
{
	char verdict[256];
	struct jw ev;
	/* the client first: it holds the export */
	const char *client = nc->status[0] ? nfsclient_umount(nc) : NULL;
	nfsserver_stop(ns);
	layout_unmount_check(bl, verdict, sizeof verdict);
	info("nfsserver stopped; layout %s unmounted: %s", layout, verdict);
	jw_init(&ev);
	jw_obj(&ev, NULL);
	jw_str(&ev, "event", "nfsserver-stop");
	jw_str(&ev, "layout", layout);
	jw_str(&ev, "fsck", verdict);
	if (client)
		jw_str(&ev, "client", client);
	jw_obj_end(&ev);
	rec_emit(&A.rec, RS_EVENT, ev.sb.s);
	sb_free(&ev.sb);
}

int run_plan(void)
{
	char tun[256];
	size_t nclaimed = 0, nruns;
	size_t *claimed = xcalloc(A.ndevs + 1, sizeof *claimed);
	int *labelled = xcalloc(A.ndevs + 1, sizeof *labelled);
	struct plan *p = the_plan;
	struct plan_run *runs;
	struct built_layout bl = {0};
	struct nfs_server ns = { .pmap_pid = -1, .pmap_pidfd = -1 };
	struct nfs_client nc = { 0 };
	int nfs_on = 0, nfsc_on = 0;
	unsigned counts[5] = {0};
	struct sbuf unmet = {0};

	if (plan_error)
		die(EXIT_BADINPUT, "%s", plan_error);
	if (!p) {
		info("no plan: none on the command line (bootbench.plan=NAME) and none stored in a results partition");
		free(claimed);
		free(labelled);
		return 0;
	}
	claim(claimed, &nclaimed, labelled);
	if (requires_unmet(p, nclaimed, &unmet) < 0)
		die(EXIT_BADINPUT, "plan %s requires %s: refused before its first run", p->name, unmet.s);
	nruns = plan_expand(p, &runs);
	/* bootbench.profile= overrides the plan's profile directive */
	{
		/* the command line's word was checked against on|perf|offcpu|off (lib/cmdline.c) */
		int prof = A.conf.profile && profile_level(A.conf.profile) >= 0 ? profile_level(A.conf.profile) : p->profile;
		if (A.conf.profile)
			info("profile %s (bootbench.profile=%s; the plan says %s)", profile_name(prof), A.conf.profile,
			     profile_name(p->profile));
		run_why_begin(prof);
	}
	if (plan_has_sections(p))
		info("plan %s: %zu runs (%zu sections, %zu layouts, %u iterations), timeout %u s per run", p->name,
		     nruns, p->nsections, p->nlayouts, p->iterations, p->timeout_s);
	else
		info("plan %s: %zu runs (%zu layouts x %u tunable sets x %zu workloads x %u iterations), timeout %u s per run",
		     p->name, nruns, p->nlayouts, plan_tunable_combos(&p->sections[0]), p->nworkloads, p->iterations,
		     p->timeout_s);
	for (size_t i = 0; i < nruns && !A.stop_requested; i++) {
		const struct plan_run *r = &runs[i];
		const struct workload *wl = workload_find(r->workload->name);
		struct run_outcome o;
		struct jw w;
		char *tjson = NULL;

		if (r->first_of_layout) {
			if (r->section->name)
				info("[%zu/%zu] iteration %u, section %s: building layout %s", i + 1, nruns, r->iteration,
				     r->section->name, r->layout->name);
			else
				info("[%zu/%zu] iteration %u: building layout %s", i + 1, nruns, r->iteration,
				     r->layout->name);
			if (layout_build(r->layout, claimed, nclaimed, labelled, &bl) == 0)
				info("layout %s built in %.2f s on %s", r->layout->name, bl.build_s,
				     bl.dev[0] ? bl.dev : "tmpfs");
			else
				warning("layout %s %s: %s", r->layout->name, bl.status, bl.reason);
			nfs_on = r->section->nfs.line && !bl.status[0];
			if (nfs_on)
				nfsserver_start(&r->section->nfs, bl.dir, &ns);
			nfsc_on = nfs_on && r->section->nfsc.line;
			memset(&nc, 0, sizeof nc);
			if (nfsc_on)
				nfsclient_mount(&r->section->nfsc, &ns, bl.dir, &nc);
		}
		plan_tunables_text(r->section, r->tunables_index, tun, sizeof tun);
		memset(&o, 0, sizeof o);
		if (bl.status[0]) {
			snprintf(o.status, sizeof o.status, "%s", bl.status);
			snprintf(o.reason, sizeof o.reason, "layout %.40s: %.200s", r->layout->name, bl.reason);
		} else if (nfsc_on && !nc.mounted) {
			/* never on the layout instead: the section asked for the client */
			snprintf(o.status, sizeof o.status, "failed");
			snprintf(o.reason, sizeof o.reason, "nfsclient: %.230s", nc.reason);
		} else if (r->layout->kind == LAYOUT_READONLY && !(wl->needs & WL_READONLY_OK)) {
			/* only workloads that open the device O_RDONLY and write nothing */
			snprintf(o.status, sizeof o.status, "skipped");
			snprintf(o.reason, sizeof o.reason, "workload %.40s may write; layout %.40s is a read-only disk "
				 "(only workloads that open it O_RDONLY run there)", wl->name, r->layout->name);
		} else {
			tjson = tunables_apply(r->section, r->tunables_index, &bl);
			info("[%zu/%zu] iteration %u, layout %s, tunables %s: %s", i + 1, nruns, r->iteration,
			     r->layout->name, tun, r->workload->name);
			if (!A.first_run_uptime) {
				char *up = read_attr("/proc/uptime");
				A.first_run_uptime = up ? strtod(up, NULL) : -1;
				free(up);
				info("first run at uptime %.2f s (init started at %.2f s)", A.first_run_uptime,
				     A.uptime_start);
			}
			if (nfsc_on)
				nfsclient_run_begin(&nc);
			/* through the kernel's client: its directory, no block device */
			busy_stop();	/* nothing of the appliance's runs beside a workload */
			if (run_workload(wl, nfsc_on ? NFSCLIENT_DIR : bl.dir[0] ? bl.dir : NULL,
					 nfsc_on ? NULL : bl.dev[0] ? bl.dev : NULL, r->workload->params,
					 r->workload->nparams, p->timeout_s, A.conf.monitor_ms, &o) < 0) {
				snprintf(o.status, sizeof o.status, "failed");
				snprintf(o.reason, sizeof o.reason, "unable to start the run: %s", strerror(errno));
			}
			tunables_restore();
			busy_start();
		}
		jw_init(&w);
		jw_obj(&w, NULL);
		jw_str(&w, "plan", p->name);
		if (r->section->name)
			jw_str(&w, "section", r->section->name);
		jw_str(&w, "workload", r->workload->name);
		params_json(&w, r->workload);
		if (bl.fingerprint)
			jw_raw(&w, "layout", bl.fingerprint);
		else {
			jw_obj(&w, "layout");
			jw_str(&w, "name", r->layout->name);
			jw_obj_end(&w);
		}
		if (tjson)
			jw_raw(&w, "tunables", tjson);
		if (nfs_on && ns.json)
			jw_raw(&w, "nfsserver", ns.json);
		if (nfsc_on)
			nfsclient_run_json(&nc, &w);
		jw_int(&w, "iteration", r->iteration);
		jw_int(&w, "run", i + 1);
		jw_int(&w, "runs", nruns);
		run_outcome_json(&w, &o);
		jw_obj_end(&w);
		rec_emit(&A.rec, RS_RUN, w.sb.s);
		if (A.conf.lava)
			lava_signals(r->workload->name, r->layout->name, &o);
		sb_free(&w.sb);
		free(tjson);
		if (!strcmp(o.status, "ok")) counts[0]++;
		else if (!strcmp(o.status, "failed")) counts[1]++;
		else if (!strcmp(o.status, "timeout")) counts[2]++;
		else if (!strcmp(o.status, "crashed")) counts[3]++;
		else counts[4]++;
		if (strcmp(o.status, "ok"))
			warning("run %zu: %s: %s", i + 1, o.status, o.reason);
		run_outcome_free(&o);
		reap_children();
		init_check_signals();
		if (r->last_of_layout) {
			if (nfs_on)
				nfs_stop(&ns, &nc, &bl, r->layout->name);
			nfs_on = nfsc_on = 0;
			layout_teardown(&bl);
		}
	}
	if (nfs_on)
		nfs_stop(&ns, &nc, &bl, "(stopped early)");
	if (bl.fingerprint || bl.mounted || bl.md_created || bl.brd_loaded)
		layout_teardown(&bl);
	run_why_end();
	info("plan %s done: %u ok, %u failed, %u timed out, %u crashed, %u skipped", p->name, counts[0], counts[1],
	     counts[2], counts[3], counts[4]);
	free(runs);
	plan_free(p);
	free(p);
	the_plan = NULL;
	free(claimed);
	free(labelled);
	return 0;
}
