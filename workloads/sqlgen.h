/*
 * sqlgen.h - the dbload data set as SQL text: a small shop schema (customers,
 * items, orders, order_lines, with secondary indexes) and a deterministic
 * stream of INSERT statements from a seeded xorshift generator, so the same
 * seed gives the same bytes on every machine, to our engine or to psql.
 */
#ifndef BB_SQLGEN_H
#define BB_SQLGEN_H

#include <stddef.h>
#include <stdint.h>

#include "sbuf.h"

enum { SG_CUSTOMERS, SG_ITEMS, SG_ORDERS, SG_ORDER_LINES, SG_NTABLES };
extern const char *const sqlgen_tables[SG_NTABLES];

struct sqlgen {
	uint64_t s;			/* xorshift64* state */
	long long rows;			/* order lines to produce in all */
	long long ncustomers, nitems;
	int phase;			/* the table being filled */
	long long i;			/* rows of that table done */
	long long order, line_no, order_lines_left;
	long long counts[SG_NTABLES];	/* statements produced per table */
};

/* rows: order lines; customers and items are sized from it. */
void sqlgen_init(struct sqlgen *g, uint64_t seed, long long rows);
/* The CREATE TABLE / CREATE INDEX statements, one per line. */
void sqlgen_schema(struct sbuf *sb);
/* Appends the next INSERT (one line, ending ";\n"); 0 once all are out. */
int sqlgen_next(struct sqlgen *g, struct sbuf *sb);

/* The next transaction's text into sb (reset first): BEGIN, up to txn
 * INSERTs, COMMIT; or, with txn 0, one statement in autocommit (psql's
 * default). 0 at the end. dbload and pgimport import these very bytes. */
int sqlgen_chunk(struct sqlgen *g, long long txn, struct sbuf *sb);
/* The comment line that starts an import's text. */
void sqlgen_header(struct sbuf *sb, unsigned long long seed, long long rows);


/* ---- shared by the database workloads (dbload, oltp) ---- */
/* The PRAGMA text for a connection; -1 and a reason in err for a bad value.
 * journal: delete|truncate|wal|off; sync: off|normal|full. */
int sqlgen_pragmas(struct sbuf *sb, long long page_size, const char *journal, const char *sync,
		   long long cache_kib, char *err, size_t errlen);
/* A "Key:   123 kB" field of /proc/meminfo text, in kB; -1 if absent. */
long long sqlgen_meminfo_kb(const char *text, const char *key);

#endif
