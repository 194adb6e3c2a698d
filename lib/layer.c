/*
 * layer.c - a layer's build line, read as hostile (see layer.h).
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "layer.h"
#include "xio.h"

int layer_word(const char *s)
{
	return name_ok(s, LAYER_WORD_MAX, "._-+:~");
}

int layer_parse(const char *text, struct layer *out)
{
	struct layer l = { 0 };
	const char *p = text;
	char *dst[3] = { l.package, l.version, l.build };
	memset(out, 0, sizeof *out);
	if (strlen(text) > LAYER_FILE_MAX)
		return -1;
	for (int i = 0; i < 3; i++) {
		size_t n;
		p += strspn(p, " ");
		n = strcspn(p, " \n");
		if (!n || n > LAYER_WORD_MAX)
			return -1;
		memcpy(dst[i], p, n);
		if (!layer_word(dst[i]))
			return -1;
		p += n;
	}
	/* blanks, one newline at most, then nothing */
	p += strspn(p, " ");
	if (*p == '\n')
		p++;
	if (*p)
		return -1;
	*out = l;
	return 0;
}

int layer_read(int dfd, const char *name, struct layer *out)
{
	struct stat st;
	char *buf = NULL;
	size_t len = 0;
	int fd, rc = -1;
	memset(out, 0, sizeof *out);
	if (!layer_word(name))
		return -1;
	fd = openat(dfd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0)
		return -1;
	if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size <= LAYER_FILE_MAX)
		buf = read_fd(fd, LAYER_FILE_MAX + 1, &len);
	close(fd);
	/* a NUL inside is not text */
	if (buf && len <= LAYER_FILE_MAX && strlen(buf) == len)
		rc = layer_parse(buf, out);
	free(buf);
	return rc;
}
