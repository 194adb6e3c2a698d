#!/usr/bin/env bash
# The "why" instruments in the appliance (docs/why.md), two deterministic
# boots of one kernel with one scratch disk: the why plan profiled
# (scripts/boot-qemu --profile), and the same plan without its `profile on`
# line, which is the default. The profiled runs carry a kernel profile, pressure and delay
# accounting. A tmpfs fork/exec loop records no block-I/O delay and no io pressure,
# summed over its 2001 processes. (A cold disk read records them above
# zero in tests/boot-readonly.t, a wall-clock boot: under instruction
# counting the guest may not wait at all for an I/O QEMU completes at
# once, and here hdparm's wait measured 0 to 96 ms.) The plan without `profile on` records neither profile nor
# delays. The profiler's overhead is measured on every figure and bounded on the CPU-bound ones.
. "$(dirname "$0")/lib.sh"
k=${KERNEL:-debian-6.1-generic}
[ -x "$BB" ] && [ -f "$B/userland.cpio.gz" ] || skip_all "not built (run make)"
need_kernel "$k" || skip_all "$k not fetched (make kernels)"
plan 14
P=rootfs/overlay/etc/bootbench/plans/why.plan
grep -v '^profile on$' "$P" > "$T/plain.plan"
ok "the plain plan is the why plan without its profile line" \
	sh -c "grep -q '^profile on$' '$P' && ! grep -q '^profile' '$T/plain.plan' && [ \$((\$(wc -l < '$P') - 1)) = \$(wc -l < '$T/plain.plan') ]"
"$BB" mkresults "$T/plain.img" --size 16M --plan "$T/plain.plan" >/dev/null 2>&1
boot "$k" "$T/prof.log" --deterministic --scratch 1:64M --results "$T/prof.img" --plan why --profile --memory 512 \
	--append bootbench.tag=profiled
r1=$?
boot "$k" "$T/plain.log" --deterministic --scratch 1:64M --results "$T/plain.img" --memory 512 --append bootbench.tag=plain
r2=$?
is "$r1$r2" 00 "a profiled and a plain deterministic boot of $k"
"$BB" collect "$T/prof.img" 2>/dev/null | jq -c 'select(.type == "run") | .data' > "$T/prof.runs"
"$BB" collect "$T/plain.img" 2>/dev/null | jq -c 'select(.type == "run") | .data' > "$T/plain.runs"
ok "the console names the profile: /proc/profile, then (read after the first run) kallsyms and a 250 Hz tick" \
	sh -c "grep -aq 'kernel profile: /proc/profile (kallsyms is read once' '$T/prof.log' &&
		grep -aEq 'kernel profile: [0-9]{4,} text symbols, tick 250 Hz' '$T/prof.log'"
ok "every profiled run that ran has a profile with samples, delays and pressure" \
	all_true "$T/prof.runs" 'select(.status == "ok") | .profile.samples > 0 and .profile.tick_hz == 250 and (.profile.functions | length) > 0 and .delays.available and .pressure.available'
ok "the shares are of all samples, in order" \
	all_true "$T/prof.runs" 'select(.status == "ok") | .profile | ([.functions[].share] | . == (sort | reverse)) and (.functions[0].share == .functions[0].samples / .samples)'
hd='select(.workload == "hdparm" and .layout.name == "disk")'
ok "the cold read from the virtio disk records block-I/O delay ($(jq -r "$hd | .delays.blkio.delay_ns" "$T/prof.runs") ns) and io pressure" \
	all_true "$T/prof.runs" "$hd | (.delays.blkio.delay_ns | type) == \"number\" and (.pressure.io.some_us | type) == \"number\""
ok "... where pressure and delay agree: io stall within 1 ms of the block-I/O delay" \
	all_true "$T/prof.runs" "$hd | ((.pressure.io.some_us * 1000 - .delays.blkio.delay_ns) | fabs) < 1000000"
fx='select(.workload == "forkexec" and .layout.name == "tmpfs")'
ok "a tmpfs fork/exec loop: no block-I/O delay, no io pressure" \
	all_true "$T/prof.runs" "$fx | .delays.blkio.delay_ns == 0 and .pressure.io.some_us == 0 and .pressure.io.full_us == 0"
ok "... its delays summed over its 2001 tasks (the loop's 2000 processes and itself), with run-queue delay" \
	all_true "$T/prof.runs" "$fx | .delays.tasks == 2001 and .delays.cpu.count > 0"
ok "no delays were lost" all_true "$T/prof.runs" 'select(.status == "ok") | .delays.incomplete == null and (.warnings == null)'
ok "the plain plan ran every run" all_true "$T/plain.runs" '.status == "ok" or .status == "skipped"'
ok "the plain plan records no profile and no delays, only pressure" \
	all_true "$T/plain.runs" 'select(.status == "ok") | .profile == null and .delays == null and .pressure.available'
# the profiler's overhead on every figure: profiled / plain - 1
jq -n -r --slurpfile a "$T/prof.runs" --slurpfile b "$T/plain.runs" '
	def figs(r): r | map(select(.status == "ok")) | map({key: "\(.workload)/\(.layout.name)", value: .metrics}) | from_entries;
	figs($b) as $plain | figs($a) | to_entries[] | .key as $k | .value[] | . as $m
	| ($plain[$k] // [] | .[] | select(.name == $m.name) | .value) as $v
	| select($v != 0) | "\($k) \($m.name) \(($m.value / $v - 1) * 100)"' > "$T/overhead"
diag "profiled vs plain, % per figure: $(awk '{printf "%s %s %+.2f; ", $1, $2, $3}' "$T/overhead")"
ok "overhead measured on the CPU-bound figures ($(grep -c '/tmpfs ' "$T/overhead") on tmpfs)" \
	test "$(grep -c '/tmpfs ' "$T/overhead")" -ge 3
worst=$(awk '$1 ~ /^(forkexec|stream)\/tmpfs$/ && $2 !~ /_s$|user|sys/ { v = $3 < 0 ? -$3 : $3; if (v > m) { m = v; w = $1 " " $2 } } END { printf "%.2f%% (%s)", m, w }' "$T/overhead")
ok "the profiler costs the CPU-bound tmpfs figures at most 5% (worst $worst)" \
	awk '$1 ~ /^(forkexec|stream)\/tmpfs$/ && $2 !~ /_s$|user|sys/ { n++; v = $3 < 0 ? -$3 : $3; if (v >= 5) bad = 1 } END { exit bad || !n }' "$T/overhead"
done_testing
