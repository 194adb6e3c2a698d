/*
 * upload.c - what the appliance makes of the boot server's answer to an
 * upload (upload_answer, lib/httpc.c): stored, over the quota for good,
 * refused (not again this boot: the records go with the next boot's), or
 * retried. An expired token (403) used to be sent three times, 2 s apart.
 */
#include "defaults.h"
#include "httpc.h"
#include "tap.h"

static const struct {
	int status;
	const char *body;
	enum upload_answer want;
	const char *why;
} cases[] = {
	{ 200, "stored 7 new records\n", UPLOAD_STORED, "200: stored" },
	{ 204, NULL, UPLOAD_STORED, "204, no body: stored" },
	{ 200, "stored 3, 4" UPLOAD_NOT_STORED, UPLOAD_STORED, "200 with records past the per-boot quota: stored (the count is read apart)" },
	{ 413, UPLOAD_QUOTA_REFUSAL " this target's records are at the server's limit\n", UPLOAD_OVER_QUOTA, "413 of the byte quota: final" },
	{ 413, "Request Entity Too Large", UPLOAD_RETRY, "a bare 413 (a proxy's body limit): retried" },
	{ 413, NULL, UPLOAD_RETRY, "413 without a body: retried" },
	{ 403, "token expired: boot 3 is over (boot 4 has reported since)\n", UPLOAD_REFUSED, "403 expired token: refused, not retried" },
	{ 403, "no valid token: upload to the URL of the boot's command line\n", UPLOAD_REFUSED, "403 no valid token: refused" },
	{ 400, "bad request\n", UPLOAD_REFUSED, "400: refused" },
	{ 404, NULL, UPLOAD_REFUSED, "404 (a wrong URL): refused" },
	{ 405, NULL, UPLOAD_REFUSED, "405: refused" },
	{ 503, "busy\n", UPLOAD_RETRY, "503 busy: retried" },
	{ 500, NULL, UPLOAD_RETRY, "500: retried" },
	{ 408, NULL, UPLOAD_RETRY, "408 (a slow link): retried" },
	{ 429, NULL, UPLOAD_RETRY, "429: retried" },
	{ -1, NULL, UPLOAD_RETRY, "no answer (no link, a timeout): retried" },
	{ 302, NULL, UPLOAD_RETRY, "a redirect (not followed): retried, not taken as stored" },
};

int main(void)
{
	size_t n = sizeof cases / sizeof *cases;
	tap_plan((int)n);
	for (size_t i = 0; i < n; i++)
		is_int(upload_answer(cases[i].status, cases[i].body), cases[i].want, "%s", cases[i].why);
	return tap_done();
}
