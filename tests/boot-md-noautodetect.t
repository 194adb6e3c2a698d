#!/usr/bin/env bash
# timeout: 1800
# (tests/timeout-run: builds linux-6.12-ci when the build cache is cold; boot-source.t reuses it)
# The kernel must not write unclaimed disks either. A source-built kernel
# has md built in (CONFIG_MD_AUTODETECT=y) and would assemble 0.90 RAID
# members on type-0xfd partitions of any disk, and resync a dirty array.
# Two unclaimed disks hold the two members of a dirty 0.90 RAID1.
# - boot-qemu passes raid=noautodetect: both disks are byte-identical after
#   a boot, and the boot record says autodetect was off and no array was
#   found at start;
# - control, raid=autodetect appended (the later option wins): the boot
#   record says autodetect was not disabled (and the console warns), yet
#   nothing is assembled and the disks stay identical. Measured, and why:
#   the kernel autodetects only in prepare_namespace() (md_run_setup in
#   drivers/md/md-autodetect.c), which it skips when the initramfs has an
#   /init, as ours does (init/main.c). The guard is defence in depth.
. "$(dirname "$0")/lib.sh"
k=${SOURCE_KERNEL:-linux-6.12-ci}
[ -x "$BB" ] && [ -f "$B/userland.cpio.gz" ] || skip_all "not built (run make)"
command -v sfdisk >/dev/null && command -v python3 >/dev/null || skip_all "sfdisk or python3 missing (scripts/install-deps)"
plan 10
# builds on a cold cache (about 6 min on 2 cores), else only repacks
"$TOP/scripts/fetch-kernel" "$k" >"$T/fetch.log" 2>&1 || { diag "fetch-kernel $k failed:"; tail -20 "$T/fetch.log" | sed 's/^/#   /'; }
ok "$k built from source" test -s "$B/kernels/$k/vmlinuz"

mkdisks() {
	for i in 0 1; do
		rm -f "$T/m$i.img"
		truncate -s 64M "$T/m$i.img"
		printf 'label: dos\nstart=2048, type=fd\n' | sfdisk -q "$T/m$i.img" >/dev/null
		# different data on each member: a resync copies one onto the other
		head -c 4M /dev/urandom | dd of="$T/m$i.img" bs=1M seek=1 conv=notrunc status=none
		python3 tests/fixtures/md090-member.py "$T/m$i.img" "$i" $((2048 * 512)) $((129024 * 512))
	done
}
mkdisks
ok "two disks, each a type-0xfd partition holding a dirty 0.90 RAID1 member" \
	sh -c "sfdisk -J '$T/m0.img' | grep -q '\"type\": *\"fd\"' && od -An -tx4 -j $((2048 * 512 + 129024 * 512 / 65536 * 65536 - 65536)) -N4 '$T/m1.img' | grep -q a92b4efc"
before=$(sha256sum "$T/m0.img" "$T/m1.img" | cut -c1-64 | tr '\n' ' ')

# the records read from a results disk: a kernel message printed while the
# console carries the boot record's line (2.8 KB) can tear it
boot "$k" "$T/safe.log" --plan null --disk "$T/m0.img" --disk "$T/m1.img" --results "$T/safe.img"; rc=$?
is "$rc" 0 "a boot of $k with both disks attached, not claimed"
ok "raid=noautodetect is on the kernel's command line" grep -q 'Kernel command line: .*raid=noautodetect' "$T/safe.log"
is "$(sha256sum "$T/m0.img" "$T/m1.img" | cut -c1-64 | tr '\n' ' ')" "$before" "both unclaimed disks byte-identical after the boot"
"$BB" collect "$T/safe.img" 2>/dev/null | jq -c 'select(.type == "boot") | .data.md_autodetect' > "$T/md.json"
is "$(cat "$T/md.json")" '{"disabled":true,"arrays_at_start":[]}' "the boot record: autodetect disabled, no array found at start"

# the control: what happens without the guard
mkdisks
before=$(sha256sum "$T/m0.img" "$T/m1.img" | cut -c1-64 | tr '\n' ' ')
boot "$k" "$T/unsafe.log" --plan null --disk "$T/m0.img" --disk "$T/m1.img" --results "$T/unsafe.img" --append raid=autodetect
ok "control: the kernel's command line ends with raid=autodetect" sh -c "tr -d '\\r' < '$T/unsafe.log' | grep -q 'Kernel command line: .*raid=noautodetect.* raid=autodetect$'"
"$BB" collect "$T/unsafe.img" 2>/dev/null | jq -c 'select(.type == "boot") | .data.md_autodetect' > "$T/md2.json"
ok "control: the boot record says autodetect was not disabled, and the console warns" \
	sh -c "[ \$(wc -l <'$T/md2.json') = 1 ] && jq -e '.disabled == false' '$T/md2.json' >/dev/null &&
	       grep -q 'raid=noautodetect is not on the kernel command line' '$T/unsafe.log'"
is "$(jq -c .arrays_at_start "$T/md2.json"):$(grep -c 'md: Autodetecting RAID arrays' "$T/unsafe.log")" "[]:0" \
	"control: no array assembled (an initramfs with /init skips the kernel's autodetect)"
is "$(sha256sum "$T/m0.img" "$T/m1.img" | cut -c1-64 | tr '\n' ' ')" "$before" "control: both disks byte-identical too"
done_testing
