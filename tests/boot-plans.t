#!/usr/bin/env bash
# Choosing plans in the appliance: a plan stored in the results partition
# runs when the command line names none; the command line wins; a bad stored
# plan is rejected with the same message `bootbench plan check` prints, and
# the boot powers off cleanly. A disk labelled with `bootbench mkscratch` is
# claimed without bootbench.disks=, used, and labelled again afterwards.
. "$(dirname "$0")/lib.sh"
k=${KERNEL:-debian-6.1-generic}
[ -x "$BB" ] && [ -f "$B/userland.cpio.gz" ] || skip_all "not built (run make)"
need_kernel "$k" || skip_all "$k not fetched (make kernels)"
plan 11

printf 'plan stored\nlayout t tmpfs=16M\nworkload null\niterations 2\n' > "$T/stored.plan"
"$BB" mkresults "$T/a.img" --size 8M --plan "$T/stored.plan" 2>/dev/null
boot "$k" "$T/a.log" --results "$T/a.img"; rc=$?
is "$rc" 0 "boot with a stored plan and no bootbench.plan="
is "$("$BB" collect "$T/a.img" 2>/dev/null | jq -r 'select(.type=="run") | .data.plan' | sort | uniq -c | awk '{print $1, $2}')" \
	"2 stored" "the stored plan ran (2 runs)"
boot "$k" "$T/b.log" --results "$T/a.img" --plan null; rc=$?
is "$("$BB" collect "$T/b.log" 2>/dev/null | jq -r 'select(.type=="run") | .data.plan' | sort -u)" null \
	"bootbench.plan= wins over the stored plan"
boot "$k" "$T/l.log" --plan null --append bootbench.lava=1
is "$(grep -c '^<LAVA_SIGNAL_TESTCASE TEST_CASE_ID=null.tmpfs.harness_overhead RESULT=pass MEASUREMENT=[0-9.e+-]* UNITS=us>' "$T/l.log")" 3 \
	"bootbench.lava=1: each figure is also a LAVA test-case signal with its measurement and unit"

printf 'plan broken\nlayout t tmpfs=16M\nlayout u tmpfs=16M chunks=4\nworkload null\n' > "$T/bad.plan"
host_msg=$("$BB" plan check "$T/bad.plan" 2>&1 >/dev/null | sed -n 's/.*bad.plan:\([0-9]*: .*\)/\1/p')
"$BB" mkresults "$T/c.img" --size 8M --plan "$T/bad.plan" 2>/dev/null
boot "$k" "$T/c.log" --results "$T/c.img"; rc=$?
is "$rc" 2 "a bad stored plan: the appliance reports a failure (boot-qemu exit 2)"
guest_msg=$(tr -d '\r' < "$T/c.log" | sed -n 's/^bootbench: fatal: bad plan: .*):\([0-9]*: .*\)/\1/p')
ok "the host names the error: $host_msg" test -n "$host_msg"
is "$guest_msg" "$host_msg" "the appliance prints the same line and message"
ok "... and syncs and powers off" grep -q '^bootbench: syncing and powering off' "$T/c.log"

# a scratch-labelled disk, attached without bootbench.disks=
truncate -s 64M "$T/label.img"
"$BB" mkscratch "$T/label.img" --yes-destroy 2>/dev/null
printf 'plan lab\nlayout raw fs=ext2\nworkload touch\n' > "$T/lab.plan"
"$BB" mkresults "$T/d.img" --size 8M --plan "$T/lab.plan" 2>/dev/null
boot "$k" "$T/d.log" --results "$T/d.img" --disk "$T/label.img"; rc=$?
ok "the labelled disk is claimed by its label" grep -q 'disk vdb: claimed (scratch label)' "$T/d.log"
is "$("$BB" collect "$T/d.img" 2>/dev/null | jq -r 'select(.type=="run") | "\(.data.status) \(.data.layout.members[0].name)"')" \
	"ok vdb" "a layout was built on it and the run succeeded"
is "$(head -c 10 "$T/label.img")" "BBSCRATCH1" "the label is written back after the layout is torn down"
done_testing
