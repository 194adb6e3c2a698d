/*
 * kprof.c - the kernel's sampling profiler, read and resolved (kprof.h).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "kprof.h"
#include "xio.h"

static int fail(char *err, size_t errlen, const char *msg)
{
	snprintf(err, errlen, "%s", msg);
	return -1;
}

static size_t underscores(const char *s)
{
	size_t n = 0;
	while (s[n] == '_')
		n++;
	return n;
}

static int by_addr(const void *a, const void *b)
{
	const struct ksym *x = a, *y = b;
	size_t ux, uy;
	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	/* aliases at one address: the one with the fewest leading underscores
	 * (startup_64 rather than the _stext marker), then the alphabetically
	 * first, so the choice does not depend on the order kallsyms lists them */
	ux = underscores(x->name);
	uy = underscores(y->name);
	if (ux != uy)
		return ux < uy ? -1 : 1;
	return strcmp(x->name, y->name);
}

static int hexval(const char *s, size_t n, unsigned long long *v)
{
	unsigned long long x = 0;
	if (!n || n > 16)
		return -1;
	for (size_t i = 0; i < n; i++) {
		int d = s[i] >= '0' && s[i] <= '9' ? s[i] - '0' : s[i] >= 'a' && s[i] <= 'f' ? s[i] - 'a' + 10 :
			s[i] >= 'A' && s[i] <= 'F' ? s[i] - 'A' + 10 : -1;
		if (d < 0)
			return -1;
		x = x << 4 | (unsigned)d;
	}
	*v = x;
	return 0;
}

/* A whole /proc file read into a mapping of its own that forks leave
 * behind, up to max bytes (reserved, touched only as read): never PID 1's
 * malloc heap, which a workload forked from PID 1 would inherit and copy on
 * each of its own forks. Unmap with munmap(p, max). NULL with errno set
 * (EFBIG past max). */
static char *nofork_read(const char *path, size_t max, size_t *len)
{
	char *p = map_nofork(max);
	size_t n = 0;
	int fd, e;
	if (!p)
		return NULL;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		e = errno;
		munmap(p, max);
		errno = e;
		return NULL;
	}
	for (;;) {
		ssize_t r = read(fd, p + n, max - n);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0 || (r > 0 && n + (size_t)r >= max)) {
			e = r < 0 ? errno : EFBIG;
			close(fd);
			munmap(p, max);
			errno = e;
			return NULL;
		}
		if (r == 0)
			break;
		n += (size_t)r;
	}
	close(fd);
	*len = n;
	return p;
}

int ksyms_parse(const char *buf, size_t len, struct ksyms *k, char *err, size_t errlen)
{
	size_t cap = 1, nlen = 0, i = 0, nonzero = 0, lines = 0;
	memset(k, 0, sizeof *k);
	/* at most one symbol a line: one mapping each for the symbols and the
	 * names, of which only what is written gets pages */
	for (size_t j = 0; j < len; j++)
		cap += buf[j] == '\n';
	k->s_bytes = cap * sizeof *k->s;
	k->names_bytes = len + 1;
	k->s = map_nofork(k->s_bytes);
	k->names = map_nofork(k->names_bytes);
	if (!k->s || !k->names) {
		ksyms_free(k);
		return fail(err, errlen, "cannot map memory for kallsyms");
	}
	while (i < len) {
		const char *l = buf + i, *e = memchr(l, '\n', len - i), *sp1, *sp2, *name;
		size_t ll = e ? (size_t)(e - l) : len - i, namelen;
		unsigned long long addr;
		char type;
		i += ll + 1;
		/* "ffffffff81000000 T _stext" [\t[module]] */
		sp1 = memchr(l, ' ', ll);
		if (!sp1 || sp1 + 3 >= l + ll || sp1[2] != ' ')
			continue;
		if (hexval(l, (size_t)(sp1 - l), &addr) < 0)
			continue;
		type = sp1[1];
		name = sp1 + 3;
		/* a module's symbol ("name\t[ext4]"): outside the tick profile's
		 * counters, but where perf's samples of ext4, xfs, md... land */
		sp2 = memchr(name, '\t', (size_t)(l + ll - name));
		namelen = (size_t)((sp2 ? sp2 : l + ll) - name);
		if (!namelen || namelen > 511)	/* KSYM_NAME_LEN is 512 since 6.1 */
			continue;
		lines++;
		if (addr)
			nonzero++;
		if (namelen == 6 && !memcmp(name, "_stext", 6))
			k->stext = addr;
		if (namelen == 6 && !memcmp(name, "_etext", 6))
			k->etext = addr;
		if (type != 't' && type != 'T' && type != 'w' && type != 'W')
			continue;
		if (sp2 && (!k->mod_lo || addr < k->mod_lo))
			k->mod_lo = addr;
		memcpy(k->names + nlen, name, namelen);
		k->names[nlen + namelen] = 0;
		k->s[k->n].addr = addr;
		k->s[k->n++].name = (const char *)(uintptr_t)nlen;	/* an offset until names stops moving */
		nlen += namelen + 1;
	}
	for (size_t j = 0; j < k->n; j++)
		k->s[j].name = k->names + (uintptr_t)k->s[j].name;
	if (!lines) {
		ksyms_free(k);
		return fail(err, errlen, "no symbol lines (\"ADDRESS TYPE NAME\") in kallsyms");
	}
	if (!nonzero) {
		ksyms_free(k);
		return fail(err, errlen, "every kallsyms address is 0 (kernel.kptr_restrict hides them)");
	}
	if (!k->stext || !k->n) {
		ksyms_free(k);
		return fail(err, errlen, "kallsyms has no _stext or no text symbols");
	}
	qsort(k->s, k->n, sizeof *k->s, by_addr);
	return 0;
}

const struct ksym *ksyms_find(const struct ksyms *k, unsigned long long addr)
{
	size_t lo = 0, hi = k->n;
	if (!k->n || addr < k->s[0].addr)
		return NULL;
	while (hi - lo > 1) {
		size_t mid = lo + (hi - lo) / 2;
		if (k->s[mid].addr <= addr)
			lo = mid;
		else
			hi = mid;
	}
	/* the first of the aliases at that address */
	while (lo && k->s[lo - 1].addr == k->s[lo].addr)
		lo--;
	return &k->s[lo];
}

void ksyms_free(struct ksyms *k)
{
	if (k->s)
		munmap(k->s, k->s_bytes);
	if (k->file)
		munmap(k->file, k->file_bytes);
	else if (k->names)
		munmap(k->names, k->names_bytes);
	memset(k, 0, sizeof *k);
}

/* 1 when one of the eight counters at c is not 0 (read with memcpy: no
 * assumption about the buffer's alignment) */
static int any8(const unsigned *c)
{
	uint64_t w[4];
	memcpy(w, c, sizeof w);
	return (w[0] | w[1] | w[2] | w[3]) != 0;
}

_Static_assert(sizeof(unsigned) == 4, "/proc/profile's counters are 32-bit (atomic_t)");

size_t kprof_hits(const unsigned *count, size_t n, size_t first, struct khit *out)
{
	size_t m = 0;
	/* the zeros skipped eight at a time: counter by counter, 3.5 million
	 * of them took 37 ms of a TCG guest's time a run */
	for (size_t i = 0; i < n; i++) {
		while (!(i & 7) && i + 8 <= n && !any8(count + i))
			i += 8;
		if (i >= n)
			break;
		if (count[i]) {
			out[m].i = (uint32_t)(first + i);
			out[m++].count = count[i];
		}
	}
	return m;
}

static int by_samples(const void *a, const void *b)
{
	const struct kfunc *x = a, *y = b;
	if (x->samples != y->samples)
		return x->samples > y->samples ? -1 : 1;
	return strcmp(x->name, y->name);
}

void kprof_top(const struct kprofile *p, const struct ksyms *k, struct kprof_top *t)
{
	/* the functions hit, in address order (the walk below only moves up,
	 * so a function's counters are adjacent): a few hundred, not an array
	 * as long as kallsyms to zero per run */
	struct kfunc *all = NULL;
	size_t na = 0, cap = 0, last = (size_t)-1;
	unsigned long long unknown = 0;
	memset(t, 0, sizeof *t);
	/* counter i covers [_stext + i*step, + step): the symbol at its start */
	for (size_t h = 0, s = 0; h < p->nhit; h++) {
		size_t i = p->hit[h].i, f;
		unsigned long long a = k->stext + (unsigned long long)i * p->step;
		unsigned c = p->hit[h].count;
		t->total += c;
		if (i == p->n - 1) {
			t->outside += c;
			continue;
		}
		while (s + 1 < k->n && k->s[s + 1].addr <= a)
			s++;
		if (!k->n || k->s[s].addr > a) {
			unknown += c;
			continue;
		}
		/* aliases at one address: the first name */
		for (f = s; f && k->s[f - 1].addr == k->s[f].addr; f--)
			;
		if (f != last) {
			if (na + 1 >= cap) {	/* + 1: room for "before the first symbol" */
				cap = cap ? 2 * cap : 256;
				all = xrealloc(all, cap * sizeof *all);
			}
			all[na].name = k->s[f].name;
			all[na++].samples = 0;
			last = f;
		}
		all[na - 1].samples += c;
	}
	if (unknown) {
		if (na + 1 > cap)
			all = xrealloc(all, (cap = na + 1) * sizeof *all);
		all[na].name = "(before the first symbol)";
		all[na++].samples = unknown;
	}
	if (na)
		qsort(all, na, sizeof *all, by_samples);
	t->nfuncs = na;
	for (size_t i = 0; i < na; i++) {
		if (t->n < KPROF_TOP) {
			snprintf(t->names[t->n], sizeof t->names[t->n], "%s", all[i].name);
			t->f[t->n].name = t->names[t->n];
			t->f[t->n++].samples = all[i].samples;
		} else {
			t->other += all[i].samples;
		}
	}
	free(all);
}

void kprof_json(struct jw *w, const struct kprof_top *t, unsigned step, unsigned hz)
{
	jw_obj(w, "profile");
	jw_str(w, "source", "/proc/profile (profile= boot option), resolved by /proc/kallsyms");
	jw_str(w, "samples_of", "the timer tick when it interrupts the kernel (user time is not sampled)");
	jw_int(w, "step_bytes", step);
	if (hz)
		jw_int(w, "tick_hz", hz);
	else
		jw_null(w, "tick_hz");	/* /proc/timer_list did not tell */
	jw_int(w, "samples", (long long)t->total);
	jw_int(w, "outside_text", (long long)t->outside);
	jw_int(w, "other", (long long)t->other);
	jw_int(w, "functions_sampled", (long long)t->nfuncs);
	jw_arr(w, "functions");
	for (size_t i = 0; i < t->n; i++) {
		jw_obj(w, NULL);
		jw_str(w, "name", t->f[i].name);
		jw_int(w, "samples", (long long)t->f[i].samples);
		jw_num(w, "share", t->total ? (double)t->f[i].samples / (double)t->total : 0);
		jw_obj_end(w);
	}
	jw_arr_end(w);
	jw_obj_end(w);
}

/* ---- live ---- */

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* /proc/timer_list's "jiffies: N" twice, a tenth of a second apart: the
 * tick rate the profile samples at, rounded to a rate kernels are built
 * with (10, 25, 30 or 100 jiffies: one off either way still tells them
 * apart). */
static unsigned estimate_hz(void)
{
	static const unsigned rates[] = { 100, 250, 300, 1000 };
	unsigned long long j[2];
	double t[2], hz, best = 1e9;
	unsigned pick = 0;
	for (int i = 0; i < 2; i++) {
		size_t len;
		char *s, *p;
		if (i)
			usleep(100000);
		t[i] = now_s();
		s = nofork_read("/proc/timer_list", 4u << 20, &len);
		p = s ? memmem(s, len, "\njiffies: ", 10) : NULL;
		if (!p) {
			if (s)
				munmap(s, 4u << 20);
			return 0;
		}
		j[i] = strtoull(p + 10, NULL, 10);
		munmap(s, 4u << 20);
	}
	if (j[1] <= j[0] || t[1] <= t[0])
		return 0;
	hz = (double)(j[1] - j[0]) / (t[1] - t[0]);
	for (size_t i = 0; i < sizeof rates / sizeof *rates; i++) {
		double d = hz > rates[i] ? hz - rates[i] : rates[i] - hz;
		if (d < best) {
			best = d;
			pick = rates[i];
		}
	}
	return best < pick * 0.2 ? pick : 0;
}

/* /proc/kallsyms, parsed: 0, or -1 with the reason in err. */
static int load_ksyms(struct ksyms *k, char *err, size_t errlen)
{
	size_t len;
	char *text = nofork_read("/proc/kallsyms", KPROF_MAX_KALLSYMS, &len), e[160];
	int rc;
	if (!text) {
		snprintf(err, errlen, "/proc/kallsyms: %s", strerror(errno));
		return -1;
	}
	rc = ksyms_parse(text, len, k, e, sizeof e);
	munmap(text, KPROF_MAX_KALLSYMS);
	if (rc < 0)
		snprintf(err, errlen, "/proc/kallsyms: %s", e);
	return rc;
}

/* The profile= word of the kernel command line, "" when none. profile=N
 * samples the timer tick; profile=schedule,N, sleep,N and kvm,N count other
 * events into the same file, which this reader would misname. */
static void profile_option(char *out, size_t len)
{
	size_t n;
	char *cl = read_file("/proc/cmdline", &n), *p = cl;
	out[0] = 0;
	while (p && (p = strstr(p, "profile=")) != NULL) {
		if (p == cl || p[-1] == ' ') {
			size_t w = strcspn(p + 8, " \n");
			snprintf(out, len, "%.*s", (int)(w < 32 ? w : 32), p + 8);
			break;
		}
		p += 8;
	}
	free(cl);
}

/* The resolved table in a memfd: reading /proc/kallsyms makes the kernel
 * format ~150,000 lines, 2 s a run under TCG; the table is read once. The
 * file: n, stext, etext, names' length, the lowest module text (u64 each), n (address, name
 * offset) pairs, the names. */
static int save_ksyms(const struct ksyms *k)
{
	uint64_t h[5] = { k->n, k->stext, k->etext, 0, k->mod_lo };
	size_t nl = 0, size;
	unsigned char *buf;
	int fd = memfd_create("bootbench-kallsyms", MFD_CLOEXEC), rc;
	if (fd < 0)
		return -1;
	for (size_t i = 0; i < k->n; i++)
		nl += strlen(k->s[i].name) + 1;
	h[3] = nl;
	/* laid out whole, then one write: a write a symbol was 0.2 s under TCG */
	size = sizeof h + k->n * 16 + nl;
	if (!(buf = map_nofork(size))) {
		close(fd);
		return -1;
	}
	memcpy(buf, h, sizeof h);
	for (size_t i = 0, off = 0; i < k->n; i++) {
		uint64_t e[2] = { k->s[i].addr, off };
		size_t l = strlen(k->s[i].name) + 1;
		memcpy(buf + sizeof h + 16 * i, e, sizeof e);
		memcpy(buf + sizeof h + 16 * k->n + off, k->s[i].name, l);
		off += l;
	}
	rc = write_all(fd, buf, size);
	munmap(buf, size);
	if (rc < 0) {
		close(fd);
		return -1;
	}
	return fd;
}

static int map_ksyms(int fd, struct ksyms *k, char *err, size_t errlen)
{
	struct stat st;
	uint64_t h[5];
	const uint64_t *e;
	char *base;
	memset(k, 0, sizeof *k);
	if (fstat(fd, &st) < 0 || st.st_size < (off_t)sizeof h)
		return fail(err, errlen, "the kallsyms table is gone");
	base = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	if (base == MAP_FAILED)
		return fail(err, errlen, "cannot map the kallsyms table");
	madvise(base, (size_t)st.st_size, MADV_DONTFORK);
	k->file = base;
	k->file_bytes = (size_t)st.st_size;
	memcpy(h, base, sizeof h);
	if (h[0] > (1u << 24) || sizeof h + h[0] * 16 + h[3] != (uint64_t)st.st_size) {
		ksyms_free(k);
		return fail(err, errlen, "the kallsyms table is damaged");
	}
	k->n = (size_t)h[0];
	k->stext = h[1];
	k->etext = h[2];
	k->mod_lo = h[4];
	k->s_bytes = (k->n + 1) * sizeof *k->s;
	k->s = map_nofork(k->s_bytes);
	if (!k->s) {
		ksyms_free(k);
		return fail(err, errlen, "cannot map memory for kallsyms");
	}
	e = (const uint64_t *)(base + sizeof h);
	k->names = base + sizeof h + k->n * 16;
	for (size_t i = 0; i < k->n; i++) {
		k->s[i].addr = e[2 * i];
		k->s[i].name = e[2 * i + 1] < h[3] ? k->names + e[2 * i + 1] : "?";
	}
	return 0;
}

int kprof_open(struct kprof_live *l)
{
	char opt[40];
	memset(l, 0, sizeof *l);
	l->symfd = -1;
	if (access("/proc/profile", R_OK) < 0) {
		snprintf(l->why, sizeof l->why, "this kernel has no /proc/profile: boot it with profile=2 "
			 "(scripts/boot-qemu --profile)");
		return -1;
	}
	profile_option(opt, sizeof opt);
	if (opt[0] && (opt[0] < '0' || opt[0] > '9')) {
		snprintf(l->why, sizeof l->why, "booted with profile=%s, which counts %s, not CPU time: boot with profile=2",
			 opt, !strncmp(opt, "schedule", 8) ? "calls to schedule()" : !strncmp(opt, "sleep", 5) ? "sleeps" :
			 !strncmp(opt, "kvm", 3) ? "KVM exits" : "something else");
		return -1;
	}
	/* kallsyms and the tick rate are read when the first profile is
	 * resolved, after its run: 0.45 guest seconds a boot that no longer
	 * stand between init and the first measurement */
	l->ok = 1;
	return 0;
}

/* The symbol table and the tick rate, once: 0, or -1 with the reason. */
/* What /proc/modules says, hashed: modules loaded later (nfsd by a plan's
 * nfsserver, brd by a layout) have symbols the table must learn. */
static unsigned long long modules_hash(void)
{
	size_t len;
	char *m = read_file("/proc/modules", &len);
	unsigned long long h = 1469598103934665603ULL;
	for (size_t i = 0; m && i < len; i++)
		h = (h ^ (unsigned char)m[i]) * 1099511628211ULL;
	free(m);
	return h;
}

static int load_once(struct kprof_live *l, char *err, size_t errlen)
{
	struct ksyms k;
	unsigned long long mh = modules_hash();
	if (l->loaded > 0 && mh == l->modhash)
		return 0;
	if (l->loaded < 0)
		return fail(err, errlen, l->why);
	if (load_ksyms(&k, l->why, sizeof l->why) < 0) {
		l->loaded = -1;
		return fail(err, errlen, l->why);
	}
	if (l->symfd >= 0)
		close(l->symfd);
	l->nsyms = k.n;
	l->symfd = save_ksyms(&k);
	ksyms_free(&k);
	if (!l->loaded)
		l->hz = estimate_hz();
	l->modhash = mh;
	l->loaded = 1;
	return 0;
}

int kprof_symbols(struct kprof_live *l, struct ksyms *k, char *err, size_t errlen)
{
	if (load_once(l, err, errlen) < 0)
		return -1;
	return l->symfd >= 0 ? map_ksyms(l->symfd, k, err, errlen) : load_ksyms(k, err, errlen);
}

int kprof_reset(struct kprof_live *l)
{
	if (!l->ok)
		return -1;
	/* any write but one of sizeof(int) bytes (that sets a multiplier) clears */
	l->reset_failed = write_file("/proc/profile", "0\n") < 0;
	if (l->reset_failed)
		snprintf(l->reset_err, sizeof l->reset_err, "clearing /proc/profile before the run failed: %s",
			 strerror(errno));
	return l->reset_failed ? -1 : 0;
}

static void drop_hits(struct kprof_live *l)
{
	if (l->hits)
		munmap(l->hits, l->hits_bytes);
	l->hits = NULL;
	l->nhits = l->ncounters = 0;
}

/* /proc/profile read a piece at a time and kept sparse: the whole 14 MB
 * copied into a fresh mapping each run cost 45 ms of a TCG guest's time
 * (its pages faulted in and zeroed, then copied, then scanned). */
#define KPROF_CHUNK (256u << 10)

int kprof_read(int fd, struct kprof_live *l, char *err, size_t errlen)
{
	unsigned char *buf = NULL;
	struct stat st;
	size_t have = 0, max = KPROF_MAX_PROFILE / sizeof(unsigned);
	unsigned step = 0;
	int rc = -1;
	drop_hits(l);
	/* the kernel gives the file its size (the step and the counters):
	 * address space for that many hits, pages only for those written */
	if (fstat(fd, &st) == 0 && st.st_size >= (off_t)(2 * sizeof(unsigned)) &&
	    (size_t)st.st_size / sizeof(unsigned) - 1 < max)
		max = (size_t)st.st_size / sizeof(unsigned) - 1;
	l->hits_bytes = max * sizeof *l->hits;
	l->hits = map_nofork(l->hits_bytes);
	buf = map_nofork(KPROF_CHUNK);
	if (!l->hits || !buf) {
		fail(err, errlen, "no memory for the profile's counters");
		goto out;
	}
	/* the step, then the counters; have: bytes of a counter a read cut */
	for (int first = 1;;) {
		ssize_t r = read(fd, buf + have, (first ? sizeof step : KPROF_CHUNK) - have);
		size_t whole;
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			snprintf(err, errlen, "/proc/profile: %s", strerror(errno));
			goto out;
		}
		if (r == 0)
			break;
		have += (size_t)r;
		if (first) {
			if (have < sizeof step)
				continue;
			memcpy(&step, buf, sizeof step);
			if (!step || (step & (step - 1)) || step > (1u << 20)) {
				fail(err, errlen, "the profile's step is not a power of two up to 1 MiB");
				goto out;
			}
			first = 0;
			have = 0;
			continue;
		}
		whole = have / sizeof(unsigned);
		if (l->ncounters + whole > max) {
			fail(err, errlen, "/proc/profile holds more counters than it said, or than 256 MiB: refused rather than half-read");
			goto out;
		}
		l->nhits += kprof_hits((const unsigned *)(void *)buf, whole, l->ncounters, l->hits + l->nhits);
		l->ncounters += whole;
		memmove(buf, buf + whole * sizeof(unsigned), have - whole * sizeof(unsigned));
		have -= whole * sizeof(unsigned);
	}
	if (!step || !l->ncounters) {
		fail(err, errlen, "the profile has no counters");
		goto out;
	}
	if (have) {
		fail(err, errlen, "the profile is not a whole number of counters");
		goto out;
	}
	l->step = step;
	rc = 0;
out:
	if (buf)
		munmap(buf, KPROF_CHUNK);
	if (rc < 0)
		drop_hits(l);
	return rc;
}

void kprof_profile(const struct kprof_live *l, struct kprofile *p)
{
	p->step = l->step;
	p->n = l->ncounters;
	p->hit = l->hits;
	p->nhit = l->nhits;
}

int kprof_snapshot(struct kprof_live *l, char *err, size_t errlen)
{
	int fd, rc;
	if (!l->ok)
		return fail(err, errlen, l->why);
	if (l->reset_failed)
		return fail(err, errlen, l->reset_err);
	fd = open("/proc/profile", O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		snprintf(err, errlen, "/proc/profile: %s", strerror(errno));
		return -1;
	}
	rc = kprof_read(fd, l, err, errlen);
	close(fd);
	return rc;
}

int kprof_resolve(struct kprof_live *l, struct kprof_top *t, unsigned *step, char *err, size_t errlen)
{
	struct kprofile p;
	struct ksyms k;
	int rc = -1;
	if (!l->hits)
		return fail(err, errlen, "no profile was copied at the run's end");
	kprof_profile(l, &p);
	if (load_once(l, err, errlen) == 0 &&
	    (l->symfd >= 0 ? map_ksyms(l->symfd, &k, err, errlen) : load_ksyms(&k, err, errlen)) == 0) {
		kprof_top(&p, &k, t);
		*step = p.step;
		ksyms_free(&k);
		rc = 0;
	}
	drop_hits(l);
	return rc;
}

void kprof_close(struct kprof_live *l)
{
	if (l->symfd >= 0)
		close(l->symfd);
	l->symfd = -1;
	l->loaded = 0;
	drop_hits(l);
	l->ok = 0;
}
