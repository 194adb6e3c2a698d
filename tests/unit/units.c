/*
 * units.c - the size and duration grammars, table-driven (u-root's
 * cmdline_test.go style), bad input included: what each string gives, or
 * why it is refused (EINVAL malformed, ERANGE too large or overflowing).
 */
#include <errno.h>
#include <limits.h>

#include "tap.h"
#include "units.h"

#define U ~0ULL

static const struct {
	const char *in;
	unsigned long long max, want;
	int err;		/* 0, EINVAL or ERANGE */
} sizes[] = {
	{ "0", U, 0, 0 },
	{ "4096", U, 4096, 0 },
	{ "64K", U, 64ULL << 10, 0 },
	{ "64k", U, 64ULL << 10, 0 },
	{ "64M", U, 64ULL << 20, 0 },
	{ "64MiB", U, 64ULL << 20, 0 },
	{ "64m", U, 64ULL << 20, 0 },
	{ "1G", U, 1ULL << 30, 0 },
	{ "1GiB", U, 1ULL << 30, 0 },
	{ "2T", U, 2ULL << 40, 0 },
	{ "18446744073709551615", U, U, 0 },
	{ "16777215T", U, 16777215ULL << 40, 0 },
	{ "", U, 0, EINVAL },
	{ "K", U, 0, EINVAL },
	{ "-1", U, 0, EINVAL },
	{ "+1", U, 0, EINVAL },
	{ " 1", U, 0, EINVAL },
	{ "1 ", U, 0, EINVAL },
	{ "1.5M", U, 0, EINVAL },
	{ "1Q", U, 0, EINVAL },
	{ "1MB", U, 0, EINVAL },	/* MB could mean 10^6: refused, not guessed */
	{ "1Mi", U, 0, EINVAL },
	{ "1MiBs", U, 0, EINVAL },
	{ "1KK", U, 0, EINVAL },
	{ "1B", U, 0, EINVAL },
	{ "0x10", U, 0, EINVAL },
	{ "18446744073709551616", U, 0, ERANGE },
	{ "99999999999999999999999K", U, 0, ERANGE },
	{ "99999999999999999999999X", U, 0, EINVAL },
	{ "9000000000T", U, 0, ERANGE },	/* overflowed to a 0-byte image once */
	{ "16777216T", U, 0, ERANGE },	/* 2^64: one past the top */
	{ "2M", 1ULL << 20, 0, ERANGE },
	{ "1M", 1ULL << 20, 1ULL << 20, 0 },
};

static const struct {
	const char *in;
	unsigned long long unit_ms, max, want;
	int err;
} durations[] = {
	/* seconds settings (--timeout, the plan's timeout) */
	{ "600", 1000, 86400, 600, 0 },
	{ "600s", 1000, 86400, 600, 0 },
	{ "10min", 1000, 86400, 600, 0 },
	{ "2h", 1000, 86400, 7200, 0 },
	{ "2000ms", 1000, 86400, 2, 0 },
	{ "1500ms", 1000, 86400, 0, EINVAL },	/* not whole seconds */
	{ "2K", 1000, 86400, 0, EINVAL },	/* was 2048 s */
	{ "2k", 1000, 86400, 0, EINVAL },
	{ "86401", 1000, 86400, 0, ERANGE },
	{ "25h", 1000, 86400, 0, ERANGE },
	{ "1m", 1000, 86400, 0, EINVAL },	/* minutes or milli? refused */
	{ "1 s", 1000, 86400, 0, EINVAL },
	{ "s", 1000, 86400, 0, EINVAL },
	{ "", 1000, 86400, 0, EINVAL },
	{ "-5", 1000, 86400, 0, EINVAL },
	{ "1.5s", 1000, 86400, 0, EINVAL },
	{ "99999999999999999999", 1000, 86400, 0, ERANGE },
	{ "18446744073709551615h", 1000, U, 0, ERANGE },
	/* millisecond settings (--monitor-ms, bootbench.monitor_ms) */
	{ "250", 1, 3600000, 250, 0 },
	{ "250ms", 1, 3600000, 250, 0 },
	{ "1s", 1, 3600000, 1000, 0 },
	{ "1h", 1, 3600000, 3600000, 0 },
	{ "1k", 1, 3600000, 0, EINVAL },	/* was 1024 ms */
	{ "3600001", 1, 3600000, 0, ERANGE },
	/* minutes (lava-job --timeout) */
	{ "20", 60000, 1440, 20, 0 },
	{ "2h", 60000, 1440, 120, 0 },
	{ "30s", 60000, 1440, 0, EINVAL },
};

int main(void)
{
	size_t ns = sizeof sizes / sizeof *sizes, nd = sizeof durations / sizeof *durations;
	tap_plan((int)(ns + nd));
	for (size_t i = 0; i < ns; i++) {
		unsigned long long v = 12345;
		int rc;
		errno = 0;
		rc = parse_size(sizes[i].in, sizes[i].max, &v);
		if (sizes[i].err)
			ok(rc == -1 && errno == sizes[i].err && v == 12345, "size \"%s\" refused (%s)", sizes[i].in,
			   sizes[i].err == EINVAL ? "malformed" : "too large");
		else
			ok(rc == 0 && v == sizes[i].want, "size \"%s\" = %llu (got rc %d, %llu)", sizes[i].in,
			   sizes[i].want, rc, v);
	}
	for (size_t i = 0; i < nd; i++) {
		unsigned long long v = 12345;
		int rc;
		errno = 0;
		rc = parse_duration(durations[i].in, durations[i].unit_ms, durations[i].max, &v);
		if (durations[i].err)
			ok(rc == -1 && errno == durations[i].err && v == 12345, "duration \"%s\" (unit %llu ms) refused (%s)",
			   durations[i].in, durations[i].unit_ms, durations[i].err == EINVAL ? "malformed" : "too large");
		else
			ok(rc == 0 && v == durations[i].want, "duration \"%s\" (unit %llu ms) = %llu (got rc %d, %llu)",
			   durations[i].in, durations[i].unit_ms, durations[i].want, rc, v);
	}
	return tap_done();
}
