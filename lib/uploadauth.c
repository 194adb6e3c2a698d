/*
 * uploadauth.c - upload signatures, key files and an upload's path
 * (uploadauth.h).
 */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "hash.h"
#include "uploadauth.h"
#include "xio.h"

#define UPLOAD_SIG_LABEL "bootbench-upload-2\n"

static void sign_raw(const unsigned char key[UPLOAD_KEY_LEN], const char *mac, const char *boot,
		     unsigned long long len, const char *digest, unsigned char out[32])
{
	struct hmac_sha256 m;
	char n[24];
	int nl = snprintf(n, sizeof n, "%llu\n", len);
	hmac_sha256_init(&m, key, UPLOAD_KEY_LEN);
	hmac_sha256_update(&m, UPLOAD_SIG_LABEL, strlen(UPLOAD_SIG_LABEL));
	hmac_sha256_update(&m, mac, strlen(mac));
	hmac_sha256_update(&m, "\n", 1);
	hmac_sha256_update(&m, boot, strlen(boot));
	hmac_sha256_update(&m, "\n", 1);
	hmac_sha256_update(&m, n, (size_t)nl);
	hmac_sha256_update(&m, digest, strlen(digest));
	hmac_sha256_final(&m, out);
}

void upload_sign(const unsigned char key[UPLOAD_KEY_LEN], const char *mac, const char *boot, const char *body,
		 size_t len, char digest[UPLOAD_SIG_HEX + 1], char hmac[UPLOAD_SIG_HEX + 1])
{
	unsigned char raw[32];
	sha256_hex(len ? body : "", len, digest);
	sign_raw(key, mac, boot, len, digest, raw);
	hexify(raw, sizeof raw, hmac);
}

static int hexval(int c)
{
	return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
}

/* 2n hex digits into n bytes: 0, or -1. */
static int unhex(const char *s, unsigned char *out, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		int hi = hexval((unsigned char)s[2 * i]), lo = hi < 0 ? -1 : hexval((unsigned char)s[2 * i + 1]);
		if (lo < 0)
			return -1;
		out[i] = (unsigned char)(hi << 4 | lo);
	}
	return 0;
}

/* 64 lowercase hex digits */
static int is_hex64(const char *s)
{
	return strlen(s) == UPLOAD_SIG_HEX && strspn(s, "0123456789abcdef") == UPLOAD_SIG_HEX;
}

int upload_head_ok(const unsigned char key[UPLOAD_KEY_LEN], const char *mac, const char *boot,
		   unsigned long long len, const char *digest, const char *hmac)
{
	unsigned char want[32], got[32];
	if (!is_hex64(digest) || !is_hex64(hmac) || unhex(hmac, got, sizeof got) < 0)
		return 0;
	sign_raw(key, mac, boot, len, digest, want);
	return same_bytes(want, got, sizeof want);
}

int upload_body_ok(const char *body, size_t len, const char *digest)
{
	char hex[UPLOAD_SIG_HEX + 1];
	if (strlen(digest) != UPLOAD_SIG_HEX)
		return 0;
	sha256_hex(len ? body : "", len, hex);
	return same_bytes(hex, digest, UPLOAD_SIG_HEX);
}

int upload_key_parse(const char *text, size_t len, unsigned char key[UPLOAD_KEY_LEN])
{
	static const unsigned char zero[UPLOAD_KEY_LEN];
	if (len < UPLOAD_KEY_HEX || unhex(text, key, UPLOAD_KEY_LEN) < 0 || !memcmp(key, zero, sizeof zero))
		return -1;	/* all zeros: a placeholder, not a key */
	for (size_t i = UPLOAD_KEY_HEX; i < len; i++)
		if (!isspace((unsigned char)text[i]))
			return -1;
	return 0;
}

int upload_key_load(const char *path, unsigned char key[UPLOAD_KEY_LEN], char *err, size_t errlen)
{
	char text[4096];
	ssize_t n;
	int fd = open_regular(path, O_RDONLY, 0);	/* a FIFO put there does not hang the caller */
	if (fd < 0 && errno == EINVAL) {
		snprintf(err, errlen, "the key file %s is not a regular file", path);
		return -1;
	}
	if (fd < 0) {
		snprintf(err, errlen, "unable to read the key file %s: %s", path, strerror(errno));
		return errno == ENOENT ? 0 : -1;
	}
	n = read(fd, text, sizeof text);	/* a key file is 65 bytes: 4 KiB is no key */
	close(fd);
	if (n < 0 || n == (ssize_t)sizeof text || upload_key_parse(text, (size_t)n, key) < 0) {
		snprintf(err, errlen, "%s is not an upload key (64 hex digits)", path);
		return -1;
	}
	return 1;
}

void upload_key_text(const unsigned char key[UPLOAD_KEY_LEN], char text[UPLOAD_KEY_HEX + 2])
{
	hexify(key, UPLOAD_KEY_LEN, text);
	text[UPLOAD_KEY_HEX] = '\n';
	text[UPLOAD_KEY_HEX + 1] = 0;
}

int upload_path_parse(const char *path, char mac[18], char boot[UPLOAD_TOKEN_LEN + 1],
		      char digest[UPLOAD_SIG_HEX + 1], char sig[UPLOAD_SIG_HEX + 1])
{
	const char *m, *b, *d = NULL, *h = NULL;
	char in[18];
	size_t l;
	if (sig) {
		if (strncmp(path, "/results/", 9))
			return UPLOAD_PATH_BAD_MAC;
		m = path + 9;
	} else {
		/* a URL ending in /results/MAC/BOOT: MAC is 17 characters
		 * before the last slash */
		const char *last = strrchr(path, '/');
		if (!last || last - path < 18 || last[-18] != '/')
			return UPLOAD_PATH_BAD_MAC;
		m = last - 17;
	}
	l = strlen(m);
	if (l < 17 || (l > 17 && m[17] != '/'))
		return UPLOAD_PATH_BAD_MAC;
	snprintf(in, sizeof in, "%.17s", m);
	if (!mac_normal(in, mac))
		return UPLOAD_PATH_BAD_MAC;
	b = l > 17 ? m + 18 : "";
	if (!sig) {
		if (strlen(b) != UPLOAD_TOKEN_LEN)
			return UPLOAD_PATH_UNSIGNED;
		snprintf(boot, UPLOAD_TOKEN_LEN + 1, "%s", b);
		return UPLOAD_PATH_OK;
	}
	/* BOOT/DIGEST/HMAC: 32, 64 and 64 characters */
	if (strlen(b) != UPLOAD_TOKEN_LEN + 1 + UPLOAD_SIG_HEX + 1 + UPLOAD_SIG_HEX || b[UPLOAD_TOKEN_LEN] != '/' ||
	    b[UPLOAD_TOKEN_LEN + 1 + UPLOAD_SIG_HEX] != '/')
		return UPLOAD_PATH_UNSIGNED;
	d = b + UPLOAD_TOKEN_LEN + 1;
	h = d + UPLOAD_SIG_HEX + 1;
	if (strspn(d, "0123456789abcdef") != UPLOAD_SIG_HEX || !is_hex64(h))
		return UPLOAD_PATH_UNSIGNED;
	snprintf(boot, UPLOAD_TOKEN_LEN + 1, "%.*s", (int)UPLOAD_TOKEN_LEN, b);
	snprintf(digest, UPLOAD_SIG_HEX + 1, "%.*s", (int)UPLOAD_SIG_HEX, d);
	snprintf(sig, UPLOAD_SIG_HEX + 1, "%s", h);
	return UPLOAD_PATH_OK;
}
