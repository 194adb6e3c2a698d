/*
 * strmap.c - see strmap.h. Linear probing at a load factor under 1/2.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "strmap.h"
#include "xio.h"

static uint64_t fnv1a(const char *s)
{
	uint64_t h = 1469598103934665603ull;
	for (; *s; s++) {
		h ^= (unsigned char)*s;
		h *= 1099511628211ull;
	}
	return h;
}

static size_t slot_of(const struct strmap *m, const char *key)
{
	size_t i = fnv1a(key) & (m->cap - 1);
	while (m->key[i] && strcmp(m->key[i], key))
		i = (i + 1) & (m->cap - 1);
	return i;
}

size_t strmap_get(const struct strmap *m, const char *key)
{
	size_t i;
	if (!m->cap)
		return (size_t)-1;
	i = slot_of(m, key);
	return m->key[i] ? m->val[i] : (size_t)-1;
}

static void grow(struct strmap *m)
{
	struct strmap n = { 0 };
	n.cap = m->cap ? m->cap * 2 : 64;
	n.key = xcalloc(n.cap, sizeof *n.key);
	n.val = xcalloc(n.cap, sizeof *n.val);
	for (size_t i = 0; i < m->cap; i++)
		if (m->key[i]) {
			size_t j = slot_of(&n, m->key[i]);
			n.key[j] = m->key[i];
			n.val[j] = m->val[i];
		}
	n.n = m->n;
	free(m->key);
	free(m->val);
	*m = n;
}

size_t strmap_put(struct strmap *m, const char *key, size_t val)
{
	size_t i;
	if ((m->n + 1) * 2 > m->cap)
		grow(m);
	i = slot_of(m, key);
	if (m->key[i])
		return m->val[i];
	m->key[i] = xstrdup(key);
	m->val[i] = val;
	m->n++;
	return val;
}

void strmap_free(struct strmap *m)
{
	for (size_t i = 0; i < m->cap; i++)
		free(m->key[i]);
	free(m->key);
	free(m->val);
	memset(m, 0, sizeof *m);
}

static size_t u64_slot(const struct u64set *s, unsigned long long key)
{
	unsigned long long h = key * 0x9e3779b97f4a7c15ull;
	size_t i = (size_t)(h >> 17) & (s->cap - 1);
	while (s->k[i] && s->k[i] != key)
		i = (i + 1) & (s->cap - 1);
	return i;
}

int u64set_add(struct u64set *s, unsigned long long key)
{
	size_t i;
	if ((s->n + 1) * 2 > s->cap) {
		struct u64set n = { xcalloc(s->cap ? s->cap * 2 : 64, sizeof *n.k), s->cap ? s->cap * 2 : 64, s->n };
		for (size_t j = 0; j < s->cap; j++)
			if (s->k[j])
				n.k[u64_slot(&n, s->k[j])] = s->k[j];
		free(s->k);
		*s = n;
	}
	i = u64_slot(s, key);
	if (s->k[i])
		return 1;
	s->k[i] = key;
	s->n++;
	return 0;
}

int u64set_has(const struct u64set *s, unsigned long long key)
{
	return key && s->cap && s->k[u64_slot(s, key)] == key;
}

static size_t u64map_slot(const struct u64map *m, unsigned long long key)
{
	size_t i = (size_t)((key * 0x9e3779b97f4a7c15ull) >> 17) & (m->cap - 1);
	while (m->k[i] && m->k[i] != key)
		i = (i + 1) & (m->cap - 1);
	return i;
}

unsigned long long *u64map_get(struct u64map *m, unsigned long long key, int make)
{
	size_t i;
	if (!key)
		return NULL;
	if (m->cap) {
		i = u64map_slot(m, key);
		if (m->k[i])
			return &m->v[i];
	}
	if (!make)
		return NULL;
	if ((m->n + 1) * 2 > m->cap) {
		size_t cap = m->cap ? m->cap * 2 : 64;
		struct u64map b = { xcalloc(cap, sizeof *b.k), xcalloc(cap, sizeof *b.v), cap, m->n };
		for (size_t j = 0; j < m->cap; j++)
			if (m->k[j]) {
				size_t t = u64map_slot(&b, m->k[j]);
				b.k[t] = m->k[j];
				b.v[t] = m->v[j];
			}
		free(m->k);
		free(m->v);
		*m = b;
	}
	i = u64map_slot(m, key);
	m->k[i] = key;
	m->v[i] = 0;
	m->n++;
	return &m->v[i];
}

void u64map_free(struct u64map *m)
{
	free(m->k);
	free(m->v);
	memset(m, 0, sizeof *m);
}

void u64set_free(struct u64set *s)
{
	free(s->k);
	memset(s, 0, sizeof *s);
}
