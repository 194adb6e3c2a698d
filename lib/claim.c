/*
 * claim.c - disk claiming (see claim.h).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "claim.h"
#include "xio.h"

static int matches(const struct blkdev *d, const char *tok)
{
	return (d->serial[0] && !strcmp(d->serial, tok)) || (d->wwid[0] && !strcmp(d->wwid, tok)) ||
	       (d->path_id[0] && !strcmp(d->path_id, tok));
}

size_t claim_disks(const struct blkdev *devs, size_t n, const char *tokens, const int *labelled,
		   const char *results, size_t *out, struct sbuf *notes)
{
	size_t k = 0;
	char *copy = tokens ? xstrdup(tokens) : NULL, *save = NULL, *tok;
	for (tok = copy ? strtok_r(copy, ",", &save) : NULL; tok; tok = strtok_r(NULL, ",", &save)) {
		int found = 0;
		for (size_t i = 0; i < n; i++) {
			int dup = 0;
			if (!matches(&devs[i], tok))
				continue;
			found = 1;
			if (results && !strcmp(devs[i].name, results)) {
				sb_printf(notes, "bootbench.disks names %s (%s), the results disk: not used for layouts\n",
					  tok, devs[i].name);
				continue;
			}
			for (size_t j = 0; j < k; j++)
				dup |= out[j] == i;
			if (!dup)
				out[k++] = i;
		}
		if (!found)
			sb_printf(notes, "bootbench.disks names %s, but no disk has that serial, WWN or by-path id\n", tok);
	}
	for (size_t i = 0; labelled && i < n; i++) {
		int dup = 0;
		if (!labelled[i] || (results && !strcmp(devs[i].name, results)))
			continue;
		for (size_t j = 0; j < k; j++)
			dup |= out[j] == i;
		if (!dup)
			out[k++] = i;
	}
	free(copy);
	return k;
}

int scratch_label_ok(const unsigned char *s, size_t len)
{
	return len >= 512 && !memcmp(s, SCRATCH_MAGIC "\n", strlen(SCRATCH_MAGIC) + 1);
}

void scratch_label_make(unsigned char s[512])
{
	memset(s, 0, 512);
	snprintf((char *)s, 512, "%s\nThis disk is a bootbench scratch disk: the appliance may destroy its contents.\n",
		 SCRATCH_MAGIC);
}
