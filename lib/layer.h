/*
 * layer.h - what built a layer the boot carries: build-userland writes
 * /etc/bootbench/layers/NAME as one line, "PACKAGE VERSION BUILDKEY".
 * Files inside an initramfs are read as hostile: only a regular file
 * (never a FIFO or a device to block on, nor a symlink), at most 512
 * bytes, exactly three words of letters, digits and . _ - + : ~ (each at
 * most 64). The boot record lists every layer (init/bootrec.c); a
 * workload that runs a layer's programs names the build it ran
 * (workloads/pg.c), so runs of two builds never pool.
 */
#ifndef BB_LAYER_H
#define BB_LAYER_H

#define LAYER_WORD_MAX 64
#define LAYER_FILE_MAX 512

struct layer {
	char package[LAYER_WORD_MAX + 1], version[LAYER_WORD_MAX + 1], build[LAYER_WORD_MAX + 1];
};

/* A layer's name or one of its words: 1 when it is plain. */
int layer_word(const char *s);
/* Parse a layer file's text: 0, or -1 when it is not one such line. */
int layer_parse(const char *text, struct layer *out);
/* Read layer `name` in the directory dfd: 0, or -1 (absent, not a
 * regular file, not such a line). */
int layer_read(int dfd, const char *name, struct layer *out);

#endif
