#!/usr/bin/env bash
# timeout: 2400
# bootbench-test: slow (builds a kernel from source the first time: start it first)
# (tests/timeout-run: a kernel build from source when the build cache is cold)
# Kernels built from Debian's source packages with one config recipe, the
# minimal one (allnoconfig + kernels/config/ci.config: about 10 min a build on 2
# cores, where x86_64_defconfig + qemu.config took 14-24). Users compare
# versions with the full recipe, linux-*-qemu; the chain is the same.
# linux-6.12-ci is built (boot-md-noautodetect.t, before this test, built
# it already), or taken from the build cache: a rebuild with nothing
# changed must not run make; it boots the appliance in QEMU with no module
# archive, its boot record carries the recipe hash and its own config hash.
# linux-6.1-ci is only configured (build-kernel --config-only: one full
# build fits the budget of a cold make check, two did not): the fragment's
# settings, read back from each version's config, are equal except for what
# config.unheld reports. compare then puts the 6.12 kernel built here
# beside Debian's 6.1.192.
. "$(dirname "$0")/lib.sh"
A=${SOURCE_A:-linux-6.1-ci} Bk=${SOURCE_B:-linux-6.12-ci} D=${DEBIAN_KERNEL:-debian-6.1-generic}
[ -x "$BB" ] && [ -f "$B/userland.cpio.gz" ] || skip_all "not built (run make)"
need_kernel "$D" || skip_all "$D not fetched (make kernels)"
plan 13

# builds on a cold cache, else only repacks
"$TOP/scripts/fetch-kernel" "$Bk" >"$T/fetch-$Bk.log" 2>&1 || { diag "fetch-kernel $Bk failed:"; tail -20 "$T/fetch-$Bk.log" | sed 's/^/#   /'; }
ok "$Bk built from source (build/kernels/$Bk/vmlinuz)" test -s "$B/kernels/$Bk/vmlinuz"
"$TOP/scripts/build-kernel" --config-only "$A" >"$T/objA" 2>"$T/conf-$A.log" || { diag "build-kernel --config-only $A failed:"; tail -20 "$T/conf-$A.log" | sed 's/^/#   /'; }
OBJA=$(tail -n 1 "$T/objA")
ok "$A configured with the same recipe, no kernel built ($(grep -o 'configured in [0-9]* s' "$T/conf-$A.log"))" \
	sh -c "[ -s '$OBJA/.config' ] && grep -q 'configured in' '$T/conf-$A.log' && ! grep -q 'bzImage' '$OBJA/bootbench/build.log'"

make -s kernel NAME=$Bk >"$T/again.log" 2>&1
ok "make kernel again with nothing changed: the cached build is used, make is not run" \
	sh -c "grep -q 'cached build' '$T/again.log' && ! grep -q 'bzImage:' '$T/again.log'"

rec() { sed -n 's/^RECIPE_SHA256=//p' "$1/recipe"; }
ok "one recipe for both versions (same base and fragment: $(rec "$B/kernels/$Bk" | cut -c1-12))" \
	sh -c "[ -n '$(rec "$B/kernels/$Bk")' ] && [ '$(rec "$B/kernels/$Bk")' = '$(rec "$OBJA/bootbench")' ]"

# The fragment's settings as each version's config holds them, minus what
# config.unheld reports: must be identical for the two versions.
view() { # CONFIG UNHELD_A UNHELD_B
	sed -n -e 's/^\(CONFIG_[A-Za-z0-9_]*\)=.*/\1/p' -e 's/^# \(CONFIG_[A-Za-z0-9_]*\) is not set$/\1/p' \
		"$TOP/kernels/$(sed -n 's/^CONFIG_FRAGMENT=//p' "$TOP/kernels/$A.kernel")" | while read -r opt; do
		grep -q "^$opt " "$OBJA/bootbench/config.unheld" "$B/kernels/$Bk/config.unheld" && continue
		v=$(sed -n -e "s/^$opt=\\(.*\\)$/\\1/p" -e "s/^# $opt is not set$/n/p" "$1")
		echo "$opt=${v:-n}"
	done | sha256sum | cut -d' ' -f1
}
diag "fragment settings not held: $A $(wc -l <"$OBJA/bootbench/config.unheld"), $Bk $(wc -l <"$B/kernels/$Bk/config.unheld")"
is "$(view "$OBJA/.config")" "$(view "$B/kernels/$Bk/config")" "the fragment's settings are equal in both versions except the reported differences"

img=$T/src.img
for k in $D $Bk $Bk $D; do
	boot "$k" "$T/$k.log" --deterministic --results "$img" --plan light --memory 512
	echo "$k $?" >>"$T/rcs"
done
is "$(cut -d' ' -f2 "$T/rcs" | tr -d '\n')" 0000 "$Bk and $D boot the appliance and run the light plan (A B B A)"
ok "no module archive needed for $Bk: 0 modules loaded, 0 missing" \
	grep -q '^bootbench: modules:  0 loaded, 0 missing, 0 failed' "$T/$Bk.log"

"$BB" collect "$img" 2>/dev/null | jq -c 'select(.type == "boot") | .data.kernel' >"$T/kernels.jsonl"
is "$(jq -r '.descriptor.name' "$T/kernels.jsonl" | tr '\n' ' ')" "$D $Bk $Bk $D " "the boot records name the descriptors"
is "$(jq -r "select(.descriptor.name == \"$Bk\") | .descriptor.recipe_sha256" "$T/kernels.jsonl" | sort -u)" "$(rec "$B/kernels/$Bk")" \
	"$Bk's boot records carry its config recipe hash"
is "$(jq -r "select(.descriptor.name == \"$Bk\") | .config_sha256" "$T/kernels.jsonl" | sort -u)" \
	"$(sha256sum "$B/kernels/$Bk/config" | cut -d' ' -f1)" \
	"$Bk's boot record's config hash is its own .config (as /proc/config.gz)"

# brd is built into the ci kernels (1 GiB disks): the 64M ramdisk layout's
# filesystem is cut to 64M, said in fs.size_bytes, and the mkfs text (the
# layout's identity) is the one a Debian kernel's brd module gives.
"$BB" collect "$img" 2>/dev/null | jq -s -r '(map(select(.type == "boot")) | map({key: .boot_id, value: .data.kernel.descriptor.name}) | from_entries) as $d
	| .[] | select(.type == "run" and .data.layout.kind == "ramdisk" and $d[.boot_id] == "'"$Bk"'") | .data.layout |
	"\(.size_bytes) \(.fs.size_bytes) \(.fs.mkfs)"' | sort -u >"$T/ram.txt"
sed 's/^/# /' "$T/ram.txt"
is "$(cat "$T/ram.txt")" "67108864 67108864 /sbin/mke2fs -F -q -t ext2 -b 4096 -I 256 -m 0 -O none,dir_index,filetype,sparse_super,large_file,resize_inode,ext_attr -E lazy_itable_init=0" \
	"a built-in brd bigger than asked: fs cut to the layout's size, recorded apart from the mkfs text"

"$BB" compare "$img" >"$T/cmp.out" 2>&1
sed 's/^/# /' "$T/cmp.out" | head -20
ok "compare shows 6.1.192 beside 6.12.117" sh -c "grep -q '6\\.1\\.192' '$T/cmp.out' && grep -q '6\\.12\\.117' '$T/cmp.out'"
ok "compare gives fork/exec a p-value from the two boots each" grep -q 'forkexec_us.* p=' "$T/cmp.out"
done_testing
