/*
 * httphead.c - libFuzzer target for the HTTP request head parser
 * (lib/httphead.c): the first bytes anyone on the lab segment sends the boot
 * server. Any input must parse, wait or be refused without reading past it;
 * a complete head must fit its input, carry a NUL-terminated method of
 * capitals and a target starting with '/', and parse the same with any
 * bytes after it (a body never changes its head). Its target is read as an
 * upload's path too (upload_path_parse): the parts it gives fit their sizes.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "httphead.h"
#include "uploadauth.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct http_head h, h2;
	char *copy = malloc(size + 16);
	int r;
	if (!copy)
		return 0;
	memcpy(copy, data, size);
	r = http_head_parse(copy, size, &h);
	if (r == 1) {
		if (h.head_len > size || h.target[0] != '/' || !memchr(h.method, 0, sizeof h.method) ||
		    !memchr(h.target, 0, sizeof h.target))
			abort();
		for (const char *m = h.method; *m; m++)
			if (*m < 'A' || *m > 'Z')
				abort();
		{
			/* an upload's path (lib/uploadauth.c): its parts fit
			 * and are what they say */
			char mac[18], boot[UPLOAD_TOKEN_LEN + 1], dg[UPLOAD_SIG_HEX + 1], sig[UPLOAD_SIG_HEX + 1];
			int up = upload_path_parse(h.target, mac, boot, dg, sig);
			if (up == UPLOAD_PATH_OK && (strlen(boot) != UPLOAD_TOKEN_LEN || strlen(sig) != UPLOAD_SIG_HEX ||
						     strspn(sig, "0123456789abcdef") != UPLOAD_SIG_HEX ||
						     strlen(dg) != UPLOAD_SIG_HEX ||
						     strspn(dg, "0123456789abcdef") != UPLOAD_SIG_HEX))
				abort();
			if (up != UPLOAD_PATH_BAD_MAC && (strlen(mac) != 17 || strncmp(h.target, "/results/", 9)))
				abort();
		}
		memcpy(copy + size, "xyzzy\r\n\r\n\0\0\0\0\0\0\0", 16);
		if (http_head_parse(copy, size + 16, &h2) != 1 || memcmp(&h, &h2, sizeof h))
			abort();
	}
	free(copy);
	return 0;
}
