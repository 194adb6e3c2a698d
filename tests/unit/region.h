/*
 * region.h - a formatted results region on an unlinked temp file, for the
 * unit tests of the results partition and the record writer.
 */
#ifndef BB_TEST_REGION_H
#define BB_TEST_REGION_H

#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "results.h"

static inline struct rs_region mkregion(uint64_t size)
{
	char path[] = "/tmp/bb-unit-region.XXXXXX";
	struct rs_region reg = {0};
	char err[200];
	reg.fd = mkstemp(path);
	unlink(path);
	if (reg.fd < 0 || ftruncate(reg.fd, size) < 0) {
		printf("Bail out! cannot create a temp file\n");
		exit(1);
	}
	reg.size = size;
	reg.lbs = 512;
	snprintf(reg.desc, sizeof reg.desc, "test");
	if (rs_format(&reg, NULL, NULL, 0, err, sizeof err) < 0) {
		printf("Bail out! rs_format: %s\n", err);
		exit(1);
	}
	return reg;
}

#endif
