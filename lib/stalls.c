/*
 * stalls.c - pressure stall information and delay accounting (stalls.h).
 *
 * The taskstats records are read with the kernel's ABI written out here
 * (offsets of struct taskstats, the genetlink constants) rather than
 * <linux/taskstats.h>: the appliance is built with musl, which carries no
 * kernel headers. tests/unit/why.c checks every offset against the host's
 * header. The struct only grows at its end, so a newer kernel's longer
 * record is read by its prefix and an older one's missing fields are said
 * to be missing.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <unistd.h>

#include "stalls.h"
#include "xio.h"

/* ---- pressure ---- */

static const char *const psi_files[PSI_N] = { "/proc/pressure/cpu", "/proc/pressure/io", "/proc/pressure/memory" };
static const char *const psi_names[PSI_N] = { "cpu", "io", "memory" };

static int total_of(const char *l, size_t ll, unsigned long long *v)
{
	for (size_t i = 0; i + 6 <= ll; i++)
		if (!memcmp(l + i, "total=", 6)) {
			unsigned long long x = 0;
			size_t j = i + 6, d = 0;
			for (; j < ll && l[j] >= '0' && l[j] <= '9' && d < 20; j++, d++)
				x = x * 10 + (unsigned)(l[j] - '0');
			if (!d)
				return -1;
			*v = x;
			return 0;
		}
	return -1;
}

int psi_parse(const char *buf, size_t len, unsigned long long *some, unsigned long long *full, int *have_full)
{
	int got_some = 0;
	size_t i = 0;
	*have_full = 0;
	*some = *full = 0;
	while (i < len) {
		const char *l = buf + i, *e = memchr(l, '\n', len - i);
		size_t ll = e ? (size_t)(e - l) : len - i;
		i += ll + 1;
		if (ll > 5 && !memcmp(l, "some ", 5) && total_of(l, ll, some) == 0)
			got_some = 1;
		else if (ll > 5 && !memcmp(l, "full ", 5) && total_of(l, ll, full) == 0)
			*have_full = 1;
	}
	return got_some ? 0 : -1;
}

void psi_sample(struct psi *p)
{
	memset(p, 0, sizeof *p);
	for (int i = 0; i < PSI_N; i++) {
		size_t len;
		char *s = read_file(psi_files[i], &len);
		if (s && psi_parse(s, len, &p->some_us[i], &p->full_us[i], &p->have_full[i]) == 0)
			p->have[i] = 1;
		free(s);
	}
}

static unsigned long long delta(unsigned long long a, unsigned long long b)
{
	return b >= a ? b - a : 0;
}

void psi_json(struct jw *w, const struct psi *a, const struct psi *b)
{
	int any = 0;
	for (int i = 0; i < PSI_N; i++)
		any |= a->have[i] && b->have[i];
	jw_obj(w, "pressure");
	jw_bool(w, "available", any);
	if (!any)
		jw_str(w, "reason", "no /proc/pressure (a kernel before 4.20, or booted with psi=0)");
	for (int i = 0; i < PSI_N && any; i++) {
		if (!a->have[i] || !b->have[i])
			continue;
		jw_obj(w, psi_names[i]);
		jw_int(w, "some_us", (long long)delta(a->some_us[i], b->some_us[i]));
		if (a->have_full[i] && b->have_full[i])
			jw_int(w, "full_us", (long long)delta(a->full_us[i], b->full_us[i]));
		jw_obj_end(w);
	}
	jw_obj_end(w);
}

/* ---- taskstats ---- */

const char *const dl_names[DL_N] = { "cpu", "blkio", "swapin", "reclaim", "thrashing", "compact" };

/* struct taskstats (include/uapi/linux/taskstats.h), x86-64 offsets */
enum {
	TSO_VERSION = 0, TSO_PID = 128, TSO_PPID = 132,
	TS_MIN_LEN = 136,	/* through ac_ppid: every version since 1 */
};
static const size_t dl_off[DL_N][2] = {	/* count, delay total */
	{ 16, 24 },	/* cpu_count, cpu_delay_total: waiting on a run queue */
	{ 32, 40 },	/* blkio: synchronous block I/O */
	{ 48, 56 },	/* swapin */
	{ 312, 320 },	/* freepages: direct reclaim */
	{ 328, 336 },	/* thrashing: refaulting the working set */
	{ 352, 360 },	/* compact: memory compaction */
};

enum {
	NLMSG_HDR = 16, GENL_HDR = 4,
	GENL_ID_CTRL_ = 0x10, CTRL_CMD_GETFAMILY_ = 3, CTRL_ATTR_FAMILY_ID_ = 1, CTRL_ATTR_FAMILY_NAME_ = 2,
	NLMSG_ERROR_ = 2, NLMSG_DONE_ = 3, NLM_F_REQUEST_ = 1, NLM_F_ACK_ = 4,
	TS_CMD_GET = 1, TS_CMD_NEW = 2, TS_CMD_ATTR_REGISTER_CPUMASK = 3,
	TS_TYPE_PID = 1, TS_TYPE_STATS = 3, TS_TYPE_AGGR_PID = 4,
};

/* struct sockaddr_nl (linux/netlink.h, not in musl) */
struct nl_addr {
	sa_family_t family;
	unsigned short pad;
	uint32_t pid, groups;
};

static uint16_t rd16(const unsigned char *p) { uint16_t v; memcpy(&v, p, 2); return v; }
static uint32_t rd32(const unsigned char *p) { uint32_t v; memcpy(&v, p, 4); return v; }
static uint64_t rd64(const unsigned char *p) { uint64_t v; memcpy(&v, p, 8); return v; }
static size_t align4(size_t n) { return (n + 3) & ~(size_t)3; }

static void keep(struct ts_listener *l, const unsigned char *st, size_t len)
{
	struct ts_exit *e;
	if (l->n >= TS_MAX_EXITS) {
		l->over++;
		return;
	}
	if (!l->mapped && l->n == l->cap) {
		l->cap = l->cap ? l->cap * 2 : 256;
		l->e = xrealloc(l->e, l->cap * sizeof *l->e);
	}
	e = &l->e[l->n++];
	memset(e, 0, sizeof *e);
	l->version = rd16(st + TSO_VERSION);
	e->pid = rd32(st + TSO_PID);
	e->ppid = rd32(st + TSO_PPID);
	for (int d = 0; d < DL_N; d++)
		if (dl_off[d][1] + 8 <= len) {
			e->have[d] = 1;
			e->count[d] = rd64(st + dl_off[d][0]);
			e->delay_ns[d] = rd64(st + dl_off[d][1]);
		}
}

/* The attributes of one taskstats message: keep TASKSTATS_TYPE_AGGR_PID's
 * stats (per thread; the per-thread-group aggregate would count twice). */
static int parse_attrs(struct ts_listener *l, const unsigned char *p, size_t len)
{
	int added = 0;
	while (len >= 4) {
		size_t alen = rd16(p), type = rd16(p + 2) & 0x3fff;
		if (alen < 4 || alen > len)
			return -1;
		if (type == TS_TYPE_AGGR_PID) {
			const unsigned char *q = p + 4;
			size_t qlen = alen - 4;
			while (qlen >= 4) {
				size_t blen = rd16(q), btype = rd16(q + 2) & 0x3fff;
				if (blen < 4 || blen > qlen)
					return -1;
				if (btype == TS_TYPE_STATS) {
					if (blen - 4 < TS_MIN_LEN)
						return -1;
					keep(l, q + 4, blen - 4);
					added++;
				}
				q += align4(blen) < qlen ? align4(blen) : qlen;
				qlen -= align4(blen) < qlen ? align4(blen) : qlen;
			}
		}
		p += align4(alen) < len ? align4(alen) : len;
		len -= align4(alen) < len ? align4(alen) : len;
	}
	return added;
}

int ts_parse(struct ts_listener *l, const void *buf, size_t len)
{
	const unsigned char *p = buf;
	int added = 0;
	while (len >= NLMSG_HDR) {
		size_t mlen = rd32(p);
		uint16_t type = rd16(p + 4);
		int r;
		if (mlen < NLMSG_HDR || mlen > len) {
			l->bad++;
			return -1;
		}
		if (type == l->family && mlen >= NLMSG_HDR + GENL_HDR && p[NLMSG_HDR] == TS_CMD_NEW) {
			r = parse_attrs(l, p + NLMSG_HDR + GENL_HDR, mlen - NLMSG_HDR - GENL_HDR);
			if (r < 0) {
				l->bad++;
				return -1;
			}
			added += r;
		}
		p += align4(mlen) < len ? align4(mlen) : len;
		len -= align4(mlen) < len ? align4(mlen) : len;
	}
	return added;
}

static const struct ts_listener *sort_l;

static int by_ppid(const void *a, const void *b)
{
	const struct ts_exit *x = &sort_l->e[*(const size_t *)a], *y = &sort_l->e[*(const size_t *)b];
	return x->ppid < y->ppid ? -1 : x->ppid > y->ppid;
}

/* The records whose ppid is pid: a range of ix (sorted by ppid). */
static size_t first_child(const struct ts_listener *l, const size_t *ix, uint32_t pid)
{
	size_t lo = 0, hi = l->n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (l->e[ix[mid]].ppid < pid)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

void ts_sum(const struct ts_listener *l, uint32_t parent, struct ts_exit *sum, size_t *nproc)
{
	/* A process's record can come before its parent's (the parent exits
	 * later), so the tree is walked from the parent down, breadth first,
	 * over the records sorted by ppid: O(n log n) however deep it is. A
	 * record is taken once (used[]), so a pid that was reused, or a loop
	 * in hostile input, cannot count twice or spin. */
	size_t *ix = xcalloc(l->n + 1, sizeof *ix), *queue = xcalloc(l->n + 1, sizeof *queue), qh = 0, qt = 0, n = 0;
	unsigned char *used = xcalloc(l->n + 1, 1);
	memset(sum, 0, sizeof *sum);
	for (size_t i = 0; i < l->n; i++)
		ix[i] = i;
	sort_l = l;
	qsort(ix, l->n, sizeof *ix, by_ppid);
	for (uint32_t pid = parent;; pid = l->e[queue[qh++]].pid) {
		for (size_t j = first_child(l, ix, pid); j < l->n && l->e[ix[j]].ppid == pid; j++) {
			const struct ts_exit *e = &l->e[ix[j]];
			if (used[ix[j]])
				continue;
			used[ix[j]] = 1;
			queue[qt++] = ix[j];
			n++;
			for (int d = 0; d < DL_N; d++) {
				sum->have[d] |= e->have[d];
				sum->count[d] += e->count[d];
				sum->delay_ns[d] += e->delay_ns[d];
			}
		}
		if (qh == qt)
			break;
	}
	free(ix);
	free(queue);
	free(used);
	*nproc = n;
}

void ts_json(struct jw *w, const struct ts_listener *l, const struct ts_exit *sum, size_t nproc, int enabled)
{
	jw_obj(w, "delays");
	jw_bool(w, "available", l->fd >= 0 && enabled);
	if (l->fd < 0 || !enabled) {
		jw_str(w, "reason", l->fd < 0 ? l->why : "delay accounting could not be turned on (kernel.task_delayacct)");
		jw_obj_end(w);
		return;
	}
	jw_str(w, "source", "taskstats exit records (delay accounting), summed over the workload's processes");
	jw_int(w, "tasks", (long long)nproc);	/* processes and their threads: one exit record each */
	if (l->version)
		jw_int(w, "taskstats_version", l->version);
	for (int d = 0; d < DL_N; d++) {
		if (!sum->have[d])
			continue;
		jw_obj(w, dl_names[d]);
		jw_int(w, "delay_ns", (long long)sum->delay_ns[d]);
		jw_int(w, "count", (long long)sum->count[d]);
		jw_obj_end(w);
	}
	if (l->lost || l->over || l->bad) {
		jw_obj(w, "incomplete");
		jw_int(w, "overflows", (long long)l->lost);	/* times the socket overflowed: each lost one record or more */
		jw_int(w, "past_the_bound", (long long)l->over);
		jw_int(w, "unreadable", (long long)l->bad);
		jw_obj_end(w);
	}
	jw_obj_end(w);
}

/* ---- live ---- */

static size_t put_attr(unsigned char *b, size_t off, uint16_t type, const void *data, size_t len)
{
	uint16_t alen = (uint16_t)(4 + len);
	memcpy(b + off, &alen, 2);
	memcpy(b + off + 2, &type, 2);
	memcpy(b + off + 4, data, len);
	memset(b + off + 4 + len, 0, align4(4 + len) - 4 - len);
	return off + align4(4 + len);
}

static int send_genl(struct ts_listener *l, uint16_t type, uint8_t cmd, uint16_t attr, const void *data, size_t dlen,
		     uint16_t more_flags)
{
	unsigned char b[512];
	size_t n;
	uint32_t len;
	uint16_t flags = NLM_F_REQUEST_ | more_flags;
	struct nl_addr to = { .family = AF_NETLINK };
	if (dlen > 400)
		return -1;
	memset(b, 0, sizeof b);
	n = put_attr(b, NLMSG_HDR + GENL_HDR, attr, data, dlen);
	len = (uint32_t)n;
	memcpy(b, &len, 4);
	memcpy(b + 4, &type, 2);
	memcpy(b + 6, &flags, 2);
	l->seq++;
	memcpy(b + 8, &l->seq, 4);
	b[NLMSG_HDR] = cmd;
	b[NLMSG_HDR + 1] = 1;
	return sendto(l->fd, b, n, 0, (struct sockaddr *)&to, sizeof to) == (ssize_t)n ? 0 : -1;
}

/* An answer to a request: the family id, or the error it carried. */
static int recv_answer(struct ts_listener *l, uint16_t *family, int *nlerr)
{
	unsigned char b[8192];
	ssize_t n = recv(l->fd, b, sizeof b, 0);
	*nlerr = 0;
	if (n < NLMSG_HDR)
		return -1;
	if (rd16(b + 4) == NLMSG_ERROR_) {
		int32_t e;
		memcpy(&e, b + NLMSG_HDR, 4);
		*nlerr = -e;
		return e ? -1 : 0;
	}
	if (family) {
		size_t off = NLMSG_HDR + GENL_HDR, len = rd32(b) < (size_t)n ? rd32(b) : (size_t)n;
		while (off + 4 <= len) {
			size_t alen = rd16(b + off);
			if (alen < 4 || off + alen > len)
				break;
			if ((rd16(b + off + 2) & 0x3fff) == CTRL_ATTR_FAMILY_ID_ && alen >= 6) {
				*family = rd16(b + off + 4);
				return 0;
			}
			off += align4(alen);
		}
		return -1;
	}
	return 0;
}

int ts_open(struct ts_listener *l)
{
	struct nl_addr me = { .family = AF_NETLINK };
	int rcv = 16 << 20, nlerr = 0;
	char *cpus;
	memset(l, 0, sizeof *l);
	l->fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, 16 /* NETLINK_GENERIC */);
	if (l->fd < 0) {
		snprintf(l->why, sizeof l->why, "no generic netlink socket: %s", strerror(errno));
		return -1;
	}
	/* room for a burst of exits (a fork loop): the kernel drops what does not fit */
	if (setsockopt(l->fd, SOL_SOCKET, SO_RCVBUFFORCE, &rcv, sizeof rcv) < 0)
		setsockopt(l->fd, SOL_SOCKET, SO_RCVBUF, &rcv, sizeof rcv);
	if (bind(l->fd, (struct sockaddr *)&me, sizeof me) < 0 ||
	    send_genl(l, GENL_ID_CTRL_, CTRL_CMD_GETFAMILY_, CTRL_ATTR_FAMILY_NAME_, "TASKSTATS", 10, 0) < 0 ||
	    recv_answer(l, &l->family, &nlerr) < 0) {
		snprintf(l->why, sizeof l->why, "no taskstats family (a kernel without CONFIG_TASKSTATS)%s%s",
			 nlerr ? ": " : "", nlerr ? strerror(nlerr) : "");
		goto fail;
	}
	cpus = read_attr("/sys/devices/system/cpu/possible");
	if (!cpus || strlen(cpus) > 300) {
		snprintf(l->why, sizeof l->why, "cannot read /sys/devices/system/cpu/possible");
		free(cpus);
		goto fail;
	}
	/* with NLM_F_ACK the kernel answers every registration, 0 or an
	 * error, before sendto returns: no timed wait (it cost 0.2 s a boot) */
	if (send_genl(l, l->family, TS_CMD_GET, TS_CMD_ATTR_REGISTER_CPUMASK, cpus, strlen(cpus) + 1, NLM_F_ACK_) < 0) {
		snprintf(l->why, sizeof l->why, "taskstats: cannot ask for exit records: %s", strerror(errno));
		free(cpus);
		goto fail;
	}
	free(cpus);
	{
		struct timeval tv = { 2, 0 };	/* a bound only: the ack is already queued */
		unsigned char b[8192];
		int acked = 0;
		setsockopt(l->fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
		/* an exit record of a process that ended meanwhile may come
		 * first: none is a run's (no run has begun), each run drains */
		for (int tries = 0; tries < 64 && !acked; tries++) {
			ssize_t n = recv(l->fd, b, sizeof b, 0);
			int32_t e;
			uint32_t seq;
			if (n < 0) {
				snprintf(l->why, sizeof l->why, "taskstats: no answer to the registration: %s", strerror(errno));
				goto fail;
			}
			if (n < NLMSG_HDR + 4 || rd16(b + 4) != NLMSG_ERROR_)
				continue;
			memcpy(&seq, b + 8, 4);
			if (seq != l->seq)
				continue;
			memcpy(&e, b + NLMSG_HDR, 4);
			if (e) {
				snprintf(l->why, sizeof l->why, "taskstats refused the registration: %s", strerror(-e));
				goto fail;
			}
			acked = 1;
		}
		if (!acked) {
			snprintf(l->why, sizeof l->why, "taskstats: no answer to the registration");
			goto fail;
		}
	}
	fcntl(l->fd, F_SETFL, fcntl(l->fd, F_GETFL) | O_NONBLOCK);
	/* The records live in a mapping that forks leave behind, not in PID 1's
	 * heap: a workload forked from PID 1 inherits the heap and copies its
	 * page tables on each of its own forks (fork/exec measured +2% for
	 * a few hundred KiB of it). Reserved whole, touched as filled. */
	l->e = map_nofork(TS_MAX_EXITS * sizeof *l->e);
	if (!l->e) {
		snprintf(l->why, sizeof l->why, "cannot map memory for the exit records: %s", strerror(errno));
		goto fail;
	}
	l->mapped = 1;
	l->cap = TS_MAX_EXITS;
	return 0;
fail:
	close(l->fd);
	l->fd = -1;
	return -1;
}

void ts_drain(struct ts_listener *l)
{
	static unsigned char b[65536];
	if (l->fd < 0)
		return;
	for (;;) {
		struct nl_addr from;
		socklen_t fl = sizeof from;
		ssize_t n = recvfrom(l->fd, b, sizeof b, MSG_DONTWAIT, (struct sockaddr *)&from, &fl);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			if (errno == ENOBUFS) {
				l->lost++;	/* at least one; the kernel does not say how many */
				continue;
			}
			return;
		}
		if (n == 0)
			return;
		if (fl < sizeof from || from.pid != 0) {
			l->bad++;	/* not from the kernel: another process wrote to us */
			continue;
		}
		ts_parse(l, b, (size_t)n);
	}
}

void ts_reset(struct ts_listener *l)
{
	if (l->mapped)
		madvise(l->e, TS_MAX_EXITS * sizeof *l->e, MADV_DONTNEED);	/* give the pages back */
	else {
		free(l->e);
		l->e = NULL;
		l->cap = 0;
	}
	l->n = 0;
	l->over = l->lost = l->bad = 0;
}

void ts_close(struct ts_listener *l)
{
	if (l->fd >= 0)
		close(l->fd);
	l->fd = -1;
	if (l->mapped)
		munmap(l->e, TS_MAX_EXITS * sizeof *l->e);
	else
		free(l->e);
	l->mapped = 0;
	l->e = NULL;
	l->n = l->cap = 0;
}

int delayacct_enable(int *was)
{
	char *v = read_attr("/proc/sys/kernel/task_delayacct");
	if (!v) {
		*was = -1;
		return 1;	/* before 5.14 it is on unless booted nodelayacct */
	}
	*was = atoi(v);
	free(v);
	if (*was == 1)
		return 1;
	return write_file("/proc/sys/kernel/task_delayacct", "1\n") == 0;
}

void delayacct_restore(int was)
{
	if (was == 0)
		write_file("/proc/sys/kernel/task_delayacct", "0\n");
}
