/*
 * dbt2.c - a TPC-C-like OLTP mix on PostgreSQL, as OSDL's DBT-2 ran it:
 * C client connections (pgbench, libpq's own driver, one process thread
 * each) running the five TPC-C transactions as weighted scripts against
 * a server started on the layout for the run (pg.c): new-order 45,
 * payment 43, order-status 4, delivery 4, stock-level 4.
 *
 * Why pgbench drives it and not DBT-2's own driver: Debian ships no
 * DBT-2, and pgbench is PostgreSQL's own libpq load generator with
 * weighted scripts (-f FILE@WEIGHT), per-script reports, a per-transaction
 * log with the script's number, and retries of deadlocks and
 * serialization failures (--max-tries). The transactions are PL/pgSQL
 * functions written here after the TPC-C specification's profiles (the
 * specification is public; no DBT-2 code is used), one call per script,
 * so a transaction is one round trip as DBT-2's stored-procedure mode
 * made it. Stock rows a new-order touches are locked in item order, so
 * concurrent new-orders do not deadlock.
 *
 * Scaled down for a boot: `warehouses` of 10 districts, `customers` per
 * district (TPC-C: 3000) and `items` (TPC-C: 100,000). The load is made
 * by the server itself (INSERT ... SELECT generate_series) and timed
 * (load_s); then VACUUM ANALYZE and a CHECKPOINT, the warmup and the
 * measured run. Figures: new_order_tpm (new-orders a minute: TPC-C's
 * tpmC), tps of the mix, and p90 and p99 latency per transaction type.
 * Customers and items by TPC-C's NURand. After the run, TPC-C's
 * consistency conditions 1-7 are checked with psql; a violation fails the
 * run. Where this differs from TPC-C: docs/postgresql.md.
 *
 * Cached or not is the data against the memory: details has the
 * database's size after the load and after the run, MemTotal and
 * MemAvailable once loaded (page cache the data could have), and
 * `fits_in_memory` (the database after the run against MemAvailable). A non-cached run is one booted
 * with less memory than its data (boot-qemu --memory, or mem= on hardware):
 * docs/postgresql.md. drop_cache=1 empties the kernel's page cache after
 * the load's CHECKPOINT, so the warmup and the run start from the disk
 * (the server's own shared_buffers keep what the load left in them: keep
 * them small for that); details.cache_drop says whether it was done. %memused, user/sys/iowait and the disk's IOPS are
 * the counters every run records (sampled beside it).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pg.h"
#include "sqlgen.h"
#include "units.h"
#include "workload.h"
#include "xio.h"

enum { NEW_ORDER, PAYMENT, ORDER_STATUS, DELIVERY, STOCK_LEVEL, NTX };

static const struct {
	const char *name;
	int weight;
	const char *script;	/* pgbench's: -D warehouses, customers, items */
} tx[NTX] = {
	/* customers and items by TPC-C's NURand (2.1.6): a few are hot, with
	 * A scaled to the data as TPC-C's 1023 is to 3000 customers and its
	 * 8191 to 100,000 items (-D ac, ai) */
	{ "new_order", 45,
	  "\\set w random(1, :warehouses)\n\\set d random(1, 10)\n"
	  "\\set c (((random(0, :ac) | random(1, :customers)) + 259) % :customers) + 1\n"
	  "\\set n random(5, 15)\nselect new_order(:w, :d, :c, :n, :items, :ai);\n" },
	{ "payment", 43,
	  "\\set w random(1, :warehouses)\n\\set d random(1, 10)\n"
	  "\\set c (((random(0, :ac) | random(1, :customers)) + 259) % :customers) + 1\n"
	  "\\set a random(100, 500000)\nselect payment(:w, :d, :c, :a);\n" },
	{ "order_status", 4,
	  "\\set w random(1, :warehouses)\n\\set d random(1, 10)\n"
	  "\\set c (((random(0, :ac) | random(1, :customers)) + 259) % :customers) + 1\n"
	  "select order_status(:w, :d, :c);\n" },
	{ "delivery", 4, "\\set w random(1, :warehouses)\n\\set k random(1, 10)\nselect delivery(:w, :k);\n" },
	{ "stock_level", 4,
	  "\\set w random(1, :warehouses)\n\\set d random(1, 10)\n\\set t random(10, 20)\n"
	  "select stock_level(:w, :d, :t);\n" },
};

/* The schema, the load (psql variables W, C, I) and the transactions. */
static const char schema_sql[] =
	"\\set ON_ERROR_STOP 1\n"
	"create table warehouse (w_id int primary key, w_name text not null, w_tax numeric(4,4) not null,"
	" w_ytd numeric(14,2) not null);\n"
	"create table district (d_w_id int, d_id int, d_name text not null, d_tax numeric(4,4) not null,"
	" d_ytd numeric(14,2) not null, d_next_o_id int not null, primary key (d_w_id, d_id));\n"
	"create table customer (c_w_id int, c_d_id int, c_id int, c_last text not null, c_first text not null,"
	" c_credit char(2) not null, c_discount numeric(4,4) not null, c_balance numeric(14,2) not null,"
	" c_ytd_payment numeric(14,2) not null, c_payment_cnt int not null, c_delivery_cnt int not null,"
	" c_data text not null, primary key (c_w_id, c_d_id, c_id));\n"
	"create table history (h_c_id int, h_c_d_id int, h_c_w_id int, h_d_id int, h_w_id int,"
	" h_date timestamp, h_amount numeric(8,2), h_data text);\n"
	"create table item (i_id int primary key, i_name text not null, i_price numeric(5,2) not null,"
	" i_data text not null);\n"
	"create table stock (s_w_id int, s_i_id int, s_quantity int not null, s_ytd int not null,"
	" s_order_cnt int not null, s_remote_cnt int not null, s_data text not null, primary key (s_w_id, s_i_id));\n"
	"create table orders (o_w_id int, o_d_id int, o_id int, o_c_id int not null, o_entry_d timestamp not null,"
	" o_carrier_id int, o_ol_cnt int not null, o_all_local int not null, primary key (o_w_id, o_d_id, o_id));\n"
	"create table new_order (no_w_id int, no_d_id int, no_o_id int, primary key (no_w_id, no_d_id, no_o_id));\n"
	"create table order_line (ol_w_id int, ol_d_id int, ol_o_id int, ol_number int, ol_i_id int not null,"
	" ol_supply_w_id int not null, ol_delivery_d timestamp, ol_quantity int not null,"
	" ol_amount numeric(8,2) not null, ol_dist_info char(24) not null,"
	" primary key (ol_w_id, ol_d_id, ol_o_id, ol_number));\n"
	"insert into item select i, 'item ' || i, 1 + (i * 7919 % 9900) / 100.0, repeat('i', 40)"
	" from generate_series(1, :I) i;\n"
	"insert into warehouse select w, 'warehouse ' || w, 0.1, 300000 from generate_series(1, :W) w;\n"
	"insert into district select w, d, 'district ' || d, 0.05, 30000, :C + 1"
	" from generate_series(1, :W) w, generate_series(1, 10) d;\n"
	"insert into customer select w, d, c, 'last ' || (c % 1000), 'first ' || c,"
	" case when c % 10 = 0 then 'BC' else 'GC' end, (c % 50) / 100.0, -10, 10, 1, 0, repeat('c', 300)"
	" from generate_series(1, :W) w, generate_series(1, 10) d, generate_series(1, :C) c;\n"
	"insert into history select c, d, w, d, w, now(), 10, 'initial'"
	" from generate_series(1, :W) w, generate_series(1, 10) d, generate_series(1, :C) c;\n"
	"insert into stock select w, i, 10 + i % 91, 0, 0, 0, repeat('s', 50)"
	" from generate_series(1, :W) w, generate_series(1, :I) i;\n"
	/* one order a customer; the newest 30% not delivered yet */
	"insert into orders select w, d, o, o, now(), case when o <= :C * 7 / 10 then 1 + o % 10 end, 5 + o % 11, 1"
	" from generate_series(1, :W) w, generate_series(1, 10) d, generate_series(1, :C) o;\n"
	"insert into new_order select o_w_id, o_d_id, o_id from orders where o_carrier_id is null;\n"
	"insert into order_line select o_w_id, o_d_id, o_id, n, 1 + (o_id * 31 + n * 17) % :I, o_w_id,"
	" case when o_carrier_id is not null then o_entry_d end, 5,"
	" case when o_carrier_id is null then (1 + (o_id + n) % 9999) / 100.0 else 0 end, 'dist info'"
	" from orders, generate_series(1, o_ol_cnt) n;\n"
	"create index customer_last on customer (c_w_id, c_d_id, c_last, c_first);\n"
	"create index orders_customer on orders (o_w_id, o_d_id, o_c_id, o_id);\n"
	/* new-order: the stock rows locked in item order (no deadlock) */
	"create function new_order(p_w int, p_d int, p_c int, p_cnt int, p_items int, p_ai int) returns numeric"
	" language plpgsql as $$\n"
	"declare v_o int; v_tax numeric; v_dtax numeric; v_disc numeric; v_total numeric := 0;"
	" v_price numeric; v_items int[]; v_n int := 0; v_i int;\n"
	"begin\n"
	"  select w_tax into v_tax from warehouse where w_id = p_w;\n"
	"  update district set d_next_o_id = d_next_o_id + 1 where d_w_id = p_w and d_id = p_d"
	" returning d_next_o_id - 1, d_tax into v_o, v_dtax;\n"
	"  select c_discount into v_disc from customer where c_w_id = p_w and c_d_id = p_d and c_id = p_c;\n"
	"  insert into orders values (p_w, p_d, v_o, p_c, now(), null, p_cnt, 1);\n"
	"  insert into new_order values (p_w, p_d, v_o);\n"
	/* NURand(ai, 1, items), sorted */
	"  select array_agg(x order by x) into v_items from (select"
	" ((floor(random() * (p_ai + 1))::int | (1 + floor(random() * p_items))::int) + 7911) % p_items + 1 as x"
	" from generate_series(1, p_cnt)) s;\n"
	"  foreach v_i in array v_items loop\n"
	"    v_n := v_n + 1;\n"
	"    select i_price into v_price from item where i_id = v_i;\n"
	"    update stock set s_quantity = case when s_quantity >= 15 then s_quantity - 5 else s_quantity + 86 end,"
	" s_ytd = s_ytd + 5, s_order_cnt = s_order_cnt + 1 where s_w_id = p_w and s_i_id = v_i;\n"
	"    insert into order_line values (p_w, p_d, v_o, v_n, v_i, p_w, null, 5, 5 * v_price, 'dist info');\n"
	"    v_total := v_total + 5 * v_price;\n"
	"  end loop;\n"
	"  return v_total * (1 - v_disc) * (1 + v_tax + v_dtax);\n"
	"end $$;\n"
	"create function payment(p_w int, p_d int, p_c int, p_cents int) returns void language plpgsql as $$\n"
	"declare v_amount numeric := p_cents / 100.0;\n"
	"begin\n"
	"  update warehouse set w_ytd = w_ytd + v_amount where w_id = p_w;\n"
	"  update district set d_ytd = d_ytd + v_amount where d_w_id = p_w and d_id = p_d;\n"
	"  update customer set c_balance = c_balance - v_amount, c_ytd_payment = c_ytd_payment + v_amount,"
	" c_payment_cnt = c_payment_cnt + 1 where c_w_id = p_w and c_d_id = p_d and c_id = p_c;\n"
	"  insert into history values (p_c, p_d, p_w, p_d, p_w, now(), v_amount, 'payment');\n"
	"end $$;\n"
	"create function order_status(p_w int, p_d int, p_c int) returns bigint language plpgsql as $$\n"
	"declare v_o int; v_n bigint;\n"
	"begin\n"
	"  perform c_balance, c_first, c_last from customer where c_w_id = p_w and c_d_id = p_d and c_id = p_c;\n"
	"  select o_id into v_o from orders where o_w_id = p_w and o_d_id = p_d and o_c_id = p_c"
	" order by o_id desc limit 1;\n"
	"  select count(*) into v_n from (select ol_i_id, ol_quantity, ol_amount, ol_delivery_d from order_line"
	" where ol_w_id = p_w and ol_d_id = p_d and ol_o_id = v_o) s;\n"
	"  return v_n;\n"
	"end $$;\n"
	"create function delivery(p_w int, p_carrier int) returns int language plpgsql as $$\n"
	"declare v_o int; v_c int; v_amount numeric; v_n int := 0;\n"
	"begin\n"
	"  for d in 1..10 loop\n"
	"    delete from new_order where no_w_id = p_w and no_d_id = d and no_o_id ="
	" (select min(no_o_id) from new_order where no_w_id = p_w and no_d_id = d) returning no_o_id into v_o;\n"
	"    continue when v_o is null;\n"
	"    update orders set o_carrier_id = p_carrier where o_w_id = p_w and o_d_id = d and o_id = v_o"
	" returning o_c_id into v_c;\n"
	"    update order_line set ol_delivery_d = now() where ol_w_id = p_w and ol_d_id = d and ol_o_id = v_o;\n"
	"    select sum(ol_amount) into v_amount from order_line where ol_w_id = p_w and ol_d_id = d"
	" and ol_o_id = v_o;\n"
	"    update customer set c_balance = c_balance + v_amount, c_delivery_cnt = c_delivery_cnt + 1"
	" where c_w_id = p_w and c_d_id = d and c_id = v_c;\n"
	"    v_n := v_n + 1;\n"
	"  end loop;\n"
	"  return v_n;\n"
	"end $$;\n"
	"create function stock_level(p_w int, p_d int, p_threshold int) returns bigint language sql as $$\n"
	"  select count(distinct s_i_id) from district, order_line, stock where d_w_id = p_w and d_id = p_d"
	" and ol_w_id = p_w and ol_d_id = p_d and ol_o_id >= d_next_o_id - 20 and ol_o_id < d_next_o_id"
	" and s_w_id = p_w and s_i_id = ol_i_id and s_quantity < p_threshold\n"
	"$$;\n";

/* TPC-C's consistency conditions 1-7 (3.3.2.1-7): the number of rows
 * (warehouses, districts, orders, order lines) that break each. 8-12
 * (history and the customers' balances against the year-to-date sums)
 * do not hold from this load: it is not TPC-C's initial population. */
static const struct {
	const char *what, *sql;
} checks[] = {
	{ "1 W_YTD = sum(D_YTD)",
	  "select count(*) from warehouse where w_ytd <> (select sum(d_ytd) from district where d_w_id = w_id)" },
	{ "2 D_NEXT_O_ID - 1 = max(O_ID) = max(NO_O_ID)",
	  "select count(*) from district where d_next_o_id - 1 <>"
	  " (select max(o_id) from orders where o_w_id = d_w_id and o_d_id = d_id) or d_next_o_id - 1 <>"
	  " coalesce((select max(no_o_id) from new_order where no_w_id = d_w_id and no_d_id = d_id), d_next_o_id - 1)" },
	{ "3 new orders contiguous",
	  "select count(*) from (select 1 from new_order group by no_w_id, no_d_id"
	  " having max(no_o_id) - min(no_o_id) + 1 <> count(*)) s" },
	{ "4 sum(O_OL_CNT) = order lines",
	  "select count(*) from district where (select sum(o_ol_cnt) from orders where o_w_id = d_w_id"
	  " and o_d_id = d_id) <> (select count(*) from order_line where ol_w_id = d_w_id and ol_d_id = d_id)" },
	{ "5 O_CARRIER_ID null iff a new order",
	  "select count(*) from orders where (o_carrier_id is null) <> exists (select 1 from new_order"
	  " where no_w_id = o_w_id and no_d_id = o_d_id and no_o_id = o_id)" },
	{ "6 O_OL_CNT = the order's lines",
	  "select count(*) from orders where o_ol_cnt <> (select count(*) from order_line"
	  " where ol_w_id = o_w_id and ol_d_id = o_d_id and ol_o_id = o_id)" },
	{ "7 OL_DELIVERY_D null iff O_CARRIER_ID null",
	  "select count(*) from order_line join orders on ol_w_id = o_w_id and ol_d_id = o_d_id and ol_o_id = o_id"
	  " where (ol_delivery_d is null) <> (o_carrier_id is null)" },
};
#define NCHECKS (sizeof checks / sizeof *checks)

static const struct wparam dbt2_params[] = {
	{ "warehouses", "1", "warehouses of 10 districts (the data grows with them: see details.db_bytes)" },
	{ "customers", "300", "customers per district (TPC-C: 3000)" },
	{ "items", "10000", "items, and stock rows per warehouse (TPC-C: 100000)" },
	{ "drop_cache", "0", "1: empty the kernel's page cache after the load, before the warmup" },
	PG_DRIVER_PARAMS("4"),
	PG_SERVER_PARAMS,
	{ NULL, NULL, NULL },
};

/* One file of the run's in its /tmp directory (root's), with text. */
static int write_text(struct wctx *c, const struct pg *pg, const char *name, const char *text, char *path, size_t len)
{
	int fd = pg_new_file(c, pg, name, path, len), e = 0;
	if (fd < 0)
		return -1;
	if (write_all(fd, text, strlen(text)) < 0)
		e = errno;
	if (close(fd) < 0 && !e)
		e = errno;
	return e ? wl_fail(c, "unable to write %s: %s", path, strerror(e)) : 0;
}

/* One number psql printed for sql; -1 (failed) when it printed none. */
static int sql_number(struct wctx *c, struct pg *pg, const char *sql, long long *v)
{
	struct sbuf out = { 0 };
	char *end;
	int rc = pg_sql(c, pg, sql, 600000, &out);
	if (rc == 0) {
		errno = 0;
		*v = strtoll(out.s ? out.s : "", &end, 10);
		if (errno || !out.s || end == out.s || (*end && *end != '\n'))
			rc = wl_fail(c, "psql printed no number for \"%.60s\": %.60s", sql, out.s ? out.s : "");
	}
	sb_free(&out);
	return rc;
}

/* After the run: each condition checked and its count recorded; any that
 * does not hold fails the run, naming them all. */
static int consistent(struct wctx *c, struct pg *pg)
{
	struct sbuf broken = { 0 };
	long long bad[NCHECKS];
	int rc = 0;
	for (size_t i = 0; i < NCHECKS; i++)
		if (sql_number(c, pg, checks[i].sql, &bad[i]) < 0)
			return -1;
	jw_obj(&c->details, "consistency");
	for (size_t i = 0; i < NCHECKS; i++) {
		jw_int(&c->details, checks[i].what, bad[i]);
		if (bad[i])
			sb_printf(&broken, "%s%s (%lld)", broken.len ? ", " : "", checks[i].what, bad[i]);
	}
	jw_obj_end(&c->details);
	if (broken.len)
		rc = wl_fail(c, "consistency: after the run, condition %s does not hold", broken.s);
	sb_free(&broken);
	return rc;
}

/* The report's " - N transactions (P% of total, tps = X)" line of script
 * i (pgbench numbers them from 1 in its report), looked for only inside
 * that script's block: that tps. */
static double script_tps(const char *report, int i)
{
	char head[32], next[32];
	const char *p, *end, *t;
	snprintf(head, sizeof head, "SQL script %d:", i + 1);
	snprintf(next, sizeof next, "SQL script %d:", i + 2);
	if (!report || !(p = strstr(report, head)))
		return NAN;
	end = strstr(p, next);
	if (!end)
		end = p + strlen(p);
	t = memmem(p, (size_t)(end - p), " transactions (", 15);
	t = t ? memmem(t, (size_t)(end - t), "tps = ", 6) : NULL;
	return t ? strtod(t + 6, NULL) : NAN;
}

/* NURand's A for a range of n: 2^k - 1 at most n / div (TPC-C: 1023 for
 * 3000 customers, 8191 for 100,000 items), at least 1. */
static long long nurand_a(long long n, long long div)
{
	long long a = 1;
	while (a * 2 + 1 <= n / div)
		a = a * 2 + 1;
	return a;
}

static int dbt2_run(struct wctx *c)
{
	long long w = wl_param_int(c, "warehouses"), cust = wl_param_int(c, "customers"), items = wl_param_int(c, "items");
	long long drop = wl_param_int(c, "drop_cache");
	struct pg_driver drv;
	char path[NTX][160], fargs[NTX][170], schema[160], dw[40], dc[40], di[40], da[2][40], vw[40], vc[40], vi[40];
	struct pg_lat lat[NTX] = { 0 };
	struct sbuf out = { 0 };
	struct run_result res;
	double share, tps, no_tps;
	long long db0, db1, total_kb = -1, avail_kb = -1;
	char *mem;
	struct pg pg;
	int rc = -1, fd;

	if (w < 0 || cust < 0 || items < 0 || drop < 0)
		return -1;
	if (drop > 1)
		return wl_fail(c, "drop_cache=%lld: expected 0 or 1", drop);
	if (w < 1 || w > 10000 || cust < 10 || cust > 3000 || items < 100 || items > 100000)
		return wl_fail(c, "warehouses=%lld customers=%lld items=%lld: expected 1..10000, 10..3000, 100..100000", w,
			       cust, items);
	if (pg_driver_params(c, &drv) < 0)
		return -1;
	if (pg_open(c, &pg, drv.clients) < 0)
		goto out;
	if (write_text(c, &pg, "dbt2.sql", schema_sql, schema, sizeof schema) < 0)
		goto out;
	for (int i = 0; i < NTX; i++) {
		char name[40];
		snprintf(name, sizeof name, "%s.pgbench", tx[i].name);
		if (write_text(c, &pg, name, tx[i].script, path[i], sizeof path[i]) < 0)
			goto out;
		snprintf(fargs[i], sizeof fargs[i], "%.159s@%d", path[i], tx[i].weight);
	}
	/* the load: made by the server, timed */
	snprintf(vw, sizeof vw, "W=%lld", w);
	snprintf(vc, sizeof vc, "C=%lld", cust);
	snprintf(vi, sizeof vi, "I=%lld", items);
	{
		char *a[] = { pg.bin[PG_PSQL], "-X", "-q", "-v", vw, "-v", vc, "-v", vi, "-h", pg.sock, "-U", "postgres",
			      "postgres", NULL };
		if ((fd = open(schema, O_RDONLY | O_NOFOLLOW | O_CLOEXEC)) < 0) {
			wl_fail(c, "unable to open %s: %s", schema, strerror(errno));
			goto out;
		}
		rc = pg_tool(c, &pg, "the load (psql)", a, fd, 0, &out, &res);
		close(fd);
		if (rc < 0)
			goto out;
		rc = -1;
		wl_metric(c, "load_s", res.wall_s, "s", "lower");
	}
	{
		/* VACUUM cannot run in a transaction: each its own -c */
		char *a[] = { pg.bin[PG_PSQL], "-X", "-q", "-v", "ON_ERROR_STOP=1", "-h", pg.sock, "-U", "postgres",
			      "-c", "vacuum analyze", "-c", "checkpoint", "postgres", NULL };
		if (pg_tool(c, &pg, "vacuum analyze", a, -1, 0, &out, NULL) < 0)
			goto out;
	}
	if (sql_number(c, &pg, "select pg_database_size(current_database())", &db0) < 0)
		goto out;
	if (drop) {
		/* the CHECKPOINT wrote the data back: clean pages, all dropped */
		if (drop_page_cache() == 0) {
			jw_str(&c->details, "cache_drop", "drop_caches");
		} else {
			wl_warn(c, "drop_cache=1: writing /proc/sys/vm/drop_caches failed (%s): the run starts with "
				"the data in the page cache", strerror(errno));
			jw_str(&c->details, "cache_drop", "none");
		}
	} else {
		jw_str(&c->details, "cache_drop", "not asked");
	}
	/* what the page cache and the server could hold, once loaded */
	if ((mem = read_file("/proc/meminfo", NULL))) {
		total_kb = sqlgen_meminfo_kb(mem, "MemTotal");
		avail_kb = sqlgen_meminfo_kb(mem, "MemAvailable");
		free(mem);
	}
	snprintf(dw, sizeof dw, "warehouses=%lld", w);
	snprintf(dc, sizeof dc, "customers=%lld", cust);
	snprintf(di, sizeof di, "items=%lld", items);
	snprintf(da[0], sizeof da[0], "ac=%lld", nurand_a(cust, 3));
	snprintf(da[1], sizeof da[1], "ai=%lld", nurand_a(items, 12));
	{
		/* a deadlock or serialization failure is retried, as a driver
		 * would; what still fails is counted */
		char *a[] = { "-D", dw, "-D", dc, "-D", di, "-D", da[0], "-D", da[1], "--max-tries=10",
			      "-f", fargs[0], "-f", fargs[1], "-f", fargs[2], "-f", fargs[3], "-f", fargs[4], NULL };
		if (pg_pgbench(c, &pg, a, &drv, &out, &share) < 0)
			goto out;
	}
	tps = pg_field(out.s, "tps = ", "without initial connection time");
	no_tps = script_tps(out.s, NEW_ORDER);
	if (!isfinite(tps) || !isfinite(no_tps)) {
		wl_fail(c, "pgbench printed no tps for the mix or for new-order: %.160s", out.s ? out.s : "");
		goto out;
	}
	jw_num(&c->details, "transactions", pg_field(out.s, "number of transactions actually processed: ", NULL));
	jw_num(&c->details, "failed_transactions", pg_field(out.s, "number of failed transactions: ", NULL));
	jw_num(&c->details, "retried_transactions", pg_field(out.s, "number of transactions retried: ", NULL));
	if (pg_latency_log(c, &pg, (size_t)drv.lines * 2, lat, NTX) < 0)
		goto out;
	jw_num(&c->details, "latency_sampling_rate", share);
	jw_obj(&c->details, "latency_samples");
	for (int i = 0; i < NTX; i++)
		jw_int(&c->details, tx[i].name, (long long)lat[i].n);
	jw_obj_end(&c->details);
	if (consistent(c, &pg) < 0 ||
	    sql_number(c, &pg, "select pg_database_size(current_database())", &db1) < 0)
		goto out;
	/* cached or not: the data against the memory the kernel had for it */
	jw_int(&c->details, "db_bytes_loaded", db0);
	jw_int(&c->details, "db_bytes", db1);
	if (total_kb > 0)
		jw_int(&c->details, "mem_total_bytes", total_kb * 1024);
	if (avail_kb > 0)
		jw_int(&c->details, "mem_available_bytes", avail_kb * 1024);
	if (avail_kb > 0)
		jw_bool(&c->details, "fits_in_memory", (double)db1 < (double)avail_kb * 1024);
	wl_metric(c, "new_order_tpm", no_tps * 60, "tx/min", "higher");
	wl_metric(c, "tps", tps, "tx/s", "higher");
	for (int i = 0; i < NTX; i++) {
		char name[48];
		snprintf(name, sizeof name, "%s_p90_ms", tx[i].name);
		wl_metric(c, name, pg_rank(&lat[i], 90), "ms", "lower");
		snprintf(name, sizeof name, "%s_p99_ms", tx[i].name);
		wl_metric(c, name, pg_rank(&lat[i], 99), "ms", "lower");
	}
	rc = 0;
out:
	pg_close(&pg);
	pg_lat_free(lat, NTX);
	sb_free(&out);
	return rc;
}

static const struct wl_label dbt2_labels[] = {
	{ "new_order_tpm", "DBT-2: NOTPM (new-order transactions per minute)" },
	{ NULL },
};

const struct workload wl_dbt2 = {
	.name = "dbt2",
	.labels = dbt2_labels,
	.summary = "a TPC-C-like mix (new-order, payment, ...) from C pgbench clients against PostgreSQL on the layout",
	.params = dbt2_params,
	.needs = WL_NEEDS_DIR,
	.layer = "postgresql",
	.layer_param = "bindir",
	.run = dbt2_run,
};
