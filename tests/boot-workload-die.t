#!/usr/bin/env bash
# A workload's fatal error in the appliance is a failed run, not the end of
# the boot: the workload child has its own die hook (it writes the message as
# its report and exits 111) and only PID 1 may end the boot. A plan whose
# first runs die (die(), a failed x* allocation) goes on to its next run, and
# the boot ends normally.
. "$(dirname "$0")/lib.sh"
k=${KERNEL:-debian-6.1-generic}
[ -x "$BB" ] && [ -f "$B/userland.cpio.gz" ] || skip_all "not built (run make)"
need_kernel "$k" || skip_all "$k not fetched (make kernels)"
plan 8

printf 'plan dying\nlayout t tmpfs=16M\nworkload null die=1\nworkload null oom=1\nworkload touch size=4K\n' > "$T/dying.plan"
"$BB" mkresults "$T/r.img" --size 8M --plan "$T/dying.plan" 2>/dev/null
boot "$k" "$T/r.log" --results "$T/r.img"; rc=$?
is "$rc" 0 "a plan whose workloads die: the boot succeeds (boot-qemu exit 0)"
"$BB" collect "$T/r.img" > "$T/recs" 2>/dev/null
jq -c 'select(.type=="run") | .data' "$T/recs" > "$T/runs"
is "$(wc -l < "$T/runs" | tr -d ' ')" 3 "three run records are stored"
is "$(jq -r '"\(.workload) \(.status)"' "$T/runs" | tr '\n' ' ')" "null failed null failed touch ok " \
	"the dying runs are failed, and the run after them happened and was ok"
is "$(jq -r 'select(.params.die=="1") | .reason' "$T/runs")" "null: asked to die (die=1)" \
	"the die() run's record carries the fatal message"
is "$(jq -r 'select(.params.oom=="1") | .reason | test("^unable to allocate [0-9]+ bytes: ")' "$T/runs")" true \
	"the failed allocation's record carries its message"
is "$(jq -r 'select(.type=="end") | "\(.data.status) \(.data.reason)"' "$T/recs")" "ok all steps done" \
	"the boot's end record says it ended normally"
ok "the console says the plan ran to its end" grep -q '^bootbench: done: all steps done' "$T/r.log"
ok "... and no child tried to end the boot" sh -c "! grep -q 'may not end the boot\|boot failed' '$T/r.log' && test -s '$T/r.log'"
done_testing
