#!/usr/bin/env bash
# Figures a workload marks invalid ("invalid": true: an nfsmix load step
# with over 1% failed calls) in compare and the report, on records made
# here: 3 boots a kernel of an SFS-style curve at 100, 200 and 400 ops/s,
# where the 400 step is INVALID on one generic boot and on every rt boot.
# The invalid values are kept out of n, the mean and the test (the valid
# generic mean is what it must be), counted per side in the table, the
# summary and the CSV, and the report draws each kernel's load-response
# curve with the all-INVALID step as a hollow red point.
. "$(dirname "$0")/lib.sh"
[ -x "$BB" ] || skip_all "not built (run make)"
plan 9
R=$T/r.jsonl
seq=0
rec() { seq=$((seq + 1)); printf '{"seq":%d,"boot_id":"%032d","type":"%s","data":%s}\n' "$seq" "$1" "$2" "$3" >> "$R"; }
m() { # name value unit better [invalid]
	printf '{"name":"%s","value":%s,"unit":"%s","better":"%s"%s}' "$1" "$2" "$3" "$4" "${5:+,\"invalid\":true}"
}
for b in 1 2 3 4 5 6; do
	if [ $b -le 3 ]; then rel=6.1.0-57-amd64 ver='#1 SMP PREEMPT_DYNAMIC Debian 6.1.192-3'; else rel=6.1.0-57-rt-amd64 ver='#1 SMP PREEMPT_RT Debian 6.1.192-3'; fi
	rec $b boot "{\"kernel\":{\"release\":\"$rel\",\"version\":\"$ver\",\"config_sha256\":null},\"userland\":\"$(printf 'u%.0s' $(seq 64))\",\"mode\":\"wallclock\",\"accel\":\"tcg\"}"
	inv=; [ $b = 1 ] || [ $b -ge 4 ] && inv=1
	r=$((b >= 4 ? 2 : 1))
	metrics="$(m load100_ops $((100 - b % 2)) ops/s higher),$(m load100_resp_ms $((3 * r)).$b ms lower),$(m load200_ops $((200 - b % 2)) ops/s higher),$(m load200_resp_ms $((4 * r)).$b ms lower),$(m load400_ops $((300 + 10 * b)) ops/s higher $inv),$(m load400_resp_ms $((20 * r)).$b ms lower $inv),$(m peak_ops 200 ops/s higher)"
	rec $b run "{\"plan\":\"nfs\",\"workload\":\"nfsmix\",\"params\":{\"loads\":\"100,200,400\"},\"layout\":{\"name\":\"ramdisk-ext3\"},\"iteration\":1,\"status\":\"ok\",\"metrics\":[$metrics]}"
	rec $b end '{"reason":"all steps done","status":"ok"}'
done
"$BB" compare "$R" > "$T/out" 2>&1; rc=$?
is "$rc" 0 "compare reads the records"
grep 'load400_ops' "$T/out" | sed 's/^/# /'
ok "the table: generic's valid runs only (mean 325, n=2) and INVALID x1; rt all INVALID x3" \
	grep -Eq 'load400_ops +ops/s +325(\.0)? ±[0-9.]+%~? n=2 INVALID x1 +INVALID x3' "$T/out"
ok "a figure with no valid run on one side is not tested" sh -c "! grep 'load400_ops' '$T/out' | grep -q ' p='"
"$BB" compare "$R" --summary > "$T/sum"
sed -n '/INVALID/,$p' "$T/sum" | head -4 | sed 's/^/# /'
ok "the summary lists it with the runs of each side" \
	grep -q 'load400_ops: 6.1.192 generic 1 of 3 runs, 6.1.192 rt 3 of 3 runs' "$T/sum"
# invalid is the fifth column from the end (then runs, boot_cov, run_cov,
# narrow_by); params may hold a quoted comma, so not counted from the left
"$BB" compare "$R" --csv > "$T/csv"
is "$(awk -F, '$5 == "load400_ops" { print $8 ":" $10 ":" $(NF - 4) }' "$T/csv" | tr '\n' ' ')" \
	"6.1.192 generic:2:1 6.1.192 rt:0:3 " "CSV: n and the invalid column per kernel"
is "$(awk -F, '$5 == "load200_ops" { print $(NF - 4) }' "$T/csv" | tr '\n' ' ')" "0 0 " "valid figures carry invalid 0"
"$BB" compare "$R" --html "$T/r.html" >/dev/null 2>&1
ok "the report: one load-response curve" test "$(grep -o '<svg class="curve"' "$T/r.html" | wc -l)" = 1
ok "... with rt's all-INVALID 400 step as a hollow point, and generic's (one invalid of three) filled" \
	sh -c "[ \$(grep -o 'class=\"inv\"' '$T/r.html' | wc -l) = 1 ] && grep -q 'rt: requested 400 ops/s.*(INVALID)' '$T/r.html' && ! grep -q 'generic: requested 400 ops/s[^<]*(INVALID)' '$T/r.html'"
ok "... and INVALID marked in the table cells" grep -q '<span class="invalid">INVALID &times;3</span>' "$T/r.html"
done_testing
