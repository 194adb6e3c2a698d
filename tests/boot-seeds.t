#!/usr/bin/env bash
# The seeds plan: one section per mailing-list report (../shared/seeds),
# at the reports' own parameters (seeds.plan) and at test sizes
# (seeds-quick.plan). The two differ in sizes and durations only; a boot of
# seeds-quick runs every section, and every figure the reports measured by
# hand is in the records, under its section.
. "$(dirname "$0")/lib.sh"
k=${KERNEL:-debian-6.1-generic}
P=$TOP/rootfs/overlay/etc/bootbench/plans
[ -x "$BB" ] && [ -f "$B/userland.cpio.gz" ] || skip_all "not built (run make)"
plan 23

# the same runs in the same order, parameters aside
shape() { "$BB" plan show "$1" | awk '{print $1, $2, $3, $4, $5}'; }
"$BB" plan check "$P/seeds.plan" "$P/seeds-quick.plan" >"$T/check" 2>&1
is "$?" 0 "seeds.plan and seeds-quick.plan are valid plans"
shape "$P/seeds.plan" | awk '$1 == 1' >"$T/full.shape"
shape "$P/seeds-quick.plan" >"$T/quick.shape"
ok "seeds-quick has runs ($(wc -l <"$T/quick.shape"))" test -s "$T/quick.shape"
ok "seeds-quick runs what one iteration of seeds runs, in the same order (sizes aside)" \
	cmp -s "$T/full.shape" "$T/quick.shape"
is "$(awk '{print $2}' "$T/quick.shape" | uniq | tr '\n' ' ')" "seed-000 seed-000-ramdisk seed-000-scheduler seed-000-read-ahead seed-000-nr-requests seed-001 seed-002 seed-003 seed-004 " \
	"a section per report, 000 to 004"
ok "every section cites its report (a comment naming the seed file's number)" sh -c "
	for s in 000 001 002 003 004; do grep -q \"^# \$s - \" '$P/seeds.plan' || exit 1; done"
# the reports' own parameters, where a boot holds them
ok "seeds.plan: dd of 1 GiB with 1 MiB blocks, RAID1-ext3 / xfs / ext2 / ramdisk-ext3, deadline, read_ahead_kb 0 256, nr_requests 1024" sh -c "
	grep -q '^workload stream size=1G bs=1M' '$P/seeds.plan' &&
	grep -q '^layout s000-raid1-ext3 md=raid1 disks=2 fs=ext3' '$P/seeds.plan' &&
	grep -q '^layout s000-xfs fs=xfs' '$P/seeds.plan' && grep -q '^layout s000-ext2 fs=ext2' '$P/seeds.plan' &&
	grep -q '^layout s000-ramdisk-ext3 ramdisk=256M fs=ext3' '$P/seeds.plan' &&
	grep -q '^tunable scheduler mq-deadline' '$P/seeds.plan' && grep -q '^tunable read_ahead_kb 0 256' '$P/seeds.plan' &&
	grep -q '^tunable nr_requests 1024' '$P/seeds.plan'"
ok "seeds.plan: SFS97's steps against nfsd (500, 1000, 1500 ops/s, 300 s each after 300 s, 48 processes) on ext3 and ext2" sh -c "
	grep -q '^workload nfsmix loads=500,1000,1500 step=300 warmup=300 procs=48 ' '$P/seeds.plan' &&
	grep -q '^layout s003-ext3 fs=ext3' '$P/seeds.plan' && grep -q '^layout s003-ext2 fs=ext2' '$P/seeds.plan' &&
	grep -q '^nfsserver .*export=rw,sync,no_wdelay' '$P/seeds.plan'"
ok "seeds.plan: bonnie's 2 GiB file (over 2x the 1 GiB its requires line asks) on md RAID0 of 4 disks, 128 KiB chunk; ab -n 100000 -c 2 on 51200 bytes" sh -c "
	grep -q '^requires memory=1G disks=4 layer=postgresql$' '$P/seeds.plan' && grep -q '^workload bonnie size=2G$' '$P/seeds.plan' &&
	grep -q '^layout s001-raid0-ext2 md=raid0 disks=4 chunk=128K fs=ext2' '$P/seeds.plan' &&
	grep -q '^workload http requests=100000 concurrency=2 size=51200' '$P/seeds.plan'"

need_kernel "$k" || { for i in $(seq 15); do skip "$k not fetched (make kernels)"; done; done_testing; }
# the boot needs the PostgreSQL layer (make check builds it; boot-qemu
# would build it here, past this test's time)
[ -f "$B/postgresql.cpio.gz" ] || { for i in $(seq 15); do skip "the PostgreSQL layer is not built (make layer NAME=postgresql)"; done; done_testing; }
img=$T/seeds.img
"$BB" mkresults "$img" --size 64M 2>/dev/null
# PostgreSQL's 7 imports and 2 DBT-2 runs (a server started for each) take
# about 150 of the boot's 250 s under TCG
BOOT_TIMEOUT=720 boot "$k" "$T/seeds.log" --results "$img" --scratch 4:320M --plan seeds-quick --memory 512
is "$?" 0 "$k boots seeds-quick on 4 scratch disks and powers off"
"$BB" collect "$img" 2>/dev/null | jq -c 'select(.type == "run") | .data' >"$T/runs"
is "$(wc -l <"$T/runs")" "$(wc -l <"$T/quick.shape")" "one run record per run of the plan"
is "$(jq -r .status "$T/runs" | sort | uniq -c | awk '{print $2 ":" $1}' | tr '\n' ' ')" "ok:$(wc -l <"$T/quick.shape") " \
	"every run ok"
# section workload metric, for every figure a report measured by hand
jq -r '.section as $s | .workload as $w | .metrics[] | "\($s) \($w) \(.name)"' "$T/runs" | sort -u >"$T/figs"
want() { for m in "$@"; do grep -qx "$m" "$T/figs" || echo "$m"; done; }
missing=$(want \
	"seed-000 hdparm cached_read" "seed-000 hdparm buffered_read" "seed-000 stream write_MBps" "seed-000 stream read_MBps" \
	"seed-000 pgimport data_real_s" "seed-000 pgimport data_user_s" "seed-000 pgimport data_sys_s" "seed-000 pgimport schema_real_s" \
	"seed-000-ramdisk pgimport data_real_s" \
	"seed-001 stream write_MBps" "seed-001 stream read_MBps" "seed-001 bonnie seeks" "seed-001 bonnie put_block" "seed-001 bonnie get_block" \
	"seed-002 http requests_per_s" "seed-002 http time_per_request_ms" "seed-002 tcpbw bandwidth" \
	"seed-002 hdparm cached_read" "seed-002 hdparm buffered_read" \
	"seed-003 nfsmix load50_ops" "seed-003 nfsmix load50_resp_ms" "seed-003 nfsmix load200_ops" "seed-003 nfsmix peak_ops" \
	"seed-004 dbt2 new_order_tpm" "seed-004 dbt2 new_order_p90_ms")
is "${missing:-none}" none "every seed figure is in the records, under its section"
ok "seed-001: bonnie's CSV line (bonnie++ 1.98 format) is in its record" \
	all_true "$T/runs" 'select(.section == "seed-001" and .workload == "bonnie") | .details.csv | test("^1\\.98,")'
is "$(jq -r 'select(.section == "seed-002" and .workload == "http") | .details.server' "$T/runs" | sort | tr '\n' ' ')" "busybox ours " \
	"seed-002: ab against our server and against busybox's httpd (Apache's static path)"
ok "seed-002: every figure ab prints, Connection Times included, from both" \
	all_true "$T/runs" 'select(.section == "seed-002" and .workload == "http") | [.metrics[].name] | contains(["requests_per_s", "time_per_request_all_ms", "connect_mean_ms", "total_max_ms"])'
ok "seed-001: bonnie's 8 MB file fits in a 512 MB boot's page cache, and its record says so" \
	all_true "$T/runs" 'select(.section == "seed-001" and .workload == "bonnie") | .details.size_per_memory < 2 and (.warnings | any(test("read the page cache")))'
ok "seed-000: the tunables held on the md members (mq-deadline, nr_requests 1024)" \
	all_true "$T/runs" 'select(.layout.name == "s000-raid1-ext3") | .tunables.in_force.vdb.scheduler == "mq-deadline" and .tunables.in_force.vdb.nr_requests == "1024"'
# the thread's tunables, each against the kernel's own setting, as columns
ok "seed-000-read-ahead: read_ahead_kb 0 and 256 held, and default left the kernel's own (read back: $(jq -r 'select(.section == "seed-000-read-ahead" and .tunables.requested.read_ahead_kb == "default") | .tunables.in_force[].read_ahead_kb' "$T/runs" | head -1))" \
	sh -c "[ \"\$(jq -r 'select(.section == \"seed-000-read-ahead\") | \"\\(.tunables.requested.read_ahead_kb)=\\(.tunables.in_force[].read_ahead_kb)\"' '$T/runs' | sort -u | grep -c -E '^(0=0|256=256|default=[0-9]+)\$')\" = 3 ]"
"$BB" compare "$img" --by tunable.read_ahead_kb >"$T/by.out" 2>"$T/by.err"
set_ra=$(jq -c 'select(.tunables.requested.read_ahead_kb != null)' "$T/runs" | wc -l)
is "$(head -1 "$T/by.out")" "bootbench compare: 3 values of read_ahead_kb, 1 boots, $set_ra runs; baseline read_ahead_kb=default" \
	"compare --by tunable.read_ahead_kb: the three values are the columns, the kernel's own setting the baseline"
ok "... the dd of seed-000-read-ahead a row with a boot in each column" \
	sh -c "grep -E '^stream .*/ s000-ra-ext3 +read_MBps ' '$T/by.out' | grep -q 'n=1.*n=1.*n=1'"
ok "seed-004: cached and non-cached DBT-2 are two experiments (their parameters differ)" \
	test "$(jq -c 'select(.section == "seed-004") | .params' "$T/runs" | sort -u | wc -l)" = 2
is "$(jq -r 'select(.section == "seed-004") | "\(.params.drop_cache):\(.details.cache_drop):\(.details.fits_in_memory)"' "$T/runs" | tr '\n' ' ')" \
	"0:not asked:true 1:drop_caches:true " \
	"seed-004: the non-cached run started from an emptied page cache; at quick sizes both fit in memory, and say so"
# the vmstat columns the thread asked for (r b free buff cache si so, bi bo,
# us sy wa), %memused beside them: in each run's summary, and r b free buff
# cache drawn in its trace
# (values, not only keys: a counter never read would be 0)
ok "seed-004: vmstat's r b free buff cache si so bi bo us sy wa and %memused in each run's counters" \
	all_true "$T/runs" 'select(.section == "seed-004") | .counters.summary as $s | .counters.trace as $t |
		(["procs_running", "procs_blocked", "mem_free", "mem_buffers", "mem_cached", "pswpin", "pswpout", "pgpgin", "pgpgout",
		  "cpu_user", "cpu_system", "cpu_iowait", "mem_used_pct"] | all(. as $k | $s[$k].mean != null)) and
		(["procs_running", "procs_blocked", "mem_free", "mem_buffers", "mem_cached"] | all(. as $k | ($t[$k] | length) > 0)) and
		$s.procs_running.max >= 1 and $s.mem_free.mean > 0 and $s.mem_cached.mean > 0 and $s.mem_used_pct.mean > 0 and
		($s.cpu_user.mean + $s.cpu_system.mean) > 0 and $s.pgpgout.max > 0'
done_testing
