#!/usr/bin/env bash
# Deterministic mode (QEMU instruction counting): 3 boots each of the generic
# and rt kernels, interleaved, light plan. Every ramdisk-layout figure (touch's fsync loop: 3%) repeats
# within 2% (CoV) on each kernel, fork/exec within 0.1%, and compare marks the
# fork/exec figure as a significant difference between the kernels with only
# 3 boots each. The boots are profiled (docs/why.md): the three boots of
# one kernel give the same profile for fork/exec in the large (the pooled
# leaders in every boot's top 5, shares within 12 points); functions only the rt kernel has (its
# rt_mutex-based spinlocks) appear in rt's profiles and never in generic's,
# and compare --why names them.
. "$(dirname "$0")/lib.sh"
A=${KERNEL_A:-debian-6.1-generic} Bk=${KERNEL_B:-debian-6.1-rt}
[ -x "$BB" ] && [ -f "$B/userland.cpio.gz" ] || skip_all "not built (run make)"
need_kernel "$A" && need_kernel "$Bk" || skip_all "$A or $Bk not fetched (make kernels)"
plan 11
img=$T/det.img
rcs=
for k in $A $Bk $Bk $A $A $Bk; do
	boot "$k" "$T/$k.$RANDOM.log" --deterministic --results "$img" --plan light --memory 512 --profile
	rcs="$rcs$?"
done
is "$rcs" 000000 "six deterministic boots (A B B A A B)"
"$BB" compare "$img" --csv > "$T/det.csv"
"$BB" compare "$img" | sed 's/^/# /'
is "$(awk -F, 'NR > 1 {print $1}' "$T/det.csv" | sort -u)" deterministic "the figures are labelled deterministic"
# Every ramdisk figure, fork/exec included, is held to 2%, and fork/exec
# to 0.1% below. (fork/exec was the one that leaked host timing, 1.4-1.7%
# under load, until boot-qemu --deterministic added norandmaps:
# docs/determinism.md.) 1% was too tight for touch's write_fsync (100
# fsyncs a run): docs/determinism.md measured it at 1.2-1.3% CoV in
# deterministic boots, and two CI runs of 2026-12-02 failed at 1.42% and
# 1.29% (generic), one passed at 0.24%.
# touch's write_fsync was the exception (100 fsyncs a run: CI measured
# 1.29%, 1.42%, 5.5% and 3.4% CoV, 2026-12-02 to 12-04): its loop meets
# timers whose phase moves with the results disk's virtio writes between
# runs (host I/O, outside the instruction count). 1000 fsyncs a run spread
# that fixed cost thinner (docs/determinism.md: 3.4% -> 0.7% spread over 8
# runs); it is held to 3% for now, the others to 2%.
worst=$(awk -F, 'NR > 1 && $23 == "figure" && $3 == "ramdisk-ext2" && $10 >= 2 && $5 != "write_fsync" { c = $13 * 100; if (c > m) { m = c; w = $8 "/" $5 } } END { printf "%.3f%% (%s)", m, w }' "$T/det.csv")
fs=$(awk -F, 'NR > 1 && $23 == "figure" && $3 == "ramdisk-ext2" && $5 == "write_fsync" { c = $13 * 100; if (c > m) m = c } END { printf "%.3f", m }' "$T/det.csv")
# Each awk check fails when no row matches: an empty table is no evidence.
ok "every ramdisk-layout figure but write_fsync has CoV below 2% (worst $worst), write_fsync below 3% (${fs}%)" \
	awk -F, 'NR > 1 && $23 == "figure" && $3 == "ramdisk-ext2" && $10 >= 2 { n++; if ($13 >= ($5 == "write_fsync" ? 0.03 : 0.02)) bad = 1 } END { exit bad || !n }' "$T/det.csv"
fe=$(awk -F, 'NR > 1 && $3 == "ramdisk-ext2" && $5 == "forkexec_us" { c = $13 * 100; if (c > m) m = c } END { printf "%.3f", m }' "$T/det.csv")
ok "fork/exec CoV below 0.1% on both kernels (worst ${fe}%)" \
	awk -F, 'NR > 1 && $3 == "ramdisk-ext2" && $5 == "forkexec_us" { n++; if ($13 >= 0.001) bad = 1 } END { exit bad || !n }' "$T/det.csv"
is "$(awk -F, 'NR > 1 && $5 == "forkexec_us" && $9 == "0" && $3 == "ramdisk-ext2" {print $17}' "$T/det.csv")" 1 \
	"fork/exec: generic vs rt marked significant with 3 boots each"
ok "fork/exec p-value below 0.01" awk -F, 'NR > 1 && $5 == "forkexec_us" && $9 == "0" && $3 == "ramdisk-ext2" { n++; if (!($16 < 0.01)) bad = 1 } END { exit bad || !n }' "$T/det.csv"
# --- the profiles ---
# A tick-sampled profile is a sample: deterministic execution repeats the
# figures to 0.1%, but where the 250 Hz tick lands within the loop still
# varies from boot to boot. Under instruction counting the tick is periodic
# in instructions and so is the fork/exec loop, so samples can alias: one
# boot in CI (stop 27) put 27 of 156 samples in copy_page_range where the
# other two put 9 and 5, a spread no binomial test of homogeneity accepts
# (p ~ 2e-5). What must hold, and what a reader of --why relies on, is that
# the boots show the same profile in the large: the two leading functions
# of the three boots pooled are among each boot's top 5, and no top-5
# function's share in any boot is more than 12 points from its pooled share
# (binomial noise alone is ~3.7 points for a 30% share of 155 samples;
# the aliasing above moved one share by 8.5).
"$BB" collect "$img" 2>/dev/null | jq -s -c '(map(select(.type == "boot")) | map({key: .boot_id, value: .data.kernel.release}) | from_entries) as $k
	| .[] | select(.type == "run" and .data.status == "ok") | .data + {release: $k[.boot_id], boot: .boot_id}' > "$T/runs"
relA=$(jq -r 'select(.release | test("-rt-") | not) | .release' "$T/runs" | sort -u | head -n 1)
relB=$(jq -r 'select(.release | test("-rt-")) | .release' "$T/runs" | sort -u | head -n 1)
same=1 worst= why=
for L in ramdisk-ext2 tmpfs; do
	sel="select(.release == \"$relA\" and .workload == \"forkexec\" and .layout.name == \"$L\")"
	# per boot: function share (%) for every function it sampled
	jq -s -r "map($sel) | to_entries[] | .key as \$b | .value.profile as \$p
		| \$p.functions[] | \"\(\$b) \(.name) \(.samples) \(\$p.samples)\"" "$T/runs" > "$T/prof.$L"
	res=$(awk '{ s[$1, $2] = $3; tot[$1] = $4; c[$2] += $3; N += ($1 in seen) ? 0 : $4; seen[$1] = 1; nb = ($1 + 1 > nb) ? $1 + 1 : nb }
		END {
			n = 0; for (f in c) { fn[++n] = f }
			# pooled order: by total samples
			for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (c[fn[j]] > c[fn[i]]) { t = fn[i]; fn[i] = fn[j]; fn[j] = t }
			# no evidence is no pass: three boots, five functions at least
			if (nb != 3 || n < 5) { printf "0 nan none"; exit }
			ok = 1; far = 0
			for (i = 1; i <= 5 && i <= n; i++) {
				P = 100 * c[fn[i]] / N
				for (b = 0; b < nb; b++) { d = 100 * s[b, fn[i]] / tot[b] - P; if (d < 0) d = -d; if (d > far) far = d }
			}
			for (i = 1; i <= 2 && i <= n; i++)
				for (b = 0; b < nb; b++) {
					# rank of fn[i] in boot b
					r = 1; for (f in c) if (s[b, f] > s[b, fn[i]]) r++
					if (r > 5 || !s[b, fn[i]]) ok = 0
				}
			printf "%d %.1f %s,%s", ok, far, fn[1], fn[2]
		}' "$T/prof.$L")
	set -- $res
	[ "$1" = 1 ] || { same=0; why="$why $L: $3 not in every boot's top 5;"; }
	worst=$(awk -v a="$worst" -v b="$2" 'BEGIN { print (b == "nan" || a == "nan") ? "nan" : (a == "" || b + 0 > a + 0) ? b : a }')
	diag "fork/exec on $L, $relA: pooled leaders $3; largest share difference from the pooled profile $2 points"
done
ok "three deterministic boots of $relA: the pooled two leading kernel functions for fork/exec are in every boot's top 5 on both layouts$why" test "$same" = 1
ok "... and every pooled top-5 function's share is within 12 points of its pooled share in each boot (largest $worst)" \
	awk -v p="$worst" 'BEGIN { exit !(p != "" && p != "nan" && p + 0 <= 12) }'
# functions of PREEMPT_RT's sleeping spinlocks (rt_mutex_* exists in every kernel; these only in rt)
rtre='^(rt_spin_|rt_read_|rt_write_|rtlock_)'
rtfns=$(jq -r "select(.release == \"$relB\") | .profile.functions[].name | select(test(\"$rtre\"))" "$T/runs" | sort | uniq -c | sort -rn | awk '{print $2}' | head -n 5 | tr '\n' ' ')
ok "rt-only functions (PREEMPT_RT's spinlocks) are in rt's profiles: $rtfns" test -n "$rtfns"
nA=$(jq -r "select(.release == \"$relA\") | .profile.functions[].name" "$T/runs" | sort -u | wc -l)
ok "... and never in generic's ($nA functions sampled there)" \
	sh -c "[ $nA -gt 20 ] && [ \$(jq -r 'select(.release == \"$relA\") | .profile.functions[].name | select(test(\"$rtre\"))' '$T/runs' | wc -l) = 0 ]"
"$BB" compare "$img" --why forkexec@ramdisk-ext2 > "$T/why"
sed 's/^/# /' "$T/why" | head -n 40
ok "compare --why forkexec@ramdisk-ext2 names the rt-only functions as sampled only on rt" \
	grep -Eq '^   sampled only on [^:]*rt[^:]*:.* (rt_spin_|rt_read_|rt_write_|rtlock_)' "$T/why"
done_testing
