/*
 * xio.c - full-length reads and writes, small-file helpers, x-wrappers.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "defaults.h"
#include "err.h"
#include "xio.h"

ssize_t read_all(int fd, void *buf, size_t len)
{
	size_t done = 0;
	while (done < len) {
		ssize_t n = read(fd, (char *)buf + done, len - done);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		if (n == 0)
			break;
		done += n;
	}
	return done;
}

ssize_t write_all(int fd, const void *buf, size_t len)
{
	size_t done = 0;
	while (done < len) {
		ssize_t n = write(fd, (const char *)buf + done, len - done);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		done += n;
	}
	return done;
}

ssize_t pread_all(int fd, void *buf, size_t len, off_t off)
{
	size_t done = 0;
	while (done < len) {
		ssize_t n = pread(fd, (char *)buf + done, len - done, off + done);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		if (n == 0)
			break;
		done += n;
	}
	return done;
}

ssize_t pwrite_all(int fd, const void *buf, size_t len, off_t off)
{
	size_t done = 0;
	while (done < len) {
		ssize_t n = pwrite(fd, (const char *)buf + done, len - done, off + done);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		if (n == 0) {
			errno = ENOSPC;
			return -1;
		}
		done += n;
	}
	return done;
}

char *read_fd(int fd, size_t max, size_t *lenp)
{
	size_t cap = 4096, len = 0;
	char *buf = malloc(cap + 1);
	if (!buf)
		return NULL;
	for (;;) {
		ssize_t n;
		if (len == cap) {
			char *nb;
			if (cap >= max) {
				errno = EFBIG;
				free(buf);
				return NULL;
			}
			cap *= 2;
			nb = realloc(buf, cap + 1);
			if (!nb) {
				free(buf);
				return NULL;
			}
			buf = nb;
		}
		n = read(fd, buf + len, cap - len);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			free(buf);
			return NULL;
		}
		if (n == 0)
			break;
		len += n;
	}
	buf[len] = 0;
	if (lenp)
		*lenp = len;
	return buf;
}

/* read_fd of an opened file (fd < 0: its open failed, errno set), closed
 * after, errno kept. */
static char *read_closing(int fd, size_t *lenp)
{
	char *buf;
	int e;
	if (fd < 0)
		return NULL;
	buf = read_fd(fd, 256u << 20, lenp);
	e = errno;
	close(fd);
	errno = e;
	return buf;
}

char *read_file(const char *path, size_t *lenp)
{
	return read_closing(open(path, O_RDONLY | O_CLOEXEC), lenp);
}

int drop_page_cache(void)
{
	sync();
	return write_file("/proc/sys/vm/drop_caches", "3\n");
}

int open_regular(const char *path, int flags, mode_t mode)
{
	struct stat st;
	int fd = open(path, flags | O_CLOEXEC | O_NONBLOCK | O_NOCTTY, mode), e = 0;
	if (fd < 0)
		return -1;
	if (fstat(fd, &st) < 0)
		e = errno;
	else if (!S_ISREG(st.st_mode))
		e = S_ISDIR(st.st_mode) ? EISDIR : EINVAL;
	if (e) {
		close(fd);
		errno = e;
		return -1;
	}
	/* a regular file ignores O_NONBLOCK; cleared all the same, so the
	 * descriptor is what the caller asked for */
	if (!(flags & O_NONBLOCK) && fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK) < 0) {
		e = errno;
		close(fd);
		errno = e;
		return -1;
	}
	return fd;
}

char *read_regular(const char *path, size_t *lenp)
{
	return read_closing(open_regular(path, O_RDONLY, 0), lenp);
}

char *read_attr(const char *path)
{
	size_t len;
	char *s = read_file(path, &len);
	if (!s)
		return NULL;
	while (len && (s[len - 1] == '\n' || s[len - 1] == ' ' || s[len - 1] == '\t'))
		s[--len] = 0;
	return s;
}

int write_file(const char *path, const char *text)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC);
	ssize_t n;
	int e;
	if (fd < 0)
		return -1;
	n = write_all(fd, text, strlen(text));
	e = errno;
	close(fd);
	errno = e;
	return n < 0 ? -1 : 0;
}

/* Into what is not a regular file: written through, never replaced. */
static int write_through(const char *path, const void *buf, size_t len)
{
	int fd = open(path, O_WRONLY | O_NOCTTY | O_CLOEXEC), e = 0;
	if (fd < 0)
		return -1;
	if (write_all(fd, buf, len) < 0)
		e = errno;
	if (close(fd) < 0 && !e)
		e = errno;
	errno = e;
	return e ? -1 : 0;
}

int write_file_whole(const char *path, const void *buf, size_t len)
{
	size_t pl;
	char *tmp, *real = NULL;
	int fd, e = 0;
	struct stat st;
	if (stat(path, &st) == 0) {
		if (S_ISCHR(st.st_mode) || S_ISFIFO(st.st_mode))
			return write_through(path, buf, len);
		if (S_ISDIR(st.st_mode)) {
			errno = EISDIR;
			return -1;
		}
		if (!S_ISREG(st.st_mode)) {
			errno = EINVAL;	/* a socket, a block device: not ours to replace */
			return -1;
		}
		/* a symlink to a regular file: replace the target, keep the link */
		if (lstat(path, &st) == 0 && S_ISLNK(st.st_mode)) {
			real = realpath(path, NULL);
			if (!real)
				return -1;
			path = real;
		}
	} else if (errno != ENOENT) {
		return -1;
	} else if (lstat(path, &st) == 0) {
		errno = ENOENT;	/* a dangling symlink: where it points is not ours to guess */
		return -1;
	}
	pl = strlen(path);
	tmp = malloc(pl + 32);
	if (!tmp) {
		free(real);
		return -1;
	}
	snprintf(tmp, pl + 32, "%s.tmp.%ld", path, (long)getpid());
	fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
	if (fd < 0) {
		e = errno;
		free(tmp);
		free(real);
		errno = e;
		return -1;
	}
	if (write_all(fd, buf, len) < 0 || fsync(fd) < 0)
		e = errno;
	if (close(fd) < 0 && !e)
		e = errno;
	if (!e && rename(tmp, path) < 0)
		e = errno;
	if (e)
		unlink(tmp);
	free(tmp);
	free(real);
	errno = e;
	return e ? -1 : 0;
}

void *xmalloc(size_t n)
{
	void *p = malloc(n ? n : 1);
	if (!p)
		die_sys(EXIT_SYSFAIL, "unable to allocate %zu bytes", n);
	return p;
}

void *xcalloc(size_t n, size_t m)
{
	void *p = calloc(n ? n : 1, m ? m : 1);
	if (!p)
		die_sys(EXIT_SYSFAIL, "unable to allocate %zu bytes", n * m);
	return p;
}

void *xrealloc(void *p, size_t n)
{
	p = realloc(p, n ? n : 1);
	if (!p)
		die_sys(EXIT_SYSFAIL, "unable to allocate %zu bytes", n);
	return p;
}

char *xstrdup(const char *s)
{
	return xstrndup(s, strlen(s));
}

char *xstrndup(const char *s, size_t n)
{
	char *p = xmalloc(n + 1);
	memcpy(p, s, n);
	p[n] = 0;
	return p;
}

void *map_nofork(size_t n)
{
	void *p = mmap(NULL, n ? n : 1, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (p == MAP_FAILED)
		return NULL;
	madvise(p, n ? n : 1, MADV_DONTFORK);
	return p;
}

char *xasprintf(const char *fmt, ...)
{
	va_list ap;
	char *s;
	va_start(ap, fmt);
	if (vasprintf(&s, fmt, ap) < 0)
		die_sys(EXIT_SYSFAIL, "unable to format a string");
	va_end(ap);
	return s;
}

int name_ok(const char *s, size_t max, const char *extra)
{
	size_t n = strlen(s);
	if (!n || n > max)
		return 0;
	for (; *s; s++)
		if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || (*s >= '0' && *s <= '9') ||
		      strchr(extra, *s)))
			return 0;
	return 1;
}

int in_choices(const char *v, const char *choices)
{
	size_t n = strlen(v);
	for (const char *p = choices; *p;) {
		const char *bar = strchr(p, '|');
		size_t len = bar ? (size_t)(bar - p) : strlen(p);
		if (len == n && !strncmp(p, v, n))
			return 1;
		if (!bar)
			break;
		p = bar + 1;
	}
	return 0;
}

void text_clean(char *s)
{
	for (unsigned char *c = (unsigned char *)s; *c; c++) {
		if (*c < 0x20 || *c == 0x7f) {
			*c = '?';
		} else if (c[0] == 0xc2 && c[1] >= 0x80 && c[1] <= 0x9f) {
			c[0] = c[1] = '?';
			c++;
		} else if (c[0] == 0xe2 && ((c[1] == 0x80 && c[2] >= 0xaa && c[2] <= 0xae) ||
					    (c[1] == 0x81 && c[2] >= 0xa6 && c[2] <= 0xa9))) {
			c[0] = c[1] = c[2] = '?';
			c += 2;
		}
	}
}

void csv_field(FILE *o, const char *s)
{
	char *t;
	if (!s)
		return;
	t = xstrdup(s);
	text_clean(t);	/* a CR or LF too: a field stays on its row */
	if (strpbrk(t, ",\"")) {
		fputc('"', o);
		for (const char *c = t; *c; c++) {
			if (*c == '"')
				fputc('"', o);
			fputc(*c, o);
		}
		fputc('"', o);
	} else {
		fputs(t, o);
	}
	free(t);
}
