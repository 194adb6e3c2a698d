#!/usr/bin/env bash
# bootbench-test: slow
# A real LAVA lab (docs/lava.md): scripts/lava-lab starts Debian's
# lava-server, scheduler, publisher and a worker with two QEMU devices on
# loopback; scripts/lava-series --server submits a comparison of two
# kernels through the server, in confirmation rounds until decided, reads each job back through
# lavacli, and compares; LAVA's own results hold bootbench's figures as test
# cases with their unit. Then a job cancelled mid-run: the series says the
# boot is missing, submits it once more, and the comparison stays
# consistent. Last, stop ends exactly what start started.
. "$(dirname "$0")/lib.sh"
a=${KERNEL_A:-debian-6.1-generic} b=${KERNEL_B:-debian-6.1-rt}
[ -x "$BB" ] && [ -f "$B/userland.cpio.gz" ] || skip_all "not built (run make)"
need_kernel "$a" && need_kernel "$b" || skip_all "$a or $b not fetched (make kernels)"
[ "$(id -u)" = 0 ] || skip_all "lava-server's daemons need root"
command -v lava-server >/dev/null ||
	apt-cache policy lava-server 2>/dev/null | grep -q 'Candidate: [0-9]' ||
	skip_all "lava-server cannot be installed here (no candidate in apt's sources)"
command -v jq >/dev/null || skip_all "jq not installed"
# the lab's usual state directory: a lab already up there is a user's, and
# this test would rewrite its devices
lab=${BOOTBENCH_LAVA_LAB:-${BOOTBENCH_CACHE:-$HOME/.cache/bootbench}/lava-lab}
"$TOP/scripts/lava-lab" status 2>/dev/null | grep -q '^gunicorn: running' &&
	skip_all "a LAVA lab is up here (scripts/lava-lab status): this test starts and stops its own"
plan 11
id=bootbench-test-lab
series=
cleanup() {
	[ -n "$series" ] && kill "$series" 2>/dev/null
	"$TOP/scripts/lava-lab" stop >/dev/null 2>&1
	lavacli identities delete "$id" >/dev/null 2>&1
	[ -n "${KEEP:-}" ] || rm -rf "$T"
}
trap cleanup EXIT

t0=$(date +%s)
timeout 900 "$TOP/scripts/lava-lab" start --devices 2 --deterministic --identity "$id" >"$T/start.out" 2>&1
rc=$?
sed 's/^/# /' "$T/start.out" | tail -n 5
is "$rc" 0 "scripts/lava-lab start: the server, scheduler, publisher and a worker with 2 devices ($(( $(date +%s) - t0 )) s)"
[ "$rc" = 0 ] || sed 's/^/# /' "$lab/log/"*.log 2>/dev/null | tail -n 20
before=$(cat "$lab/run/"*.pid 2>/dev/null)
timeout 120 "$TOP/scripts/lava-lab" start --devices 2 --deterministic --identity "$id" >"$T/again.out" 2>&1
rc=$?
ok "a second start leaves every daemon as it was (exit $rc, the same PIDs)" \
	sh -c "[ $rc = 0 ] && [ -n '$before' ] && [ '$before' = \"\$(cat '$lab/run/'*.pid)\" ]"
ok "everything listens on loopback only (8000, 8001, 5500 and PostgreSQL's 5432)" \
	sh -c "[ \$(ss -ltnH | awk '{ print \$4 }' | grep -cE ':(8000|8001|5500)$') = 3 ] &&
	       ! ss -ltnH | awk '{ print \$4 }' | grep -E ':(8000|8001|5500|5432)$' | grep -vE '^(127\.0\.0\.1|\[::1\]):'"

timeout -k 10 1500 "$TOP/scripts/lava-series" --kernels "$a,$b" --plan null --confirm 3 --deterministic \
	--server "$id" --timeout 10 --out "$T/s" >"$T/out" 2>"$T/err"
rc=$?
grep 'lava-series:' "$T/err" | sed 's/^/# /'
last=$(tail -n 1 "$T/s/confirm.log" 2>/dev/null)
r=$(sed -n 's/^round \([0-9]*\) of 3: .*: decided$/\1/p' <<<"$last")
is "$rc" 0 "lava-series --server --confirm 3: a 2-kernel comparison through the server, until decided ($last)"
ok "2 jobs a round, each Complete, each log read back through lavacli" \
	sh -c "[ -n '$r' ] && [ \$(grep -c 'LAVA job [0-9]* on qemu-0[12]: ok' '$T/err') = \$(( $r * 2 )) ] && [ ! -s '$T/s/missing.log' ]"
ok "the jobs ran on both devices" sh -c "grep -q 'on qemu-01: ok' '$T/err' && grep -q 'on qemu-02: ok' '$T/err'"
boots=$("$BB" collect "$T/s"/job*.log 2>/dev/null | jq -r 'select(.type == "boot") | .boot_id' | sort -u | wc -l)
is "$boots" "$(( ${r:-0} * 2 ))" "collect reads a boot a job from what the server returned"
ok "compare and export --kcidb read it: every boot, a report and a KCIDB submission" \
	sh -c "grep -Eq '6.1.192 generic +$r boots' '$T/s/compare.txt' && grep -Eq '6.1.192 rt +$r boots' '$T/s/compare.txt' &&
	       [ -s '$T/s/report.html' ] && jq -e '.tests | length > 0' '$T/s/kcidb.json' >/dev/null"
jid=$(cat "$T/s/job1.id")
lavacli -i "$id" results "$jid" --yaml >"$T/results" 2>/dev/null
ok "LAVA's own results hold bootbench's figures as test cases with a measurement and unit (job $jid)" \
	sh -c "grep -q 'suite: bootbench' '$T/results' && grep -Eq 'measurement: .?[0-9]' '$T/results' && grep -q 'unit:' '$T/results'"

# a job cancelled while it runs: missing, said, submitted once more
timeout -k 10 1500 "$TOP/scripts/lava-series" --kernels "$a,$b" --plan null --rounds 1 --deterministic \
	--server "$id" --timeout 10 --out "$T/c" >"$T/cout" 2>"$T/cerr" &
series=$!
for i in $(seq 1 300); do
	[ -s "$T/c/job1.id" ] && lavacli -i "$id" jobs show "$(cat "$T/c/job1.id")" 2>/dev/null | grep -q 'state *: Running' && break
	sleep 1
done
lavacli -i "$id" jobs cancel "$(cat "$T/c/job1.id" 2>/dev/null)" >/dev/null 2>&1
wait "$series"
rc=$?
grep 'lava-series:' "$T/cerr" | sed 's/^/# /'
series=
read_boots=$("$BB" collect $(cat "$T/c/logs.list" 2>/dev/null) 2>/dev/null | jq -r 'select(.type == "boot") | .boot_id' | sort -u | wc -l)
ok "the cancelled job is said missing, its log left out of the comparison, its kernel submitted once more ($read_boots boots read)" \
	sh -c "[ $rc = 0 ] && grep -q ' Canceled$' '$T/c/missing.log' && grep -q 'submitted once more' '$T/cerr' &&
	       ! grep -q '/job1.log$' '$T/c/logs.list' && [ $read_boots = 2 ]"

{
	pids=$(cat "$lab/run/"*.pid 2>/dev/null | cut -d' ' -f1)
	"$TOP/scripts/lava-lab" stop >"$T/stop.out" 2>&1
	"$TOP/scripts/lava-lab" status >"$T/status" 2>&1
	# gone, or a zombie its new parent has not reaped yet
	left=$(for p in $pids; do [ -d "/proc/$p" ] && ! grep -q '^State:.*Z' "/proc/$p/status" 2>/dev/null && echo "$p"; done)
	ok "stop ends what start started, by PID (left: ${left:-none})" sh -c "[ -z '$left' ] && [ -n '$pids' ] &&
		grep -q 'worker: not running' '$T/status' && grep -q 'gunicorn: not running' '$T/status' &&
		grep -q 'scheduler: not running' '$T/status' && grep -q 'publisher: not running' '$T/status'"
}
done_testing
