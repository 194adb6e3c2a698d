#!/usr/bin/env bash
# The host tool's command-line behaviour: --help everywhere, exit codes, clear
# refusals, damaged records reported with their offset, console logs with
# kernel noise and damaged lines.
. "$(dirname "$0")/lib.sh"
[ -x "$BB" ] || skip_all "not built (run make)"
plan 46

for c in collect mkresults init; do
	ok "bootbench $c --help prints usage" sh -c "'$BB' $c --help | grep -q '^usage: bootbench $c'"
done
"$BB" frobnicate 2>"$T/err"; is "$?" 100 "unknown command: exit 100"
ok "unknown command: says so" grep -q 'fatal: unknown command frobnicate' "$T/err"

img=$T/r.img
"$BB" mkresults "$img" --size 4M 2>/dev/null; is "$?" 0 "mkresults creates an image"
"$BB" mkresults "$img" 2>"$T/err"; is "$?" 100 "mkresults refuses to overwrite an existing image"
"$BB" mkresults "$T/x.img" --size 12Q 2>"$T/err"; is "$?" 100 "bad --size: exit 100"
# one size grammar, with overflow checks: 9000000000T overflowed to a
# 0-byte image once, which then blocked the next try
"$BB" mkresults "$T/big.img" --size 9000000000T 2>"$T/err"; is "$?" 100 "--size 9000000000T: exit 100"
ok "... says it is too large" grep -q 'fatal: bad --size "9000000000T": too large' "$T/err"
ok "... and leaves no image behind" test ! -e "$T/big.img"
"$BB" mkresults "$T/big.img" --size 64MiB 2>/dev/null; is "$?" 0 "the next try (64MiB, the same grammar as plans) works"
# durations are not sizes: 2K seconds and 1k milliseconds are refused
"$BB" run null --timeout 2K >/dev/null 2>"$T/err"; is "$?" 100 "run --timeout 2K: exit 100 (it was 2048 s)"
ok "... naming the grammar" grep -q 'bad --timeout "2K" (seconds, 1..86400: a whole number, or one with ms, s, min or h)' "$T/err"
"$BB" run null --monitor-ms 1k >/dev/null 2>"$T/err"; is "$?" 100 "run --monitor-ms 1k: exit 100 (it was 1024 ms)"
"$BB" run null --timeout 1min --monitor-ms 1s >"$T/rec" 2>/dev/null; is "$?" 0 "run --timeout 1min --monitor-ms 1s works"
mkdir -p "$T/d"
"$BB" run touch --dir "$T/d" --size 64KiB > "$T/rec" 2>/dev/null
is "$(jq -r .data.status "$T/rec")" ok "run accepts a workload size of 64KiB, as plans do"
"$BB" run touch --dir "$T/d" --size 64KB > "$T/rec" 2>/dev/null
is "$(jq -r .data.status "$T/rec")" failed "... and refuses 64KB, as plans do"
"$BB" mkresults --device /dev/null 2>"$T/err"; is "$?" 100 "--device without --yes-destroy is refused"
ok "... saying what would happen" grep -q 'destroys everything on /dev/null: add --yes-destroy' "$T/err"
# upload keys (issue 36): made once, mode 0600, reused, never a surprise
"$BB" mkresults "$T/k1.img" --size 4M --key "$T/k" 2>/dev/null
is "$? $(stat -c %a "$T/k") $(grep -Ecx '[0-9a-f]{64}' "$T/k")" "0 600 1" "mkresults --key makes a new key file: mode 0600, 64 hex digits"
"$BB" mkresults "$T/k2.img" --size 4M --key "$T/k" 2>"$T/err"
ok "... and reuses an existing one" sh -c "grep -q 'upload key from $T/k' '$T/err' && [ \$(grep -c . '$T/k') = 1 ]"
! "$BB" collect "$T/k1.img" 2>&1 | grep -qf "$T/k"
ok "collect of the image does not print the key" test $? = 0
"$BB" mkresults "$T/k1.img" --key "$T/new" 2>/dev/null
is "$? $(test -e "$T/new" && echo made)" "100 " "an image refused (it exists) leaves no new key file behind"
"$BB" mkresults "$T/k1.img" --set-key "$T/typo" 2>"$T/err"
is "$? $(test -e "$T/typo" && echo made)" "100 " "--set-key with a file that does not exist is refused, no key made"
"$BB" mkresults "$T/k1.img" --set-key "$T/k" --plan /dev/null 2>/dev/null
is "$?" 100 "--set-key with --plan is refused (it changes only the key)"
openssl rand -hex 32 >"$T/k3" 2>/dev/null || od -An -N32 -tx1 /dev/urandom | tr -d ' \n' >"$T/k3"
"$BB" mkresults "$T/k1.img" --set-key "$T/k3" 2>/dev/null
is "$?" 0 "--set-key replaces the key of an existing results partition"
printf '%064d\n' 0 >"$T/zero"
"$BB" mkresults "$T/k4.img" --size 4M --key "$T/zero" 2>"$T/err"
is "$? $(test -e "$T/k4.img" && echo left)" "100 " "an all-zero key is refused, the image removed"

"$BB" collect "$img" >"$T/out" 2>/dev/null; is "$?" 0 "collect on an empty results image: exit 0"
is "$(wc -c < "$T/out")" 0 "... and prints no records"
"$BB" collect "$T/none" 2>/dev/null; is "$?" 1 "collect on a missing file: exit 1"
head -c 1048576 /dev/zero > "$T/zero.img"
"$BB" collect "$T/zero.img" 2>"$T/err"; is "$?" 1 "collect on a disk without the partition: exit 1"
"$BB" collect --format xml "$img" 2>/dev/null; is "$?" 100 "unknown --format: exit 100"

# a console log with kernel noise, a CRLF line and a damaged record line
cat > "$T/console.log" <<'LOG'
[    2.1] virtio_blk virtio1: [vda] 131072 512-byte logical blocks
BOOTBENCH {"seq":1,"boot_id":"00","type":"boot","data":{"kernel":{"release":"6.1"}}}
BOOTBENCH {"seq":2,"boot_id":"00","type":"run","data":{"metr[    3.4] random: crng init done
BOOTBENCH {"seq":3,"boot_id":"00","type":"end","data":{"reason":"done"}}
LOG
printf 'BOOTBENCH {"seq":4,"boot_id":"00","type":"event","data":{}}\r\n' >> "$T/console.log"
"$BB" collect "$T/console.log" >"$T/out" 2>"$T/err"; is "$?" 2 "console log with a damaged record: exit 2 (records lost)"
is "$(jq -r .seq "$T/out" | tr '\n' ' ')" "1 3 4 " "console log: valid records kept, CR stripped"
ok "console log: the damaged line is reported with its line number" grep -q 'console.log: line 3: damaged record' "$T/err"
ok "... and the loss summed up" grep -q 'records were lost: 1 damaged or unreadable' "$T/err"
grep -v 'seq":2' "$T/console.log" > "$T/clean.log"
"$BB" collect "$T/clean.log" >/dev/null 2>&1; is "$?" 0 "the same log without the damaged line: exit 0"

# a truncated image (its backup GPT and the partition's end gone) is still read
"$BB" mkresults "$T/t.img" --size 8M 2>/dev/null
truncate -s 6M "$T/t.img"
"$BB" collect "$T/t.img" >"$T/out" 2>"$T/err"; rc=$?
ok "a truncated image: its partition is found, with a warning (was: no results partition)" \
	grep -q 'the image is truncated: the partition.s last [0-9]* bytes are missing; reading what is there' "$T/err"
is "$rc" 2 "... and collect exits 2: what was past the cut is lost"

# attack 9 of issue 36, the partition table: a damaged primary GPT hid the
# partition ("no results partition", exit 1: the backup was never read);
# two partitions named bootbench-results: the first won silently
"$BB" mkresults "$T/g.img" --size 8M 2>/dev/null
dd if=/dev/zero of="$T/g.img" bs=512 seek=1 count=1 conv=notrunc 2>/dev/null
"$BB" collect "$T/g.img" >"$T/out" 2>"$T/err"; rc=$?
ok "a zeroed primary GPT header: the partition is read from the backup GPT, and the warning says so (exit $rc)" \
	sh -c "[ $rc = 0 ] && grep -q 'the primary GPT is damaged: the partition was found in the backup GPT' '$T/err'"
if command -v sfdisk >/dev/null; then
	truncate -s 16M "$T/two.img"
	printf 'label: gpt\nsize=4M, name="bootbench-results"\nsize=4M, name="bootbench-results"\n' | sfdisk -q "$T/two.img"
	"$BB" collect "$T/two.img" >"$T/out" 2>"$T/err"; rc=$?
	ok "two partitions named bootbench-results: refused (exit $rc), naming both" \
		sh -c "[ $rc = 1 ] && grep -q 'has two results partitions, 1 (bootbench-results) and 2 (bootbench-results)' '$T/err'"
else
	skip "no sfdisk (package fdisk) to make a disk with two results partitions"
fi

# every parameter of every workload can be set from a plan (hdparm's
# seconds_T could not: plan parameter names are lower case); those whose
# default is empty (unset) are not written, as a plan cannot give ""
"$BB" run --list | awk '/^[a-z]/ {w=$1; next} /^ +[^ ]+=[^ ]/ {sub(/^ +/, ""); print w, $1}' > "$T/params"
n=0 bad=
while read -r w kv; do
	printf 'requires layer=postgresql\nlayout l fs=none\nworkload %s %s\n' "$w" "$kv" > "$T/p.plan"
	"$BB" plan check "$T/p.plan" >/dev/null 2>>"$T/perr" || bad="$bad $w:${kv%%=*}"
	n=$((n + 1))
done < "$T/params"
ok "run --list shows parameters ($n)" test "$n" -ge 40
is "${bad:-none}" none "every workload parameter, at its default, is accepted in a plan"

# what a plan must say of its workloads beyond their parameters
printf 'layout l fs=ext3\nworkload null\nworkload pgbench duration=1\n' > "$T/pg.plan"
is "$("$BB" plan check "$T/pg.plan" 2>&1 >/dev/null)" \
	"$T/pg.plan:3: workload pgbench runs the postgresql layer's programs: the plan needs \"requires layer=postgresql\" (or bindir= naming programs of its own)" \
	"a PostgreSQL workload without requires layer=postgresql is refused, naming the line"
printf 'layout l fs=ext3\nworkload nfsmix loads=50\nnfsserver\nnfsclient\n' > "$T/nfs.plan"
is "$("$BB" plan check "$T/nfs.plan" 2>&1 >/dev/null)" \
	"$T/nfs.plan:2: nfsmix is an NFS client itself: with server=local it does not run through the kernel's client (put it in a section without nfsclient)" \
	"nfsmix against its own server under nfsclient is refused (workloads/nfsmix.c's rule, not the parser's)"

done_testing
