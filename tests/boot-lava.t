#!/usr/bin/env bash
# LAVA for real: `bootbench lava-job` writes a job for the light plan on one
# kernel, scripts/lava-device renders a QEMU device dictionary from
# lava-server's own qemu.jinja2, and Debian's lava-dispatcher runs the job
# locally with lava-run. The job must pass, and LAVA's results must hold one
# test case per figure the appliance printed, with the same measurement (to
# the 6 significant digits of the signal) and unit.
. "$(dirname "$0")/lib.sh"
k=${KERNEL:-debian-6.1-cloud}
[ -x "$BB" ] && [ -f "$B/userland.cpio.gz" ] || skip_all "not built (run make)"
need_kernel "$k" || skip_all "$k not fetched (make kernels)"
command -v lava-run >/dev/null || skip_all "no lava-run (package lava-dispatcher; scripts/install-deps installs it)"
plan 6

"$TOP/scripts/lava-device" "$T/device.yaml" >/dev/null 2>"$T/device.err"
ok "scripts/lava-device renders a qemu device dictionary" grep -q 'qemu-system-x86_64' "$T/device.yaml"
"$BB" lava-job --kernel "$k" --plan light --out "$T/job" >/dev/null
ok "bootbench lava-job writes job.yaml, vmlinuz and initrd.img" \
	test -s "$T/job/job.yaml" -a -s "$T/job/vmlinuz" -a -s "$T/job/initrd.img"
# lava-run keeps its work under /var/lib/lava/dispatcher/tmp/JOB-ID
id=$((900000 + $$ % 99999))
timeout -k 10 900 lava-run --job-id "$id" --output-dir "$T/out" --device "$T/device.yaml" "$T/job/job.yaml" \
	>"$T/lava.log" 2>&1
is "$?" 0 "lava-run completes the job"

/usr/bin/python3 - "$T/lava.log" >"$T/check.out" 2>&1 <<'PY'
import json, re, sys, yaml
cases, figures, job = [], [], None
for line in open(sys.argv[1]):
    line = line.strip()
    if not line.startswith("{"):
        continue
    try:
        e = json.loads(line)
    except ValueError:
        e = yaml.safe_load(line)
    msg = e.get("msg")
    if e.get("lvl") == "results" and isinstance(msg, dict):
        if msg.get("definition") == "bootbench":
            cases.append(msg)
        if msg.get("definition") == "lava" and msg.get("case") == "job":
            job = msg.get("result")
    elif e.get("lvl") == "target" and isinstance(msg, str) and msg.startswith("BOOTBENCH {"):
        rec = json.loads(msg[len("BOOTBENCH "):].replace('\\"', '"'))
        if rec["type"] == "run" and rec["data"]["status"] == "ok":
            d = rec["data"]
            for m in d["metrics"]:
                cid = re.sub(r"\W+", "_", ("%s.%s.%s" % (d["workload"], d["layout"]["name"], m["name"])).lower())
                figures.append((cid, "%.6g" % m["value"], m["unit"]))
print("job", job)
print("figures", len(figures), "cases", len(cases))
got = sorted((c["case"], "%.6g" % float(c["measurement"]), c["units"]) for c in cases if c.get("measurement") is not None)
want = sorted(figures)
print("same", got == want and len(want) > 0)
for g, w in zip(got, want):
    if g != w:
        print("first difference: lava", g, "console", w)
        break
print("allpass", all(c["result"] == "pass" for c in cases))
PY
is "$(sed -n 's/^job //p' "$T/check.out")" pass "LAVA's job result is pass"
ok "one LAVA test case per figure, with the console's measurement and unit ($(sed -n 's/^figures //p' "$T/check.out"))" \
	grep -q '^same True' "$T/check.out"
ok "every test case passed (every run was ok)" grep -q '^allpass True' "$T/check.out"
[ "$_failed" = 0 ] || { sed 's/^/# /' "$T/check.out"; grep -E '"lvl": "(error|warning)"' "$T/lava.log" | head -10 | sed 's/^/# /'; }
done_testing
