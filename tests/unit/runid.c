/*
 * runid.c - what keys a run: parameters canonical (sorted, quoted where
 * needed), old parameter names read as the new ones.
 */
#include "json.h"
#include "runid.h"
#include "tap.h"

static char *params_of(const char *record)
{
	char err[128];
	struct jv *v = json_parse(record, strlen(record), err, sizeof err);
	struct run_id id;
	char *s;
	if (!v)
		return strdup(err);
	run_identity(v, &id);
	s = strdup(id.params.s ? id.params.s : "");
	run_id_free(&id);
	json_free(v);
	return s;
}

int main(void)
{
	char *a, *b, *c;
	tap_plan(3);
	a = params_of("{\"workload\":\"hdparm\",\"params\":{\"seconds_T\":\"2\",\"seconds_t\":\"3\",\"settle\":\"1\"}}");
	b = params_of("{\"workload\":\"hdparm\",\"params\":{\"disk_seconds\":\"3\",\"cached_seconds\":\"2\",\"settle\":\"1\"}}");
	is_str(a, b, "hdparm's seconds_T/seconds_t (records before the rename) key like cached_seconds/disk_seconds");
	is_str(b, "cached_seconds=2 disk_seconds=3 settle=1", "parameters sorted, k=v, blank-separated");
	c = params_of("{\"workload\":\"stream\",\"params\":{\"seconds_T\":\"2\"}}");
	is_str(c, "seconds_T=2", "the rename is hdparm's only");
	free(a);
	free(b);
	free(c);
	return tap_done();
}
