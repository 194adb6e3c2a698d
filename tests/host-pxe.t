#!/usr/bin/env bash
# bootbench pxe serve on loopback, without QEMU: the rotation a target is
# handed (and its resumption after a restart), the power-off script at the
# end, uploads stored once (duplicates and damaged lines counted, not
# stored), unknown targets and bad MACs refused, nothing outside the boot
# root served, and pxe status.
. "$(dirname "$0")/lib.sh"
[ -x "$BB" ] || skip_all "not built (run make)"
command -v curl >/dev/null || skip_all "no curl"
plan 17

R=$T/root M=52-54-00-aa-bb-cc
mkdir -p "$R/targets/$M" "$R/kernels/A"
echo userland >"$R/userland.cpio.gz"
echo kernel-a >"$R/kernels/A/vmlinuz"
printf 'A\nB\nB\nA\n' >"$R/targets/$M/schedule"
echo "console=ttyS1,115200 panic=-1 bootbench.plan=light" >"$R/targets/$M/args"
echo poweroff >"$R/targets/$M/finally"
echo secret >"$T/outside"

start() {
	"$BB" pxe serve "$R" --port 0 >"$T/serve.out" 2>&1 &
	SP=$!
	for _ in $(seq 50); do grep -q '^serving' "$T/serve.out" && break; sleep 0.1; done
	U=$(sed -n 's|^serving .* at \(http://127.0.0.1:[0-9]*\)/$|\1|p' "$T/serve.out")
}
stop() { kill "$SP"; wait "$SP" 2>/dev/null; }
get() { curl -s -o "$T/body" -w '%{http_code}' "$U$1"; }
kernel_of() { sed -n 's|^kernel http://[^/]*/kernels/\([^/]*\)/vmlinuz .*|\1|p' "$T/body"; }

start
seq=
for i in 1 2; do get /boot/52:54:00:AA:BB:CC >/dev/null; seq="$seq$(kernel_of)"; done
stop
start	# a restarted server resumes the schedule
for i in 3 4; do get /boot/$M >/dev/null; seq="$seq$(kernel_of)"; done
is "$seq" ABBA "the target is handed A B B A, across a server restart (MAC in either spelling)"
ok "the script passes the target's args, reboot, and iPXE's address for the upload" \
	grep -q 'vmlinuz raid=noautodetect console=ttyS1,115200 panic=-1 bootbench.plan=light bootbench.reboot=1 bootbench.ip=${netX/ip} bootbench.netmask=${netX/netmask} bootbench.mac=${netX/mac} bootbench.upload=http://127.0.0.1:[0-9]*/results/52-54-00-aa-bb-cc initrd=userland.cpio.gz initrd=userland-id.cpio.gz initrd=modules.cpio.gz$' "$T/body"
ok "the initrds are named, as UEFI iPXE needs them for initrd=" \
	test "$(grep -c '^initrd --name [a-z.-]*cpio.gz http://' "$T/body")" = 3
get /boot/$M >/dev/null
ok "after the schedule: poweroff, else an appliance boot with nothing to do" \
	sh -c "grep -q '^poweroff ||' '$T/body' && grep -q 'vmlinuz console=ttyS1,115200 panic=-1 raid=noautodetect bootbench.results=none initrd=' '$T/body'"
ok "the server noted that boot 4 sent no records" grep -q 'boot 4 (A) sent no records' "$T/serve.out"

"$BB" run null >"$T/r1.jsonl" 2>/dev/null
"$BB" run null >"$T/r2.jsonl" 2>/dev/null
cat "$T/r1.jsonl" "$T/r1.jsonl" "$T/r2.jsonl" >"$T/up.jsonl"
echo 'not json' >>"$T/up.jsonl"
code=$(curl -s -o "$T/body" -w '%{http_code}' --data-binary @"$T/up.jsonl" "$U/results/$M")
is "$code $(cat "$T/body")" "200 stored 2 new records, 1 already here, 1 damaged" "an upload is stored once per record"
code=$(curl -s -o "$T/body" -w '%{http_code}' --data-binary @"$T/r2.jsonl" "$U/results/$M")
is "$code $(cat "$T/body")" "200 stored 0 new records, 1 already here, 0 damaged" "a repeated upload adds nothing"
is "$("$BB" collect "$R/targets/$M/records.jsonl" 2>/dev/null | wc -l)" 2 "records.jsonl holds the 2 records, readable by collect"

is "$(get /boot/52-54-00-00-00-01)" 404 "a machine that is not a target gets 404"
is "$(curl -s -o /dev/null -w '%{http_code}' --data-binary @"$T/r1.jsonl" "$U/results/52-54-00-00-00-01")" 404 \
	"and cannot upload"
is "$(get /boot/52-54-00-aa-bb)" 400 "a malformed MAC is refused (400)"
is "$(curl -s -o /dev/null -w '%{http_code}' -X POST "$U/boot/$M")" 405 "POST to /boot is refused (405)"
is "$(get /kernels/A/vmlinuz)$(cat "$T/body")" 200kernel-a "files of the boot root are served"
is "$(curl -s --path-as-is -o /dev/null -w '%{http_code}' "$U/../outside")" 404 "nothing outside the root (..)"
is "$(get /targets/$M/records.jsonl)" 404 "received records are not served"
is "$(curl -s "$U/status")" "$M: 4 of 4 boots served, 2 records received, last boot reported, schedule done" "GET /status"
stop
ok "bootbench pxe status prints the same" \
	sh -c "'$BB' pxe status '$R' | grep -qx '$M: 4 of 4 boots served, 2 records received, last boot reported, schedule done'"
done_testing
