#!/usr/bin/env bash
# Bad input never panics and never hangs: a malformed bootbench.* value gets a
# clear message and a clean power-off; an unknown key is warned about with the
# valid ones listed; a module archive missing a needed module names it and the
# boot still ends cleanly.
. "$(dirname "$0")/lib.sh"
k=${KERNEL:-debian-6.1-generic}
[ -x "$BB" ] && [ -f "$B/userland.cpio.gz" ] || skip_all "not built (run make)"
need_kernel "$k" || skip_all "$k not fetched (make kernels)"
plan 11

log=$T/bad.log
boot "$k" "$log" --append "bootbench.reboot=yes bootbench.colour=blue"; rc=$?
is "$rc" 2 "malformed value: boot-qemu reports an appliance failure (exit 2)"
ok "malformed value: message names key, value and what is expected" \
	grep -q 'bootbench: fatal: bad value for bootbench.reboot: "yes" (expected 0 or 1)' "$log"
ok "malformed value: still syncs and powers off" grep -q '^bootbench: syncing and powering off' "$log"
ok "no kernel panic (in a console log that reached the appliance)" \
	sh -c "grep -q '^bootbench: init starting' '$log' && ! grep -q 'Kernel panic' '$log'"

log=$T/unknown.log
boot "$k" "$log" --append "bootbench.colour=blue"; rc=$?
is "$rc" 0 "unknown key alone: the boot completes"
ok "unknown key: warned about, with the valid keys listed" \
	grep -q 'warning: unknown key bootbench.colour ignored (valid: plan, disks, readonly, results' "$log"

# A module archive without libcrc32c.ko, but whose modules.dep still lists it.
mkdir -p "$T/mods" && (cd "$T/mods" && zcat "$B/kernels/$k/modules.cpio.gz" | cpio -id --quiet)
rm -f "$T"/mods/lib/modules/*/kernel/lib/libcrc32c.ko
(cd "$T/mods" && find . | sort | cpio -o -H newc -R 0:0 --quiet | gzip -n > "$T/trimmed.cpio.gz")
# only a plan with an xfs layout needs xfs (and so libcrc32c) at all
printf 'plan needs-xfs\nlayout x ramdisk=320M fs=xfs\nworkload null\n' > "$T/xfs.plan"
"$BB" mkresults "$T/xfs.img" --size 16M --plan "$T/xfs.plan" >/dev/null 2>&1
log=$T/missing.log
boot "$k" "$log" --modules "$T/trimmed.cpio.gz" --results "$T/xfs.img"; rc=$?
is "$rc" 0 "missing module: the boot still completes and powers off"
ok "missing module: named, with the module that needed it" \
	grep -q 'warning: missing module libcrc32c (needed by xfs)' "$log"
ok "missing module: its users are not loaded, and say why" \
	grep -q 'warning: module xfs not loaded: its dependency libcrc32c is missing' "$log"
ok "missing module: the summary lists it" grep -q '^bootbench: missing modules: libcrc32c' "$log"
is "$("$BB" collect "$T/xfs.img" 2>/dev/null | jq -c 'select(.type=="boot") | .data.modules.missing')" '["libcrc32c"]' \
	"missing module: the boot record carries it"
done_testing
