#!/usr/bin/env bash
# The HTML report: one self-contained file (no network, no scripts): the
# summary first, a forest plot of every figure's change, per-workload folds
# with the tables, a bar chart with error bars per figure and kernel and the
# counters compared, and the boot identities. Headless Chromium renders it;
# the rendered text must name the regressions of the golden inputs in full,
# and every record string is escaped. The rendered text is read from
# Chromium's print to PDF (pdftotext keeps its layout and honours clipping,
# so a title cut by its box reads cut); the screenshot proves it paints.
. "$(dirname "$0")/lib.sh"
[ -x "$BB" ] || skip_all "not built (run make)"
F=tests/fixtures/compare/two-kernels.jsonl
plan 20
"$BB" compare "$F" --html "$T/report.html" > /dev/null; rc=$?
is "$rc" 0 "compare --html writes the report"
ok "self-contained: no scripts, no external URLs or resources" \
	sh -c "! grep -Eqi '<script|https?://|src=|<link' '$T/report.html'"
is "$(grep -o '<rect class="bar"' "$T/report.html" | wc -l)" 8 "a bar per kernel for each of the 4 figures"
is "$(grep -o '<path class="err"' "$T/report.html" | wc -l)" 8 "each bar has an error bar (n >= 2)"
is "$(grep -o '<svg class="forest"' "$T/report.html" | wc -l)" 2 "a forest plot per mode (wallclock, deterministic)"
is "$(grep -o '<details class="wl"' "$T/report.html" | wc -l)" 2 "a fold per workload and mode"
ok "the boot identities are listed (10 boots)" test "$(grep -o '<td class="l">00000000000000000000000000000' "$T/report.html" | wc -l)" -ge 10
# the report goes to a regular file only: not into a FIFO (the open would
# hang), not through a symbolic link, not into a device; a longer file is
# emptied first
mkfifo "$T/fifo"; ln -s "$T/elsewhere" "$T/link"; head -c 3000000 /dev/zero | tr '\0' x > "$T/long.html"
timeout 10 "$BB" compare "$F" --html "$T/fifo" > /dev/null 2> "$T/fifo.err"; r1=$?
"$BB" compare "$F" --html "$T/link" > /dev/null 2> "$T/link.err"; r2=$?
is "$r1 $r2 $([ -e "$T/elsewhere" ] && echo made)" "111 111 " \
	"--html to a FIFO or a symbolic link: refused at once (exit 111), nothing written through the link"
ok "... and said: $(head -c 150 "$T/link.err")" grep -q 'a report goes to a regular file only' "$T/fifo.err"
"$BB" compare "$F" --html "$T/long.html" > /dev/null
ok "a longer file is emptied first: the report alone, ending in </html>" \
	sh -c "[ \$(wc -c < '$T/long.html') -eq \$(wc -c < '$T/report.html') ] && tail -c 8 '$T/long.html' | grep -q '</html>'"
# hostile strings from a record are escaped
sed 's/"workload":"stream"/"workload":"<script>alert(1)<\/script>"/' "$F" > "$T/evil.jsonl"
"$BB" compare "$T/evil.jsonl" --html "$T/evil.html" > /dev/null
ok "a <script> in a record's field is escaped in the report" \
	sh -c "grep -q '&lt;script&gt;alert(1)&lt;/script&gt;' '$T/evil.html' && ! grep -qi '<script' '$T/evil.html'"
# a figure with no direction is drawn neither red nor green
# (5 wall-clock boots a kernel: the permutation test's floor is below 0.05)
for i in 1 2 3 4 5 6 7 8 9 10; do
	printf '{"seq":%d,"boot_id":"%032x","type":"boot","data":{"kernel":{"release":"6.%d.0"},"mode":"wallclock"}}\n' $((10*i)) $i $((i % 2))
	printf '{"seq":%d,"boot_id":"%032x","type":"run","data":{"workload":"w","layout":{"name":"t"},"status":"ok","metrics":[{"name":"count","value":%d,"unit":"n","better":""}]}}\n' $((10*i+1)) $i $((100 + 50 * (i % 2) + i))
done > "$T/nodir.jsonl"
"$BB" compare "$T/nodir.jsonl" --html "$T/nodir.html" > /dev/null
ok "forest: a significant change with no direction is 'changed' (orange), not an improvement" \
	sh -c "grep -q '<g class=\"chg\">' '$T/nodir.html' && ! grep -q '<g class=\"imp\">' '$T/nodir.html' && ! grep -q '<g class=\"reg\">' '$T/nodir.html'"
CHROME=$(command -v chromium || true)
if [ -z "$CHROME" ] || ! command -v pdftotext >/dev/null; then
	for i in 1 2 3 4 5 6 7 8; do skip "chromium or pdftotext not installed (scripts/install-deps installs them)"; done
	done_testing
fi
flags="--headless --no-sandbox --disable-gpu --disable-quic --no-first-run --disable-background-networking
 --disable-component-update --disable-sync --user-data-dir=$T/chrome"
timeout 60 "$CHROME" $flags --dump-dom "file://$T/report.html" > "$T/dom.html" 2>/dev/null
is "$(grep -o '<rect class="bar"' "$T/dom.html" | wc -l)" 8 "Chromium parses the report: 8 bars in its DOM"
timeout 60 "$CHROME" $flags --window-size=1400,1200 --screenshot="$T/shot.png" "file://$T/report.html" >/dev/null 2>&1
ok "Chromium renders a screenshot" test -s "$T/shot.png"
size=$(stat -c %s "$T/shot.png" 2>/dev/null || echo 0)
ok "the screenshot is not blank ($size bytes)" test "$size" -gt 30000
[ -n "${REPORT_SHOT:-}" ] && cp "$T/shot.png" "$REPORT_SHOT"
# what a person reads: the page as Chromium lays it out, as text
has() { case $1 in *"$2"*) return 0 ;; esac; echo "# not in the rendered text: $2"; return 1; }
rendered() { # HTML -> its rendered text as laid out, a line per row, spaces squeezed
	timeout 60 "$CHROME" $flags --no-pdf-header-footer --print-to-pdf="$T/r.pdf" "file://$1" >/dev/null 2>&1
	pdftotext -layout "$T/r.pdf" - 2>/dev/null | tr -s ' ' | sed 's/^ //; s/ $//'
}
NL=$'\n'
flat() { pdftotext "$T/r.pdf" - 2>/dev/null | tr '\n' ' ' | tr -s ' '; }	# the last rendering, on one line
txt=$(rendered "$T/report.html")
case $txt in
*"6.1.192 rt vs 6.1.192 generic"$NL*"3 figures: 2 worse, 0 better, 0 unchanged, 1 undecided."*) pass "rendered summary: 3 figures, 2 worse, 0 better, 0 unchanged, 1 undecided" ;;
*) fail "rendered summary: 3 figures, 2 worse, 0 better, 0 unchanged, 1 undecided"; echo "# rendered: ${txt:0:600}" ;;
esac
ok "rendered summary names the two regressions, largest first, with interval and q" \
	has "$txt" "-12.1% worse [-13.2%, -11.0%] 0.012 stream / ramdisk-ext2: write MB/s, higher is better$NL+11.9% worse [+11.1%, +12.7%] 0.012 stream / ramdisk-ext2: forkexec ms, lower is better"
"$BB" compare tests/fixtures/compare/params.jsonl --html "$T/params.html" > /dev/null
txt=$(rendered "$T/params.html")
ok "rendered: the parameter sets' regressions named in full, largest first (tcpbw [msg=8K], then [msg=64K])" \
	has "$txt" "-9.8% worse [-11.3%, -8.3%] 0.016 tcpbw [msg=8K] / ramdisk-ext2: bandwidth MB/s, higher is better$NL-9.4% worse [-10.9%, -7.8%] 0.016 tcpbw [msg=64K] / ramdisk-ext2: bandwidth MB/s, higher is better"
ok "rendered: chart titles whole, not cut (... (MB/s, higher is better))" \
	has "$(flat)" "tcpbw [msg=64K] / ramdisk-ext2: bandwidth (MB/s, higher is better)"
ok "rendered: the forest plot labels every figure, the refused scheduler included" \
	has "$txt" "scheduler=bfq(refused:ram0=none) / ramdisk-ext2: write_MBps"
done_testing
