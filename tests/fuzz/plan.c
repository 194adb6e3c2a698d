/*
 * plan.c - libFuzzer target for the plan parser (lib/plan.c): a plan comes
 * from a results disk's header or a file a user was sent, so any bytes. Each
 * input is parsed; a plan that parses is expanded, and the properties below
 * are checked (abort() when broken, so libFuzzer keeps the input):
 *   - the expansion has plan_run_count() runs, each pointing into the plan,
 *     with a tunable combination inside its section's range;
 *   - every layout is built exactly once per (iteration, layout) block;
 *   - an error message starts with the file name.
 * Built and run by `make fuzz` (clang, ASan, UBSan).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "plan.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* A check like the appliance's, without the workload table: a few names,
 * parameters of a-z only. */
static int check(const char *name, const struct kvpair *params, size_t n, char *err, size_t errlen)
{
	if (strcmp(name, "null") && strcmp(name, "touch") && strcmp(name, "stream")) {
		snprintf(err, errlen, "unknown workload \"%s\"", name);
		return -1;
	}
	(void)params;
	(void)n;
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct plan *p = malloc(sizeof *p);
	struct plan_run *r;
	char err[512];
	size_t n, firsts = 0;
	if (!p)
		return 0;
	err[0] = 0;
	if (plan_parse("fuzz.plan", (const char *)data, size, check, p, err, sizeof err) < 0) {
		if (strncmp(err, "fuzz.plan", 9))
			abort();
		free(p);
		return 0;
	}
	n = plan_expand(p, &r);
	if (n != plan_run_count(p))
		abort();
	for (size_t i = 0; i < n; i++) {
		const struct plan_section *s = r[i].section;
		if (s < p->sections || s >= p->sections + p->nsections)
			abort();
		if (r[i].layout < s->layouts || r[i].layout >= s->layouts + s->nlayouts)
			abort();
		if (r[i].workload < s->workloads || r[i].workload >= s->workloads + s->nworkloads)
			abort();
		if (r[i].tunables_index >= plan_tunable_combos(s))
			abort();
		for (size_t t = 0; t < s->ntunables; t++)
			if (!plan_tunable_value(s, r[i].tunables_index, t))
				abort();
		firsts += (size_t)r[i].first_of_layout;
	}
	if (firsts != (size_t)p->iterations * p->nlayouts && n)
		abort();
	free(r);
	plan_free(p);
	free(p);
	return 0;
}
