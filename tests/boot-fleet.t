#!/usr/bin/env bash
# The lab, in network namespaces: a "lab" namespace runs an ordinary DHCP
# server (dnsmasq handing out addresses, no boot info); a "server" namespace
# holds a bridge with the target's tap device and runs scripts/pxe-serve
# (dnsmasq as proxy DHCP + TFTP bound to the bridge, bootbench pxe serve on
# its address). One QEMU target PXE-boots through its NIC's iPXE ROM and
# rotates through two kernels, A B B A, unattended (bootbench.reboot=1),
# sending its records home after each boot; then it powers off.
# Boot 1's upload is made to fail (the server cannot store it), so boot 2
# must send boot 1's records too: nothing is lost. At the same time a UEFI
# target boots its one-kernel schedule: OVMF with its own virtio-net driver
# and PXE client (the NIC's iPXE ROM is left out, romfile=), so dnsmasq must
# hand it ipxe.efi by TFTP first, as on a real UEFI machine. No traffic leaves the namespaces; dnsmasq must
# not bind outside them.
. "$(dirname "$0")/lib.sh"
KA=${KERNEL_A:-debian-6.1-cloud} KB=${KERNEL_B:-debian-6.1.170-generic}
[ "$(id -u)" = 0 ] || skip_all "needs root (network namespaces, tap devices)"
[ -x "$BB" ] && [ -f "$B/userland.cpio.gz" ] || skip_all "not built (run make)"
need_kernel "$KA" && need_kernel "$KB" || skip_all "$KA or $KB not fetched (make kernels)"
command -v dnsmasq >/dev/null || skip_all "no dnsmasq (package dnsmasq-base)"
command -v ip >/dev/null || skip_all "no ip (package iproute2)"
ls /usr/lib/ipxe/qemu/*virtio* >/dev/null 2>&1 || skip_all "no iPXE ROM for QEMU (package ipxe-qemu)"
plan 19

NS=bbfs$$ LAB=bbfl$$ MAC=52:54:00:bb:00:01 D=$T/root/targets/52-54-00-bb-00-01
UMAC=52:54:00:bb:00:02 UD=$T/root/targets/52-54-00-bb-00-02
OVMF=/usr/share/OVMF/OVMF_CODE_4M.fd
[ -f "$OVMF" ] || skip_all "no UEFI firmware for QEMU (package ovmf)"
pids=()
cleanup() {
	for p in "${pids[@]}"; do kill "$p" 2>/dev/null; done
	for p in "${pids[@]}"; do wait "$p" 2>/dev/null; done
	ip netns del "$NS" 2>/dev/null
	ip netns del "$LAB" 2>/dev/null
	[ -n "${KEEP:-}" ] || rm -rf "$T"
}
trap cleanup EXIT
set -e
ip netns add "$NS"
ip netns add "$LAB"
ip -n "$NS" link set lo up
ip -n "$NS" link add br0 type bridge
ip -n "$NS" addr add 10.77.0.1/24 dev br0
ip -n "$NS" link set br0 up
for t in tap0 tap1; do
	ip -n "$NS" tuntap add dev $t mode tap
	ip -n "$NS" link set $t master br0
	ip -n "$NS" link set $t up
done
ip link add vl0 netns "$NS" type veth peer name vl1 netns "$LAB"
ip -n "$NS" link set vl0 master br0
ip -n "$NS" link set vl0 up
ip -n "$LAB" addr add 10.77.0.2/24 dev vl1
ip -n "$LAB" link set vl1 up
set +e

# the lab's own DHCP server: addresses only
ip netns exec "$LAB" dnsmasq --keep-in-foreground --conf-file=/dev/null --port=0 --interface=vl1 \
	--bind-interfaces --dhcp-range=10.77.0.100,10.77.0.150,255.255.255.0,10m \
	--dhcp-leasefile="$T/lab.leases" --pid-file="$T/lab.pid" --user=root --group=root \
	--log-facility="$T/lab.log" &
pids+=($!)
mkdir -p "$D"
# each target's results disk holds its upload key; the server gets the same file
"$BB" mkresults "$T/r.img" --key "$T/a.key" >/dev/null 2>&1
"$BB" mkresults "$T/u.img" --key "$T/u.key" >/dev/null 2>&1
mkdir "$D/records.jsonl"	# boot 1's upload cannot be stored: the server answers 500
ip netns exec "$NS" "$TOP/scripts/pxe-serve" --interface br0 --root "$T/root" --port 8080 \
	--target "$MAC" --key "$T/a.key" --kernels "$KA,$KB" --rounds 2 --plan null \
	--target "$UMAC" --key "$T/u.key" --kernels "$KA" --rounds 1 --plan null >"$T/server.log" 2>&1 &
pids+=($!)
for _ in $(seq 50); do grep -q 'TFTP root is' "$T/server.log" && break; sleep 0.2; done

ip netns exec "$NS" ss -lunp >"$T/ss.ns"
ss -lunp >"$T/ss.host"
ok "dnsmasq listens for DHCP on the bridge inside the namespace" grep -q '%br0:67 .*dnsmasq' "$T/ss.ns"
ok "no dnsmasq socket outside the namespace" sh -c "! grep -q dnsmasq '$T/ss.host'"
# attack 4 of issue 36: a stranger on the segment (the lab namespace) asks
# the TFTP server for the server's secrets. It once served the boot root
# (--tftp-root=ROOT): targets/MAC/key, tokens, state, records, the leases.
tget() {	# tget PATH: the TFTP server sent PATH (non-empty)
	rm -f "$T/tftp.out"
	ip netns exec "$LAB" curl -s --path-as-is --max-time 10 -o "$T/tftp.out" "tftp://10.77.0.1/$1" && [ -s "$T/tftp.out" ]
}
tget boot.ipxe; served=$?
ok "TFTP serves the boot files to the segment (boot.ipxe, as iPXE asks for it)" test "$served" = 0
: >"$D/records.jsonl.probe"; : >"$T/root/run/dnsmasq.leases.probe"	# the paths below exist, whatever the server wrote yet
leak= tried=0
for f in key tokens state schedule log records.jsonl.probe; do
	for p in "targets/52-54-00-bb-00-01/$f" "../targets/52-54-00-bb-00-01/$f" "/../targets/52-54-00-bb-00-01/$f" \
		"$D/$f" "..%2ftargets%2f52-54-00-bb-00-01%2f$f"; do
		tried=$((tried + 1))
		tget "$p" && leak="$leak $p"
	done
done
for p in run/dnsmasq.pid ../run/dnsmasq.pid "$T/root/run/dnsmasq.pid" run/dnsmasq.leases.probe ../run/dnsmasq.leases.probe \
	../../a.key "$T/a.key" /etc/passwd; do
	tried=$((tried + 1))
	tget "$p" && leak="$leak $p"
done
# (only meaningful when the control above was served: curl speaks TFTP)
ok "TFTP serves none of the server's files outside ROOT/tftp ($tried paths tried${leak:+; served:$leak})" \
	test "$served" = 0 -a -z "$leak"
rm -f "$D/records.jsonl.probe" "$T/root/run/dnsmasq.leases.probe"

start=$(date +%s)
timeout -k 5 900 ip netns exec "$NS" qemu-system-x86_64 -accel tcg -cpu max -m 1024 -smp 1 \
	-nodefaults -no-user-config -display none -serial stdio \
	-netdev tap,id=n0,ifname=tap0,script=no,downscript=no \
	-device "virtio-net-pci,netdev=n0,mac=$MAC" -boot n \
	-drive "file=$T/r.img,format=raw,if=none,id=res" \
	-device virtio-blk-pci,drive=res,serial=bootbench-results </dev/null >"$T/console.log" 2>&1 &
qpid=$!
pids+=($qpid)
cp /usr/share/OVMF/OVMF_VARS_4M.fd "$T/vars.fd"
timeout -k 5 900 ip netns exec "$NS" qemu-system-x86_64 -accel tcg -cpu max -m 1024 -smp 1 \
	-nodefaults -no-user-config -display none -serial stdio \
	-drive "if=pflash,format=raw,readonly=on,file=$OVMF" -drive "if=pflash,format=raw,file=$T/vars.fd" \
	-netdev tap,id=n1,ifname=tap1,script=no,downscript=no \
	-device "virtio-net-pci,netdev=n1,mac=$UMAC,bootindex=1,romfile=" \
	-drive "file=$T/u.img,format=raw,if=none,id=ures" \
	-device virtio-blk-pci,drive=ures,serial=bootbench-results </dev/null >"$T/uefi.log" 2>&1 &
upid=$!
pids+=($upid)
# once boot 1 has failed to upload, let the server store again
for _ in $(seq 600); do
	if grep -q '52-54-00-bb-00-01 boot 1 sent records' "$T/server.log" || [ "$(grep -c 'unable to store' "$T/server.log")" -ge 3 ]; then
		break
	fi
	kill -0 "$qpid" 2>/dev/null || break
	sleep 0.5
done
rmdir "$D/records.jsonl" 2>/dev/null
wait "$qpid"
qrc=$?
diag "QEMU exited with $qrc after $(( $(date +%s) - start )) s"
ok "the target boots 4 times unattended and powers off by itself" \
	sh -c "[ '$qrc' = 0 ] && tail -n 5 '$T/console.log' | grep -q 'syncing and powering off'"

served=$(sed -n 's/.*52-54-00-bb-00-01 boot \([0-9]\) of 4: kernel \(.*\)$/\1=\2/p' "$T/server.log" | tr '\n' ' ')
is "$served" "1=$KA 2=$KB 3=$KB 4=$KA " "the server handed out A B B A"
ok "the schedule ended with the power-off script" grep -q 'schedule done (4 boots): poweroff' "$T/server.log"
ok "boot 1's upload failed on the server side (answer 500, 3 tries)" \
	test "$(grep -c 'unable to store' "$T/server.log")" -ge 3
ok "the server noted that boot 1 sent nothing" grep -q '52-54-00-bb-00-01 boot 1 (.*) sent no records' "$T/server.log"

"$BB" collect "$D/records.jsonl" >"$T/got.jsonl" 2>/dev/null
"$BB" collect "$T/r.img" >"$T/disk.jsonl" 2>/dev/null
is "$(jq -r 'select(.type == "boot") | .data.kernel.release' "$T/got.jsonl" | tr '\n' ' ')" \
	"$(for k in $KA $KB $KB $KA; do printf '%s ' "$(cat "$B/kernels/$k/release")"; done)" \
	"the server received the 4 boot records, in rotation order"
is "$(jq -s '[.[] | select(.type == "run" and .data.status == "ok")] | length' "$T/got.jsonl")" 12 \
	"and all 12 runs (3 per boot)"
# everything on the target's disk reached the server, except the record of
# the last upload itself (written after the server acknowledged)
is "$(sort "$T/disk.jsonl" | comm -23 - <(sort "$T/got.jsonl") | jq -r '.type + "/" + (.data.event // "")' | tr '\n' ' ')" \
	"event/upload " "every record of the results disk reached the server (nothing lost)"
ok "boot 2's upload carried boot 1's records" grep -q '52-54-00-bb-00-01 boot 2 sent records: 1[0-9] new' "$T/server.log"
# the key signs every upload and never travels: not in a record (on the
# disk, at the server), nor on the console; boot ids are shown as TOKEN
key=$(cat "$T/a.key")
ok "each boot said it started, signed, before its plan ran" \
	test "$(grep -c '52-54-00-bb-00-01 boot [1-4] said it started' "$T/server.log")" = 4
toks=$(cut -d' ' -f2 "$D/tokens" | paste -sd'|')
ok "no record and no console line holds the key or a boot id (4 ids given; cmdline and upload url say TOKEN)" \
	sh -c "[ \$(wc -l < '$D/tokens') = 4 ] && ! grep -qE '$toks|$key' '$T/got.jsonl' '$T/disk.jsonl' &&
		! grep -qE '$key' '$T/console.log' '$T/uefi.log' && ! grep -i '^bootbench' '$T/console.log' | grep -qE '$toks' &&
		jq -e -s '[.[] | select(.type == \"boot\") | .data.cmdline | test(\"/results/52-54-00-bb-00-01/TOKEN \")] | length == 4 and all' '$T/got.jsonl' >/dev/null"
wait "$upid"
urc=$?
ok "the UEFI target chainloaded iPXE (ipxe.efi over TFTP) and booted over HTTP" \
	sh -c "grep -q 'sent .*/ipxe.efi' '$T/server.log' && grep -q 'boot 1 of 1: kernel $KA' '$T/server.log' && grep -q '52-54-00-bb-00-02 boot 1 sent records: 6 new' '$T/server.log'"
ok "the UEFI target powered off by itself after its schedule" \
	sh -c "[ '$urc' = 0 ] && tail -n 5 '$T/uefi.log' | grep -q 'syncing and powering off'"
is "$("$BB" collect "$UD/records.jsonl" 2>/dev/null | jq -r 'select(.type == "boot") | .data.kernel.release')" \
	"$(cat "$B/kernels/$KA/release")" "its boot record reached the server"
"$BB" compare "$D/records.jsonl" >"$T/compare.out" 2>&1
ok "bootbench compare works on the received records" grep -q 'harness_overhead' "$T/compare.out"
[ "$_failed" = 0 ] || { diag "server log:"; sed 's/^/#   /' "$T/server.log" | grep -v 'dnsmasq-dhcp' | tail -40; }
done_testing
