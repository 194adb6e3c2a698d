#!/usr/bin/env bash
# The field's own tools in QEMU, on the generic and rt kernels (plan field:
# fio job files on a ramdisk and tmpfs, perf bench sched messaging and pipe,
# syscall basic, futex hash, mem memcpy, hackbench, cyclictest idle and
# under hackbench): static fio and perf and the rt-tests glibc layer run
# under both kernels, every figure has its unit and direction, and the boot
# record names the tools' versions. Then, on generic, a plan of refusals: a
# fio job naming a disk that is attached but not claimed is refused before
# fio starts (the disk's bytes are unchanged), a perf bench that does not
# exist and a cyclictest option that names a file are failed runs that say
# why, and the boot goes on to the next run.
. "$(dirname "$0")/lib.sh"
KS=${KERNELS:-"debian-6.1-generic debian-6.1-rt"}
[ -x "$BB" ] && [ -f "$B/userland.cpio.gz" ] || skip_all "not built (run make)"
set -- $KS
N=11
jqs() { jq -e -s "$@" >/dev/null; }
lock() { awk -v n="$1" '$1 == n { print $2 }' "$TOP/rootfs/sources.lock"; }
plan $(($# * N + 7))
for k in $KS; do
	if ! need_kernel "$k"; then for i in $(seq 1 $N); do skip "$k not fetched"; done; continue; fi
	img=$T/$k.img
	boot "$k" "$T/$k.log" --results "$img" --plan field --memory 1024; rc=$?
	is "$rc" 0 "$k: the field plan boots, runs and powers off"
	"$BB" collect "$img" 2>/dev/null > "$T/$k.all"
	jq -c 'select(.type=="run") | .data' "$T/$k.all" > "$T/$k.runs"
	is "$(jq -r '"\(.workload):\(.status)"' "$T/$k.runs" | sort | uniq -c | awk '{printf "%s:%s ", $2, $1}')" \
		"cyclictest:ok:2 fio:ok:4 hackbench:ok:1 perfbench:ok:5 " "$k: 12 runs, all ok"
	# a run that failed says why here: the test's directory goes at exit
	jq -r 'select(.status != "ok") | "\(.workload) \(.params | tostring): \(.status): \(.reason)"' "$T/$k.runs" | sed 's/^/#   /'
	all_true "$T/$k.runs" 'select(.workload=="fio") | (.layout.name == "field-ramdisk-ext2") == (.params.options == "direct=1")' &&
		pass "$k: fio on the ramdisk with O_DIRECT, on tmpfs without" || fail "$k: fio's direct= per layout"
	all_true "$T/$k.runs" '(.metrics | length > 0) and all(.metrics[]; (.unit | length > 0) and (.better == "higher" or .better == "lower") and (.value | type == "number"))' &&
		pass "$k: every figure has a number, a unit and a direction" || fail "$k: every figure has a number, a unit and a direction"
	all_true "$T/$k.runs" 'select(.workload=="fio") | (.params.job | test("^/etc/bootbench/fio/rand(read|rw)\\.fio$"))
		and ([.metrics[] | select(.name=="j0_read_MBps" and .unit=="MB/s") , select(.name=="j0_read_iops" and .unit=="IO/s"), select(.name=="j0_read_clat_p99_us" and .unit=="us" and .better=="lower")] | length == 3)
		and ((.params.job | test("randrw")) == ([.metrics[].name] | index("j0_write_MBps") != null))' &&
		pass "$k: fio: the plan's job files give read MB/s, IO/s and clat p99 per job, and write figures for the mix" ||
		fail "$k: fio figures from the plan's job files"
	is "$(jq -r 'select(.workload=="perfbench") | "\(.params.bench)=\([.metrics[] | "\(.name | sub("^.*_MBps$"; "F_MBps")) \(.unit)"] | unique | join("/"))"' "$T/$k.runs" | tr '\n' ' ')" \
		"sched/messaging=total_s s sched/pipe=total_s s syscall/basic=total_s s futex/hash=ops_per_s ops/s mem/memcpy=F_MBps MB/s " \
		"$k: perf bench: seconds, operations/s and MB/s as each benchmark prints them"
	all_true "$T/$k.runs" 'select(.workload=="hackbench") | .metrics[0].name == "total_s" and .metrics[0].value > 0 and .details.tasks == 80' &&
		pass "$k: hackbench: seconds for 2 groups of 80 tasks" || fail "$k: hackbench figures"
	all_true "$T/$k.runs" 'select(.workload=="cyclictest") | ([.metrics[].name] | contains(["min_us","avg_us","max_us"])) and .details.cycles > 1000' &&
		pass "$k: cyclictest: min, avg and max wakeup latency over 5 s" || fail "$k: cyclictest figures"
	is "$(jq -r 'select(.workload=="cyclictest" and .details.load) | "\(.details.load) \(.details.load_groups) \(.metrics[] | select(.name=="max_us") | .unit)"' "$T/$k.runs")" \
		"hackbench 2 us" "$k: cyclictest's max latency under a 2-group hackbench load is recorded"
	want=0; case $k in *-rt) want=1 ;; esac
	is "$(jq -r 'select(.workload=="cyclictest") | .details.realtime' "$T/$k.runs" | sort -u)" "$want" \
		"$k: cyclictest says realtime=$want (PREEMPT_RT or not)"
	is "$(jq -r 'select(.type=="boot") | .data.tools | "\(.fio) \(."rt-tests") \(."linux-source-6.12")"' "$T/$k.all")" \
		"$(lock fio) $(lock rt-tests) $(lock linux-source-6.12)" "$k: the boot record names fio's, rt-tests' and perf's packages as pinned"
done

# --- refusals, on the first kernel ---
k=$1
cat > "$T/refuse.plan" <<'EOF'
plan field-refusals
iterations 1
timeout 120
layout t tmpfs=16M
workload fio options="rw=write bs=4k size=1M filename=/dev/vdb"
workload perfbench bench=sched/nosuch
workload cyclictest duration=1 options=--json=/etc/x
workload hackbench groups=1 loops=10
EOF
if need_kernel "$k"; then
	img=$T/refuse.img
	"$BB" mkresults "$img" --size 64M --plan "$T/refuse.plan" 2>/dev/null
	head -c 8M /dev/urandom > "$T/other.img"
	before=$(sha256sum < "$T/other.img")
	boot "$k" "$T/refuse.log" --results "$img" --disk "$T/other.img" --memory 512; rc=$?
	is "$rc" 0 "$k: a plan of refusals boots and powers off"
	"$BB" collect "$img" 2>/dev/null | jq -c 'select(.type=="run") | .data' > "$T/refuse.runs"
	is "$(jq -r '"\(.workload):\(.status)"' "$T/refuse.runs" | tr '\n' ' ')" "fio:failed perfbench:failed cyclictest:failed hackbench:ok " \
		"$k: three failed runs, and the boot went on to the fourth"
	ok "fio naming a disk that is not claimed is refused before fio starts" \
		jqs '.[0].reason | test("filename=/dev/vdb")' "$T/refuse.runs"
	is "$(sha256sum < "$T/other.img")" "$before" "... and the unclaimed disk's bytes are unchanged"
	ok "a perf bench that does not exist is a failed run with perf's reason" \
		jqs '.[1].reason | test("Unknown")' "$T/refuse.runs"
	ok "a cyclictest option naming a file is refused" jqs '.[2].reason | test("not allowed")' "$T/refuse.runs"
	ok "the console shows the boot's end and no kernel panic" sh -c "grep -q 'powering off' '$T/refuse.log' && ! grep -q 'Kernel panic' '$T/refuse.log'"
else
	for i in $(seq 1 7); do skip "$k not fetched"; done
fi
done_testing
