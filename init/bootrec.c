/*
 * bootrec.c - what this boot is: the boot record and the console summary.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "err.h"
#include "hash.h"
#include "init.h"
#include "json.h"
#include "probe.h"
#include "spawn.h"
#include "sqlite3.h"
#include "layer.h"
#include "xio.h"

/* sha256 of the kernel's own config (/proc/config.gz, decompressed), or "" */
static void config_sha256(char hex[65])
{
	char *argv[] = { (char *)BUSYBOX, (char *)"zcat", (char *)"/proc/config.gz", NULL };
	struct sbuf out = {0};
	struct run_result r;
	hex[0] = 0;
	if (access("/proc/config.gz", R_OK) != 0)
		return;
	if (run_capture(argv, &out, 30000, &r) == 0 && WIFEXITED(r.status) && !WEXITSTATUS(r.status) && out.len)
		sha256_hex(out.s, out.len, hex);
	sb_free(&out);
}

/*
 * The userland's tools as its build wrote them (rootfs/build-userland,
 * /etc/bootbench/tools: "PACKAGE VERSION" lines, the Debian packages
 * pinned in rootfs/sources.lock): which fio, perf, mdadm... produced the
 * figures, readable without the manifest. null when the file is absent.
 */
static void userland_tools(struct jw *w)
{
	char *buf = read_file(USERLAND_TOOLS_FILE, NULL), *line, *save = NULL;
	if (!buf) {
		jw_null(w, "tools");
		return;
	}
	jw_obj(w, "tools");
	for (line = strtok_r(buf, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char *sp = strchr(line, ' ');
		if (line[0] == '#' || !sp || sp == line || sp - line > 64 || strlen(sp + 1) > 64)
			continue;
		*sp = 0;
		jw_str(w, line, sp + 1);
	}
	jw_obj_end(w);
	free(buf);
}

/*
 * The layers this boot carries (build-userland LAYERS: archives a boot loader
 * concatenates after the userland when a plan needs them), each naming what
 * built it in /etc/bootbench/layers/NAME, read by lib/layer.c as hostile.
 * At most 64 of them, in name order. An object, {} with none; a file that
 * is not such a line reads as its name with null, an entry past the 64th or
 * with another name is counted in "layers_unread".
 */
#define LAYERS_MAX 64

static int cmp_dirent(const void *a, const void *b)
{
	return strcmp((*(struct dirent *const *)a)->d_name, (*(struct dirent *const *)b)->d_name);
}

static void layers(struct jw *w)
{
	int dfd = open(LAYERS_DIR, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC), n = -1, unread = 0;
	struct dirent **ents = NULL;
	DIR *d;
	jw_obj(w, "layers");
	/* scandir by name through the descriptor: the directory itself is
	 * no symlink either */
	if (dfd >= 0 && (d = fdopendir(dfd))) {
		struct dirent *e;
		size_t cap = 0;
		n = 0;
		while ((e = readdir(d))) {
			if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
				continue;
			if (n >= LAYERS_MAX || !layer_word(e->d_name)) {
				unread++;
				continue;
			}
			if ((size_t)n == cap) {
				cap = cap ? cap * 2 : 8;
				ents = xrealloc(ents, cap * sizeof *ents);
			}
			ents[n] = xmalloc(sizeof **ents);
			memcpy(ents[n], e, sizeof **ents);
			n++;
		}
		qsort(ents, (size_t)n, sizeof *ents, cmp_dirent);
		for (int i = 0; i < n; i++) {
			struct layer ly;
			if (layer_read(dfd, ents[i]->d_name, &ly) == 0) {
				jw_obj(w, ents[i]->d_name);
				jw_str(w, "package", ly.package);
				jw_str(w, "version", ly.version);
				jw_str(w, "build", ly.build);
				jw_obj_end(w);
			} else
				jw_null(w, ents[i]->d_name);
			free(ents[i]);
		}
		free(ents);
		closedir(d);
	} else if (dfd >= 0)
		close(dfd);
	jw_obj_end(w);
	if (unread)
		jw_int(w, "layers_unread", unread);
}

/*
 * The kernel's descriptor, packed by scripts/fetch-kernel into the kernel's
 * own initramfs part as KEY=value lines: which descriptor, package or source,
 * and for kernels built from source the config recipe hash, the compiler and
 * the build's cache key. Written as an object with lowercase keys.
 */
static void kernel_descriptor(struct jw *w)
{
	char *buf = read_file("/etc/bootbench/kernel.desc", NULL), *line, *save = NULL;
	if (!buf) {
		jw_null(w, "descriptor");
		return;
	}
	jw_obj(w, "descriptor");
	for (line = strtok_r(buf, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char *eq = strchr(line, '='), *v;
		size_t vl;
		if (!eq || eq == line || eq - line > 40)
			continue;
		*eq = 0;
		for (char *k = line; *k; k++)
			if (*k >= 'A' && *k <= 'Z')
				*k = (char)(*k - 'A' + 'a');
		v = eq + 1;
		vl = strlen(v);
		if (vl >= 2 && (v[0] == '"' || v[0] == '\'') && v[vl - 1] == v[0]) {
			v[vl - 1] = 0;
			v++;
		}
		jw_str(w, line, v);
	}
	jw_obj_end(w);
	free(buf);
}

static void cpu_info(char *model, size_t mlen, int *count)
{
	char *buf = read_file("/proc/cpuinfo", NULL), *line, *save = NULL;
	*count = 0;
	snprintf(model, mlen, "unknown");
	if (!buf)
		return;
	for (line = strtok_r(buf, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		if (!strncmp(line, "processor", 9))
			(*count)++;
		else if (!strncmp(line, "model name", 10) && *count == 1) {
			char *c = strchr(line, ':');
			if (c)
				snprintf(model, mlen, "%s", c + 2);
		}
	}
	free(buf);
}

long long meminfo_kib(const char *key)
{
	char *buf = read_file("/proc/meminfo", NULL), *p;
	long long v = -1;
	if (!buf)
		return -1;
	p = strstr(buf, key);
	if (p)
		v = strtoll(p + strlen(key), NULL, 10);
	free(buf);
	return v;
}

static void words_array(struct jw *w, const char *key, const struct sbuf *sb)
{
	char *copy = xstrdup(sb->s ? sb->s : ""), *tok, *save = NULL;
	jw_arr(w, key);
	for (tok = strtok_r(copy, " ", &save); tok; tok = strtok_r(NULL, " ", &save))
		jw_str(w, NULL, tok);
	jw_arr_end(w);
	free(copy);
}

/* The kernel's raid= option as it parses it: comma-separated items, later
 * ones winning; "noautodetect" keeps a kernel with md built in from
 * assembling 0.90 members it finds on type-0xfd partitions of any disk,
 * claimed or not, before PID 1 runs. */
static int md_autodetect_disabled(const char *cmdline)
{
	int off = 0;
	for (const char *p = cmdline; p && *p;) {
		size_t n;
		p += strspn(p, " \t\n");
		n = strcspn(p, " \t\n");
		if (n > 5 && !strncmp(p, "raid=", 5))
			for (const char *q = p + 5; q < p + n;) {
				size_t m = strcspn(q, ", \t\n");
				if (m == 12 && !strncmp(q, "noautodetect", 12))
					off = 1;
				else if (m == 10 && !strncmp(q, "autodetect", 10))
					off = 0;
				q += m + (q[m] == ',');
			}
		p += n;
	}
	return off;
}

/* The appliance never assembles an array: any in /proc/mdstat now was
 * assembled by the kernel, from disks nobody gave us. Say so loudly. */
static void md_safety(struct jw *w)
{
	size_t len;
	char *st = read_file("/proc/mdstat", &len), *save = NULL;
	int off = md_autodetect_disabled(A.cmdline_raw);
	jw_obj(w, "md_autodetect");
	jw_bool(w, "disabled", off);
	jw_arr(w, "arrays_at_start");
	for (char *l = st ? strtok_r(st, "\n", &save) : NULL; l; l = strtok_r(NULL, "\n", &save))
		if (!strncmp(l, "md", 2) && strstr(l, " : ")) {
			jw_str(w, NULL, l);
			warning("the kernel assembled %s before init ran (md autodetect): it may write disks that were not claimed",
			     l);
		}
	jw_arr_end(w);
	jw_obj_end(w);
	if (!off)
		warning("raid=noautodetect is not on the kernel command line: a kernel with md built in may assemble and "
		     "resync RAID members on unclaimed disks before init runs");
	free(st);
}

/* /proc/version as the kernel wrote it (its builder and compiler), one
 * line, at most 512 bytes. */
static void proc_version(struct jw *w)
{
	char *v = read_attr("/proc/version");
	if (v && strlen(v) > 512)
		v[512] = 0;
	jw_str(w, "proc_version", v);
	free(v);
}

/* The machine as its firmware names it (SMBIOS, /sys/class/dmi/id): a lab
 * machine's vendor, product and serial; a LAVA lab's QEMU device says its
 * device name as the serial (scripts/lava-device -smbios). Each at most
 * 128 bytes; absent where the kernel has no DMI. */
static void dmi(struct jw *w)
{
	static const char *const attr[][2] = {
		{ "sys_vendor", "vendor" }, { "product_name", "product" },
		{ "product_serial", "serial" }, { "board_name", "board" },
	};
	int any = 0;
	for (size_t i = 0; i < sizeof attr / sizeof *attr; i++) {
		char path[64];
		char *v;
		snprintf(path, sizeof path, "/sys/class/dmi/id/%s", attr[i][0]);
		v = read_attr(path);
		if (v && *v) {
			if (strlen(v) > 128)
				v[128] = 0;
			if (!any++)
				jw_obj(w, "dmi");
			jw_str(w, attr[i][1], v);
		}
		free(v);
	}
	if (any)
		jw_obj_end(w);
}

char *boot_record_json(void)
{
	struct jw w;
	char model[128], cfg[65];
	int ncpu;

	cpu_info(model, sizeof model, &ncpu);
	config_sha256(cfg);
	jw_init(&w);
	jw_obj(&w, NULL);
	jw_obj(&w, "kernel");
	jw_str(&w, "release", A.release);
	jw_str(&w, "version", A.version);
	jw_str(&w, "machine", A.machine[0] ? A.machine : NULL);
	/* the compiler that built it, for a KCIDB build (bootbench export) */
	proc_version(&w);
	jw_str(&w, "config_sha256", cfg[0] ? cfg : NULL);
	kernel_descriptor(&w);
	jw_obj_end(&w);
	jw_str(&w, "cmdline", A.cmdline_shown);
	md_safety(&w);
	jw_str(&w, "userland", A.userland_id);
	/* linked into bootbench itself, so inside the userland id too; named
	 * here as the manifest names the userland's tools */
	jw_obj(&w, "libraries");
	jw_str(&w, "libblkid", probe_library_version());
	jw_str(&w, "sqlite3", sqlite3_libversion());
	jw_obj_end(&w);
	userland_tools(&w);
	layers(&w);
	jw_str(&w, "mode", A.conf.mode);
	jw_str(&w, "accel", A.conf.accel);
	jw_str(&w, "tag", A.conf.tag);
	jw_obj(&w, "qemu");
	jw_str(&w, "version", A.conf.qemu);
	jw_str(&w, "entry", A.conf.entry);
	if (A.conf.disk_read_bps)
		jw_int(&w, "disk_read_bps", (long long)A.conf.disk_read_bps);
	/* the settings scripts/boot-qemu --deterministic uses */
	jw_str(&w, "icount", strcmp(A.conf.mode, "deterministic") ? NULL :
			     "-icount shift=0,sleep=off -rtc base=2024-01-01T00:00:00,clock=vm -seed 1 -smp 1; norandmaps");
	jw_obj_end(&w);
	dmi(&w);
	jw_obj(&w, "cpu");
	jw_str(&w, "model", model);
	jw_int(&w, "count", ncpu);
	jw_obj_end(&w);
	jw_obj(&w, "memory");
	jw_int(&w, "total_kib", meminfo_kib("MemTotal:"));
	jw_str(&w, "unit", "KiB");
	jw_obj_end(&w);
	jw_arr(&w, "devices");
	for (size_t i = 0; i < A.ndevs; i++) {
		const struct blkdev *d = &A.devs[i];
		jw_obj(&w, NULL);
		jw_str(&w, "name", d->name);
		jw_int(&w, "size_bytes", d->size);
		jw_int(&w, "logical_block_size", d->lbs);
		jw_str(&w, "model", d->model);
		jw_str(&w, "serial", d->serial);
		jw_str(&w, "wwid", d->wwid);
		jw_str(&w, "path_id", d->path_id);
		jw_bool(&w, "rotational", d->rotational);
		jw_bool(&w, "ro", d->ro);
		jw_bool(&w, "results", !strcmp(d->name, A.results_dev));
		jw_obj_end(&w);
	}
	jw_arr_end(&w);
	jw_obj(&w, "modules");
	words_array(&w, "loaded", &A.mod_loaded);
	words_array(&w, "missing", &A.mod_missing);
	words_array(&w, "failed", &A.mod_failed);
	/* why each was loaded: the device it drives, or the layout needing it
	 * (its dependencies: the module that needed them) */
	jw_obj(&w, "why");
	for (char *line = A.mod_why.s, *nl; line && *line; line = nl + 1) {
		char *tab = strchr(line, '\t');
		nl = strchr(line, '\n');
		if (!tab || !nl || tab > nl)
			break;
		*tab = *nl = 0;
		jw_str(&w, line, tab + 1);
		*tab = '\t';
		*nl = '\n';
	}
	jw_obj_end(&w);
	jw_obj_end(&w);
	jw_obj(&w, "init_uptime");
	jw_num(&w, "value", A.uptime_start);
	jw_str(&w, "unit", "s");
	jw_str(&w, "better", "lower");
	jw_obj_end(&w);
	jw_obj_end(&w);
	return sb_steal(&w.sb);
}

void print_summary(void)
{
	FILE *o = stdout;
	fprintf(o, "bootbench: ---- boot summary ----\n");
	fprintf(o, "bootbench: kernel:   %s %s\n", A.release, A.version);
	fprintf(o, "bootbench: userland: %s\n", A.userland_id);
	fprintf(o, "bootbench: cmdline:  %s\n", A.cmdline_shown ? A.cmdline_shown : "");
	fprintf(o, "bootbench: modules:  %u loaded, %u missing, %u failed\n", A.nloaded, A.nmissing, A.nfailed);
	if (A.nmissing)
		fprintf(o, "bootbench: missing modules: %s\n", A.mod_missing.s);
	if (A.nfailed)
		fprintf(o, "bootbench: failed modules: %s\n", A.mod_failed.s);
	for (size_t i = 0; i < A.ndevs; i++) {
		const struct blkdev *d = &A.devs[i];
		char hs[32];
		human_size(d->size, hs, sizeof hs);
		fprintf(o, "bootbench: device:   %s %s lbs=%u serial=%s model=%s path=%s%s%s\n", d->name, hs, d->lbs,
			d->serial[0] ? d->serial : "-", d->model[0] ? d->model : "-",
			d->path_id[0] ? d->path_id : "-", d->ro ? " ro" : "",
			!strcmp(d->name, A.results_dev) ? " (results)" : "");
	}
	if (!A.ndevs)
		fprintf(o, "bootbench: device:   none\n");
	fprintf(o, "bootbench: init started at uptime %.2f s\n", A.uptime_start);
	fprintf(o, "bootbench: --------------------------\n");
	fflush(o);
}
