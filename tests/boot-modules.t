#!/usr/bin/env bash
# What a boot loads (issue 34): the drivers of the devices the machine has
# (their modaliases), then what the plan's layouts need, and nothing else.
# A tmpfs-only plan loads no md, raid, xfs, ext4, SCSI or NIC module; the
# boot record says why each module was loaded. A plan that needs a layer
# the boot does not carry stops before its first run, naming the layer,
# and no record claims a run.
# timeout: 600
. "$(dirname "$0")/lib.sh"
k=${KERNEL:-debian-6.1-generic}
[ -x "$BB" ] && [ -f "$B/userland.cpio.gz" ] || skip_all "not built (run make)"
need_kernel "$k" || skip_all "$k not fetched (make kernels)"
plan 13

img=$T/null.img
"$BB" mkresults "$img" --size 16M >/dev/null 2>&1
boot "$k" "$T/null.log" --deterministic --results "$img" --plan null; rc=$?
is "$rc" 0 "a null-plan boot (tmpfs only) completes"
"$BB" collect "$img" 2>/dev/null | jq -c 'select(.type == "boot") | .data.modules' > "$T/mods"
ok "its boot record lists the modules" test -s "$T/mods"
ok "the results disk's drivers were loaded: virtio_pci and virtio_blk" \
	jq -e '(.loaded | index("virtio_pci")) and (.loaded | index("virtio_blk"))' "$T/mods"
unwanted='["md_mod","raid0","raid1","raid456","raid6_pq","xor","xfs","ext4","jbd2","brd","scsi_mod","sd_mod","virtio_scsi","libata","ahci","nvme","e1000","e1000e","virtio_net","loop"]'
is "$(jq -c --argjson u "$unwanted" '[.loaded[] | select(. as $m | $u | index($m))]' "$T/mods")" "[]" \
	"no md, raid, xfs, ext4, SCSI, NVMe, NIC or loop module for a tmpfs plan"
ok "the boot loaded only a handful ($(jq '.loaded | length' "$T/mods"), today's archive holds 48)" \
	jq -e '.loaded | length > 0 and length <= 10' "$T/mods"
ok "every module loaded says why" jq -e '(.why | keys | sort) == (.loaded | sort)' "$T/mods"
ok "a driver names the device it serves (virtio_blk: a virtio device, virtio_pci: a PCI one)" \
	jq -e '(.why.virtio_blk | startswith("device virtio ")) and (.why.virtio_pci | startswith("device pci "))' "$T/mods"
ok "no raid6 self-benchmark on the console" sh -c "grep -q '^bootbench: done' '$T/null.log' && ! grep -q 'raid6: ' '$T/null.log'"

# A stored plan that needs the PostgreSQL layer, booted without it.
cat > "$T/pg.plan" <<'P'
plan pg-needs-layer
requires layer=postgresql
layout r ramdisk=64M fs=ext2
workload null
workload pgbench duration=1 warmup=0
P
"$BB" mkresults "$T/pg.img" --size 16M --plan "$T/pg.plan" >/dev/null 2>&1
boot "$k" "$T/pg.log" --deterministic --results "$T/pg.img"; rc=$?
is "$rc" 2 "a plan whose layer is missing: the appliance reports a failure (exit 2)"
ok "the message names the layer and how to add it" \
	grep -q '^bootbench: fatal: plan pg-needs-layer requires layer postgresql, which this boot does not carry (scripts/boot-qemu --layer postgresql' "$T/pg.log"
"$BB" collect "$T/pg.img" 2>/dev/null > "$T/pg.jsonl"
is "$(jq -s -c '[(map(select(.type == "boot")) | length), (map(select(.type == "run")) | length), (map(select(.type == "end")) | .[0].data.status)]' "$T/pg.jsonl")" \
	'[1,0,"failed"]' "the boot is recorded, no run is, and the end says failed"
is "$(jq -r 'select(.type == "boot") | .data.modules.why.ext4' "$T/pg.jsonl")" "layout r" \
	"the plan's layout loaded ext4, and the record says so"
ok "it stopped before the first run" sh -c "grep -q '^bootbench: init starting' '$T/pg.log' && ! grep -q 'first run at uptime' '$T/pg.log'"
done_testing
