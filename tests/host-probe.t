#!/usr/bin/env bash
# What a disk holds, by libblkid (lib/probe.c): mkscratch and mkresults
# --device refuse a disk holding anybody's data unless --force is given,
# for formats the old hand-written detector did not know (LUKS1, LUKS2,
# F2FS, squashfs, minix) and the ones it did (md 1.2, LVM, ext4, swap). A
# refused disk is byte-identical afterwards. Signatures are made by the
# formats' own tools (cryptsetup, mkfs.f2fs, mksquashfs, mkfs.minix,
# pvcreate on a loop device, mkswap), the md superblock by
# tests/fixtures/md12-member.py. A disk already labelled scratch is
# relabelled, unless something the appliance never writes is on it now.
. "$(dirname "$0")/lib.sh"
[ -x "$BB" ] || skip_all "not built (run make)"
for t in cryptsetup mkfs.f2fs mksquashfs mkfs.minix pvcreate losetup mkswap python3; do
	command -v "$t" >/dev/null || skip_all "no $t (scripts/install-deps installs it)"
done
plan 33

# loop devices are noted in a file: loop() runs in $(...) subshells
cleanup() { [ -f "$T/loops" ] && while read -r l; do losetup -d "$l" 2>/dev/null; done <"$T/loops"; rm -rf "$T"; }
trap cleanup EXIT
loop() { local l; l=$(losetup -f --show "$1") || return 1; echo "$l" >>"$T/loops"; echo "$l"; }
export LVM_SUPPRESS_FD_WARNINGS=1
ROOT=$([ "$(id -u)" = 0 ] && echo 1)

key=$T/key
echo not-a-secret >"$key"
mk() {	# mk NAME: an image holding NAME's signature
	local f=$T/$1.img
	truncate -s 64M "$f"
	case $1 in
	luks1) cryptsetup luksFormat -q --type luks1 --pbkdf-force-iterations 1000 --key-file "$key" "$f" ;;
	luks2) cryptsetup luksFormat -q --type luks2 --pbkdf pbkdf2 --pbkdf-force-iterations 1000 --key-file "$key" "$f" ;;
	f2fs) mkfs.f2fs -q "$f" ;;
	squashfs) mkdir -p "$T/sq" && echo data >"$T/sq/file" && rm -f "$f" && mksquashfs "$T/sq" "$f" -quiet -noappend && truncate -s 64M "$f" ;;
	minix) mkfs.minix "$f" ;;
	md12) python3 tests/fixtures/md12-member.py "$f" nas:0 ;;
	lvm) local l; l=$(loop "$f") && pvcreate -qq "$l" ;;
	ext4) mkfs.ext4 -q -F "$f" ;;
	swap) mkswap "$f" ;;
	esac >"$T/mk-$1.log" 2>&1
}

# the type libblkid names in the refusal, per format
declare -A TYPE=([luks1]=crypto_LUKS [luks2]=crypto_LUKS [f2fs]=f2fs [squashfs]=squashfs [minix]=minix
	[md12]=linux_raid_member [lvm]=LVM2_member [ext4]=ext4 [swap]=swap)
for fmt in luks1 luks2 f2fs squashfs minix md12 lvm ext4 swap; do
	if [ "$fmt" = lvm ] && [ -z "$ROOT" ]; then skip "pvcreate needs a loop device: root"; skip "(lvm)"; continue; fi
	mk "$fmt" || diag "making $fmt failed: $(tail -n 3 "$T/mk-$fmt.log")"
	f=$T/$fmt.img sum=$(sha256sum <"$T/$fmt.img")
	out=$("$BB" mkscratch "$f" --yes-destroy 2>&1)
	rc=$?
	ok "mkscratch refuses $fmt without --force (exit $rc), naming ${TYPE[$fmt]}" \
		sh -c "[ $rc = 100 ] && echo \"\$1\" | grep -q 'holds ${TYPE[$fmt]} ('" _ "$out"
	case $out in *"holds ${TYPE[$fmt]} ("*) : ;; *) diag "said: $out" ;; esac
	is "$(sha256sum <"$f")" "$sum" "... and the $fmt disk is byte-identical"
done
# the refusals name the format: one check that the text is there at all
ok "the message says what is there and where (LUKS2: both headers)" \
	sh -c "'$BB' mkscratch '$T/luks2.img' --yes-destroy 2>&1 | grep -q 'holds crypto_LUKS (an encrypted volume, at byte 0), crypto_LUKS (an encrypted volume, at byte 16384)'"
"$BB" mkscratch "$T/f2fs.img" --yes-destroy --force >/dev/null 2>&1
is "$? $(head -c 10 "$T/f2fs.img")" "0 BBSCRATCH1" "with --force, mkscratch labels it"

# mkresults --device: on a block device (a loop device here: root only)
devfmts="luks2 md12 squashfs"
[ -n "$ROOT" ] || { devfmts=; for i in 1 2 3 4 5 6 7 8; do skip "loop devices need root"; done; }
for fmt in $devfmts; do
	mk "$fmt"
	l=$(loop "$T/$fmt.img")
	sum=$(sha256sum <"$T/$fmt.img")
	out=$("$BB" mkresults --device "$l" --yes-destroy 2>&1)
	rc=$?
	ok "mkresults --device refuses $fmt without --force ($rc: ${out#*fatal: })" \
		sh -c "[ $rc = 100 ] && echo \"\$1\" | grep -q 'holds ${TYPE[$fmt]} ('" _ "$out"
	is "$(sha256sum <"$T/$fmt.img")" "$sum" "... and leaves it byte-identical"
done
if [ -n "$ROOT" ]; then
	"$BB" mkresults --device "$l" --yes-destroy --force >/dev/null 2>&1
	is "$?" 0 "with --force, mkresults --device writes it"
	out=$("$BB" mkresults --device "$l" --yes-destroy 2>&1)
	ok "a disk holding a results partition is refused too (it is a GPT disk now)" \
		sh -c "echo \"\$1\" | grep -q 'holds gpt (a partition table'" _ "$out"
fi

# scratch disks: relabelling, and what the appliance itself leaves
f=$T/scratch.img
truncate -s 64M "$f"
"$BB" mkscratch "$f" --yes-destroy >/dev/null 2>&1
is "$?" 0 "an empty disk is labelled"
"$BB" mkscratch "$f" --yes-destroy >/dev/null 2>&1
is "$?" 0 "a labelled disk is relabelled without --force"
python3 tests/fixtures/md12-member.py "$f" bootbench:scratch
"$BB" mkscratch "$f" --yes-destroy >/dev/null 2>&1
is "$?" 0 "... also when it holds a member of the appliance's own md array (bootbench:scratch)"
python3 tests/fixtures/md12-member.py "$f" nas:0
out=$("$BB" mkscratch "$f" --yes-destroy 2>&1)
ok "... but not when an md array named nas:0 was created on it since (mdadm leaves the label)" \
	sh -c "echo \"\$1\" | grep -q 'holds bootbench_scratch (a signature, at byte 0), linux_raid_member (a RAID or volume member labelled \"nas:0\", at byte 4096)'" _ "$out"
# a hostile label: control bytes never reach the terminal
python3 tests/fixtures/md12-member.py "$f" "$(printf 'x\033[2J\ny')"
out=$("$BB" mkscratch "$f" --yes-destroy 2>&1)
ok "a label with control bytes is printed with them as '?'" \
	sh -c "echo \"\$1\" | grep -q 'labelled \"x?\\[2J?y\"' && ! echo \"\$1\" | grep -q \"\$(printf '\\033')\"" _ "$out"
done_testing
