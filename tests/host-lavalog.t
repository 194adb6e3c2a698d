#!/usr/bin/env bash
# bootbench collect reads a LAVA job's log (lava-run's output, or the
# "- "-prefixed lines of `lavacli jobs logs --raw`) as it reads the serial
# console: LAVA escapes each quote of a console line and writes the line as a
# YAML double-quoted string (\x.., \u...., \e ...). Written here by LAVA's
# own code (lava_dispatcher's ShellLogger escaping, lava_common.log.dump)
# from a console log whose records hold quotes, backslashes, non-ASCII and
# control characters: collect must give back exactly the console's records.
# A line that does not decode, and LAVA's stand-in for a line too long, are
# counted as lost, not skipped in silence.
. "$(dirname "$0")/lib.sh"
[ -x "$BB" ] || skip_all "not built (run make)"
command -v jq >/dev/null || skip_all "jq not installed"
/usr/bin/python3 -c 'import lava_common.log' 2>/dev/null ||
	skip_all "no lava_common (package lava-dispatcher; scripts/install-deps installs it)"
plan 8

"$BB" run null >"$T/r.jsonl" 2>/dev/null
# strings a record may carry: quotes, backslashes (JSON escapes), UTF-8,
# control characters (JSON \u escapes), a literal "BOOTBENCH {" inside
jq -c '.data.params.note = "a \"quoted\" back\\slash, \\\" both, é ünï 😀, tab\there, bell\u0007, BOOTBENCH {x"' \
	"$T/r.jsonl" >"$T/odd.jsonl"
{
	echo "[    0.000000] Linux version 6.1.0 (a kernel line)"
	sed 's/^/BOOTBENCH /' "$T/r.jsonl"
	echo 'a line with "quotes" and \backslashes\'
	sed 's/^/BOOTBENCH /' "$T/odd.jsonl"
} >"$T/console.log"
/usr/bin/python3 - "$T/console.log" "$T/lava.log" "$T/raw.log" "$T/compact.log" "$T/wide.log" <<'PY'
import json, sys, yaml
from lava_common.log import dump
src, out, raw, compact, wide = sys.argv[1:6]
def lava(line):
    # lava_dispatcher.shell.ShellLogger.write's replacements, in its order
    for k, v in (("\n\n", "\n"), ("\r", ""), ('"', '\\"'), ("\x1b", "")):
        line = line.replace(k, v)
    return dump({"dt": "2026-12-03T00:00:00.000000", "lvl": "target", "msg": line})
with open(src, encoding="utf-8") as f, open(out, "w") as o, open(raw, "w") as r:
    for line in f.read().split("\n")[:-1]:
        o.write(dump({"dt": "2026-12-03T00:00:00.000000", "lvl": "info", "msg": "a dispatcher line"}) + "\n")
        o.write(lava(line) + "\n")
        r.write("- " + lava(line) + "\n")
# the same log passed through a JSON tool: no spaces (and characters past
# U+FFFF as surrogate pairs), or more of them
with open(out, encoding="utf-8") as f, open(compact, "w") as c, open(wide, "w") as w:
    for line in f:
        d = yaml.safe_load(line)  # LAVA's escapes (\a) are YAML's, not JSON's
        c.write(json.dumps(d, separators=(",", ":")) + "\n")
        w.write(json.dumps(d, separators=(" ,  ", " :\t"), ensure_ascii=False).replace("{", "{ ", 1) + "\n")
PY
"$BB" collect "$T/console.log" >"$T/want" 2>/dev/null
"$BB" collect "$T/lava.log" >"$T/got" 2>"$T/err"; rc=$?
is "$rc" 0 "collect reads a LAVA job log"
ok "... giving exactly the console's records ($(wc -l <"$T/want") records, quotes, backslashes, UTF-8, control characters)" \
	sh -c "[ -s '$T/want' ] && cmp -s '$T/want' '$T/got'"
"$BB" collect "$T/raw.log" >"$T/got2" 2>/dev/null
ok "... and lavacli's raw log (lines that start '- ')" cmp -s "$T/want" "$T/got2"
"$BB" collect "$T/compact.log" >"$T/got4" 2>/dev/null
ok "... and the log as compact JSON (no spaces, \\ud83d\\ude00 for one character)" cmp -s "$T/want" "$T/got4"
"$BB" collect "$T/wide.log" >"$T/got5" 2>/dev/null
ok "... and with more spaces and tabs than LAVA writes" cmp -s "$T/want" "$T/got5"
ok "the odd record's note came through intact" \
	test "$(grep -c 'BOOTBENCH {x' "$T/got")" = "$(grep -c 'BOOTBENCH {x' "$T/odd.jsonl")"
# damage: an escape YAML does not have, and LAVA's stand-in for a long line
{
	cat "$T/lava.log"
	echo '{"dt": "2026-12-03T00:00:00.000000", "lvl": "target", "msg": "BOOTBENCH {\\\"seq\\\":1,\q}"}'
	echo '{"dt": "2026-12-03T00:00:00.000000", "lvl": "target", "msg": "<line way too long ...>"}'
} >"$T/bad.log"
"$BB" collect "$T/bad.log" >"$T/got3" 2>"$T/err3"
ok "a LAVA line that does not decode is reported with its line number" grep -q "line $(($(wc -l <"$T/lava.log") + 1)): a LAVA log line with a record that does not decode" "$T/err3"
ok "... LAVA's stand-in for a too-long line too, and both are counted as lost" \
	sh -c "grep -q 'LAVA left out a console line' '$T/err3' && grep -q 'records were lost: 2' '$T/err3' && cmp -s '$T/want' '$T/got3'"
[ "$_failed" = 0 ] || sed 's/^/# /' "$T/err" "$T/err3"
done_testing
