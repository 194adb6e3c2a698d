/*
 * hash.h - CRC32C (Castagnoli, the checksum of every results record) and
 * SHA-256 (userland and kernel-config fingerprints). Portable C: the
 * appliance must checksum identically under every kernel and CPU.
 */
#ifndef BB_HASH_H
#define BB_HASH_H

#include <stddef.h>
#include <stdint.h>

uint32_t crc32c(uint32_t crc, const void *buf, size_t len);

struct sha256 {
	uint32_t h[8];
	uint64_t len;
	unsigned char blk[64];
	size_t fill;
};
void sha256_init(struct sha256 *s);
void sha256_update(struct sha256 *s, const void *p, size_t n);
void sha256_final(struct sha256 *s, unsigned char out[32]);
/* hex must hold 65 bytes. */
void sha256_hex(const void *p, size_t n, char hex[65]);
void hexify(const unsigned char *in, size_t n, char *out);

/* HMAC-SHA-256 (RFC 2104), streamed: what signs the appliance's uploads
 * (lib/uploadauth.h, upload_sign). Keys longer than a block are hashed first. */
struct hmac_sha256 {
	struct sha256 in;
	unsigned char okey[64];
};
void hmac_sha256_init(struct hmac_sha256 *m, const void *key, size_t klen);
void hmac_sha256_update(struct hmac_sha256 *m, const void *p, size_t n);
void hmac_sha256_final(struct hmac_sha256 *m, unsigned char out[32]);
/* a and b (n bytes each) are equal, in a time that does not depend on where they differ. */
int same_bytes(const void *a, const void *b, size_t n);

/* IEEE 802.3 CRC32 (zlib's), as GPT requires. */
uint32_t crc32_ieee(uint32_t crc, const void *buf, size_t len);
#endif
