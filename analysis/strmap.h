/*
 * strmap.h - a string-keyed hash map to indices (open addressing, FNV-1a),
 * so compare looks a boot, a run or a group up in O(1) however many boots
 * a fleet produced. Keys are copied; values are caller-defined indices.
 */
#ifndef BB_STRMAP_H
#define BB_STRMAP_H

#include <stddef.h>

struct strmap {
	char **key;
	size_t *val;
	size_t cap, n;
};

/* The index stored under key, or (size_t)-1. */
size_t strmap_get(const struct strmap *m, const char *key);
/* Store val under key unless the key is there: returns the value in the
 * map afterwards (the old one if the key existed). */
size_t strmap_put(struct strmap *m, const char *key, size_t val);
void strmap_free(struct strmap *m);

#endif
