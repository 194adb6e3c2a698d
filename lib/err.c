/*
 * err.c - die/warn/info, the single place error text is formatted.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "err.h"

const char *prog_name = "bootbench";
void (*die_hook)(int code, const char *msg);

static void vsay(const char *level, int with_errno, int err, const char *fmt, va_list ap)
{
	char msg[1024];
	int n = vsnprintf(msg, sizeof msg, fmt, ap);

	if (n < 0)
		msg[0] = 0;
	if (with_errno)
		fprintf(stderr, "%s: %s%s: %s\n", prog_name, level, msg, strerror(err));
	else
		fprintf(stderr, "%s: %s%s\n", prog_name, level, msg);
	fflush(stderr);
}

static void __attribute__((noreturn)) finish(int code, int with_errno, int err,
					     const char *fmt, va_list ap)
{
	char msg[1024];
	va_list cp;

	va_copy(cp, ap);
	vsay("fatal: ", with_errno, err, fmt, ap);
	if (die_hook) {
		int n = vsnprintf(msg, sizeof msg, fmt, cp);
		if (n >= 0 && with_errno)
			snprintf(msg + strlen(msg), sizeof msg - strlen(msg), ": %s", strerror(err));
		die_hook(code, msg);
	}
	va_end(cp);
	exit(code);
}

void die(int code, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	finish(code, 0, 0, fmt, ap);
}

void die_sys(int code, const char *fmt, ...)
{
	int e = errno;
	va_list ap;
	va_start(ap, fmt);
	finish(code, 1, e, fmt, ap);
}

void warning(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsay("warning: ", 0, 0, fmt, ap);
	va_end(ap);
}

void warn_sys(const char *fmt, ...)
{
	int e = errno;
	va_list ap;
	va_start(ap, fmt);
	vsay("warning: ", 1, e, fmt, ap);
	va_end(ap);
}

void info(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsay("", 0, 0, fmt, ap);
	va_end(ap);
}
