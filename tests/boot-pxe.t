#!/usr/bin/env bash
# PXE: the appliance boots through the virtio NIC's iPXE ROM from QEMU's own
# TFTP server (user network with restrict=on: nothing leaves QEMU), loading
# the userland, its id and the kernel's modules as separate initrds from a
# boot root laid out by scripts/pxe-root; a per-MAC script picks the kernel.
. "$(dirname "$0")/lib.sh"
k=${KERNEL:-debian-6.1-cloud}
[ -x "$BB" ] && [ -f "$B/userland.cpio.gz" ] || skip_all "not built (run make)"
need_kernel "$k" || skip_all "$k not fetched (make kernels)"
ls /usr/lib/ipxe/qemu/*virtio* >/dev/null 2>&1 || skip_all "no iPXE ROM for QEMU (package ipxe-qemu)"
plan 6
boot "$k" "$T/pxe.log" --pxe --results "$T/r.img" --plan null; rc=$?
is "$rc" 0 "PXE boot of $k powers off after the plan"
is "$(tr -d '\r' < "$T/pxe.log" | sed -n 's/^bootbench: userland: *//p')" "$(cat "$B/userland.id")" \
	"the userland loaded over TFTP is the one built (id from the separate id initrd)"
ok "the kernel's modules came as their own initrd" grep -q '^bootbench: modules:  [1-9][0-9]* loaded, 0 missing' "$T/pxe.log"
is "$("$BB" collect "$T/r.img" 2>/dev/null | jq -r '.type + (.data.event // "" | if . == "" then "" else "/" + . end)' | tr '\n' ' ')" \
	"boot event/claim run run run end " "records reach the results disk"
pxecmd=$(scripts/boot-qemu "$k" --pxe --print-cmd 2>/dev/null)
ok "no -kernel on the QEMU command line (which names a boot ROM): it really booted from the network" \
	sh -c 'case "$1" in *" -kernel "*) exit 1;; esac; case "$1" in *"-boot n"*|*"bootindex"*|*romfile*) exit 0;; esac; exit 1' sh "$pxecmd"
scripts/pxe-root "$T/root" --kernel debian-6.1-generic --mac 52:54:00:AB:CD:EF --kernel "$k" 2>/dev/null
ok "pxe-root writes a script per MAC (hyphenated, lower case) and a default" \
	test -f "$T/root/52-54-00-ab-cd-ef.ipxe" -a -f "$T/root/default.ipxe" -a -f "$T/root/boot.ipxe"
done_testing
