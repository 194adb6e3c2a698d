#!/usr/bin/env bash
# bootbench run on the host: the same watchdog as the appliance. A hang is
# killed at its timeout and recorded, a crash is recorded with its signal, and
# the next run happens; figures carry units and directions.
. "$(dirname "$0")/lib.sh"
[ -x "$BB" ] || skip_all "not built (run make)"
plan 20
mkdir -p "$T/d"
"$BB" run null --sleep 30 --timeout 2 > "$T/hang" 2>/dev/null; rc=$?
is "$rc" 1 "a hung run: exit 1"
is "$(jq -r .data.status "$T/hang")" timeout "a hung run is recorded as timeout"
ok "... and killed within its timeout (duration < 10 s)" \
	sh -c "jq -e '.data.duration.value < 10' '$T/hang' >/dev/null"
"$BB" run null --crash 1 > "$T/crash" 2>/dev/null
is "$(jq -r .data.status "$T/crash")" crashed "a crashing run is recorded as crashed"
is "$(jq -r .data.reason "$T/crash")" "killed by signal 6 (Aborted)" "... with its signal"
# A workload's fatal error (die(), a failed x* allocation) is a failed run
# carrying the message, from the child's own die hook: never PID 1's path.
"$BB" run null --die 1 > "$T/die" 2>/dev/null; rc=$?
is "$rc" 1 "a workload that dies: exit 1"
is "$(jq -r .data.status "$T/die")" failed "... recorded as failed"
is "$(jq -r .data.reason "$T/die")" "null: asked to die (die=1)" "... with the fatal message"
is "$(wc -l < "$T/die" | tr -d ' ')" 1 "... in exactly one record line"
"$BB" run null --oom 1 > "$T/oom" 2>/dev/null
is "$(jq -r .data.status "$T/oom")" failed "a failed allocation in a workload is a failed run"
is "$(jq -r '.data.reason | test("^unable to allocate [0-9]+ bytes: ")' "$T/oom")" true "... with the allocation's message"
# Figures past the per-run cap (96) are dropped with a warning in the record.
"$BB" run null --figures 100 > "$T/many" 2>/dev/null
is "$(jq -r '.data.metrics | length' "$T/many")" 96 "a run with 101 figures keeps the first 96"
is "$(jq -r '.data.warnings[0]' "$T/many")" "5 metrics past the first 96 were dropped" "... and its record says so"
"$BB" run null --figures 95 > "$T/fit" 2>/dev/null
is "$(jq -r '.data.metrics | length' "$T/fit")" 96 "96 figures all fit"
is "$(jq -r '.data | has("warnings")' "$T/fit")" false "... and the record has no warnings"
"$BB" run touch --dir "$T/d" --size 128K > "$T/ok"; rc=$?
is "$rc" 0 "the next run happens and succeeds"
is "$(jq -r '.data.metrics[] | "\(.name) \(.unit) \(.better)"' "$T/ok")" "write_fsync ms lower" "figure with unit and direction"
is "$(ls -A "$T/d")" "" "touch leaves nothing behind"
"$BB" run touch --size 1Q --dir "$T/d" > "$T/bad" 2>/dev/null
is "$(jq -r .data.reason "$T/bad")" 'parameter size="1Q" is not a size (e.g. 4096, 64K, 256M, 1G)' "a bad parameter fails the run with a reason"
"$BB" run touch 2>"$T/err"; rc=$?
is "$rc" 100 "a workload needing --dir without one: usage error"
done_testing
