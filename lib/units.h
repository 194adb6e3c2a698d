/*
 * units.h - the one grammar for sizes and the one for durations, shared by
 * every command-line option, plan key, kernel command-line key and workload
 * parameter (three size grammars used to disagree: `64MiB` was accepted by
 * `bootbench run` and rejected by plans; seconds were parsed as sizes, so
 * `--timeout 2K` meant 2048 s).
 *
 *   size      DIGITS [K|M|G|T [iB]]      powers of 1024, either case:
 *                                        4096, 64K, 64k, 64M, 64MiB, 1G, 2T
 *   duration  DIGITS [ms|s|min|h]        a bare number is in the caller's unit
 *
 * Parsers take a string and never print; errno says why they refused.
 */
#ifndef BB_UNITS_H
#define BB_UNITS_H

/* 0 with *out set, or -1 with errno EINVAL (not a size) or ERANGE (above
 * max, overflow included). */
int parse_size(const char *s, unsigned long long max, unsigned long long *out);

/* A duration in units of unit_ms milliseconds (1: milliseconds, 1000:
 * seconds, 60000: minutes): a bare number is already in that unit; with a
 * suffix it is converted and must come out whole ("1500ms" is not a whole
 * number of seconds). 0 with *out set (at most max units), or -1 with errno
 * EINVAL (not a duration, or not whole) or ERANGE (above max). */
int parse_duration(const char *s, unsigned long long unit_ms, unsigned long long max,
		   unsigned long long *out);

/* "expected ...": the grammar, for error messages. */
/* The n leading characters of s, all digits (the caller checked), as a
 * number: 0, or -1 (ERANGE) when it does not fit 64 bits. The one digit
 * reader of the size, duration and counter grammars. */
int units_number(const char *s, size_t n, unsigned long long *v);

#define SIZE_HELP "bytes, or a whole number with K, M, G or T (powers of 1024; 64M and 64MiB are the same)"
#define DURATION_HELP "a whole number, or one with ms, s, min or h"

#endif
