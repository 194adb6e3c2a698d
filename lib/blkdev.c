/*
 * blkdev.c - block device parser (pure) and sysfs reader.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "blkdev.h"
#include "sbuf.h"
#include "xio.h"

static void copy_field(char *dst, size_t dstlen, const char *v, size_t vlen)
{
	/* trim, and keep printable ASCII only: these go into JSON and logs */
	size_t o = 0;
	while (vlen && (*v == ' ' || *v == '\t')) { v++; vlen--; }
	while (vlen && (v[vlen - 1] == ' ' || v[vlen - 1] == '\t' || v[vlen - 1] == '\r')) vlen--;
	for (size_t i = 0; i < vlen && o + 1 < dstlen; i++)
		dst[o++] = (v[i] >= 0x20 && v[i] < 0x7f) ? v[i] : '?';
	dst[o] = 0;
}

static int parse_ull(const char *v, size_t n, unsigned long long *out)
{
	unsigned long long x = 0;
	if (!n)
		return -1;
	for (size_t i = 0; i < n; i++) {
		if (v[i] < '0' || v[i] > '9')
			return -1;
		if (x > (ULLONG_MAX - 9) / 10)
			return -1;
		x = x * 10 + (v[i] - '0');
	}
	*out = x;
	return 0;
}

void blkdev_path_id(const char *devpath, char *out, size_t outlen)
{
	/* the last PCI function in the path, then a transport hint */
	const char *p = devpath, *pci = NULL, *ata;
	unsigned a, b, c, d;
	out[0] = 0;
	while ((p = strchr(p, '/'))) {
		p++;
		if (sscanf(p, "%4x:%2x:%2x.%1x", &a, &b, &c, &d) == 4 && strlen(p) >= 12 && p[12] == '/')
			pci = p;
	}
	if (!pci)
		return;
	snprintf(out, outlen, "pci-%.12s", pci);
	ata = strstr(pci, "/ata");
	if (ata) {
		unsigned n;
		if (sscanf(ata, "/ata%u/", &n) == 1)
			snprintf(out + strlen(out), outlen - strlen(out), "-ata-%u", n);
	} else if (strstr(pci, "/nvme/")) {
		const char *ns = strrchr(devpath, 'n');
		unsigned n;
		if (ns && sscanf(ns, "n%u", &n) == 1)
			snprintf(out + strlen(out), outlen - strlen(out), "-nvme-%u", n);
	}
}

int blkdev_parse(struct blkdev *d, const char *name, const char *text, size_t len)
{
	const char *p = text, *end = text + len;
	int have_size = 0;
	char vendor[64] = "";

	memset(d, 0, sizeof *d);
	copy_field(d->name, sizeof d->name, name, strlen(name));
	d->lbs = 512;
	while (p < end) {
		const char *nl = memchr(p, '\n', end - p), *eq;
		size_t ll;
		if (!nl)
			nl = end;
		ll = nl - p;
		eq = memchr(p, '=', ll);
		if (eq) {
			size_t kl = eq - p, vl = nl - eq - 1;
			const char *v = eq + 1;
			unsigned long long x;
#define KEY(s) (kl == sizeof(s) - 1 && !memcmp(p, s, kl))
			while (vl && (v[vl - 1] == ' ' || v[vl - 1] == '\r')) vl--;
			if (KEY("size")) {
				if (parse_ull(v, vl, &x) || x > ULLONG_MAX / 512)
					return -1;
				d->size = x * 512;
				have_size = 1;
			} else if (KEY("logical_block_size")) {
				if (!parse_ull(v, vl, &x) && x >= 512 && x <= 65536 && !(x & (x - 1)))
					d->lbs = x;
			} else if (KEY("ro")) {
				d->ro = vl == 1 && *v == '1';
			} else if (KEY("removable")) {
				d->removable = vl == 1 && *v == '1';
			} else if (KEY("rotational")) {
				d->rotational = vl == 1 && *v == '1';
			} else if (KEY("model")) {
				copy_field(d->model, sizeof d->model, v, vl);
			} else if (KEY("vendor")) {
				copy_field(vendor, sizeof vendor, v, vl);
			} else if (KEY("serial")) {
				copy_field(d->serial, sizeof d->serial, v, vl);
			} else if (KEY("wwid")) {
				copy_field(d->wwid, sizeof d->wwid, v, vl);
			} else if (KEY("devpath")) {
				char tmp[512];
				copy_field(tmp, sizeof tmp, v, vl);
				blkdev_path_id(tmp, d->path_id, sizeof d->path_id);
			}
#undef KEY
		}
		p = nl + 1;
	}
	if (vendor[0] && d->model[0]) {
		char m[2 * sizeof d->model];
		snprintf(m, sizeof m, "%s %s", vendor, d->model);
		snprintf(d->model, sizeof d->model, "%.63s", m);
	} else if (vendor[0]) {
		memcpy(d->model, vendor, sizeof vendor);
	}
	return have_size ? 0 : -1;
}

static int skipped_name(const char *n)
{
	static const char *const pfx[] = { "ram", "loop", "zram", "fd", "sr", "md", "dm-", "nbd" };
	for (size_t i = 0; i < sizeof pfx / sizeof *pfx; i++)
		if (!strncmp(n, pfx[i], strlen(pfx[i])))
			return 1;
	return 0;
}

size_t blkdev_parse_partitions(const char *text, size_t len, char ***names)
{
	const char *p = text, *end = text + len;
	size_t n = 0;
	char **v = NULL;
	while (p < end) {
		const char *nl = memchr(p, '\n', end - p);
		char line[256], name[64];
		unsigned maj, min;
		unsigned long long blocks;
		size_t ll;
		int part = 0;
		if (!nl)
			nl = end;
		ll = nl - p < (long)sizeof line - 1 ? (size_t)(nl - p) : sizeof line - 1;
		memcpy(line, p, ll);
		line[ll] = 0;
		p = nl + 1;
		if (sscanf(line, " %u %u %llu %63s", &maj, &min, &blocks, name) != 4)
			continue;	/* header, blank line */
		if (skipped_name(name))
			continue;
		for (size_t i = 0; i < n; i++) {
			size_t dl = strlen(v[i]);
			if (!strncmp(name, v[i], dl) && name[dl] &&
			    ((name[dl] >= '0' && name[dl] <= '9') || (name[dl] == 'p' && name[dl + 1] >= '0' && name[dl + 1] <= '9')))
				part = 1;
		}
		if (part)
			continue;
		v = xrealloc(v, (n + 1) * sizeof *v);
		v[n++] = xstrdup(name);
	}
	*names = v;
	return n;
}

static void add_attr(struct sbuf *sb, const char *key, const char *path)
{
	char *v = read_attr(path);
	if (v) {
		/* one line per attribute: a newline inside would forge another key */
		for (char *c = v; *c; c++)
			if (*c == '\n')
				*c = ' ';
		sb_printf(sb, "%s=%s\n", key, v);
		free(v);
	}
}

size_t blkdev_scan(struct blkdev *out, size_t max)
{
	size_t len, n, got = 0;
	char *parts = read_file("/proc/partitions", &len), **names;
	if (!parts)
		return 0;
	n = blkdev_parse_partitions(parts, len, &names);
	free(parts);
	for (size_t i = 0; i < n; i++) {
		struct sbuf sb = {0};
		char path[PATH_MAX], link[PATH_MAX];
		ssize_t l;
		if (got < max) {
#define A(k, f) do { snprintf(path, sizeof path, "/sys/block/%s/" f, names[i]); add_attr(&sb, k, path); } while (0)
			A("size", "size");
			A("logical_block_size", "queue/logical_block_size");
			A("ro", "ro");
			A("removable", "removable");
			A("rotational", "queue/rotational");
			A("model", "device/model");
			A("vendor", "device/vendor");
			A("serial", "serial");
			A("serial", "device/serial");
			A("wwid", "wwid");
			A("wwid", "device/wwid");
#undef A
			snprintf(path, sizeof path, "/sys/block/%s", names[i]);
			l = readlink(path, link, sizeof link - 1);
			if (l > 0) {
				link[l] = 0;
				sb_printf(&sb, "devpath=%s\n", link);
			}
			if (sb.s && blkdev_parse(&out[got], names[i], sb.s, sb.len) == 0)
				got++;
			sb_free(&sb);
		}
		free(names[i]);
	}
	free(names);
	return got;
}

void human_size(unsigned long long bytes, char *out, size_t outlen)
{
	static const char *const u[] = { "B", "KiB", "MiB", "GiB", "TiB", "PiB" };
	double v = bytes;
	int i = 0;
	while (v >= 1024 && i < 5) {
		v /= 1024;
		i++;
	}
	if (i == 0)
		snprintf(out, outlen, "%lluB", bytes);
	else
		snprintf(out, outlen, "%.1f%s", v, u[i]);
}
