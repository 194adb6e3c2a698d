/*
 * hash.c - table-driven CRC32C and a straightforward SHA-256 (FIPS 180-4).
 */
#include <string.h>

#include "hash.h"

static uint32_t crc_table[256];
static int crc_ready;

static void crc_init(void)
{
	for (uint32_t i = 0; i < 256; i++) {
		uint32_t c = i;
		for (int k = 0; k < 8; k++)
			c = c & 1 ? (c >> 1) ^ 0x82f63b78u : c >> 1;
		crc_table[i] = c;
	}
	crc_ready = 1;
}

/* Standard CRC32C: crc32c(0, "123456789", 9) == 0xe3069283. */
uint32_t crc32c(uint32_t crc, const void *buf, size_t len)
{
	const unsigned char *p = buf;
	if (!crc_ready)
		crc_init();
	crc = ~crc;
	while (len--)
		crc = crc_table[(crc ^ *p++) & 0xff] ^ (crc >> 8);
	return ~crc;
}

static const uint32_t K[64] = {
	0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
	0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
	0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
	0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
	0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
	0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
	0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
	0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
};

#define ROR(x, n) (((x) >> (n)) | ((x) << (32 - (n))))

static void block(struct sha256 *s, const unsigned char *b)
{
	uint32_t w[64], a, bb, c, d, e, f, g, h;
	for (int i = 0; i < 16; i++)
		w[i] = (uint32_t)b[4 * i] << 24 | (uint32_t)b[4 * i + 1] << 16 |
		       (uint32_t)b[4 * i + 2] << 8 | b[4 * i + 3];
	for (int i = 16; i < 64; i++) {
		uint32_t s0 = ROR(w[i - 15], 7) ^ ROR(w[i - 15], 18) ^ (w[i - 15] >> 3);
		uint32_t s1 = ROR(w[i - 2], 17) ^ ROR(w[i - 2], 19) ^ (w[i - 2] >> 10);
		w[i] = w[i - 16] + s0 + w[i - 7] + s1;
	}
	a = s->h[0]; bb = s->h[1]; c = s->h[2]; d = s->h[3];
	e = s->h[4]; f = s->h[5]; g = s->h[6]; h = s->h[7];
	for (int i = 0; i < 64; i++) {
		uint32_t t1 = h + (ROR(e, 6) ^ ROR(e, 11) ^ ROR(e, 25)) + ((e & f) ^ (~e & g)) + K[i] + w[i];
		uint32_t t2 = (ROR(a, 2) ^ ROR(a, 13) ^ ROR(a, 22)) + ((a & bb) ^ (a & c) ^ (bb & c));
		h = g; g = f; f = e; e = d + t1;
		d = c; c = bb; bb = a; a = t1 + t2;
	}
	s->h[0] += a; s->h[1] += bb; s->h[2] += c; s->h[3] += d;
	s->h[4] += e; s->h[5] += f; s->h[6] += g; s->h[7] += h;
}

void sha256_init(struct sha256 *s)
{
	static const uint32_t iv[8] = { 0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
					0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19 };
	memcpy(s->h, iv, sizeof iv);
	s->len = 0;
	s->fill = 0;
}

void sha256_update(struct sha256 *s, const void *p, size_t n)
{
	const unsigned char *b = p;
	s->len += n;
	while (n) {
		size_t take = 64 - s->fill;
		if (take > n)
			take = n;
		memcpy(s->blk + s->fill, b, take);
		s->fill += take;
		b += take;
		n -= take;
		if (s->fill == 64) {
			block(s, s->blk);
			s->fill = 0;
		}
	}
}

void sha256_final(struct sha256 *s, unsigned char out[32])
{
	uint64_t bits = s->len * 8;
	unsigned char pad = 0x80, zero = 0, lenb[8];
	sha256_update(s, &pad, 1);
	while (s->fill != 56)
		sha256_update(s, &zero, 1);
	for (int i = 0; i < 8; i++)
		lenb[i] = bits >> (56 - 8 * i);
	sha256_update(s, lenb, 8);
	for (int i = 0; i < 8; i++) {
		out[4 * i] = s->h[i] >> 24;
		out[4 * i + 1] = s->h[i] >> 16;
		out[4 * i + 2] = s->h[i] >> 8;
		out[4 * i + 3] = s->h[i];
	}
}

void hexify(const unsigned char *in, size_t n, char *out)
{
	static const char d[] = "0123456789abcdef";
	for (size_t i = 0; i < n; i++) {
		out[2 * i] = d[in[i] >> 4];
		out[2 * i + 1] = d[in[i] & 15];
	}
	out[2 * n] = 0;
}

void sha256_hex(const void *p, size_t n, char hex[65])
{
	struct sha256 s;
	unsigned char out[32];
	sha256_init(&s);
	sha256_update(&s, p, n);
	sha256_final(&s, out);
	hexify(out, 32, hex);
}

void hmac_sha256_init(struct hmac_sha256 *m, const void *key, size_t klen)
{
	unsigned char k[64] = { 0 }, ikey[64];
	if (klen > sizeof k) {
		struct sha256 s;
		sha256_init(&s);
		sha256_update(&s, key, klen);
		sha256_final(&s, k);
	} else if (klen) {
		memcpy(k, key, klen);
	}
	for (size_t i = 0; i < sizeof k; i++) {
		ikey[i] = k[i] ^ 0x36;
		m->okey[i] = k[i] ^ 0x5c;
	}
	sha256_init(&m->in);
	sha256_update(&m->in, ikey, sizeof ikey);
}

void hmac_sha256_update(struct hmac_sha256 *m, const void *p, size_t n)
{
	sha256_update(&m->in, p, n);
}

void hmac_sha256_final(struct hmac_sha256 *m, unsigned char out[32])
{
	struct sha256 o;
	unsigned char inner[32];
	sha256_final(&m->in, inner);
	sha256_init(&o);
	sha256_update(&o, m->okey, sizeof m->okey);
	sha256_update(&o, inner, sizeof inner);
	sha256_final(&o, out);
}

int same_bytes(const void *a, const void *b, size_t n)
{
	const volatile unsigned char *x = a, *y = b;
	unsigned char d = 0;
	for (size_t i = 0; i < n; i++)
		d |= x[i] ^ y[i];
	return !d;
}

static uint32_t ieee_table[256];

uint32_t crc32_ieee(uint32_t crc, const void *buf, size_t len)
{
	const unsigned char *p = buf;
	if (!ieee_table[1])
		for (uint32_t i = 0; i < 256; i++) {
			uint32_t c = i;
			for (int k = 0; k < 8; k++)
				c = c & 1 ? (c >> 1) ^ 0xedb88320u : c >> 1;
			ieee_table[i] = c;
		}
	crc = ~crc;
	while (len--)
		crc = ieee_table[(crc ^ *p++) & 0xff] ^ (crc >> 8);
	return ~crc;
}
