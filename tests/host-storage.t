#!/usr/bin/env bash
# The storage workloads on the host: stream (dd), hdparm (-T -t, on a loop
# device) and bonnie (bonnie++). Each runs through `bootbench run`, exits 0,
# records the figures it promises with units and directions, positive and
# finite, and leaves its directory as it found it. bonnie's CSV line is the
# one bonnie++ tooling reads. hdparm needs a block device: without a working
# losetup its cases are SKIPs, never passes.
. "$(dirname "$0")/lib.sh"
[ -x "$BB" ] || skip_all "not built (run make)"
command -v jq >/dev/null || skip_all "jq missing (scripts/install-deps)"
plan 21
mkdir -p "$T/d"

# names UNIT BETTER of a record's metrics, one per line
figures() { jq -r '.data.metrics[] | "\(.name) \(.unit) \(.better)"' "$1"; }
# every value finite and > 0 (rates, times) or >= 0 (CPU, latency): FILTER picks the first kind
values_ok() {
	jq -e --arg pos "$2" '[.data.metrics[] | (.value | type == "number" and isfinite) and
		(if (.name | test($pos)) then .value > 0 else .value >= 0 end)] | length > 0 and all' "$1" >/dev/null
}

# --- stream ---------------------------------------------------------------
"$BB" run stream --dir "$T/d" --size 8M --bs 256K > "$T/stream" 2>"$T/stream.err"; rc=$?
is "$rc" 0 "stream: exit 0"
is "$(figures "$T/stream" | tr '\n' ' ')" \
	"write_MBps MB/s higher read_MBps MB/s higher write_s s lower read_s s lower write_user_s s lower write_sys_s s lower read_user_s s lower read_sys_s s lower " \
	"stream: rates in MB/s, times and CPU in s, with directions"
ok "stream: rates and times positive, CPU not negative, all finite" values_ok "$T/stream" '^(write|read)_(MBps|s)$'
dropped() { jq -e '.data.details.cache_drop | IN("drop_caches", "fadvise")' "$T/stream" >/dev/null; }
ok "stream: says how it emptied the cache" dropped
is "$(ls -A "$T/d")" "" "stream: leaves nothing behind"
"$BB" run stream --dir "$T/d" --bs 0 > "$T/stream-bad" 2>/dev/null
is "$(jq -r .data.reason "$T/stream-bad")" "size and bs must be positive (size=67108864 bs=0)" "stream: a zero block size fails with a reason"

# --- hdparm ---------------------------------------------------------------
truncate -s 32M "$T/disk.img"
printf 'bootbench hdparm must never write this\n' | dd of="$T/disk.img" conv=notrunc status=none
before=$(sha256sum < "$T/disk.img")
loop=
if [ "$(id -u)" = 0 ] && command -v losetup >/dev/null; then
	loop=$(losetup -f --show "$T/disk.img" 2>"$T/losetup.err") || loop=
fi
if [ -n "$loop" ]; then
	trap 'losetup -d "$loop" 2>/dev/null; rm -rf "$T"' EXIT
	"$BB" run hdparm --dev "$loop" --cached_seconds 1 --disk_seconds 1 --settle 0 > "$T/hdparm" 2>"$T/hdparm.err"; rc=$?
	is "$rc" 0 "hdparm: exit 0 on a loop device"
	is "$(figures "$T/hdparm" | tr '\n' ' ')" "cached_read MiB/s higher buffered_read MiB/s higher " \
		"hdparm: cached and buffered reads in MiB/s (hdparm's MB), higher is better"
	ok "hdparm: both rates positive and finite" values_ok "$T/hdparm" .
	losetup -d "$loop"
	loop=
	is "$(sha256sum < "$T/disk.img")" "$before" "hdparm: the device is unchanged (it never writes)"
else
	why="no loop device ($( [ "$(id -u)" = 0 ] || echo 'not root'; cat "$T/losetup.err" 2>/dev/null | head -1))"
	for d in "exit 0 on a loop device" "rates in MiB/s" "rates positive" "device unchanged"; do
		skip "hdparm: $d: $why"
	done
fi
"$BB" run hdparm --dev "$T/disk.img" > "$T/hdparm-file" 2>/dev/null
is "$(jq -r .data.reason "$T/hdparm-file")" "$T/disk.img is not a block device" "hdparm: a regular file is refused"

# --- bonnie ---------------------------------------------------------------
"$BB" run bonnie --dir "$T/d" --size 4M --byte_io 256K --seeks 2000 --seekers 3 --files 1024 --seed 7 \
	> "$T/bonnie" 2>"$T/bonnie.err"; rc=$?
is "$rc" 0 "bonnie: exit 0"
want=
for p in putc put_block rewrite getc get_block seeks seq_create seq_stat seq_del ran_create ran_stat ran_del; do
	case $p in
	seeks) u=seeks/s ;; seq_*|ran_*) u=files/s ;; *) u=KiB/s ;;
	esac
	want="$want$p $u higher ${p}_cpu % lower ${p}_latency us lower "
done
is "$(figures "$T/bonnie" | tr '\n' ' ')" "$want" "bonnie: each phase's rate (KiB/s, seeks/s, files/s), CPU % and latency"
ok "bonnie: rates positive, CPU and latency not negative, all finite" \
	values_ok "$T/bonnie" '^(putc|put_block|rewrite|getc|get_block|seeks|seq_create|seq_stat|seq_del|ran_create|ran_stat|ran_del)$'
ok "bonnie: a 4M file on this machine fits in the page cache: said in the record, with its share of MemTotal" \
	sh -c "jq -e '(.data.warnings | any(test(\"^size=4194304 is [0-9.e-]+x this boot.s memory \\\\(MemTotal [0-9]+ KiB\\\\): block input and rewrite read the page cache\"))) and .data.details.size_per_memory < 2' '$T/bonnie' >/dev/null"
csv=$(jq -r .data.details.csv "$T/bonnie")
is "$(echo "$csv" | awk -F, '{print NF}')" 50 "bonnie: the CSV line has bonnie++ 2.00a's 50 fields"
is "$(echo "$csv" | cut -d, -f1,2,4-9,22)" "1.98,bootbench,1,7,4M,,2000,3,1" \
	"bonnie: CSV format 1.98, version bootbench, concurrency, seed, size, seeks, seekers, files"
# the 24 rate and CPU fields: bonnie++ prints a number, or +++++/+++ under 0.5 s
csv_figures_ok() {
	! echo "$csv" | cut -d, -f10-21,27-38 | tr , '\n' | grep -Evq '^([0-9]+(\.[0-9]+)?|\+\+\+\+\+|\+\+\+)$'
}
ok "bonnie: every CSV figure is a number, or +++++/+++ (under 0.5 s)" csv_figures_ok
if command -v bon_csv2txt >/dev/null; then
	echo "$csv" | bon_csv2txt > "$T/csv2txt" 2>"$T/csv2txt.err"
	ok "bonnie: bon_csv2txt reads the line (no complaint, machine name printed)" \
		sh -c "[ ! -s '$T/csv2txt.err' ] && grep -q '$(uname -n)' '$T/csv2txt'"
else
	skip "bonnie: bon_csv2txt reads the line: bonnie++ not installed"
fi
is "$(ls -A "$T/d")" "" "bonnie: leaves nothing behind"
"$BB" run bonnie --dir "$T/d" --size 100000 > "$T/bonnie-bad" 2>/dev/null
is "$(jq -r .data.reason "$T/bonnie-bad")" "parameter size=100000: a positive multiple of chunk=8192" \
	"bonnie: a size that is not whole chunks fails with a reason"
done_testing
