#!/usr/bin/env bash
# scripts/bisect-run under a real `git bisect run`, on a tiny synthetic git
# repository whose "kernel" is a shell script printing one run record, so no
# kernel is built: commit 6 of 10 raises the figure from ~100 us to ~130 us,
# commit 3 breaks the build and commit 4 repairs it. Checks that bisect names
# commit 6, that a broken build is answered with skip (125), that the
# median of several boots decides, that a higher-is-better figure flips the
# comparison, and that the step log records what was measured. Then the
# bisect that knows noise: a second repository where commit 6 raises the
# figure by 10% under 5% noise (CoV), bisected 10 times with different seeds
# against the endpoints' samples; it must name commit 6 in at least 9.
. "$(dirname "$0")/lib.sh"
command -v git >/dev/null || skip_all "git not installed"
[ -x "$BB" ] || skip_all "not built (run make)"
plan 24

R=$T/repo
mkdir -p "$R" && cd "$R" || exit 1
git init -q . && git config user.email t@example.org && git config user.name test
# The build copies the kernel script into out/ and prints that directory;
# it fails while the file "broken" exists.
cat >build.sh <<'EOF'
if [ -e broken ]; then echo "build.sh: error: broken tree" >&2; exit 2; fi
mkdir -p out && cp kernel.sh cost out/ && echo "$PWD/out"
EOF
# One boot: a run record whose figure is the commit's cost plus a per-boot
# offset (boot 1 +9, boot 2 +0, boot 3 +1), so only the median hits cost+1.
cat >kernel.sh <<'EOF'
c=$(cat "$(dirname "$0")/cost")
case $RUN in 1) c=$((c + 9)) ;; 3) c=$((c + 1)) ;; esac
echo "[    1.0] some kernel message"
printf 'BOOTBENCH {"seq":%d,"boot_id":"%032d","type":"run","data":{"workload":"syn","layout":{"name":"ramdisk"},"status":"ok","metrics":[{"name":"op_us","value":%d,"unit":"us","better":"lower"},{"name":"ops_per_s","value":%d,"unit":"1/s","better":"higher"}]}}\n' \
	"$RUN" "$RUN" "$c" $((1000000 / c))
EOF
# commits TAG HIGH: ten commits, tagged TAG1..TAG10: the cost is 100 before
# commit 6 and HIGH from it; commit 3 breaks the build, commit 4 repairs it
commits() {
	for i in 1 2 3 4 5 6 7 8 9 10; do
		[ "$i" -ge 6 ] && echo "$2" >cost || echo 100 >cost
		[ "$i" = 3 ] && touch broken
		[ "$i" = 4 ] && rm -f broken
		echo "$i" >version
		git add -A && git commit -q -m "commit $i"
		git tag "$1$i"
	done
}
commits c 130

BOOT='sh "$KERNEL_DIR/kernel.sh" >"$CONSOLE_LOG"'
step() { # step COMMIT ARGS...: one helper call at COMMIT, prints its exit status
	local c=$1; shift
	git checkout -q "$c"
	"$TOP/scripts/bisect-run" --build-cmd 'sh build.sh' --boot-cmd "$BOOT" --log "$T/step.log" "$@" \
		>/dev/null 2>>"$T/step.err"
	echo $?
}

is "$(step c2 --metric syn.op_us@ramdisk --threshold 115)" 0 "good commit (median 101 us <= 115): exit 0"
is "$(step c7 --metric syn.op_us@ramdisk --threshold 115)" 1 "bad commit (median 131 us > 115): exit 1"
is "$(step c3 --metric syn.op_us@ramdisk --threshold 115)" 125 "broken build: exit 125 (skip)"
is "$(step c2 --metric syn.op_us@ramdisk --threshold 100.5)" 1 "the median decides: 101 > 100.5 is bad although one boot measured 100"
is "$(step c2 --metric syn.op_us@ramdisk --threshold 101)" 0 "the median decides: 101 is not above 101"
is "$(step c7 --metric syn.ops_per_s --threshold 9000)" 1 "higher-is-better figure: 7633/s < 9000 is bad"
is "$(step c2 --metric syn.op_us@tmpfs --threshold 115)" 125 "no matching figure (wrong layout): exit 125 (skip)"
is "$(step c2 --threshold 115)" 128 "missing --metric: exit 128 (git bisect stops)"

# The whole bisection, as a user runs it.
rm -f "$T/step.log"
git checkout -q c10
git bisect start c10 c1 >/dev/null
git bisect run "$TOP/scripts/bisect-run" --metric syn.op_us@ramdisk --threshold 115 \
	--build-cmd 'sh build.sh' --boot-cmd "$BOOT" --log "$T/bisect.log" >"$T/bisect.out" 2>&1
first=$(sed -n 's/^\([0-9a-f]*\) is the first bad commit$/\1/p' "$T/bisect.out")
is "$first" "$(git rev-parse c6)" "git bisect run names commit 6 as the first bad commit"
git bisect reset -q >/dev/null 2>&1
ok "the log has one verdict line per step, with the median" \
	grep -q 'median 131 us (lower is better) vs threshold 115: BAD' "$T/bisect.log"
ok "the log records each boot's figures" grep -q 'boot 1/3: exit 0, 1 figures: 109' "$T/bisect.log"
[ "$_failed" = 0 ] || { diag "bisect output:"; sed 's/^/# /' "$T/bisect.out"; sed 's/^/# /' "$T/bisect.log"; }

# --- the noisy bisect ---------------------------------------------------------
R2=$T/noisy
mkdir -p "$R2" && cd "$R2" || exit 1
git init -q . && git config user.email t@example.org && git config user.name test
cp "$R/build.sh" .
# the figure: the commit's cost times (1 + 0.05 z), z standard normal: the
# n-th draw of one stream seeded by SEED, n the bisect's boot counter (a
# seed per boot instead, srand(seed + n), gave correlated draws)
cat >kernel.sh <<'EOF'
c=$(cat "$(dirname "$0")/cost")
n=$(cat "$NOISE_COUNTER" 2>/dev/null || echo 0); n=$((n + 1)); echo "$n" >"$NOISE_COUNTER"
v=$(awk -v c="$c" -v s="$SEED" -v n="$n" 'BEGIN { srand(s); for (i = 1; i < n; i++) { rand(); rand() }
	u = rand(); w = rand(); if (u < 1e-12) u = 1e-12
	printf "%.3f", c * (1 + 0.05 * sqrt(-2 * log(u)) * cos(6.283185307 * w)) }')
printf 'BOOTBENCH {"seq":%d,"boot_id":"%032d","type":"run","data":{"workload":"syn","layout":{"name":"ramdisk"},"status":"ok","metrics":[{"name":"op_us","value":%s,"unit":"us","better":"lower"}]}}\n' "$RUN" "$n" "$v"
EOF
commits n 110
right=0 summary=
for seed in 1 2 3 4 5 6 7 8 9 10; do
	git checkout -q n10
	git bisect start n10 n1 >/dev/null
	NB="SEED=$seed NOISE_COUNTER=$T/count.$seed sh \"\$KERNEL_DIR/kernel.sh\" >\"\$CONSOLE_LOG\""
	git bisect run "$TOP/scripts/bisect-run" --metric syn.op_us@ramdisk --build-cmd 'sh build.sh' --boot-cmd "$NB" \
		--samples "$T/samples.$seed" --log "$T/noisy.$seed.log" >"$T/noisy.$seed.out" 2>&1
	first=$(sed -n 's/^\([0-9a-f]*\) is the first bad commit$/\1/p' "$T/noisy.$seed.out")
	git bisect reset -q >/dev/null 2>&1
	name=$(git log -1 --format=%s "$first" 2>/dev/null)
	[ "$first" = "$(git rev-parse n6)" ] && right=$((right + 1))
	summary="$summary seed $seed: ${name:-none} ($(cat "$T/count.$seed") boots);"
done
diag "noisy bisect (10% step, CoV 5%):$summary"
ok "noisy bisect names commit 6 in $right of 10 seeded runs (at least 9)" test "$right" -ge 9
ok "the logs say which test decided each step" sh -c "cat '$T'/noisy.*.log | grep -q \"verdict: BAD (decided by Welch's t-test against the good endpoint)\""
ok "... and what bootbench judge saw (means, n, p, position)" grep -Eq 'look after [0-9]+ boots: bootbench judge .*: (good|bad): this [0-9.]+ \(n=[0-9]+\), good [0-9.]+ \(n=[0-9]+, p=' "$T/noisy.1.log"
ok "the endpoints were measured once each, in a worktree" test "$(grep -c 'measuring the .* endpoint' "$T/noisy.1.log")" = 2
git checkout -q n3
NB="SEED=1 NOISE_COUNTER=$T/count.x sh \"\$KERNEL_DIR/kernel.sh\" >\"\$CONSOLE_LOG\""
"$TOP/scripts/bisect-run" --metric syn.op_us@ramdisk --build-cmd 'sh build.sh' --boot-cmd "$NB" --good n1 --bad n10 \
	--samples "$T/samples.1" --log "$T/x.log" >/dev/null 2>&1
is "$?" 125 "noisy mode: a broken build is skip (125), the only skip"
git checkout -q n4
"$TOP/scripts/bisect-run" --metric syn.op_us@ramdisk --build-cmd 'sh build.sh' --boot-cmd "$NB" --good n1 --bad n2 \
	--budget 4 --endpoint-runs 3 --endpoint-budget 4 --samples "$T/samples.alike" --log "$T/alike.log" >/dev/null 2>"$T/alike.err"
rc=$?
ok "endpoints that do not differ within their budget do not stop the bisect: taken as given, the step answers ($rc)" \
	sh -c "[ $rc = 0 ] || [ $rc = 1 ]"
ok "... and the log says so, and gives the answer's error at the budget" \
	sh -c "grep -q 'the endpoints do not differ significantly in syn.op_us@ramdisk after 4 boots each .*: taken as given' '$T/alike.log' &&
		grep -Eq 'verdict: (BAD|good) \(undecided after 4 boots, the budget: nearer the (bad|good) endpoint, position [-0-9.]+; one-sided p against the midpoint: [0-9.e-]+\)' '$T/alike.log'"
[ "$_failed" = 0 ] || sed 's/^/# alike: /' "$T/alike.log" "$T/alike.err"
# bootbench judge by itself: known samples, hostile files
printf '100\n101\n99\n100\n' >"$T/jg"; printf '110\n111\n109\n110\n' >"$T/jb"; printf '110.5\n109.5\n110\n' >"$T/jt"
"$BB" judge --good "$T/jg" --bad "$T/jb" --this "$T/jt" --alpha 0.01 >"$T/j.out" 2>&1
is "$?" 1 "judge: samples at the bad endpoint's mean are bad (exit 1)"
"$BB" judge --good "$T/jg" --bad "$T/jb" --this "$T/jg" --alpha 0.01 >/dev/null 2>&1
is "$?" 0 "judge: samples at the good endpoint's mean are good (exit 0)"
printf '104\n106\n105\n' >"$T/jm"
"$BB" judge --good "$T/jg" --bad "$T/jb" --this "$T/jm" --alpha 0.01 >/dev/null 2>&1
is "$?" 3 "judge: samples half way between are undecided (exit 3), neither good nor bad"
printf '100\nNaN\n' >"$T/jn"
"$BB" judge --good "$T/jn" --bad "$T/jb" --this "$T/jt" >/dev/null 2>"$T/j.err"
is "$?" 100 "judge: a sample that is not a finite number is bad input (100)"
"$BB" judge --good "$T/nonexistent" --bad "$T/jb" --this "$T/jt" >/dev/null 2>&1
is "$?" 111 "judge: an unreadable file is a system failure (111)"
"$BB" judge --good "$T/jg" --bad "$T/jg" --this "$T/jt" >/dev/null 2>&1
is "$?" 4 "judge: one endpoint twice is endpoints-alike (4)"
[ "$_failed" = 0 ] || { for f in "$T"/noisy.*.log; do diag "$f:"; tail -n 30 "$f" | sed 's/^/# /'; done; cat "$T/alike.err"; }
done_testing
