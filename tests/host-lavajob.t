#!/usr/bin/env bash
# bootbench lava-job and scripts/lava-device without a boot: the job a
# results image rides along in (its QEMU options in the job's context, the
# appliance not told results=none), valid by LAVA's own job schema; the
# device dictionary that names its guest (SMBIOS serial) and keeps the
# options a job's context gives, rendered by lava-server's qemu.jinja2 as
# a server would; and what either refuses: a path or name that would be
# another QEMU option.
. "$(dirname "$0")/lib.sh"
[ -x "$BB" ] || skip_all "not built (run make)"
/usr/bin/python3 -c 'import lava_common.schemas, yaml, jinja2' 2>/dev/null ||
	skip_all "no lava_common (package lava-dispatcher; scripts/install-deps installs it)"
plan 11

# a build directory of stand-ins: lava-job only copies them
mkdir -p "$T/build/kernels/k"
for f in userland.cpio.gz userland-id.cpio.gz kernels/k/vmlinuz; do echo x >"$T/build/$f"; done
job() { "$BB" lava-job --kernel k --plan null --build "$T/build" "$@"; }
valid() {
	/usr/bin/python3 - "$1" <<'PY'
import sys, yaml
from lava_common.schemas import validate
validate(yaml.safe_load(open(sys.argv[1])), strict=True, extra_context_variables=[])
PY
}

job --out "$T/plain" >/dev/null 2>&1
ok "without --results-image: no QEMU options of ours, and the appliance told results=none" \
	sh -c "! grep -q extra_options '$T/plain/job.yaml' && grep -q 'bootbench.results=none' '$T/plain/job.yaml'"
job --out "$T/img" --results-image "$T/img/results.img" >/dev/null 2>&1
ok "--results-image: the drive and its serial in the job's context, results=none gone" \
	sh -c "grep -qx \"  - '-drive file=$T/img/results.img,format=raw,if=none,id=res,cache=writeback'\" '$T/img/job.yaml' &&
	       grep -qx \"  - '-device virtio-blk-pci,drive=res,serial=bootbench-results'\" '$T/img/job.yaml' &&
	       ! grep -q 'bootbench.results=none' '$T/img/job.yaml'"
out=$(valid "$T/img/job.yaml" 2>&1)
is "$?" 0 "LAVA's own schema (lava_common, strict) takes the job ${out:+($out)}"
bad=0
for p in "relative/results.img" "/tmp/a,b.img" "/tmp/a b.img" "/tmp/a'b.img" '/tmp/$x.img'; do
	job --out "$T/bad" --results-image "$p" >/dev/null 2>"$T/bad.err"
	[ $? = 100 ] && grep -q 'absolute path of letters' "$T/bad.err" && bad=$((bad + 1))
done
is "$bad" 5 "a relative path, or one with a comma, blank, quote or \$ (another QEMU option) is refused, exit 100"
job --out "$T/ipxe" --device ipxe --results-image "$T/ipxe/r.img" >/dev/null 2>"$T/ipxe.err"
rc1=$?
job --out "$T/none" --results-image "$T/none/r.img" --append bootbench.results=none >/dev/null 2>"$T/none.err"
rc2=$?
ok "--results-image with --device ipxe (a lab machine's disks are its own), or with bootbench.results= in --append, is refused" \
	sh -c "[ $rc1 = 100 ] && grep -q 'is for --device qemu' '$T/ipxe.err' && [ $rc2 = 100 ] && grep -q 'would not be written' '$T/none.err'"
job --out "$T/tag" --tag qemu-01 >/dev/null 2>&1
out=$(valid "$T/tag/job.yaml" 2>&1)
rc1=$?
job --out "$T/badtag" --tag 'a b' >/dev/null 2>&1
rc2=$?
ok "--tag pins the job to a device with that tag (valid by the schema${out:+: $out}); a tag with a blank is refused" \
	sh -c "[ $rc1 = 0 ] && grep -qx 'tags:' '$T/tag/job.yaml' && grep -qx -- '- qemu-01' '$T/tag/job.yaml' && [ $rc2 = 100 ]"

# the device dictionary: as a server renders it, with a job's context
"$TOP/scripts/lava-device" --jinja "$T/dev.jinja2" --name qemu-07 --deterministic >/dev/null 2>"$T/dev.err"
is "$?" 0 "lava-device --jinja --name writes a dictionary"
tpl=${BOOTBENCH_CACHE:-$HOME/.cache/bootbench}/lava/lava-server-2023.01-2/usr/share/lava-server/device-types
/usr/bin/python3 - "$tpl" "$T/dev.jinja2" "$T/img/job.yaml" >"$T/render" 2>&1 <<'PY'
import sys, yaml, jinja2
tpl, dev, job = sys.argv[1:4]
env = jinja2.Environment(loader=jinja2.FileSystemLoader([tpl]), autoescape=False, trim_blocks=True)
ctx = yaml.safe_load(open(job))["context"]
d = yaml.safe_load(env.from_string(open(dev).read()).render(**ctx))
print(d["actions"]["boot"]["methods"]["qemu"]["parameters"]["extra"])
PY
ok "rendered with the job's context: the job's drive first, then the device's own options and its name" \
	sh -c "grep -q \"^\\['-drive file=$T/img/results.img,.*serial=bootbench-results', '-accel tcg', .*'-icount shift=0,sleep=off'.*'-smbios type=1,serial=qemu-07'\\]$\" '$T/render'"
[ "$_failed" = 0 ] || sed 's/^/# /' "$T/render" "$T/dev.err"
"$TOP/scripts/lava-device" "$T/r.yaml" --results "$T/img/results.img" >/dev/null 2>&1
ok "a rendered dictionary (lava-run: no job context) attaches --results itself" \
	grep -q "extra: \\['-drive file=$T/img/results.img,format=raw" "$T/r.yaml"
bad=0
"$TOP/scripts/lava-device" "$T/x.yaml" --name 'a,b' >/dev/null 2>&1; [ $? = 100 ] && bad=$((bad + 1))
"$TOP/scripts/lava-device" "$T/x.yaml" --name 'a b' >/dev/null 2>&1; [ $? = 100 ] && bad=$((bad + 1))
"$TOP/scripts/lava-device" "$T/x.yaml" --results 'r.img' >/dev/null 2>&1; [ $? = 100 ] && bad=$((bad + 1))
"$TOP/scripts/lava-device" "$T/x.yaml" --results '/a,b' >/dev/null 2>&1; [ $? = 100 ] && bad=$((bad + 1))
is "$bad" 4 "lava-device refuses a name or image path with a comma or blank, or a relative path (exit 100)"
"$TOP/scripts/lava-device" --jinja "$T/y.jinja2" --results "$T/r.img" >/dev/null 2>"$T/y.err"
ok "--results with --jinja is refused: a server attaches it through the job's context" \
	sh -c "[ $? = 100 ] && grep -q 'the job.s context attaches it' '$T/y.err'"
done_testing
