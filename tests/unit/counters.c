/*
 * counters.c - /proc parsers on captured files of three kernel eras: 2.4
 * (no /proc/vmstat; paging on /proc/stat's page and swap lines; 4 CPU
 * fields), 2.6 (7 CPU fields, 14-field diskstats, 7-field partition lines),
 * 4.18 (18 fields) and 5.5+ (20 fields).
 */
#include <math.h>
#include <stdlib.h>

#include "counters.h"
#include "tap.h"
#include "xio.h"

#define FIX "tests/fixtures/counters/"

static char *load(const char *f, size_t *len)
{
	char *b = read_file(f, len);
	if (!b) {
		printf("Bail out! cannot read %s (run from the repository top)\n", f);
		exit(1);
	}
	return b;
}

static char *names(const struct disk_counts *d, int n)
{
	static char s[256];
	s[0] = 0;
	for (int i = 0; i < n; i++)
		snprintf(s + strlen(s), sizeof s - strlen(s), "%s%s", i ? " " : "", d[i].name);
	return s;
}

int main(void)
{
	struct cpu_times c;
	struct vm_counts vm;
	struct disk_counts d[16];
	struct mem_info m;
	size_t len;
	char *b;
	int n;

	tap_plan(47);
	memset(&vm, 0, sizeof vm);
	b = load(FIX "stat-2.4.txt", &len);
	is_int(parse_proc_stat(b, len, &c, &vm), 0, "2.4 /proc/stat parses");
	is_int(c.fields, 4, "2.4: four CPU fields");
	ok(c.user == 3357 && c.system == 4313 && c.idle == 1362393 && c.iowait == 0, "2.4: user, system, idle; no iowait");
	ok(vm.pgpgin == 5741 && vm.pgpgout == 1808 && vm.pswpin == 1, "2.4: paging from the page and swap lines");
	free(b);
	b = load(FIX "stat-2.6.txt", &len);
	parse_proc_stat(b, len, &c, NULL);
	ok(c.fields == 7 && c.iowait == 6290 && c.softirq == 456, "2.6: seven CPU fields with iowait");
	free(b);
	b = load(FIX "stat-6.1.txt", &len);
	parse_proc_stat(b, len, &c, NULL);
	ok(c.fields == 8 && c.user == 10132153 && c.steal == 0, "6.1: all fields read (guest fields ignored)");
	free(b);
	is_int(parse_proc_stat("intr 1 2\n", 9, &c, NULL), -1, "no cpu line: rejected");
	b = load(FIX "stat-2.6.txt", &len);
	parse_proc_stat(b, len, &c, NULL);
	ok(c.ctxt == 1990473 && c.intr == 114930548 && c.running == 1 && c.blocked == 0,
	   "2.6: context switches, interrupts (the total), runnable and blocked tasks");
	free(b);
	b = load(FIX "stat-2.4.txt", &len);
	parse_proc_stat(b, len, &c, NULL);
	ok(c.ctxt == 1990473 && c.intr == 1462898 && c.running == 0, "2.4: ctxt and intr; no procs lines: 0");
	free(b);

	memset(&vm, 0, sizeof vm);
	b = load(FIX "vmstat-6.1.txt", &len);
	is_int(parse_vmstat(b, len, &vm), 0, "6.1 /proc/vmstat parses");
	ok(vm.pgpgin == 1406276 && vm.pgpgout == 5036240 && vm.pswpin == 12 && vm.pswpout == 40, "paging counters");
	ok(vm.have_faults && vm.pgfault == 85741873 && vm.pgmajfault == 6126, "fault counters");
	free(b);
	memset(&vm, 0, sizeof vm);
	b = load(FIX "vmstat-reclaim-6.18.txt", &len);
	parse_vmstat(b, len, &vm);
	is_int(vm.pgscan, 245, "6.x reclaim: pgscan = kswapd + direct + khugepaged (not throttle, not the anon/file split)");
	is_int(vm.pgsteal, 123, "6.x reclaim: pgsteal likewise");
	ok(vm.pgscan_kswapd == 200 && vm.pgscan_direct == 40, "6.x reclaim apart: pgscan kswapd 200, direct 40");
	ok(vm.pgsteal_kswapd == 100 && vm.pgsteal_direct == 20, "6.x reclaim apart: pgsteal kswapd 100, direct 20");
	free(b);
	memset(&vm, 0, sizeof vm);
	b = load(FIX "vmstat-reclaim-2.6.txt", &len);
	parse_vmstat(b, len, &vm);
	is_int(vm.pgscan, 5800, "2.6 reclaim: per-zone pgscan_kswapd_ZONE and pgscan_direct_ZONE summed");
	is_int(vm.pgsteal, 4600, "2.6 reclaim: per-zone pgsteal_ZONE summed");
	ok(vm.pgscan_kswapd == 5500 && vm.pgscan_direct == 300, "2.6 reclaim apart: per-zone kswapd and direct scans");
	ok(vm.pgsteal_kswapd == 0 && vm.pgsteal_direct == 0, "2.6: pgsteal_ZONE does not say who reclaimed: neither side");
	free(b);
	{
		static const struct { const char *text; int rc; unsigned long long ticks; } ts[] = {
			{ "39 (kswapd0) S 2 0 0 0 -1 10561600 0 0 0 0 17 250 0 0 20 0 1 0 36 0 0", 0, 267 },
			{ "7 (a) b) (c) R 1 7 7 0 -1 4194560 9 0 0 0 5 6 0 0", 0, 11 },
			{ "7 (no close paren S 1 7 7 0 -1 0 0 0 0 0 5 6", -1, 0 },
			{ "7 (short) S 1 7", -1, 0 },
		};
		for (size_t i = 0; i < sizeof ts / sizeof *ts; i++) {
			unsigned long long t = 0;
			int rc = parse_task_stat(ts[i].text, strlen(ts[i].text), &t);
			ok(rc == ts[i].rc && (rc || t == ts[i].ticks), "task stat %zu: utime + stime from after the last ')'", i + 1);
		}
	}

	b = load(FIX "diskstats-2.6.txt", &len);
	n = parse_diskstats(b, len, d, 16);
	is_str(names(d, n), "hda sda ram0", "2.6 diskstats: whole disks only (no partition, no loop; ram0 is our ramdisk layout)");
	ok(d[0].reads == 446216 && d[0].rsect == 9550688 && d[0].writes == 424847 && d[0].wsect == 5922052, "2.6: ios and sectors");
	ok(d[0].io_ticks == 3376340 && d[0].queue_ms == 23705160, "2.6: io ticks and weighted queue time");
	free(b);
	b = load(FIX "diskstats-4.18.txt", &len);
	n = parse_diskstats(b, len, d, 16);
	is_str(names(d, n), "nvme0n1 md0", "4.18 diskstats (18 fields): nvme namespace and md kept, nvme partition skipped");
	ok(d[0].reads == 60412 && d[0].wsect == 3935224 && d[0].queue_ms == 134424, "4.18: fields in place");
	free(b);
	b = load(FIX "diskstats-5.5.txt", &len);
	n = parse_diskstats(b, len, d, 16);
	is_str(names(d, n), "vda vdb ram0 mmcblk0", "5.5+ diskstats (20 fields): ram0 (our ramdisk layout) kept, partitions skipped");
	ok(d[1].writes == 1000 && d[1].wsect == 262144 && d[1].queue_ms == 3010, "5.5+: fields in place");
	free(b);
	is_int(parse_diskstats("garbage\n 8 0 sda 1 2\n", 21, d, 16), 0, "short lines are skipped");

	b = load(FIX "meminfo-6.1.txt", &len);
	is_int(parse_meminfo(b, len, &m), 0, "6.1 meminfo parses");
	ok(m.total == 24603620 && m.cached == 919152 && m.dirty == 228 && m.writeback == 0 && m.buffers == 94244, "meminfo fields");
	free(b);
	b = load(FIX "meminfo-2.4.txt", &len);
	is_int(parse_meminfo(b, len, &m), 0, "2.4 meminfo (with its byte table on top) parses");
	ok(m.total == 1031124 && m.cached == 829588 && m.dirty == 0, "2.4: no Dirty line: 0");
	free(b);

	{
		struct ctr_monitor mon;
		struct jw w;
		ctr_start(&mon, 100, 1000.0);
		ctr_tick(&mon, 1000.1);
		ctr_tick(&mon, 1000.2);
		jw_init(&w);
		jw_obj(&w, NULL);
		ctr_json(&mon, &w);
		jw_obj_end(&w);
		ok(strstr(w.sb.s, "\"counters\":{\"interval_ms\":100,\"samples\":3,\"summary\":{\"cpu_user\":{\"mean\":") != NULL,
		   "monitor JSON: interval, samples, summary");
		ok(strstr(w.sb.s, "\"trace\":{\"t\":[0.1,0.2],") != NULL, "monitor JSON: trace times relative to the start");
		ok(strstr(w.sb.s, "\"ctxt\":{\"mean\":") && strstr(w.sb.s, "\"procs_blocked\":{\"mean\":") &&
		   strstr(w.sb.s, "\"pgscan\":{\"mean\":") && strstr(w.sb.s, "\"mem_used_pct\":{\"mean\":") &&
		   strstr(w.sb.s, "\"pgscan_direct\":{\"mean\":") && strstr(w.sb.s, "\"kswapd_cpu\":{\"mean\":") &&
		   strstr(w.sb.s, "\"mem_free\":{\"mean\":") && strstr(w.sb.s, "\"mem_buffers\":{\"mean\":"),
		   "summary has context switches, blocked tasks, reclaim, sar's %%memused, MemFree and Buffers");
		ok(!strstr(w.sb.s, "decimated_by"), "a short run is not decimated");
		sb_free(&w.sb);
		ctr_free(&mon);
	}
	{
		/* a long run at a short interval: the samples stay bounded, evenly
		 * spaced, and the last one is the run's end */
		struct ctr_monitor mon;
		struct jw w;
		const size_t ticks = 5000;
		int even = 1;
		ctr_start(&mon, 10, 0.0);
		for (size_t i = 1; i <= ticks; i++)
			ctr_tick(&mon, i * 0.01);
		ok(mon.n <= CTR_MAX_SAMPLES && mon.n >= CTR_MAX_SAMPLES / 4, "5001 samples kept as %zu (at most %d)", mon.n,
		   CTR_MAX_SAMPLES);
		is_int(mon.stride, 16, "every 16th kept");
		for (size_t i = 1; i + 1 < mon.n; i++)
			even &= fabs((mon.snap[i].t - mon.snap[i - 1].t) - mon.stride * 0.01) < 1e-9;
		ok(even, "kept samples evenly spaced (but the last)");
		ok(fabs(mon.snap[mon.n - 1].t - ticks * 0.01) < 1e-9, "the last sample is the last tick (%.2f)", mon.snap[mon.n - 1].t);
		jw_init(&w);
		jw_obj(&w, NULL);
		ctr_json(&mon, &w);
		jw_obj_end(&w);
		ok(strstr(w.sb.s, "\"decimated_by\":16,\"samples_taken\":5001,") != NULL, "the record says it was decimated, and from how many");
		ok(w.sb.len < 256 * 1024, "the counters JSON stays small: %zu bytes", w.sb.len);
		sb_free(&w.sb);
		ctr_free(&mon);
	}
	{
		/* runs ending right at a compaction (512, 1023, 2048 samples) keep their end */
		const size_t ends[] = { 511, 512, 1022, 1023, 1024, 2047, 2048 };
		int all = 1;
		for (size_t e = 0; e < sizeof ends / sizeof *ends; e++) {
			struct ctr_monitor mon;
			ctr_start(&mon, 10, 0.0);
			for (size_t i = 1; i <= ends[e]; i++)
				ctr_tick(&mon, i * 0.01);
			if (fabs(mon.snap[mon.n - 1].t - ends[e] * 0.01) > 1e-9) {
				all = 0;
				printf("# %zu ticks: last kept %.2f\n", ends[e], mon.snap[mon.n - 1].t);
			}
			ctr_free(&mon);
		}
		ok(all, "the last sample is the run's end whatever the number of ticks (511..2048)");
	}
	return tap_done();
}
