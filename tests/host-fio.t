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
plan 35
d=$T/d
mkdir -p "$d"
tmp0=$(ls /tmp/bootbench-fio.* 2>/dev/null | wc -l)
litter() { ls "$d"/bootbench-fio.* /tmp/bootbench-fio.* 2>/dev/null | wc -l; }
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
is "$(jq -r '.data.details | "\(.fio_version) \(.jobs) \(.j0_name) \(.j1_name) \(.j0_sys_cpu_pct | type)"' "$T/r1")" "fio-3.33 2 rr mix number" \
	"details: fio's version, the jobs, their names, and fio's CPU figures"
is "$(jq -r '[.data.metrics[].name | select(startswith("j0_"))] | join(",")' "$T/r1")" \
	"j0_read_MBps,j0_read_iops,j0_read_clat_mean_us,j0_read_clat_p50_us,j0_read_clat_p99_us,j0_read_clat_p99_9_us" \
	"the randread job: read figures only"
is "$(jq -r '[.data.metrics[].name | select(startswith("j1_")) | select(test("_(read|write)_MBps$"))] | join(",")' "$T/r1")" \
	"j1_read_MBps,j1_write_MBps" "the mixed job: both directions"
ok "every figure has a unit and a direction, and is a number >= 0" jqok \
	'.data.metrics | length == 18 and all(.[]; (.unit|length>0) and (.better=="higher" or .better=="lower") and (.value|type=="number") and .value >= 0)' "$T/r1"
ok "latency percentiles are ordered: p50 <= p99 <= p99.9" jqok \
	'[.data.metrics[] | {(.name): .value}] | add | .j0_read_clat_p50_us <= .j0_read_clat_p99_us and .j0_read_clat_p99_us <= .j0_read_clat_p99_9_us' "$T/r1"

run --options "rw=read bs=64k size=1M ioengine=sync" > "$T/r2"; rc=$?
is "$rc" 0 "inline options run"
is "$(jq -r '[.data.metrics[] | select(.name=="j0_read_MBps") | .unit] | join("")' "$T/r2")" "MB/s" "inline: read bandwidth in MB/s"

refused() { # refused DESC WANT-REGEX ARGS...
	local desc=$1 want=$2; shift 2
	run "$@" > "$T/rf"
	ok "$desc" jqok --arg w "$want" '.data.status == "failed" and (.data.reason | test($w)) and (.data.metrics | length == 0)' "$T/rf"
}
printf '[a]\nrw=write\nsize=1M\nfilename=/dev/nosuchdisk\n' > "$T/dev.fio"
: > "$T/empty.fio"
refused "an empty job file is refused" 'is empty' --job "$T/empty.fio"
refused "a job naming a device that is not the layout's is refused" 'filename=/dev/nosuchdisk is outside this layout' --job "$T/dev.fio"
printf '[a]\nrw=write\nsize=1M\nfilename = ${HOME}/x\n' > "$T/env.fio"
refused "a target fio would expand (\${VAR}) is refused" "holds '\\\$'" --job "$T/env.fio"
printf '[a]\nrw=read\nsize=1M\nexec_prerun=touch %s\n' "$T/ran" > "$T/exec.fio"
refused "exec_prerun is refused, and nothing ran" 'option exec_prerun is not one the appliance allows' --job "$T/exec.fio"
printf '[a]\nrw=read\nsize=1M\n  include %s\n' "$T/dev.fio" > "$T/inc.fio"
refused "a job file that includes another is refused" 'may not include' --job "$T/inc.fio"
refused "inline ../ escapes are refused" 'outside this layout' --options "rw=write size=1M directory=$d/../x"
refused "ioengine=sg is refused" 'ioengine=sg is not one' --options "rw=read size=1M ioengine=sg"
refused "fio's own command-line options are refused inline (output=)" 'option output is not one' --options "rw=read size=1M output=$T/x"
refused "a relative directory= (taken from the current directory) is refused" 'outside this layout' --options "rw=read size=1M directory=sub"
refused "mem=mmapshared: naming a file outside is refused" 'option mem is not one' --options "rw=read size=1M mem=mmapshared:/etc/x"
# the ways past a blacklist that review found: fio strips any isspace(),
# expands ${VAR} inside option names, takes include followed by anything,
# and job names are file names
printf '[a]\nrw=read\nsize=64k\n\fexec_prerun=touch %s\n' "$T/ran" > "$T/ff.fio"
refused "a form feed before an option is refused" 'control character' --job "$T/ff.fio"
refused "a form feed inline splits the option, which is then checked" 'exec_prerun is not one' --options "$(printf 'rw=read size=64k \fexec_prerun=touch %s' "$T/ran")"
printf '[a]\nrw=read\nexec_pre${NOSUCH}run=touch %s\n' "$T/ran" > "$T/var.fio"
refused "\${VAR} inside an option name is refused" "holds '\\\$'" --job "$T/var.fio"
printf '[a]\nrw=read\ninclude=%s\n' "$T/exec.fio" > "$T/inc2.fio"
refused "include= (fio takes any character after include) is refused" 'may not include' --job "$T/inc2.fio"
refused "include inline is refused" 'not sections or includes' --options "include=$T/exec.fio"
printf '[../esc]\nrw=write\nsize=64k\n' > "$T/sec.fio"
refused "a job name with .. (a file name under the directory) is refused" 'fio section' --job "$T/sec.fio"
refused "a section inline is refused" 'not sections or includes' --options "rw=write size=64k [../esc]"
refused "e4defrag (donorname opens and truncates a file) is refused" 'ioengine=e4defrag is not one' --options "rw=write size=64k ioengine=e4defrag donorname=../v"
refused "cgroup= is refused" 'option cgroup is not one' --options "rw=read size=64k cgroup=../../x"
refused "thread=0 (jobs as processes, which setsid out of the watchdog's reach) is refused" 'thread=0 is refused' --options "rw=read size=1M thread=0"
run --options "rw=sideways size=1M" > "$T/bad"
ok "fio's own refusal is a failed run with fio's reason" jqok '.data.status == "failed" and (.data.reason | test("fio exit 1: .*rw=sideways"))' "$T/bad"
ok "... and nothing was left behind by the refused jobs" test ! -e "$T/ran" -a ! -e "$d/../x" -a ! -e "$T/x" -a ! -e "$T/esc.0.0"
is "$(litter)" "$tmp0" "fio's job and JSON files are removed after each run"
# a timed-out fio dies with the workload: its jobs are threads, not setsid()
# processes outside the watchdog's process group
mkdir -p "$T/k"
"$BB" run fio --timeout 2 --dir "$T/k" --fio "$FIO" --options "rw=read size=1M time_based=1 runtime=60 numjobs=2" > "$T/to" 2>/dev/null
is "$(jq -r .data.status "$T/to")" timeout "a run past its timeout is recorded as a timeout"
sleep 0.5
is "$(pgrep -f -- "--directory=$T/k" | wc -l)" 0 "... and no fio process is left running on the layout"
# the shipped job files of scripts/bench-nfs (there, in the kernel NFS
# client's mount): filestat's I/O is one stat(2), its clat the call's
for j in nfs-stat nfs-randread; do
	mkdir -p "$T/$j"
	"$BB" run fio --dir "$T/$j" --fio "$FIO" "job=$TOP/rootfs/overlay/etc/bootbench/fio/$j.fio" > "$T/$j.json" 2>/dev/null
	jq -c '{status: .data.status, reason: .data.reason, m: [.data.metrics[] | select(.name | test("j0_read_(iops|clat_mean_us)")) | "\(.name)=\(.value)"]}' "$T/$j.json" | sed "s/^/# $j: /"
	jqok '.data.status == "ok" and ([.data.metrics[] | select((.name == "j0_read_iops" or .name == "j0_read_clat_mean_us") and .value > 0)] | length == 2)' "$T/$j.json" &&
		pass "$j.fio passes the allowlist and gives its I/O rate and mean latency" ||
		fail "$j.fio passes the allowlist and gives its I/O rate and mean latency"
done
done_testing
