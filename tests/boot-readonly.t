#!/usr/bin/env bash
# Read-only disks: bootbench.readonly=SERIAL and a plan layout readonly=SERIAL
# let hdparm measure a disk that is not claimed, as our users ran hdparm -t
# on the disk holding their data. The disk is opened O_RDONLY, never
# mkfs'd, labelled or put in md: its sha256 is the same after the plan.
# Workloads that may write are refused there; a disk named read-only is
# never claimed, even when it carries the scratch label; a layout naming a
# disk the command line did not give read-only is skipped with the reason.
. "$(dirname "$0")/lib.sh"
k=${KERNEL:-debian-6.1-generic}
[ -x "$BB" ] && [ -f "$B/userland.cpio.gz" ] || skip_all "not built (run make)"
need_kernel "$k" || skip_all "$k not fetched (make kernels)"
plan 11

# the user's disk (random bytes: any write shows), and a scratch-labelled
# disk that the command line names read-only too
head -c 48M /dev/urandom >"$T/user.img"
head -c 48M /dev/urandom >"$T/labelled.img"
"$BB" mkscratch "$T/labelled.img" --yes-destroy --force >/dev/null 2>&1
[ "$(head -c 10 "$T/labelled.img")" = BBSCRATCH1 ] || { echo "Bail out! mkscratch did not label $T/labelled.img"; exit 1; }
sum_user=$(sha256sum <"$T/user.img") sum_lab=$(sha256sum <"$T/labelled.img")
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
boot "$k" "$T/ro.log" --results "$img" --disk "$T/user.img" --disk "$T/labelled.img" --disk "$T/third.img" \
	--append " bootbench.readonly=bbdisk0,bbdisk1"
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
is "$(sha256sum <"$T/user.img")" "$sum_user" "the read-only disk is byte-identical after the plan"
ok "the scratch-labelled disk named read-only is not claimed, and the console says why" \
	sh -c "grep -q 'vdc carries the scratch label but bootbench.readonly= names it: read-only, not claimed' '$T/ro.log' &&
	       grep -q 'disk vdc: read-only (bootbench.readonly): opened O_RDONLY, never written' '$T/ro.log'"
is "$(jq -r 'select(.layout.name == "onscratch") | .status' "$T/runs" | sort -u)" skipped \
	"... so the layout needing a claimed disk is skipped"
is "$(sha256sum <"$T/labelled.img")" "$sum_lab" "... and that disk is byte-identical too"
is "$(jq -r 'select(.layout.name == "notgiven") | .reason' "$T/runs" | sort -u)" \
	"layout notgiven: disk bbdisk2 is not named in bootbench.readonly= (the kernel command line says which disks may be read)" \
	"a layout naming a disk the command line did not give read-only is skipped, with the reason"
done_testing
