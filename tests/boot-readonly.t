#!/usr/bin/env bash
# Read-only disks: bootbench.readonly=SERIAL and a plan layout readonly=SERIAL
# let hdparm measure a disk that is not claimed, as our users ran hdparm -t
# on the disk holding their data. The disk is opened O_RDONLY, never
# mkfs'd, labelled or put in md: its sha256 is the same after the plan.
# Workloads that may write are refused there; a disk named read-only is
# never claimed, even when it carries the scratch label; a layout naming a
# disk the command line did not give read-only is skipped with the reason.
# A scratch-labelled disk that somebody has since made an md member (nas:0)
# is not claimed either: libblkid sees what the appliance never writes.
. "$(dirname "$0")/lib.sh"
k=${KERNEL:-debian-6.1-generic}
[ -x "$BB" ] && [ -f "$B/userland.cpio.gz" ] || skip_all "not built (run make)"
need_kernel "$k" || skip_all "$k not fetched (make kernels)"
plan 17

# the user's disk (random bytes: any write shows), and a scratch-labelled
# disk that the command line names read-only too
head -c 48M /dev/urandom >"$T/user.img"
head -c 48M /dev/urandom >"$T/labelled.img"
"$BB" mkscratch "$T/labelled.img" --yes-destroy --force >/dev/null 2>&1
[ "$(head -c 10 "$T/labelled.img")" = BBSCRATCH1 ] || { echo "Bail out! mkscratch did not label $T/labelled.img"; exit 1; }
# a scratch-labelled disk on which somebody created an md array since
# (mdadm leaves sector 0, and so the label, alone): libblkid sees it
head -c 48M /dev/zero >"$T/reused.img"
"$BB" mkscratch "$T/reused.img" --yes-destroy >/dev/null 2>&1
python3 tests/fixtures/md12-member.py "$T/reused.img" nas:0
sum_user=$(sha256sum <"$T/user.img") sum_lab=$(sha256sum <"$T/labelled.img") sum_reused=$(sha256sum <"$T/reused.img")
cat >"$T/ro.plan" <<'PLAN'
plan readonly
layout userdisk readonly=bbdisk0
layout notgiven readonly=bbdisk2
layout onscratch fs=ext2
workload hdparm cached_seconds=1 disk_seconds=1 settle=0
workload touch
PLAN
"$BB" plan check "$T/ro.plan" >/dev/null
is "$?" 0 "a plan with read-only layouts is valid"
img=$T/ro.img
"$BB" mkresults "$img" --size 16M --plan "$T/ro.plan" 2>/dev/null
# bbdisk0 user, bbdisk1 labelled, bbdisk2 a third disk not given read-only
head -c 8M /dev/zero >"$T/third.img"
boot "$k" "$T/ro.log" --results "$img" --disk "$T/user.img" --disk "$T/labelled.img" --disk "$T/third.img" --disk "$T/reused.img" \
	--append " bootbench.readonly=bbdisk0,bbdisk1" --profile --disk-read-bps 16777216
is "$?" 0 "$k boots the plan and powers off"
"$BB" collect "$img" 2>/dev/null | jq -c 'select(.type == "run") | .data' >"$T/runs"
is "$(jq -r 'select(.layout.name == "userdisk" and .workload == "hdparm") | .status' "$T/runs")" ok \
	"hdparm runs on the read-only disk"
is "$(jq -r 'select(.layout.name == "userdisk" and .workload == "hdparm") | [.metrics[].name] | sort | join(" ")' "$T/runs")" \
	"buffered_read cached_read" "... with both figures"
is "$(jq -r 'select(.layout.name == "userdisk" and .workload == "hdparm") | "\(.layout.kind) \(.layout.readonly.serial) \(.layout.fs.type)"' "$T/runs")" \
	"readonly bbdisk0 none" "its record says read-only, which disk, no filesystem"
is "$(jq -r 'select(.layout.name == "userdisk" and .workload == "touch") | "\(.status): \(.reason)"' "$T/runs")" \
	"skipped: workload touch may write; layout userdisk is a read-only disk (only workloads that open it O_RDONLY run there)" \
	"a workload that may write is refused there, with the reason"
# --profile (docs/why.md): a cold read from a virtio disk, in wall-clock
# mode, waits on block I/O, and both delay accounting and PSI say so. The
# disk is capped at 16 MiB/s (--disk-read-bps): an image in the host's page
# cache is read faster than TCG consumes it, so readahead kept ahead and a
# read waited 4-8 times in a second here, and once, in CI, never.
hd='select(.layout.name == "userdisk" and .workload == "hdparm")'
ok "a cold read of the disk records block-I/O delay above zero ($(jq -r "$hd | .delays.blkio.delay_ns" "$T/runs") ns in $(jq -r "$hd | .delays.blkio.count" "$T/runs") waits)" \
	all_true "$T/runs" "$hd | .delays.blkio.delay_ns > 0 and .delays.blkio.count > 0"
ok "... and io pressure above zero ($(jq -r "$hd | .pressure.io.some_us" "$T/runs") us)" \
	all_true "$T/runs" "$hd | .pressure.io.some_us > 0"
is "$("$BB" collect "$img" 2>/dev/null | jq -r 'select(.type == "boot") | .data.qemu.disk_read_bps')" 16777216 \
	"the boot record says the attached disks were read at most 16 MiB/s"
is "$(sha256sum <"$T/user.img")" "$sum_user" "the read-only disk is byte-identical after the plan"
ok "the scratch-labelled disk named read-only is not claimed, and the console says why" \
	sh -c "grep -q 'vdc carries the scratch label but bootbench.readonly= names it: read-only, not claimed' '$T/ro.log' &&
	       grep -q 'disk vdc: read-only (bootbench.readonly): opened O_RDONLY, never written' '$T/ro.log'"
is "$(jq -r 'select(.layout.name == "onscratch") | .status' "$T/runs" | sort -u)" skipped \
	"... so the layout needing a claimed disk is skipped"
is "$(sha256sum <"$T/labelled.img")" "$sum_lab" "... and that disk is byte-identical too"
ok "a scratch-labelled disk holding somebody's md member (nas:0) is not claimed, and the console says what it holds" \
	grep -q 'disk vde carries the scratch label but also what the appliance never writes: bootbench_scratch (a signature, at byte 0), linux_raid_member (a RAID or volume member labelled "nas:0", at byte 4096)' "$T/ro.log"
is "$(sha256sum <"$T/reused.img")" "$sum_reused" "... and it is byte-identical after the plan"
is "$("$BB" collect "$img" 2>/dev/null | jq -r 'select(.type == "event" and .data.event == "claim") | .data.disks[] | select(.serial == "bbdisk3") | "\(.decision) | \(.held)"')" \
	'not claimed: never written | bootbench_scratch (a signature, at byte 0), linux_raid_member (a RAID or volume member labelled "nas:0", at byte 4096)' \
	"the claim event records each disk's decision and what libblkid found on it"
is "$(jq -r 'select(.layout.name == "notgiven") | .reason' "$T/runs" | sort -u)" \
	"layout notgiven: disk bbdisk2 is not named in bootbench.readonly= (the kernel command line says which disks may be read)" \
	"a layout naming a disk the command line did not give read-only is skipped, with the reason"
done_testing
