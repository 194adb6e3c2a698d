/*
 * sqlgen.c - the dbload data set as SQL text (see sqlgen.h). Only integers
 * and fixed word lists go into the text: no floating point formatting and no
 * locale, so the bytes depend on the seed and row count alone. The SQL is the
 * common subset that SQLite and PostgreSQL both accept.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rng.h"
#include "sqlgen.h"

const char *const sqlgen_tables[SG_NTABLES] = { "customers", "items", "orders", "order_lines" };

static const char *const first[] = {
	"Ada", "Alan", "Barbara", "Brian", "Dennis", "Donald", "Edsger", "Frances",
	"Grace", "John", "Ken", "Leslie", "Linus", "Margaret", "Niklaus", "Radia",
};
static const char *const last[] = {
	"Allen", "Backus", "Cerf", "Dijkstra", "Hamilton", "Hopper", "Kernighan", "Knuth",
	"Lamport", "Liskov", "Lovelace", "Perlman", "Ritchie", "Thompson", "Torvalds", "Wirth",
};
static const char *const cities[] = {
	"Berlin", "Firenze", "Helsinki", "Lisboa", "Madrid", "Oslo", "Paris", "Praha",
	"Roma", "Tallinn", "Warszawa", "Wien",
};
static const char *const words[] = {
	"blue", "brass", "cable", "compact", "copper", "deluxe", "disk", "fan",
	"green", "heavy", "large", "light", "mini", "plug", "red", "steel",
};
static const char *const statuses[] = { "new", "paid", "shipped", "delivered", "returned" };
#define N(a) (sizeof(a) / sizeof((a)[0]))


static long long below(struct sqlgen *g, long long n)
{
	return (long long)(rng_next(&g->s) % (uint64_t)n);
}

void sqlgen_init(struct sqlgen *g, uint64_t seed, long long rows)
{
	*g = (struct sqlgen){ 0 };
	g->s = rng_seed(seed);
	g->rows = rows;
	g->ncustomers = rows / 20 + 1;
	g->nitems = rows / 50 + 10;
}

void sqlgen_schema(struct sbuf *sb)
{
	sb_puts(sb,
		"CREATE TABLE customers (id INTEGER PRIMARY KEY, name TEXT NOT NULL, email TEXT NOT NULL, city TEXT NOT NULL, since DATE NOT NULL);\n"
		"CREATE TABLE items (id INTEGER PRIMARY KEY, sku TEXT NOT NULL UNIQUE, title TEXT NOT NULL, price_cents INTEGER NOT NULL);\n"
		"CREATE TABLE orders (id INTEGER PRIMARY KEY, customer_id INTEGER NOT NULL REFERENCES customers (id), placed DATE NOT NULL, status TEXT NOT NULL);\n"
		"CREATE TABLE order_lines (order_id INTEGER NOT NULL REFERENCES orders (id), line_no INTEGER NOT NULL, item_id INTEGER NOT NULL REFERENCES items (id), qty INTEGER NOT NULL, price_cents INTEGER NOT NULL, PRIMARY KEY (order_id, line_no));\n"
		"CREATE INDEX customers_city ON customers (city, name);\n"
		"CREATE INDEX items_title ON items (title);\n"
		"CREATE INDEX orders_customer ON orders (customer_id, placed);\n"
		"CREATE INDEX orders_status ON orders (status);\n"
		"CREATE INDEX order_lines_item ON order_lines (item_id);\n");
}

/* 'YYYY-MM-DD' from a day number: 12 months of 28 days are plenty here. */
static void date(struct sbuf *sb, long long day)
{
	sb_printf(sb, "'%04lld-%02lld-%02lld'", 2015 + day / 336, 1 + day / 28 % 12, 1 + day % 28);
}

int sqlgen_next(struct sqlgen *g, struct sbuf *sb)
{
	for (;;) {
		switch (g->phase) {
		case SG_CUSTOMERS:
			if (g->i == g->ncustomers)
				break;
			g->i++;
			{
				const char *f = first[below(g, N(first))], *l = last[below(g, N(last))];
				sb_printf(sb, "INSERT INTO customers VALUES (%lld, '%s O''%s', '%s.%s.%lld@example.org', '%s', ",
					  g->i, f, l, f, l, g->i, cities[below(g, N(cities))]);
				date(sb, below(g, 3000));
				sb_puts(sb, ");\n");
			}
			g->counts[SG_CUSTOMERS]++;
			return 1;
		case SG_ITEMS:
			if (g->i == g->nitems)
				break;
			g->i++;
			sb_printf(sb, "INSERT INTO items VALUES (%lld, 'SKU-%08llx', '%s %s %s', %lld);\n", g->i,
				  (long long)(rng_next(&g->s) >> 32), words[below(g, N(words))],
				  words[below(g, N(words))], words[below(g, N(words))], 99 + below(g, 99900));
			g->counts[SG_ITEMS]++;
			return 1;
		case SG_ORDERS:
			/* an order, then its lines (phase SG_ORDER_LINES), then the next */
			if (g->i == g->rows)
				break;
			g->order++;
			g->order_lines_left = 1 + below(g, 7);
			g->line_no = 0;
			if (g->order_lines_left > g->rows - g->i)
				g->order_lines_left = g->rows - g->i;
			sb_printf(sb, "INSERT INTO orders VALUES (%lld, %lld, ", g->order, 1 + below(g, g->ncustomers));
			date(sb, 2000 + below(g, 1000));
			sb_printf(sb, ", '%s');\n", statuses[below(g, N(statuses))]);
			g->counts[SG_ORDERS]++;
			g->phase = SG_ORDER_LINES;
			return 1;
		case SG_ORDER_LINES:
			if (!g->order_lines_left) {
				g->phase = SG_ORDERS;
				continue;
			}
			g->i++;
			g->line_no++;
			sb_printf(sb, "INSERT INTO order_lines VALUES (%lld, %lld, %lld, %lld, %lld);\n", g->order,
				  g->line_no, 1 + below(g, g->nitems), 1 + below(g, 9), 99 + below(g, 99900));
			g->order_lines_left--;
			g->counts[SG_ORDER_LINES]++;
			return 1;
		default:
			return 0;
		}
		/* the table is full: the next one (orders and lines alternate) */
		if (g->phase == SG_ORDERS)
			return g->phase = SG_NTABLES, 0;
		g->phase++;
		g->i = 0;
	}
}

int sqlgen_pragmas(struct sbuf *sb, long long page_size, const char *journal, const char *sync,
		   long long cache_kib, char *err, size_t errlen)
{
	static const char *const journals[] = { "delete", "truncate", "wal", "off" };
	static const char *const syncs[] = { "off", "normal", "full" };
	size_t i;

	for (i = 0; i < N(journals) && strcmp(journal, journals[i]); i++)
		;
	if (i == N(journals))
		return snprintf(err, errlen, "parameter journal=\"%s\" is not one of delete, truncate, wal, off", journal), -1;
	for (i = 0; i < N(syncs) && strcmp(sync, syncs[i]); i++)
		;
	if (i == N(syncs))
		return snprintf(err, errlen, "parameter sync=\"%s\" is not one of off, normal, full", sync), -1;
	if (page_size < 512 || page_size > 65536 || (page_size & (page_size - 1)))
		return snprintf(err, errlen, "parameter page_size=%lld is not a power of two in 512..65536", page_size), -1;
	if (cache_kib < 1)
		return snprintf(err, errlen, "parameter cache_kib=%lld must be at least 1", cache_kib), -1;
	/* page_size and auto_vacuum before anything is written (and before WAL,
	 * which fixes the page size); secure_delete and auto_vacuum spelled out
	 * because Debian's sqlite3 is built with other defaults for them */
	sb_printf(sb,
		  "PRAGMA page_size = %lld;\n"
		  "PRAGMA auto_vacuum = NONE;\n"
		  "PRAGMA journal_mode = %s;\n"
		  "PRAGMA synchronous = %s;\n"
		  "PRAGMA cache_size = -%lld;\n"
		  "PRAGMA secure_delete = OFF;\n",
		  page_size, journal, sync, cache_kib);
	return 0;
}

long long sqlgen_meminfo_kb(const char *text, const char *key)
{
	size_t kl = strlen(key);
	for (const char *p = text; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL)
		if (!strncmp(p, key, kl) && p[kl] == ':')
			return strtoll(p + kl + 1, NULL, 10);
	return -1;
}

int sqlgen_chunk(struct sqlgen *g, long long txn, struct sbuf *sb)
{
	long long n = 0;
	sb_reset(sb);
	if (txn)
		sb_puts(sb, "BEGIN;\n");
	while (n < (txn ? txn : 1) && sqlgen_next(g, sb))
		n++;
	if (!n)
		return 0;
	if (txn)
		sb_puts(sb, "COMMIT;\n");
	return 1;
}

void sqlgen_header(struct sbuf *sb, unsigned long long seed, long long rows)
{
	sb_printf(sb, "-- bootbench dbload schema (seed %llu, rows %lld)\n", seed, rows);
}
