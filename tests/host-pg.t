#!/usr/bin/env bash
# The PostgreSQL workloads (pgbench, pgimport, dbt2) as the appliance runs them: the userland with the
# PostgreSQL layer on top, in a chroot of the test's own (nothing of the
# host's PostgreSQL or libraries reachable), bootbench run pgbench as PID 1
# would: initdb as the userland's postgres user, the server on a socket,
# pgbench -i and a measured run. Figures carry units and directions, the
# settings in force are read back, a server that refuses a setting fails
# the run with PostgreSQL's own message, bad values are refused before
# anything starts, and a run killed by its watchdog leaves its data
# directory and shared memory behind only until the next run sweeps them.
. "$(dirname "$0")/lib.sh"
S=$B/userland-stage PGS=$B/postgresql-stage
[ -x "$S/bin/bootbench" ] && [ -x "$PGS/opt/postgresql/bin/postgres" ] || skip_all "userland or postgresql layer not built (run make)"
[ "$(id -u)" = 0 ] && command -v unshare >/dev/null || skip_all "needs root and unshare"
plan 22
R=$T/root
mkdir -p "$R" && cp -a "$S/." "$R/" && cp -a "$PGS/." "$R/"
mkdir -p "$R/w" && chmod 755 "$R/w"
# run NAME ARGS...: bootbench run pgbench in the chroot, JSON to $T/NAME
# (WORKLOAD=pgimport run NAME ARGS...: another workload)
run() {
	local name=$1; shift
	rootfs/chroot-run "$R" 'chroot "$R" /bin/bootbench run "$@"' "${WORKLOAD:-pgbench}" --dir /w --timeout 120 "$@" \
		> "$T/$name" 2> "$T/$name.err"
	jq -c '.data | {status, reason, m: [.metrics[]? | "\(.name)=\(.value) \(.unit) \(.better)"], d: .details}' "$T/$name" 2>/dev/null |
		cut -c1-600 | sed "s/^/# $name: /"
}
jqe() { jq -e "$@" >/dev/null; }
run tpcb duration=3 warmup=1 clients=2 shared_buffers=16MB
ok "tpcb: tps, latency mean/p50/p99 and init_s, each with its unit and direction" \
	jqe '.data.status == "ok" and ([.data.metrics[] | select(
		(.name == "tps" and .unit == "tx/s" and .better == "higher" and .value > 0) or
		(.name == "init_s" and .unit == "s" and .better == "lower") or
		((.name | test("^latency_(mean|p50|p99)_ms$")) and .unit == "ms" and .better == "lower" and .value > 0))] | length == 5)
		and ([.data.metrics[] | select(.name == "latency_p50_ms") | .value][0] <= [.data.metrics[] | select(.name == "latency_p99_ms") | .value][0])' "$T/tpcb"
ok "... the settings in force read back from the server (shared_buffers 16MB as asked, PostgreSQL 15)" \
	jqe '.data.details.settings.shared_buffers == "16MB" and (.data.details.settings.server_version | startswith("15.")) and .data.details.mode == "tpcb"' "$T/tpcb"
ok "... every transaction in the latency log, none failed" \
	jqe '.data.details.transactions == .data.details.latency_samples and .data.details.transactions > 0 and .data.details.failed_transactions == 0' "$T/tpcb"
run select duration=2 warmup=0 mode=select clients=3
ok "select-only: a run with its own figures" jqe '.data.status == "ok" and .data.details.mode == "select" and ([.data.metrics[] | select(.name == "tps" and .value > 0)] | length == 1)' "$T/select"
# the transaction log is in /tmp (RAM in the appliance): bounded by a sample
run sampled duration=2 warmup=1 mode=select clients=2 log_lines=200
ok "log_lines=200: the warmup's rate sets a sampling rate, the log holds a sample of at most twice that" \
	jqe '.data.status == "ok" and .data.details.latency_sampling_rate < 1 and .data.details.latency_samples > 0
		and .data.details.latency_samples <= 400 and .data.details.latency_samples < .data.details.transactions' "$T/sampled"
run refused duration=1 warmup=0 shared_buffers=64TB
ok "a setting the server refuses: a failed run with PostgreSQL's own message" \
	jqe '.data.status == "failed" and (.data.reason | test("^the server did not start: .*FATAL: +invalid value for parameter \"shared_buffers\": \"64TB\""))' "$T/refused"
run badvalue 'shared_buffers=1;x'
is "$(jq -r .data.reason "$T/badvalue")" 'shared_buffers="1;x": a value of letters, digits and . _ - (at most 64)' \
	"a value that is not a plain word is refused before anything starts"
run nolayer bindir=/nonexistent
is "$(jq -r .data.reason "$T/nolayer")" "unable to execute /nonexistent/postgres (No such file or directory)" "no PostgreSQL where bindir says: said"
run asroot user=root
is "$(jq -r .data.reason "$T/asroot")" "user=root: root or root's group: PostgreSQL refuses root" "user=root: refused"
run many clients=30
is "$(jq -r .data.reason "$T/many")" "clients=30: max_connections=20 leaves room for 17" "more clients than the server takes: refused before it starts"
# killed by the watchdog mid-run: its postmaster dies with it (bootbench
# runas: SIGKILL when the workload dies), its files and its SysV shared
# memory stay until the next run on the layout sweeps them
# (the segments of uid 70: the chroot's postgres, in the host's IPC namespace)
shm70() { awk 'NR > 1 && $8 == 70' /proc/sysvipc/shm | wc -l; }
before=$(shm70)
# both in one PID namespace: postmaster.pid's pid is the killed server's there
rootfs/chroot-run "$R" '
	T=$1
	chroot "$R" /bin/bootbench run pgbench --dir /w --timeout 5 duration=60 warmup=0 > "$T/killed" 2>/dev/null || :
	ls -A "$R/w/postgresql" > "$T/killed.left"
	ls -d "$R"/tmp/bootbench-pg.* > "$T/killed.tmp" 2>/dev/null || :
	awk "NR > 1 && \$8 == 70" /proc/sysvipc/shm > "$T/killed.shm"
	chroot "$R" /bin/bootbench run pgbench --dir /w --timeout 120 duration=1 warmup=0 > "$T/after" 2>/dev/null
	ls -d "$R"/tmp/bootbench-pg.* > "$T/after.tmp" 2>/dev/null || :
	ps -eo uid= | grep -cx " *70" > "$T/after.procs" || :' "$T"
left=$(wc -l < "$T/killed.left") shm=$(( $(wc -l < "$T/killed.shm") - before ))
jq -c '.data | {status, reason, warnings}' "$T/killed" "$T/after" | sed 's/^/# killed, then: /'
is "$(jq -r .data.status "$T/killed"):$left:$(wc -l < "$T/killed.tmp")" "timeout:1:1" \
	"a run killed at its timeout leaves its run directory, its /tmp directory (and $shm shared memory segments)"
ok "the next run sweeps it: its warning says so, no run or /tmp directory, no process and no segment of the user's are left" \
	sh -c "jq -e '.data.status == \"ok\" and ([.data.warnings[] | select(test(\"^swept run\\\\.\"))] | length == 1)' '$T/after' >/dev/null &&
		[ ! -s '$T/after.tmp' ] && [ \"\$(cat '$T/after.procs')\" = 0 ] &&
		[ \$(ls -A '$R/w/postgresql' | wc -l) = 0 ] && [ \$(awk 'NR > 1 && \$8 == 70' /proc/sysvipc/shm | wc -l) -le $before ]"

# pgimport: `time psql < schema.sql; time psql < data.sql`, dbload's text
WORKLOAD=pgimport run import rows=3000 txn=100
ok "pgimport: real, user, sys of psql and the server's CPU for each step, in s, lower is better" \
	jqe '.data.status == "ok" and ([.data.metrics[] | select(.unit == "s" and .better == "lower" and .value >= 0
		and (.name | test("^(schema|data)_(real|user|sys|server_user|server_sys)_s$")))] | length == 10)
		and ([.data.metrics[] | select(.name == "data_real_s")][0].value > 0)' "$T/import"
rootfs/chroot-run "$R" 'chroot "$R" /bin/bootbench run dbload --dir /w rows=3000 txn=100 emit_sql=/w/dbload.sql' > /dev/null 2>&1
want=$(for t in customers items orders order_lines; do printf '%s=%s ' $t "$(grep -c "^INSERT INTO $t " "$R/w/dbload.sql")"; done)
got=$(jq -r '.data.details.rows | "customers=\(.customers) items=\(.items) orders=\(.orders) order_lines=\(.order_lines) "' "$T/import")
is "$got" "$want" "... the rows read back with psql are the rows of dbload's text for the same seed"
is "$(jq -r '.data.details | "\(.indexes) \(.schema_bytes + 8 + .data_bytes)"' "$T/import")" "10 $(stat -c %s "$R/w/dbload.sql")" \
	"... 10 indexes read back (4 primary keys, 1 unique, 5 secondary), and the very bytes dbload emits (schema, '-- data', data)"
WORKLOAD=pgimport run import0 rows=300 txn=0 seed=7
ok "txn=0 (every INSERT its own transaction, as a plain data.sql) imports too" \
	jqe '.data.status == "ok" and .data.details.rows.order_lines == 300' "$T/import0"
WORKLOAD=pgimport run badrows rows=0
is "$(jq -r .data.reason "$T/badrows")" "rows=0: expected 1..100000000" "rows=0: refused before a server starts"

# dbt2: the TPC-C-like mix from pgbench clients, then TPC-C's consistency checks
WORKLOAD=dbt2 run dbt2 warehouses=2 customers=50 items=500 clients=3 duration=3 warmup=1
ok "dbt2: new-order tpm (tx/min), the mix's tps, p90 and p99 of each of the five transactions (ms, lower)" \
	jqe '.data.status == "ok" and ([.data.metrics[] | select(
		(.name == "new_order_tpm" and .unit == "tx/min" and .better == "higher" and .value > 0) or
		(.name == "tps" and .unit == "tx/s" and .better == "higher" and .value > 0) or
		(.name == "load_s" and .unit == "s") or
		((.name | test("^(new_order|payment|order_status|delivery|stock_level)_p(90|99)_ms$")) and .unit == "ms"
			and .better == "lower" and .value > 0))] | length == 13)' "$T/dbt2"
# (few transactions on a loaded machine: a 4% type may not come up at all)
ok "... the mix's weights (45:43:4:4:4): new-order and payment ran and are most of it, every transaction logged, none failed for good" \
	jqe '.data.details as $d | ($d.latency_samples | add) as $all | $d.latency_samples.new_order > 0 and $d.latency_samples.payment > 0
		and $all == $d.transactions and ($d.latency_samples.new_order + $d.latency_samples.payment) >= 0.7 * $all
		and $d.failed_transactions == 0' "$T/dbt2"
ok "... TPC-C's consistency conditions 1-7 hold after the run (no row breaks one); sizes and memory recorded" \
	jqe '(.data.details.consistency | length == 7 and all(. == 0)) and .data.details.db_bytes >= .data.details.db_bytes_loaded
		and .data.details.mem_available_bytes > 0 and (.data.details.fits_in_memory | type == "boolean")' "$T/dbt2"
WORKLOAD=dbt2 run dbt2bad warehouses=0
is "$(jq -r .data.reason "$T/dbt2bad")" "warehouses=0 customers=300 items=10000: expected 1..10000, 10..3000, 100..100000" \
	"warehouses=0: refused before a server starts"
WORKLOAD=dbt2 run dbt2lines log_lines=20000000
is "$(jq -r .data.reason "$T/dbt2lines")" "log_lines=20000000: expected 100..10000000" "log_lines past 10 M: refused (the log is in /tmp)"
done_testing
