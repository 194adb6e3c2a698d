/*
 * runid.c - what keys a run: parameters canonical (sorted, quoted where
 * needed), old parameter names read as the new ones.
 */
#include "json.h"
#include "runid.h"
#include "tap.h"

enum part { PARAMS, LAYOUT, TUNABLES };

static char *key_of(const char *record, enum part part)
{
	char err[128];
	struct jv *v = json_parse(record, strlen(record), err, sizeof err);
	struct run_id id;
	const char *k;
	char *s;
	if (!v)
		return strdup(err);
	run_identity(v, &id);
	k = part == LAYOUT ? id.layout.s : part == TUNABLES ? id.tunables.s : id.params.s;
	s = strdup(k ? k : "");
	run_id_free(&id);
	json_free(v);
	return s;
}

static char *tunables_of(const char *record)
{
	return key_of(record, TUNABLES);
}

static char *params_of(const char *record)
{
	return key_of(record, PARAMS);
}

static char *layout_of(const char *layout)
{
	char rec[1024];
	snprintf(rec, sizeof rec, "{\"workload\":\"hdparm\",\"layout\":%s}", layout);
	return key_of(rec, LAYOUT);
}

/* Two layouts key alike (same) or apart. */
static void layouts(const char *x, const char *y, int same, const char *what)
{
	char *a = layout_of(x), *b = layout_of(y);
	if (same)
		is_str(a, b, "%s", what);
	else
		ok(strcmp(a, b) != 0, "%s (%s | %s)", what, a, b);
	free(a);
	free(b);
}

int main(void)
{
	char *a, *b, *c;
	tap_plan(25);
	a = params_of("{\"workload\":\"hdparm\",\"params\":{\"seconds_T\":\"2\",\"seconds_t\":\"3\",\"settle\":\"1\"}}");
	b = params_of("{\"workload\":\"hdparm\",\"params\":{\"disk_seconds\":\"3\",\"cached_seconds\":\"2\",\"settle\":\"1\"}}");
	is_str(a, b, "hdparm's seconds_T/seconds_t (records before the rename) key like cached_seconds/disk_seconds");
	is_str(b, "cached_seconds=2 disk_seconds=3 settle=1", "parameters sorted, k=v, blank-separated");
	c = params_of("{\"workload\":\"stream\",\"params\":{\"seconds_T\":\"2\"}}");
	is_str(c, "seconds_T=2", "the rename is hdparm's only");
	free(a);
	free(b);
	free(c);
	a = params_of("{\"workload\":\"dbt2\",\"params\":{\"warehouses\":\"1\",\"drop_cache\":\"0\"}}");
	b = params_of("{\"workload\":\"dbt2\",\"params\":{\"warehouses\":\"1\",\"drop_cache\":\"1\"}}");
	c = params_of("{\"workload\":\"oltp\",\"params\":{\"drop_cache\":\"0\"}}");
	is_str(a, "warehouses=1", "dbt2's drop_cache=0, added later, keys as records from before it (which ran without a drop)");
	is_str(b, "drop_cache=1 warehouses=1", "... drop_cache=1 is another experiment");
	is_str(c, "drop_cache=0", "... and the rule is dbt2's only (oltp always recorded it)");
	free(a);
	free(b);
	free(c);

#define RAM(mkfs) "{\"name\":\"ram\",\"kind\":\"ramdisk\",\"size_bytes\":268435456,\"fs\":{\"type\":\"ext3\",\"mkfs\":\"" mkfs "\"}}"
	layouts(RAM("/sbin/mke2fs -F -q -t ext3"), RAM("/sbin/mke2fs -F -q -t ext3 (/dev/ram0) 262144k"), 1,
		"an older record's cut-down ramdisk size is not part of the layout");
	layouts(RAM("/sbin/mkfs.xfs -m crc=1"), RAM("/sbin/mkfs.xfs -m crc=1 -d size=268435456"), 1,
		"nor an xfs one's -d size=");
	layouts(RAM("/sbin/mkfs.xfs -m crc=1 -d size=300m"), RAM("/sbin/mkfs.xfs -m crc=1"), 0,
		"a -d size= the plan gave, with a unit, still keys");
#define DISK(mkfs) "{\"name\":\"d\",\"kind\":\"disk\",\"fs\":{\"type\":\"xfs\",\"mkfs\":\"" mkfs "\"}}"
	layouts(DISK("/sbin/mkfs.xfs -m crc=1 -d size=314572800"), DISK("/sbin/mkfs.xfs -m crc=1"), 0,
		"on a disk layout a trailing -d size=N is the plan's option, and keys");
	layouts(RAM("/sbin/mke2fs -F -q -t ext3 -E stride=4"), RAM("/sbin/mke2fs -F -q -t ext3 -E stride=8"), 0,
		"mkfs options key");
#define RO(serial, size) "{\"name\":\"ro\",\"kind\":\"readonly\",\"readonly\":{\"token\":\"X\",\"serial\":\"" serial "\",\"size_bytes\":" size "},\"fs\":{\"type\":\"none\"}}"
	layouts(RO("S1", "50331648"), RO("S1", "1000204886016"), 0, "read-only layouts on disks of two sizes key apart");
	layouts(RO("S1", "50331648"), RO("S2", "50331648"), 1,
		"read-only disks of one size key alike, whatever their serials (as members do)");

#define NFS(threads, export, inforce) "{\"workload\":\"nfsmix\",\"nfsserver\":{\"status\":\"running\",\"threads\":" threads \
	",\"versions\":\"3\",\"transports\":\"tcp\",\"export\":\"" export "\",\"threads_in_force\":" inforce ",\"start_s\":0.5}}"
	a = tunables_of(NFS("8", "rw,sync", "8"));
	b = tunables_of(NFS("64", "rw,sync", "64"));
	c = tunables_of(NFS("8", "rw,async", "8"));
	ok(strcmp(a, b) != 0, "nfsd threads key the run (%s | %s)", a, b);
	ok(strcmp(a, c) != 0, "so do the export options (%s | %s)", a, c);
	is_str(a, "nfsd_threads=8 nfsd_versions=3 nfsd_transports=tcp nfsd_export=rw,sync", "what was asked, in a fixed order");
	free(b);
	b = tunables_of(NFS("8", "rw,sync", "7"));
	is_str(a, b, "what the kernel reports in force and start time do not key");
	free(a);
	free(b);
	free(c);
	a = tunables_of("{\"workload\":\"fio\",\"nfsclient\":{\"options\":\"vers=3,proto=tcp\"},\"tunables\":{\"requested\":{\"read_ahead_kb\":\"128\"}}}");
	is_str(a, "read_ahead_kb=128 nfs_client=\"vers=3,proto=tcp\"",
	       "a kernel client mount keys beside the tunables (quoted: its value holds '=')");
	free(a);
	a = tunables_of("{\"workload\":\"fio\",\"nfsclient\":{\"options\":\"\"}}");
	b = tunables_of("{\"workload\":\"fio\",\"profile\":1,\"delays\":{}}");
	ok(!strcmp(a, "nfs_client=\"\"") && !strcmp(b, "profile=on"),
	   "through the client with no options is still through the client (%s), and profile=on alone (%s)", a, b);
	free(a);
	free(b);
	/* perf: its rate and its call chains key the run (they cost and unwind differently) */
	a = tunables_of("{\"workload\":\"forkexec\",\"delays\":{},\"perf\":{\"asked\":true,\"frequency\":6000,"
			"\"source\":\"perf record -a -g --kernel-callchains -e cpu-clock -F 6000\"}}");
	b = tunables_of("{\"workload\":\"forkexec\",\"delays\":{},\"perf\":{\"asked\":true,\"frequency\":4000,"
			"\"source\":\"perf record -a -g -e cpu-clock -F 4000\"}}");
	c = tunables_of("{\"workload\":\"forkexec\",\"delays\":{},\"perf\":{\"asked\":true,\"available\":false}}");
	ok(!strcmp(a, "profile=perf perf_hz=6000") && !strcmp(b, "profile=perf perf_hz=4000 perf_chains=user") &&
	   !strcmp(c, "profile=perf"), "perf's rate and user chains key the run (%s | %s | %s)", a, b, c);
	free(a);
	free(b);
	free(c);
	a = tunables_of("{\"workload\":\"forkexec\",\"delays\":{},\"perf\":{\"asked\":true,\"frequency\":6000,"
			"\"source\":\"perf record -a -g --kernel-callchains -e cpu-clock/freq=6000/ -e cs/period=1/ "
			"--switch-events\"}}");
	b = tunables_of("{\"workload\":\"forkexec\",\"delays\":{},\"perf\":{\"asked\":true,\"offcpu_asked\":true,"
			"\"available\":false}}");
	c = tunables_of("{\"workload\":\"forkexec\",\"delays\":{},\"perf\":{\"asked\":true,\"frequency\":6000,"
			"\"source\":\"perf record -a -g --kernel-callchains -e cpu-clock/freq=6000/ (folded)\"}}");
	ok(!strcmp(a, "profile=perf perf_hz=6000 perf_offcpu=yes") && !strcmp(b, "profile=perf perf_offcpu=yes") &&
	   !strcmp(c, "profile=perf perf_hz=6000"),
	   "perf with every switch sampled (profile offcpu) keys apart, samples or none; perf alone does not (%s | %s | %s)",
	   a, b, c);
	free(a);
	free(b);
	free(c);
#define PGRUN(sw) "{\"workload\":\"pgbench\",\"details\":{\"tps\":1,\"software\":{\"postgresql\":\"" sw "\"}}}"
	a = tunables_of(PGRUN("postgresql-15 15.18-0+deb12u1 aaaa"));
	b = tunables_of(PGRUN("postgresql-15 15.18-0+deb12u1 bbbb"));
	c = tunables_of("{\"workload\":\"pgbench\",\"details\":{\"tps\":1}}");
	is_str(a, "software.postgresql=\"postgresql-15 15.18-0+deb12u1 aaaa\"", "the PostgreSQL build a run drove keys it");
	ok(strcmp(a, b) != 0, "two builds of one version never pool (%s | %s)", a, b);
	is_str(c, "-", "other details do not key");
	free(c);
	c = tunables_of("{\"workload\":\"dbt2\",\"details\":{\"fits_in_memory\":false}}");
	is_str(c, "fits_in_memory=false", "dbt2 cached and non-cached never pool");
	free(a);
	free(b);
	free(c);
	return tap_done();
}
