/*
 * json.h - the record payload language: a writer that cannot produce invalid
 * JSON, and a small DOM parser for records read back from disk or a console.
 *
 * The parser takes a buffer (never a file) and bounds its nesting depth, so
 * corrupt or hostile input from a results partition cannot exhaust the stack.
 */
#ifndef BB_JSON_H
#define BB_JSON_H

#include <stddef.h>

#include "sbuf.h"

/* ---- writer ---- */
struct jw {
	struct sbuf sb;
	int depth;
	unsigned char first[64];	/* per level: no element written yet */
};

void jw_init(struct jw *w);
/* key is NULL for array elements and the top-level value. */
void jw_obj(struct jw *w, const char *key);
void jw_obj_end(struct jw *w);
void jw_arr(struct jw *w, const char *key);
void jw_arr_end(struct jw *w);
void jw_str(struct jw *w, const char *key, const char *val);	/* NULL -> null */
void jw_int(struct jw *w, const char *key, long long val);
void jw_num(struct jw *w, const char *key, double val);	/* non-finite -> null */
void jw_bool(struct jw *w, const char *key, int val);
void jw_null(struct jw *w, const char *key);
/* Insert already-valid JSON text as a value. */
void jw_raw(struct jw *w, const char *key, const char *json);
/* Escape s as a JSON string literal into sb. */
void json_quote(struct sbuf *sb, const char *s);

/* ---- parser ---- */
enum jtype { J_NULL, J_BOOL, J_NUM, J_STR, J_ARR, J_OBJ };

/* Read the member that t says; the others share its storage. */
struct jv {
	enum jtype t;
	int b;			/* J_BOOL */
	size_t n;		/* J_ARR / J_OBJ element count, else 0 */
	union {
		double num;		/* J_NUM */
		char *str;		/* J_STR */
		struct jv **items;	/* J_ARR / J_OBJ */
	};
	char **keys;		/* J_OBJ */
};

#define JSON_MAX_DEPTH 48

/* NULL on error, with a message (and byte offset) in err. Strings are valid
 * UTF-8 and object keys unique, or the text is refused. The tree takes at
 * most 24 bytes per byte of input (one arena, exact-sized arrays). */
struct jv *json_parse(const char *buf, size_t len, char *err, size_t errlen);
/* Frees a whole tree: only what json_parse returned, never a subtree. */
void json_free(struct jv *v);
const struct jv *json_get(const struct jv *obj, const char *key);
/* Convenience getters: NULL / def when absent or of another type. */
const char *json_get_str(const struct jv *obj, const char *key);
double json_get_num(const struct jv *obj, const char *key, double def);
/* Serialize a value back to compact JSON text (keys in stored order). */
void json_dump(struct sbuf *sb, const struct jv *v);

#endif
