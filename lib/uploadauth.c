/*
 * uploadauth.c - upload signatures and key files (uploadauth.h).
 */
#include <ctype.h>
#include <string.h>

#include "hash.h"
#include "uploadauth.h"

#define UPLOAD_SIG_LABEL "bootbench-upload-1\n"

static void sign_raw(const unsigned char key[UPLOAD_KEY_LEN], const char *mac, const char *boot, const char *body,
		     size_t len, unsigned char out[32])
{
	struct hmac_sha256 m;
	hmac_sha256_init(&m, key, UPLOAD_KEY_LEN);
	hmac_sha256_update(&m, UPLOAD_SIG_LABEL, strlen(UPLOAD_SIG_LABEL));
	hmac_sha256_update(&m, mac, strlen(mac));
	hmac_sha256_update(&m, "\n", 1);
	hmac_sha256_update(&m, boot, strlen(boot));
	hmac_sha256_update(&m, "\n", 1);
	if (len)
		hmac_sha256_update(&m, body, len);
	hmac_sha256_final(&m, out);
}

void upload_sign(const unsigned char key[UPLOAD_KEY_LEN], const char *mac, const char *boot, const char *body,
		 size_t len, char hex[UPLOAD_SIG_HEX + 1])
{
	unsigned char raw[32];
	sign_raw(key, mac, boot, body, len, raw);
	hexify(raw, sizeof raw, hex);
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

int upload_sig_ok(const unsigned char key[UPLOAD_KEY_LEN], const char *mac, const char *boot, const char *body,
		  size_t len, const char *hex)
{
	unsigned char want[32], got[32];
	if (strlen(hex) != UPLOAD_SIG_HEX || unhex(hex, got, sizeof got) < 0)
		return 0;
	sign_raw(key, mac, boot, body, len, want);
	return same_bytes(want, got, sizeof want);
}

int upload_key_parse(const char *text, size_t len, unsigned char key[UPLOAD_KEY_LEN])
{
	if (len < UPLOAD_SIG_HEX || unhex(text, key, UPLOAD_KEY_LEN) < 0)
		return -1;
	for (size_t i = UPLOAD_SIG_HEX; i < len; i++)
		if (!isspace((unsigned char)text[i]))
			return -1;
	return 0;
}

void upload_key_text(const unsigned char key[UPLOAD_KEY_LEN], char text[UPLOAD_SIG_HEX + 2])
{
	hexify(key, UPLOAD_KEY_LEN, text);
	text[UPLOAD_SIG_HEX] = '\n';
	text[UPLOAD_SIG_HEX + 1] = 0;
}
