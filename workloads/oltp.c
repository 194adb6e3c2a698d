/*
 * oltp.c - a TPC-C-like transaction mix (the DBT-2 kind of load) on SQLite:
 * W warehouses at a scaled-down size, C client processes each with its own
 * connection, new-order 45%, payment 43%, order-status 4%, delivery 4%,
 * stock-level 4%, for `duration` seconds after `warmup`. Reports new-order
 * transactions per minute and per-type latency percentiles, then checks
 * TPC-C's consistency conditions and fails the run if one is violated.
 *
 * Scale per warehouse (TPC-C's in brackets): 10 districts, 300 customers per
 * district [3000], 10000 items [100000] and stock rows, 300 initial orders per
 * district [3000] with 5-15 lines, the last 90 undelivered [900]. Money is in
 * integer cents so the YTD sums compare exactly. Not an audited TPC-C: no
 * keying/think times, no NURand skew beyond a simple hot set.
 *
 * Cached vs non-cached: cache_kib bounds SQLite's own page cache; the
 * kernel's page cache cannot be bounded per process, so drop_cache=1 empties
 * it before the measured run (drop_caches as root, else fadvise DONTNEED on the
 * files), and the details record the database size and /proc/meminfo
 * (docs/database.md).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "rng.h"
#include "sqlgen.h"
#include "sqlite3.h"
#include "spawn.h"
#include "workload.h"
#include "xio.h"

#define DISTRICTS 10
#define CUSTOMERS 300		/* per district */
#define ITEMS 10000
#define ORDERS 300		/* initial, per district */
#define UNDELIVERED 90		/* the last ones of the initial orders */
#define LAT_CAP 65536		/* latency samples kept per client and type */
#define MAX_CLIENTS 64

enum { T_NEW_ORDER, T_PAYMENT, T_ORDER_STATUS, T_DELIVERY, T_STOCK_LEVEL, T_N };
static const char *const tname[T_N] = { "new_order", "payment", "order_status", "delivery", "stock_level" };
static const int tmix[T_N] = { 45, 43, 4, 4, 4 };	/* percent */

/* One client's results, in memory shared with the parent. */
struct cres {
	long long n[T_N];		/* completed in the measured window */
	long long rollbacks;		/* new-orders rolled back on purpose (1%) */
	long long busy_retries;
	long long dropped;		/* samples past LAT_CAP */
	int failed;
	char err[200];
	float lat[T_N][LAT_CAP];	/* ms */
};

struct conn {
	sqlite3 *db;
	sqlite3_stmt *st[40];
	int nst;
	uint64_t rnd;
	int warehouses;
	struct cres *r;
};

static long long rnd(struct conn *c, long long lo, long long hi)
{
	return lo + (long long)(rng_next(&c->rnd) % (uint64_t)(hi - lo + 1));
}

/* A customer last name from its number, as TPC-C's syllables. */
static void last_name(char *buf, size_t len, int n)
{
	static const char *const syl[] = { "BAR", "OUGHT", "ABLE", "PRI", "PRES", "ESE", "ANTI", "CALLY", "ATION", "EING" };
	snprintf(buf, len, "%s%s%s", syl[n / 100 % 10], syl[n / 10 % 10], syl[n % 10]);
}

static const char schema[] =
	"CREATE TABLE warehouse (w_id INTEGER PRIMARY KEY, w_name TEXT, w_tax INTEGER, w_ytd INTEGER);\n"
	"CREATE TABLE district (d_w_id INTEGER, d_id INTEGER, d_name TEXT, d_tax INTEGER, d_ytd INTEGER,"
	" d_next_o_id INTEGER, PRIMARY KEY (d_w_id, d_id)) WITHOUT ROWID;\n"
	"CREATE TABLE customer (c_w_id INTEGER, c_d_id INTEGER, c_id INTEGER, c_first TEXT, c_last TEXT,"
	" c_discount INTEGER, c_balance INTEGER, c_ytd_payment INTEGER, c_payment_cnt INTEGER,"
	" c_delivery_cnt INTEGER, c_data TEXT, PRIMARY KEY (c_w_id, c_d_id, c_id));\n"
	"CREATE INDEX customer_last ON customer (c_w_id, c_d_id, c_last, c_first);\n"
	"CREATE TABLE history (h_c_id INTEGER, h_c_d_id INTEGER, h_c_w_id INTEGER, h_d_id INTEGER,"
	" h_w_id INTEGER, h_date INTEGER, h_amount INTEGER, h_data TEXT);\n"
	"CREATE TABLE item (i_id INTEGER PRIMARY KEY, i_name TEXT, i_price INTEGER, i_data TEXT);\n"
	"CREATE TABLE stock (s_w_id INTEGER, s_i_id INTEGER, s_quantity INTEGER, s_ytd INTEGER,"
	" s_order_cnt INTEGER, s_data TEXT, PRIMARY KEY (s_w_id, s_i_id));\n"
	"CREATE TABLE orders (o_w_id INTEGER, o_d_id INTEGER, o_id INTEGER, o_c_id INTEGER,"
	" o_entry_d INTEGER, o_carrier_id INTEGER, o_ol_cnt INTEGER, PRIMARY KEY (o_w_id, o_d_id, o_id));\n"
	"CREATE INDEX orders_customer ON orders (o_w_id, o_d_id, o_c_id, o_id);\n"
	"CREATE TABLE new_order (no_w_id INTEGER, no_d_id INTEGER, no_o_id INTEGER,"
	" PRIMARY KEY (no_w_id, no_d_id, no_o_id)) WITHOUT ROWID;\n"
	"CREATE TABLE order_line (ol_w_id INTEGER, ol_d_id INTEGER, ol_o_id INTEGER, ol_number INTEGER,"
	" ol_i_id INTEGER, ol_supply_w_id INTEGER, ol_delivery_d INTEGER, ol_quantity INTEGER,"
	" ol_amount INTEGER, PRIMARY KEY (ol_w_id, ol_d_id, ol_o_id, ol_number));\n";

/* The statements of the mix, prepared once per connection (index = enum). */
enum {
	S_BEGIN, S_BEGIN_IMM, S_COMMIT, S_ROLLBACK,
	S_W_TAX, S_D_NEXT, S_D_INC, S_C_DISC, S_O_INS, S_NO_INS, S_I_GET, S_S_GET, S_S_UPD, S_OL_INS,
	S_W_YTD, S_D_YTD, S_C_BY_LAST, S_C_PAY, S_H_INS,
	S_C_GET, S_O_LAST, S_OL_OF,
	S_NO_MIN, S_NO_DEL, S_O_CUST, S_O_CARRIER, S_OL_DELIV, S_OL_SUM, S_C_DELIV,
	S_STOCK_LEVEL, S_NSTMT
};
static const char *const stmt_sql[S_NSTMT] = {
	[S_BEGIN] = "BEGIN",
	[S_BEGIN_IMM] = "BEGIN IMMEDIATE",
	[S_COMMIT] = "COMMIT",
	[S_ROLLBACK] = "ROLLBACK",
	[S_W_TAX] = "SELECT w_tax FROM warehouse WHERE w_id = ?1",
	[S_D_NEXT] = "SELECT d_tax, d_next_o_id FROM district WHERE d_w_id = ?1 AND d_id = ?2",
	[S_D_INC] = "UPDATE district SET d_next_o_id = d_next_o_id + 1 WHERE d_w_id = ?1 AND d_id = ?2",
	[S_C_DISC] = "SELECT c_discount FROM customer WHERE c_w_id = ?1 AND c_d_id = ?2 AND c_id = ?3",
	[S_O_INS] = "INSERT INTO orders VALUES (?1, ?2, ?3, ?4, ?5, NULL, ?6)",
	[S_NO_INS] = "INSERT INTO new_order VALUES (?1, ?2, ?3)",
	[S_I_GET] = "SELECT i_price FROM item WHERE i_id = ?1",
	[S_S_GET] = "SELECT s_quantity FROM stock WHERE s_w_id = ?1 AND s_i_id = ?2",
	[S_S_UPD] = "UPDATE stock SET s_quantity = ?3, s_ytd = s_ytd + ?4, s_order_cnt = s_order_cnt + 1"
		    " WHERE s_w_id = ?1 AND s_i_id = ?2",
	[S_OL_INS] = "INSERT INTO order_line VALUES (?1, ?2, ?3, ?4, ?5, ?1, NULL, ?6, ?7)",
	[S_W_YTD] = "UPDATE warehouse SET w_ytd = w_ytd + ?2 WHERE w_id = ?1",
	[S_D_YTD] = "UPDATE district SET d_ytd = d_ytd + ?3 WHERE d_w_id = ?1 AND d_id = ?2",
	[S_C_BY_LAST] = "SELECT c_id FROM customer WHERE c_w_id = ?1 AND c_d_id = ?2 AND c_last = ?3"
			" ORDER BY c_first",
	[S_C_PAY] = "UPDATE customer SET c_balance = c_balance - ?4, c_ytd_payment = c_ytd_payment + ?4,"
		    " c_payment_cnt = c_payment_cnt + 1 WHERE c_w_id = ?1 AND c_d_id = ?2 AND c_id = ?3",
	[S_H_INS] = "INSERT INTO history VALUES (?3, ?2, ?1, ?2, ?1, ?5, ?4, 'payment')",
	[S_C_GET] = "SELECT c_first, c_last, c_balance FROM customer WHERE c_w_id = ?1 AND c_d_id = ?2 AND c_id = ?3",
	[S_O_LAST] = "SELECT o_id, o_entry_d, o_carrier_id FROM orders WHERE o_w_id = ?1 AND o_d_id = ?2"
		     " AND o_c_id = ?3 ORDER BY o_id DESC LIMIT 1",
	[S_OL_OF] = "SELECT ol_i_id, ol_quantity, ol_amount, ol_delivery_d FROM order_line"
		    " WHERE ol_w_id = ?1 AND ol_d_id = ?2 AND ol_o_id = ?3",
	[S_NO_MIN] = "SELECT min(no_o_id) FROM new_order WHERE no_w_id = ?1 AND no_d_id = ?2",
	[S_NO_DEL] = "DELETE FROM new_order WHERE no_w_id = ?1 AND no_d_id = ?2 AND no_o_id = ?3",
	[S_O_CUST] = "SELECT o_c_id FROM orders WHERE o_w_id = ?1 AND o_d_id = ?2 AND o_id = ?3",
	[S_O_CARRIER] = "UPDATE orders SET o_carrier_id = ?4 WHERE o_w_id = ?1 AND o_d_id = ?2 AND o_id = ?3",
	[S_OL_DELIV] = "UPDATE order_line SET ol_delivery_d = ?4 WHERE ol_w_id = ?1 AND ol_d_id = ?2 AND ol_o_id = ?3",
	[S_OL_SUM] = "SELECT sum(ol_amount) FROM order_line WHERE ol_w_id = ?1 AND ol_d_id = ?2 AND ol_o_id = ?3",
	[S_C_DELIV] = "UPDATE customer SET c_balance = c_balance + ?4, c_delivery_cnt = c_delivery_cnt + 1"
		      " WHERE c_w_id = ?1 AND c_d_id = ?2 AND c_id = ?3",
	[S_STOCK_LEVEL] = "SELECT count(DISTINCT s_i_id) FROM order_line JOIN stock ON s_w_id = ol_w_id"
			  " AND s_i_id = ol_i_id WHERE ol_w_id = ?1 AND ol_d_id = ?2 AND ol_o_id >= ?3"
			  " AND ol_o_id < ?4 AND s_quantity < ?5",
};

/* Errors other than BUSY end the client; BUSY restarts the transaction. */
enum { OK = 0, BUSY = 1, FAIL = -1 };

static int fail_db(struct conn *c, const char *what)
{
	snprintf(c->r->err, sizeof c->r->err, "%s: %s", what, sqlite3_errmsg(c->db));
	return FAIL;
}

static int busy(int rc)
{
	return (rc & 0xff) == SQLITE_BUSY || (rc & 0xff) == SQLITE_LOCKED;
}

static void reset_all(struct conn *c)
{
	for (int i = 0; i < S_NSTMT; i++)
		sqlite3_reset(c->st[i]);
}

/* Bind integers ?1..?n (n up to 6), step once; the row (if any) stays readable. */
static int q(struct conn *c, int s, int n, const long long *v, int *row)
{
	sqlite3_stmt *st = c->st[s];
	int rc;
	/* a SELECT stepped once and never reset keeps its read transaction,
	 * and with it an old WAL snapshot, past COMMIT: the connection's next
	 * write would then be SQLITE_BUSY_SNAPSHOT for ever. So transaction
	 * boundaries reset everything. */
	if (s <= S_ROLLBACK)
		reset_all(c);
	sqlite3_reset(st);
	for (int i = 0; i < n; i++)
		sqlite3_bind_int64(st, i + 1, v[i]);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW || rc == SQLITE_DONE) {
		if (row)
			*row = rc == SQLITE_ROW;
		return OK;
	}
	sqlite3_reset(st);
	return busy(rc) ? BUSY : fail_db(c, stmt_sql[s]);
}
#define Q(s, row, ...) do { long long v_[] = { __VA_ARGS__ }; \
	int r_ = q(c, s, sizeof v_ / sizeof v_[0], v_, row); if (r_) return r_; } while (0)
#define COL(s, i) sqlite3_column_int64(c->st[s], i)

static int tx_new_order(struct conn *c, int w)
{
	long long d = rnd(c, 1, DISTRICTS), cid = rnd(c, 1, CUSTOMERS), ol_cnt = rnd(c, 5, 15), o_id;
	int row, rollback = rnd(c, 1, 100) == 1;
	Q(S_BEGIN_IMM, NULL, 0);
	Q(S_W_TAX, NULL, w);
	Q(S_D_NEXT, &row, w, d);
	if (!row)
		return snprintf(c->r->err, sizeof c->r->err, "district %d/%lld is missing", w, d), FAIL;
	o_id = COL(S_D_NEXT, 1);
	Q(S_D_INC, NULL, w, d);
	Q(S_C_DISC, NULL, w, d, cid);
	Q(S_O_INS, NULL, w, d, o_id, cid, (long long)time(NULL), ol_cnt);
	Q(S_NO_INS, NULL, w, d, o_id);
	for (long long l = 1; l <= ol_cnt; l++) {
		/* TPC-C: 1% of new-orders name an unused item on the last line
		 * and roll back, after having done most of their work */
		long long item = rollback && l == ol_cnt ? ITEMS + 1 : rnd(c, 1, ITEMS), qty = rnd(c, 1, 10), sq;
		Q(S_I_GET, &row, item);
		if (!row) {
			Q(S_ROLLBACK, NULL, 0);
			c->r->rollbacks++;
			return OK;
		}
		long long price = COL(S_I_GET, 0);
		Q(S_S_GET, NULL, w, item);
		sq = COL(S_S_GET, 0);
		sq = sq >= qty + 10 ? sq - qty : sq - qty + 91;
		Q(S_S_UPD, NULL, w, item, sq, qty);
		Q(S_OL_INS, NULL, w, d, o_id, l, item, qty, qty * price);
	}
	Q(S_COMMIT, NULL, 0);
	return OK;
}

/* 60% by last name (the middle one of the matches), else by id. */
static int pick_customer(struct conn *c, int w, long long d, long long *cid)
{
	int row;
	*cid = rnd(c, 1, CUSTOMERS);
	if (rnd(c, 1, 100) <= 60) {
		char last[24];
		long long ids[CUSTOMERS];
		int n = 0, rc;
		last_name(last, sizeof last, (int)rnd(c, 0, 999) % CUSTOMERS);
		sqlite3_stmt *st = c->st[S_C_BY_LAST];
		sqlite3_reset(st);
		sqlite3_bind_int64(st, 1, w);
		sqlite3_bind_int64(st, 2, d);
		sqlite3_bind_text(st, 3, last, -1, SQLITE_TRANSIENT);
		while ((rc = sqlite3_step(st)) == SQLITE_ROW && n < CUSTOMERS)
			ids[n++] = sqlite3_column_int64(st, 0);
		if (rc != SQLITE_DONE && rc != SQLITE_ROW) {
			sqlite3_reset(st);
			return busy(rc) ? BUSY : fail_db(c, "customer by last name");
		}
		if (n)
			*cid = ids[n / 2];
	}
	(void)row;
	return OK;
}

static int tx_payment(struct conn *c, int w)
{
	long long d = rnd(c, 1, DISTRICTS), amount = rnd(c, 100, 500000), cid;
	int rc;
	Q(S_BEGIN_IMM, NULL, 0);
	Q(S_W_YTD, NULL, w, amount);
	Q(S_D_YTD, NULL, w, d, amount);
	if ((rc = pick_customer(c, w, d, &cid)))
		return rc;
	Q(S_C_PAY, NULL, w, d, cid, amount);
	Q(S_H_INS, NULL, w, d, cid, amount, (long long)time(NULL));
	Q(S_COMMIT, NULL, 0);
	return OK;
}

static int tx_order_status(struct conn *c, int w)
{
	long long d = rnd(c, 1, DISTRICTS), cid;
	int rc, row;
	Q(S_BEGIN, NULL, 0);
	if ((rc = pick_customer(c, w, d, &cid)))
		return rc;
	Q(S_C_GET, NULL, w, d, cid);
	Q(S_O_LAST, &row, w, d, cid);
	if (row) {
		long long o = COL(S_O_LAST, 0);
		sqlite3_stmt *st = c->st[S_OL_OF];
		sqlite3_reset(st);
		sqlite3_bind_int64(st, 1, w);
		sqlite3_bind_int64(st, 2, d);
		sqlite3_bind_int64(st, 3, o);
		while ((rc = sqlite3_step(st)) == SQLITE_ROW)
			;
		if (rc != SQLITE_DONE) {
			sqlite3_reset(st);
			return busy(rc) ? BUSY : fail_db(c, "order lines of an order");
		}
	}
	Q(S_COMMIT, NULL, 0);
	return OK;
}

static int tx_delivery(struct conn *c, int w)
{
	long long carrier = rnd(c, 1, 10);
	int row;
	Q(S_BEGIN_IMM, NULL, 0);
	for (long long d = 1; d <= DISTRICTS; d++) {
		Q(S_NO_MIN, &row, w, d);
		if (!row || sqlite3_column_type(c->st[S_NO_MIN], 0) == SQLITE_NULL)
			continue;
		long long o = COL(S_NO_MIN, 0);
		Q(S_NO_DEL, NULL, w, d, o);
		Q(S_O_CUST, NULL, w, d, o);
		long long cid = COL(S_O_CUST, 0);
		Q(S_O_CARRIER, NULL, w, d, o, carrier);
		Q(S_OL_DELIV, NULL, w, d, o, (long long)time(NULL));
		Q(S_OL_SUM, NULL, w, d, o);
		long long sum = COL(S_OL_SUM, 0);
		Q(S_C_DELIV, NULL, w, d, cid, sum);
	}
	Q(S_COMMIT, NULL, 0);
	return OK;
}

static int tx_stock_level(struct conn *c, int w)
{
	long long d = rnd(c, 1, DISTRICTS), threshold = rnd(c, 10, 20);
	Q(S_BEGIN, NULL, 0);
	Q(S_D_NEXT, NULL, w, d);
	long long next = COL(S_D_NEXT, 1);
	Q(S_STOCK_LEVEL, NULL, w, d, next - 20, next, threshold);
	Q(S_COMMIT, NULL, 0);
	return OK;
}

static int (*const tx[T_N])(struct conn *, int) = {
	tx_new_order, tx_payment, tx_order_status, tx_delivery, tx_stock_level,
};

static int conn_open(struct conn *c, const char *path, const char *pragmas, long long busy_ms, char *err, size_t errlen)
{
	char *msg = NULL;
	if (sqlite3_open_v2(path, &c->db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, NULL) != SQLITE_OK)
		return snprintf(err, errlen, "unable to open %s: %s", path, c->db ? sqlite3_errmsg(c->db) : "no memory"), -1;
	sqlite3_busy_timeout(c->db, (int)busy_ms);
	if (sqlite3_exec(c->db, pragmas, NULL, NULL, &msg) != SQLITE_OK) {
		snprintf(err, errlen, "setting the pragmas: %s", msg ? msg : sqlite3_errmsg(c->db));
		sqlite3_free(msg);
		return -1;
	}
	return 0;
}

static void conn_close(struct conn *c)
{
	for (int i = 0; i < S_NSTMT; i++)
		sqlite3_finalize(c->st[i]);
	sqlite3_close(c->db);
}

/* One client process: run the mix until `end`, recording what finished
 * inside [start, end]. */
static void __attribute__((noreturn)) client(const char *path, const char *pragmas, long long busy_ms, int warehouses,
					    uint64_t seed, double start, double end, struct cres *r)
{
	struct conn c = { .r = r, .warehouses = warehouses, .rnd = seed | 1 };
	char err[200];
	if (conn_open(&c, path, pragmas, busy_ms, err, sizeof err) < 0) {
		snprintf(r->err, sizeof r->err, "%s", err);
		r->failed = 1;
		_exit(1);
	}
	for (int i = 0; i < S_NSTMT; i++)
		if (sqlite3_prepare_v3(c.db, stmt_sql[i], -1, SQLITE_PREPARE_PERSISTENT, &c.st[i], NULL) != SQLITE_OK) {
			snprintf(r->err, sizeof r->err, "preparing %s: %s", stmt_sql[i], sqlite3_errmsg(c.db));
			r->failed = 1;
			_exit(1);
		}
	for (double t = mono_now(); t < end; t = mono_now()) {
		int p = (int)rnd(&c, 1, 100), type = 0, w = (int)rnd(&c, 1, warehouses), rc;
		for (int acc = tmix[0]; p > acc; acc += tmix[++type])
			;
		while ((rc = tx[type](&c, w)) == BUSY) {
			/* a BUSY past the busy timeout (or a deadlock SQLite refuses
			 * to wait on): roll back and run the transaction again */
			reset_all(&c);
			sqlite3_exec(c.db, "ROLLBACK", NULL, NULL, NULL);
			r->busy_retries++;
			if (mono_now() > end + 30) {
				snprintf(r->err, sizeof r->err, "%s: still SQLITE_BUSY 30 s after the end", tname[type]);
				r->failed = 1;
				_exit(1);
			}
		}
		if (rc == FAIL) {
			r->failed = 1;
			_exit(1);
		}
		double done = mono_now();
		if (t >= start && done <= end) {
			if (r->n[type] < LAT_CAP)
				r->lat[type][r->n[type]] = (float)((done - t) * 1e3);
			else
				r->dropped++;
			r->n[type]++;
		}
	}
	conn_close(&c);
	_exit(0);
}

/* ---- loading ---- */

static int load(struct wctx *wc, const char *path, const char *pragmas, int warehouses, uint64_t seed)
{
	struct conn c = { .rnd = seed ^ 0x5eed };
	struct cres r = {0};
	sqlite3_stmt *ins[8] = {0};
	char err[200], *msg = NULL, last[24], data[320];
	static const char *const ins_sql[8] = {
		"INSERT INTO warehouse VALUES (?1, 'warehouse', ?2, 30000000)",
		"INSERT INTO district VALUES (?1, ?2, 'district', ?3, 3000000, ?4)",
		"INSERT INTO customer VALUES (?1, ?2, ?3, ?4, ?5, ?6, -1000, 1000, 1, 0, ?7)",
		"INSERT INTO item VALUES (?1, ?2, ?3, ?4)",
		"INSERT INTO stock VALUES (?1, ?2, ?3, 0, 0, ?4)",
		"INSERT INTO orders VALUES (?1, ?2, ?3, ?4, 0, ?5, ?6)",
		"INSERT INTO new_order VALUES (?1, ?2, ?3)",
		"INSERT INTO order_line VALUES (?1, ?2, ?3, ?4, ?5, ?1, ?6, ?7, ?8)",
	};
	int rc = -1;
	c.r = &r;
	if (conn_open(&c, path, pragmas, 5000, err, sizeof err) < 0) {
		wl_fail(wc, "%s", err);
		goto out;
	}
	if (sqlite3_exec(c.db, schema, NULL, NULL, &msg) != SQLITE_OK ||
	    sqlite3_exec(c.db, "BEGIN", NULL, NULL, &msg) != SQLITE_OK) {
		wl_fail(wc, "creating the schema: %s", msg ? msg : sqlite3_errmsg(c.db));
		goto out;
	}
	for (int i = 0; i < 8; i++)
		if (sqlite3_prepare_v2(c.db, ins_sql[i], -1, &ins[i], NULL) != SQLITE_OK) {
			wl_fail(wc, "preparing %s: %s", ins_sql[i], sqlite3_errmsg(c.db));
			goto out;
		}
#define STEP(k) do { if (sqlite3_step(ins[k]) != SQLITE_DONE) { \
	wl_fail(wc, "loading: %s", sqlite3_errmsg(c.db)); goto out; } sqlite3_reset(ins[k]); } while (0)
#define BI(k, i, v) sqlite3_bind_int64(ins[k], i, v)
#define BT(k, i, v) sqlite3_bind_text(ins[k], i, v, -1, SQLITE_TRANSIENT)
	memset(data, 'x', sizeof data - 1);
	data[sizeof data - 1] = 0;
	for (int i = 1; i <= ITEMS; i++) {
		BI(3, 1, i), BT(3, 2, "item"), BI(3, 3, rnd(&c, 100, 10000)), BT(3, 4, data + 320 - 50);
		STEP(3);
	}
	for (int w = 1; w <= warehouses; w++) {
		BI(0, 1, w), BI(0, 2, rnd(&c, 0, 2000));
		STEP(0);
		for (int i = 1; i <= ITEMS; i++) {
			BI(4, 1, w), BI(4, 2, i), BI(4, 3, rnd(&c, 10, 100)), BT(4, 4, data + 320 - 50);
			STEP(4);
		}
		for (int d = 1; d <= DISTRICTS; d++) {
			BI(1, 1, w), BI(1, 2, d), BI(1, 3, rnd(&c, 0, 2000)), BI(1, 4, ORDERS + 1);
			STEP(1);
			for (int cu = 1; cu <= CUSTOMERS; cu++) {
				char first[16];
				snprintf(first, sizeof first, "F%06llx", (unsigned long long)rnd(&c, 0, 0xffffff));
				last_name(last, sizeof last, cu - 1);
				BI(2, 1, w), BI(2, 2, d), BI(2, 3, cu), BT(2, 4, first), BT(2, 5, last);
				BI(2, 6, rnd(&c, 0, 5000)), BT(2, 7, data + 320 - 300);
				STEP(2);
			}
			for (int o = 1; o <= ORDERS; o++) {
				int n = (int)rnd(&c, 5, 15), delivered = o <= ORDERS - UNDELIVERED;
				BI(5, 1, w), BI(5, 2, d), BI(5, 3, o), BI(5, 4, rnd(&c, 1, CUSTOMERS)), BI(5, 6, n);
				if (delivered)
					BI(5, 5, rnd(&c, 1, 10));
				else
					sqlite3_bind_null(ins[5], 5);
				STEP(5);
				if (!delivered) {
					BI(6, 1, w), BI(6, 2, d), BI(6, 3, o);
					STEP(6);
				}
				for (int l = 1; l <= n; l++) {
					BI(7, 1, w), BI(7, 2, d), BI(7, 3, o), BI(7, 4, l), BI(7, 5, rnd(&c, 1, ITEMS));
					if (delivered)
						BI(7, 6, 1);
					else
						sqlite3_bind_null(ins[7], 6);
					BI(7, 7, 5), BI(7, 8, delivered ? 0 : rnd(&c, 1, 999999));
					STEP(7);
				}
			}
		}
	}
	if (sqlite3_exec(c.db, "COMMIT; ANALYZE;", NULL, NULL, &msg) != SQLITE_OK) {
		wl_fail(wc, "committing the load: %s", msg ? msg : sqlite3_errmsg(c.db));
		goto out;
	}
	rc = 0;
out:
	sqlite3_free(msg);
	for (int i = 0; i < 8; i++)
		sqlite3_finalize(ins[i]);
	sqlite3_close(c.db);
	return rc;
}

/* ---- checks (TPC-C clause 3.3.2, conditions 1-4), one query each: the
 * number of warehouses or districts violating it ---- */
static const struct { const char *name, *sql; } checks[] = {
	{ "w_ytd_eq_sum_d_ytd",
	  "SELECT count(*) FROM warehouse WHERE w_ytd != (SELECT sum(d_ytd) FROM district WHERE d_w_id = w_id)" },
	{ "d_next_o_id_eq_max_o_id",
	  "SELECT count(*) FROM district WHERE d_next_o_id - 1 != (SELECT max(o_id) FROM orders"
	  " WHERE o_w_id = d_w_id AND o_d_id = d_id)" },
	{ "new_order_ids_contiguous",
	  "SELECT count(*) FROM (SELECT max(no_o_id) - min(no_o_id) + 1 AS span, count(*) AS n FROM new_order"
	  " GROUP BY no_w_id, no_d_id) WHERE span != n" },
	{ "order_lines_eq_sum_ol_cnt",
	  "SELECT count(*) FROM district WHERE (SELECT sum(o_ol_cnt) FROM orders WHERE o_w_id = d_w_id"
	  " AND o_d_id = d_id) != (SELECT count(*) FROM order_line WHERE ol_w_id = d_w_id AND ol_d_id = d_id)" },
};

static int check(struct wctx *c, const char *path)
{
	sqlite3 *db = NULL;
	int bad = 0;
	if (sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL) != SQLITE_OK) {
		sqlite3_close(db);
		return wl_fail(c, "unable to reopen %s for the checks", path);
	}
	jw_obj(&c->details, "checks");
	for (size_t i = 0; i < sizeof checks / sizeof checks[0]; i++) {
		sqlite3_stmt *st;
		long long n = -1;
		if (sqlite3_prepare_v2(db, checks[i].sql, -1, &st, NULL) == SQLITE_OK) {
			if (sqlite3_step(st) == SQLITE_ROW)
				n = sqlite3_column_int64(st, 0);
			sqlite3_finalize(st);
		}
		jw_str(&c->details, checks[i].name, n == 0 ? "ok" : n < 0 ? "error" : "violated");
		if (n != 0) {
			bad++;
			wl_fail(c, "consistency check %s %s", checks[i].name, n < 0 ? "could not run" : "violated");
		}
	}
	jw_obj_end(&c->details);
	sqlite3_close(db);
	return bad ? -1 : 0;
}

/* ---- the kernel's page cache ---- */

static void meminfo(struct wctx *c, const char *key)
{
	char *t = read_file("/proc/meminfo", NULL);
	if (!t)
		return;
	jw_obj(&c->details, key);
	jw_int(&c->details, "MemTotal_kB", sqlgen_meminfo_kb(t, "MemTotal"));
	jw_int(&c->details, "MemFree_kB", sqlgen_meminfo_kb(t, "MemFree"));
	jw_int(&c->details, "Cached_kB", sqlgen_meminfo_kb(t, "Cached"));
	jw_int(&c->details, "Dirty_kB", sqlgen_meminfo_kb(t, "Dirty"));
	jw_obj_end(&c->details);
	free(t);
}

/* Empties the page cache of the database: drop_caches when we may, else
 * DONTNEED on each file (after a sync, so the pages are clean). */
static const char *drop_cache(const char *path)
{
	static const char *const sfx[] = { "", "-wal", "-shm", "-journal" };
	char p[4200];
	int fadv = 0;
	if (drop_page_cache() == 0)
		return "drop_caches";
	for (size_t i = 0; i < sizeof sfx / sizeof sfx[0]; i++) {
		snprintf(p, sizeof p, "%s%s", path, sfx[i]);
		int fd = open(p, O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			continue;
		fdatasync(fd);
		if (posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED) == 0)
			fadv = 1;
		close(fd);
	}
	return fadv ? "fadvise" : "none";
}

static void remove_db(const char *path)
{
	static const char *const sfx[] = { "", "-journal", "-wal", "-shm" };
	char p[4200];
	for (size_t i = 0; i < sizeof sfx / sizeof sfx[0]; i++) {
		snprintf(p, sizeof p, "%s%s", path, sfx[i]);
		unlink(p);
	}
}

static int cmp_float(const void *a, const void *b)
{
	float x = *(const float *)a, y = *(const float *)b;
	return x < y ? -1 : x > y;
}

static int oltp_run(struct wctx *c)
{
	long long warehouses = wl_param_int(c, "warehouses"), clients = wl_param_int(c, "clients");
	long long duration = wl_param_int(c, "duration"), warmup = wl_param_int(c, "warmup");
	long long seed = wl_param_int(c, "seed"), page_size = wl_param_int(c, "page_size");
	long long cache_kib = wl_param_int(c, "cache_kib"), busy_ms = wl_param_int(c, "busy_ms");
	long long drop = wl_param_int(c, "drop_cache"), keep = wl_param_int(c, "keep");
	const char *journal = wl_param(c, "journal"), *sync_mode = wl_param(c, "sync");
	struct sbuf pragmas = {0};
	char path[4096], err[200];
	struct cres *res = MAP_FAILED;
	size_t res_len = 0;
	pid_t pids[MAX_CLIENTS];
	int rc = -1, nstarted = 0;
	double t_load, start, end;
	struct stat sb;

	if (warehouses < 0 || clients < 0 || duration < 0 || warmup < 0 || seed < 0 || page_size < 0 ||
	    cache_kib < 0 || busy_ms < 0 || drop < 0 || keep < 0)
		return -1;
	if (warehouses < 1 || warehouses > 1000)
		return wl_fail(c, "parameter warehouses must be in 1..1000");
	if (clients < 1 || clients > MAX_CLIENTS)
		return wl_fail(c, "parameter clients must be in 1..%d", MAX_CLIENTS);
	if (duration < 1)
		return wl_fail(c, "parameter duration must be at least 1 s");
	if (sqlgen_pragmas(&pragmas, page_size, journal, sync_mode, cache_kib, err, sizeof err) < 0)
		return wl_fail(c, "%s", err);

	snprintf(path, sizeof path, "%s/bootbench-oltp.db", c->dir);
	remove_db(path);
	t_load = mono_now();
	if (load(c, path, pragmas.s, (int)warehouses, seed) < 0)
		goto out;
	t_load = mono_now() - t_load;
	if (stat(path, &sb) < 0) {
		wl_fail(c, "unable to stat %s: %s", path, strerror(errno));
		goto out;
	}
	jw_str(&c->details, "engine", "sqlite " SQLITE_VERSION);
	jw_str(&c->details, "pragmas", pragmas.s);
	jw_num(&c->details, "load_s", t_load);
	jw_int(&c->details, "db_bytes", sb.st_size);
	jw_num(&c->details, "db_over_sqlite_cache", sb.st_size / (cache_kib * 1024.0));
	jw_str(&c->details, "cache_drop", drop ? drop_cache(path) : "not asked");
	meminfo(c, "meminfo_before");

	res_len = sizeof *res * clients;
	res = mmap(NULL, res_len, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (res == MAP_FAILED) {
		wl_fail(c, "unable to map %zu bytes for the results: %s", res_len, strerror(errno));
		goto out;
	}
	start = mono_now() + warmup;
	end = start + duration;
	fflush(NULL);
	for (int i = 0; i < clients; i++) {
		pid_t pid = fork();
		if (pid < 0) {
			wl_fail(c, "unable to start client %d: %s", i, strerror(errno));
			break;
		}
		if (pid == 0)
			client(path, pragmas.s, busy_ms, (int)warehouses, rng_next(&(uint64_t){ seed * 1000 + i + 1 }),
			       start, end, &res[i]);
		pids[nstarted++] = pid;
	}
	for (int i = 0; i < nstarted; i++) {
		int st;
		while (waitpid(pids[i], &st, 0) < 0 && errno == EINTR)
			;
		if (res[i].failed || !WIFEXITED(st) || WEXITSTATUS(st))
			wl_fail(c, "client %d failed: %s", i, res[i].err[0] ? res[i].err : "it died");
	}
	meminfo(c, "meminfo_after");
	if (wl_reason()[0])
		goto out;

	/* figures: everything merged over the clients */
	{
		long long n[T_N] = {0}, retries = 0, rollbacks = 0, dropped = 0;
		char name[48];
		for (int i = 0; i < clients; i++) {
			for (int t = 0; t < T_N; t++)
				n[t] += res[i].n[t];
			retries += res[i].busy_retries;
			rollbacks += res[i].rollbacks;
			dropped += res[i].dropped;
		}
		wl_metric(c, "new_order_tpm", n[T_NEW_ORDER] * 60.0 / duration, "tx/min", "higher");
		for (int t = 0; t < T_N; t++) {
			long long k = 0;
			float *all = xmalloc(sizeof *all * (n[t] ? n[t] : 1));
			for (int i = 0; i < clients; i++)
				for (long long j = 0; j < res[i].n[t] && j < LAT_CAP; j++)
					all[k++] = res[i].lat[t][j];
			qsort(all, k, sizeof *all, cmp_float);
			static const int pct[] = { 50, 90, 99 };
			/* nearest rank; a type that never ran has no latency
			 * (details.transactions says 0), not a figure of 0 */
			for (int p = 0; p < 3 && k; p++) {
				snprintf(name, sizeof name, "%s_p%d_ms", tname[t], pct[p]);
				wl_metric(c, name, all[(k * pct[p] + 99) / 100 - 1], "ms", "lower");
			}
			free(all);
		}
		wl_metric(c, "busy_retries", retries, "count", "lower");
		jw_obj(&c->details, "transactions");
		for (int t = 0; t < T_N; t++)
			jw_int(&c->details, tname[t], n[t]);
		jw_obj_end(&c->details);
		jw_int(&c->details, "new_order_rollbacks", rollbacks);
		jw_int(&c->details, "samples_dropped", dropped);
		jw_str(&c->details, "scale", "per warehouse: 10 districts, 300 customers/district, 10000 items+stock, "
						"300 orders/district (90 undelivered)");
	}
	if (check(c, path) < 0)
		goto out;
	if (keep)
		jw_str(&c->details, "db", path);
	rc = 0;
out:
	if (res != MAP_FAILED)
		munmap(res, res_len);
	if (!keep)
		remove_db(path);
	sb_free(&pragmas);
	return rc;
}

static const struct wparam oltp_params[] = {
	{ "warehouses", "1", "warehouses W (about 4 MB of database each)" },
	{ "clients", "2", "client processes, each with its own connection" },
	{ "duration", "10", "measured seconds" },
	{ "warmup", "2", "seconds run before measuring" },
	{ "seed", "1", "seed of the data and of the clients' choices" },
	{ "journal", "wal", "journal_mode: delete, truncate, wal or off" },
	{ "sync", "full", "synchronous: off, normal or full" },
	{ "page_size", "4096", "database page size in bytes" },
	{ "cache_kib", "2000", "SQLite page cache per connection in KiB" },
	{ "busy_ms", "5000", "busy_timeout of each connection, ms" },
	{ "drop_cache", "1", "1: empty the kernel's page cache of the database before the run" },
	{ "keep", "0", "1: keep DIR/bootbench-oltp.db afterwards" },
	{ NULL, NULL, NULL },
};

static const struct wl_label oltp_labels[] = {
	{ "new_order_tpm", "DBT-2's NOTPM (new-order transactions per minute), on SQLite" },
	{ NULL },
};

const struct workload wl_oltp = {
	.name = "oltp",
	.labels = oltp_labels,
	.summary = "TPC-C-like mix (new-order, payment, ...) by concurrent clients; tpm and latencies",
	.params = oltp_params,
	.needs = WL_NEEDS_DIR,
	.run = oltp_run,
};
