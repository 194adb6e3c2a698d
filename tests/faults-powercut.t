#!/usr/bin/env bash
# timeout: 3600
# Power cut: QEMU is killed (SIGKILL) at seeded random moments while the
# appliance appends records to one results image, 10 times in make check
# (about 30 s a cut) and 20 in make check-faults: each cut waits for
# a random number of records to appear on the console, then a random 0-49 ms. After each cut,
# collect must return every record the console showed as written (a record is
# printed only once durable), in order, with consecutive sequence numbers, and
# nothing corrupt; then a clean boot still appends after all that.
. "$(dirname "$0")/lib.sh"
k=${KERNEL:-debian-6.1-generic}
CUTS=${CUTS:-10}
SEED=${SEED:-20261130}
[ -x "$BB" ] && [ -f "$B/userland.cpio.gz" ] || skip_all "not built (run make)"
need_kernel "$k" || skip_all "$k not fetched (make kernels)"
plan $((CUTS * 3 + 4))
RANDOM=$SEED
cat > "$T/powercut.plan" <<'PLAN'
plan powercut
iterations 300
layout tmp tmpfs=16M
workload null
PLAN
img=$T/results.img
"$BB" mkresults "$img" --size 16M --plan "$T/powercut.plan" 2>/dev/null
cmd=$(scripts/boot-qemu "$k" --accel tcg --results "$img" --workdir "$T/w" --print-cmd) && [ -n "$cmd" ] ||
	{ echo "Bail out! boot-qemu --print-cmd failed: nothing to cut"; exit 1; }
: > "$T/console.jsonl"; : > "$T/console.seq"
for i in $(seq 1 "$CUTS"); do
	# Cut while records are being written: once the console shows K records
	# (K random in 1..300), wait a random 0-49 ms more, then SIGKILL QEMU.
	want=$((1 + RANDOM % 300)) extra_ms=$((RANDOM % 50))
	( eval "exec $cmd" ) < /dev/null > "$T/cut$i.log" 2>&1 &
	qpid=$!
	t0=$(date +%s)
	while kill -0 "$qpid" 2>/dev/null; do
		[ "$(grep -c '^BOOTBENCH' "$T/cut$i.log")" -ge "$want" ] && break
		[ $(( $(date +%s) - t0 )) -gt 120 ] && break
		sleep 0.02
	done
	sleep "0.0$((extra_ms / 10))$((extra_ms % 10))"
	kill -KILL "$qpid" 2>/dev/null
	wait "$qpid" 2>/dev/null
	t="record $want+${extra_ms}ms"
	# (grep, not jq: jq would re-print the numbers and the lines would differ)
	"$BB" collect "$T/cut$i.log" 2>/dev/null | grep -v '^{"seq":null' > "$T/cut$i.jsonl"
	cat "$T/cut$i.jsonl" >> "$T/console.jsonl"
	"$BB" collect "$img" > "$T/img.jsonl" 2>"$T/collect$i.err"; rc=$?
	shown=$(wc -l < "$T/console.jsonl")
	missing=$(grep -vxF -f "$T/img.jsonl" "$T/console.jsonl" | wc -l)
	# An empty console and an empty image agree too: this boot must have
	# shown stored records before the cut means anything.
	is "$rc/$missing/$([ -s "$T/cut$i.jsonl" ] && echo some || echo none)" "0/0/some" \
		"cut $i at $t: this boot showed $(wc -l < "$T/cut$i.jsonl") stored records; the image has all $shown the consoles showed"
	is "$(jq -r .seq "$T/img.jsonl" | awk 'NR != $1 { bad++ } END { print NR ? bad + 0 : "no records" }')" 0 \
		"cut $i: sequence numbers run 1..$(wc -l < "$T/img.jsonl") without a gap or a repeat"
	# Shown means its line began on a console: a kernel message printed
	# into the middle of a line spoils that copy (collect skips it), not
	# the fact that the record was durable before it was printed.
	grep -ao '^BOOTBENCH {"seq":[0-9]*' "$T/cut$i.log" | sed 's/.*://' >> "$T/console.seq"
	extra=$(jq -r .seq "$T/img.jsonl" | grep -vxF -f "$T/console.seq" | wc -l)
	ok "cut $i: records never shown on a console ($extra) are at most one per cut" test "$extra" -le "$i"
	lines=$(grep -c '^BOOTBENCH' "$T/cut$i.log")
	diag "cut $i: $lines records on this boot's console, $((lines - $(wc -l < "$T/cut$i.jsonl"))) of them cut short or spoilt"
	grep -q -v ' records, ' "$T/collect$i.err" && diag "cut $i: collect said: $(grep -v ' records, ' "$T/collect$i.err" | head -2 | tr '\n' ' ')"
done
diag "after $CUTS cuts: $(wc -l < "$T/img.jsonl") records in the image"
before=$(wc -l < "$T/img.jsonl")
eval "timeout -s KILL 300 $cmd" < /dev/null > "$T/final.log" 2>&1
ok "a clean boot after the cuts finishes" grep -q '^bootbench: done:' "$T/final.log"
ok "the cuts left records to append after ($before)" test "$before" -gt 0
"$BB" collect "$img" > "$T/img.jsonl" 2>/dev/null
is "$(jq -r 'select(.type=="run") | .data.status' "$T/img.jsonl" | sort -u)" ok "every run record in the image is intact and ok"
ok "it appended its boot, its claim event, 300 runs and end after the earlier records" test "$(wc -l < "$T/img.jsonl")" -eq $((before + 303))
done_testing
