/*
 * tap.h - a minimal TAP producer for C unit tests (kselftest style): plan,
 * ok/is/is_str with a description, diagnostics on failure, exit status 1
 * when anything failed, so `prove` and plain shells both see failures.
 */
#ifndef BB_TAP_H
#define BB_TAP_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int tap_n, tap_failed;

static inline void tap_plan(int n) { printf("1..%d\n", n); fflush(stdout); }

static inline int ok_(int cond, const char *file, int line, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
#include <stdarg.h>
static inline int ok_(int cond, const char *file, int line, const char *fmt, ...)
{
	va_list ap;
	printf("%sok %d - ", cond ? "" : "not ", ++tap_n);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	if (!cond) {
		tap_failed++;
		printf("#   failed at %s:%d\n", file, line);
	}
	fflush(stdout);
	return cond;
}

#define ok(cond, ...) ok_(!!(cond), __FILE__, __LINE__, __VA_ARGS__)
#define is_int(got, want, ...) do { long long g_ = (got), w_ = (want); \
	if (!ok(g_ == w_, __VA_ARGS__)) printf("#   got %lld, want %lld\n", g_, w_); } while (0)
#define is_str(got, want, ...) do { const char *g_ = (got), *w_ = (want); \
	if (!ok(g_ && w_ ? !strcmp(g_, w_) : g_ == w_, __VA_ARGS__)) \
		printf("#   got \"%s\"\n#  want \"%s\"\n", g_ ? g_ : "(null)", w_ ? w_ : "(null)"); } while (0)

static inline int tap_done(void)
{
	if (tap_failed)
		printf("# %d of %d tests failed\n", tap_failed, tap_n);
	return tap_failed ? 1 : 0;
}

#endif
