#!/usr/bin/env bash
# The cyclictest and hackbench workloads on the host, driving the userland's
# rt-tests layer (Debian's binaries with their own glibc and loader): real
# runs give figures with units and directions, a load runs beside the
# measurement and is gone after it, and what the plan can pass is checked.
# A stand-in layer (a shell "loader") feeds the parsers hostile output.
. "$(dirname "$0")/lib.sh"
RT=$B/userland-stage/opt/rt-tests
[ -x "$BB" ] && [ -x "$RT/lib/ld-linux-x86-64.so.2" ] || skip_all "not built (run make)"
plan 28
jqok() { jq -e "$@" >/dev/null; }
run() { "$BB" run "$@" 2>/dev/null; }
figs() { jq -r '[.data.metrics[] | "\(.name) \(.unit) \(.better)"] | join(",")' "$1"; }
reason() { jq -r .data.reason "$1"; }

# --- hackbench ---
run hackbench --rt_tests "$RT" groups=2 loops=50 > "$T/h"
is "$(figs "$T/h")" "total_s s lower" "hackbench: total seconds, lower is better"
ok "hackbench: 2 groups of 20 senders and 20 receivers are 80 tasks" jqok '.data.details.tasks == 80 and .data.metrics[0].value > 0' "$T/h"
run hackbench --rt_tests "$RT" mode=thread transport=pipe groups=1 loops=50 > "$T/h2"
ok "hackbench: threads over pipes" jqok '.data.status == "ok" and .data.details.tasks == 40' "$T/h2"
run hackbench --rt_tests "$RT" transport=inet groups=1 loops=20 > "$T/h3"
ok "hackbench: loopback TCP" jqok '.data.status == "ok"' "$T/h3"
run hackbench --rt_tests "$RT" mode=fork > "$T/h4"
ok "hackbench: an unknown mode is refused" jqok '.data.status == "failed" and (.data.reason | test("process or thread"))' "$T/h4"
run hackbench --rt_tests "$RT" groups=0 > "$T/h5"
ok "hackbench: groups=0 is refused" jqok '.data.status == "failed" and (.data.reason | test("outside 1..1000"))' "$T/h5"
run hackbench --rt_tests "$T/nowhere" > "$T/h6"
ok "a missing rt-tests layer is a failed run that names the loader" jqok '.data.status == "failed" and (.data.reason | test("loader"))' "$T/h6"

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
run cyclictest --rt_tests "$RT" duration=2 threads=1 load=hackbench "load_options=-g 1" > "$T/cl"
ok "cyclictest under a hackbench load: figures, and the load said in details" jqok \
	'.data.status == "ok" and .data.details.load == "hackbench" and .data.details.load_options == "-g 1" and (.data.metrics | length == 5)' "$T/cl"
sleep 0.3
is "$(pgrep -f -- "$RT/bin/hackbench" | wc -l)" 0 "... and no hackbench is left running after it"
run cyclictest --rt_tests "$RT" duration=3 threads=1 load=hackbench "load_options=-g 1 -l 5" > "$T/ce"
ok "a load that ends before the measurement fails the run" jqok '.data.status == "failed" and (.data.reason | test("load ended"))' "$T/ce"
for o in --json=/etc/x -N --histfile=/etc/x --fifo=/tmp/f "--policy=fifo;x"; do
	run cyclictest --rt_tests "$RT" duration=1 "options=$o" > "$T/co"
	ok "cyclictest option $o is refused before cyclictest starts" jqok '.data.status == "failed" and (.data.reason | test("not allowed"))' "$T/co"
done
run cyclictest --rt_tests "$RT" load=stress > "$T/cs"
ok "an unknown load is refused" jqok '.data.status == "failed" and (.data.reason | test("hackbench, or empty"))' "$T/cs"
"$BB" run cyclictest --timeout 2 --rt_tests "$RT" duration=60 threads=1 load=hackbench > "$T/to" 2>/dev/null
is "$(jq -r .data.status "$T/to")" timeout "a cyclictest past its timeout is recorded as a timeout"
sleep 0.5
is "$(pgrep -f -- "$RT/bin/" | wc -l)" 0 "... and neither it nor its load is left running"

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
th='"cycles": 100, "min": 5, "max": 50, "avg": 10'
fake_ct "{\"return_code\": 0, \"thread\": {\"0\": {\"histogram\": {\"5\": 90, \"20\": 9, \"50\": 1}, $th}}}"
ok "stand-in: p99 and p99.9 from the histogram (99th of 100 wakeups at 20 us, the 100th at 50)" jqok \
	'.data.status == "ok" and (.data.metrics | map({(.name): .value}) | add) == {"min_us":5,"avg_us":10,"max_us":50,"p99_us":20,"p99_9_us":50}' "$T/o"
fake_ct "{\"return_code\": 0, \"thread\": {\"0\": {\"histogram\": {\"500\": 1}, $th}}}"
ok "stand-in: a histogram entry past the bound fails the run" jqok '.data.status == "failed" and (.data.reason | test("outside 0..99"))' "$T/o"
fake_ct "{\"return_code\": 0, \"thread\": {\"0\": {\"histogram\": {\"5\": 1000}, $th}}}"
ok "stand-in: more histogram entries than cycles fails the run" jqok '.data.status == "failed" and (.data.reason | test("more histogram entries"))' "$T/o"
fake_ct "{\"return_code\": 0, \"thread\": {\"0\": {\"cycles\": 10, \"min\": 9, \"max\": 3, \"avg\": 1}}}"
ok "stand-in: max below min fails the run" jqok '.data.status == "failed" and (.data.reason | test("lacks cycles"))' "$T/o"
fake_ct '{"return_code": 0, "thread": {"0": {"cycles": 1'
ok "stand-in: truncated JSON fails the run and says where" jqok '.data.status == "failed" and (.data.reason | test("JSON"))' "$T/o"
fake_hb() {
	printf '#!/bin/sh\n%s\n' "$1" > "$T/fake/lib/ld-linux-x86-64.so.2"
	chmod +x "$T/fake/lib/ld-linux-x86-64.so.2"
	run hackbench --rt_tests "$T/fake" > "$T/o"
}
fake_hb 'echo "Time: 1.5"; echo "Time: 2.5"'
ok "stand-in hackbench: two result lines fail" jqok '.data.status == "failed" and (.data.reason | test("2 result lines"))' "$T/o"
fake_hb 'echo "Time: 1e999"'
ok "stand-in hackbench: a non-finite time fails" jqok '.data.status == "failed" and (.data.reason | test("not a number"))' "$T/o"
done_testing
