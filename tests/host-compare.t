#!/usr/bin/env bash
# bootbench compare on a fixed results file: golden table output, p-values
# and changes checked against scipy computed here independently, modes kept
# apart, failed/timed-out/skipped runs counted, baseline choice, bad input.
. "$(dirname "$0")/lib.sh"
[ -x "$BB" ] || skip_all "not built (run make)"
F=tests/fixtures/compare/two-kernels.jsonl
plan 13
"$BB" compare "$F" > "$T/out" 2>"$T/err"; rc=$?
is "$rc" 0 "compare on the fixture: exit 0"
ok "table matches the golden file (tests/fixtures/compare/two-kernels.golden)" \
	diff -u tests/fixtures/compare/two-kernels.golden "$T/out"
"$BB" compare --csv "$F" > "$T/csv"
# Independent check: Welch p-values and % changes from scipy on the raw values.
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
ok "noisy figures are flagged (~)" grep -q '±34.0%~' "$T/out"
ok "deterministic runs get their own table, labelled instruction-derived" \
	grep -q '^== mode deterministic (instruction-derived' "$T/out"
is "$(sed -n '/^== mode deterministic/,/^$/p' "$T/out" | grep -c ' n=')" 1 "... holding only the deterministic figure"
ok "timed-out and skipped runs are counted per kernel" \
	grep -q '6.1.192 rt  *5 boots: 5 ok, 0 failed, 1 timeout, 0 crashed, 1 skipped' "$T/out"
"$BB" compare "$F" --baseline "6.1.192 rt" > "$T/rev"
ok "--baseline flips the comparison" grep -q '+13.8% better p=5e-05 \*' "$T/rev"
"$BB" compare "$F" --baseline "5.10 nope" > /dev/null 2>"$T/err"; rc=$?
is "$rc:$(grep -c 'no kernel "5.10 nope" in these records (have: "6.1.192 generic", "6.1.192 rt")' "$T/err")" "1:1" \
	"an unknown baseline: exit 1, naming the kernels there are"
grep '"type":"boot"' "$F" > "$T/boots-only.jsonl"
"$BB" compare "$T/boots-only.jsonl" > /dev/null 2>&1; is "$?" 1 "records without runs: exit 1"
"$BB" compare "$F" --alpha 2 > /dev/null 2>&1; is "$?" 100 "a bad --alpha: exit 100"
done_testing
