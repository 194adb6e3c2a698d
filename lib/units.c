/*
 * units.c - the size and duration grammars (see units.h). The suffix is
 * checked before the number, so "99999999999999999999X" is malformed
 * (EINVAL) and "99999999999999999999K" too large (ERANGE).
 */
#include <errno.h>
#include <string.h>

#include "units.h"

#define DIGITS "0123456789"

int units_number(const char *s, size_t n, unsigned long long *v)
{
	unsigned long long x = 0;
	for (size_t i = 0; i < n; i++) {
		unsigned d = (unsigned)(s[i] - '0');
		if (x > (~0ULL - d) / 10) {
			errno = ERANGE;
			return -1;
		}
		x = x * 10 + d;
	}
	*v = x;
	return 0;
}

static int refuse(int e)
{
	errno = e;
	return -1;
}

int parse_size(const char *s, unsigned long long max, unsigned long long *out)
{
	unsigned long long v;
	unsigned shift = 0;
	size_t n;
	const char *suf;
	if (!s || !(n = strspn(s, DIGITS)))
		return refuse(EINVAL);
	suf = s + n;
	if (*suf) {
		const char *p = strchr("KMGT", *suf >= 'a' ? *suf - 'a' + 'A' : *suf);
		if (!p || !*p || (suf[1] && strcmp(suf + 1, "iB")))
			return refuse(EINVAL);
		shift = 10 * (unsigned)(p - "KMGT" + 1);
	}
	if (units_number(s, n, &v) < 0)
		return -1;
	if (v > (~0ULL >> shift))
		return refuse(ERANGE);
	v <<= shift;
	if (v > max)
		return refuse(ERANGE);
	*out = v;
	return 0;
}

int parse_duration(const char *s, unsigned long long unit_ms, unsigned long long max,
		   unsigned long long *out)
{
	static const struct {
		const char *suffix;
		unsigned long long ms;
	} units[] = { { "ms", 1 }, { "s", 1000 }, { "min", 60000 }, { "h", 3600000 } };
	unsigned long long v, ms = 0;
	size_t n;
	const char *suf;
	if (!s || !unit_ms || !(n = strspn(s, DIGITS)))
		return refuse(EINVAL);
	suf = s + n;
	if (*suf) {
		for (size_t i = 0; i < sizeof units / sizeof *units && !ms; i++)
			if (!strcmp(suf, units[i].suffix))
				ms = units[i].ms;
		if (!ms)
			return refuse(EINVAL);
	}
	if (units_number(s, n, &v) < 0)
		return -1;
	if (!ms) {	/* a bare number: already in the caller's unit */
		if (v > max)
			return refuse(ERANGE);
		*out = v;
		return 0;
	}
	if (v > ~0ULL / ms)
		return refuse(ERANGE);
	v *= ms;
	if (v % unit_ms)
		return refuse(EINVAL);	/* not a whole number of the caller's unit */
	if (v / unit_ms > max)
		return refuse(ERANGE);
	*out = v / unit_ms;
	return 0;
}
