#!/usr/bin/env bash
# Run identity in the appliance: one workload at two parameter sets gives
# two rows in compare; a scheduler the kernel lacks (bfq: a module nobody
# loads) is recorded as refused with what stayed in force, and compare shows
# it as refused, apart from the runs where mq-deadline held; a plan that sets
# no tunable still records the queue settings in force on every device.
# How QEMU entered the kernel is recorded too: PVH (the ELF image, the
# default for a kernel that has the entry point) or the bzImage. Two boots
# that differ only in memory are two columns, and compare --by memory.
. "$(dirname "$0")/lib.sh"
g=${KERNEL:-debian-6.1-generic} r=${KERNEL_RT:-debian-6.1-rt}
[ -x "$BB" ] && [ -f "$B/userland.cpio.gz" ] || skip_all "not built (run make)"
need_kernel "$g" && need_kernel "$r" || skip_all "$g or $r not fetched (make kernels)"
plan 21

printf 'plan ident\niterations 2\ntimeout 120\nlayout raw fs=ext2\ntunable scheduler mq-deadline bfq\nworkload tcpbw total=4M msg=64K\nworkload tcpbw total=4M msg=8K\n' > "$T/ident.plan"
"$BB" mkresults "$T/r.img" --size 8M --plan "$T/ident.plan" 2>/dev/null
rcs=
for k in "$g" "$r"; do
	boot "$k" "$T/$k.log" --results "$T/r.img" --scratch 1:64M
	rcs="$rcs$?"
done
is "$rcs" 00 "two boots ($g, $r) of a plan with tcpbw at msg=64K and msg=8K and scheduler mq-deadline/bfq"
"$BB" collect "$T/r.img" 2>/dev/null | jq -c 'select(.type=="run") | .data' > "$T/runs"
is "$(jq -r .status "$T/runs" | sort | uniq -c | awk '{print $1, $2}')" "16 ok" "16 runs, all ok"
ok "every run records the queue settings in force on its disk" \
	all_true "$T/runs" '[.tunables.in_force[] | has("scheduler") and has("read_ahead_kb") and has("nr_requests") and has("rotational") and has("write_cache") and has("max_sectors_kb")] | length == 1 and all'
ok "bfq is refused, recorded with what stayed in force and the kernel's reason" \
	all_true "$T/runs" 'select(.tunables.requested.scheduler=="bfq") | .tunables.refused | length == 1 and .[0].in_force == "mq-deadline" and (.[0].reason | test("refused scheduler=bfq"))'
ok "mq-deadline held: nothing refused, in force as asked" \
	all_true "$T/runs" 'select(.tunables.requested.scheduler=="mq-deadline") | (.tunables.refused | length == 0) and ([.tunables.in_force[].scheduler] == ["mq-deadline"])'
"$BB" compare "$T/r.img" > "$T/cmp" 2>"$T/cmp.err"; rc=$?
is "$rc" 0 "compare $g vs $r"
sed -n '/^== figures/,/^$/p' "$T/cmp" | sed 's/^/# /'
rows=$(sed -n '/^== figures/,/^$/p' "$T/cmp" | grep '^tcpbw \[' | grep -c ' bandwidth ')
is "$rows" 4 "tcpbw bandwidth: 2 parameter sets x 2 scheduler outcomes = 4 rows"
is "$(sed -n '/^== figures/,/^$/p' "$T/cmp" | grep '^tcpbw \[' | grep ' bandwidth ' | grep -c ' n=1 (2 runs[;)].* n=1 (2 runs[;)]')" 4 \
	"... each with 2 runs of one boot a kernel (never pooled; n counts boots)"
ok "rows are labelled with the message size" sh -c "grep -q '^tcpbw \[msg=64K ' '$T/cmp' && grep -q '^tcpbw \[msg=8K ' '$T/cmp'"
ok "the refused scheduler is shown as refused" grep -q '^tcpbw \[msg=64K scheduler=bfq(refused:vd[a-z]=mq-deadline)\]' "$T/cmp"

printf 'plan plain\ntimeout 120\nlayout raw fs=ext2\nworkload null\n' > "$T/plain.plan"
"$BB" mkresults "$T/p.img" --size 8M --plan "$T/plain.plan" 2>/dev/null
boot "$g" "$T/p.log" --results "$T/p.img" --scratch 1:64M --bzimage; rc=$?
is "$rc" 0 "a plan that sets no tunable (booted through the bzImage: --bzimage)"
"$BB" collect "$T/p.img" 2>/dev/null | jq -c 'select(.type=="run") | .data.tunables' > "$T/pt"
ok "... still records what was in force (virtio-blk's default scheduler none, read_ahead_kb, ...), requested nothing" \
	all_true "$T/pt" '(.requested == {}) and ([.in_force[]] | length == 1) and ([.in_force[].scheduler] == ["none"]) and ([.in_force[] | has("read_ahead_kb") and has("max_sectors_kb")] | all)'

# Two boots that differ only in memory (seed 004: "the difference may go
# away with smaller/larger memory"): the same plan, kernel and entry, 1024
# and 768 MiB. They are never pooled, and compare --by memory sets them
# side by side.
"$BB" mkresults "$T/m.img" --size 8M --plan "$T/plain.plan" 2>/dev/null
boot "$g" "$T/m.log" --results "$T/m.img" --scratch 1:64M --bzimage --memory 768; rc=$?
is "$rc" 0 "the plain plan again, at --memory 768"
"$BB" compare "$T/p.img" "$T/m.img" --summary > "$T/mk" 2>&1
ok "by kernel: two columns, the second named by its memory alone" \
	grep -Eq '^[0-9.]+ generic, (704|768) MiB vs [0-9.]+ generic: ' "$T/mk" || sed 's/^/# /' "$T/mk"
diag "$(grep ' vs ' "$T/mk" | head -1)"
"$BB" compare "$T/p.img" "$T/m.img" --by memory --summary > "$T/mm" 2>&1
ok "--by memory: MemTotal's values side by side, the first read the baseline" \
	grep -Eq '^(704|768) MiB vs (960|1024) MiB: [0-9]+ figures' "$T/mm" || sed 's/^/# /' "$T/mm"
diag "$(grep ' MiB vs ' "$T/mm" | head -1)"

"$BB" collect "$T/r.img" 2>/dev/null | jq -c 'select(.type=="boot") | .data' > "$T/boots"
ok "the two boots entered through PVH (CONFIG_PVH: the ELF image, no decompressor), and say so" \
	all_true "$T/boots" '.qemu.entry == "pvh" and (.cmdline | test("bootbench.entry=pvh"))'
"$BB" collect "$T/p.img" 2>/dev/null | jq -c 'select(.type=="boot") | .data' > "$T/pboot"
ok "--bzimage: entered through the bzImage, and says so" \
	all_true "$T/pboot" '.qemu.entry == "bzimage" and (.cmdline | test("bootbench.entry=bzimage"))'
ok "the ELF image is kept beside vmlinuz, named by its sha256, and only that one" \
	test "$(cd "$B/kernels/$g" && ls -A | grep pvh)" = "pvh-$(sha256sum < "$B/kernels/$g/vmlinuz" | cut -d' ' -f1).elf"

# A vmlinuz that is no bzImage with a PVH note (here: not a kernel at all,
# then a bzImage header over a payload that is not an ELF) falls back to
# -kernel vmlinuz, and the command line says bzimage.
fb=$T/fakebuild
mkdir -p "$fb/kernels/fake"
ln -s "$B/userland.cpio.gz" "$B/userland-id.cpio.gz" "$B/bootbench" "$fb/"
head -c 4096 /dev/urandom > "$fb/kernels/fake/vmlinuz"
cmd=$(BOOTBENCH_BUILD=$fb "$TOP/scripts/boot-qemu" fake --accel tcg --workdir "$T/fw" --print-cmd 2>&1)
ok "not a bzImage: -kernel vmlinuz, bootbench.entry=bzimage" \
	sh -c 'case "$1" in *"-kernel $2/kernels/fake/vmlinuz "*bootbench.entry=bzimage*) exit 0 ;; *) echo "# $1"; exit 1 ;; esac' - "$cmd" "$fb"
{ head -c 514 /dev/zero; printf HdrS; head -c 8192 /dev/zero; } > "$fb/kernels/fake/vmlinuz"
printf '\x01' | dd of="$fb/kernels/fake/vmlinuz" bs=1 seek=497 conv=notrunc 2>/dev/null
printf '\x00\x00\x00\x00\x00\x10\x00\x00' | dd of="$fb/kernels/fake/vmlinuz" bs=1 seek=584 conv=notrunc 2>/dev/null
cmd=$(BOOTBENCH_BUILD=$fb "$TOP/scripts/boot-qemu" fake --accel tcg --workdir "$T/fw" --print-cmd 2>&1)
ok "a bzImage whose payload is no compressed ELF: -kernel vmlinuz, nothing kept" \
	sh -c 'case "$1" in *"-kernel $2/kernels/fake/vmlinuz "*bootbench.entry=bzimage*) ! ls -A "$2/kernels/fake" | grep -q pvh ;; *) echo "# $1"; exit 1 ;; esac' - "$cmd" "$fb"
# An xz payload that is cut short: the decompressor fails, nothing is kept.
v=$B/kernels/$g/vmlinuz
setup=$(od -An -tu1 -j 497 -N1 "$v" | tr -d ' '); off=$(od -An -tu4 -j 584 -N4 "$v" | tr -d ' ')
len=$(od -An -tu4 -j 588 -N4 "$v" | tr -d ' ')
head -c $(( (setup + 1) * 512 + off + len / 2 )) "$v" > "$fb/kernels/fake/vmlinuz"
head -c $(( len / 2 + 4096 )) /dev/zero >> "$fb/kernels/fake/vmlinuz"
pend=$(( (setup + 1) * 512 + off + len - 4 ))	# the image size recorded after the payload, kept
dd if="$v" of="$fb/kernels/fake/vmlinuz" bs=1 skip=$pend seek=$pend count=4 conv=notrunc 2>/dev/null
cmd=$(BOOTBENCH_BUILD=$fb "$TOP/scripts/boot-qemu" fake --accel tcg --workdir "$T/fw" --print-cmd 2>&1)
ok "half an xz payload: the bzImage is booted, no partial image kept, and it says why" \
	sh -c 'case "$1" in *"unable to unpack its ELF image"*"-kernel $2/kernels/fake/vmlinuz "*bootbench.entry=bzimage*) ! ls -A "$2/kernels/fake" | grep -q pvh ;; *) echo "# $1"; exit 1 ;; esac' - "$cmd" "$fb"
done_testing
