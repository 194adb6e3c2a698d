#!/usr/bin/env bash
# perf's call chains in the appliance (docs/why.md, "perf"): the why plan
# booted deterministic with --perf on generic and on rt. Every run that ran
# carries perf samples with call chains at the frequency the console names;
# fork/exec of 2000 gives at least 2000 samples a run on both kernels; rt's
# own locking (rt_spin_lock, rt_spin_unlock) is in rt's stacks and in none of
# generic's; and compare on the two boots reads the stacks: its why is
# perf's (self, inclusive, paths, call tree; rt's exit path goes through
# mmput where generic's goes through __mmput). One boot a side tests nothing, so the
# report's flame graph (drawn under a regression) is tests/host-flame.t's
# and the demo's.
. "$(dirname "$0")/lib.sh"
[ -x "$BB" ] && [ -f "$B/userland.cpio.gz" ] || skip_all "not built (run make)"
for k in debian-6.1-generic debian-6.1-rt; do need_kernel "$k" || skip_all "$k not fetched (make kernels)"; done
plan 13
for k in generic rt; do
	BOOT_TIMEOUT=600 boot "debian-6.1-$k" "$T/$k.log" --deterministic --perf --plan why --scratch 1:64M --memory 512 \
		--results "$T/$k.img"
	is "$?" 0 "a deterministic boot of debian-6.1-$k, plan why, with --perf"
	"$BB" collect "$T/$k.img" 2>/dev/null | jq -c 'select(.type == "run") | .data' > "$T/$k.runs"
done
hz=$(sed -n 's/^#define PERF_HZ \([0-9]*\).*/\1/p' lib/defaults.h)
ok "the console names perf's rate, $hz Hz, on both" \
	sh -c "grep -aq 'perf samples: cpu-clock at $hz Hz with call chains' '$T/generic.log' &&
	       grep -aq 'perf samples: cpu-clock at $hz Hz with call chains' '$T/rt.log'"
for k in generic rt; do
	ok "$k: every run that ran has perf samples at $hz Hz, with call chains (stacks 3 frames deep or more)" \
		all_true "$T/$k.runs" "select(.status == \"ok\") | .perf.frequency == $hz and .perf.samples > 0 and
			([.perf.stacks[] | select((.stack | split(\";\") | length) >= 4)] | length) > 0"
	n=$(jq -r 'select(.workload == "forkexec" and .layout.name == "tmpfs") | .perf.samples' "$T/$k.runs")
	ok "$k: fork/exec of 2000 on tmpfs: at least 2000 samples (${n:-none})" test "${n:-0}" -ge 2000
	ok "$k: the stacks add up: kept stacks and the rest are every sample" \
		all_true "$T/$k.runs" 'select(.status == "ok") | .perf | ([.stacks[].samples] | add) + .other_samples == .samples'
done
ok "kernel call chains only: [user] is a user-mode sample's leaf, never a frame under the kernel's" \
	sh -c "[ \$(cat '$T/generic.runs' '$T/rt.runs' | jq -r 'select(.status == \"ok\") | .perf.stacks[].stack' | wc -l) -gt 100 ] &&
	       ! cat '$T/generic.runs' '$T/rt.runs' | jq -r 'select(.status == \"ok\") | .perf.stacks[].stack' | grep -q '\\[user\\];'"
rtf() { jq -r 'select(.status == "ok") | .perf.stacks[].stack | split(";")[] | select(test("^rt_spin_(un)?lock$"))' "$1" | sort -u | tr '\n' ' '; }
ok "rt_spin_lock and rt_spin_unlock are in rt's stacks ($(rtf "$T/rt.runs"))" \
	sh -c "[ '$(rtf "$T/rt.runs")' = 'rt_spin_lock rt_spin_unlock ' ]"
ok "... and in none of generic's ($(jq -r '.perf.stacks[]?' "$T/generic.runs" | grep -c stack) stacks read)" \
	sh -c "[ \$(jq -r '.perf.stacks[]?.stack' '$T/generic.runs' | wc -l) -gt 100 ] && [ -z '$(rtf "$T/generic.runs")' ]"
"$BB" collect "$T/generic.img" "$T/rt.img" > "$T/all.jsonl" 2>/dev/null
"$BB" compare "$T/all.jsonl" --why forkexec@tmpfs > "$T/why" 2>/dev/null
sed -n '/perf samples with call chains/,/call tree/p' "$T/why" | head -n 30 | sed 's/^/# /'
ok "compare's why on the two boots is perf's: self and inclusive shares, the paths, the call tree" \
	sh -c "grep -Eq 'perf samples with call chains \(1 vs 1 runs; [0-9]+ vs [0-9]+ samples a run' '$T/why' &&
	       grep -q 'functions, inclusive' '$T/why' && grep -q 'call paths whose share moved most' '$T/why' &&
	       grep -q 'call tree' '$T/why' && grep -Eq '^ +0\.0% +[0-9.]+% .*mmput' '$T/why'"
done_testing
