#!/usr/bin/env bash
# Every workload on every layout in QEMU, on the generic and rt kernels
# (plan workloads-smoke: raid1-ext3, raid0-ext2, xfs, ramdisk-ext3, tmpfs x
# stream, hdparm, bonnie, dbload, oltp, tcpbw, http, forkexec): each run
# record carries its figures with units and directions and the system
# counters; hdparm on tmpfs is skipped with its reason.
. "$(dirname "$0")/lib.sh"
KS=${KERNELS:-"debian-6.1-generic debian-6.1-rt"}
[ -x "$BB" ] && [ -f "$B/userland.cpio.gz" ] || skip_all "not built (run make)"
set -- $KS
N=12
plan $(($# * N))
for k in $KS; do
	if ! need_kernel "$k"; then for i in $(seq 1 $N); do skip "$k not fetched"; done; continue; fi
	img=$T/$k.img
	boot "$k" "$T/$k.log" --results "$img" --scratch 4:512M --plan workloads-smoke --memory 1024; rc=$?
	is "$rc" 0 "$k: workloads-smoke boots, runs and powers off"
	"$BB" collect "$img" 2>/dev/null | jq -c 'select(.type=="run") | .data' > "$T/$k.runs"
	is "$(jq -r .status "$T/$k.runs" | sort | uniq -c | awk '{printf "%s:%s ", $2, $1}')" "ok:39 skipped:1 " \
		"$k: 40 runs, 39 ok, 1 skipped"
	is "$(jq -r 'select(.status=="skipped") | "\(.workload) \(.layout.name): \(.reason)"' "$T/$k.runs")" \
		"hdparm tmpfs: workload hdparm needs a block device; this layout has none" "$k: the skip is hdparm on tmpfs, with its reason"
	all_true "$T/$k.runs" 'select(.status=="ok") | (.metrics | length > 0) and all(.metrics[]; (.unit | length > 0) and (.better == "higher" or .better == "lower") and (.value | type == "number"))' &&
		pass "$k: every figure has a number, a unit and a direction" || fail "$k: every figure has a number, a unit and a direction"
	all_true "$T/$k.runs" 'select(.status=="ok") | .counters.summary.cpu_user.unit == "%" and (.counters.summary.pgpgout != null)' &&
		pass "$k: every run carries the system counters" || fail "$k: every run carries the system counters"
	all_true "$T/$k.runs" 'select(.workload=="stream") | .metrics | map(.name) | contains(["write_MBps","read_MBps","write_sys_s","read_sys_s"])' &&
		pass "$k: stream: write and read MB/s with CPU time" || fail "$k: stream figures"
	all_true "$T/$k.runs" 'select(.workload=="hdparm" and .status=="ok") | .metrics | map(.name) | contains(["cached_read","buffered_read"])' &&
		pass "$k: hdparm: cached and buffered reads" || fail "$k: hdparm figures"
	all_true "$T/$k.runs" 'select(.workload=="bonnie") | (.details.csv | split(",") | .[0] == "1.98") and (.metrics | map(.name) | contains(["put_block","get_block","seeks","seq_create"]))' &&
		pass "$k: bonnie: phases and a bonnie++ 1.98 CSV line" || fail "$k: bonnie figures"
	all_true "$T/$k.runs" 'select(.workload=="dbload") | (.metrics | map(.name) | contains(["schema_s","import_s","rows_per_s"])) and .details.quick_check == "ok"' &&
		pass "$k: dbload: schema and import times, database checks ok" || fail "$k: dbload figures"
	all_true "$T/$k.runs" 'select(.workload=="oltp") | (.metrics | map(.name) | contains(["new_order_tpm","busy_retries"])) and (.details.checks | [.[]] | length > 0 and all(. == "ok"))' &&
		pass "$k: oltp: new-order tpm, retries, consistency ok" || fail "$k: oltp figures"
	all_true "$T/$k.runs" 'select(.workload=="http") | (.metrics[] | select(.name=="failed_requests") | .value == 0) and (.metrics | map(.name) | contains(["requests_per_s","p50","p99","p100"]))' &&
		pass "$k: http: requests/s and percentiles, no failed request" || fail "$k: http figures"
	all_true "$T/$k.runs" 'select(.workload=="tcpbw" or .workload=="forkexec") | .metrics[0].value > 0' &&
		pass "$k: tcpbw and forkexec: positive figures" || fail "$k: tcpbw/forkexec figures"
done
done_testing
