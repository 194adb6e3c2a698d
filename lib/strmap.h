/*
 * strmap.h - a string-keyed hash map to indices (open addressing, FNV-1a),
 * so compare looks a boot, a run or a group up in O(1) however many boots
 * a fleet produced; keys are copied, values are caller-defined indices.
 * And sets and maps of 64-bit keys (digests), under compare's run
 * de-duplication and the boot server's record store (lib/recstore.c).
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

/* A set of 64-bit keys (0 is not a key): 16 bytes a member at most. */
struct u64set {
	unsigned long long *k;
	size_t cap, n;
};
/* 1 if key was there already, else adds it and returns 0. */
int u64set_add(struct u64set *s, unsigned long long key);
/* 1 if key is in the set. */
int u64set_has(const struct u64set *s, unsigned long long key);
void u64set_free(struct u64set *s);

/* A map of 64-bit keys (0 is not a key) to 64-bit counts. The slot is a
 * multiplicative hash of the key: give it keys that are already uniform
 * (a digest), and a keyed one where the input is hostile. */
struct u64map {
	unsigned long long *k, *v;
	size_t cap, n;
};
/* The value of key; when it is absent, NULL, or (make) a new 0. */
unsigned long long *u64map_get(struct u64map *m, unsigned long long key, int make);
void u64map_free(struct u64map *m);

#endif
