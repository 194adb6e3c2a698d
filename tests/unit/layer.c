/*
 * layer.c - a layer's build line (lib/layer.c), table-driven, hostile
 * files included: what each text gives, and which files are not read
 * (a FIFO, a symlink, a directory, a NUL inside, an oversized file).
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "layer.h"
#include "tap.h"

static const struct {
	const char *in;
	const char *pkg, *ver, *build;	/* NULL: refused */
} texts[] = {
	{ "postgresql-15 15.18-0+deb12u1 3f9a0c\n", "postgresql-15", "15.18-0+deb12u1", "3f9a0c" },
	{ "postgresql-15 15.18-0+deb12u1 3f9a0c", "postgresql-15", "15.18-0+deb12u1", "3f9a0c" },
	{ "a 1:2.3~rc1 k  \n", "a", "1:2.3~rc1", "k" },
	{ "", NULL, NULL, NULL },
	{ "\n", NULL, NULL, NULL },
	{ "a b\n", NULL, NULL, NULL },
	{ "a b c d\n", NULL, NULL, NULL },
	{ "a b c\nd\n", NULL, NULL, NULL },	/* a second line */
	{ "a\nb\nc\n", NULL, NULL, NULL },	/* one line, not words on three */
	{ "a b c\n\n", NULL, NULL, NULL },
	{ "a b c/d\n", NULL, NULL, NULL },
	{ "a b \"c\"\n", NULL, NULL, NULL },
	{ "a b <script>\n", NULL, NULL, NULL },
	{ "a\tb c\n", NULL, NULL, NULL },
	{ "a b c\r\n", NULL, NULL, NULL },
	{ "a b 0123456789012345678901234567890123456789012345678901234567890123\n", "a", "b",
	  "0123456789012345678901234567890123456789012345678901234567890123" },
	{ "a b 01234567890123456789012345678901234567890123456789012345678901234\n", NULL, NULL, NULL },
};

static void put(int dfd, const char *name, const char *text, size_t len)
{
	int fd = openat(dfd, name, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (fd < 0 || write(fd, text, len) != (ssize_t)len)
		abort();
	close(fd);
}

int main(void)
{
	size_t nt = sizeof texts / sizeof *texts;
	char dir[] = "/tmp/bb-layer.XXXXXX", big[600];
	struct layer ly;
	int dfd;
	tap_plan((int)nt + 10);
	for (size_t i = 0; i < nt; i++) {
		int rc = layer_parse(texts[i].in, &ly);
		if (!texts[i].pkg)
			ok(rc == -1 && !ly.package[0], "text %zu refused", i);
		else
			ok(rc == 0 && !strcmp(ly.package, texts[i].pkg) && !strcmp(ly.version, texts[i].ver) &&
				   !strcmp(ly.build, texts[i].build),
			   "text %zu: %s %s %s", i, ly.package, ly.version, ly.build);
	}
	if (!mkdtemp(dir) || (dfd = open(dir, O_RDONLY | O_DIRECTORY)) < 0)
		return 1;
	put(dfd, "good", "pg 1.0 k1\n", 10);
	ok(layer_read(dfd, "good", &ly) == 0 && !strcmp(ly.build, "k1"), "a regular file is read");
	put(dfd, "nul", "pg 1.0 k1\0x\n", 12);
	ok(layer_read(dfd, "nul", &ly) == -1, "a NUL inside: not read");
	/* a valid line padded with blanks past 512 bytes */
	memset(big, ' ', sizeof big);
	memcpy(big, "pg 1.0 k1", 9);
	big[sizeof big - 1] = '\n';
	put(dfd, "big", big, sizeof big);
	ok(layer_read(dfd, "big", &ly) == -1, "past 512 bytes: not read");
	ok(mkfifoat(dfd, "fifo", 0644) == 0 && layer_read(dfd, "fifo", &ly) == -1, "a FIFO: not read, no block");
	ok(symlinkat("good", dfd, "link") == 0 && layer_read(dfd, "link", &ly) == -1, "a symlink: not followed");
	ok(mkdirat(dfd, "sub", 0755) == 0 && layer_read(dfd, "sub", &ly) == -1, "a directory: not read");
	ok(layer_read(dfd, "absent", &ly) == -1 && !ly.package[0], "an absent layer: -1, nothing filled");
	ok(layer_read(dfd, "../good", &ly) == -1, "a name with a slash: refused");
	ok(layer_read(dfd, "", &ly) == -1, "an empty name: refused");
	ok(layer_word("postgresql") && !layer_word("a b") && !layer_word("a/b"), "layer names");
	for (const char *const *n = (const char *const[]){ "good", "nul", "big", "fifo", "link", NULL }; *n; n++)
		unlinkat(dfd, *n, 0);
	unlinkat(dfd, "sub", AT_REMOVEDIR);
	close(dfd);
	rmdir(dir);
	return tap_done();
}
