/*
 * uploadauth.c - the signature an upload carries (lib/uploadauth.h) and the
 * HMAC-SHA-256 under it: RFC 4231's test vectors, a key longer than a
 * block, key files, and a signature that changes with every part it
 * covers (MAC, boot id, body). tests/host-pxe.t checks the same signature
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
	tap_plan(21);

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

	upload_sign(key, "52-54-00-aa-bb-cc", "0123456789abcdef0123456789abcdef", "{\"a\":1}\n", 8, sig);
	ok(upload_sig_ok(key, "52-54-00-aa-bb-cc", "0123456789abcdef0123456789abcdef", "{\"a\":1}\n", 8, sig),
	   "a signature checks against what it signed");
	ok(!upload_sig_ok(key, "52-54-00-aa-bb-cd", "0123456789abcdef0123456789abcdef", "{\"a\":1}\n", 8, sig),
	   "... not for another target");
	ok(!upload_sig_ok(key, "52-54-00-aa-bb-cc", "0123456789abcdef0123456789abcdee", "{\"a\":1}\n", 8, sig),
	   "... not for another boot");
	ok(!upload_sig_ok(key, "52-54-00-aa-bb-cc", "0123456789abcdef0123456789abcdef", "{\"a\":2}\n", 8, sig),
	   "... not for another body");
	key[31] ^= 1;
	upload_sign(key, "52-54-00-aa-bb-cc", "0123456789abcdef0123456789abcdef", "{\"a\":1}\n", 8, sig2);
	ok(strcmp(sig, sig2) && !upload_sig_ok(key, "52-54-00-aa-bb-cc", "0123456789abcdef0123456789abcdef",
					       "{\"a\":1}\n", 8, sig), "... nor under another key");
	sig2[10] = 0;
	ok(!upload_sig_ok(key, "52-54-00-aa-bb-cc", "0123456789abcdef0123456789abcdef", "{\"a\":1}\n", 8, sig2),
	   "a cut signature is refused");

	{
		char mac[18], boot[UPLOAD_TOKEN_LEN + 1], sg[UPLOAD_SIG_HEX + 1];
		const char *b = "0123456789abcdef0123456789abcdef";
		char path[200];
		snprintf(path, sizeof path, "/results/52:54:00:AA:bb:cc/%s/%s", b, sig);
		ok(upload_path_parse(path, mac, boot, sg) == UPLOAD_PATH_OK && !strcmp(mac, "52-54-00-aa-bb-cc") &&
		   !strcmp(boot, b) && !strcmp(sg, sig), "an upload's path: the MAC normalised, boot id and signature");
		ok(upload_path_parse("/results/52-54-00-aa-bb-cc", mac, boot, sg) == UPLOAD_PATH_UNSIGNED &&
		   !strcmp(mac, "52-54-00-aa-bb-cc"), "no boot id or signature: unsigned, the MAC still read");
		snprintf(path, sizeof path, "/results/52-54-00-aa-bb-cc/%s/%.63s", b, sig);
		is_int(upload_path_parse(path, mac, boot, sg), UPLOAD_PATH_UNSIGNED, "a signature of 63 digits: unsigned");
		snprintf(path, sizeof path, "/results/52-54-00-aa-bb-cc/%s/%.63sA", b, sig);
		is_int(upload_path_parse(path, mac, boot, sg), UPLOAD_PATH_UNSIGNED, "an upper-case digit: unsigned");
		is_int(upload_path_parse("/results/52-54-00-aa-bb-cz/x/y", mac, boot, sg), UPLOAD_PATH_BAD_MAC,
		       "not a MAC: refused as such");
		ok(upload_path_parse("http://10.0.0.1:8080/results/52-54-00-aa-bb-cc/0123456789abcdef0123456789abcdef",
				     mac, boot, NULL) == UPLOAD_PATH_OK && !strcmp(boot, b),
		   "the appliance's upload URL (no signature yet): MAC and boot id");
		is_int(upload_path_parse("http://10.0.0.1:8080/results/52-54-00-aa-bb-cc/0123", mac, boot, NULL),
		       UPLOAD_PATH_UNSIGNED, "... a boot id of 4 characters is not one");
	}
	return tap_done();
}
