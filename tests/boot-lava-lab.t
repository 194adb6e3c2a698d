#!/usr/bin/env bash
# bootbench-test: slow
# A real LAVA lab (docs/lava.md): scripts/lava-lab starts Debian's
# lava-server, scheduler, publisher and a worker with two QEMU devices on
# loopback; scripts/lava-series --server submits a comparison of two
# kernels through the server, in confirmation rounds until decided, reads each job back through
# lavacli, and compares; LAVA's own results hold bootbench's figures as test
# cases with their unit; each boot says which device ran it (its SMBIOS
# serial), and each job's results image holds what its log holds (compare
# counts each boot once). Then a job cancelled mid-run, and a worker gone
# mid-job (killed with its lava-run and QEMU, then started again): the
# series says the boots are missing, submits them once more, and the
# comparison stays consistent; a series ended by TERM cancels its jobs.
# Last, stop ends exactly what start started, a job's lava-run and QEMU
# included.
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
plan 16
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
# which device ran each boot: the records say it (SMBIOS serial), as the server does
named=0 same=0
for d in "$T/s"/job*.show; do
	j=${d%.show}
	dev=$(sed -n 's/^device: *//p' "$d" | tr -d "'\"")
	ser=$("$BB" collect "$j.log" 2>/dev/null | jq -r 'select(.type == "boot") | .data.dmi.serial')
	[ -n "$dev" ] && [ "$ser" = "$dev" ] && named=$((named + 1))
	"$BB" collect "$j.log" >"$T/l.jsonl" 2>/dev/null
	"$BB" collect "$j"/s*/results.img >"$T/i.jsonl" 2>/dev/null
	[ -s "$T/l.jsonl" ] && cmp -s "$T/l.jsonl" "$T/i.jsonl" && same=$((same + 1))
done
ok "every boot's record names the device the server ran it on ($named)" sh -c "[ -n '$r' ] && [ $named = $(( ${r:-0} * 2 )) ]"
# the images alone give every boot: the series handed them to compare beside the logs
img_boots=$("$BB" compare $(cat "$T/s/images.list" 2>/dev/null) 2>/dev/null | grep -Ec '^  6.1.192 (generic|rt) +[0-9]+ boots')
ok "each job's results image holds the records its log holds ($same), and holds every boot alone; compare lists the devices" \
	sh -c "[ -n '$r' ] && [ $same = $(( ${r:-0} * 2 )) ] && [ \$(wc -l <'$T/s/images.list') = $same ] && [ $img_boots = 2 ] &&
	       grep -Eq '^  6.1.192 generic +$r boots: .*; on qemu-0' '$T/s/compare.txt' &&
	       jq -e '[.tests[].environment.comment] | unique == [\"qemu-01\", \"qemu-02\"]' '$T/s/kcidb.json' >/dev/null"
# pinned: each job on the device its round gave it, each kernel on both
pinned=0
for d in "$T/s"/job*.show; do
	dev=$(sed -n 's/^device: *//p' "$d" | tr -d "'\"")
	tag=$(sed -n '/^tags:/{n;s/^- //p}' "${d%.show}/job.yaml")
	[ -n "$dev" ] && [ "$dev" = "$tag" ] && pinned=$((pinned + 1))
done
ok "the rounds' jobs pinned to the devices in turn: each on its device ($pinned), each kernel on both, no machine warning" \
	sh -c "[ -n '$r' ] && [ $pinned = $(( ${r:-0} * 2 )) ] && grep -q 'pinned to qemu-01 qemu-02 in turn' '$T/err' &&
	       grep -Eq '^  6.1.192 generic .*; on qemu-0[12] \([0-9]+\), qemu-0[12] \([0-9]+\)$' '$T/s/compare.txt' &&
	       grep -Eq '^  6.1.192 rt .*; on qemu-0[12] \([0-9]+\), qemu-0[12] \([0-9]+\)$' '$T/s/compare.txt' &&
	       ! grep -q 'same machines' '$T/s/compare.txt'"
jid=$(cat "$T/s/job1.id")
lavacli -i "$id" results "$jid" --yaml >"$T/results" 2>/dev/null
ok "LAVA's own results hold bootbench's figures as test cases with a measurement and unit (job $jid)" \
	sh -c "grep -q 'suite: bootbench' '$T/results' && grep -Eq 'measurement: .?[0-9]' '$T/results' && grep -q 'unit:' '$T/results'"

# series_bg DIR [ENV=V...]: a one-round series of the two kernels in the
# background, into DIR (its stderr DIR.err); series_end DIR: its exit, its
# lines shown, and how many boots the logs it kept hold (read_boots)
series_bg() {
	local d=$1; shift
	env "$@" timeout -k 10 1500 "$TOP/scripts/lava-series" --kernels "$a,$b" --plan null --rounds 1 --deterministic \
		--server "$id" --timeout 10 --out "$d" >"$d.out" 2>"$d.err" &
	series=$!
}
series_end() {
	wait "$series"
	rc=$?
	series=
	grep 'lava-series:' "$1.err" | sed 's/^/# /'
	read_boots=$("$BB" collect $(cat "$1/logs.list" 2>/dev/null) 2>/dev/null | jq -r 'select(.type == "boot") | .boot_id' |
		sort -u | wc -l)
}
running() {	# running JOBID-FILE: wait until that job runs
	for i in $(seq 1 300); do
		[ -s "$1" ] && lavacli -i "$id" jobs show "$(cat "$1")" 2>/dev/null | grep -q 'state *: Running' && return 0
		sleep 1
	done
	return 1
}

# a job cancelled while it runs: missing, said, submitted once more
series_bg "$T/c"
running "$T/c/job1.id"
lavacli -i "$id" jobs cancel "$(cat "$T/c/job1.id" 2>/dev/null)" >/dev/null 2>&1
series_end "$T/c"
ok "the cancelled job is said missing, its log left out of the comparison, its kernel submitted once more ($read_boots boots read)" \
	sh -c "[ $rc = 0 ] && grep -q ' Canceled$' '$T/c/missing.log' && grep -q 'submitted once more' '$T/c.err' &&
	       ! grep -q '/job1.log$' '$T/c/logs.list' && [ $read_boots = 2 ]"

# a worker gone mid-job: killed, with its lava-run and QEMU (the worker
# machine gone), then started again; the series sees it offline, cancels
# its jobs, says the boots are missing, and submits them once more
series_bg "$T/g" BOOTBENCH_LAVA_WORKER_GONE=15
running "$T/g/job1.id" && running "$T/g/job2.id"
wp=$(cut -d' ' -f1 "$lab/run/worker.pid")
kids=$(pgrep -P "$wp")
kill -KILL -- "-$wp"
for c in $kids; do kill -KILL -- "-$c" 2>/dev/null; done
# both jobs seen gone before the worker is back (it would end them Incomplete)
for i in $(seq 1 400); do [ "$(grep -c ' worker-gone$' "$T/g/missing.log" 2>/dev/null)" = 2 ] && break; sleep 1; done
timeout 300 "$TOP/scripts/lava-lab" start --devices 2 --deterministic --identity "$id" >"$T/restart.out" 2>&1
series_end "$T/g"
ok "a worker gone mid-job: its job cancelled and said missing, submitted once more when it is back ($read_boots boots read)" \
	sh -c "[ $rc = 0 ] && [ \$(grep -c ' worker-gone$' '$T/g/missing.log') = 2 ] && grep -q 'went away' '$T/g.err' &&
	       grep -q 'submitted once more' '$T/g.err' && ! grep -q '/job1.log$' '$T/g/logs.list' && [ $read_boots = 2 ]"

# a series ended (TERM) while its jobs run: it cancels them
series_bg "$T/k"
running "$T/k/job1.id" && running "$T/k/job2.id"
kill -TERM "$series"
wait "$series"
rc=$?
series=
# ended, and not Complete (a cancel LAVA takes as the job ends may say Incomplete)
for i in $(seq 1 90); do
	st=$(for f in "$T/k"/job*.id; do lavacli -i "$id" jobs show "$(cat "$f")" 2>/dev/null |
		awk '/^state/ { s = $3 } /^Health/ { h = $3 } END { print s "/" h }'; done | sort | tr '\n' ' ')
	[ "$(grep -o 'Finished/' <<<"$st" | wc -l)" = 2 ] && break
	sleep 1
done
fin=$(grep -o 'Finished/' <<<"$st" | wc -l)
ok "a series ended by TERM while its jobs run cancels them (exit $rc; the jobs: $st)" \
	sh -c "[ $rc = 143 ] && [ \$(grep -c 'cancel asked (the series ended before it collected' '$T/k.err') = 2 ] &&
	       [ $fin = 2 ] && ! echo '$st' | grep -q '/Complete'"

{
	# a job running when the lab stops: its lava-run and QEMU end too
	write=$("$BB" lava-job --kernel "$a" --plan null --out "$T/stopjob" --append 'bootbench.mode=deterministic norandmaps' 2>/dev/null)
	lavacli -i "$id" jobs submit "$write" >"$T/stopjob.id" 2>/dev/null
	running "$T/stopjob.id"
	below() { local p; for p in $(pgrep -P "$1"); do echo "$p"; below "$p"; done; }
	wpid=$(cut -d' ' -f1 "$lab/run/worker.pid")
	runs=$(pgrep -P "$wpid")
	for i in $(seq 1 30); do below "$wpid" | xargs -r ps -o comm= -p | grep -q qemu && break; sleep 1; done
	qemu=$(below "$wpid" | xargs -r ps -o pid=,comm= -p | awk '$2 ~ /qemu/ { print $1 }')
	pids=$(cat "$lab/run/"*.pid 2>/dev/null | cut -d' ' -f1)
	pids="$pids $(below "$wpid")"
	"$TOP/scripts/lava-lab" stop >"$T/stop.out" 2>&1
	"$TOP/scripts/lava-lab" status >"$T/status" 2>&1
	# gone, or a zombie its new parent has not reaped yet
	left=$(for p in $pids; do [ -d "/proc/$p" ] && ! grep -q '^State:.*Z' "/proc/$p/status" 2>/dev/null && echo "$p"; done)
	ok "stop ends what start started, by PID, a running job's lava-run and QEMU too (left: ${left:-none}; lava-run $(echo $runs), QEMU $(echo $qemu))" \
		sh -c "[ -z '$left' ] && [ -n '$runs' ] && [ -n '$qemu' ] &&
		grep -q 'worker: not running' '$T/status' && grep -q 'gunicorn: not running' '$T/status' &&
		grep -q 'scheduler: not running' '$T/status' && grep -q 'publisher: not running' '$T/status'"
}
done_testing
