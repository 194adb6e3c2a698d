#!/usr/bin/env bash
# Where the runs' tasks blocked (docs/why.md, "Where it blocked"): the why
# plan booted deterministic with --offcpu (perf's cpu-clock samples and
# every context switch with its call chain) on generic and on rt. Every run
# that ran carries an off-CPU member whose stacks and the rest add up to its
# total; the stacks are the run's own processes' (the workload and what it
# forked), never a kernel thread's or init's; fork/exec's parent waits for
# each child in wait4 on both kernels, and on rt it blocks once more each
# time on the tasklist lock (an rtlock: rt_read_lock), which generic never
# does; the stream write on a disk waits for its writeback in fsync; and
# compare's why on the two boots prints the off-CPU view with rt's lock
# path. What --offcpu costs is scripts/bench-why's.
. "$(dirname "$0")/lib.sh"
[ -x "$BB" ] && [ -f "$B/userland.cpio.gz" ] || skip_all "not built (run make)"
for k in debian-6.1-generic debian-6.1-rt; do need_kernel "$k" || skip_all "$k not fetched (make kernels)"; done
plan 14
for k in generic rt; do
	BOOT_TIMEOUT=600 boot "debian-6.1-$k" "$T/$k.log" --deterministic --offcpu --plan why --scratch 1:64M --memory 512 \
		--results "$T/$k.img"
	is "$?" 0 "a deterministic boot of debian-6.1-$k, plan why, with --offcpu"
	"$BB" collect "$T/$k.img" 2>/dev/null | jq -c 'select(.type == "run") | .data' > "$T/$k.runs"
done
ok "the console says every context switch is sampled, on both" \
	sh -c "grep -aq 'and every context switch (where the run.s tasks blocked)' '$T/generic.log' &&
	       grep -aq 'and every context switch (where the run.s tasks blocked)' '$T/rt.log'"
for k in generic rt; do
	ok "$k: every run that ran has an off-CPU member whose stacks and the rest are its total" \
		all_true "$T/$k.runs" 'select(.status == "ok") | .perf.offcpu | .unit == "us" and
			([.stacks[].us] | add // 0) + .other_us == .us and ([.stacks[].blocks] | add // 0) + .other_blocks == .blocks'
	roots=$(jq -r 'select(.status == "ok") | .perf.offcpu.stacks[].stack | split(";")[0]' "$T/$k.runs" | sort -u | tr '\n' ' ')
	ok "$k: the stacks are the runs' own processes', no kernel thread's or init's ($roots)" \
		sh -c "[ -n '$roots' ] && ! echo '$roots' | grep -Eq 'kworker|ksoftirqd|rcu_|migration|jbd2|init|swapper|perf'"
	n=$(jq -r 'select(.workload == "forkexec" and .layout.name == "tmpfs") | [.perf.offcpu.stacks[] |
		select(.stack | test(";kernel_wait4;do_wait;schedule$")) | .blocks] | add' "$T/$k.runs")
	ok "$k: fork/exec of 2000: its parent blocked in wait4 2000 times (${n:-none})" test "${n:-0}" = 2000
	ok "$k: the stream write on the disk waits for its writeback in fsync" \
		sh -c "jq -r 'select(.workload == \"stream\" and .layout.name == \"disk\") | .perf.offcpu.stacks[].stack' '$T/$k.runs' |
		       grep -q '__x64_sys_fsync;.*io_schedule;schedule$'"
done
lock() { jq -r 'select(.workload == "forkexec") | .perf.offcpu.stacks[] | select(.stack | test(";do_wait;rt_read_lock;")) | .blocks' "$1" | paste -sd+ | bc; }
rl=$(lock "$T/rt.runs")
ok "rt: fork/exec's wait4 also blocks on the tasklist lock, an rtlock, once a child (${rl:-none} in 4000)" \
	test "${rl:-0}" -ge 2000
gl=$(lock "$T/generic.runs")
ok "... and generic never does (${gl:-0} in its fork/exec's $(jq -r 'select(.workload == "forkexec") | .perf.offcpu.blocks' "$T/generic.runs" | paste -sd+ | bc) blocks)" \
	sh -c "[ \$(jq -r 'select(.workload == \"forkexec\" and .status == \"ok\") | .perf.offcpu.blocks' '$T/generic.runs' | paste -sd+ | bc) -ge 4000 ] &&
	       [ '${gl:-0}' = 0 ]"
"$BB" collect "$T/generic.img" "$T/rt.img" > "$T/all.jsonl" 2>/dev/null
"$BB" compare "$T/all.jsonl" --why forkexec@tmpfs > "$T/why" 2>/dev/null
sed -n '/where the tasks blocked, off-CPU/,$p' "$T/why" | head -n 20 | sed 's/^/# /'
ok "compare's why prints the off-CPU view, 1 vs 1 runs, and rt's lock path" \
	sh -c "grep -Eq 'where the tasks blocked, off-CPU .*1 vs 1 runs; [0-9.]+ vs [0-9.]+ ms blocked and 2000 vs [0-9]+ blocks a run' '$T/why' &&
	       sed -n '/where the tasks blocked, off-CPU/,\$p' '$T/why' | grep -Eq '^ +0\.0% +[0-9.]+% .*rt_read_lock'"
done_testing
