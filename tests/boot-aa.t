#!/usr/bin/env bash
# A/A check: one kernel against itself (boots tagged A and B, interleaved
# A B B A) must show no significant difference on at least 95% of figures.
# Deterministic mode (QEMU instruction counting), the light plan. Two boots
# a tag: deterministic figures repeat to 0.1%, so more boots add time to a
# cold make check, not evidence (boot-deterministic.t holds every figure's
# CoV to 1% over three boots of each kernel).
. "$(dirname "$0")/lib.sh"
k=${KERNEL:-debian-6.1-generic}
[ -x "$BB" ] && [ -f "$B/userland.cpio.gz" ] || skip_all "not built (run make)"
need_kernel "$k" || skip_all "$k not fetched (make kernels)"
plan 5
img=$T/aa.img
rcs=
for tag in A B B A; do
	boot "$k" "$T/$tag.log" --deterministic --results "$img" --plan light --memory 512 --append "bootbench.tag=$tag"
	rcs="$rcs$?"
done
is "$rcs" 0000 "four deterministic boots of $k, tagged A and B"
"$BB" compare "$img" --csv > "$T/aa.csv" 2>"$T/err"; rc=$?
is "$rc" 0 "compare A vs B"
"$BB" compare "$img" | sed 's/^/# /'
figs=$(awk -F, 'NR > 1 && $9 == "0" && $23 == "figure"' "$T/aa.csv" | wc -l)
sig=$(awk -F, 'NR > 1 && $9 == "0" && $23 == "figure" && $17 == "1"' "$T/aa.csv" | wc -l)
ok "figures compared: $figs (at least 6)" test "$figs" -ge 6
ok "significant A/A differences: $sig of $figs (at most 5%)" test $((sig * 100)) -le $((figs * 5))
# what a kernel engineer submits to KernelCI from these very records
if /usr/bin/python3 -c 'import jsonschema' 2>/dev/null; then
	"$BB" export --kcidb "$img" -o "$T/kcidb.json" 2>/dev/null
	out=$(/usr/bin/python3 "$TOP/tests/kcidb-check.py" "$T/kcidb.json"); rc=$?
	is "$rc" 0 "the KCIDB export of these boots passes the schema checks ($out)"
	[ "$rc" = 0 ] || diag "$out"
else
	skip "no python3-jsonschema (scripts/install-deps installs it)"
fi
diag "CoV per figure: $(awk -F, 'NR > 1 {printf "%s/%s/%s=%.3f%% ", $8, $3, $5, $13 * 100}' "$T/aa.csv")"
done_testing
