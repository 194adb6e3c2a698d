#!/usr/bin/env bash
# The perfbench workload on the host, driving the userland's static perf:
# each of the shapes perf bench --format=simple prints (a total in seconds,
# mem's per-function bytes/s, futex's averaged operations/sec) becomes a
# figure with a unit and a direction; a benchmark perf does not have, a
# malformed name, and output with no figure in it (a stand-in perf) are
# failed runs that say why.
. "$(dirname "$0")/lib.sh"
PERF=$B/userland-stage/usr/bin/perf
[ -x "$BB" ] && [ -x "$PERF" ] || skip_all "not built (run make)"
plan 15
jqok() { jq -e "$@" >/dev/null; }
run() { "$BB" run perfbench "$@" 2>/dev/null; }
figs() { jq -r '[.data.metrics[] | "\(.name) \(.unit) \(.better)"] | join(",")' "$1"; }

run --perf "$PERF" bench=sched/messaging "options=-g 2 -l 20" > "$T/m"
is "$(figs "$T/m")" "total_s s lower" "sched messaging (hackbench): total seconds, lower is better"
run --perf "$PERF" bench="syscall basic" "options=-l 20000" > "$T/s"
ok "syscall basic: a positive total" jqok '.data.status == "ok" and .data.metrics[0].name == "total_s" and .data.metrics[0].value > 0' "$T/s"
run --perf "$PERF" bench=mem/memcpy "options=-s 1MB -l 4" > "$T/mem"
ok "mem memcpy: MB/s for every function perf ran, higher is better" jqok \
	'.data.status == "ok" and (.data.metrics | length >= 2 and all(.[]; (.name | endswith("_MBps")) and .unit == "MB/s" and .better == "higher" and .value > 0)) and .data.details.functions == (.data.metrics | length)' "$T/mem"
run --perf "$PERF" bench=futex/hash "options=-r 1 -t 2" > "$T/f"
is "$(figs "$T/f")" "ops_per_s ops/s higher" "futex hash: averaged operations per second"
run --perf "$PERF" bench=sched/nosuch > "$T/n"
ok "a benchmark perf does not have is a failed run with perf's reason" jqok \
	'.data.status == "failed" and (.data.reason | test("Unknown benchmark"))' "$T/n"
run --perf "$PERF" bench=sched > "$T/n2"
ok "a name that is not COLLECTION/BENCHMARK is refused" jqok '.data.status == "failed" and (.data.reason | test("COLLECTION/BENCHMARK"))' "$T/n2"

run --perf "$PERF" bench=mem/memcpy "options=-s 1MB -c" > "$T/c"
ok "mem's -c (cycles where bytes/s is read) is refused" jqok '.data.status == "failed" and (.data.reason | test("cycles"))' "$T/c"
run --perf "$PERF" bench=sched/all > "$T/all"
ok "\"all\" (many benchmarks, many totals) is refused before it runs" jqok '.data.status == "failed" and (.data.reason | test("name one"))' "$T/all"
fake() { printf '#!/bin/sh\n%s\n' "$1" > "$T/perf"; chmod +x "$T/perf"; run --perf "$T/perf" bench=sched/pipe > "$T/o"; }
fake 'echo "# Running sched/pipe benchmark..."; echo "hello"'
ok "output with no figure in it fails, and says so" jqok '.data.status == "failed" and (.data.reason | test("no figure"))' "$T/o"
fake 'echo "Averaged 100000 ADD operations (+- 0.00%)"'
ok "an Averaged line that is not operations/sec is no figure" jqok '.data.status == "failed" and (.data.reason | test("no figure"))' "$T/o"
fake 'echo 1.5; echo 2.5'
ok "two totals where one is expected fail" jqok '.data.status == "failed" and (.data.reason | test("2 totals"))' "$T/o"
fake 'echo "nan"; echo "1e999"; echo "-3"'
ok "non-finite and negative numbers are not figures" jqok '.data.status == "failed"' "$T/o"
fake "head -c 17000000 /dev/zero | tr '\\\\0' 1"
ok "output past what is kept fails rather than reading part of it" jqok '.data.status == "failed" and (.data.reason | test("past the 16 MiB"))' "$T/o"
# a timed-out perf bench dies with the workload, messaging tasks and all
"$BB" run perfbench --timeout 2 --perf "$PERF" bench=sched/messaging "options=-g 2 -l 1000000" > "$T/to" 2>/dev/null
is "$(jq -r .data.status "$T/to")" timeout "a perf bench past its timeout is recorded as a timeout"
sleep 0.5
is "$(pgrep -f -- "$PERF bench" | wc -l)" 0 "... and none of its processes is left running"
done_testing
