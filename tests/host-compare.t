#!/usr/bin/env bash
# bootbench compare on fixed results files: golden output, p-values and
# changes checked against scipy and Benjamini-Hochberg q-values against
# statsmodels, computed here independently; runs keyed by their parameters
# and by the tunables that held; duplicates from two sources counted once;
# pure noise not flagged; modes kept apart; failed/timed-out/skipped runs
# counted; the summary first; baseline choice; bad input; how QEMU ran each
# boot (entry, disk cap) named and warned about; a million distinct names
# held within four times their size, what was left out said.
. "$(dirname "$0")/lib.sh"
[ -x "$BB" ] || skip_all "not built (run make)"
F=tests/fixtures/compare/two-kernels.jsonl
plan 72
"$BB" compare "$F" > "$T/out" 2>"$T/err"; rc=$?
is "$rc" 0 "compare on the fixture: exit 0"
ok "table matches the golden file (tests/fixtures/compare/two-kernels.golden)" \
	diff -u tests/fixtures/compare/two-kernels.golden "$T/out"
# 5 + 5 wall-clock boots (the fixture's other 2 a kernel are deterministic)
ok "few wall-clock boots: the summary says a bimodal figure lines up with the kernels once in C(10,5)/2 = 126, and the permutation test's floor" \
	grep -q '^  note: 5 and 5 wall-clock boots: .* once in 126 figures, so the permutation test of boot means decides too, and its smallest p is 0.0079' "$T/out"
"$BB" compare --csv "$F" > "$T/csv"
# Independent check: Welch p-values and % changes from scipy on the raw values
# (one run a boot: the boot means), and for wall-clock figures the larger of
# Welch's p and the exact permutation test's, enumerated here.
if /usr/bin/python3 -c 'import scipy' 2>/dev/null; then
	out=$(/usr/bin/python3 - "$F" "$T/csv" <<'PY'
import csv, json, sys
from scipy import stats
boots, vals = {}, {}
for line in open(sys.argv[1]):
    r = json.loads(line)
    d = r["data"]
    if r["type"] == "boot":
        rel = d["kernel"]["release"]
        boots[r["boot_id"]] = (("6.1.192 rt" if "-rt-" in rel else "6.1.192 generic"), d["mode"])
    elif r["type"] == "run" and d["status"] == "ok":
        k, mode = boots[r["boot_id"]]
        for m in d["metrics"]:
            vals.setdefault((mode, d["workload"], m["name"]), {}).setdefault(k, []).append(m["value"])
bad = checked = 0
for row in csv.DictReader(open(sys.argv[2])):
    if row["baseline"] == "1":
        continue
    v = vals[(row["mode"], row["workload"], row["metric"])]
    a, b = v["6.1.192 generic"], v["6.1.192 rt"]
    p = stats.ttest_ind(a, b, equal_var=False).pvalue
    if row["mode"] == "wallclock":
        import itertools
        allv, obs = a + b, abs(sum(b) / len(b) - sum(a) / len(a))
        hits = tot = 0
        for ix in itertools.combinations(range(len(allv)), len(a)):
            s = sum(allv[i] for i in ix)
            tot += 1
            hits += abs((sum(allv) - s) / len(b) - s / len(a)) >= obs * (1 - 1e-9)
        p = max(p, hits / tot)
    ch = (sum(b) / len(b) - sum(a) / len(a)) / abs(sum(a) / len(a)) * 100
    checked += 1
    if abs(float(row["p"]) - p) > 1e-6 * max(p, 1e-12) or abs(float(row["change_pct"]) - ch) > 1e-4:
        bad += 1
        print("mismatch", row["metric"], row["p"], p, row["change_pct"], ch, file=sys.stderr)
print(checked, bad)
PY
)
	is "$out" "4 0" "p-values and changes of all 4 comparisons agree with scipy (rel. 1e-6)"
else
	skip "scipy not installed (/usr/bin/python3 -c 'import scipy' failed)"
fi
is "$(awk -F, '$5=="write" && $9=="0" {print $15, $17}' "$T/csv")" "worse 1" "throughput down 12%: worse, significant"
is "$(awk -F, '$5=="noisy" && $9=="0" {print $17}' "$T/csv")" "0" "a noisy figure is not marked significant"
ok "noisy figures are flagged (~)" grep -q '±33.9%~' "$T/out"
ok "deterministic runs get their own table, labelled instruction-derived" \
	grep -q '^== figures, mode deterministic (instruction-derived' "$T/out"
is "$(sed -n '/^== figures, mode deterministic/,/^$/p' "$T/out" | grep -c ' n=')" 1 "... holding only the deterministic figure"
ok "timed-out and skipped runs are counted per kernel" \
	grep -q '6.1.192 rt  *7 boots: 7 ok, 0 failed, 1 timeout, 0 crashed, 1 skipped' "$T/out"
"$BB" compare "$F" --baseline "6.1.192 rt" > "$T/rev"
ok "--baseline flips the comparison" grep -q '+13.8% better p=0.0079 q=0.012 \*' "$T/rev"
"$BB" compare "$F" --baseline "5.10 nope" > /dev/null 2>"$T/err"; rc=$?
is "$rc:$(grep -c 'no kernel "5.10 nope" in these records (have: "6.1.192 generic", "6.1.192 rt")' "$T/err")" "1:1" \
	"an unknown baseline: exit 1, naming the kernels there are"
grep '"type":"boot"' "$F" > "$T/boots-only.jsonl"
"$BB" compare "$T/boots-only.jsonl" > /dev/null 2>&1; is "$?" 1 "records without runs: exit 1"
"$BB" compare "$F" --alpha 2 > /dev/null 2>&1; is "$?" 100 "a bad --alpha: exit 100"
"$BB" compare "$F" --fdr 0 > /dev/null 2>&1; is "$?" 100 "a bad --fdr: exit 100"

# --- the answer first --------------------------------------------------------
ok "the summary comes before the table" \
	sh -c "grep -n '^== ' '$T/out' | head -n 1 | grep -q 'summary, mode wallclock'"
ok "summary: counts of worse, better, unchanged and undecided (the noisy figure: not significant is not unchanged)" \
	grep -q '^6.1.192 rt vs 6.1.192 generic: 3 figures: 2 worse, 0 better, 0 unchanged, 1 undecided$' "$T/out"
ok "summary: each significant change with its 95% interval and q, largest first" \
	sh -c "grep -A2 '^  worse, largest first:' '$T/out' | sed -n 2,3p | tr -s ' ' | grep -c -e '^ -12.1% \[-13.2%, -11.0%\] q=0.012 stream / ramdisk-ext2: write' -e '^ +11.9% \[+11.1%, +12.7%\] q=0.012 stream / ramdisk-ext2: forkexec' | grep -qx 2"
"$BB" compare "$F" --summary > "$T/sum"
ok "--summary: the summary without the table" sh -c "grep -q 'worse, largest first' '$T/sum' && ! grep -q '^== figures' '$T/sum'"
"$BB" compare "$F" --significant > "$T/sig"
is "$(sed -n '/^== figures, mode wallclock/,/^$/p' "$T/sig" | grep -c ' n=')" 2 "--significant: only the 2 rows that changed (of 3)"

# --- run identity, tunables that held, duplicates -----------------------------
P=tests/fixtures/compare/params.jsonl
ok "params.jsonl is what gen-params.py writes" sh -c "python3 tests/fixtures/compare/gen-params.py | cmp -s - $P"
"$BB" compare "$P" > "$T/p" 2>"$T/p.err"; rc=$?
is "$rc" 0 "compare of the parameter fixture: exit 0"
ok "golden (tests/fixtures/compare/params.golden)" diff -u tests/fixtures/compare/params.golden "$T/p"
is "$(grep -c '^tcpbw \[msg=\(64K\|8K\)\] / ramdisk-ext2 *bandwidth .* n=5 ' "$T/p")" 2 \
	"one workload at two parameter sets: two rows, labelled by what differs, 5 boots each"
ok "a refused scheduler is a row of its own, shown as refused" \
	grep -q '^stream \[scheduler=bfq(refused:ram0=none)\] / ramdisk-ext2 .* n=5 ' "$T/p"
ok "... never pooled with the run where the scheduler held" grep -q '^stream \[scheduler=none\] / ramdisk-ext2 .* n=5 ' "$T/p"
ok "tunables in force that the plan did not set and that differ between kernels are named" \
	grep -q '\^ tunables in force differ (not set by the plan): ram0:read_ahead_kb: 6.1.192 generic 128, 6.1.192 rt 256$' "$T/p"
ok "a run arriving twice counts once (n=3, and said)" grep -q '^1 run records arrived twice' "$T/p"
ok "counters compared in their own section: cpu_system +30.7% higher, significant" \
	sh -c "sed -n '/^== counters/,/^\$/p' '$T/p' | grep -q '^tcpbw \[msg=64K\] / ramdisk-ext2 *cpu_system .*+30.7% higher p=0.0079 q=0.016 \*'"
"$BB" collect --format csv "$P" > "$T/p.csv"
ok "collect --format csv carries tunables as held and the parameters" \
	grep -q '^3,00000000000000000000000000000001,6.1.0-57-amd64,run,p,tcpbw,ramdisk-ext2,-,msg=8K total=32M,1,ok,bandwidth,' "$T/p.csv"
# a workload name and a parameter with an escape sequence, a carriage
# return, a C1 CSI and a bidi override: no CSV writer passes them on
printf '{"seq":1,"boot_id":"%032x","type":"boot","data":{"kernel":{"release":"r"},"userland":"u"}}\n{"seq":2,"boot_id":"%032x","type":"run","data":{"workload":"w\\u001b[2Jx\\r\\u009b1m\\u202e","params":{"p":"a\\u001b]0;t\\u0007"},"layout":{"name":"l"},"status":"ok","metrics":[{"name":"m","value":1,"unit":"s","better":"lower"}]}}\n' 1 1 > "$T/ctl.jsonl"
"$BB" collect --format csv "$T/ctl.jsonl" > "$T/ctl1.csv"
"$BB" compare --csv "$T/ctl.jsonl" > "$T/ctl2.csv" 2>/dev/null
ok "collect --format csv and compare --csv write control and bidi characters as '?'" \
	sh -c "grep -q ',w?\[2Jx???1m???,' '$T/ctl1.csv' && grep -q ',w?\[2Jx???1m???,' '$T/ctl2.csv' &&
	       ! LC_ALL=C grep -q \"\$(printf '[\\001-\\011\\013-\\037\\177]\\|\\302\\233\\|\\342\\200\\256')\" '$T/ctl1.csv' '$T/ctl2.csv'"
"$BB" collect "$P" --metric tcpbw.bandwidth > /dev/null 2>"$T/m.err"; rc=$?
is "$rc:$(grep -c '^  params msg=' "$T/m.err")" "100:2" "collect --metric over two parameter sets: exit 100, both listed"
"$BB" collect "$P" --metric tcpbw.bandwidth --param msg=8K > "$T/m.csv"; rc=$?
is "$rc:$(tail -n +2 "$T/m.csv" | wc -l)" "0:10" "... --param msg=8K picks its 10 rows"
"$BB" collect "$P" --metric stream.write_MBps --param 'scheduler=bfq(refused:ram0=none)' > "$T/m2.csv"; rc=$?
is "$rc:$(tail -n +2 "$T/m2.csv" | wc -l)" "0:10" "--param matches a tunable as it held"

# values with blanks and '=' (plans allow quoted values) are quoted in the
# identity: {a:"1 b=2"} and {a:"1", b:"2"} are two experiments, not one
for i in 1 2; do
	printf '{"seq":%d,"boot_id":"%032x","type":"boot","data":{"kernel":{"release":"6.1.0"},"mode":"wallclock"}}\n' $((10*i)) $i
	printf '{"seq":%d,"boot_id":"%032x","type":"run","data":{"workload":"w","params":{"a":"1 b=2"},"layout":{"name":"t"},"status":"ok","metrics":[{"name":"x","value":1,"unit":"s","better":"lower"}]}}\n' $((10*i+1)) $i
	printf '{"seq":%d,"boot_id":"%032x","type":"run","data":{"workload":"w","params":{"a":"1","b":"2"},"layout":{"name":"t"},"status":"ok","metrics":[{"name":"x","value":2,"unit":"s","better":"lower"}]}}\n' $((10*i+2)) $i
done > "$T/quoted.jsonl"
"$BB" compare "$T/quoted.jsonl" > "$T/quoted" 2>&1
is "$(grep -c '^w \[.*\] / t ' "$T/quoted")" 2 "a value holding a blank and '=' is not confused with two parameters: 2 rows"
ok "... labelled with the quoted value" grep -q '^w \[a="1 b=2"\] / t ' "$T/quoted"

# a figure without a direction is never called better; runs of one kernel
# under different settings in force are not pooled into one sample (5 wall-
# clock boots a kernel: the permutation test cannot reach 0.05 below that)
for i in 1 2 3 4 5 6 7 8 9 10; do
	rel=6.1.0; [ $((i % 2)) = 0 ] && rel=6.2.0
	ra=128; [ "$i" = 3 ] && ra=4096
	printf '{"seq":%d,"boot_id":"%032x","type":"boot","data":{"kernel":{"release":"%s"},"mode":"wallclock"}}\n' $((10*i)) $i $rel
	for r in 1 2; do
		printf '{"seq":%d,"boot_id":"%032x","type":"run","data":{"workload":"w","layout":{"name":"t"},"status":"ok","metrics":[{"name":"count","value":%d,"unit":"n","better":""}]}}\n' $((10*i+r)) $i $((100 + 50 * (i % 2 == 0) + i + r))
		printf '{"seq":%d,"boot_id":"%032x","type":"run","data":{"workload":"m","layout":{"name":"t"},"status":"ok","tunables":{"requested":{},"in_force":{"vda":{"read_ahead_kb":"%s"}}},"metrics":[{"name":"t","value":%d,"unit":"s","better":"lower"}]}}\n' $((10*i+r+4)) $i $ra $((10 + i + r))
	done
done > "$T/dir.jsonl"
"$BB" compare "$T/dir.jsonl" > "$T/dir" 2>&1
ok "a figure with no direction that changed is 'changed with no direction', never 'better'" \
	sh -c "grep -q '^6.2.0 vs 6.1.0: 2 figures: 0 worse, 0 better, 0 unchanged, 0 undecided, 1 changed with no direction' '$T/dir' && grep -q '^  changed, no direction, largest first:' '$T/dir'"
ok "... and its row says higher, not better" grep -q '^w / t .* count .* +4[0-9.]*% higher p=' "$T/dir"
ok "runs of one kernel under different read_ahead_kb are not tested as one sample (1 not testable)" \
	sh -c "grep -q ', 1 not testable' '$T/dir' && grep -q 'they differed between runs of one kernel' '$T/dir'"

# the order of sources does not matter: runs read before their boot records
grep '"type":"run"' "$F" > "$T/runs-only.jsonl"
grep '"type":"boot"' "$F" > "$T/boots-only2.jsonl"
"$BB" compare "$T/runs-only.jsonl" "$T/boots-only2.jsonl" > "$T/order" 2>&1
is "$(sed -n '/^== summary/,$p' "$T/order" | grep -v '^bootbench compare')" "$(sed -n '/^== summary/,$p' "$T/out")" \
	"runs read before their boot records (another source) land under their kernels, as in one file"
# a boot id longer than ours (32 hex) is refused, not cut and misread
sed 's/"boot_id":"00000000000000000000000000000002"/"boot_id":"000000000000000000000000000000023"/' "$F" > "$T/longid.jsonl"
"$BB" compare "$T/longid.jsonl" > "$T/longid" 2>&1
ok "a 33-character boot id: its records are skipped and counted" grep -q '^5 records with a boot id that is not 1-32 characters were skipped' "$T/longid"

# a terminal escape in a record reaches neither the terminal nor the CSV
sed 's/"name":"write"/"name":"wr\\u001b[2Jite"/; s/"release":"6.1.0-57-amd64"/"release":"6.1.0-57-amd64\\r\\u001b]0;pwn\\u0007"/' "$F" > "$T/esc.jsonl"
"$BB" compare "$T/esc.jsonl" > "$T/esc" 2>&1
"$BB" compare "$T/esc.jsonl" --csv >> "$T/esc" 2>&1
ok "control bytes from records are shown as '?' (no ESC, CR or BEL in text or CSV)" \
	sh -c "grep -q 'wr?\[2Jite' '$T/esc' && ! grep -q \"\$(printf '[\\033\\007\\r]')\" '$T/esc'"

# --- false discoveries --------------------------------------------------------
# 60 figures, 10 with a real change (2-20%), 4 runs a side, CoV 3%: q from
# compare against statsmodels' BH on scipy's p-values of the raw data.
# (Deterministic mode: Welch's p alone, which is what BH is checked on here;
# wall-clock figures at 4 boots a side are judged by the permutation test
# too, tests/host-verdicts.t.)
/usr/bin/python3 - "$T" <<'PY'
import json, random, sys
random.seed(11)
def w(path, nfig, effects, cov, runs):
    seq = 0
    with open(path, "w") as f:
        for b in range(2 * runs):
            kern = "6.1.0-57-rt-amd64" if b % 2 else "6.1.0-57-amd64"
            boot = "%032x" % (b + 1)
            seq += 1
            f.write(json.dumps({"seq": seq, "boot_id": boot, "type": "boot", "data": {"kernel": {"release": kern,
                "version": "#1 Debian 6.1.192-3"}, "userland": "u", "mode": "deterministic"}}) + "\n")
            ms = []
            for i in range(nfig):
                mean = 100.0 * (1 + (effects.get(i, 0) if b % 2 else 0))
                ms.append({"name": "m%03d" % i, "value": random.gauss(mean, mean * cov), "unit": "s", "better": "lower"})
            seq += 1
            f.write(json.dumps({"seq": seq, "boot_id": boot, "type": "run", "data": {"workload": "null",
                "layout": {"name": "tmpfs"}, "status": "ok", "metrics": ms}}) + "\n")
w(sys.argv[1] + "/bh.jsonl", 60, {i: 0.02 * (i + 1) for i in range(10)}, 0.03, 4)
w(sys.argv[1] + "/noise.jsonl", 200, {}, 0.10, 4)
PY
"$BB" compare "$T/bh.jsonl" --csv > "$T/bh.csv"
if ! /usr/bin/python3 -c 'import scipy, statsmodels' 2>/dev/null; then
	skip "scipy or statsmodels missing (scripts/install-deps installs python3-scipy, python3-statsmodels)"
	skip "scipy or statsmodels missing"
else
out=$(/usr/bin/python3 - "$T/bh.jsonl" "$T/bh.csv" <<'PY' 2>&1
import csv, json, sys
from scipy import stats
from statsmodels.stats.multitest import multipletests
vals = {}
for line in open(sys.argv[1]):
    r = json.loads(line)
    if r["type"] == "run":
        side = (int(r["boot_id"], 16) - 1) % 2   # boots alternate generic, rt
        for m in r["data"]["metrics"]:
            vals.setdefault(m["name"], ([], []))[side].append(m["value"])
names = sorted(vals)
p = [stats.ttest_ind(vals[n][0], vals[n][1], equal_var=False).pvalue for n in names]
rej, q, _, _ = multipletests(p, alpha=0.05, method="fdr_bh")
ref = dict(zip(names, q))
rows = [r for r in csv.DictReader(open(sys.argv[2])) if r["baseline"] == "0"]
bad = sum(1 for r in rows if abs(float(r["q"]) - ref[r["metric"]]) > 1e-6 * ref[r["metric"]])
print(len(rows), bad, sum(rej), sum(1 for r in rows if r["significant"] == "1"))
PY
)
set -- $out
is "$1 $2" "60 0" "BH q-values of all 60 figures agree with statsmodels' fdr_bh (rel. 1e-6)"
is "$4" "$3" "significant figures = statsmodels' rejections at q 0.05 ($3; all changes here exceed 0.5%)"
fi
"$BB" compare "$T/noise.jsonl" --csv > "$T/noise.csv"
raw=$(awk -F, 'NR > 1 && $9 == "0" && $16 != "" && $16 < 0.05' "$T/noise.csv" | wc -l)
flag=$(awk -F, 'NR > 1 && $9 == "0" && $17 == "1"' "$T/noise.csv" | wc -l)
ok "200 pure-noise figures (4 runs a side, CoV 10%): $flag flagged (at most 1); raw p < 0.05 would flag $raw" \
	test "$flag" -le 1 -a "$raw" -ge 3

# --- many kernels ---------------------------------------------------------------
for i in $(seq 1 34); do
	printf '{"seq":%d,"boot_id":"%032x","type":"boot","data":{"kernel":{"release":"6.%d.0"},"mode":"wallclock"}}\n' $((2*i)) "$i" "$i"
	printf '{"seq":%d,"boot_id":"%032x","type":"run","data":{"workload":"null","layout":{"name":"tmpfs"},"status":"ok","metrics":[{"name":"x","value":%d,"unit":"s","better":"lower"}]}}\n' $((2*i+1)) "$i" "$i"
done > "$T/many.jsonl"
"$BB" compare "$T/many.jsonl" > "$T/many" 2>"$T/many.err"; rc=$?
is "$rc:$(grep -c '^WARNING: 2 runs of kernels past the first 32 were not compared' "$T/many")" "0:1" \
	"34 kernels: compared the first 32, saying so (was: exit with no output)"

# --- QEMU's setup: a PVH boot has no KASLR, a capped disk reads slower -----------
# every generic boot entered by PVH, the rt boots by bzImage, and one
# generic boot's disk capped: both columns say how QEMU ran them, the
# kernels are not only kernels, and the generic column pools unlike boots
jq -c 'if .type == "boot" then
	(if (.data.kernel.release | test("rt")) then .data.qemu = {"entry": "bzimage"} else .data.qemu = {"entry": "pvh"} end)
	| (if .boot_id == "00000000000000000000000000000001" then .data.qemu.disk_read_bps = 16777216 else . end)
	else . end' "$F" > "$T/qemu.jsonl"
"$BB" compare "$T/qemu.jsonl" --html "$T/qemu.html" > "$T/qemu" 2>/dev/null
ok "the kernels list says how QEMU entered each" \
	sh -c "grep -q 'generic .*accel tcg, entry pvh' '$T/qemu' && grep -q 'rt .*accel tcg, entry bzimage' '$T/qemu'"
is "$(grep -o '<td class="l">entry [a-z]*[^<]*</td>' "$T/qemu.html" | LC_ALL=C sort | uniq -c | sed 's/^ *//' | tr '\n' ';')" \
	'7 <td class="l">entry bzimage</td>;1 <td class="l">entry pvh, disk reads capped 16777216 B/s</td>;6 <td class="l">entry pvh</td>;' \
	"the HTML report's boots table has each boot's QEMU setup"
ok "kernels QEMU ran differently: a warning that the comparison is not only of kernels" \
	grep -q '^WARNING: QEMU ran the kernels differently (entry, disk read cap)' "$T/qemu"
# two kernels of 3 boots, alike in everything (the fixture's columns are
# mixed already) but for one boot's disk cap
for i in 1 2 3 4 5 6; do
	rel=6.1.0-$((i % 2 + 1)) q='{"entry":"pvh"}'
	[ "$i" = 1 ] && q='{"entry":"pvh","disk_read_bps":16777216}'
	printf '{"seq":1,"boot_id":"%032x","type":"boot","data":{"kernel":{"release":"%s"},"userland":"u","mode":"wallclock","accel":"tcg","qemu":%s}}\n' "$i" "$rel" "$q"
	printf '{"seq":2,"boot_id":"%032x","type":"run","data":{"workload":"null","layout":{"name":"tmpfs"},"status":"ok","metrics":[{"name":"x","value":%d,"unit":"s","better":"lower"}]}}\n' "$i" $((10 + i))
done > "$T/cap.jsonl"
"$BB" compare "$T/cap.jsonl" > "$T/cap" 2>/dev/null
is "$(grep -c '^WARNING' "$T/cap"):$(grep '^WARNING' "$T/cap" | cut -d: -f2 | cut -c1-40 | tr '\n' ';')" \
	'2: QEMU ran the kernels differently (entry; the boots of 6.1.0-2 differ in userland;' \
	"a column whose boots had a disk cap and none: it pools unlike boots, and says so; the kernels' setups differ as sets"
# --- the machine that ran each boot (DMI; a LAVA lab's device name) ---------------
# mach SPEC: boots of two kernels, SPEC a list of KERNEL:MACHINE ("-" for a
# boot record without DMI)
mach() {
	local i=0 km
	for km in "$@"; do
		i=$((i + 1))
		local k=${km%%:*} m=${km#*:} dmi=
		[ "$m" = - ] || dmi=',"dmi":{"vendor":"QEMU","product":"Standard PC","serial":"'$m'"}'
		printf '{"seq":1,"boot_id":"%032x","type":"boot","data":{"kernel":{"release":"6.1.0-%s"},"userland":"u","mode":"wallclock","accel":"tcg"%s}}\n' "$i" "$k" "$dmi"
		printf '{"seq":2,"boot_id":"%032x","type":"run","data":{"workload":"null","layout":{"name":"tmpfs"},"status":"ok","metrics":[{"name":"x","value":%d,"unit":"s","better":"lower"}]}}\n' "$i" $((10 + i))
	done
}
mach 1:qemu-01 2:qemu-02 2:qemu-02 1:qemu-01 1:qemu-01 2:qemu-02 > "$T/mach.jsonl"
"$BB" compare "$T/mach.jsonl" --html "$T/mach.html" > "$T/mach" 2>/dev/null
ok "kernels on disjoint machines: a warning that the comparison is partly of machines, and each column's machines listed" \
	sh -c "grep -q '^WARNING: the kernels did not all run on the same machines' '$T/mach' &&
	       grep -Eq '^  6.1.0-1 +3 boots: .*; on qemu-01 \(3\)$' '$T/mach' && grep -Eq '^  6.1.0-2 +3 boots: .*; on qemu-02 \(3\)$' '$T/mach'"
is "$(grep -o '<td class="l">qemu-0[12]</td>' "$T/mach.html" | sort | uniq -c | sed 's/^ *//' | tr '\n' ';')" \
	'3 <td class="l">qemu-01</td>;3 <td class="l">qemu-02</td>;' "the HTML report's boots table names each boot's machine"
mach 1:qemu-01 2:qemu-02 2:qemu-01 1:qemu-02 > "$T/mach2.jsonl"
"$BB" compare "$T/mach2.jsonl" > "$T/mach2" 2>/dev/null
ok "kernels that each ran on both machines: listed, no warning" \
	sh -c "! grep -q 'same machines' '$T/mach2' && grep -Eq '^  6.1.0-1 +2 boots: .*; on qemu-01 \(1\), qemu-02 \(1\)$' '$T/mach2'"
mach 1:a 1:b 1:c 1:d 1:e 1:f 2:a > "$T/mach3.jsonl"
"$BB" compare "$T/mach3.jsonl" > "$T/mach3" 2>/dev/null
mach 1:- 2:- 1:- 2:- > "$T/mach4.jsonl"
"$BB" compare "$T/mach4.jsonl" > "$T/mach4" 2>/dev/null
mach 1:- 2:q 1:- 2:q > "$T/mach5.jsonl"
"$BB" compare "$T/mach5.jsonl" > "$T/mach5" 2>/dev/null
ok "past 4 machines a column counts the rest as others; boot records without DMI list no machines, and beside named ones are unnamed" \
	sh -c "grep -Eq '^  6.1.0-1 +6 boots: .*; on a \(1\), b \(1\), c \(1\), d \(1\), others \(2\)$' '$T/mach3' &&
	       ! grep -q '; on' '$T/mach4' && ! grep -q 'machines' '$T/mach4' &&
	       grep -Eq '^  6.1.0-1 +2 boots: .*; on unnamed \(2\)$' '$T/mach5' && grep -q '^WARNING: the kernels did not all run on the same machines' '$T/mach5'"
# the same machines, in shares 75/25 and 25/75: uneven, said
mach 1:qemu-01 2:qemu-02 1:qemu-01 2:qemu-02 1:qemu-01 2:qemu-02 1:qemu-02 2:qemu-01 > "$T/mach6.jsonl"
"$BB" compare "$T/mach6.jsonl" > "$T/mach6" 2>/dev/null
ok "kernels on the same machines in shares 75/25 against 25/75: a warning that the shares are uneven (and none at 50/50)" \
	sh -c "grep -q '^WARNING: the kernels ran on the same machines, but in shares more than 25 points apart' '$T/mach6' &&
	       ! grep -q 'shares more than' '$T/mach2'"
# a placeholder serial names no machine: the product does
printf '%s\n' '{"seq":1,"boot_id":"a1","type":"boot","data":{"kernel":{"release":"6.1.0-1"},"mode":"wallclock","dmi":{"product":"Board X","serial":"To be filled by O.E.M."}}}' \
	'{"seq":1,"boot_id":"a2","type":"boot","data":{"kernel":{"release":"6.1.0-1"},"mode":"wallclock","dmi":{"product":"Board Y","serial":"Default string"}}}' \
	'{"seq":1,"boot_id":"a3","type":"boot","data":{"kernel":{"release":"6.1.0-1"},"mode":"wallclock","dmi":{"product":"Board Y","serial":7}}}' >"$T/ph.jsonl"
for b in a1 a2 a3; do
	printf '{"seq":2,"boot_id":"%s","type":"run","data":{"workload":"null","layout":{"name":"tmpfs"},"status":"ok","metrics":[{"name":"x","value":1,"unit":"s","better":"lower"}]}}\n' "$b"
done >>"$T/ph.jsonl"
"$BB" compare "$T/ph.jsonl" > "$T/ph" 2>/dev/null
ok "a placeholder serial (To be filled by O.E.M., Default string) or one not a string names no machine: the product does" \
	grep -Eq '^  6.1.0-1 +3 boots: .*; on Board X \(1\), Board Y \(2\)$' "$T/ph"
# --- a million distinct names: bounded, and what is not kept is said ------------
# two boots of 535 runs, each run naming 1000 figures: the first 70 runs of
# both boots name the same 70000, the other runs names of their own (a
# million names in all, 64 MB; as the issue measured it, 59 MB made compare
# hold 1.43 GB). The first 65536 are compared on both kernels, the rest
# (1070000 - 2 x 65536 values) counted in a warning, and compare holds at
# most four times its input.
/usr/bin/python3 - > "$T/names.jsonl" <<'PY'
import sys
w = sys.stdout.write
for b in (1, 2):
    w('{"seq":1,"boot_id":"%032x","type":"boot","data":{"kernel":{"release":"6.1.0-%d"},"userland":"u","mode":"wallclock","accel":"tcg"}}\n' % (b, b))
    for r in range(535):
        first = r * 1000 if r < 70 else 70000 + (b - 1) * 465000 + (r - 70) * 1000
        w('{"seq":%d,"boot_id":"%032x","type":"run","data":{"workload":"w","layout":{"name":"tmpfs"},"status":"ok","metrics":[%s]}}\n'
          % (r + 2, b, ",".join('{"name":"m%07d","value":%d.5,"unit":"s","better":"lower"}' % (first + i, i + b) for i in range(1000))))
PY
size=$(stat -c %s "$T/names.jsonl")
/usr/bin/time -f '%M' -o "$T/names.rss" "$BB" compare --csv "$T/names.jsonl" --html "$T/names.html" > "$T/names.csv" 2>"$T/names.err"
is "$?" 0 "a million distinct figure names: exit 0"
rss=$(tail -1 "$T/names.rss")
ok "it held at most 4x its input: $rss KiB for $((size / 1024)) KiB" [ "$((rss * 1024))" -le "$((size * 4))" ]
is "$(awk -F, '$23 == "figure" && $9 == "0" && $14 != ""' "$T/names.csv" | wc -l)" 65536 \
	"the first 65536 names compared: a change on the second kernel for each"
ok "the text, the report and (with --csv) stderr say that 938928 values were not compared" \
	sh -c "'$BB' compare '$T/names.jsonl' 2>/dev/null | grep -q '^WARNING: 938928 values were not compared: the input names more than 65536 figures and counters' &&
	       grep -q '<b>WARNING</b>: 938928 values were not compared' '$T/names.html' &&
	       grep -q 'warning: 938928 values were not compared' '$T/names.err'"

# --by: a tunable against the kernel's own setting on one kernel, memory,
# the command line. Four boots of one kernel, two with 512M and two with
# 1024M on their command line (MemTotal 480000 and 990000 KiB), each running
# dd at read_ahead_kb default and 0; read is 20% lower at 0, 3% higher with
# more memory; "same" does not move.
PYTHONPATH="$TOP/tests" python3 - >"$T/by.jsonl" <<'PY'
import json, random, sys
random.seed(7)
from recgen import rec
for b in range(1, 5):
    big = b > 2
    rec(b, "boot", {"kernel": {"release": "6.1.0-57-amd64", "version": "#1 SMP Debian 6.1.192-3"}, "userland": "u",
                    "mode": "deterministic", "accel": "tcg", "cpu": {"count": 1},
                    "cmdline": "console=ttyS0 bootbench.nonce=%d mem=%s%s" % (b, "1024M" if big else "512M",
                                                                           " noirqdebug" if b == 2 else ""),
                    "memory": {"total_kib": 990000 if big else 480000, "unit": "KiB"}})
    for ra, base in (("default", 100.0), ("0", 80.0)):
        for it in range(2):
            rec(b, "run", {"workload": "dd", "params": {"bs": "512"}, "layout": {"name": "ramdisk-ext2"},
                           "tunables": {"requested": {"read_ahead_kb": ra}}, "status": "ok",
                           "metrics": [{"name": "read", "value": base + random.gauss(0, 1) + (3 if big else 0), "unit": "MB/s", "better": "higher"},
                                       {"name": "same", "value": 50 + random.gauss(0, 0.3), "unit": "s", "better": "lower"}]})
rec(9, "run", {"workload": "dd", "layout": {"name": "x"}, "status": "ok", "metrics": []})
PY
"$BB" compare "$T/by.jsonl" --by tunable.read_ahead_kb --html "$T/by.html" >"$T/by.out" 2>"$T/by.err"
is "$?" 0 "compare --by tunable.read_ahead_kb: exit 0"
is "$(head -1 "$T/by.out")" "bootbench compare: 2 values of read_ahead_kb, 4 boots, 16 runs; baseline read_ahead_kb=default" \
	"the columns are the tunable's values, the kernel's own setting the baseline; 4 boots, each a unit of both values"
ok "read_ahead_kb 0 against default: read worse by about 20%, 'same' not; the 512 MiB and 1024 MiB boots are rows of their own (they pooled once)" \
	sh -c "grep -q '^read_ahead_kb=0 vs read_ahead_kb=default: 4 figures: 2 worse, 0 better' '$T/by.out' &&
	       grep -Eq '^ +-(1[89]|2[01])\.[0-9]%.*dd \[kernel=\"6.1.192 generic\"\] / ramdisk-ext2: read' '$T/by.out' &&
	       grep -Eq '^ +-(1[89]|2[01])\.[0-9]%.*dd \[kernel=\"6.1.192 generic, 1024 MiB, cmdline \+mem=1024M -mem=512M\"\] / ramdisk-ext2: read' '$T/by.out' &&
	       ! grep -Eq '^ +-.*: same ' '$T/by.out'"
ok "a run without a boot record is not compared, and said so" \
	grep -q "^WARNING: 1 runs without a boot record were not compared" "$T/by.out"
ok "the report asks the factor's question" grep -q '<h1>bootbench: does read_ahead_kb change the figures?</h1>' "$T/by.html"
"$BB" compare "$T/by.jsonl" --by tunable.read_ahead_kb --baseline 0 --summary 2>/dev/null >"$T/by0.out"
ok "--baseline 0 names the value: default is then better" \
	grep -q '^read_ahead_kb=default vs read_ahead_kb=0: 4 figures: 0 worse, 2 better' "$T/by0.out"
"$BB" compare "$T/by.jsonl" --summary 2>/dev/null >"$T/byk.out"
ok "by kernel, boots that differ in memory and command line are two columns, named by what differs" \
	grep -q '^6.1.192 generic, 1024 MiB, cmdline +mem=1024M -mem=512M vs 6.1.192 generic: ' "$T/byk.out"
ok "... and boot-qemu's noirqdebug (boot 2's, not boot 1's) is the harness's word, not a column of its own (3 kernels: the 512 MiB, the 1024 MiB, the run without a boot record)" \
	sh -c "grep -q '^bootbench compare: 3 kernels, 4 boots' '$T/byk.out' && ! grep -q noirqdebug '$T/byk.out'"
"$BB" compare "$T/by.jsonl" --by memory --summary 2>/dev/null >"$T/bym.out"
ok "--by memory: MemTotal rounded up to 64 MiB (480000 KiB is 512 MiB)" \
	grep -q '^1024 MiB vs 512 MiB: 4 figures' "$T/bym.out"
"$BB" compare "$T/by.jsonl" --by cmdline.mem --baseline 1024M --summary 2>/dev/null >"$T/byc.out"
ok "--by cmdline.mem --baseline 1024M" grep -q '^mem=512M vs mem=1024M: 4 figures' "$T/byc.out"
# --by tag: two tags on one kernel, each booted at 512 MiB and at 1024 MiB:
# the memory sizes are rows of their own (they pooled: one row, n=2)
PYTHONPATH="$TOP/tests" python3 - >"$T/bytag.jsonl" <<'PY'
from recgen import rec
for b, tag, kib in ((1, "a", 480000), (2, "b", 480000), (3, "a", 990000), (4, "b", 990000)):
    rec(b, "boot", {"kernel": {"release": "6.1.0-57-amd64", "version": "#1 SMP Debian 6.1.192-3"}, "tag": tag,
                    "mode": "deterministic", "cpu": {"count": 1}, "cmdline": "console=ttyS0",
                    "memory": {"total_kib": kib, "unit": "KiB"}})
    rec(b, "run", {"workload": "dd", "layout": {"name": "l"}, "status": "ok",
                   "metrics": [{"name": "read", "value": 100 + b, "unit": "MB/s", "better": "higher"}]})
PY
"$BB" compare "$T/bytag.jsonl" --by tag 2>/dev/null | grep '^dd ' >"$T/bytag.out"
ok "--by tag: the 512 MiB and 1024 MiB boots are two rows, a beside b in each ($(wc -l <"$T/bytag.out") rows)" \
	sh -c "[ \$(wc -l <'$T/bytag.out') = 2 ] && grep -q '^dd \[kernel=\"6.1.192 generic\"\] / l .* 101.0 n=1 .* 102.0 n=1' '$T/bytag.out' &&
	       grep -q '^dd \[kernel=\"6.1.192 generic, 1024 MiB\"\] / l .* 103.0 n=1 .* 104.0 n=1' '$T/bytag.out'"
"$BB" compare "$T/by.jsonl" --by tunable >/dev/null 2>"$T/bybad.err"
ok "--by tunable without a name: bad usage (100), the factors listed" \
	sh -c "[ $? = 100 ] && grep -q 'bad --by \"tunable\" (kernel, tunable.NAME, memory, cmdline.KEY, section, tag or layout' '$T/bybad.err'"
done_testing
