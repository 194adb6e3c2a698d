/*
 * err.h - one error vocabulary for the whole program (after skalibs strerr).
 *
 *   bootbench: fatal: unable to open /dev/vda: No such file or directory
 *   bootbench: warning: unknown key bootbench.foo (valid: ...)
 *
 * die() exits; inside PID 1 it must never be called (see init/init.c, which
 * installs a hook that powers off instead of exiting).
 */
#ifndef BB_ERR_H
#define BB_ERR_H

#include <stdarg.h>

extern const char *prog_name;

/* Called by die() instead of exit() when set (PID 1 powers off). */
extern void (*die_hook)(int code, const char *msg);

void die(int code, const char *fmt, ...) __attribute__((noreturn, format(printf, 2, 3)));
/* Like die() with ": <strerror(errno)>" appended. */
void die_sys(int code, const char *fmt, ...) __attribute__((noreturn, format(printf, 2, 3)));
/* Not warn(): libc has a warn() (BSD <err.h>) that libblkid calls; with
 * ours beside it a static link has two, and a dynamic one hands libblkid
 * ours. warn_sys() and the others clash with nothing. */
void warning(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void warn_sys(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void info(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif
