#!/usr/bin/env bash
# `bootbench run --profile` and `--offcpu` on the host, with the userland's
# own static perf (built by make): the same perf session the appliance runs.
# Before 2026-12-07 a host run was killed by SIGPIPE (exit 141): perf's
# control pipe landed on fd 3, dup2 onto itself kept its close-on-exec, perf
# never saw it, and the next command to perf hit a pipe with no reader. A
# perf that dies at once must not kill the run either: the record says why
# there are no samples. With --offcpu the record says where the run's own
# processes blocked, and holds no other task's stack.
. "$(dirname "$0")/lib.sh"
[ -x "$BB" ] || skip_all "not built (run make)"
plan 7
jqok() { jq -e "$@" > /dev/null; }
cat > "$T/deadperf" <<'SH'
#!/bin/sh
exit 1
SH
chmod +x "$T/deadperf"
BOOTBENCH_PERF=$T/deadperf timeout 120 "$BB" run null --profile > "$T/dead.json" 2> "$T/dead.err"; rc=$?
is "$rc" 0 "a perf that dies at once: the run still ends, exit 0 (not killed by SIGPIPE)"
ok "... and its record says perf did not start" \
	sh -c "[ -s '$T/dead.json' ] && jq -e '.data.perf.available == false and
		(.data.perf.reason | test(\"perf record did not start\"))' '$T/dead.json' > /dev/null"
PERF=$B/userland-stage/usr/bin/perf
if [ ! -x "$PERF" ] || [ "$(id -u)" != 0 ]; then
	for i in 1 2 3 4 5; do skip "no static perf in $B/userland-stage, or not root (perf -a needs it)"; done
else
	BOOTBENCH_PERF=$PERF timeout 120 "$BB" run null --profile > "$T/null.json" 2> "$T/null.err"; rc=$?
	is "$rc" 0 "the userland's perf on the host: bootbench run null --profile exits 0"
	ok "... with perf samples and call chains ($(jq -r '.data.perf.samples' "$T/null.json") samples)" \
		jqok '.data.perf.samples > 0 and (.data.perf.stacks | length) > 0 and (.data.perf | has("offcpu") | not)' "$T/null.json"
	mkdir -p "$T/dir"
	BOOTBENCH_PERF=$PERF timeout 180 "$BB" run stream --dir "$T/dir" --size 8M --offcpu > "$T/s.json" 2> "$T/s.err"; rc=$?
	sed 's/^/# /' "$T/s.err"
	is "$rc" 0 "bootbench run stream --offcpu exits 0"
	jq -r '.data.perf.offcpu | "# \(.blocks) blocks, \(.us) us; not the run'"'"'s: \(.not_the_runs)"' "$T/s.json"
	ok "... its record has the off-CPU view: unit us, stacks and the rest add up" \
		jqok '.data.perf.offcpu | .unit == "us" and .blocks > 0 and ([.stacks[].us] | add // 0) + .other_us == .us and
			.not_the_runs > 0' "$T/s.json"
	ok "... and every stack is the run's own process's (stream), none another task's" \
		jqok '[.data.perf.offcpu.stacks[].stack | split(";")[0]] | all(. == "stream")' "$T/s.json"
fi
done_testing
