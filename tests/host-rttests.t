#!/usr/bin/env bash
# The cyclictest and hackbench workloads on the host, driving the userland's
# rt-tests layer (Debian's binaries with their own glibc and loader): real
# runs give figures with units and directions, a load runs beside the
# measurement and is gone after it, and what the plan can pass is checked.
# A stand-in layer (a shell "loader") feeds the parsers hostile output.
. "$(dirname "$0")/lib.sh"
RT=$B/userland-stage/opt/rt-tests
[ -x "$BB" ] && [ -x "$RT/lib/ld-linux-x86-64.so.2" ] || skip_all "not built (run make)"
[ "$(id -u)" = 0 ] || skip_all "cyclictest needs root (SCHED_FIFO, mlockall)"
plan 50
jqok() { jq -e "$@" >/dev/null; }
run() { "$BB" run "$@" 2>/dev/null; }
figs() { jq -r '[.data.metrics[] | "\(.name) \(.unit) \(.better)"] | join(",")' "$1"; }
failed_with() { jqok --arg re "$2" '.data.status == "failed" and (.data.reason | test($re))' "$1"; }

# --- hackbench ---
run hackbench --rt_tests "$RT" groups=2 loops=50 > "$T/h"
is "$(figs "$T/h")" "total_s s lower" "hackbench: total seconds, lower is better"
ok "hackbench: 2 groups of 20 senders and 20 receivers are 80 tasks" jqok '.data.details.tasks == 80 and .data.metrics[0].value > 0' "$T/h"
run hackbench --rt_tests "$RT" mode=thread transport=pipe groups=1 loops=50 > "$T/h2"
ok "hackbench: threads over pipes" jqok '.data.status == "ok" and .data.details.tasks == 40' "$T/h2"
run hackbench --rt_tests "$RT" transport=inet groups=1 loops=20 > "$T/h3"
ok "hackbench: loopback TCP" jqok '.data.status == "ok"' "$T/h3"
run hackbench --rt_tests "$RT" mode=fork > "$T/h4"
ok "hackbench: an unknown mode is refused" failed_with "$T/h4" "process or thread"
run hackbench --rt_tests "$RT" groups=0 > "$T/h5"
ok "hackbench: groups=0 is refused" failed_with "$T/h5" "outside 1..1000"
run hackbench --rt_tests "$T/nowhere" > "$T/h6"
ok "a missing rt-tests layer is a failed run that says what to build" failed_with "$T/h6" "not an rt-tests layer"
run hackbench --rt_tests "$RT" loops=2000000000 fds=20 > "$T/hl"
ok "hackbench: loops x fds past its 32-bit message count is refused" failed_with "$T/hl" "32 bits"
run hackbench --rt_tests "$RT" mode=thread datasize=16384 > "$T/hd"
ok "hackbench: datasize over 4096 in thread mode (it crashes) is refused" failed_with "$T/hd" "mode=thread"
run hackbench --rt_tests "$RT" groups=500 fds=100 > "$T/ht"
ok "hackbench: 100000 tasks are refused" failed_with "$T/ht" "tasks: at most"
for v in " 2" "+2" "2x" ""; do
	run hackbench --rt_tests "$RT" "groups=$v" > "$T/hv"
	ok "hackbench: groups=\"$v\" is not a whole number" failed_with "$T/hv" "not a whole number"
done

# --- cyclictest ---
run cyclictest --rt_tests "$RT" duration=1 threads=1 > "$T/c"
is "$(figs "$T/c")" "min_us us lower,avg_us us lower,max_us us lower,p99_us us lower,p99_9_us us lower" \
	"cyclictest: min, avg, max, p99, p99.9 in us, lower is better"
ok "cyclictest: min <= avg <= max and p99 <= p99.9 <= max, over ~1000 wakeups" jqok \
	'.data.metrics as $m | ($m | map({(.name): .value}) | add) as $v
	 | $v.min_us <= $v.avg_us and $v.avg_us <= $v.max_us and $v.p99_us <= $v.p99_9_us and $v.p99_9_us <= $v.max_us
	 and .data.details.cycles > 500 and .data.details.threads == 1 and .data.details.over_histogram >= 0' "$T/c"
run cyclictest --rt_tests "$RT" duration=1 threads=2 histogram=3 > "$T/c2"
ok "wakeups past the histogram are counted, and a percentile among them is not given" jqok \
	'.data.status == "ok" and .data.details.over_histogram > 0 and ([.data.metrics[].name] | index("p99_us") == null) and ([.data.metrics[].name] | index("max_us") != null)' "$T/c2"
run cyclictest --rt_tests "$RT" duration=2 threads=1 load=hackbench load_groups=1 load_transport=pipe > "$T/cl"
ok "cyclictest under a hackbench load: figures, and the load said in details" jqok \
	'.data.status == "ok" and .data.details.load == "hackbench" and .data.details.load_groups == 1 and .data.details.load_transport == "pipe" and (.data.metrics | length == 5)' "$T/cl"
sleep 0.3
is "$(pgrep -f -- "$RT/bin/hackbench" | wc -l)" 0 "... and no hackbench is left running after it"
run cyclictest --rt_tests "$RT" duration=1 load=hackbench load_groups=500 > "$T/cg"
ok "a load of more than 100 groups is refused" failed_with "$T/cg" "load_groups=500"
for o in --json=/etc/x -N --histfile=/etc/x --fifo=/tmp/f "--policy=fifo;x" --distance=5; do
	run cyclictest --rt_tests "$RT" duration=1 "options=$o" > "$T/co"
	ok "cyclictest option $o is refused before cyclictest starts" failed_with "$T/co" "not allowed"
done
run cyclictest --rt_tests "$RT" load=stress > "$T/cs"
ok "an unknown load is refused" failed_with "$T/cs" "hackbench, or empty"
mkdir -p "$T/work"
"$BB" run cyclictest --dir "$T/work" --timeout 2 --rt_tests "$RT" duration=60 threads=1 load=hackbench > "$T/to" 2>/dev/null
is "$(jq -r .data.status "$T/to")" timeout "a cyclictest past its timeout is recorded as a timeout"
sleep 0.5
is "$(pgrep -f -- "$RT/bin/" | wc -l)" 0 "... and neither it nor its load is left running"
is "$(ls -A "$T/work" | wc -l)" 0 "... and its JSON file is not left behind (unlinked when made)"

# --- a stand-in layer: the "loader" is a script that plays the tool ---
mkdir -p "$T/fake/lib" "$T/fake/bin"
: > "$T/fake/bin/cyclictest"
: > "$T/fake/bin/hackbench"
fake_ct() { # fake_ct JSON: the loader writes JSON to the --json= file it is given
	printf '%s' "$1" > "$T/fake.json"
	cat > "$T/fake/lib/ld-linux-x86-64.so.2" <<EOF
#!/bin/sh
for a; do case \$a in --json=*) cat "$T/fake.json" > "\${a#--json=}" ;; esac; done
EOF
	chmod +x "$T/fake/lib/ld-linux-x86-64.so.2"
	run cyclictest --rt_tests "$T/fake" duration=1 histogram=100 > "$T/o"
}
H='"file_version": 1, "return_code": 0'
th='"cycles": 100, "min": 5, "max": 50, "avg": 10'
fake_ct "{$H, \"thread\": {\"0\": {\"histogram\": {\"5\": 90, \"20\": 9, \"50\": 1}, $th}}}"
ok "stand-in: p99 and p99.9 from the histogram (99th of 100 wakeups at 20 us, the 100th at 50)" jqok \
	'.data.status == "ok" and (.data.metrics | map({(.name): .value}) | add) == {"min_us":5,"avg_us":10,"max_us":50,"p99_us":20,"p99_9_us":50}' "$T/o"
fake_ct "{$H, \"thread\": {\"0\": {\"histogram\": {\"2\": 30}, \"cycles\": 30, \"min\": 2, \"max\": 2, \"avg\": 2},
	\"1\": {\"histogram\": {\"5\": 9, \"50\": 1}, \"cycles\": 10, \"min\": 5, \"max\": 50, \"avg\": 9.5}}}"
ok "stand-in: two threads merge: min of mins, avg weighted by cycles, max of maxes, one histogram" jqok \
	'.data.status == "ok" and (.data.metrics | map({(.name): .value}) | add) == {"min_us":2,"avg_us":3.875,"max_us":50,"p99_us":50,"p99_9_us":50} and .data.details.cycles == 40' "$T/o"
fake_ct "{$H, \"thread\": {\"0\": {\"histogram\": {\"500\": 1}, $th}}}"
ok "stand-in: a histogram entry past the bound fails the run" failed_with "$T/o" "outside 0..99"
fake_ct "{$H, \"thread\": {\"0\": {\"histogram\": {\"5\": 1000}, $th}}}"
ok "stand-in: more histogram entries than cycles fails the run" failed_with "$T/o" "more entries than cycles"
fake_ct "{$H, \"thread\": {\"0\": {\"cycles\": 10, \"min\": 9, \"max\": 3, \"avg\": 1}}}"
ok "stand-in: max below min fails the run" failed_with "$T/o" "min <= avg <= max"
for key in '" 5"' '"007"' '"-0"' '"+5"' '"1e1"'; do
	fake_ct "{$H, \"thread\": {\"0\": {\"histogram\": {$key: 1}, $th}}}"
	ok "stand-in: histogram key $key is not a plain number of us" failed_with "$T/o" "histogram entry"
done
fake_ct "{\"file_version\": 2, \"return_code\": 0, \"thread\": {\"0\": {$th}}}"
ok "stand-in: a JSON file_version other than 1 is refused, not guessed at" failed_with "$T/o" "file_version 2"
fake_ct '{"file_version": 1, "return_code": 0, "thread": {"0": {"cycles": 1'
ok "stand-in: truncated JSON fails the run and says where" failed_with "$T/o" "JSON"

fake_hb() {
	printf '#!/bin/sh\n%s\n' "$1" > "$T/fake/lib/ld-linux-x86-64.so.2"
	chmod +x "$T/fake/lib/ld-linux-x86-64.so.2"
	run hackbench --rt_tests "$T/fake" > "$T/o"
}
fake_hb 'echo "Time: 1.5"; echo "Time: 2.5"'
ok "stand-in hackbench: two result lines fail" failed_with "$T/o" "2 result lines"
for v in 1e999 0x10 -1 1.5x; do
	fake_hb "echo 'Time: $v'"
	ok "stand-in hackbench: \"Time: $v\" is not a time" failed_with "$T/o" "not a number"
done
fake_hb 'echo "Time: 0.000"'
ok "stand-in hackbench: a time of 0.000 s fails and says to raise loops" failed_with "$T/o" "raise loops"
fake_hb 'printf "Time: 1.5\000\nTime: 9\n"'
ok "stand-in hackbench: a NUL byte in the output fails the run" failed_with "$T/o" "NUL"
# the load: a stand-in hackbench that says why it stops at once
printf '#!/bin/sh\ncase "$*" in *hackbench*) echo "hackbench: boom"; exit 3 ;; esac\nsleep 3\n' > "$T/fake/lib/ld-linux-x86-64.so.2"
run cyclictest --rt_tests "$T/fake" duration=1 load=hackbench > "$T/o"
ok "a load that ends before the measurement fails the run, with the load's own last line" \
	failed_with "$T/o" 'load ended \(exit 3\) before cyclictest started: hackbench: boom'
done_testing
