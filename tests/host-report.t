#!/usr/bin/env bash
# The HTML report: one self-contained file (no network, no scripts) with the
# tables, a bar chart with error bars per figure and kernel, and the boot
# identities; it renders in headless Chromium with its charts present.
. "$(dirname "$0")/lib.sh"
[ -x "$BB" ] || skip_all "not built (run make)"
F=tests/fixtures/compare/two-kernels.jsonl
plan 8
"$BB" compare "$F" --html "$T/report.html" > /dev/null; rc=$?
is "$rc" 0 "compare --html writes the report"
ok "self-contained: no scripts, no external URLs or resources" \
	sh -c "! grep -Eqi '<script|https?://|src=|<link' '$T/report.html'"
is "$(grep -o '<rect class="bar"' "$T/report.html" | wc -l)" 8 "a bar per kernel for each of the 4 figures"
is "$(grep -o '<path class="err"' "$T/report.html" | wc -l)" 8 "each bar has an error bar (n >= 2)"
ok "the boot identities are listed (10 boots)" test "$(grep -o '<td class="l">00000000000000000000000000000' "$T/report.html" | wc -l)" -ge 10
CHROME=$(command -v chromium || true)
if [ -z "$CHROME" ]; then
	for i in 1 2 3; do skip "chromium not installed (scripts/install-deps installs it)"; done
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
done_testing
