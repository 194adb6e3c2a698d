#!/usr/bin/env bash
# timeout: 2400
# bootbench-test: alone (it measures wall-clock figures: anything beside it is its noise)
# Wall-clock A/A: one kernel against itself, boots tagged A and B
# interleaved (A B A B ..., 6 of each), plain TCG as on real hardware where
# deterministic mode does not exist, the quick plan's families and process
# sections (91 figures since oltp left quick, 9fdeadb, 108 before: every
# family once on the ramdisk, fork/exec and fsync again on tmpfs; the test
# asks for at least 85) (its field section, 2 more minutes over 12 boots,
# is left out for the cold make check's budget). Figures
# vary by 5-25% between such boots; with false discoveries controlled
# (Benjamini-Hochberg over the comparison) compare must flag at most 1.
# Before that control, 4 + 4 boots flagged 4 of 174 at p < 0.05.
# Why 6 a tag: some figures are bimodal between boots (dbload's import on
# TCG takes 0.15 s or 0.25 s). With 4 + 4 boots such a figure splits by tag
# in 2 of 70 boot orders and Welch then finds it certain (CI stop 23: import_s
# and import_user_s +77%, q=0.04); with 6 + 6 in 2 of 924.
. "$(dirname "$0")/lib.sh"
k=${KERNEL:-debian-6.1-cloud}
[ -x "$BB" ] && [ -f "$B/userland.cpio.gz" ] || skip_all "not built (run make)"
need_kernel "$k" || skip_all "$k not fetched (make kernels)"
plan 6
img=$T/aa.img
sed '/^section field/,$d' "$TOP/rootfs/overlay/etc/bootbench/plans/quick.plan" > "$T/aa.plan"
"$BB" mkresults "$img" --size 128M --plan "$T/aa.plan" 2>/dev/null
rcs=
for tag in A B A B A B A B A B A B; do
	boot "$k" "$T/$tag.log" --results "$img" --memory 512 --append "bootbench.tag=$tag"
	rcs="$rcs$?"
done
is "$rcs" 000000000000 "twelve plain-TCG boots of $k, tagged A and B"
"$BB" compare "$img" --csv > "$T/aa.csv" 2>"$T/err"; rc=$?
# the columns read below by number: fail loudly if they move
is "$rc:$(head -n 1 "$T/aa.csv" | cut -d, -f9,13,16,17,20,23)" "0:baseline,cov,p,significant,q,kind" "compare A vs B (CSV columns as read here)"
"$BB" compare "$img" --summary | sed 's/^/# /'
figs=$(awk -F, 'NR > 1 && $9 == "0" && $23 == "figure" && $20 != ""' "$T/aa.csv" | wc -l)
raw=$(awk -F, 'NR > 1 && $9 == "0" && $23 == "figure" && $16 != "" && $16 < 0.05' "$T/aa.csv" | wc -l)
sig=$(awk -F, 'NR > 1 && $9 == "0" && $23 == "figure" && $17 == "1"' "$T/aa.csv" | wc -l)
ok "wall-clock mode: the figures were compared as such" grep -q '^wallclock,' "$T/aa.csv"
"$BB" compare "$img" --summary > "$T/sum"
ok "6 + 6 boots: a summary without the few-boots note" sh -c "grep -q 'figures:' '$T/sum' && ! grep -q 'wall-clock boots:' '$T/sum'"
ok "figures tested: $figs (at least 85)" test "$figs" -ge 85
ok "significant A/A differences: $sig of $figs (at most 1); at raw p < 0.05 it would be $raw" test "$sig" -le 1
diag "CoV median over figures: $(awk -F, 'NR > 1 && $23 == "figure" && $13 != "" {print $13 * 100}' "$T/aa.csv" | sort -g | awk '{v[NR]=$1} END {print v[int((NR+1)/2)] "%"}')"
done_testing
