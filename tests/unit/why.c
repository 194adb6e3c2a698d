/*
 * why.c - the "why" readers: kallsyms and /proc/profile resolved into top
 * functions (lib/kprof.c), /proc/pressure and taskstats exit records
 * (lib/stalls.c), on made-up input that holds the cases real kernels give
 * (aliases, module symbols, the catch-all last counter, records out of
 * order, a newer kernel's longer struct, an older one's shorter), then the
 * live taskstats listener on this host when run as root.
 */
#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <linux/taskstats.h>

#include "kprof.h"
#include "stalls.h"
#include "tap.h"
#include "xio.h"

static const char kallsyms[] =
	"0000000000000000 A fixed_percpu_data\n"
	"ffffffff81000000 T _stext\n"
	"ffffffff81000000 T startup_64\n"
	"ffffffff81000100 t alpha\n"
	"ffffffff81000100 T alias_a\n"	/* alias: alias_a names it (first by name) */
	"ffffffff81000200 T beta\n"
	"ffffffff81000300 D some_data\n"
	"ffffffff81000400 W gamma\n"
	"ffffffff81000500 T _etext\n"
	"ffffffffa0000000 t mod_fn\t[mymod]\n"
	"garbage line\n"
	"ffffffff81000480 t delta";	/* no newline at the end */

/* a struct taskstats as the kernel sends it, `len` bytes long */
static size_t put_stats(unsigned char *b, size_t len, uint32_t pid, uint32_t ppid, uint64_t blk)
{
	struct taskstats t;
	memset(b, 0, len);
	memset(&t, 0, sizeof t);
	t.version = 13;
	t.ac_pid = pid;
	t.ac_ppid = ppid;
	t.cpu_count = 3;
	t.cpu_delay_total = 1000;
	t.blkio_count = blk ? 1 : 0;
	t.blkio_delay_total = blk;
	t.compact_count = 7;
	t.compact_delay_total = 70;
	memcpy(b, &t, len < sizeof t ? len : sizeof t);
	return len;
}

static size_t attr(unsigned char *b, uint16_t type, const void *d, size_t len)
{
	uint16_t l = (uint16_t)(4 + len);
	memcpy(b, &l, 2);
	memcpy(b + 2, &type, 2);
	memmove(b + 4, d, len);
	return (4 + len + 3) & ~(size_t)3;
}

/* one netlink message: nlmsghdr, genlmsghdr (cmd NEW), AGGR_PID{PID, STATS}
 * and, for a thread group's last thread, AGGR_TGID{TGID, STATS} too */
static size_t exit_msg(unsigned char *b, uint16_t family, uint32_t pid, uint32_t ppid, uint64_t blk, size_t slen,
		       int tgid_too)
{
	unsigned char st[600], nest[700];
	size_t n = 0, o = 20;
	uint32_t len;
	put_stats(st, slen, pid, ppid, blk);
	n = attr(nest, 1, &pid, 4);
	n += attr(nest + n, 3, st, slen);
	o += attr(b + o, 4, nest, n);
	if (tgid_too) {
		n = attr(nest, 2, &pid, 4);
		n += attr(nest + n, 3, st, slen);
		o += attr(b + o, 5, nest, n);
	}
	len = (uint32_t)o;
	memset(b + 4, 0, 12);
	memcpy(b, &len, 4);
	memcpy(b + 4, &family, 2);
	b[16] = 2;	/* TASKSTATS_CMD_NEW */
	b[17] = 1;
	b[18] = b[19] = 0;
	return o;
}

/* one exit record, as ts_parse keeps it */
static void keep_for_test(struct ts_listener *l, const unsigned char *st, size_t len)
{
	/* through the parser, so the record is read as the kernel's would be */
	{
		unsigned char nest[600], m[700];
		size_t o = 20, k;
		uint32_t pid, mlen;
		uint16_t fam = 27;
		memcpy(&pid, st + 128, 4);
		k = attr(nest, 1, &pid, 4);
		k += attr(nest + k, 3, st, len);
		o += attr(m + o, 4, nest, k);
		mlen = (uint32_t)o;
		memset(m + 4, 0, 16);
		memcpy(m, &mlen, 4);
		memcpy(m + 4, &fam, 2);
		m[16] = 2;
		l->family = 27;
		ts_parse(l, m, o);
	}
}

/* A /proc/profile image read the appliance's way (kprof_read), through a
 * pipe: 0 with p pointing into L's hits (kprof_close(&L) after), or -1
 * with err set. The image is written whole before it is read, so it must
 * fit the pipe (64 KiB; the largest here is under 10 KB). */
static struct kprof_live L = { .symfd = -1 };
static int profile_from(const void *buf, size_t len, struct kprofile *p, char *err, size_t errlen)
{
	int pfd[2], rc;
	if (pipe(pfd) < 0) {
		snprintf(err, errlen, "pipe: %s", strerror(errno));
		return -1;
	}
	rc = len && write(pfd[1], buf, len) != (ssize_t)len ? -1 : 0;
	close(pfd[1]);
	if (rc == 0)
		rc = kprof_read(pfd[0], &L, err, errlen);
	close(pfd[0]);
	if (rc == 0)
		kprof_profile(&L, p);
	return rc;
}

int main(void)
{
	struct ksyms k;
	char err[200];
	tap_plan(50);

	/* ---- kallsyms ---- */
	ok(ksyms_parse(kallsyms, sizeof kallsyms - 1, &k, err, sizeof err) == 0, "kallsyms parses (%s)", err);
	is_int(k.n, 9, "text symbols kept: t/T/w/W of the kernel and its modules, no data");
	ok(k.mod_lo == 0xffffffffa0000000ULL && !strcmp(ksyms_find(&k, 0xffffffffa0000010ULL)->name, "mod_fn"),
	   "a module's function is named (perf samples land there), its module suffix cut");
	ok(k.stext == 0xffffffff81000000ULL && k.etext == 0xffffffff81000500ULL, "_stext and _etext found");
	is_str(ksyms_find(&k, 0xffffffff81000150ULL)->name, "alias_a", "an address inside aliased symbols: the first by name");
	is_str(ksyms_find(&k, 0xffffffff81000480ULL)->name, "delta", "the unterminated last line is read");
	ok(ksyms_find(&k, 0xffffffff80000000ULL) == NULL, "below the first symbol: none");
	{
		static const char hidden[] = "0000000000000000 T _stext\n0000000000000000 T beta\n";
		struct ksyms h;
		ok(ksyms_parse(hidden, sizeof hidden - 1, &h, err, sizeof err) < 0 && strstr(err, "kptr_restrict"),
		   "all-zero addresses are refused, naming kptr_restrict (%s)", err);
		ok(ksyms_parse("ffffffff81000100 T beta\n", 24, &h, err, sizeof err) < 0 && strstr(err, "_stext"),
		   "no _stext: refused (%s)", err);
	}

	/* ---- /proc/profile ---- */
	{
		/* step 64: counters for 0x000.., one per 64 bytes; 21 counters,
		 * the last the kernel's catch-all */
		unsigned buf[1 + 21] = { 64 };
		struct kprofile p;
		struct kprof_top t;
		buf[1 + 0] = 5;		/* startup_64 (0x000) */
		buf[1 + 4] = 10;	/* 0x100: alias_a */
		buf[1 + 5] = 10;	/* 0x140: alias_a */
		buf[1 + 8] = 7;		/* 0x200: beta */
		buf[1 + 12] = 3;	/* 0x300: beta still (some_data is not text) */
		buf[1 + 18] = 4;	/* 0x480: delta */
		buf[1 + 20] = 9;	/* the last counter: modules */
		ok(profile_from(buf, sizeof buf, &p, err, sizeof err) == 0 && p.step == 64 && p.n == 21,
		   "profile parses: step 64, 21 counters");
		kprof_top(&p, &k, &t);
		is_int(t.total, 48, "every sample counted");
		is_int(t.outside, 9, "the last counter is outside the text");
		is_int(t.n, 4, "four functions sampled");
		ok(t.n >= 4 && !strcmp(t.f[0].name, "alias_a") && t.f[0].samples == 20, "top: alias_a, 20 samples");
		ok(t.n >= 4 && !strcmp(t.f[1].name, "beta") && t.f[1].samples == 10, "then beta, 10 (its data does not split it)");
		ok(t.n >= 4 && !strcmp(t.f[2].name, "startup_64") && t.f[2].samples == 5,
		   "then startup_64: of the aliases at _stext, the one without a leading underscore");
		{
			struct jw w;
			jw_init(&w);
			jw_obj(&w, NULL);
			kprof_json(&w, &t, 64, 250);
			jw_obj_end(&w);
			ok(strstr(w.sb.s, "\"tick_hz\":250") && strstr(w.sb.s, "\"share\":0.41666"),
			   "the record has the tick rate and each share of all samples");
			sb_free(&w.sb);
		}
		kprof_close(&L);
	}
	ksyms_free(&k);

	/* a sparse profile, as a run's: 600 functions of 16 bytes, one counter
	 * per 4 bytes, hits scattered (the eight-at-a-time skip must find
	 * every one), summed against a plain per-counter tally */
	{
		/* NC - 1 is not a multiple of 8: hits past the last group of
		 * eight, which f599 (the last symbol below them) takes */
		enum { NF = 600, NC = NF * 4 + 4 };
		static char syms[NF * 32 + 64];
		static unsigned buf[1 + NC];
		static unsigned long long want[NF];
		struct ksyms big;
		struct kprofile p;
		static struct kprof_top t;
		size_t o = 0, nz = 0, match = 0;
		unsigned long long total = 0, listed = 0;
		unsigned x = 12345;
		o += (size_t)snprintf(syms + o, sizeof syms - o, "ffffffff81000000 T _stext\n");
		for (int f = 1; f < NF; f++)
			o += (size_t)snprintf(syms + o, sizeof syms - o, "%016llx t f%d\n", 0xffffffff81000000ULL + 16ULL * f, f);
		buf[0] = 4;
		for (int i = 0; i < NC - 1; i++) {
			x = x * 1103515245u + 12345u;
			/* dense in the first half (more functions than the top
			 * keeps), sparse in the second */
			if ((x >> 16) % (i < NC / 2 ? 3 : 41) == 0) {
				buf[1 + i] = 1 + (x >> 8) % 50;
				want[i / 4 < NF ? i / 4 : NF - 1] += buf[1 + i];
				total += buf[1 + i];
			}
		}
		buf[NC] = 3;	/* the catch-all */
		total += 3;
		err[0] = 0;
		ok(ksyms_parse(syms, o, &big, err, sizeof err) == 0 && profile_from(buf, sizeof buf, &p, err, sizeof err) == 0,
		   "a 600-function kallsyms and its 2404-counter profile parse (%s)", err);
		kprof_top(&p, &big, &t);
		for (int f = 0; f < NF; f++)
			nz += want[f] != 0;
		for (size_t i = 0; i < t.n; i++) {
			int f = !strcmp(t.f[i].name, "_stext") ? 0 : atoi(t.f[i].name + 1);
			match += f >= 0 && f < NF && want[f] == t.f[i].samples;
			listed += t.f[i].samples;
		}
		ok(t.total == total && t.outside == 3 && t.nfuncs == nz,
		   "every hit counted: %llu of %llu samples, %zu of %zu functions", t.total, total, t.nfuncs, nz);
		ok(t.n == (nz < KPROF_TOP ? nz : KPROF_TOP) && match == t.n && listed + t.other + t.outside == total,
		   "each listed function has its own sum (%zu of %zu), the rest is other", match, t.n);
		kprof_close(&L);
		ksyms_free(&big);
	}

	/* samples between _stext and the first text symbol: their own line */
	{
		static const char syms[] = "ffffffff81000000 A _stext\nffffffff81000100 t first\n";
		unsigned buf[1 + 6] = { 64, 3, 0, 0, 0, 5, 0 };
		struct ksyms ks;
		struct kprofile p;
		static struct kprof_top t;
		int parsed = ksyms_parse(syms, sizeof syms - 1, &ks, err, sizeof err) == 0 &&
			     profile_from(buf, sizeof buf, &p, err, sizeof err) == 0;
		if (parsed)
			kprof_top(&p, &ks, &t);
		ok(parsed && t.n == 2 && !strcmp(t.f[0].name, "first") && t.f[0].samples == 5 &&
		   !strcmp(t.f[1].name, "(before the first symbol)") && t.f[1].samples == 3,
		   "samples below the first text symbol are \"(before the first symbol)\"");
		if (parsed) {
			kprof_close(&L);
			ksyms_free(&ks);
		}
	}

	/* the live reading: /proc/profile through a pipe written 3 bytes at a
	 * time, so reads cut the step and the counters anywhere */
	{
		unsigned src[1 + 11] = { 4, 0, 7, 0, 0, 0, 0, 0, 0, 0, 0, 9 };
		struct kprof_live l;
		int pfd[2];
		pid_t w;
		memset(&l, 0, sizeof l);
		l.symfd = -1;
		if (pipe(pfd) < 0)
			return 1;
		w = fork();
		if (w == 0) {
			close(pfd[0]);
			for (size_t o3 = 0; o3 < sizeof src; o3 += 3) {
				size_t n3 = sizeof src - o3 < 3 ? sizeof src - o3 : 3;
				if (write(pfd[1], (char *)src + o3, n3) < 0)
					_exit(1);
				usleep(1000);
			}
			_exit(0);
		}
		close(pfd[1]);
		err[0] = 0;
		ok(kprof_read(pfd[0], &l, err, sizeof err) == 0 && l.step == 4 && l.ncounters == 11 && l.nhits == 2 &&
		   l.hits[0].i == 1 && l.hits[0].count == 7 && l.hits[1].i == 10 && l.hits[1].count == 9,
		   "a profile read in 3-byte pieces: step 4, 11 counters, hits 1:7 and 10:9 (%s)", err);
		close(pfd[0]);
		waitpid(w, NULL, 0);
		kprof_close(&l);
		ok(l.hits == NULL, "closing drops the hits");
		{
			static const struct { const char *bytes; size_t len; const char *what, *says; } bad[] = {
				{ "", 0, "an empty profile", "no counters" },
				{ "\x04\0\0\0", 4, "a step and no counter", "no counters" },
				{ "\x04\0\0\0\1\0\0\0\2\0", 10, "a torn last counter", "not a whole number" },
				{ "\x30\0\0\0\1\0\0\0", 8, "a step of 48", "power of two" },
			};
			for (size_t b = 0; b < sizeof bad / sizeof bad[0]; b++) {
				struct kprofile p;
				int rc;
				err[0] = 0;
				rc = profile_from(bad[b].bytes, bad[b].len, &p, err, sizeof err);
				ok(rc < 0 && strstr(err, bad[b].says) && L.hits == NULL, "%s is refused, nothing kept (%s)",
				   bad[b].what, err);
			}
		}
	}

	/* ---- pressure ---- */
	{
		static const char io[] = "some avg10=1.00 avg60=0.50 avg300=0.10 total=123456\n"
					 "full avg10=0.00 avg60=0.00 avg300=0.00 total=789\n";
		static const char cpu419[] = "some avg10=0.00 avg60=0.00 avg300=0.00 total=42\n";
		unsigned long long s, f;
		int hf;
		ok(psi_parse(io, sizeof io - 1, &s, &f, &hf) == 0 && s == 123456 && f == 789 && hf, "io: some and full totals");
		ok(psi_parse(cpu419, sizeof cpu419 - 1, &s, &f, &hf) == 0 && s == 42 && !hf, "cpu before 5.13: some only");
		ok(psi_parse("nonsense\n", 9, &s, &f, &hf) < 0, "no some line: refused");
		ok(psi_parse("some avg10=0 total=\n", 20, &s, &f, &hf) < 0, "an empty total: refused");
	}
	{
		struct psi a = {0}, b = {0};
		struct jw w;
		a.have[PSI_IO] = b.have[PSI_IO] = a.have_full[PSI_IO] = b.have_full[PSI_IO] = 1;
		a.some_us[PSI_IO] = 100;
		b.some_us[PSI_IO] = 350;
		a.full_us[PSI_IO] = 10;
		b.full_us[PSI_IO] = 5;	/* went back: a wrapped or reset counter is 0, not huge */
		jw_init(&w);
		jw_obj(&w, NULL);
		psi_json(&w, &a, &b);
		jw_obj_end(&w);
		is_str(w.sb.s, "{\"pressure\":{\"available\":true,\"io\":{\"some_us\":250,\"full_us\":0}}}",
		       "pressure deltas per resource");
		sb_free(&w.sb);
	}

	/* ---- taskstats ---- */
	ok(offsetof(struct taskstats, ac_pid) == 128 && offsetof(struct taskstats, ac_ppid) == 132 &&
	   offsetof(struct taskstats, cpu_delay_total) == 24 && offsetof(struct taskstats, blkio_delay_total) == 40 &&
	   offsetof(struct taskstats, swapin_delay_total) == 56 && offsetof(struct taskstats, freepages_delay_total) == 320 &&
	   offsetof(struct taskstats, thrashing_delay_total) == 336 && offsetof(struct taskstats, compact_delay_total) == 360 &&
	   offsetof(struct taskstats, cpu_count) == 16 && offsetof(struct taskstats, blkio_count) == 32 &&
	   offsetof(struct taskstats, swapin_count) == 48 && offsetof(struct taskstats, freepages_count) == 312 &&
	   offsetof(struct taskstats, thrashing_count) == 328 && offsetof(struct taskstats, compact_count) == 352 &&
	   offsetof(struct taskstats, version) == 0,
	   "the ABI offsets in lib/stalls.c match this host's <linux/taskstats.h>");
	{
		struct ts_listener l;
		unsigned char b[8192];
		size_t n = 0;
		struct ts_exit sum;
		size_t np;
		memset(&l, 0, sizeof l);
		l.family = 27;
		/* grandchild 12 exits before its parent 11, whose parent is 10 (the
		 * runner); 99 is somebody else's; 13 is a thread group's last thread */
		n += exit_msg(b + n, 27, 12, 11, 500, 416, 0);
		n += exit_msg(b + n, 27, 11, 10, 0, 416, 0);
		n += exit_msg(b + n, 27, 99, 1, 100000, 416, 0);
		n += exit_msg(b + n, 27, 13, 11, 0, 480, 1);	/* a newer kernel's longer struct */
		is_int(ts_parse(&l, b, n), 4, "four exit records (the thread group aggregate is not one)");
		ts_sum(&l, 10, &sum, &np);
		is_int(np, 3, "three tasks descend from the runner: its child and two grandchildren, found out of order");
		is_int(sum.delay_ns[DL_BLKIO], 500, "block I/O delay summed over them, not the stranger's");
		is_int(sum.count[DL_CPU], 9, "cpu delay counts summed");
		is_int(sum.delay_ns[DL_COMPACT], 210, "compaction delay read from the 416-byte and 480-byte structs");
		ts_reset(&l);
		n = exit_msg(b, 27, 11, 10, 0, 200, 0);	/* an old kernel's shorter struct */
		is_int(ts_parse(&l, b, n), 1, "a short (old kernel) struct is read");
		ok(l.n == 1 && l.e[0].have[DL_BLKIO] && !l.e[0].have[DL_RECLAIM] && !l.e[0].have[DL_COMPACT],
		   "its missing fields are marked missing, not zero");
		ts_reset(&l);
		n = exit_msg(b, 27, 11, 10, 0, 416, 0);
		b[20] = 0xff;	/* the nested attribute claims more than the message */
		b[21] = 0x0f;
		ok(ts_parse(&l, b, n) < 0 && l.bad == 1 && l.n == 0, "a malformed attribute: refused and counted");
		ts_reset(&l);
		n = exit_msg(b, 27, 11, 10, 0, 416, 0);
		b[0] = 0xff;
		b[1] = 0xff;	/* a message longer than the datagram */
		ok(ts_parse(&l, b, n) < 0 && l.bad == 1, "a message longer than the datagram: refused");
		ts_reset(&l);
		n = exit_msg(b, 28, 11, 10, 0, 416, 0);
		is_int(ts_parse(&l, b, n), 0, "another family's message is not an exit record");
		{
			struct jw w;
			l.fd = 3;
			l.lost = 2;
			jw_init(&w);
			jw_obj(&w, NULL);
			ts_json(&w, &l, &sum, 3, 1);
			jw_obj_end(&w);
			ok(strstr(w.sb.s, "\"blkio\":{\"delay_ns\":500,\"count\":1}") && strstr(w.sb.s, "\"overflows\":2"),
			   "delays in ns with counts; what the kernel dropped is said");
			sb_free(&w.sb);
		}
		free(l.e);
	}
	{
		/* a chain 20000 deep, leaf first (each exits before its parent),
		 * and a loop in hostile input (7 is 8's parent and 8 is 7's) */
		struct ts_listener l;
		struct ts_exit sum;
		size_t np;
		unsigned char st[416];
		memset(&l, 0, sizeof l);
		for (uint32_t p = 20000 + 100; p >= 100; p--) {
			put_stats(st, sizeof st, p + 1, p, 1);
			if (p == 100)
				put_stats(st, sizeof st, 101, 10, 1);
			keep_for_test(&l, st, sizeof st);
		}
		put_stats(st, sizeof st, 7, 8, 5);
		keep_for_test(&l, st, sizeof st);
		put_stats(st, sizeof st, 8, 7, 5);
		keep_for_test(&l, st, sizeof st);
		ts_sum(&l, 10, &sum, &np);
		is_int(np, 20001, "a chain 20000 deep is summed whole, leaf first");
		is_int(sum.delay_ns[DL_BLKIO], 20001, "... each task once, the loop of strangers not at all");
		free(l.e);
	}

	/* ---- live, on this host ---- */
	if (geteuid() != 0 || access("/proc/sys/kernel/task_delayacct", F_OK) < 0) {
		for (int i = 0; i < 4; i++)
			printf("ok %d # SKIP the live taskstats test needs root and kernel.task_delayacct\n", ++tap_n);
	} else {
		struct ts_listener l;
		struct ts_exit sum;
		size_t np;
		int was, on = delayacct_enable(&was);
		int rc = ts_open(&l);
		pid_t c;
		ok(rc == 0, "taskstats listener registered on this host (%s)", rc ? l.why : "ok");
		ok(on, "delay accounting on");
		c = fork();
		if (c == 0) {
			pid_t g = fork();
			if (g == 0) {
				usleep(20000);
				_exit(0);
			}
			waitpid(g, NULL, 0);
			_exit(0);
		}
		waitpid(c, NULL, 0);
		ts_drain(&l);
		ts_sum(&l, (uint32_t)getpid(), &sum, &np);
		is_int(np, 2, "this process's child and grandchild sent their exit records");
		ok(sum.have[DL_CPU] && sum.count[DL_CPU] > 0, "with run-queue counts (%llu)", (unsigned long long)sum.count[DL_CPU]);
		ts_close(&l);
		delayacct_restore(was);
	}
	return tap_done();
}
