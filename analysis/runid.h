/*
 * runid.h - what produced a run, as canonical text: the workload's every
 * effective parameter, the layout's fingerprint and the tunables that held.
 * Two runs are the same experiment exactly when these strings are equal;
 * compare groups by them, collect prints them, bisect-run selects by them.
 */
#ifndef BB_RUNID_H
#define BB_RUNID_H

#include "json.h"
#include "sbuf.h"

struct run_id {
	struct sbuf params;	/* "k=v k=v" sorted; "-" when none */
	struct sbuf layout;	/* "name=..;kind=..;..." the layout as built */
	struct sbuf tunables;	/* requested tunables and whether they held */
	struct sbuf inforce;	/* tunables in force the plan did not set */
};

/* Fill id from a run record's "data" object (old records included: what
 * they lack reads as "-"). Free with run_id_free. */
void run_identity(const struct jv *data, struct run_id *id);
void run_id_free(struct run_id *id);

/* Is the pair "k=v" one of the pairs of a params (or tunables) text? */
int params_match(const char *params, const char *pair);
/* Pairs are separated by one blank; a word holding a blank, '=', a quote
 * or a control character is JSON-quoted. The length of the pair at p, and
 * of its key (up to the first '=' outside quotes) within its n bytes: */
size_t runid_pair_len(const char *p);
size_t runid_key_len(const char *p, size_t n);
/* compare --by: takes the pair of key out of a params or tunables text
 * (1, its value text into val; "-" when it was the only pair), or 0 when
 * the text has none; and puts "key=val" first in one. */
int runid_take(struct sbuf *text, const char *key, char *val, size_t len);
void runid_put(struct sbuf *text, const char *key, const char *val);

#endif
