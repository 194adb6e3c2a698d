#!/usr/bin/env bash
# The database workloads on the host: dbload's generated SQL is a function of
# its seed alone, its import lands the schema and every row (read back with
# Debian's sqlite3), and a short oltp run reports its figures and passes the
# TPC-C consistency checks.
. "$(dirname "$0")/lib.sh"
[ -x "$BB" ] || skip_all "not built (run make)"
# The database workloads are always built in (the Makefile links SQLite
# unconditionally), so their absence is a failure, not a reason to skip.
plan 15
ok "bootbench lists the dbload and oltp workloads" sh -c '"$1" run --list | grep -q "^dbload " && "$1" run --list | grep -q "^oltp "' sh "$BB"
mkdir -p "$T/d"
sum() { sha256sum "$1" | cut -d' ' -f1; }
jqok() { jq -e "$@" >/dev/null; }

"$BB" run dbload --dir "$T/d" --rows 3000 --seed 7 --emit_sql "$T/a.sql" > "$T/e1"
"$BB" run dbload --dir "$T/d" --rows 3000 --seed 7 --emit_sql "$T/b.sql" > /dev/null
"$BB" run dbload --dir "$T/d" --rows 3000 --seed 8 --emit_sql "$T/c.sql" > /dev/null
is "$(sum "$T/a.sql")" "$(sum "$T/b.sql")" "same seed: identical SQL text"
ok "another seed: different SQL text" test "$(sum "$T/a.sql")" != "$(sum "$T/c.sql")"
is "$(jq -r .data.details.sql_bytes "$T/e1")" "$(stat -c %s "$T/a.sql")" "emit_sql records the size it wrote"
is "$(ls -A "$T/d")" "" "emit_sql touches nothing in DIR"

"$BB" run dbload --dir "$T/d" --rows 3000 --seed 7 --txn 500 --keep 1 > "$T/load"; rc=$?
is "$rc" 0 "dbload runs"
is "$(jq -r '[.data.metrics[] | "\(.name) \(.unit) \(.better)"] | join(",")' "$T/load")" \
	"schema_s s lower,import_s s lower,import_user_s s lower,import_sys_s s lower,rows_per_s rows/s higher" \
	"dbload figures with units and directions"
db=$T/d/bootbench-dbload.db
if command -v sqlite3 >/dev/null; then
	is "$(sqlite3 "$db" "SELECT group_concat(name, ' ') FROM (SELECT name FROM sqlite_schema ORDER BY type DESC, name)")" \
		"customers items order_lines orders customers_city items_title order_lines_item orders_customer orders_status sqlite_autoindex_items_1 sqlite_autoindex_order_lines_1" \
		"the schema: four tables and their indexes"
	is "$(sqlite3 "$db" 'SELECT count(*) FROM order_lines')" 3000 "every order line imported"
	is "$(sqlite3 "$db" 'SELECT (SELECT count(*) FROM customers) || " " || (SELECT count(*) FROM items) || " " || (SELECT count(*) FROM orders)')" \
		"$(jq -r '.data.details.rows | "\(.customers) \(.items) \(.orders)"' "$T/load")" "row counts agree with the workload's"
	# the emitted text imports to the same rows with Debian's engine
	sqlite3 "$T/cli.db" < "$T/a.sql" > /dev/null
	is "$(sqlite3 "$T/cli.db" 'SELECT sum(qty * price_cents) FROM order_lines')" \
		"$(sqlite3 "$db" 'SELECT sum(qty * price_cents) FROM order_lines')" "the emitted SQL gives the same data via sqlite3"
else
	for i in 1 2 3 4; do skip "sqlite3 CLI missing (scripts/install-deps)"; done
fi
"$BB" run dbload --dir "$T/d" --rows 10 --journal fast > "$T/bad" 2>/dev/null
is "$(jq -r .data.reason "$T/bad")" 'parameter journal="fast" is not one of delete, truncate, wal, off' "a bad journal mode fails with a reason"

"$BB" run oltp --dir "$T/d" --duration 3 --warmup 1 --drop_cache 0 > "$T/oltp"; rc=$?
is "$rc" 0 "oltp runs"
ok "oltp figures with units and directions" jqok '[.data.metrics[] | {(.name): "\(.unit) \(.better)"}] | add
	| .new_order_tpm == "tx/min higher" and .busy_retries == "count lower"
	and ([to_entries[] | select(.key | test("_p(50|90|99)_ms$"))] | length == 15 and all(.value == "ms lower"))
	and (.new_order_p99_ms != null)' "$T/oltp"
ok "consistency checks reported ok" jqok '.data.details.checks | length == 4 and all(. == "ok")' "$T/oltp"
done_testing
