/*
 * plan.c - table tests for the plan parser: good plans with their parsed
 * fields, bad plans with the exact error line each one gets, and the order
 * plan_expand runs a matrix in (iterations, layouts reversed on even
 * iterations, tunable combinations with the last tunable fastest, workloads).
 */
#include "plan.h"
#include "units.h"
#include "sbuf.h"
#include "tap.h"

/* A check like the appliance's: knows "null" (no parameters) and "stream". */
static int check(const char *name, const struct kvpair *params, size_t n, char *err, size_t errlen)
{
	if (strcmp(name, "null") && strcmp(name, "touch") && strcmp(name, "stream") && strcmp(name, "nfsmix")) {
		snprintf(err, errlen, "unknown workload \"%s\" (valid: null stream touch nfsmix)", name);
		return -1;
	}
	for (size_t i = 0; i < n; i++)
		if (!strcmp(name, "nfsmix") && (!strcmp(params[i].key, "server") || !strcmp(params[i].key, "loads")))
			continue;
		else if (!strcmp(name, "null") || (strcmp(params[i].key, "size") && strcmp(params[i].key, "bs"))) {
			snprintf(err, errlen, "workload %s has no parameter \"%s\"", name, params[i].key);
			return -1;
		}
	return 0;
}

#define L "layout l fs=ext3\n"
#define W "workload null\n"

static const struct {
	const char *text;
	const char *err;
} bad[] = {
	/* lines, words, quotes */
	{ L "layout m fs=ext3 mkfs=\"-b 4096\n" W, "quick.plan:2: unterminated quote" },
	{ L "workload null\x01\n", "quick.plan:2: control character 0x01 in the plan" },
	{ L W "layouts x fs=ext3\n",
	  "quick.plan:3: unknown directive \"layouts\" (valid: plan, iterations, timeout, profile, requires, section, layout, tunable, workload, nfsserver, nfsclient)" },
	/* the NFS server of a section */
	{ L W "nfsserver\nnfsserver threads=4\n", "quick.plan:4: nfsserver given twice in this section (first on line 3)" },
	{ L W "nfsserver threads=0\n", "quick.plan:3: bad value for nfsserver threads: \"0\" (expected 1 to 1024)" },
	{ L W "nfsserver threads=1025\n", "quick.plan:3: bad value for nfsserver threads: \"1025\" (expected 1 to 1024)" },
	{ L W "nfsserver versions=4\n", "quick.plan:3: nfsserver versions=4: only 3 is served (NFSv4 needs rpc.idmapd and "
	  "nfsdcld, which come with nfs-utils; it cannot be built here)" },
	{ L W "nfsserver transports=sctp\n", "quick.plan:3: bad value for nfsserver transports: \"sctp\" (expected tcp, udp or tcp,udp)" },
	{ L W "nfsserver export=rw,fast\n", "quick.plan:3: bad nfsserver export options: unknown export option \"fast\" "
	  "(valid: rw ro sync async wdelay no_wdelay root_squash no_root_squash all_squash no_all_squash secure insecure "
	  "subtree_check no_subtree_check)" },
	{ L W "nfsserver export=rw,\n", "quick.plan:3: bad nfsserver export options: export options end in a comma" },
	{ L W "nfsserver port=2049\n", "quick.plan:3: nfsserver has no setting \"port\" (valid: threads versions transports export)" },
	{ L W "nfsserver tcp\n", "quick.plan:3: expected key=value, got \"tcp\" (nfsserver [threads=N] [versions=3] "
	  "[transports=tcp|udp|tcp,udp] [export=OPTIONS])" },
	/* nfsclient: only with a server, only options the appliance does not set */
	{ L W "nfsclient\n", "quick.plan:3: nfsclient needs nfsserver in the same plan (the client mounts that "
	  "server's export)" },
	{ L W "nfsserver\nnfsclient\nnfsclient\n", "quick.plan:5: nfsclient given twice in this section (first on line 4)" },
	{ L W "nfsserver\nnfsclient options=noac,port=2050\n",
	  "quick.plan:4: nfsclient options: port is not one a plan may set (caching, sizes, timeouts: docs/nfs.md; "
	  "vers, proto, addr, port and lock are the appliance's)" },
	{ L W "nfsserver\nnfsclient options=nolock\n",
	  "quick.plan:4: nfsclient options: nolock is not one a plan may set (caching, sizes, timeouts: docs/nfs.md; "
	  "vers, proto, addr, port and lock are the appliance's)" },
	{ L W "nfsserver\nnfsclient options=noac,v4.1\n",
	  "quick.plan:4: nfsclient options: v4.1 is not one a plan may set (caching, sizes, timeouts: docs/nfs.md; "
	  "vers, proto, addr, port and lock are the appliance's)" },
	{ L W "nfsserver\nnfsclient options=nfsvers=4\n",
	  "quick.plan:4: nfsclient options: nfsvers is not one a plan may set (caching, sizes, timeouts: docs/nfs.md; "
	  "vers, proto, addr, port and lock are the appliance's)" },
	{ L W "nfsserver\nnfsclient options=noac,,hard\n", "quick.plan:4: nfsclient options \"noac,,hard\": an empty option" },
	{ L W "nfsserver\nnfsclient options=noac,\n", "quick.plan:4: nfsclient options \"noac,\": an empty option" },
	{ L W "nfsserver\nnfsclient options=\"noac,context=a b\"\n",
	  "quick.plan:4: nfsclient options \"noac,context=a b\": only a-z 0-9 _ . = in an option" },
	{ L W "nfsserver\nnfsclient rsize=8192\n", "quick.plan:4: nfsclient has no setting \"rsize\" (valid: options)" },
	{ L W "nfsserver\nnfsclient noac\n", "quick.plan:4: expected key=value, got \"noac\" (nfsclient [options=OPTIONS])" },
	{ L W "nfsserver\nnfsclient options=\n", "quick.plan:4: nfsclient options needs a value" },
	{ L W "nfsserver\nnfsclient options=" "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
	  "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\n",
	  "quick.plan:4: nfsclient options: too long (at most 200 characters)" },
	{ L W "nfsserver transports=udp\nnfsclient\n", "quick.plan:4: nfsclient mounts over tcp (Debian's kernels have no NFS "
	  "client over udp): the nfsserver line needs transports=tcp or tcp,udp" },
	{ "section s\nlayout l fs=ext3\nnfsclient\nworkload null\n", "quick.plan:3: nfsclient needs nfsserver in the same "
	  "section (the client mounts that server's export)" },
	/* read-only layouts: the disk as it is */
	{ "layout u readonly=SER1 fs=ext2\n" W,
	  "quick.plan:1: fs is not allowed in a read-only layout (the disk is read as it is: no filesystem, RAID or "
	  "other setup)" },
	{ "layout u readonly=SER1 disks=1\n" W,
	  "quick.plan:1: disks is not allowed in a read-only layout (the disk is read as it is: no filesystem, RAID or "
	  "other setup)" },
	{ "layout u readonly=SER1 md=raid1 disks=2 fs=ext2\n" W, "quick.plan:1: md and readonly exclude each other "
	  "(one kind of layout per line)" },
	{ "layout u readonly=a,b\n" W, "quick.plan:1: bad value for readonly: \"a,b\" (expected a disk's serial, WWN "
	  "or by-path name, at most 255 characters, no blanks or commas)" },
	/* sections */
	{ L W "section s\n" L W, "quick.plan:3: section after a layout, tunable or workload outside any section "
	  "(line 1): in a plan with sections every one belongs to a section" },
	{ "section s\n" L W "section s\nlayout m fs=ext2\n" W, "quick.plan:4: section \"s\" already defined on line 1" },
	{ "section a\n" L W "section b\n" W, "quick.plan:4: section b has no layout" },
	{ "section a\n" L W "section b\nlayout m fs=ext2\n", "quick.plan:4: section b has no workload" },
	{ "section a\n" L W "section b\n" L W, "quick.plan:5: layout \"l\" already defined on line 2" },
	{ "section a b c\n" L W, "quick.plan:1: section takes a name and an optional quoted title: "
	  "section NAME [\"TITLE\"]" },
	{ W L "section s\n" L W, "quick.plan:3: section after a layout, tunable or workload outside any section "
	  "(line 1): in a plan with sections every one belongs to a section" },
	{ "section s x=y\n" L W, "quick.plan:1: section title \"x=y\" looks like key=value: quote the title" },
	{ "section a/b\n" L W,
	  "quick.plan:1: bad section name \"a/b\" (expected letters, digits and . _ -, at most 64 characters)" },
	{ "section a\n" L "tunable scheduler none\ntunable scheduler bfq\n" W,
	  "quick.plan:4: tunable scheduler already set on line 3" },
	/* plan, iterations, timeout */
	{ "plan a\nplan b\n" L W, "quick.plan:2: plan given twice (first on line 1)" },
	{ "plan\n" L W, "quick.plan:1: plan takes one value: plan NAME" },
	{ "plan a b\n" L W, "quick.plan:1: plan takes one value: plan NAME" },
	{ "plan a/b\n" L W,
	  "quick.plan:1: bad plan name \"a/b\" (expected letters, digits and . _ -, at most 64 characters)" },
	{ "iterations 0\n" L W, "quick.plan:1: bad value for iterations: \"0\" (expected a whole number from 1 to 1000)" },
	{ "iterations 1001\n" L W, "quick.plan:1: bad value for iterations: \"1001\" (expected a whole number from 1 to 1000)" },
	{ "iterations -1\n" L W, "quick.plan:1: bad value for iterations: \"-1\" (expected a whole number from 1 to 1000)" },
	{ "iterations 99999999999999999999999\n" L W,
	  "quick.plan:1: bad value for iterations: \"99999999999999999999999\" (expected a whole number from 1 to 1000)" },
	{ "iterations 2\n# again\niterations 3\n" L W, "quick.plan:3: iterations given twice (first on line 1)" },
	{ "timeout 0\n" L W, "quick.plan:1: bad value for timeout: \"0\" (expected seconds from 1 to 86400: a whole number, or one with ms, s, min or h)" },
	{ "timeout 86401\n" L W,
	  "quick.plan:1: bad value for timeout: \"86401\" (expected seconds from 1 to 86400: a whole number, or one with ms, s, min or h)" },
	{ "timeout 5m\n" L W, "quick.plan:1: bad value for timeout: \"5m\" (expected seconds from 1 to 86400: a whole number, or one with ms, s, min or h)" },
	{ "timeout\n" L W, "quick.plan:1: timeout takes one value: timeout SECONDS" },
	{ "profile yes\n" L W, "quick.plan:1: bad value for profile: \"yes\" (expected on, perf, offcpu or off)" },
	{ "profile on\nprofile off\n" L W, "quick.plan:2: profile given twice (first on line 1)" },
	{ "profile\n" L W, "quick.plan:1: profile takes one value: profile on|perf|offcpu|off" },
	/* requires */
	{ "requires\n" L W, "quick.plan:1: requires needs KEY=VALUE (layer=NAME[,NAME], memory=SIZE, disks=N, cpus=N)" },
	{ "requires layer\n" L W, "quick.plan:1: requires: \"layer\" is not KEY=VALUE" },
	{ "requires layer=Pg\n" L W, "quick.plan:1: requires: bad layer name \"Pg\" (a-z, 0-9 and -, at most 32)" },
	{ "requires layer=a,,b\n" L W, "quick.plan:1: requires: bad layer name \"\" (a-z, 0-9 and -, at most 32)" },
	{ "requires layer=a\nrequires layer=b\n" L W, "quick.plan:2: requires: layer given twice (name several as layer=A,B)" },
	{ "requires layer=a,b,c,d,e\n" L W, "quick.plan:1: requires: at most 4 layers" },
	{ "requires memory=1\n" L W, "quick.plan:1: requires: bad memory \"1\" (" SIZE_HELP ", at least 1M)" },
	{ "requires memory=1G memory=2G\n" L W, "quick.plan:1: requires: memory given twice" },
	{ "requires disks=0\n" L W, "quick.plan:1: requires: bad disks \"0\" (a whole number from 1 to 1024)" },
	{ "requires cpus=x\n" L W, "quick.plan:1: requires: bad cpus \"x\" (a whole number from 1 to 1024)" },
	{ "requires gpu=1\n" L W, "quick.plan:1: requires: unknown key \"gpu\" (valid: layer, memory, disks, cpus)" },
	/* seconds are a duration, not a size: 2K was 2048 s once */
	{ "timeout 2K\n" L W, "quick.plan:1: bad value for timeout: \"2K\" (expected seconds from 1 to 86400: a whole number, or one with ms, s, min or h)" },
	{ "timeout 1500ms\n" L W, "quick.plan:1: bad value for timeout: \"1500ms\" (expected seconds from 1 to 86400: a whole number, or one with ms, s, min or h)" },
	{ "timeout 99999999999999999999\n" L W, "quick.plan:1: bad value for timeout: \"99999999999999999999\" (expected seconds from 1 to 86400: a whole number, or one with ms, s, min or h)" },
	/* layout names and keys */
	{ "layout\n" W, "quick.plan:1: layout needs a name: layout NAME key=value..." },
	{ "layout fs=ext3\n" W, "quick.plan:1: layout needs a name: layout NAME key=value..." },
	{ "layout a/b fs=ext3\n" W,
	  "quick.plan:1: bad layout name \"a/b\" (expected letters, digits and . _ -, at most 64 characters)" },
	{ L W "layout l fs=xfs\n", "quick.plan:3: layout \"l\" already defined on line 1" },
	{ "plan quick\niterations 1\n\n# layouts\n" L "layout r0 md=raid0 disks=2 fs=ext2\n"
	  "layout r5 md=raid5 disks=3 chunks=64K fs=ext2\n" W,
	  "quick.plan:7: unknown layout key \"chunks\" (valid: md, disks, chunk, resync, ramdisk, tmpfs, fs, mkfs, mount, readonly)" },
	{ "layout a fs=ext3 noatime\n" W, "quick.plan:1: expected key=value, got \"noatime\" (layout NAME key=value...)" },
	{ "layout a fs=ext3 fs=xfs\n" W, "quick.plan:1: layout key fs given twice" },
	{ "layout a fs=ext3 mount=\n" W, "quick.plan:1: layout key mount needs a value (mount=...)" },
	{ "layout a fs=ext3 mount=\"\"\n" W, "quick.plan:1: layout key mount needs a value (mount=...)" },
	/* kinds */
	{ "layout a md=raid6 disks=4 fs=ext3\n" W,
	  "quick.plan:1: bad value for md: \"raid6\" (expected one of raid0|raid1|raid5)" },
	{ "layout a md=raid1 disks=2 ramdisk=64M fs=ext3\n" W,
	  "quick.plan:1: md and ramdisk exclude each other (one kind of layout per line)" },
	{ "layout a ramdisk=64M tmpfs=64M\n" W,
	  "quick.plan:1: ramdisk and tmpfs exclude each other (one kind of layout per line)" },
	/* disks */
	{ "layout a md=raid1 fs=ext3\n" W, "quick.plan:1: md=raid1 needs disks=N (at least 2)" },
	{ "layout a md=raid0 disks=1 fs=ext3\n" W, "quick.plan:1: md=raid0 needs at least 2 disks (disks=1)" },
	{ "layout a md=raid5 disks=2 fs=ext3\n" W, "quick.plan:1: md=raid5 needs at least 3 disks (disks=2)" },
	{ "layout a disks=2 fs=ext3\n" W,
	  "quick.plan:1: a disk layout uses exactly one disk (disks=2; for more, add md=raid0|raid1|raid5)" },
	{ "layout a disks=0 fs=ext3\n" W, "quick.plan:1: bad value for disks: \"0\" (expected a whole number from 1 to 64)" },
	{ "layout a disks=two fs=ext3\n" W,
	  "quick.plan:1: bad value for disks: \"two\" (expected a whole number from 1 to 64)" },
	{ "layout a ramdisk=64M disks=1 fs=ext3\n" W,
	  "quick.plan:1: disks applies to disk and md layouts only (this is a ramdisk layout)" },
	/* chunk */
	{ "layout a md=raid1 disks=2 chunk=64K fs=ext3\n" W,
	  "quick.plan:1: chunk applies to md=raid0 and md=raid5 layouts only" },
	{ "layout a chunk=64K fs=ext3\n" W, "quick.plan:1: chunk applies to md=raid0 and md=raid5 layouts only" },
	{ "layout a md=raid0 disks=2 chunk=100K fs=ext3\n" W,
	  "quick.plan:1: bad value for chunk: \"100K\" (expected a power of two from 4K to 16M)" },
	{ "layout a md=raid0 disks=2 chunk=32M fs=ext3\n" W,
	  "quick.plan:1: bad value for chunk: \"32M\" (expected a power of two from 4K to 16M)" },
	{ "layout a md=raid0 disks=2 chunk=2K fs=ext3\n" W,
	  "quick.plan:1: bad value for chunk: \"2K\" (expected a power of two from 4K to 16M)" },
	/* resync */
	{ "layout a md=raid1 disks=2 resync=later fs=ext3\n" W,
	  "quick.plan:1: bad value for resync: \"later\" (expected one of assume-clean|wait|skip)" },
	{ "layout a resync=wait fs=ext3\n" W, "quick.plan:1: resync applies to md layouts only (this is a disk layout)" },
	/* sizes */
	{ "layout a ramdisk=12Q fs=ext3\n" W,
	  "quick.plan:1: bad value for ramdisk: \"12Q\" (expected a size from 1M to 1024G, a multiple of 4K; bytes or K, M, G)" },
	{ "layout a tmpfs=512K\n" W,
	  "quick.plan:1: bad value for tmpfs: \"512K\" (expected a size from 1M to 1024G, a multiple of 4K; bytes or K, M, G)" },
	{ "layout a tmpfs=2000000\n" W,
	  "quick.plan:1: bad value for tmpfs: \"2000000\" (expected a size from 1M to 1024G, a multiple of 4K; bytes or K, M, G)" },
	{ "layout a ramdisk=64MB fs=ext3\n" W,
	  "quick.plan:1: bad value for ramdisk: \"64MB\" (expected a size from 1M to 1024G, a multiple of 4K; bytes or K, M, G)" },
	{ "layout a ramdisk=9000000000T fs=ext3\n" W,
	  "quick.plan:1: bad value for ramdisk: \"9000000000T\" (expected a size from 1M to 1024G, a multiple of 4K; bytes or K, M, G)" },
	{ "layout a md=raid0 disks=2 chunk=99999999999999999999K fs=ext3\n" W,
	  "quick.plan:1: bad value for chunk: \"99999999999999999999K\" (expected a power of two from 4K to 16M)" },
	{ "layout a ramdisk=99999999999999G fs=ext3\n" W,
	  "quick.plan:1: bad value for ramdisk: \"99999999999999G\" (expected a size from 1M to 1024G, a multiple of 4K; bytes or K, M, G)" },
	/* fs, mkfs, mount */
	{ "layout a tmpfs=64M fs=ext3\n" W, "quick.plan:1: fs is not allowed in a tmpfs layout (its filesystem is tmpfs)" },
	{ "layout a tmpfs=64M mkfs=-F\n" W, "quick.plan:1: mkfs is not allowed in a tmpfs layout (its filesystem is tmpfs)" },
	{ "layout a\n" W, "quick.plan:1: a disk layout needs fs=none|ext2|ext3|ext4|xfs" },
	{ "layout a md=raid1 disks=2\n" W, "quick.plan:1: a md layout needs fs=none|ext2|ext3|ext4|xfs" },
	{ "layout a ramdisk=64M\n" W, "quick.plan:1: a ramdisk layout needs fs=none|ext2|ext3|ext4|xfs" },
	{ "layout a fs=btrfs\n" W, "quick.plan:1: bad value for fs: \"btrfs\" (expected one of none|ext2|ext3|ext4|xfs)" },
	{ "layout a fs=none mkfs=\"-b 4096\"\n" W, "quick.plan:1: mkfs needs a filesystem (this layout has fs=none)" },
	{ "layout a fs=none mount=noatime\n" W, "quick.plan:1: mount needs a filesystem (this layout has fs=none)" },
	/* tunables */
	{ L W "tunable\n", "quick.plan:3: tunable needs a name and values: tunable NAME VALUE..." },
	{ L W "tunable elevator none\n",
	  "quick.plan:3: unknown tunable \"elevator\" (valid: scheduler, read_ahead_kb, nr_requests, queue_depth, "
	  "vm.dirty_ratio, vm.dirty_background_ratio, vm.dirty_expire_centisecs, vm.dirty_writeback_centisecs, vm.swappiness, "
	  "vm.vfs_cache_pressure, vm.min_free_kbytes)" },
	{ L W "tunable vm.swappiness 201\n",
	  "quick.plan:3: bad value for tunable vm.swappiness: \"201\" (expected a whole number from 0 to 200, or default)" },
	{ L W "tunable vm.dirty_ratio default 10 default\n", "quick.plan:3: tunable vm.dirty_ratio lists \"default\" twice" },
	{ L W "tunable scheduler\n", "quick.plan:3: tunable scheduler needs at least one value" },
	{ L W "tunable read_ahead_kb 0 1 2 3 4 5 6 7 8\n", "quick.plan:3: tunable read_ahead_kb has more than 8 values" },
	{ L W "tunable scheduler none\ntunable scheduler bfq\n", "quick.plan:4: tunable scheduler already set on line 3" },
	{ L W "tunable scheduler MQ-deadline\n",
	  "quick.plan:3: bad value for tunable scheduler: \"MQ-deadline\" (expected a name of a-z, 0-9, _ and -, at most 64 characters, or default)" },
	{ L W "tunable read_ahead_kb 0 -1\n",
	  "quick.plan:3: bad value for tunable read_ahead_kb: \"-1\" (expected a whole number from 0 to 1048576, or default)" },
	{ L W "tunable nr_requests 2\n",
	  "quick.plan:3: bad value for tunable nr_requests: \"2\" (expected a whole number from 4 to 65536, or default)" },
	{ L W "tunable queue_depth 0\n",
	  "quick.plan:3: bad value for tunable queue_depth: \"0\" (expected a whole number from 1 to 65536, or default)" },
	{ L W "tunable scheduler none bfq none\n", "quick.plan:3: tunable scheduler lists \"none\" twice" },
	/* workloads */
	{ L "workload\n", "quick.plan:2: workload needs a name: workload NAME key=value..." },
	{ L "workload Stream\n",
	  "quick.plan:2: bad workload name \"Stream\" (expected a-z, 0-9, _ and -, at most 64 characters)" },
	{ L "workload stream 64M\n", "quick.plan:2: expected key=value, got \"64M\" (workload NAME key=value...)" },
	{ L "workload stream size=1M size=2M\n", "quick.plan:2: workload parameter size given twice" },
	{ L "workload stream size=\n", "quick.plan:2: workload parameter size needs a value (size=...)" },
	{ L "workload stream Size=1M\n",
	  "quick.plan:2: bad workload parameter name \"Size\" (expected a-z, 0-9 and _, at most 64 characters)" },
	{ L "workload stream a=1 b=1 c=1 d=1 e=1 f=1 g=1 h=1 i=1 j=1 k=1 l=1 m=1 n=1 o=1 p=1 q=1\n",
	  "quick.plan:2: workload stream has more than 16 parameters" },
	{ L "workload nope\n", "quick.plan:2: unknown workload \"nope\" (valid: null stream touch nfsmix)" },
	{ L "workload stream sise=1M\n", "quick.plan:2: workload stream has no parameter \"sise\"" },
	/* the plan as a whole */
	{ "# nothing but\n\n" W, "quick.plan: plan has no layout" },
	{ L, "quick.plan: plan has no workload" },
	{ "", "quick.plan: plan has no layout" },
	{ "iterations 1000\n" L "workload null\nworkload touch\n"
	  "tunable read_ahead_kb 0 1 2 3 4 5 6 7\ntunable nr_requests 4 5 6 7 8 9 10 11\n",
	  "quick.plan: plan expands to 128000 runs (at most 100000)" },
};

static void good_plans(void)
{
	static const char text[] =
		"# a plan with everything in it\r\n"
		"plan Full.plan-1   # trailing comment\r\n"
		"iterations 3\n"
		"timeout 90\n"
		"profile on\n"
		"requires layer=postgresql,x-1 memory=1G\n"
		"requires disks=2 cpus=1\n"
		"\n"
		"  \t\n"
		"layout r1 md=raid1 disks=2 fs=ext3 mkfs=\"-b 4096 -O ^has_journal\" mount=\"noatime,data=ordered\"\n"
		"layout r5 md=raid5 disks=3 chunk=128K resync=wait fs=xfs\n"
		"layout raw fs=none\n"
		"layout ram ramdisk=256M fs=ext2\n"
		"layout tmp tmpfs=1048576 mount=\"size=1m # not a comment\"\n"
		"tunable scheduler mq-deadline none\n"
		"tunable read_ahead_kb 0 256 default\n"
		"workload null\n"
		"workload stream size=64M bs=\"1M\"";	/* no final newline */
	struct plan p;
	char err[512] = "";
	int rc = plan_parse("dir/full.plan", text, strlen(text), check, &p, err, sizeof err);

	is_int(rc, 0, "full plan parses");
	if (rc) {
		printf("#   %s\n", err);
		return;
	}
	is_str(p.name, "Full.plan-1", "plan name");
	is_int(p.iterations, 3, "iterations");
	is_int(p.timeout_s, 90, "timeout");
	is_int(p.profile, 1, "profile on");
	is_int(p.req.line, 6, "requires: its first line");
	is_int(p.req.nlayers, 2, "requires: two layers");
	is_str(p.req.layers[1], "x-1", "requires: the second layer");
	is_int(p.req.memory, 1ULL << 30, "requires: memory in bytes");
	is_int(p.req.disks * 10 + p.req.cpus, 21, "requires: disks and cpus, over two lines");
	is_int(p.nlayouts, 5, "five layouts");
	is_int(p.layouts[0].kind, LAYOUT_MD, "r1: md kind");
	is_str(p.layouts[0].md_level, "raid1", "r1: level");
	is_int(p.layouts[0].ndisks, 2, "r1: disks");
	is_int(p.layouts[0].chunk, 0, "r1: chunk left to mdadm");
	is_str(p.layouts[0].resync, "assume-clean", "r1: resync default");
	is_str(p.layouts[0].fs, "ext3", "r1: fs");
	is_str(p.layouts[0].mkfs, "-b 4096 -O ^has_journal", "r1: quoted mkfs, quotes removed");
	is_str(p.layouts[0].mount, "noatime,data=ordered", "r1: mount value keeps its '='");
	is_int(p.layouts[0].line, 10, "r1: line");
	is_int(p.layouts[1].ndisks, 3, "r5: disks");
	is_int(p.layouts[1].chunk, 128 * 1024, "r5: chunk in bytes");
	is_str(p.layouts[1].resync, "wait", "r5: resync");
	ok(!p.layouts[1].mkfs && !p.layouts[1].mount, "r5: no mkfs/mount: the pinned defaults");
	is_int(p.layouts[2].kind, LAYOUT_DISK, "raw: disk kind");
	is_int(p.layouts[2].ndisks, 1, "raw: one disk by default");
	is_str(p.layouts[2].fs, "none", "raw: fs=none");
	ok(!p.layouts[2].md_level && !p.layouts[2].resync, "raw: no md fields");
	is_int(p.layouts[3].kind, LAYOUT_RAMDISK, "ram: ramdisk kind");
	is_int(p.layouts[3].size, 256ULL << 20, "ram: size in bytes");
	is_int(p.layouts[3].ndisks, 0, "ram: needs no disk");
	is_int(p.layouts[4].kind, LAYOUT_TMPFS, "tmp: tmpfs kind");
	is_int(p.layouts[4].size, 1048576, "tmp: plain bytes");
	is_str(p.layouts[4].fs, "tmpfs", "tmp: fs is tmpfs");
	is_str(p.layouts[4].mount, "size=1m # not a comment", "tmp: '#' inside quotes is not a comment");
	is_int(p.ntunables, 2, "two tunables");
	is_str(p.tunables[1].name, "read_ahead_kb", "tunable name");
	is_int(p.tunables[1].nvalues, 3, "tunable value count");
	is_str(p.tunables[1].values[2], "default", "tunable value default: the kernel's own");
	is_int(plan_tunable_combos(&p.sections[0]), 6, "2 x 3 tunable combinations");
	is_int(p.nworkloads, 2, "two workloads");
	is_int(p.workloads[1].nparams, 2, "stream: two parameters");
	is_str(p.workloads[1].params[0].key, "size", "stream: first key");
	is_str(p.workloads[1].params[0].val, "64M", "stream: first value");
	is_str(p.workloads[1].params[1].val, "1M", "stream: quoted value");
	is_int(p.workloads[1].line, 18, "stream: line (last line, no newline)");
	plan_free(&p);
	ok(p.name == NULL && p.nlayouts == 0, "plan_free empties the plan");

	{
		/* the size grammar is the one of `bootbench run`: 64MiB is 64M */
		static const char t4[] = "timeout 10min\nlayout t tmpfs=64MiB\nlayout r ramdisk=1GiB fs=ext2\nworkload null\n";
		rc = plan_parse("u.plan", t4, strlen(t4), NULL, &p, err, sizeof err);
		is_int(rc, 0, "timeout 10min, tmpfs=64MiB and ramdisk=1GiB parse");
		if (!rc) {
			is_int(p.timeout_s, 600, "timeout 10min is 600 s");
			is_int(p.layouts[0].size, 64ULL << 20, "tmpfs=64MiB is 64 MiB");
			is_int(p.layouts[1].size, 1ULL << 30, "ramdisk=1GiB is 1 GiB");
			plan_free(&p);
		}
	}
	{
		static const char t2[] = "layout t tmpfs=16m\nworkload null\n";
		rc = plan_parse("plans/null.plan", t2, strlen(t2), NULL, &p, err, sizeof err);
		is_int(rc, 0, "minimal plan parses without a check");
		if (!rc) {
			is_str(p.name, "null", "default name: file name without .plan");
			is_int(p.iterations, 1, "default iterations");
			is_int(p.timeout_s, 600, "default timeout");
			is_int(p.profile, 0, "profile off by default");
			is_int(plan_tunable_combos(&p.sections[0]), 1, "no tunables: one combination");
			plan_free(&p);
		}
	}
	{
		static const char t3[] = "layout r md=raid5 disks=3 fs=ext4\nworkload anything x=1\n";
		rc = plan_parse("p", t3, strlen(t3), NULL, &p, err, sizeof err);
		is_int(rc, 0, "without a check any workload name is accepted");
		if (!rc) {
			is_str(p.name, "p", "default name without .plan suffix");
			plan_free(&p);
		}
	}
}

/* "ITER LAYOUT SCHED RA WORKLOAD FLAGS" for every run. */
/* nfsserver: the section's settings, defaults where unsaid, one per section */
static void nfsserver(void)
{
	struct plan p;
	char err[512] = "";
	const char *t = "section a\nlayout l fs=ext3\nnfsserver threads=16 transports=tcp,udp export=ro,async\n"
			"workload null\nsection b\nlayout m fs=xfs\nworkload null\nsection c\nnfsserver\nlayout n fs=ext2\n"
			"workload null\n";
	int rc = plan_parse("nfs.plan", t, strlen(t), check, &p, err, sizeof err);
	ok(rc == 0 && p.sections[0].nfs.line == 3 && p.sections[0].nfs.threads == 16 &&
	   !strcmp(p.sections[0].nfs.transports, "tcp,udp") && !strcmp(p.sections[0].nfs.export, "ro,async") &&
	   !strcmp(p.sections[0].nfs.versions, "3"), "nfsserver: the section's settings (%s)", err);
	ok(rc == 0 && p.sections[1].nfs.line == 0, "a section without nfsserver has none");
	ok(rc == 0 && p.sections[2].nfs.line == 9 && p.sections[2].nfs.threads == 8 &&
	   !strcmp(p.sections[2].nfs.transports, "tcp") &&
	   !strcmp(p.sections[2].nfs.export, "rw,sync,no_wdelay,no_root_squash,no_subtree_check,insecure"),
	   "nfsserver with no settings: 8 threads, tcp, the seed's sync export");
	ok(rc == 0 && !p.sections[0].nfsc.line, "nfsserver alone: no kernel client");
	if (rc == 0)
		plan_free(&p);
	t = "section a\nlayout l fs=ext3\nnfsserver\nnfsclient options=noac,rsize=32768\nworkload null\n"
	    "workload nfsmix server=192.0.2.1:/x\n"
	    "section b\nlayout m fs=ext3\nnfsserver\nnfsclient\nworkload null\n";
	rc = plan_parse("nfs.plan", t, strlen(t), check, &p, err, sizeof err);
	ok(rc == 0 && p.sections[0].nfsc.line == 4 && !strcmp(p.sections[0].nfsc.options, "noac,rsize=32768") &&
	   p.sections[1].nfsc.line == 10 && !strcmp(p.sections[1].nfsc.options, ""),
	   "nfsclient: the options given, or none; nfsmix at a lab server beside it (%s)", err);
	if (rc == 0)
		plan_free(&p);
}

static void expand_order(void)
{
	static const char text[] =
		"iterations 2\n"
		"layout A fs=ext2\n"
		"layout B tmpfs=16M\n"
		"tunable scheduler mq-deadline none\n"
		"tunable read_ahead_kb 0 256\n"
		"workload null\n"
		"workload touch\n";
	static const char *const want[] = {
		"1 A mq-deadline 0 null F",	"1 A mq-deadline 0 touch -",
		"1 A mq-deadline 256 null -",	"1 A mq-deadline 256 touch -",
		"1 A none 0 null -",		"1 A none 0 touch -",
		"1 A none 256 null -",		"1 A none 256 touch L",
		"1 B mq-deadline 0 null F",	"1 B mq-deadline 0 touch -",
		"1 B mq-deadline 256 null -",	"1 B mq-deadline 256 touch -",
		"1 B none 0 null -",		"1 B none 0 touch -",
		"1 B none 256 null -",		"1 B none 256 touch L",
		"2 B mq-deadline 0 null F",	"2 B mq-deadline 0 touch -",
		"2 B mq-deadline 256 null -",	"2 B mq-deadline 256 touch -",
		"2 B none 0 null -",		"2 B none 0 touch -",
		"2 B none 256 null -",		"2 B none 256 touch L",
		"2 A mq-deadline 0 null F",	"2 A mq-deadline 0 touch -",
		"2 A mq-deadline 256 null -",	"2 A mq-deadline 256 touch -",
		"2 A none 0 null -",		"2 A none 0 touch -",
		"2 A none 256 null -",		"2 A none 256 touch L",
	};
	struct plan p;
	struct plan_run *r;
	char err[512];
	size_t n;

	if (plan_parse("order.plan", text, strlen(text), check, &p, err, sizeof err) < 0) {
		ok(0, "order plan parses: %s", err);
		return;
	}
	n = plan_expand(&p, &r);
	is_int(n, 32, "2 iterations x 2 layouts x 4 tunable sets x 2 workloads = 32 runs");
	for (size_t i = 0; i < n && i < 32; i++) {
		char got[128];
		snprintf(got, sizeof got, "%u %s %s %s %s %s", r[i].iteration, r[i].layout->name,
			 plan_tunable_value(&p.sections[0], r[i].tunables_index, 0), plan_tunable_value(&p.sections[0], r[i].tunables_index, 1),
			 r[i].workload->name,
			 r[i].first_of_layout ? (r[i].last_of_layout ? "FL" : "F") : r[i].last_of_layout ? "L" : "-");
		is_str(got, want[i], "run %zu", i + 1);
	}
	free(r);
	plan_free(&p);

	{
		static const char t[] = "iterations 3\nlayout A fs=none\nlayout B fs=none\nlayout C fs=none\nworkload null\n";
		struct sbuf sb = {0};
		plan_parse("abc.plan", t, strlen(t), NULL, &p, err, sizeof err);
		n = plan_expand(&p, &r);
		for (size_t i = 0; i < n; i++)
			sb_printf(&sb, "%u%s%s ", r[i].iteration, r[i].layout->name,
				  r[i].first_of_layout && r[i].last_of_layout ? "" : "?");
		is_str(sb.s, "1A 1B 1C 2C 2B 2A 3A 3B 3C ",
		       "odd iterations forward, even reversed; one-run blocks are first and last");
		sb_free(&sb);
		free(r);
		plan_free(&p);
	}
	{
		/* value counts 2, 3, 2: combination 7 = digits (1, 0, 1) */
		static const char t[] = "layout A fs=none\nworkload null\n"
					"tunable scheduler a b\ntunable nr_requests 4 8 16\ntunable queue_depth 1 2\n";
		plan_parse("digits.plan", t, strlen(t), NULL, &p, err, sizeof err);
		is_int(plan_tunable_combos(&p.sections[0]), 12, "2 x 3 x 2 combinations");
		is_str(plan_tunable_value(&p.sections[0], 7, 0), "b", "combination 7, first tunable");
		is_str(plan_tunable_value(&p.sections[0], 7, 1), "4", "combination 7, second tunable");
		is_str(plan_tunable_value(&p.sections[0], 7, 2), "2", "combination 7, last tunable (fastest)");
		is_str(plan_tunable_value(&p.sections[0], 11, 1), "16", "last combination");
		plan_free(&p);
	}
}

/* Sections: each its own matrix; iterations outermost, the layouts of all
 * sections in plan order (reversed on even iterations), each with its own
 * section's tunables and workloads. */
static void sections(void)
{
	static const char text[] =
		"plan seeds\niterations 2\n"
		"section one \"the first \"\"report\"\n"
		"layout a fs=ext2\nlayout b fs=ext3\n"
		"tunable scheduler none bfq\n"
		"workload null\n"
		"section two\n"
		"layout c fs=xfs\n"
		"tunable scheduler mq-deadline\ntunable read_ahead_kb 0 256\n"
		"workload touch\nworkload stream size=1M\n";
	static const char *want[] = {
		"1 one a none null", "1 one a bfq null", "1 one b none null", "1 one b bfq null",
		"1 two c mq-deadline,0 touch", "1 two c mq-deadline,0 stream", "1 two c mq-deadline,256 touch",
		"1 two c mq-deadline,256 stream",
		"2 two c mq-deadline,0 touch", "2 two c mq-deadline,0 stream", "2 two c mq-deadline,256 touch",
		"2 two c mq-deadline,256 stream",
		"2 one b none null", "2 one b bfq null", "2 one a none null", "2 one a bfq null",
	};
	struct plan p;
	struct plan_run *r;
	char err[512], line[128];
	size_t n, wrong = 0, firsts = 0;

	if (plan_parse("seeds.plan", text, sizeof text - 1, check, &p, err, sizeof err) < 0) {
		printf("# %s\n", err);
		for (int i = 0; i < 7; i++)
			ok(0, "sections: the plan parses");
		return;
	}
	is_int(p.nsections, 2, "sections: two");
	is_str(p.sections[0].title, "the first report", "sections: a title is one quoted word, quotes removed");
	is_int(p.sections[1].ntunables * 10 + p.sections[1].nworkloads, 22,
	       "sections: the second has its own two tunables and two workloads");
	is_int(plan_run_count(&p), 16, "sections: 2 x (2 x 2 x 1 + 1 x 2 x 2) runs");
	n = plan_expand(&p, &r);
	is_int(n, 16, "sections: plan_expand gives them all");
	for (size_t i = 0; i < n && i < 16; i++) {
		const struct plan_section *s = r[i].section;
		size_t o = (size_t)snprintf(line, sizeof line, "%u %s %s ", r[i].iteration, s->name, r[i].layout->name);
		for (size_t t = 0; t < s->ntunables; t++)
			o += (size_t)snprintf(line + o, sizeof line - o, "%s%s", t ? "," : "",
					      plan_tunable_value(s, r[i].tunables_index, t));
		snprintf(line + o, sizeof line - o, " %s", r[i].workload->name);
		if (strcmp(line, want[i])) {
			printf("# run %zu: got \"%s\", want \"%s\"\n", i + 1, line, want[i]);
			wrong++;
		}
		firsts += (size_t)r[i].first_of_layout;
	}
	is_int(wrong, 0, "sections: runs in order, each with its own section's tunables and workloads");
	is_int(firsts, 6, "sections: each layout built once an iteration");
	free(r);
	plan_free(&p);
}

/* A plan without sections whose first line is a workload (or a tunable):
 * the one section must start at it, not one past it. */
static void workload_first(void)
{
	static const char text[] = "workload null\ntunable scheduler none\nlayout a fs=none\nworkload touch\n";
	struct plan p;
	struct plan_run *r;
	char err[512];
	size_t n;
	if (plan_parse("w.plan", text, sizeof text - 1, check, &p, err, sizeof err) < 0) {
		printf("# %s\n", err);
		ok(0, "a plan starting with a workload runs its workloads in order");
		return;
	}
	n = plan_expand(&p, &r);
	ok(n == 2 && !strcmp(r[0].workload->name, "null") && !strcmp(r[1].workload->name, "touch") &&
	   r[0].section->ntunables == 1, "a plan starting with a workload runs its workloads in order");
	free(r);
	plan_free(&p);
}

static void readonly_layout(void)
{
	static const char text[] = "layout user readonly=S1\nworkload null\n";
	struct plan p;
	char err[512];
	if (plan_parse("ro.plan", text, sizeof text - 1, check, &p, err, sizeof err) < 0) {
		printf("# %s\n", err);
		ok(0, "read-only layout parses");
		return;
	}
	ok(p.layouts[0].kind == LAYOUT_READONLY && !strcmp(p.layouts[0].readonly, "S1") && !strcmp(p.layouts[0].fs, "none")
	   && p.layouts[0].ndisks == 0, "read-only layout: kind, disk id, no filesystem, no claimed disks");
	plan_free(&p);
}

/* Limits on counts, built rather than written out. */
static void limits(void)
{
	struct sbuf sb = {0};
	struct plan p;
	char err[512];
	int rc;

	for (int i = 0; i < PLAN_MAX_LAYOUTS; i++)
		sb_printf(&sb, "layout l%d fs=none\n", i);
	sb_puts(&sb, "workload null\n");
	rc = plan_parse("max.plan", sb.s, sb.len, check, &p, err, sizeof err);
	is_int(rc, 0, "%d layouts accepted", PLAN_MAX_LAYOUTS);
	if (!rc)
		plan_free(&p);
	sb_puts(&sb, "layout one-more fs=none\n");
	plan_parse("max.plan", sb.s, sb.len, check, &p, err, sizeof err);
	is_str(err, "max.plan:34: more than 32 layouts", "layout limit");

	sb_reset(&sb);
	sb_puts(&sb, "layout a fs=none\n");
	for (int i = 0; i <= PLAN_MAX_WORKLOADS; i++)
		sb_puts(&sb, "workload null\n");
	plan_parse("max.plan", sb.s, sb.len, check, &p, err, sizeof err);
	is_str(err, "max.plan:34: more than 32 workloads", "workload limit");

	sb_reset(&sb);
	sb_puts(&sb, "layout a fs=ext4 mkfs=\"");
	for (int i = 0; i < PLAN_MAX_VALUE + 1; i++)
		sb_putc(&sb, 'x');
	sb_puts(&sb, "\"\nworkload null\n");
	plan_parse("max.plan", sb.s, sb.len, check, &p, err, sizeof err);
	is_str(err, "max.plan:1: value of mkfs is longer than 255 characters", "value length limit");

	sb_reset(&sb);
	sb_puts(&sb, "plan ");
	for (int i = 0; i < PLAN_MAX_NAME + 1; i++)
		sb_putc(&sb, 'n');
	sb_puts(&sb, "\nlayout a fs=none\nworkload null\n");
	plan_parse("max.plan", sb.s, sb.len, check, &p, err, sizeof err);
	ok(!strncmp(err, "max.plan:1: bad plan name \"nnn", 30), "name length limit");

	/* 16 sections, not 17; 32 tunable lines over all sections, not 33 */
	sb_reset(&sb);
	for (int i = 0; i <= PLAN_MAX_SECTIONS; i++)
		sb_printf(&sb, "section s%d\nlayout l%d fs=none\nworkload null\n", i, i);
	plan_parse("max.plan", sb.s, sb.len, check, &p, err, sizeof err);
	is_str(err, "max.plan:49: more than 16 sections", "section limit");
	sb_reset(&sb);
	for (int i = 0; i < 9; i++)
		sb_printf(&sb, "section s%d\nlayout l%d fs=none\ntunable scheduler a\ntunable read_ahead_kb 0\n"
			  "tunable nr_requests 4\ntunable queue_depth 1\nworkload null\n", i, i);
	plan_parse("max.plan", sb.s, sb.len, check, &p, err, sizeof err);
	is_str(err, "max.plan:59: more than 32 tunables (all sections together)", "tunable lines limit, over all sections");

	/* NUL bytes inside the buffer are bad input, not an end of text */
	rc = plan_parse("nul.plan", "layout a fs=none\nworkload null\n\0x", 33, check, &p, err, sizeof err);
	is_str(err, "nul.plan:3: control character 0x00 in the plan", "NUL byte rejected");
	sb_free(&sb);
}

/* profile off|on|perf|offcpu: perf is a level of its own, the command line's
 * word reads the same way, and anything else is off. */
static void profile_levels(void)
{
	static const char text[] = "profile perf\nlayout t tmpfs=1M\nworkload null\n";
	struct plan p;
	char err[512] = "";
	int rc = plan_parse("p.plan", text, strlen(text), check, &p, err, sizeof err);
	is_int(rc, 0, "profile perf parses");
	is_int(rc ? -1 : p.profile, PROFILE_PERF, "profile perf: the perf level");
	if (!rc)
		plan_free(&p);
	is_int(profile_level("on"), PROFILE_TICK, "profile_level(on): the tick profile");
	is_int(profile_level("off"), PROFILE_OFF, "profile_level(off)");
	is_int(profile_level("bogus"), -1, "profile_level of another word: -1, for the caller to refuse");
	is_str(profile_name(PROFILE_PERF), "perf", "profile_name(PROFILE_PERF)");
	is_int(profile_level("offcpu"), PROFILE_OFFCPU, "profile_level(offcpu): perf and every switch, above perf");
	is_str(profile_name(PROFILE_OFFCPU), "offcpu", "profile_name(PROFILE_OFFCPU)");
}

int main(void)
{
	size_t nbad = sizeof bad / sizeof *bad;
	char err[512];
	struct plan p;

	tap_plan(nbad * 2 + 53 + 33 + 6 + 7 + 7 + 1 + 1 + 6 + 1 + 5 + 8);
	good_plans();
	for (size_t i = 0; i < nbad; i++) {
		int rc;
		strcpy(err, "(no message)");
		rc = plan_parse("quick.plan", bad[i].text, strlen(bad[i].text), check, &p, err, sizeof err);
		is_int(rc, -1, "bad plan %zu rejected", i + 1);
		is_str(err, bad[i].err, "bad plan %zu: error line", i + 1);
		if (rc == 0)
			plan_free(&p);
	}
	expand_order();
	sections();
	nfsserver();
	readonly_layout();
	workload_first();
	limits();
	profile_levels();
	return tap_done();
}
