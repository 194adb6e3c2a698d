#!/usr/bin/env bash
# scripts/lava-series: kernels A and B compared through LAVA for real
# (lava-run on this machine, a job a boot), in deterministic mode, with
# confirmation rounds: the rounds stop at the first look that decides every
# figure (round 2 or 3: figures repeat to ~0.1% under instruction counting).
# The figures come from the jobs' LAVA logs and from each job's own results
# image (the same records: compare counts each boot once); the series ends
# with a report and a KCIDB submission that passes the schema checks.
. "$(dirname "$0")/lib.sh"
a=${KERNEL_A:-debian-6.1-generic} b=${KERNEL_B:-debian-6.1-rt}
[ -x "$BB" ] && [ -f "$B/userland.cpio.gz" ] || skip_all "not built (run make)"
need_kernel "$a" && need_kernel "$b" || skip_all "$a or $b not fetched (make kernels)"
command -v lava-run >/dev/null || skip_all "no lava-run (package lava-dispatcher; scripts/install-deps installs it)"
command -v jq >/dev/null || skip_all "jq not installed"
plan 8

timeout -k 10 1500 "$TOP/scripts/lava-series" --kernels "$a,$b" --plan light --deterministic --confirm 3 \
	--out "$T/s" >"$T/out" 2>"$T/err"
is "$?" 0 "lava-series runs to the end"
jobs=$(ls "$T/s"/job*.log 2>/dev/null | wc -l)
last=$(tail -n 1 "$T/s/confirm.log" 2>/dev/null)
r=$(sed -n 's/^round \([0-9]*\) of 3: .*: decided$/\1/p' <<<"$last")
# deterministic figures repeat to ~0.1%, but a noisier one (fsync on a
# ramdisk) may need the third round: what matters is that the rounds stop
# at the first look that decides, and no later
ok "rounds stopped once decided: $last ($jobs jobs)" sh -c "[ -n '$r' ] && [ '$r' -ge 2 ] && [ $jobs = \$(( $r * 2 )) ]"
ids=$("$BB" collect "$T/s"/job*.log 2>/dev/null | jq -r 'select(.type == "boot") | .boot_id' | sort -u | wc -l)
is "$ids" "$jobs" "every job's log gives its own boot (a nonce a boot: same seed, different boot ids)"
# each job carried its own results image: the same records as its log
same=0
for l in "$T/s"/job*.log; do
	"$BB" collect "$l" >"$T/l.jsonl" 2>/dev/null
	"$BB" collect "${l%.log}"/s*/results.img >"$T/i.jsonl" 2>/dev/null
	[ -s "$T/l.jsonl" ] && cmp -s "$T/l.jsonl" "$T/i.jsonl" && same=$((same + 1))
done
ok "every job's results image holds the records its log holds ($same of $jobs), and the comparison read both" \
	sh -c "[ $same = $jobs ] && [ \$(wc -l <'$T/s/images.list') = $jobs ] &&
	       grep -Eq '^  6.1.192 generic +$((jobs / 2)) boots' '$T/out' && grep -Eq '^  6.1.192 rt +$((jobs / 2)) boots' '$T/out'"
dmi=$("$BB" collect "$T/s"/job*.log 2>/dev/null | jq -r 'select(.type == "boot") | .data.dmi.vendor + "/" + .data.dmi.product' | sort -u)
is "$dmi" "QEMU/Standard PC (i440FX + PIIX, 1996)" "every boot record names the machine as its firmware does (DMI: QEMU's)"
ok "the comparison says which round confirmed each figure" grep -Eq '^ +changed +round [23] ' "$T/out"
ok "the HTML report is written" test -s "$T/s/report.html"
if /usr/bin/python3 -c 'import jsonschema' 2>/dev/null; then
	out=$(/usr/bin/python3 "$TOP/tests/kcidb-check.py" "$T/s/kcidb.json"); rc=$?
	is "$rc" 0 "the series' KCIDB submission passes the schema checks ($out)"
else
	skip "no python3-jsonschema (scripts/install-deps installs it)"
fi
[ "$_failed" = 0 ] || { sed 's/^/# /' "$T/err" | tail -n 30; }
done_testing
