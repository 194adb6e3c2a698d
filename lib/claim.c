/*
 * claim.c - disk claiming (see claim.h).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "claim.h"
#include "xio.h"

int claim_matches(const struct blkdev *d, const char *tok)
{
	return (d->serial[0] && !strcmp(d->serial, tok)) || (d->wwid[0] && !strcmp(d->wwid, tok)) ||
	       (d->path_id[0] && !strcmp(d->path_id, tok));
}

int claim_listed(const struct blkdev *d, const char *tokens)
{
	char *copy = tokens ? xstrdup(tokens) : NULL, *save = NULL;
	int hit = 0;
	for (char *t = copy ? strtok_r(copy, ",", &save) : NULL; t && !hit; t = strtok_r(NULL, ",", &save))
		hit = claim_matches(d, t);
	free(copy);
	return hit;
}

int readonly_disk(const struct blkdev *devs, size_t n, const char *allowed, const char *token, const char *results,
		  char *why, size_t len)
{
	int found = -1;
	for (size_t i = 0; i < n; i++) {
		if (!claim_matches(&devs[i], token))
			continue;
		if (found >= 0) {
			snprintf(why, len, "%s names two disks (%s and %s)", token, devs[found].name, devs[i].name);
			return -1;
		}
		found = (int)i;
	}
	if (found < 0) {
		snprintf(why, len, "no disk has the serial, WWN or by-path id %s", token);
		return -1;
	}
	/* by the disk, not the text: readonly=WWN matches bootbench.readonly=SERIAL */
	if (!claim_listed(&devs[found], allowed)) {
		snprintf(why, len, "disk %s is not named in bootbench.readonly= (the kernel command line says which "
			 "disks may be read)", token);
		return -1;
	}
	if (results && !strcmp(devs[found].name, results)) {
		snprintf(why, len, "%s (%s) is the results disk", token, devs[found].name);
		return -1;
	}
	return found;
}

size_t claim_unmatched(const struct blkdev *devs, size_t n, const char *tokens, struct sbuf *notes)
{
	char *copy = tokens ? xstrdup(tokens) : NULL, *save = NULL;
	size_t k = 0;
	for (char *t = copy ? strtok_r(copy, ",", &save) : NULL; t; t = strtok_r(NULL, ",", &save)) {
		int hit = 0;
		for (size_t i = 0; i < n && !hit; i++)
			hit = claim_matches(&devs[i], t);
		if (!hit) {
			sb_printf(notes, "bootbench.readonly names %s, but no disk has that serial, WWN or by-path id "
				  "(compare with the ids the console lists)\n", t);
			k++;
		}
	}
	free(copy);
	return k;
}

size_t claim_disks(const struct blkdev *devs, size_t n, const char *tokens, const int *labelled,
		   const char *results, const char *readonly, size_t *out, struct sbuf *notes)
{
	size_t k = 0;
	char *copy = tokens ? xstrdup(tokens) : NULL, *save = NULL, *tok;
	for (tok = copy ? strtok_r(copy, ",", &save) : NULL; tok; tok = strtok_r(NULL, ",", &save)) {
		int found = 0;
		for (size_t i = 0; i < n; i++) {
			int dup = 0;
			if (!claim_matches(&devs[i], tok))
				continue;
			found = 1;
			if (results && !strcmp(devs[i].name, results)) {
				sb_printf(notes, "bootbench.disks names %s (%s), the results disk: not used for layouts\n",
					  tok, devs[i].name);
				continue;
			}
			if (claim_listed(&devs[i], readonly)) {
				sb_printf(notes, "bootbench.disks names %s (%s), which bootbench.readonly= names too: "
					  "read-only, not claimed\n", tok, devs[i].name);
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
		if (claim_listed(&devs[i], readonly)) {
			sb_printf(notes, "%s carries the scratch label but bootbench.readonly= names it: read-only, "
				  "not claimed\n", devs[i].name);
			continue;
		}
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
