#!/usr/bin/env bash
# bootbench compare --rounds: confirmation rounds through the command line,
# driven as scripts/demo drives them (a round of boots, then
# `compare --undecided`, until it says decided or the budget is spent), on
# seeded synthetic records: a 10% change is confirmed and the rounds stop
# early; an A/A pair ends "unchanged"; --care limits what asks for another
# round; the text, HTML and KCIDB export say which round confirmed each
# verdict; bad usage is refused. The error rates themselves are simulated in
# tests/unit/confirm.c.
. "$(dirname "$0")/lib.sh"
[ -x "$BB" ] || skip_all "not built (run make)"
command -v jq >/dev/null || skip_all "jq not installed"
plan 25

# drive FILE EFFECT MAX [compare args]: rounds until compare says decided;
# prints the rounds booted and the last decision line
drive() {
	local f=$1 eff=$2 max=$3 r=0 rc line; shift 3
	: >"$f"
	while [ $r -lt "$max" ]; do
		r=$((r + 1))
		synth_round "$f" $r "$eff"
		line=$("$BB" compare "$f" --rounds "$max" --undecided "$@" 2>/dev/null); rc=$?
		[ $rc = 3 ] || break
	done
	echo "$r|$rc|$line"
}

res=$(drive "$T/ten.jsonl" 0.10 8 --care w)
IFS='|' read -r n rc line <<<"$res"
ok "10% change, CoV 1%, --care w: decided before the budget of 8 rounds ($n rounds: $line)" test "$n" -lt 8
is "$rc" 0 "... and compare --undecided said so (exit 0)"
"$BB" compare "$T/ten.jsonl" --rounds 8 --care w --summary >"$T/ten.txt" 2>&1
ok "the summary says 'moved' changed, and in which round" grep -Eq '^ +changed +round [0-9]+ .* w / l: moved$' "$T/ten.txt"
ok "... and 'same' unchanged, and in which round" grep -Eq '^ +unchanged +round [0-9]+ .* w / l: same$' "$T/ten.txt"
ok "... and the noisy figure of workload v undecided, not cared for" \
	grep -Eq '^ +undecided +[0-9]+ looks .* v / l: wild  \(not cared for\)( +-- .*)?$' "$T/ten.txt"
[ "$_failed" = 0 ] || sed 's/^/# /' "$T/ten.txt"

# the wild figure (CoV 50% a run) cannot be decided in 12 rounds at its
# noise: from 3 boots a side it holds no round open, and says how many
# boots it would need
res=$(drive "$T/all.jsonl" 0.10 12)
IFS='|' read -r n rc line <<<"$res"
ok "without --care the wild figure ends the rounds early: not decidable at this noise ($n of 12 rounds, exit $rc: $line)" \
	sh -c "[ $n -ge 3 ] && [ $n -lt 12 ] && [ $rc = 0 ] && echo '$line' | grep -q '1 undecided (1 not decidable at this noise in the rounds left): no more rounds, none would'"
"$BB" compare "$T/all.jsonl" --rounds 12 --summary >"$T/all.txt" 2>&1
ok "... the text names it with the boots it would need" \
	grep -Eq '^ +undecided +[0-9]+ looks .* v / l: wild  -- not decidable at this noise: about [0-9]+ more boots a side$' "$T/all.txt"
"$BB" compare "$T/all.jsonl" --rounds 12 --html "$T/all.html" >/dev/null 2>&1
ok "... and so does the HTML report" grep -q 'undecided<br><small>not decidable at this noise: about [0-9]* more boots a side</small>' "$T/all.html"
"$BB" export --kcidb "$T/all.jsonl" --rounds 12 2>/dev/null >"$T/all.json"
ok "... and the KCIDB export (not_decidable_more_boots)" \
	sh -c "jq -e '[.tests[] | select(.path == \"bootbench.v.l.wild\") | .misc.comparison.confirmation.not_decidable_more_boots] | map(select(. != null and . > 0)) | length > 0' '$T/all.json' >/dev/null"
# with a budget of 3 rounds the last look comes before futility is judged
res=$(drive "$T/three.jsonl" 0.10 3)
IFS='|' read -r n rc line <<<"$res"
is "$n|$rc" "3|0" "a budget of 3: all 3 rounds, then exit 0"
ok "... the last line says the budget is spent ($line)" grep -q 'budget spent' <<<"$line"

res=$(drive "$T/aa.jsonl" 0 12 --care w)
IFS='|' read -r n rc line <<<"$res"
"$BB" compare "$T/aa.jsonl" --rounds 12 --care w --summary >"$T/aa.txt" 2>&1
is "$(grep -Ec '^ +unchanged +round' "$T/aa.txt")" 2 "A/A: both cared figures end 'unchanged' ($n rounds: $line)"
is "$(grep -Ec '^ +changed +round' "$T/aa.txt")" 0 "A/A: none 'changed'"

"$BB" compare "$T/ten.jsonl" --rounds 8 --care w --html "$T/r.html" >/dev/null 2>&1
ok "the HTML report has the confirmation table with the round" grep -q '<td class="l">changed</td><td>[0-9]* of [0-9]*</td>' "$T/r.html"
"$BB" export --kcidb "$T/ten.jsonl" --rounds 8 --care w 2>/dev/null >"$T/k.json"
is "$(jq -r '[.tests[] | select(.path == "bootbench.w.l.moved" and .misc.kernel == "6.1.0-B [B]") | .misc.comparison.confirmation | "\(.verdict) \(.round > 0)"] | unique | join(",")' "$T/k.json")" \
	"changed true" "the KCIDB export carries the confirmation verdict and its round"

"$BB" compare "$T/ten.jsonl" --undecided >/dev/null 2>&1; is "$?" 100 "--undecided without --rounds: exit 100"
"$BB" compare "$T/ten.jsonl" --rounds 0 >/dev/null 2>&1; is "$?" 100 "--rounds 0: exit 100"
"$BB" compare "$T/ten.jsonl" --rounds 3 --equivalence -1 >/dev/null 2>&1; is "$?" 100 "--equivalence -1: exit 100"
"$BB" compare "$T/ten.jsonl" --rounds 3 --care @l >/dev/null 2>&1; is "$?" 100 "--care @l: exit 100"
"$BB" compare "$T/ten.jsonl" --rounds 3 --undecided --csv >/dev/null 2>&1; is "$?" 100 "--undecided with --csv: exit 100"
"$BB" compare "$T/ten.jsonl" --rounds 0.7 >/dev/null 2>&1; is "$?" 100 "--rounds 0.7 (not a whole number): exit 100"
"$BB" compare "$T/ten.jsonl" --rounds 8 --undecided --care typo >/dev/null 2>"$T/typo.err"
ok "--care that names no figure is refused (100), not taken as decided" sh -c "[ $? = 100 ] && grep -q 'names no figure' '$T/typo.err'"
grep '"a0' "$T/ten.jsonl" >"$T/onekernel.jsonl"
line=$("$BB" compare "$T/onekernel.jsonl" --rounds 8 --undecided 2>/dev/null); rc=$?
is "$rc|$line" "3|round 0 of 8: no figure measured on two kernels yet: another round" "one kernel so far: another round, not decided"
line=$("$BB" compare "$T/onekernel.jsonl" --rounds 8 --undecided --care w 2>/dev/null); rc=$?
is "$rc|${line%%:*}" "3|round 0 of 8" "... with --care naming a figure only that kernel measured yet: another round, not refused"
# a figure that can never be tested (0 on both kernels: no relative change)
# must not ask for rounds to the end of the budget
jq -c 'if .type == "run" and .data.workload == "w" then .data.metrics |= map(if .name == "same" then .value = 0 else . end) else . end' \
	"$T/ten.jsonl" >"$T/zero.jsonl"
line=$("$BB" compare "$T/zero.jsonl" --rounds 8 --undecided --care w 2>/dev/null); rc=$?
ok "a figure that is 0 on both kernels is 'never testable', and the rounds end ($line)" \
	sh -c "[ $rc = 0 ] && echo '$line' | grep -q '1 never testable.*: decided$'"
done_testing
