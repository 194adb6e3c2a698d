#!/usr/bin/env bash
# Network workloads on the host, over loopback only: our HTTP server answers
# correctly (checked with a raw socket, not with our own client), the http
# workload counts what it gets right and wrong (keep-alive on and off, ours and
# busybox httpd), a server killed mid-run ends the run quickly with failures
# counted, and tcpbw moves every byte and reports figures with units and
# directions. Figures themselves are not judged here: see scripts/bench-net.
. "$(dirname "$0")/lib.sh"
[ -x "$BB" ] || skip_all "not built (run make)"
command -v jq >/dev/null || skip_all "jq missing (scripts/install-deps)"
PY=$(command -v python3) || skip_all "python3 missing (scripts/install-deps)"
plan 33

pids=
cleanup() { for p in $pids; do kill "$p" 2>/dev/null; done; [ -n "${KEEP:-}" ] || rm -rf "$T"; }
trap cleanup EXIT

# serve NAME SIZE: start `bootbench serve http` on an ephemeral port; sets
# PORT and SPID (the server's own PID, so it can be killed alone).
serve() {
	"$BB" serve http --port 0 --size "$2" >"$T/$1.out" 2>"$T/$1.err" &
	SPID=$!
	pids="$pids $SPID"
	for _ in $(seq 50); do
		PORT=$(sed -n 's|^serving .* at http://127.0.0.1:\([0-9]*\)/doc$|\1|p' "$T/$1.out")
		[ -n "$PORT" ] && return 0
		sleep 0.1
	done
	return 1
}
# m FILE NAME: a metric's value; mu FILE NAME: its "unit better"
m() { jq -r --arg n "$2" '.data.metrics[] | select(.name == $n) | .value' "$1"; }
mu() { jq -r --arg n "$2" '.data.metrics[] | select(.name == $n) | "\(.unit) \(.better)"' "$1"; }
d() { jq -r ".data.details.$2" "$1"; }
jqt() { jq -e "$@" >/dev/null; }

# --- the serve command
"$BB" serve --help >"$T/help"; rc=$?
ok "serve --help: exit 0 and usage text" sh -c "[ $rc = 0 ] && grep -q '^usage: bootbench serve http' '$T/help'"
"$BB" serve http --bind localhost 2>/dev/null; is "$?" 100 "serve refuses an address that is not numeric IPv4"
"$BB" serve http --port 70000 2>/dev/null; is "$?" 100 "serve refuses a port out of range"
"$BB" serve ftp 2>/dev/null; is "$?" 100 "serve knows only http"

SIZE=12345
if ! serve s1 $SIZE; then
	fail "serve http starts and prints its port"; diag "$(cat "$T/s1.err")"
	done_testing
fi
pass "serve http starts and prints its port ($PORT)"
S1=$SPID

# --- raw socket checks: our server, not judged by our own client
raw() { # raw PORT MODE: prints "status body_len connection" per response
	"$PY" - "$@" <<'PY'
import socket, sys
port, mode = int(sys.argv[1]), sys.argv[2]
s = socket.create_connection(("127.0.0.1", port), timeout=5)
def get(path, extra=""):
    s.sendall(("GET %s HTTP/1.0\r\nHost: x\r\n%s\r\n" % (path, extra)).encode())
    buf = b""
    while b"\r\n\r\n" not in buf:
        c = s.recv(65536)
        if not c: break
        buf += c
    head, _, body = buf.partition(b"\r\n\r\n")
    lines = head.decode().split("\r\n")
    hdr = {k.lower(): v.strip() for k, _, v in (l.partition(":") for l in lines[1:])}
    n = int(hdr.get("content-length", "-1"))
    while len(body) < n:
        c = s.recv(65536)
        if not c: break
        body += c
    if hdr.get("connection", "").lower() != "keep-alive":
        while True:   # the rest until the server closes: nothing may follow
            c = s.recv(65536)
            if not c: break
            body += c
    print(lines[0].split()[1], len(body), hdr.get("connection"), n)
if mode == "close":
    get("/doc")
elif mode == "keepalive":
    get("/doc", "Connection: keep-alive\r\n"); get("/doc", "Connection: keep-alive\r\n"); get("/doc")
elif mode == "404":
    get("/nothing")
PY
}
is "$(raw "$PORT" close)" "200 $SIZE close $SIZE" "raw GET: 200, Content-Length $SIZE, exactly $SIZE body bytes, then close"
is "$(raw "$PORT" keepalive | tr '\n' ';')" "200 $SIZE keep-alive $SIZE;200 $SIZE keep-alive $SIZE;200 $SIZE close $SIZE;" \
	"raw keep-alive: two answers on one connection, closed after the third (no keep-alive asked)"
is "$(raw "$PORT" 404)" "404 10 close 10" "raw GET of another path: 404"

# --- http workload against the external server (url=)
"$BB" run http --url "127.0.0.1:$PORT" --size $SIZE --requests 200 --concurrency 3 >"$T/u0"; rc=$?
is "$rc.$(m "$T/u0" failed_requests).$(d "$T/u0" requests_ok)" "0.0.200" "http url=: 200 requests ok, none failed"
"$BB" run http --url "http://127.0.0.1:$PORT/doc" --size 100 --requests 50 >"$T/len"
is "$(m "$T/len" failed_requests).$(d "$T/len" failures.length)" "50.50" "a body of the wrong size is a failure (length), every time"
"$BB" run http --url "127.0.0.1:$PORT/missing" --size $SIZE --requests 20 >"$T/st"
is "$(d "$T/st" failures.status)" "20" "a 404 is a failure (status)"

# --- http workload with its own server
"$BB" run http --requests 500 --size 4096 --keepalive 0 >"$T/k0"; rc=$?
is "$rc.$(jq -r .data.status "$T/k0").$(m "$T/k0" failed_requests)" "0.ok.0" "http keepalive=0 against ours: ok, no failures"
is "$(d "$T/k0" connections).$(d "$T/k0" keepalive_requests)" "500.0" "... one connection per request"
"$BB" run http --requests 500 --size 4096 --keepalive 1 --concurrency 2 >"$T/k1"; rc=$?
is "$rc.$(m "$T/k1" failed_requests)" "0.0" "http keepalive=1 against ours: ok, no failures"
is "$(d "$T/k1" connections).$(d "$T/k1" keepalive_requests)" "2.498" "... two connections carry all 500 requests"
is "$(jq -r '[.data.metrics[] | "\(.name):\(.unit):\(.better)"] | join(" ")' "$T/k1")" \
	"requests_per_s:req/s:higher transfer_rate:KiB/s:higher failed_requests:count:lower time_per_request_ms:ms:lower time_per_request_all_ms:ms:lower p50:ms:lower p66:ms:lower p75:ms:lower p80:ms:lower p90:ms:lower p95:ms:lower p98:ms:lower p99:ms:lower p100:ms:lower$(for p in connect processing waiting total; do for s in min mean sd median max; do printf ' %s_%s_ms:ms:lower' $p $s; done; done) client_cpu_pct:%:lower server_cpu_s:s:lower" \
	"http figures: ab's set (Connection Times included), with units and directions"
ok "... percentiles are ordered (p50 <= p90 <= p100)" \
	jqt '[.data.metrics[] | {(.name): .value}] | add | .p50 <= .p90 and .p90 <= .p100' "$T/k1"
ok "... Connection Times hold together: min <= median <= max each, total = connect + processing, waiting within processing" \
	jqt '[.data.metrics[] | {(.name): .value}] | add | . as $m
		| (["connect","processing","waiting","total"] | all(. as $p | $m["\($p)_min_ms"] <= $m["\($p)_median_ms"] and $m["\($p)_median_ms"] <= $m["\($p)_max_ms"]))
		and (($m.total_mean_ms - $m.connect_mean_ms - $m.processing_mean_ms) | fabs < 0.001)
		and $m.waiting_mean_ms <= $m.processing_mean_ms + 0.001 and (($m.total_max_ms - $m.p100) | fabs < 0.001)
		and ($m.time_per_request_all_ms * 2 - $m.time_per_request_ms | fabs < 0.001)' "$T/k1"
"$BB" run http --requests 10 --server apache >"$T/bad" 2>/dev/null; rc=$?
is "$rc.$(jq -r .data.reason "$T/bad")" '1.server="apache": ours or busybox' "an unknown server fails the run with a reason"
"$BB" run http --requests 10 --keepalive 2 >"$T/bad" 2>/dev/null
is "$(jq -r .data.reason "$T/bad")" "keepalive=2: 0 or 1" "keepalive other than 0 or 1 fails the run"

# --- busybox httpd (forks per connection, always closes)
if [ -x /bin/busybox ] || command -v busybox >/dev/null; then
	"$BB" run http --server busybox --requests 300 --size $SIZE >"$T/b0"; rc=$?
	is "$rc.$(m "$T/b0" failed_requests).$(d "$T/b0" connections)" "0.0.300" "http against busybox httpd: ok, no failures"
	"$BB" run http --server busybox --requests 300 --size $SIZE --keepalive 1 >"$T/b1"; rc=$?
	is "$rc.$(m "$T/b1" failed_requests).$(d "$T/b1" keepalive_requests)" "0.0.0" "busybox with keepalive=1: ok, no request reused a connection"
	is "$(d "$T/b1" keepalive_fallback)" "the server closed every connection: each request used a new one" \
		"... and the fallback is recorded"
	ok "busybox leaves no document directory behind" sh -c "! ls -d '${TMPDIR:-/tmp}'/bootbench-http.* 2>/dev/null | grep -q ."
else
	for i in 1 2 3 4; do skip "no busybox on this host (scripts/install-deps installs it)"; done
fi

# --- a server killed mid-run: failures counted, the run ends quickly
if serve s2 51200; then
	S2=$SPID
	t0=$(date +%s.%N)
	"$BB" run http --url "127.0.0.1:$PORT" --size 51200 --requests 5000000 --timeout 60 >"$T/kill" 2>/dev/null &
	RPID=$!
	sleep 1
	kill "$S2"
	wait "$RPID"; rc=$?
	t1=$(date +%s.%N)
	is "$rc.$(jq -r .data.status "$T/kill")" "1.failed" "server killed mid-run: the run fails"
	ok "... with failed requests counted ($(m "$T/kill" failed_requests)) after answered ones ($(d "$T/kill" requests_ok))" \
		jqt '(.data.metrics[] | select(.name == "failed_requests") | .value) > 0 and .data.details.requests_ok > 0' "$T/kill"
	ok "... and a reason that says so: $(jq -r .data.reason "$T/kill")" \
		jqt '.data.reason | test("^stopped after 100 failures in a row \\(last: ")' "$T/kill"
	ok "... within seconds, not at its timeout ($(echo "$t1 - $t0" | bc 2>/dev/null || echo '?') s)" \
		jqt '.data.duration.value < 15' "$T/kill"
else
	fail "a second server starts"; for i in 1 2 3; do skip "no second server"; done
fi

kill -TERM "$S1"; wait "$S1"; rc=$?
is "$rc" 0 "serve stops on SIGTERM with exit 0"
ok "... and says what it served" grep -q '^bootbench: serve: [0-9]* connections, [0-9]* requests' "$T/s1.err"

# --- tcpbw
"$BB" run tcpbw --total 8M --msg 16K >"$T/bw"; rc=$?
is "$rc.$(jq -r .data.status "$T/bw").$(d "$T/bw" bytes)" "0.ok.8388608" "tcpbw moves every byte"
is "$(jq -r '[.data.metrics[] | "\(.name):\(.unit):\(.better)"] | join(" ")' "$T/bw")" \
	"bandwidth:MB/s:higher client_cpu_s:s:lower server_cpu_s:s:lower" "tcpbw figures with units and directions"
"$BB" run tcpbw --total 3000001 --msg 7000 --streams 3 >"$T/bw3"; rc=$?
is "$rc.$(d "$T/bw3" bytes)" "0.3000001" "tcpbw with 3 streams and an uneven split moves every byte"
done_testing
