#!/usr/bin/env bash
# compare's "why" view on made-up records: 3 + 3 boots of two kernels whose
# fork/exec figure got worse; kernel B's profile has a function A never
# samples (rt_spin_lock), a function missing from one run's top list counts
# as a share of 0 there, the stalls sit side by side; --why filters by
# workload and layout; bad --why values and unknown workloads are refused;
# profile rows never enter the CSV; the HTML report draws the why chart
# under the regression, escaped, and Chromium renders it.
. "$(dirname "$0")/lib.sh"
[ -x "$BB" ] || skip_all "not built (run make)"
plan 28
/usr/bin/python3 - "$T/why.jsonl" <<'PY'
import json, sys
out = open(sys.argv[1], "w")
seq = 0
def rec(bid, typ, data):
    global seq
    seq += 1
    out.write(json.dumps({"seq": seq, "boot_id": "%032x" % bid, "type": typ, "data": data}, separators=(",", ":")) + "\n")
for i in range(6):
    rt = i % 2 == 1
    rel = "6.1.0-57-rt-amd64" if rt else "6.1.0-57-amd64"
    ver = "#1 SMP PREEMPT_RT Debian 6.1.192-3" if rt else "#1 SMP PREEMPT_DYNAMIC Debian 6.1.192-3"
    rec(i + 1, "boot", {"kernel": {"release": rel, "version": ver}, "mode": "deterministic", "userland": "u" * 64})
    j = i // 2
    if rt:
        funcs = [("clear_page_erms", 0.30 + 0.002 * j), ("rt_spin_lock", 0.10 + 0.001 * j),
                 ("copy_page_range", 0.08), ("<img src=x onerror=alert(1)>", 0.01)]
    else:
        funcs = [("clear_page_erms", 0.40 + 0.002 * j), ("copy_page_range", 0.08 + 0.001 * j)]
        if j != 2:
            funcs.append(("memset_erms", 0.06))	# missing from the third run: a share of 0 there
    prof = {"samples": 400 + j, "tick_hz": 250, "step_bytes": 4,
            "functions": [{"name": n, "samples": int(s * 400), "share": s} for n, s in funcs]}
    for lay, fx in (("tmpfs", 1.0), ("ramdisk-ext2", 1.1)):
        d = {"plan": "t", "workload": "forkexec", "params": {"count": "1000"}, "layout": {"name": lay},
             "status": "ok", "metrics": [{"name": "forkexec_us", "value": fx * (900 if rt else 800) + j, "unit": "us", "better": "lower"}],
             "pressure": {"available": True, "cpu": {"some_us": 40000 + 1000 * j + (9000 if rt else 0)},
                          "io": {"some_us": 0, "full_us": 0}},
             "delays": {"available": True, "processes": 1001, "cpu": {"delay_ns": 19000000 + j * 10000, "count": 2000},
                        "blkio": {"delay_ns": 0, "count": 0}}}
        if lay == "tmpfs":
            d["profile"] = prof
        rec(i + 1, "run", d)
    rec(i + 1, "end", {"status": "ok"})
PY
"$BB" compare "$T/why.jsonl" --why forkexec@tmpfs > "$T/why" 2>"$T/err"; rc=$?
sed 's/^/# /' "$T/why"
is "$rc" 0 "compare --why forkexec@tmpfs: exit 0"
ok "one experiment: forkexec on tmpfs only" sh -c "[ \$(grep -c '^== why:' '$T/why') = 1 ] && grep -q '^== why: forkexec / tmpfs, mode deterministic ==' '$T/why'"
ok "the figure is there, worse" grep -Eq '^ +forkexec_us +\+12\.[0-9]%  q=[0-9.e-]+ +worse' "$T/why"
line=$(grep ' rt_spin_lock' "$T/why")
ok "rt_spin_lock: 0.0% on the baseline, 10.1% on rt, never sampled on the baseline ($line)" \
	sh -c "echo '$line' | grep -Eq '^ +0\.0% +10\.1% +\+10\.1pp [0-9.e-]+ +rt_spin_lock  \(never sampled on the baseline\)'"
q=$(echo "$line" | awk '{print $4}')
ok "... and significant across the runs (q=$q < 0.05)" awk -v q="$q" 'BEGIN { exit !(q + 0 < 0.05) }'
# memset_erms: 6% in two generic runs, absent from the third: mean 4.0%, not 6.0%
ok "a function missing from one run's list counts as 0 there: memset_erms 4.0% on the baseline" \
	grep -Eq '^ +4\.0% +0\.0% +-4\.0pp .* memset_erms  \(never sampled on this kernel\)' "$T/why"
first=$(awk '/kernel profile, share/ {getline; getline; print $5; getline; print $5; exit}' "$T/why" | tr '\n' ' ')
is "$first" "rt_spin_lock clear_page_erms " "the largest move comes first: rt_spin_lock +10.1pp, then clear_page_erms -10.0pp"
ok "samples and runs a side are said" grep -q 'kernel profile, share of the kernel.s samples (3 vs 3 profiled runs; 401 vs 401 samples a run)' "$T/why"
ok "the stalls side by side: cpu pressure 41 ms vs 50 ms a run" grep -Eq '^ +41\.000 +50\.000 +\+22\.0% .* pressure_cpu_some' "$T/why"
ok "delay accounting too (delay_cpu in ms)" grep -Eq '^ +19\.010 +19\.010 .* delay_cpu' "$T/why"
"$BB" compare "$T/why.jsonl" --why forkexec@ramdisk-ext2 > "$T/why2" 2>&1
ok "a layout without profiles says so, and how to get one" grep -q 'kernel profile: none (plan `profile on`, kernel booted with profile=2' "$T/why2"
"$BB" compare "$T/why.jsonl" --why forkexec > "$T/why3" 2>&1
is "$(grep -c '^== why:' "$T/why3")" 2 "--why WORKLOAD: every layout of it"
"$BB" compare "$T/why.jsonl" --why nosuch > /dev/null 2>"$T/err"; rc=$?
ok "--why of a workload not in the records: exit 1, naming what there is ($(cat "$T/err"))" \
	sh -c "[ $rc = 1 ] && grep -q 'no figures of nosuch in these records (they have: forkexec@tmpfs, forkexec@ramdisk-ext2)' '$T/err'"
ok "one-sided functions are named: sampled only on rt, only on generic" \
	sh -c "grep -q '^   sampled only on 6.1.192 rt: rt_spin_lock 10.1%' '$T/why' && grep -q '^   sampled only on 6.1.192 generic: memset_erms 4.0%' '$T/why'"
"$BB" compare "$T/why.jsonl" --why forkexec --csv > /dev/null 2>&1; r1=$?
"$BB" compare "$T/why.jsonl" --why forkexec@ > /dev/null 2>&1; r2=$?
is "$r1 $r2" "100 100" "--why with --csv, and --why WORKLOAD@ with no layout: bad usage"
"$BB" compare "$T/why.jsonl" --summary > "$T/sum"
ok "--summary is the summary only: no why view" sh -c "grep -q 'worse, largest first' '$T/sum' && ! grep -q '^== why' '$T/sum'"
"$BB" compare "$T/why.jsonl" --why @tmpfs > /dev/null 2>"$T/err"; rc=$?
is "$rc" 100 "--why @LAYOUT without a workload: bad usage"
"$BB" compare "$T/why.jsonl" > "$T/all"
ok "without --why, the why view follows the tables for each experiment that changed" \
	sh -c "grep -q '^== why: forkexec / tmpfs' '$T/all' && grep -q '^== why: forkexec / ramdisk-ext2' '$T/all'"
"$BB" compare "$T/why.jsonl" --csv > "$T/csv"
ok "profile functions are not CSV rows (the stalls are, as counters)" \
	sh -c "! grep -q rt_spin_lock '$T/csv' && grep -q ',pressure_cpu_some,ms,' '$T/csv'"
"$BB" compare "$T/why.jsonl" --html "$T/why.html" > /dev/null
ok "the report draws the why chart under the regression, names escaped" \
	sh -c "grep -q '<svg class=\"chart why\"' '$T/why.html' && grep -q '&lt;img src=x' '$T/why.html' && ! grep -q '<img src=x' '$T/why.html'"
# A beside B: two bars a function (5 functions), and the stalls that are not 0
sed -n '/<svg class="chart why"/,/<\/svg>/p' "$T/why.html" | head -n 1 > "$T/chart"
is "$(grep -o '<rect x="230" y="[0-9]*" width="[0-9.]*" height="10"' "$T/chart" | wc -l)" 10 "the why chart of forkexec on tmpfs: a baseline and a kernel bar for each of its 5 functions"
ok "... after the summary of the regression, with the stalls that were not 0 (cpu pressure, run-queue delay)" \
	sh -c "awk '/<table class=\"sum\">/ && !t { t = NR } /chart why/ && !c { c = NR } END { exit !(t && c && t < c) }' '$T/why.html' &&
	       sed -n '/<div class=\"why\">/,/<\/div>/p' '$T/why.html' > '$T/whydiv' &&
	       grep -q '<td class=\"l\">pressure_cpu_some</td><td>41.000</td><td>50.000</td>' '$T/whydiv' && ! grep -q 'delay_blkio' '$T/whydiv'"
CHROME=$(command -v chromium || true)
if [ -z "$CHROME" ]; then
	for i in 1 2; do skip "chromium not installed (scripts/install-deps installs it)"; done
	done_testing
fi
flags="--headless --no-sandbox --disable-gpu --disable-quic --no-first-run --disable-background-networking
 --disable-component-update --disable-sync --user-data-dir=$T/chrome"
timeout 60 "$CHROME" $flags --dump-dom "file://$T/why.html" > "$T/dom.html" 2>/dev/null
ok "Chromium's DOM has the why chart with rt_spin_lock's bars" \
	sh -c "grep -q 'class=\"chart why\"' '$T/dom.html' && grep -q '>rt_spin_lock</text>' '$T/dom.html'"
ok "no script element came from a function name" sh -c "! grep -qi '<img' '$T/dom.html'"
# Shares are tested with the boot as the unit, as figures are: 1 boot a
# kernel of 3 profiled runs each is no sample of boots, however far apart
# (10% vs 30%); a function missing from one run of a boot is 0 in that run,
# so that boot's share is the mean over its 3 runs.
/usr/bin/python3 - "$T/oneboot.jsonl" <<'PY'
import json, sys
out = open(sys.argv[1], "w")
seq = 0
def rec(bid, typ, data):
    global seq
    seq += 1
    out.write(json.dumps({"seq": seq, "boot_id": "%032x" % bid, "type": typ, "data": data}) + "\n")
for b, (rel, ver, share) in enumerate([("6.1.0-57-amd64", "#1 SMP PREEMPT_DYNAMIC Debian 6.1.192-3", 0.10),
                                       ("6.1.0-57-rt-amd64", "#1 SMP PREEMPT_RT Debian 6.1.192-3", 0.30)]):
    rec(b + 1, "boot", {"kernel": {"release": rel, "version": ver}, "mode": "deterministic", "userland": "u" * 64})
    for r in range(3):
        funcs = [("clear_page_erms", share + 0.001 * r)]
        if not (b == 0 and r == 2):
            funcs.append(("memset_erms", 0.06))
        rec(b + 1, "run", {"plan": "t", "workload": "forkexec", "params": {}, "layout": {"name": "tmpfs"}, "status": "ok",
                           "metrics": [{"name": "forkexec_us", "value": (800 if b == 0 else 900) + r, "unit": "us", "better": "lower"}],
                           "profile": {"samples": 400, "functions": [{"name": n, "samples": int(s * 400), "share": s} for n, s in funcs]}})
    rec(b + 1, "end", {"status": "ok"})
PY
"$BB" compare "$T/oneboot.jsonl" --why forkexec@tmpfs > "$T/oneboot" 2>&1
sed 's/^/# /' "$T/oneboot"
ok "one boot a kernel: a share 10% vs 30% over 3 runs each is untested, not significant" \
	grep -Eq '^ +10\.1% +30\.1% +\+20\.0pp untested +clear_page_erms$' "$T/oneboot"
ok "a function missing from one of a boot's 3 runs: that boot's share is 4.0% (6% in 2 runs of 3)" \
	grep -Eq '^ +4\.0% +6\.0% +\+2\.0pp untested +memset_erms$' "$T/oneboot"
# --- past the bound on profile functions (65536 in all) -----------------------
# one run of the first boot lists 65536 filler functions (16 workloads of
# 4096), then workload w is profiled on 6 deterministic boots of two
# kernels (its figure doubles, so the report explains it too): its
# functions are past the bound, and the why view says so, not "no function
# was sampled"; the warning counts the 24 shares left out
/usr/bin/python3 - > "$T/full.jsonl" <<'PY'
import json, sys
seq = 0
def w(bid, typ, data):
    global seq
    seq += 1
    sys.stdout.write(json.dumps({"seq": seq, "boot_id": "%032x" % bid, "type": typ, "data": data}, separators=(",", ":")) + "\n")
for b in range(6):
    k = b % 2
    w(b + 1, "boot", {"kernel": {"release": "6.1.0-%d" % k}, "userland": "u", "mode": "deterministic"})
    if b == 0:
        for f in range(0, 65536, 256):
            w(1, "run", {"workload": "p%d" % (f // 4096), "status": "ok", "metrics": [],
                         "profile": {"samples": 1000, "functions": [{"name": "f%d" % i, "share": 0.001} for i in range(f, f + 256)]}})
    for r in range(2):
        w(b + 1, "run", {"workload": "w", "status": "ok",
                         "metrics": [{"name": "m", "value": 10 + 10 * k + 0.1 * b + 0.05 * r, "unit": "ms", "better": "lower"}],
                         "profile": {"samples": 1000, "functions": [{"name": "hot_fn", "share": 0.2 + 0.3 * k}, {"name": "cold_fn", "share": 0.1}]}})
PY
"$BB" compare "$T/full.jsonl" --why w --html "$T/full.html" > "$T/full" 2> "$T/full.err"
ok "functions past the bound: the why view says they were not kept (text and report)" \
	sh -c "grep -q 'kernel profile: both kernels were profiled, but this experiment.s functions were not kept' '$T/full' &&
	       grep -q 'kernel profile: both kernels were profiled, but this experiment.s functions were not kept' '$T/full.html'"
ok "and the warning counts the 24 shares (2 functions in 12 runs) left out" \
	grep -q "warning: 24 profile shares (a function in one run) were not kept: past 4096 functions in one experiment, or 65536 in all" "$T/full.err"
done_testing
