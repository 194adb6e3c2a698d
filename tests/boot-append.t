#!/usr/bin/env bash
# Three boots of three different kernels append to one results image; collect
# returns them in order, each boot's records matching its console log.
. "$(dirname "$0")/lib.sh"
[ -x "$BB" ] && [ -f "$B/userland.cpio.gz" ] || skip_all "not built (run make)"
KS="debian-6.1-generic debian-6.1-cloud debian-6.1-rt"
for k in $KS; do need_kernel "$k" || skip_all "$k not fetched (make kernels)"; done
plan 6
img=$T/results.img
"$BB" mkresults "$img" --size 16M 2>/dev/null
rcs=
for k in $KS; do
	boot "$k" "$T/$k.log" --results "$img"; rcs="$rcs$?"
	"$BB" collect "$T/$k.log" >> "$T/consoles.jsonl" 2>/dev/null
done
is "$rcs" 000 "three boots, three kernels, all power off"
"$BB" collect "$img" > "$T/all.jsonl" 2>"$T/collect.err"; rc=$?
is "$rc" 0 "collect reads the shared image"
is "$(jq -r 'select(.type=="boot") | .data.kernel.release' "$T/all.jsonl" | tr '\n' ' ')" \
	"$(for k in $KS; do printf '%s ' "$(cat "$B/kernels/$k/release")"; done)" "boot records in boot order, one per kernel"
is "$(jq -r '.seq' "$T/all.jsonl" | tr '\n' ' ')" "1 2 3 4 5 6 " "sequence numbers continue across boots"
ok "records equal the three console logs, in order" cmp -s "$T/all.jsonl" "$T/consoles.jsonl"
is "$(jq -r '.boot_id' "$T/all.jsonl" | uniq | wc -l)" 3 "three distinct boot ids"
done_testing
