#!/usr/bin/env bash
# The fio workload on the host, driving the userland's own static fio: a job
# file and inline options both yield per-direction figures (bw, IOPS, clat
# mean/p50/p99/p99.9) with units and directions, read from fio's JSON; a job
# that names a file or device outside the layout, runs a program, or loads
# code is refused before fio starts; fio's own errors become a failed run
# with fio's reason.
. "$(dirname "$0")/lib.sh"
FIO=$B/userland-stage/usr/bin/fio
[ -x "$BB" ] && [ -x "$FIO" ] || skip_all "not built (run make)"
plan 16
d=$T/d
mkdir -p "$d"
jqok() { jq -e "$@" >/dev/null; }
run() { "$BB" run fio --dir "$d" --fio "$FIO" "$@" 2>/dev/null; }

cat > "$T/mixed.fio" <<'J'
; a user's job file: two jobs, one mixed
[global]
ioengine=psync
size=2M
bs=4k
[rr]
rw=randread
[mix]
rw=randrw
rwmixread=70
J
run --job "$T/mixed.fio" > "$T/r1"; rc=$?
is "$rc" 0 "a job file from the plan runs"
is "$(jq -r '.data.details | "\(.fio_version) \(.jobs) \(.j0_name) \(.j1_name)"' "$T/r1")" "fio-3.33 2 rr mix" \
	"details: fio's version, the jobs and their names"
is "$(jq -r '[.data.metrics[].name | select(startswith("j0_"))] | join(",")' "$T/r1")" \
	"j0_read_bw,j0_read_iops,j0_read_clat_mean,j0_read_clat_p50,j0_read_clat_p99,j0_read_clat_p99.9,j0_usr_cpu,j0_sys_cpu" \
	"the randread job: read figures only, and fio's CPU figures"
is "$(jq -r '[.data.metrics[].name | select(startswith("j1_")) | select(test("_(read|write)_bw$"))] | join(",")' "$T/r1")" \
	"j1_read_bw,j1_write_bw" "the mixed job: both directions"
ok "every figure has a unit and a direction, and is a number >= 0" jqok \
	'.data.metrics | length == 22 and all(.[]; (.unit|length>0) and (.better=="higher" or .better=="lower") and (.value|type=="number") and .value >= 0)' "$T/r1"
ok "latency percentiles are ordered: p50 <= p99 <= p99.9" jqok \
	'[.data.metrics[] | {(.name): .value}] | add | .j0_read_clat_p50 <= .j0_read_clat_p99 and .j0_read_clat_p99 <= .["j0_read_clat_p99.9"]' "$T/r1"

run --options "rw=read bs=64k size=1M ioengine=sync" > "$T/r2"; rc=$?
is "$rc" 0 "inline options run"
is "$(jq -r '[.data.metrics[] | select(.name=="j0_read_bw") | .unit] | join("")' "$T/r2")" "MB/s" "inline: read bandwidth in MB/s"

refused() { # refused DESC WANT-REGEX ARGS...
	local desc=$1 want=$2; shift 2
	run "$@" > "$T/rf"
	ok "$desc" jqok --arg w "$want" '.data.status == "failed" and (.data.reason | test($w)) and (.data.metrics | length == 0)' "$T/rf"
}
printf '[a]\nrw=write\nsize=1M\nfilename=/dev/nosuchdisk\n' > "$T/dev.fio"
refused "a job naming a device that is not the layout's is refused" 'filename=/dev/nosuchdisk is outside this layout' --job "$T/dev.fio"
printf '[a]\nrw=write\nsize=1M\nfilename = ${HOME}/x\n' > "$T/env.fio"
refused "a target fio would expand (\${VAR}) is refused" 'outside this layout' --job "$T/env.fio"
printf '[a]\nrw=read\nsize=1M\nexec_prerun=touch %s\n' "$T/ran" > "$T/exec.fio"
refused "exec_prerun is refused, and nothing ran" 'exec_prerun is refused' --job "$T/exec.fio"
printf '[a]\nrw=read\nsize=1M\n  include %s\n' "$T/dev.fio" > "$T/inc.fio"
refused "a job file that includes another is refused" 'may not include' --job "$T/inc.fio"
refused "inline ../ escapes are refused" 'outside this layout' --options "rw=write size=1M directory=$d/../x"
refused "ioengine=sg is refused" 'ioengine=sg is refused' --options "rw=read size=1M ioengine=sg"
run --options "rw=sideways size=1M" > "$T/bad"
ok "fio's own refusal is a failed run with fio's reason" jqok '.data.status == "failed" and (.data.reason | test("fio exit 1: .*rw=sideways"))' "$T/bad"
ok "... and nothing was left behind by the refused jobs" test ! -e "$T/ran" -a ! -e "$d/../x"
done_testing
