#!/usr/bin/env bash
# bootbench export --kcidb: the submission passes the KCIDB v5.3 schema's
# rules (tests/kcidb-check.py: required members, id, origin and path
# patterns, status values, no property the schema does not define, and the
# references between objects), and the checker itself fails a submission with
# a forbidden property; ids are stable across exports; every run status maps;
# a kernel built from a git tree names its commit; hostile names still give
# valid paths; a run twice is one test; bad usage is refused.
. "$(dirname "$0")/lib.sh"
PY=/usr/bin/python3
[ -x "$BB" ] || skip_all "not built (run make)"
"$PY" -c 'import jsonschema' 2>/dev/null || skip_all "no jsonschema in $PY (apt-get install python3-jsonschema)"
command -v jq >/dev/null || skip_all "jq not installed"
plan 33
FIX=$TOP/tests/fixtures/compare/two-kernels.jsonl
check() { "$PY" "$TOP/tests/kcidb-check.py" "$1"; }

"$BB" export --kcidb "$FIX" -o "$T/a.json" 2>"$T/err"; rc=$?
is "$rc" 0 "export of the two-kernel fixture: exit 0"
out=$(check "$T/a.json"); rc=$?
is "$rc" 0 "it passes the schema checks ($out)"
[ "$rc" = 0 ] || diag "$out"
is "$(jq -r '.version | "\(.major).\(.minor)"' "$T/a.json")" 5.3 "version 5.3"

# the checker can fail: one property the schema does not define
jq '.tests[0].start = "x"' "$T/a.json" >"$T/extra.json"
check "$T/extra.json" >"$T/extra.out"; rc=$?
is "$rc" 1 "a test with a property the schema forbids fails the checks"
ok "... and the checker says which" grep -q "Additional properties are not allowed ('start'" "$T/extra.out"
jq '.tests[0].status = "OK"' "$T/a.json" >"$T/st.json"
check "$T/st.json" >/dev/null; is "$?" 1 "a status outside the schema's enum fails"
jq '.tests[0].path = "bootbench.a b"' "$T/a.json" >"$T/path.json"
check "$T/path.json" >/dev/null; is "$?" 1 "a path with a blank fails"
jq '.builds[0].origin = "Boot-Bench"' "$T/a.json" >"$T/or.json"
check "$T/or.json" >/dev/null; is "$?" 1 "an origin outside [a-z0-9_]+ fails"
jq 'del(.tests[0].build_id)' "$T/a.json" >"$T/req.json"
check "$T/req.json" >/dev/null; is "$?" 1 "a test without its build_id (required) fails"
jq '.tests[1].build_id = "bootbench:nowhere"' "$T/a.json" >"$T/ref.json"
check "$T/ref.json" >/dev/null; is "$?" 1 "a test whose build is not submitted fails"

# stable ids: twice the same bytes; sources in another order, the same ids
"$BB" export --kcidb "$FIX" -o "$T/b.json" 2>/dev/null
ok "two exports of the same records are byte-identical" cmp -s "$T/a.json" "$T/b.json"
tac "$FIX" >"$T/rev.jsonl"
"$BB" export --kcidb "$T/rev.jsonl" 2>/dev/null | jq -r '[.checkouts[].id, .builds[].id, .tests[].id] | sort | .[]' >"$T/ids.rev"
jq -r '[.checkouts[].id, .builds[].id, .tests[].id] | sort | .[]' "$T/a.json" >"$T/ids.a"
ok "records in reverse order: the same ids ($(wc -l <"$T/ids.a") of them)" cmp -s "$T/ids.a" "$T/ids.rev"
# a run from two sources is one test
"$BB" export --kcidb "$FIX" "$FIX" 2>/dev/null | jq '.tests | length' >"$T/n2"
is "$(cat "$T/n2")" "$(jq '.tests | length' "$T/a.json")" "the same records from two sources: no test twice"

# statuses: the fixture's rt boot 2 has a skipped and a timed-out run
is "$(jq -r '[.tests[] | select(.path == "bootbench.stream.xfs") | .status] | join(" ")' "$T/a.json")" ERROR \
	"a timed-out run is ERROR"
is "$(jq -r '[.tests[] | select(.path == "bootbench.stream.raid0-ext2") | .status] | join(" ")' "$T/a.json")" SKIP \
	"a skipped run is SKIP"
w=$(jq -r '[.tests[] | select(.misc.kernel == "6.1.192 rt" and (.path | endswith(".write")))][0]' "$T/a.json")
is "$(jq -r '"\(.status) \(.number.value) \(.number.unit) \(.misc.comparison.verdict)"' <<<"$w")" "DONE 88 MB/s worse" \
	"a figure: DONE, its number and unit, the comparison's verdict"
ok "... with n, mean, CoV, change, interval, p and q" jq -e '.misc.comparison | (.runs > 1) and .mean and .cov and
	.change < 0 and (.interval | length == 2) and .p < 0.05 and .q < 0.05' <<<"$w"

# a kernel from a git tree, a compiler in /proc/version, hostile names, a
# failed and a crashed run, an invalid figure, a run without its boot
H=$T/hostile.jsonl
cat >"$H" <<'R'
{"seq":1,"boot_id":"b1","type":"boot","data":{"kernel":{"release":"6.13.0-rc1","version":"#7 SMP","machine":"x86_64","proc_version":"Linux version 6.13.0-rc1 (u@h) (gcc (Debian 12.2.0-14) 12.2.0, GNU ld (GNU Binutils for Debian) 2.40) #7 SMP","descriptor":{"name":"bisect-abc","kind":"source","source":"git:0123456789abcdef0123456789abcdef01234567","config_base":"x86_64_defconfig","config_fragment":"qemu.config"}},"mode":"wallclock"}}
{"seq":2,"boot_id":"b1","type":"run","data":{"workload":"fs mark/../x","params":{"size":"4k b"},"layout":{"name":"raid1 xfs.é"},"status":"ok","metrics":[{"name":"files per.sec","value":1e300,"unit":"1/s","better":"higher"},{"name":"","value":3,"unit":""},{"name":"sfs","value":2,"unit":"ms","better":"lower","invalid":true}]}}
{"seq":3,"boot_id":"b1","type":"run","data":{"workload":"w","layout":{"name":"l"},"status":"failed","reason":"exit 1","metrics":[]}}
{"seq":4,"boot_id":"b1","type":"run","data":{"workload":"w","layout":{"name":"l"},"status":"crashed","metrics":[]}}
{"seq":5,"boot_id":"nosuchboot","type":"run","data":{"workload":"w","layout":{"name":"l"},"status":"ok","metrics":[{"name":"x","value":1,"unit":"s"}]}}
R
"$BB" export --kcidb "$H" -o "$T/h.json" 2>"$T/h.err"; rc=$?
is "$rc" 0 "hostile records: exit 0"
out=$(check "$T/h.json"); rc=$?
is "$rc" 0 "... and the submission passes the schema checks ($out)"
[ "$rc" = 0 ] || diag "$out"
is "$(jq -r '.checkouts[0].git_commit_hash' "$T/h.json")" 0123456789abcdef0123456789abcdef01234567 \
	"a kernel built from a git tree: the checkout names its commit"
is "$(jq -r '.builds[0] | "\(.architecture)|\(.compiler)|\(.config_name)"' "$T/h.json")" \
	"x86_64|gcc (Debian 12.2.0-14) 12.2.0|x86_64_defconfig+qemu.config" "the build: architecture, compiler, config"
is "$(jq -r '[.tests[].path] | sort | join(" ")' "$T/h.json")" \
	"bootbench.fs_mark____x.raid1_xfs___ bootbench.fs_mark____x.raid1_xfs___._ bootbench.fs_mark____x.raid1_xfs___.files_per_sec bootbench.fs_mark____x.raid1_xfs___.sfs bootbench.w.l bootbench.w.l" \
	"hostile workload, layout and metric names: only [A-Za-z0-9_-] in each path component"
is "$(jq -r '[.tests[] | select(.path == "bootbench.w.l") | .status] | sort | join(" ")' "$T/h.json")" "ERROR FAIL" \
	"a crashed run is ERROR, a failed one FAIL"
is "$(jq -r '.tests[] | select(.path | endswith(".sfs")) | "\(.status) \(.misc.invalid)"' "$T/h.json")" "FAIL true" \
	"a figure the run marked invalid is FAIL"
ok "a run without its boot record is not exported, and said so" grep -q '1 runs have no boot record' "$T/h.err"

# hostile sources (the review's findings): a repeated metric name, kernels
# from two plain directories, a missing source beside a good one, -o onto
# an input
cat >"$T/h.jsonl" <<'EOF'
{"seq":1,"boot_id":"d1","type":"boot","data":{"kernel":{"release":"6.13.0","version":"#1","descriptor":{"name":"a","kind":"dir","source":"dir:/src/linux-a"}},"mode":"wallclock"}}
{"seq":2,"boot_id":"d1","type":"run","data":{"workload":"w","layout":{"name":"l"},"status":"ok","metrics":[{"name":"x","value":1,"unit":"ms","better":"lower"},{"name":"x","value":2,"unit":"ms","better":"lower"}]}}
{"seq":1,"boot_id":"d2","type":"boot","data":{"kernel":{"release":"6.14.0","version":"#1","descriptor":{"name":"b","kind":"dir","source":"dir:/src/linux-b"}},"mode":"wallclock"}}
EOF
"$BB" export --kcidb "$T/h.jsonl" -o "$T/h.json" 2>/dev/null
out=$(check "$T/h.json"); rc=$?
is "$rc|$(jq '[.tests[] | select(.path == "bootbench.w.l.x") | .id] | unique | length' "$T/h.json")" "0|2" \
	"a run that repeats a metric name gives both figures, with unique ids ($out)"
is "$(jq '.checkouts | length' "$T/h.json")" 2 "kernels from two plain directories are two checkouts"
"$BB" export --kcidb "$FIX" "$T/missing" -o "$T/m.json" 2>"$T/m.err"; rc=$?
is "$rc|$(jq '.tests | length' "$T/m.json")" "1|$(jq '.tests | length' "$T/a.json")" \
	"a missing source beside a good one: exit 1, and every test of the good one is there"
cp "$FIX" "$T/in.jsonl"
"$BB" export --kcidb "$T/in.jsonl" -o "$T/in.jsonl" >/dev/null 2>&1; rc=$?
ok "-o onto one of the RESULTS is refused (100), the records untouched" sh -c "[ $rc = 100 ] && cmp -s '$FIX' '$T/in.jsonl'"
is "$("$BB" export --kcidb "$FIX" -o - 2>/dev/null | jq '.tests | length')" "$(jq '.tests | length' "$T/a.json")" "-o - is stdout"

# the machine that ran each boot (DMI serial: a LAVA lab's device name)
jq -c 'if .type == "boot" then .data.dmi = {"vendor": "QEMU", "serial": ("qemu-0" + (.boot_id[-1:]))} else . end' "$FIX" >"$T/dmi.jsonl"
"$BB" export --kcidb "$T/dmi.jsonl" -o "$T/dmi.json" 2>/dev/null
out=$(check "$T/dmi.json"); rc=$?
is "$rc|$(jq '[.tests[] | select(.environment.comment | test("^qemu-0.$"))] | length' "$T/dmi.json")|$(jq '[.tests[] | select(has("environment"))] | length' "$T/a.json")" \
	"0|$(jq '.tests | length' "$T/a.json")|0" "every test names the machine that ran it in environment.comment, none without DMI ($out)"

# usage
"$BB" export "$FIX" >/dev/null 2>&1; is "$?" 100 "no format: exit 100"
"$BB" export --kcidb --origin 'Bad-Origin' "$FIX" >/dev/null 2>&1; is "$?" 100 "an origin KCIDB refuses: exit 100"
done_testing
