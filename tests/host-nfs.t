#!/usr/bin/env bash
# nfsmix against a hostile NFS server, on the host: the server is
# tests/fixtures/fake-nfsd.py in a network namespace of the test's own
# (unshare -n: it binds port 111 there, never on the host), well-behaved
# while nfsmix builds its file set, then as the mode says for the measured
# load. Every bad reply is a counted failure in an INVALID step with its
# first failure named; the run always ends, within its steps and timeouts.
# One call alone, closed loop (mix=getattr|read loads=closed): that call
# only, as fast as answers come. And nfsmix refuses bad parameters before
# it sends anything.
. "$(dirname "$0")/lib.sh"
jqe() { jq -e "$@" >/dev/null; }
[ -x "$BB" ] || skip_all "not built (run make)"
[ "$(id -u)" = 0 ] && command -v unshare >/dev/null && command -v ip >/dev/null || skip_all "needs root, unshare and ip"
unshare -n true 2>/dev/null || skip_all "unshare -n is not permitted here"
PY=$(command -v /usr/bin/python3 || command -v python3)
[ -n "$PY" ] || skip_all "python3 missing (scripts/install-deps installs it)"
plan 19
cat > "$T/run.sh" <<'SH'
mode=$1 out=$2; shift 2
ip link set lo up
"$PY" "$TOP/tests/fixtures/fake-nfsd.py" "$mode" > "$out.ready" 2>"$out.err" &
pid=$!
for i in $(seq 100); do grep -q ready "$out.ready" 2>/dev/null && break; sleep 0.1; done
"$BB" run nfsmix --server 127.0.0.1:/export "$@" > "$out" 2>"$out.log"
echo $? > "$out.rc"
kill $pid 2>/dev/null
SH
run() { PY=$PY TOP=$TOP BB=$BB unshare -n bash "$T/run.sh" "$@"; }
args="loads=50,100 step=1 warmup=0 files=8 timeout_ms=300"
for m in good garbage silent wrongxid huge dead idleclose; do
	case $m in idleclose) a="loads=50,100 step=2 warmup=1 files=8 timeout_ms=300" ;; *) a=$args ;; esac
	t0=$(date +%s)
	run $m "$T/$m.json" --timeout 120 $a
	echo $(( $(date +%s) - t0 )) > "$T/$m.secs"
	jq -c '.data.details.steps[] | {requested_ops, achieved_ops, status, sent, failed, timeouts, malformed, first_error}' "$T/$m.json" 2>/dev/null | sed "s/^/# $m: /"
done
for m in getattr read; do
	run good "$T/closed-$m.json" --timeout 60 mix=$m loads=closed procs=1 inflight=1 step=1 warmup=0 files=8
	jq -c '.data.details.steps[] | {requested_ops, achieved_ops, status, sent, ops}' "$T/closed-$m.json" 2>/dev/null | sed "s/^/# closed $m: /"
done
ok "mix=getattr loads=closed: one valid step of GETATTRs only, with closed_ figures" \
	jqe '.data.status == "ok" and (.data.details.steps | length == 1) and (.data.details.steps[0].ops | keys == ["getattr"])
		and .data.details.steps[0].status == "valid" and ([.data.metrics[] | select(.name == "closed_ops" and .value > 0 and .unit == "ops/s")] | length == 1)
		and ([.data.metrics[] | select(.name == "closed_resp_ms" and .unit == "ms" and .better == "lower")] | length == 1)' "$T/closed-getattr.json"
ok "mix=read loads=closed: READs only, nothing counted as not issued (closed loop)" \
	jqe '.data.status == "ok" and (.data.details.steps[0].ops | keys == ["read"]) and .data.details.steps[0].not_issued == 0' "$T/closed-read.json"
ok "a well-behaved server: both steps valid, achieved = requested" \
	jqe '.data.status == "ok" and ([.data.details.steps[] | .status == "valid" and .achieved_ops >= 0.9 * .requested_ops] | all)' "$T/good.json"
ok "... and the readback is not claimed for a server that is not the appliance's" \
	jqe '.data.details.readback | startswith("not checked")' "$T/good.json"
ok "replies cut short: every step INVALID, the failures counted as malformed replies" \
	jqe '.data.status == "ok" and ([.data.details.steps[] | .status == "INVALID" and .malformed > 0 and (.first_error | test("malformed reply"))] | all)' "$T/garbage.json"
ok "... its figures are marked invalid in the record" \
	jqe '[.data.metrics[] | select(.name | test("^load")) | .invalid == true] | length > 0 and all' "$T/garbage.json"
ok "no answers: every step INVALID with timeouts, and the run ended" \
	jqe '.data.status == "ok" and ([.data.details.steps[] | .status == "INVALID" and .timeouts > 0 and (.first_error | test("timed out"))] | all)' "$T/silent.json"
ok "answers under other xids: never matched to a call (counted as stray, and the calls time out)" \
	jqe '[.data.details.steps[] | .status == "INVALID" and .stray > 0 and .timeouts > 0] | all' "$T/wrongxid.json"
ok "a record claiming 2 GiB: the connection is dropped, not read; the step says so and the rest are not run" \
	jqe '[.data.details.steps[] | .status] == ["INVALID", "INVALID"] and (.data.details.steps[0].first_error | test("connection")) and (.data.details.steps[1].first_error | test("not run"))' "$T/huge.json"
ok "one warning names every INVALID step with its failed share and first failure" \
	jqe '[.data.warnings[] | select(test("^2 of 2 load steps INVALID.*load 50 \\([0-9.]+%, [a-z]+: malformed reply\\), load 100 "))] | length == 1' "$T/garbage.json"
ok "a server that stops answering altogether: the figures are recorded, cleanup is cut short ($(cat "$T/dead.secs") s, the watchdog at 120)" \
	sh -c "jq -e '.data.status == \"ok\" and ([.data.details.steps[] | .status] | all(. == \"INVALID\"))' '$T/dead.json' >/dev/null && [ \$(cat '$T/dead.secs') -lt 60 ]"
ok "a server that closes quiet connections: the run is not killed by SIGPIPE, its steps are valid" \
	jqe '.data.status == "ok" and ([.data.details.steps[] | .status == "valid"] | all)' "$T/idleclose.json"
# refused before anything is sent (no server at all)
bad() { "$BB" run nfsmix --dir "$T" "$@" 2>/dev/null | jq -r '.data.reason'; }
is "$(bad loads=300,200)" 'loads="300,200": steps must rise (200 after 300)' "loads must rise"
is "$(bad mix=write)" 'mix="write": expected sfs, getattr or read' "a mix that is not one is refused"
is "$(bad loads=closed,100)" 'loads="closed,100": "closed" is not a whole number of ops/s (or loads=closed, alone)' "closed is a step of its own"
is "$(bad loads=0)" 'loads="0": "0" is out of range (1..10000000 ops/s)' "a load of 0 ops/s is not the closed loop"
is "$(bad server=nfs.example:/x)" 'server="nfs.example:/x": nfs.example is not an IPv4 address (names are not resolved)' "a server by name is refused"
is "$(bad xfer=64K transport=udp)" "xfer=65536 out of range (512..32768 over udp)" "a UDP transfer over 32 KiB is refused"
# in a namespace of its own: the host may run an rpcbind on 111
cat > "$T/local.sh" <<'SH'
ip link set lo up
"$BB" run nfsmix --dir "$1" server=local 2>/dev/null | jq -r '.data.reason'
SH
is "$(BB=$BB unshare -n bash "$T/local.sh" "$T" | head -c 60)" "unable to connect to 127.0.0.1:111 (tcp): Connection refused" \
	"server=local with no portmapper: says where it looked"
done_testing
