#!/usr/bin/env bash
# bootbench lava-job and scripts/lava-device without a boot: the job a
# results image rides along in (named in the job's context as
# bootbench_results, the appliance not told results=none), valid by LAVA's
# own job schema where the server allows that variable; the device
# dictionary that names its guest (SMBIOS serial) and attaches that image,
# rendered by lava-server's qemu.jinja2 in LAVA's sandbox as a server
# would, taking no other QEMU option from a job; and what either refuses:
# a path or name that would be another QEMU option.
. "$(dirname "$0")/lib.sh"
[ -x "$BB" ] || skip_all "not built (run make)"
/usr/bin/python3 -c 'import lava_common.schemas, yaml, jinja2' 2>/dev/null ||
	skip_all "no lava_common (package lava-dispatcher; scripts/install-deps installs it)"
plan 12

# a build directory of stand-ins: lava-job only copies them
mkdir -p "$T/build/kernels/k"
for f in userland.cpio.gz userland-id.cpio.gz kernels/k/vmlinuz; do echo x >"$T/build/$f"; done
job() { "$BB" lava-job --kernel k --plan null --build "$T/build" "$@"; }
valid() {
	/usr/bin/python3 - "$@" <<'PY'
import sys, yaml
from lava_common.schemas import validate
validate(yaml.safe_load(open(sys.argv[1])), strict=True, extra_context_variables=sys.argv[2:])
PY
}

job --out "$T/plain" >/dev/null 2>&1
ok "without --results-image: no QEMU options of ours, and the appliance told results=none" \
	sh -c "! grep -q extra_options '$T/plain/job.yaml' && grep -q 'bootbench.results=none' '$T/plain/job.yaml'"
job --out "$T/img" --results-image "$T/img/results.img" >/dev/null 2>&1
ok "--results-image: the image named in the job's context (bootbench_results), results=none gone" \
	sh -c "grep -qx \"  bootbench_results: '$T/img/results.img'\" '$T/img/job.yaml' && ! grep -q 'extra_options' '$T/img/job.yaml' &&
	       ! grep -q 'bootbench.results=none' '$T/img/job.yaml'"
out=$(valid "$T/img/job.yaml" bootbench_results 2>&1)
rc=$?
valid "$T/img/job.yaml" >/dev/null 2>&1
ok "LAVA's own schema (lava_common, strict) takes the job where the server allows bootbench_results, and only there ${out:+($out)}" \
	sh -c "[ $rc = 0 ] && [ $? != 0 ]"
bad=0
for p in "relative/results.img" "/tmp/a,b/results.img" "/tmp/a b/results.img" "/tmp/a'b/results.img" '/tmp/$x/results.img' /etc/shadow \
	/tmp/../etc/results.img; do
	job --out "$T/bad" --results-image "$p" >/dev/null 2>"$T/bad.err"
	[ $? = 100 ] && grep -q 'absolute path of letters' "$T/bad.err" && bad=$((bad + 1))
done
is "$bad" 7 "a relative path, one with a comma, blank, quote, \$ (another QEMU option) or .., or not to a results.img, is refused, exit 100"
job --out "$T/ipxe" --device ipxe --results-image "$T/ipxe/results.img" >/dev/null 2>"$T/ipxe.err"
rc1=$?
job --out "$T/none" --results-image "$T/none/results.img" --append bootbench.results=none >/dev/null 2>"$T/none.err"
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
# render DICT CONTEXT-JSON: the qemu extra options, as lava-server renders
# a device dictionary with a job's context (jinja2's sandbox)
render() {
	/usr/bin/python3 - "$tpl" "$1" "$2" 2>&1 <<'PY'
import json, sys, yaml, jinja2.sandbox
tpl, dev, ctx = sys.argv[1:4]
env = jinja2.sandbox.SandboxedEnvironment(loader=jinja2.FileSystemLoader([tpl]), autoescape=False, trim_blocks=True)
d = yaml.safe_load(env.from_string(open(dev).read()).render(**json.loads(ctx)))
q = d["actions"]["boot"]["methods"]["qemu"]["parameters"]
print(q["extra"])
print("options", q["options"])
PY
}
ctx=$(/usr/bin/python3 -c 'import sys, yaml, json; print(json.dumps(yaml.safe_load(open(sys.argv[1]))["context"]))' "$T/img/job.yaml")
render "$T/dev.jinja2" "$ctx" | head -n 1 >"$T/render"
ok "rendered with the job's context: the device's own options, its name, then the job's results disk" \
	grep -q "^\['-accel tcg', .*'-icount shift=0,sleep=off'.*'-smbios type=1,serial=qemu-07', '-drive file=$T/img/results.img,format=raw,if=none,id=res,cache=writeback', '-device virtio-blk-pci,drive=res,serial=bootbench-results'\]$" "$T/render"
[ "$_failed" = 0 ] || sed 's/^/# /' "$T/render" "$T/dev.err"
# what a hostile job's context may try: none of it reaches QEMU
took=0
for c in '{"extra_options": ["-virtfs local,path=/,mount_tag=r,security_model=passthrough"]}' \
	'{"monitor": "none -virtfs local,path=/"}' '{"model": "model=virtio -drive file=/etc/shadow"}' \
	'{"mac_addr": "1 -virtfs x"}' '{"vga": "-virtfs x"}' '{"serial": "-virtfs x"}' \
	'{"bootbench_results": "/etc/shadow"}' '{"bootbench_results": "/x,readonly=off/results.img"}' \
	'{"bootbench_results": "/tmp/../etc/results.img"}' \
	'{"bootbench_results": "/x/results.img -virtfs"}' '{"bootbench_results": ["/x/results.img"]}'; do
	render "$T/dev.jinja2" "$c" | grep -Eq 'virtfs|shadow|-drive' && took=$((took + 1))
done
is "$took" 0 "a job's extra_options, monitor, model, mac_addr, vga or serial, or a bootbench_results not a plain absolute path to a results.img, reach no QEMU option"
"$TOP/scripts/lava-device" "$T/r.yaml" --results "$T/img/results.img" >/dev/null 2>&1
ok "a rendered dictionary (lava-run: no job context) attaches --results itself" \
	grep -q "extra: \\['-accel tcg', .*'-drive file=$T/img/results.img,format=raw" "$T/r.yaml"
bad=0
"$TOP/scripts/lava-device" "$T/x.yaml" --name 'a,b' >/dev/null 2>&1; [ $? = 100 ] && bad=$((bad + 1))
"$TOP/scripts/lava-device" "$T/x.yaml" --name 'a b' >/dev/null 2>&1; [ $? = 100 ] && bad=$((bad + 1))
"$TOP/scripts/lava-device" "$T/x.yaml" --results 'r/results.img' >/dev/null 2>&1; [ $? = 100 ] && bad=$((bad + 1))
"$TOP/scripts/lava-device" "$T/x.yaml" --results '/a,b/results.img' >/dev/null 2>&1; [ $? = 100 ] && bad=$((bad + 1))
"$TOP/scripts/lava-device" "$T/x.yaml" --results '/a/b.img' >/dev/null 2>&1; [ $? = 100 ] && bad=$((bad + 1))
is "$bad" 5 "lava-device refuses a name or image path with a comma or blank, a relative path, or one not to a results.img (exit 100)"
"$TOP/scripts/lava-device" --jinja "$T/y.jinja2" --results "$T/x/results.img" >/dev/null 2>"$T/y.err"
ok "--results with --jinja is refused: a server attaches it through the job's context" \
	sh -c "[ $? = 100 ] && grep -q 'the job.s context attaches it' '$T/y.err'"
done_testing
