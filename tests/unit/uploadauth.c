/*
 * uploadauth.c - the signature an upload carries (lib/uploadauth.h) and the
 * HMAC-SHA-256 under it: RFC 4231's test vectors, a key longer than a
 * block, key files, and a signature that changes with every part it
 * covers (MAC, boot id, length, the body's digest). tests/host-pxe.t checks the same signature
 * against openssl's, through the server.
 */
#include <string.h>

#include "hash.h"
#include "tap.h"
#include "uploadauth.h"

static void hmac_hex(const void *key, size_t klen, const char *msg, char hex[65])
{
	struct hmac_sha256 m;
	unsigned char out[32];
	hmac_sha256_init(&m, key, klen);
	hmac_sha256_update(&m, msg, strlen(msg));
	hmac_sha256_final(&m, out);
	hexify(out, 32, hex);
}

int main(void)
{
	char hex[65], key_text[66], sig[65], sig2[65];
	unsigned char k20[20], k131[131], key[UPLOAD_KEY_LEN], back[UPLOAD_KEY_LEN];
	tap_plan(30);

	memset(k20, 0x0b, sizeof k20);
	hmac_hex(k20, sizeof k20, "Hi There", hex);
	is_str(hex, "b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7", "RFC 4231 case 1");
	hmac_hex("Jefe", 4, "what do ya want for nothing?", hex);
	is_str(hex, "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843", "RFC 4231 case 2");
	memset(k131, 0xaa, sizeof k131);
	hmac_hex(k131, sizeof k131, "Test Using Larger Than Block-Size Key - Hash Key First", hex);
	is_str(hex, "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54",
	       "RFC 4231 case 6: a key longer than a block is hashed first");

	for (int i = 0; i < UPLOAD_KEY_LEN; i++)
		key[i] = (unsigned char)(i * 7 + 1);
	upload_key_text(key, key_text);
	ok(strlen(key_text) == 65 && key_text[64] == '\n', "a key file is 64 hex digits and a newline");
	ok(upload_key_parse(key_text, strlen(key_text), back) == 0 && !memcmp(key, back, sizeof key),
	   "... and reads back as the same key");
	ok(upload_key_parse(key_text, 63, back) < 0, "63 digits are not a key");
	ok(upload_key_parse("zz" "00000000000000000000000000000000000000000000000000000000000000", 64, back) < 0,
	   "a non-hex digit is not a key");
	{
		char t[80];
		memcpy(t, key_text, 64);
		memcpy(t + 64, "00\n", 4);
		ok(upload_key_parse(t, strlen(t), back) < 0, "66 digits are not a key (nothing but white space after 64)");
	}

	{
		const char *M = "52-54-00-aa-bb-cc", *B = "0123456789abcdef0123456789abcdef";
		char dg[65], dg2[65];
		upload_sign(key, M, B, "{\"a\":1}\n", 8, dg, sig);
		is_str(dg, "e346432021b04179518d9614f3560ccd71354a4ee101ddcb893d6959a9d6301c", "DIGEST is the body's SHA-256");
		ok(upload_head_ok(key, M, B, 8, dg, sig), "a signed head checks, with no body at hand");
		ok(upload_body_ok("{\"a\":1}\n", 8, dg), "... and the body is the one it names");
		ok(!upload_head_ok(key, "52-54-00-aa-bb-cd", B, 8, dg, sig), "... not for another target");
		ok(!upload_head_ok(key, M, "0123456789abcdef0123456789abcdee", 8, dg, sig), "... not for another boot");
		ok(!upload_head_ok(key, M, B, 9, dg, sig), "... not for another length (a dribbled longer body)");
		ok(!upload_body_ok("{\"a\":2}\n", 8, dg), "another body is not the one signed for");
		upload_sign(key, M, B, "{\"a\":2}\n", 8, dg2, sig2);
		ok(!upload_head_ok(key, M, B, 8, dg2, sig), "... nor is a signature moved to another digest");
		key[31] ^= 1;
		upload_sign(key, M, B, "{\"a\":1}\n", 8, dg2, sig2);
		ok(strcmp(sig, sig2) && !upload_head_ok(key, M, B, 8, dg, sig), "... nor under another key");
		sig2[10] = 0;
		ok(!upload_head_ok(key, M, B, 8, dg2, sig2), "a cut signature is refused");
		dg2[10] = 0;
		ok(!upload_body_ok("{\"a\":1}\n", 8, dg2), "... and a cut digest");
		upload_sign(key, M, B, "", 0, dg2, sig2);
		is_str(dg2, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
		       "an empty body (the boot started) has SHA-256's empty digest");
	}

	{
		char mac[18], boot[UPLOAD_TOKEN_LEN + 1], sg[UPLOAD_SIG_HEX + 1], dg[UPLOAD_SIG_HEX + 1];
		const char *b = "0123456789abcdef0123456789abcdef";
		const char *d = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855";
		char path[300];
		snprintf(path, sizeof path, "/results/52:54:00:AA:bb:cc/%s/%s/%s", b, d, sig);
		ok(upload_path_parse(path, mac, boot, dg, sg) == UPLOAD_PATH_OK && !strcmp(mac, "52-54-00-aa-bb-cc") &&
		   !strcmp(boot, b) && !strcmp(dg, d) && !strcmp(sg, sig),
		   "an upload's path: the MAC normalised, boot id, digest and signature");
		ok(upload_path_parse("/results/52-54-00-aa-bb-cc", mac, boot, dg, sg) == UPLOAD_PATH_UNSIGNED &&
		   !strcmp(mac, "52-54-00-aa-bb-cc"), "no boot id or signature: unsigned, the MAC still read");
		snprintf(path, sizeof path, "/results/52-54-00-aa-bb-cc/%s/%s", b, sig);
		is_int(upload_path_parse(path, mac, boot, dg, sg), UPLOAD_PATH_UNSIGNED,
		       "the old /BOOT/HMAC (no digest): unsigned");
		snprintf(path, sizeof path, "/results/52-54-00-aa-bb-cc/%s/%s/%.63s", b, d, sig);
		is_int(upload_path_parse(path, mac, boot, dg, sg), UPLOAD_PATH_UNSIGNED, "a signature of 63 digits: unsigned");
		snprintf(path, sizeof path, "/results/52-54-00-aa-bb-cc/%s/%s/%.63sA", b, d, sig);
		is_int(upload_path_parse(path, mac, boot, dg, sg), UPLOAD_PATH_UNSIGNED, "an upper-case digit: unsigned");
		snprintf(path, sizeof path, "/results/52-54-00-aa-bb-cc/%s/%.63sg/%s", b, d, sig);
		is_int(upload_path_parse(path, mac, boot, dg, sg), UPLOAD_PATH_UNSIGNED, "a digest with a non-hex digit: unsigned");
		snprintf(path, sizeof path, "/results/52-54-00-aa-bb-cc/%s/%s/%s/", b, d, sig);
		is_int(upload_path_parse(path, mac, boot, dg, sg), UPLOAD_PATH_UNSIGNED, "a trailing slash: unsigned");
		is_int(upload_path_parse("/results/52-54-00-aa-bb-cz/x/y", mac, boot, dg, sg), UPLOAD_PATH_BAD_MAC,
		       "not a MAC: refused as such");
		ok(upload_path_parse("http://10.0.0.1:8080/results/52-54-00-aa-bb-cc/0123456789abcdef0123456789abcdef",
				     mac, boot, NULL, NULL) == UPLOAD_PATH_OK && !strcmp(boot, b),
		   "the appliance's upload URL (no signature yet): MAC and boot id");
		is_int(upload_path_parse("http://10.0.0.1:8080/results/52-54-00-aa-bb-cc/0123", mac, boot, NULL, NULL),
		       UPLOAD_PATH_UNSIGNED, "... a boot id of 4 characters is not one");
	}
	return tap_done();
}
