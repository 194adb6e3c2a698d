#!/usr/bin/env bash
# timeout: 900
# PostgreSQL in QEMU on the generic and rt kernels (issue 19): a boot that
# carries the PostgreSQL layer (boot-qemu --layer postgresql) runs pgbench
# on an ext3 ramdisk, TPC-B-like and select-only, pgimport and dbt2: initdb as the userland's
# postgres user, the server started and stopped per run, figures with
# units; a server that refuses a setting fails that run with PostgreSQL's
# own message and the next workload runs; the boot record names the layer.
# Then compare puts rt beside generic.
. "$(dirname "$0")/lib.sh"
jqe() { jq -e "$@" >/dev/null; }
KS=${KERNELS:-"debian-6.1-generic debian-6.1-rt"}
[ -x "$BB" ] && [ -f "$B/userland.cpio.gz" ] && [ -f "$B/postgresql.cpio.gz" ] || skip_all "not built (run make)"
set -- $KS
N=7
plan $(($# * N + 1))
cat > "$T/pg.plan" <<'P'
plan pg-test
requires layer=postgresql
timeout 240
layout ramdisk-ext3 ramdisk=256M fs=ext3
workload pgbench duration=5 warmup=1 clients=2
workload pgbench mode=select duration=3 warmup=0 clients=2
workload pgbench shared_buffers=64TB duration=1 warmup=0
workload null
workload pgimport rows=1000 txn=100
workload dbt2 warehouses=1 customers=30 items=300 clients=2 duration=5 warmup=1
P
"$BB" plan check "$T/pg.plan" >/dev/null || { for i in $(seq 1 $(($# * N + 1))); do fail "the test plan does not parse"; done; exit 1; }
booted=
for k in $KS; do
	if ! need_kernel "$k"; then for i in $(seq 1 $N); do skip "$k not fetched"; done; continue; fi
	img=$T/$k.img
	"$BB" mkresults "$img" --size 64M --plan "$T/pg.plan" >/dev/null 2>&1
	boot "$k" "$T/$k.log" --results "$img" --layer postgresql --memory 1024 --timeout 600; rc=$?
	is "$rc" 0 "$k: the PostgreSQL plan boots with the layer, runs and powers off"
	"$BB" collect "$img" 2>/dev/null > "$T/$k.all"
	jq -c 'select(.type == "run") | .data' "$T/$k.all" > "$T/$k.runs"
	jq -c '{w: .workload, p: .params.mode, s: .status, r: .reason, m: [.metrics[] | "\(.name)=\(.value)"], set: .details.settings}' "$T/$k.runs" |
		cut -c1-400 | sed "s/^/# $k: /"
	is "$(jq -r '.status' "$T/$k.runs" | tr '\n' ' ')" "ok ok failed ok ok ok " "$k: six runs; only the refused setting failed, the next ran"
	all_true "$T/$k.runs" 'select(.workload == "pgbench" and .status == "ok") | ([.metrics[] | select(
		(.name == "tps" and .unit == "tx/s" and .value > 0) or ((.name | test("^latency_(mean|p50|p99)_ms$")) and .unit == "ms")
		or (.name == "init_s" and .unit == "s"))] | length == 5) and .details.settings.shared_buffers == "32MB"
		and .details.transactions == .details.latency_samples' &&
		pass "$k: tpcb and select: tps, latencies and init time with units, the settings read back" ||
		fail "$k: tpcb and select: tps, latencies and init time with units, the settings read back"
	ok "$k: the refused setting: PostgreSQL's own message in the reason" \
		jqe -s 'map(select(.status == "failed"))[0].reason | test("FATAL: +invalid value for parameter \"shared_buffers\"")' "$T/$k.runs"
	ok "$k: pgimport: psql's and the server's times per step, the rows and 10 indexes read back" \
		jqe -s 'map(select(.workload == "pgimport"))[0] | .details.rows.order_lines == 1000 and .details.indexes == 10
			and ([.metrics[] | select(.unit == "s")] | length == 10)' "$T/$k.runs"
	ok "$k: dbt2: new-order tpm, new-order's and payment's p90/p99, consistency 1-7 holds, the run names the layer's build" \
		jqe -s 'map(select(.workload == "dbt2"))[0] | ([.metrics[] | select((.name == "new_order_tpm" and .unit == "tx/min"
			and .value > 0) or ((.name | test("^(new_order|payment)_p(90|99)_ms$")) and .unit == "ms"))] | length == 5)
			and (.details.consistency | length == 7 and all(. == 0))
			and (.details.software.postgresql | startswith("postgresql-15 "))' "$T/$k.runs"
	ok "$k: the boot record names the postgresql layer" \
		jqe -s 'map(select(.type == "boot"))[0].data.layers.postgresql.package == "postgresql-15"' "$T/$k.all"
	booted="$booted $k"
	cat "$T/$k.all" >> "$T/both.jsonl"
done
set -- $booted
if [ $# -lt 2 ]; then
	skip "fewer than two kernels booted"
	done_testing
fi
"$BB" compare "$T/both.jsonl" > "$T/cmp" 2>&1
sed 's/^/# /' "$T/cmp" | grep -i 'vs\|tps\|latency' | head -12
ok "compare puts rt beside generic for pgbench's tps (both modes) and dbt2's new-order tpm" \
	sh -c "[ \$(grep -c 'pgbench.*tps' '$T/cmp') -ge 2 ] && grep -q 'dbt2.*new_order_tpm' '$T/cmp'"
done_testing
