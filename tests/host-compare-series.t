#!/usr/bin/env bash
# compare --series K1,K2,...: seed 003's six kernels each as % of the first.
# Five kernels' records, read in another order than the series; the series
# names four of them. "fork" is flat at K2 and 15% lower from K3 on, "up"
# 10% higher at K4 only, "flat" never moves: the series view shows each as
# % of K1 with '*' where it changed against K1 and names the first kernel
# at which it did; the report draws one line chart per figure (rendered in
# headless Chromium); kernels are named by label or release; bad series
# are refused with the reason.
. "$(dirname "$0")/lib.sh"
[ -x "$BB" ] || skip_all "not built (run make)"
plan 31
PYTHONPATH="$TOP/tests" python3 - >"$T/s.jsonl" <<'PY'
import json, random, sys
random.seed(3)
from recgen import rec
# record order: 190, 170, 195 (not in the series), 180, 192
kernels = [("6.1.190", 0.85, 1.0), ("6.1.170", 1.0, 1.0), ("6.1.195", 0.5, 0.5), ("6.1.180", 1.0, 1.0), ("6.1.192", 0.85, 1.1)]
b = 0
for boot in range(3):
    for up, fork, upf in kernels:
        b += 1
        rec(b, "boot", {"kernel": {"release": "6.1.0-%s-amd64" % up.split(".")[2], "version": "#1 SMP Debian %s-1" % up},
                        "userland": "u", "mode": "deterministic", "accel": "tcg"})
        for it in range(2):
            rec(b, "run", {"workload": "forkexec", "layout": {"name": "tmpfs"}, "status": "ok",
                           "metrics": [{"name": "fork", "value": 1000 * fork * (1 + random.gauss(0, 0.002)), "unit": "1/s", "better": "higher"},
                                       {"name": "up", "value": 50 * upf * (1 + random.gauss(0, 0.002)), "unit": "MB/s", "better": "higher"},
                                       {"name": "flat", "value": 7 * (1 + random.gauss(0, 0.002)), "unit": "ms", "better": "lower"}]})
PY
S="6.1.170 generic,6.1.180 generic,6.1.190 generic,6.1.192 generic"
"$BB" compare "$T/s.jsonl" --series "$S" --html "$T/s.html" >"$T/s.out" 2>"$T/s.err"
is "$?" 0 "compare --series: exit 0"
is "$(head -1 "$T/s.out")" "bootbench compare: 4 kernels, 15 boots, 24 runs; baseline 6.1.170 generic" \
	"four kernels of the five compared (15 boots read), the first of the series the baseline"
ok "the series is in the order given, not the order read" \
	grep -qx '  K1 6.1.170 generic (baseline), K2 6.1.180 generic, K3 6.1.190 generic, K4 6.1.192 generic' "$T/s.out"
row() { grep -E "^forkexec / tmpfs: $1 " "$T/s.out"; }
ok "fork: 100 at K1, unchanged at K2, about 85* at K3 and K4" \
	sh -c "echo '$(row fork)' | grep -Eq ' 100\.0 +(99\.[5-9]|100\.[0-4]) +8[45]\.[0-9]\* +8[45]\.[0-9]\* '"
ok "fork: first changed at K3, worse, with its interval and q" \
	sh -c "echo '$(row fork)' | grep -Eq 'K3 6\.1\.190 generic: -1[45]\.[0-9]% \[-1[0-9]\.[0-9]%, -1[0-9]\.[0-9]%\] q=[0-9.e-]+, worse \(higher is better\)$'"
ok "up: first changed at K4, better" \
	sh -c "echo '$(row up)' | grep -Eq 'K4 6\.1\.192 generic: \+(9|10)\.[0-9]% .*, better \(higher is better\)$'"
ok "flat: no '*' anywhere, no kernel at which it changed" \
	sh -c "echo '$(row flat)' | grep -Evq '\*' && echo '$(row flat)' | grep -Eq '  - \(lower is better\)$'"
ok "the series counts the figures that changed somewhere along it" grep -q '; 2 of 3 figures changed somewhere along the series, 0 more not tested at some kernel;' "$T/s.out"
ok "the kernel the series leaves out is said, with its runs" \
	grep -q '^WARNING: 6 runs of kernels the series does not name were not compared ("6.1.195 generic")' "$T/s.out"
# by release: the same answer
R="6.1.0-170-amd64,6.1.0-180-amd64,6.1.0-190-amd64,6.1.0-192-amd64"
"$BB" compare "$T/s.jsonl" --series "$R" --summary 2>/dev/null >"$T/r.out"
series_view() { sed -n '/^== series/,/^$/p' "$1"; }
ok "the series view: a title, the kernels, the key, a header and the 3 figures" test "$(series_view "$T/s.out" | grep -c .)" = 7
is "$(series_view "$T/r.out")" "$(series_view "$T/s.out")" "kernels named by release: the same series view"
# the report: a line chart per figure, the changed points coloured
is "$(grep -o '<figure class="bc series">' "$T/s.html" | wc -l)" 3 "the report: a series chart per figure (3)"
is "$(grep -o '<circle class="pt sig"' "$T/s.html" | wc -l)" 3 "changed points marked: fork at K3 and K4, up at K4"
ok "fork's chart: its caption names the first kernel at which it changed" \
	grep -q 'forkexec / tmpfs: fork (% of K1; 1/s, higher is better): first changed at K3 6.1.190 generic: -1' "$T/s.html"
# hostile: a release with markup is escaped in the series view too
sed 's/6\.1\.0-180-amd64/6.1.0-<i>x<\/i>/; s/Debian 6\.1\.180-1/X/' "$T/s.jsonl" >"$T/evil.jsonl"
"$BB" compare "$T/evil.jsonl" --series "6.1.170 generic,6.1.0-<i>x</i>" --html "$T/evil.html" >/dev/null 2>&1
ok "a kernel name with markup is escaped in the series charts" \
	sh -c "grep -q '<b>K2</b> 6.1.0-&lt;i&gt;x&lt;/i&gt;' '$T/evil.html' && ! grep -q '<i>x' '$T/evil.html'"
# what the series cannot say, it says: one boot a side is no test, not
# "no change"; a negative figure's % follows its change; a label with a
# comma and a space (boots apart by memory) can be named
PYTHONPATH="$TOP/tests" python3 - >"$T/odd.jsonl" <<'PY'
import json, sys
from recgen import rec
for b in range(1, 10):
    k = (b - 1) % 3      # three kernels, three boots each
    mem = 990000 if k == 2 else 480000
    rec(b, "boot", {"kernel": {"release": "6.1.0-%d-amd64" % (170 + 10 * min(k, 1)), "version": "#1 SMP Debian 6.1.%d-1" % (170 + 10 * min(k, 1))},
                    "userland": "u", "mode": "deterministic", "memory": {"total_kib": mem, "unit": "KiB"}})
    ms = [{"name": "neg", "value": [-10, -5, -20][k] + 0.01 * b, "unit": "dB", "better": "higher"}]
    if k != 1:   # none on the second kernel
        ms.append({"name": "gap", "value": 3 + 0.01 * b, "unit": "s", "better": "lower"})
    if b <= 3:   # one boot a kernel
        ms.append({"name": "once", "value": [10, 20, 10][k], "unit": "s", "better": "lower"})
    rec(b, "run", {"workload": "w", "layout": {"name": "t"}, "status": "ok", "metrics": ms})
PY
O="6.1.170 generic,6.1.180 generic,6.1.180 generic, 1024 MiB"
"$BB" compare "$T/odd.jsonl" --series "$O" --summary --html "$T/odd.html" >"$T/odd.out" 2>"$T/odd.err"
is "$?" 0 "a label with a comma and a space is one name in the series"
ok "one boot a side: not tested, and said so, never 'no change'" \
	sh -c "grep -Eq '^w / t: once .* 100\.0 +200\.0 +100\.0  not tested at K2 \(one boot a side, or settings that differ\), K3 \(one boot' '$T/odd.out' &&
	       grep -q '2 more not tested at some kernel' '$T/odd.out' &&
	       grep -q 'w / t: once (% of K1; s, lower is better): not tested at K2 (one boot a side' '$T/odd.html'"
ok "a kernel without ok runs of a figure: not tested there, and said so" \
	sh -c "grep -Eq '^w / t: gap .* 100\.0 +- +[0-9.]+  not tested at K2 \(no ok runs there\)' '$T/odd.out' &&
	       grep -q 'w / t: gap (% of K1; s, lower is better): not tested at K2 (no ok runs there)' '$T/odd.html'"
ok "a negative figure: -5 against -10 (higher is better) is 150% (and -20 is 0%: 100 + the change), better" \
	grep -Eq '^w / t: neg .* 100\.0 +1(49|50)\.[0-9]\* +-?0\.[0-9]\*  K2 6\.1\.180 generic: \+(49|50)\.[0-9]% .*better' "$T/odd.out"
"$BB" compare "$T/s.jsonl" --series "6.1.170 generic,6.1.0-170-amd64" >/dev/null 2>"$T/twice.err"
ok "one kernel named twice, by label and by release: refused, said so" \
	sh -c "[ $? = 1 ] && grep -q 'names kernel \"6.1.170 generic\" twice, by its label and by its release' '$T/twice.err'"
"$BB" compare "$T/s.jsonl" --series "x,y" >/dev/null 2>"$T/xy.err"
ok "no name matches: the first one missing is named, with what there is" \
	grep -q 'no kernel "x" in these records (a label or a release; the others were: "6.1.190 generic", "6.1.170 generic"' "$T/xy.err"
"$BB" compare "$T/s.jsonl" --series "$S" --baseline "6.1.170 generic" --summary >/dev/null 2>&1
is "$?" 0 "--baseline naming the series' first kernel is no conflict"
# bad series
bad() { # bad WANT_RC MESSAGE_RE ARGS...
	local want=$1 re=$2
	shift 2
	"$BB" compare "$T/s.jsonl" "$@" >/dev/null 2>"$T/bad.err"
	local rc=$?
	[ "$rc" = "$want" ] && grep -Eq "$re" "$T/bad.err" || { diag "rc $rc: $(cat "$T/bad.err")"; return 1; }
}
ok "a kernel not in the records: exit 1, what they have named" \
	bad 1 'no kernel "6.1.999" in these records .*"6.1.180 generic"' --series "6.1.170 generic,6.1.999"
ok "one kernel is no series: bad usage" bad 100 'needs two kernels' --series "6.1.170 generic"
ok "a kernel twice: bad usage" bad 100 'names "6.1.170 generic" twice' --series "6.1.170 generic,6.1.170 generic"
ok "an empty name: bad usage" bad 100 'empty or overlong name' --series "6.1.170 generic,,6.1.180 generic"
ok "with --by: bad usage" bad 100 'not with --by' --series "$S" --by memory
ok "with --baseline: bad usage" bad 100 'first kernel the baseline' --series "$S" --baseline "6.1.180 generic"
# one release booted under two tags: naming the release would pool them
python3 - "$T/s.jsonl" >"$T/tags.jsonl" <<'PY'
import json, sys
for line in open(sys.argv[1]):
    r = json.loads(line)
    if r["type"] == "boot" and r["data"]["kernel"]["release"] == "6.1.0-180-amd64":
        r["data"]["tag"] = "t%d" % (int(r["boot_id"], 16) % 2)
    print(json.dumps(r))
PY
"$BB" compare "$T/tags.jsonl" --series "6.1.0-170-amd64,6.1.0-180-amd64" >/dev/null 2>"$T/tags.err"
ok "a release that names two tagged kernels is refused, both named" \
	sh -c "[ $? = 1 ] && grep -q 'names two kernels, \"6.1.180 generic \[t[01]\]\" and \"6.1.180 generic \[t[01]\]\": name each by its label' '$T/tags.err'"
CHROME=$(command -v chromium || true)
if [ -z "$CHROME" ] || ! command -v pdftotext >/dev/null; then
	for i in 1 2; do skip "chromium or pdftotext not installed (scripts/install-deps installs them)"; done
	done_testing
fi
flags="--headless --no-sandbox --disable-gpu --disable-quic --no-first-run --disable-background-networking
 --disable-component-update --disable-sync --user-data-dir=$T/chrome"
timeout 60 "$CHROME" $flags --dump-dom "file://$T/s.html" >"$T/dom.html" 2>/dev/null
is "$(grep -o '<circle class="pt' "$T/dom.html" | wc -l)" 12 "Chromium parses the series charts: 4 points on each of 3"
timeout 60 "$CHROME" $flags --no-pdf-header-footer --print-to-pdf="$T/s.pdf" "file://$T/s.html" >/dev/null 2>&1
ok "the rendered page says where fork first changed" \
	sh -c "pdftotext '$T/s.pdf' - 2>/dev/null | tr '\n' ' ' | tr -s ' ' | grep -q 'first changed at K3 6.1.190 generic: -1'"
done_testing
