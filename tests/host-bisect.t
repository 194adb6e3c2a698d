#!/usr/bin/env bash
# scripts/bisect-run under a real `git bisect run`, on a tiny synthetic git
# repository whose "kernel" is a shell script printing one run record, so no
# kernel is built: commit 6 of 10 raises the figure from ~100 us to ~130 us,
# commit 3 breaks the build and commit 4 repairs it. Checks that bisect names
# commit 6, that a broken build is answered with skip (125), that the
# median of several boots decides, that a higher-is-better figure flips the
# comparison, and that the step log records what was measured.
. "$(dirname "$0")/lib.sh"
command -v git >/dev/null || skip_all "git not installed"
[ -x "$BB" ] || skip_all "not built (run make)"
plan 11

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
for i in 1 2 3 4 5 6 7 8 9 10; do
	[ "$i" -ge 6 ] && echo 130 >cost || echo 100 >cost
	[ "$i" = 3 ] && touch broken
	[ "$i" = 4 ] && rm -f broken
	echo "$i" >version
	git add -A && git commit -q -m "commit $i"
	git tag "c$i"
done

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
done_testing
