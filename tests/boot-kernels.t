#!/usr/bin/env bash
# Each Debian kernel boots the same userland in QEMU, prints its summary with
# the right release and the userland id under test, sees every disk attached,
# records boot+end durably, and powers off.
. "$(dirname "$0")/lib.sh"
KERNELS=${KERNELS:-"debian-6.1-generic debian-6.1-cloud debian-6.1-rt debian-6.1.170-generic"}
[ -x "$BB" ] && [ -f "$B/userland.cpio.gz" ] || skip_all "not built (run make)"
set -- $KERNELS
plan $(($# * 8 + 2))
uid=$(cat "$B/userland.id")
for k in $KERNELS; do
	if ! need_kernel "$k"; then
		for i in 1 2 3 4 5 6 7 8; do skip "$k not fetched (make kernels)"; done
		continue
	fi
	log=$T/$k.log img=$T/$k.img
	truncate -s 32M "$T/$k.extra"
	start=$(date +%s)
	boot "$k" "$log" --results "$img" --scratch 2:32M --disk "$T/$k.extra"; rc=$?
	diag "$k: boot-qemu exit $rc after $(( $(date +%s) - start ))s; $(grep -m1 'init started at uptime' "$log")"
	is "$rc" 0 "$k: boots and powers off (boot-qemu exit 0)"
	is "$(sed -n 's/^bootbench: kernel: *\([^ ]*\) .*/\1/p' "$log" | tr -d '\r')" "$(cat "$B/kernels/$k/release")" \
		"$k: summary names the kernel release"
	is "$(sed -n 's/^bootbench: userland: *//p' "$log" | tr -d '\r')" "$uid" "$k: summary gives the userland id under test"
	is "$(grep -c '^bootbench: device: *vd[a-d] ' "$log")" 4 "$k: sees its 4 disks (results, 2 scratch, 1 extra)"
	ok "$k: modules: none missing or failed" grep -q '^bootbench: modules:  [0-9]* loaded, 0 missing, 0 failed' "$log"
	ok "$k: init start uptime printed" grep -q '^bootbench: init started at uptime [0-9.]* s' "$log"
	"$BB" collect "$img" > "$T/$k.part" 2>/dev/null
	"$BB" collect "$log" > "$T/$k.cons" 2>/dev/null
	is "$(jq -r '.type' < "$T/$k.part" 2>/dev/null | tr '\n' ' ')" "boot end " "$k: results image holds boot and end records"
	ok "$k: console log and results image collect identically" cmp -s "$T/$k.part" "$T/$k.cons"
	[ -n "${flipped:-}" ] && continue
	flipped=1
	# damage one payload byte of the boot record (partition at 1 MiB, records
	# after the 64 KiB header area, 64-byte record header)
	off=$((1048576 + 65536 + 64 + 10))
	printf 'Z' | dd of="$img" bs=1 seek=$off conv=notrunc status=none
	"$BB" collect "$img" > "$T/$k.damaged" 2>"$T/$k.err"
	ok "$k: a damaged record is reported with its offset" \
		grep -q "offset 65536: payload checksum mismatch" "$T/$k.err"
	is "$(jq -r .type "$T/$k.damaged" | tr '\n' ' ')" "end " "$k: the record after it is still read"
done
done_testing
