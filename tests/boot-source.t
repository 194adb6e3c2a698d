#!/usr/bin/env bash
# timeout: 2400
# (tests/timeout-run: two kernel builds from source when the build cache is cold)
# Kernels built from Debian's source packages with one config recipe:
# linux-6.1-ci and linux-6.12-ci (kernels/*.kernel, KIND=source), the minimal
# recipe (allnoconfig + kernels/config/ci.config: 6 min a build on 2 cores,
# where x86_64_defconfig + qemu.config took 14-24). Users compare with the
# full recipe, linux-*-qemu; the chain is the same. Each is
# built (or taken from the build cache: a rebuild with nothing changed must
# not run make), boots the appliance in QEMU with no module archive, and its
# boot record carries the recipe hash. Both boot records show the same recipe;
# the fragment's settings, read back from each kernel's own config, are equal
# except for what config.unheld reports; and compare puts 6.1 beside 6.12.
. "$(dirname "$0")/lib.sh"
A=${SOURCE_A:-linux-6.1-ci} Bk=${SOURCE_B:-linux-6.12-ci}
[ -x "$BB" ] && [ -f "$B/userland.cpio.gz" ] || skip_all "not built (run make)"
plan 12

for k in $A $Bk; do
	# builds on a cold cache (about 6 min each on 2 cores), else only repacks
	"$TOP/scripts/fetch-kernel" "$k" >"$T/fetch-$k.log" 2>&1 || { diag "fetch-kernel $k failed:"; tail -20 "$T/fetch-$k.log" | sed 's/^/#   /'; }
done
ok "both kernels built from source (build/kernels/NAME/vmlinuz)" test -s "$B/kernels/$A/vmlinuz" -a -s "$B/kernels/$Bk/vmlinuz"

make -s kernel NAME=$A >"$T/again.log" 2>&1
ok "make kernel again with nothing changed: the cached build is used, make is not run" \
	sh -c "grep -q 'cached build' '$T/again.log' && ! grep -q 'bzImage:' '$T/again.log'"

rec() { sed -n 's/^RECIPE_SHA256=//p' "$B/kernels/$1/recipe"; }
ok "one recipe for both (same base and fragment: $(rec $A | cut -c1-12))" \
	sh -c "[ -n '$(rec $A)' ] && [ '$(rec $A)' = '$(rec $Bk)' ]"

img=$T/src.img
for k in $A $Bk $Bk $A; do
	boot "$k" "$T/$k.log" --deterministic --results "$img" --plan light --memory 512
	echo "$k $?" >>"$T/rcs"
done
is "$(cut -d' ' -f2 "$T/rcs" | tr -d '\n')" 0000 "both boot the appliance and run the light plan (A B B A)"
ok "no module archive needed: 0 modules loaded, 0 missing" \
	sh -c "grep -q '^bootbench: modules:  0 loaded, 0 missing, 0 failed' '$T/$A.log' && grep -q '^bootbench: modules:  0 loaded, 0 missing, 0 failed' '$T/$Bk.log'"

"$BB" collect "$img" 2>/dev/null | jq -c 'select(.type == "boot") | .data.kernel' >"$T/kernels.jsonl"
is "$(jq -r '.descriptor.name' "$T/kernels.jsonl" | tr '\n' ' ')" "$A $Bk $Bk $A " "the boot records name the descriptors"
is "$(jq -r '.descriptor.recipe_sha256' "$T/kernels.jsonl" | sort -u)" "$(rec $A)" \
	"both boot records carry the same config recipe hash"
is "$(jq -r '.config_sha256' "$T/kernels.jsonl" | head -n 2 | tr '\n' ' ')" \
	"$(sha256sum "$B/kernels/$A/config" | cut -d' ' -f1) $(sha256sum "$B/kernels/$Bk/config" | cut -d' ' -f1) " \
	"each boot record's config hash is its kernel's own .config (as /proc/config.gz)"

# The fragment's settings as each kernel's config holds them, minus what
# config.unheld reports: must be identical for the two versions.
view() {
	sed -n -e 's/^\(CONFIG_[A-Za-z0-9_]*\)=.*/\1/p' -e 's/^# \(CONFIG_[A-Za-z0-9_]*\) is not set$/\1/p' \
		"$TOP/kernels/$(sed -n 's/^CONFIG_FRAGMENT=//p' "$TOP/kernels/$A.kernel")" | while read -r opt; do
		grep -q "^$opt " "$B/kernels/$A/config.unheld" "$B/kernels/$Bk/config.unheld" && continue
		v=$(sed -n -e "s/^$opt=\\(.*\\)$/\\1/p" -e "s/^# $opt is not set$/n/p" "$B/kernels/$1/config")
		echo "$opt=${v:-n}"
	done | sha256sum | cut -d' ' -f1
}
diag "fragment settings not held: $A $(wc -l <"$B/kernels/$A/config.unheld"), $Bk $(wc -l <"$B/kernels/$Bk/config.unheld")"
is "$(view $A)" "$(view $Bk)" "the fragment's settings are equal in both kernels except the reported differences"

# brd is built into the ci kernels (1 GiB disks): the 64M ramdisk layout's
# filesystem is cut to 64M, said in fs.size_bytes, and the mkfs text (the
# layout's identity) is the one a Debian kernel's brd module gives.
"$BB" collect "$img" 2>/dev/null | jq -r 'select(.type == "run" and .data.layout.kind == "ramdisk") | .data.layout |
	"\(.size_bytes) \(.fs.size_bytes) \(.fs.mkfs)"' | sort -u >"$T/ram.txt"
sed 's/^/# /' "$T/ram.txt"
is "$(cat "$T/ram.txt")" "67108864 67108864 /sbin/mke2fs -F -q -t ext2 -b 4096 -I 256 -m 0 -O none,dir_index,filetype,sparse_super,large_file,resize_inode,ext_attr -E lazy_itable_init=0" \
	"a built-in brd bigger than asked: fs cut to the layout's size, recorded apart from the mkfs text"

"$BB" compare "$img" >"$T/cmp.out" 2>&1
sed 's/^/# /' "$T/cmp.out" | head -20
ok "compare shows 6.1.192 beside 6.12.117" sh -c "grep -q '6\\.1\\.192' '$T/cmp.out' && grep -q '6\\.12\\.117' '$T/cmp.out'"
ok "compare gives fork/exec a p-value from the two boots each" grep -q 'forkexec_us.* p=' "$T/cmp.out"
done_testing
