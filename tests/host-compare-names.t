#!/usr/bin/env bash
# The names the seeds' authors know: compare shows each figure a reference
# tool prints in that tool's words (ab's "Requests per second", SFS's
# "ops/sec" and "msec/op", DBT-2's NOTPM, bonnie++'s and hdparm's column
# heads) after the figures' table and in the report's captions; a figure
# of ours with no such tool gets none; new-order throughput has one name
# in both OLTP workloads; the report names each row's plan section.
. "$(dirname "$0")/lib.sh"
[ -x "$BB" ] || skip_all "not built (run make)"
plan 12
PYTHONPATH="$TOP/tests" python3 - >"$T/n.jsonl" <<'PY'
import json, sys
from recgen import rec
def m(name, v, unit="x", better="higher"):
    return {"name": name, "value": v, "unit": unit, "better": better}
for b in range(1, 5):
    rel = "6.1.0-%d-amd64" % (170 if b % 2 else 180)
    rec(b, "boot", {"kernel": {"release": rel, "version": "#1 SMP Debian 6.1.%d-1" % (170 if b % 2 else 180)}, "mode": "deterministic"})
    runs = {"http": [m("requests_per_s", 900 + b), m("processing_mean_ms", 2 + b / 10, "ms", "lower"), m("p50", 3 + b / 10, "ms", "lower")],
            "nfsmix": [m("load100_ops", 99 + b), m("load100_resp_ms", 4 + b / 10, "ms", "lower"), m("peak_ops", 200 + b)],
            "dbt2": [m("new_order_tpm", 1000 + b)], "oltp": [m("new_order_tpm", 500 + b)],
            "touch": [m("files_per_s", 10 + b)]}
    secs = {"http": "seed-002", "nfsmix": "seed-003" if b % 2 else "seed-003-big", "dbt2": "seed-004", "oltp": "seed-004"}
    for wl, ms in runs.items():
        d = {"workload": wl, "layout": {"name": "t"}, "status": "ok", "metrics": ms}
        if wl in secs:
            d["section"] = secs[wl]
        rec(b, "run", d)
PY
"$BB" compare "$T/n.jsonl" --html "$T/n.html" >"$T/n.out" 2>/dev/null
is "$?" 0 "compare: exit 0"
has() { grep -qxF "$1" "$T/n.out" || { diag "not in the output: $1"; return 1; }; }
ok "ab's words for http's figures, Connection Times apart from the percentiles" \
	sh -c "$(declare -f has); T='$T'; has '  http requests_per_s: ab: Requests per second' &&
	       has '  http processing_mean_ms: ab: Connection Times, Processing' &&
	       has '  http p50: ab: Percentage of the requests served within a certain time'"
ok "SFS's words for nfsmix: a step's ops/sec and msec/op, and the peak" \
	sh -c "$(declare -f has); T='$T'; has '  nfsmix load100_ops: SFS: ops/sec (achieved)' &&
	       has '  nfsmix load100_resp_ms: SFS: msec/op' && has '  nfsmix peak_ops: SFS: peak ops/sec'"
ok "DBT-2's NOTPM for dbt2 and for oltp, under one figure name" \
	sh -c "$(declare -f has); T='$T'; has '  dbt2 new_order_tpm: DBT-2: NOTPM (new-order transactions per minute)' &&
	       grep -q '^  oltp new_order_tpm: DBT-2.s NOTPM' '$T/n.out'"
is "$(grep -c '^  [a-z0-9]* [a-z0-9_]*: ' "$T/n.out")" 8 "each once, and none for touch (no reference tool)"
head_at=$(grep -n '^== figures' "$T/n.out" | head -1 | cut -d: -f1)
row_at=$(grep -n '^http / t .* requests_per_s ' "$T/n.out" | tail -1 | cut -d: -f1)
legend_at=$(grep -n '^as their reference tools print them:$' "$T/n.out" | head -1 | cut -d: -f1)
ok "the legend follows the figures' table (lines ${head_at:-?}, ${row_at:-?}, ${legend_at:-?})" \
	test "${head_at:-0}" -gt 0 -a "${row_at:-0}" -gt "${head_at:-0}" -a "${legend_at:-0}" -gt "${row_at:-0}"
is "$(grep -o '<span class="tool">[^<]*</span>' "$T/n.html" | grep -v '>section ' | sort -u | wc -l)" 8 \
	"the report's captions carry the tools' words (8 distinct labels)"
ok "the report's caption for requests_per_s" grep -q 'requests_per_s (req/s\|requests_per_s (x, higher is better)<br><span class="tool">ab: Requests per second</span>' "$T/n.html"
ok "the report names each row's plan section" \
	sh -c "grep -q 'requests_per_s<br><span class=\"tool\">ab: Requests per second</span><br><span class=\"tool\">section seed-002</span>' '$T/n.html'"
ok "a row whose runs came from two sections names both, each once" \
	grep -q 'load100_ops<br><span class="tool">SFS: ops/sec (achieved)</span><br><span class="tool">section seed-003, seed-003-big</span></td>' "$T/n.html"
ok "a row of no section says none" sh -c "grep -q '>files_per_s</td>' '$T/n.html'"
# records from before the rename: oltp's tpm_new_order is the same figure
# (boots 1 and 2, one of each kernel, say the old name)
jq -c 'if .type == "run" and .data.workload == "oltp" and (.boot_id | test("[12]$")) then .data.metrics[0].name = "tpm_new_order" else . end' \
	"$T/n.jsonl" >"$T/old.jsonl"
"$BB" compare "$T/old.jsonl" 2>/dev/null >"$T/old.out"
ok "oltp's old name tpm_new_order pools with new_order_tpm: one row, both boots of each kernel in it" \
	sh -c "[ \$(grep -c tpm_new_order '$T/old.jsonl') = 2 ] && [ \$(grep -c '^oltp / t ' '$T/old.out') = 1 ] &&
	       grep -q '^oltp / t .* new_order_tpm .* n=2 .* n=2 ' '$T/old.out'"
done_testing
