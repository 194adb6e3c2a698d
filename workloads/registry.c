/*
 * registry.c - the one list of workloads, and the helpers they share.
 */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "defaults.h"
#include "spawn.h"
#include "units.h"
#include "workload.h"

extern const struct workload wl_null, wl_touch, wl_forkexec;
extern const struct workload wl_tcpbw, wl_http;
extern const struct workload wl_stream, wl_hdparm, wl_bonnie;
extern const struct workload wl_dbload, wl_oltp;
extern const struct workload wl_fio, wl_perfbench, wl_cyclictest, wl_hackbench;
extern const struct workload wl_nfsmix, wl_pgbench, wl_pgimport, wl_dbt2;

const struct workload *const workload_table[] = {
	&wl_null,
	&wl_touch,
	&wl_forkexec,
	&wl_stream,
	&wl_hdparm,
	&wl_bonnie,
	&wl_tcpbw,
	&wl_http,
	&wl_dbload,
	&wl_oltp,
	&wl_fio,
	&wl_perfbench,
	&wl_cyclictest,
	&wl_hackbench,
	&wl_pgbench,
	&wl_pgimport,
	&wl_dbt2,
	&wl_nfsmix,
	NULL,
};

const struct workload *workload_find(const char *name)
{
	for (const struct workload *const *w = workload_table; *w; w++)
		if (!strcmp((*w)->name, name))
			return *w;
	return NULL;
}

/* '*' matches any run of characters, everything else itself */
static int glob_match(const char *g, const char *s)
{
	if (!*g)
		return !*s;
	if (*g == '*')
		return glob_match(g + 1, s) || (*s && glob_match(g, s + 1));
	return *g == *s && glob_match(g + 1, s + 1);
}

const char *wl_tool_label(const char *workload, const char *metric)
{
	const struct workload *w = workload_find(workload);
	if (!w || !w->labels)
		return NULL;
	for (const struct wl_label *l = w->labels; l->metric; l++)
		if (glob_match(l->metric, metric))
			return l->label;
	return NULL;
}

/* The plan parser's check (lib/plan.h): workload exists, parameters known. */
int workload_check(const char *name, const struct kvpair *params, size_t n, char *err, size_t errlen)
{
	const struct workload *w = workload_find(name);
	if (!w) {
		size_t o = snprintf(err, errlen, "unknown workload \"%s\" (valid:", name);
		for (const struct workload *const *x = workload_table; *x && o < errlen; x++)
			o += snprintf(err + o, errlen - o, " %s", (*x)->name);
		if (o < errlen)
			snprintf(err + o, errlen - o, ")");
		return -1;
	}
	for (size_t i = 0; i < n; i++) {
		const struct wparam *p = w->params;
		while (p && p->name && strcmp(p->name, params[i].key))
			p++;
		if (!p || !p->name) {
			size_t o = snprintf(err, errlen, "workload %s has no parameter \"%s\" (valid:", name, params[i].key);
			for (p = w->params; p && p->name && o < errlen; p++)
				o += snprintf(err + o, errlen - o, " %s", p->name);
			if (o < errlen)
				snprintf(err + o, errlen - o, "%s)", w->params && w->params->name ? "" : " none");
			return -1;
		}
	}
	return 0;
}

int plan_check_workloads(const char *file, const struct plan *p, char *err, size_t errlen)
{
	for (size_t k = 0; k < p->nsections; k++) {
		const struct plan_section *s = &p->sections[k];
		for (size_t i = 0; i < s->nworkloads; i++) {
			const struct workload *w = workload_find(s->workloads[i].name);
			char why[400];
			if (w && w->plan_check && w->plan_check(s, &s->workloads[i], why, sizeof why) < 0) {
				snprintf(err, errlen, "%s:%d: %s", file, s->workloads[i].line, why);
				return -1;
			}
		}
	}
	for (size_t i = 0; i < p->nworkloads; i++) {
		const struct plan_workload *pw = &p->workloads[i];
		const struct workload *w = workload_find(pw->name);
		int own = 0, listed = 0;
		if (!w || !w->layer)
			continue;
		for (size_t k = 0; w->layer_param && k < pw->nparams; k++)
			own |= !strcmp(pw->params[k].key, w->layer_param);
		for (size_t k = 0; k < p->req.nlayers; k++)
			listed |= !strcmp(p->req.layers[k], w->layer);
		if (!own && !listed) {
			snprintf(err, errlen, "%s:%d: workload %s runs the %s layer's programs: the plan needs "
				 "\"requires layer=%s\"%s%s%s", file, pw->line, w->name, w->layer, w->layer,
				 w->layer_param ? " (or " : "", w->layer_param ? w->layer_param : "",
				 w->layer_param ? "= naming programs of its own)" : "");
			return -1;
		}
	}
	return 0;
}

const char *wl_param(const struct wctx *c, const char *name)
{
	for (size_t i = 0; i < c->nparams; i++)
		if (!strcmp(c->params[i].key, name))
			return c->params[i].val;
	for (const struct wparam *p = c->w->params; p && p->name; p++)
		if (!strcmp(p->name, name))
			return p->def;
	return NULL;
}

static char reason[256];

const char *wl_reason(void)
{
	return reason;
}

int wl_fail(struct wctx *c, const char *fmt, ...)
{
	va_list ap;
	(void)c;
	if (!reason[0]) {
		va_start(ap, fmt);
		vsnprintf(reason, sizeof reason, fmt, ap);
		va_end(ap);
	}
	return -1;
}

void wl_warn(struct wctx *c, const char *fmt, ...)
{
	va_list ap;
	if (c->nwarnings >= WL_MAX_WARNINGS) {
		c->dropped_warnings++;
		return;
	}
	va_start(ap, fmt);
	vsnprintf(c->warnings[c->nwarnings++], WL_WARNING_LEN, fmt, ap);
	va_end(ap);
}

long long wl_param_size(struct wctx *c, const char *name)
{
	const char *v = wl_param(c, name);
	unsigned long long x;
	if (v && parse_size(v, LLONG_MAX, &x) == 0)
		return (long long)x;
	wl_fail(c, "parameter %s=\"%s\" is not a size (e.g. 4096, 64K, 256M, 1G)", name, v ? v : "");
	return -1;
}

long long wl_param_int(struct wctx *c, const char *name)
{
	const char *v = wl_param(c, name);
	char *end;
	long long x;
	/* digits only: strtoll would also take blanks and a sign */
	if (!v || !(*v >= '0' && *v <= '9'))
		goto bad;
	errno = 0;
	x = strtoll(v, &end, 10);
	if (errno || *end)
		goto bad;
	return x;
bad:
	wl_fail(c, "parameter %s=\"%s\" is not a whole number", name, v ? v : "");
	return -1;
}

void wl_metric(struct wctx *c, const char *name, double value, const char *unit, const char *better)
{
	struct metric *m;
	if (!isfinite(value)) {
		c->nonfinite_metrics++;	/* said in the report, never recorded as 0 */
		return;
	}
	if (c->nmetrics >= WL_MAX_METRICS) {
		c->dropped_metrics++;	/* the report says so (runner.c) */
		return;
	}
	m = &c->metrics[c->nmetrics++];
	snprintf(m->name, sizeof m->name, "%s", name);
	m->value = value;
	snprintf(m->unit, sizeof m->unit, "%s", unit);
	snprintf(m->better, sizeof m->better, "%s", better);
}

void wl_metrics_invalid(struct wctx *c, size_t from)
{
	for (size_t i = from; i < c->nmetrics; i++)
		c->metrics[i].invalid = 1;
}

int wl_tool_failed(struct wctx *c, const char *name, const struct run_result *res, const struct sbuf *out,
		   const char *prefix)
{
	char st[64], why[161];
	if (WIFEXITED(res->status) && WEXITSTATUS(res->status) == 0)
		return 0;
	status_text(res->status, st, sizeof st);
	tool_reason(out, prefix, why, sizeof why);
	return wl_fail(c, "%s %s: %s", name, st, why);
}

int wl_rt_tests_argv(struct wctx *c, const char *dir, const char *tool, struct rt_tool *t, char **argv)
{
	if (snprintf(t->ld, sizeof t->ld, "%s/%s", dir, RT_TESTS_LOADER) >= (int)sizeof t->ld ||
	    snprintf(t->lib, sizeof t->lib, "%s/lib", dir) >= (int)sizeof t->lib ||
	    snprintf(t->bin, sizeof t->bin, "%s/bin/%s", dir, tool) >= (int)sizeof t->bin)
		return wl_fail(c, "rt-tests directory %.80s: path too long", dir);
	if (access(t->ld, X_OK) != 0)
		return wl_fail(c, "unable to execute %s (%s): rt_tests=%s is not an rt-tests layer (rootfs/recipes/rt-tests.sh builds one)",
			       t->ld, strerror(errno), dir);
	if (access(t->bin, R_OK) != 0)
		return wl_fail(c, "unable to read %s: %s", t->bin, strerror(errno));
	argv[0] = t->ld;
	argv[1] = "--library-path";
	argv[2] = t->lib;
	argv[3] = t->bin;
	return 4;
}
