/*
 * nfsmix.c - an SFS-style offered-load curve against an NFSv3 server: for
 * each requested load (ops/s) the throughput the server achieved and its
 * response times, as SPEC SFS 2.0 printed them (seed 003).
 *
 * Our own NFSv3 client (lib/nfs3.c over ONC RPC, TCP with record marking or
 * UDP, AUTH_UNIX): bookworm has no NFS load generator (fio 3.33 has no nfs
 * engine, dbench no NFS backend, filebench and nfstest are not packaged, and
 * libnfs' source is not served), and the kernel's own NFS client would put
 * a second kernel's page cache between the load and the server.
 *
 * Open loop: each of `procs` processes issues requests at its share of the
 * requested rate on a fixed schedule, whether or not earlier ones have been
 * answered, with at most `inflight` outstanding; a request due while that
 * many are outstanding is not sent and is counted (not_issued), so a server
 * past its capacity shows as achieved < requested and rising response
 * times, never as a generator that politely waits. Response time runs from
 * the send to the reply. A call not answered within timeout_ms is a timeout.
 * A step where more than 1% of the calls sent failed (an NFS error status,
 * an RPC error, a malformed reply or a timeout) is INVALID, as SFS marks
 * it: its figures are still recorded, and the step's status says so.
 *
 * The operation mix is SFS 2.0's NFSv3 mix (SPEC SFS 3.0 kept it): lookup
 * 27%, read 18%, getattr 11%, write 9%, readdirplus 9%, readlink 7%,
 * access 7%, commit 5%, readdir 2%, create, remove, fsstat and setattr 1%
 * each (99% in SPEC's table), and fsinfo 1% to make 100. Reads and writes
 * move `xfer` bytes (SFS 2.0: 8 KiB). Each process has its own directory
 * of `files` files (sizes 1 KiB to 1 MiB, most small: docs/nfs.md), a
 * symlink for every eighth and a pool of empty files that remove takes from
 * and create adds to.
 *
 * `mix=getattr` or `mix=read` sends that call alone, and `loads=closed`
 * runs one step closed-loop (the next call as soon as a slot is free):
 * peak ops/s and latency per call, for a bench against the kernel's own
 * client doing the same (scripts/bench-nfs).
 *
 * With server=local the server is the appliance's own kernel nfsd, started
 * by the plan's `nfsserver` directive on the layout (init/nfsserver.c), and
 * the workload checks a file it wrote through NFS byte for byte on the
 * layout itself. server=A.B.C.D:/export measures any NFSv3 server.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "defaults.h"
#include "err.h"
#include "httpd.h"
#include "nfs3.h"
#include "portmap.h"
#include "rpcconn.h"
#include "units.h"
#include "workload.h"
#include "xio.h"

#define NM_MAX_STEPS 16
#define NM_MAX_PROCS 64
#define NM_MAX_INFLIGHT 64
#define NM_MAX_FILES 100000
#define NM_XFER_MAX (64u << 10)
#define NM_UDP_XFER_MAX (32u << 10)
#define NM_REPLY_MAX (NM_XFER_MAX + 4096)
#define NM_HIST 1024	/* latency buckets: 32 per octave from 1 us */
#define NM_SETUP_TIMEOUT_MS 30000
#define NM_CLEANUP_S 20		/* the load processes' removal of their files, at most */
#define NM_CLEANUP_TIMEOUT_MS 5000	/* a cleanup call unanswered this long ends the cleanup */
#define NM_FILES_TOTAL_MAX 400000	/* files x procs: client memory, ~200 bytes a file */

static const struct wparam nfsmix_params[] = {
	{ "server", "local", "local (the appliance's nfsserver, the layout's directory) or A.B.C.D:/export" },
	{ "transport", "tcp", "tcp or udp" },
	{ "loads", "100,200,400", "requested ops/s of each step, comma separated, ascending; or closed: one step, "
				  "each call as soon as a slot is free" },
	{ "step", "5", "seconds each step is measured (after its warmup)" },
	{ "warmup", "1", "seconds each step runs before it is measured" },
	{ "procs", "2", "load-generating processes, each with its own connection and files" },
	{ "inflight", "4", "requests outstanding per process at most" },
	{ "files", "64", "files per process" },
	{ "xfer", "8K", "bytes a read or write moves" },
	{ "timeout_ms", "3000", "a call unanswered this long is a timeout" },
	{ "mix", "sfs", "sfs (SFS 2.0's NFSv3 mix), getattr or read (that call alone)" },
	{ NULL, NULL, NULL },
};

/* ---- the mix ---- */
static const struct {
	uint32_t proc;
	unsigned pct;
} mix[] = {
	{ NFS3_LOOKUP, 27 }, { NFS3_READ, 18 }, { NFS3_GETATTR, 11 }, { NFS3_WRITE, 9 },
	{ NFS3_READDIRPLUS, 9 }, { NFS3_READLINK, 7 }, { NFS3_ACCESS, 7 }, { NFS3_COMMIT, 5 },
	{ NFS3_READDIR, 2 }, { NFS3_CREATE, 1 }, { NFS3_REMOVE, 1 }, { NFS3_FSSTAT, 1 }, { NFS3_SETATTR, 1 },
	{ NFS3_FSINFO, 1 },
};

/* file sizes in KiB and their share of the file set, in percent */
static const struct {
	unsigned kib, pct;
} sizes[] = {
	{ 1, 33 }, { 2, 21 }, { 4, 13 }, { 8, 10 }, { 16, 8 }, { 32, 5 }, { 64, 4 }, { 128, 3 }, { 256, 2 }, { 1024, 1 },
};

/* ---- what a process reports for one step ---- */
struct opstat {
	uint64_t n, failed, lat_us;
};
struct stepstat {
	uint64_t sent, ok, failed, timeouts, malformed, not_issued;
	uint64_t stray;		/* replies whose xid no call was waiting for (not failures) */
	uint64_t lat_us;		/* sum over the calls answered */
	double window_s;
	uint32_t hist[NM_HIST];
	struct opstat op[NFS3_NPROCS];
	char first_error[96];
};

static unsigned hist_bucket(uint64_t us)
{
	unsigned oct, sub;
	if (us < 32)
		return (unsigned)us;
	oct = 63 - (unsigned)__builtin_clzll(us);	/* >= 5 */
	sub = (unsigned)(us >> (oct - 5)) & 31;
	oct = (oct - 4) * 32 + sub;
	return oct < NM_HIST ? oct : NM_HIST - 1;
}

/* the bucket's middle, in microseconds */
static double hist_value(unsigned b)
{
	unsigned oct, sub;
	if (b < 32)
		return b;
	oct = b / 32 + 4;
	sub = b % 32;
	return ((double)(32 + sub) + 0.5) * (double)(1ull << (oct - 5));
}

static double hist_pct(const uint32_t *h, uint64_t n, double q)
{
	uint64_t want = (uint64_t)ceil(q * (double)n), seen = 0;
	if (!n)
		return NAN;
	if (!want)
		want = 1;
	for (unsigned b = 0; b < NM_HIST; b++) {
		seen += h[b];
		if (seen >= want)
			return hist_value(b);
	}
	return hist_value(NM_HIST - 1);
}

static uint64_t now_us(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000u + (uint64_t)ts.tv_nsec / 1000u;
}

/* a small deterministic generator: the same plan draws the same ops */
static uint64_t rnd_next(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

/* ---- calls outside the measured load (lib/rpcconn.c: the transport) ---- */
static struct rpc_cred cred = { AUTH_UNIX, 0, 0, 0, "bootbench" };
/* how long a call outside the measured load waits: setup is patient, the
 * cleanup after the figures are in is not (NM_CLEANUP_TIMEOUT_MS) */
static unsigned sync_timeout_ms = NM_SETUP_TIMEOUT_MS;

static int conn_open(struct rpc_conn *k, uint32_t ip, uint16_t port, int udp, char *err, size_t errlen)
{
	return rpc_conn_open(k, ip, port, udp, NM_REPLY_MAX, err, errlen);
}

/* A call and its reply, waiting for it (setup, not measured): the reply's
 * results in *x (valid until the next call on k), or -1 with err set. */
static int call_sync(struct rpc_conn *k, uint32_t prog, uint32_t vers, uint32_t proc, const unsigned char *args,
		     size_t alen, struct xdr_in *x, char *err, size_t errlen)
{
	return rpc_call(k, prog, vers, proc, &cred, args, alen, sync_timeout_ms, x, err, errlen);
}

/* an NFS procedure, synchronously; -1 with err for an RPC, decoding or
 * NFS failure */
static int nfs_sync(struct rpc_conn *k, uint32_t proc, const struct nfs3_args *a, struct nfs3_res *r, char *err,
		    size_t errlen)
{
	static unsigned char args[NM_XFER_MAX + 512];
	struct xdr_out o;
	struct xdr_in x;
	char e[96], sb[32];
	memset(r, 0, sizeof *r);	/* status 0 after a failure: no NFS status came */
	xdr_out_init(&o, args, sizeof args);
	nfs3_put_args(&o, proc, a);
	if (o.err) {
		snprintf(err, errlen, "%s: arguments do not encode", nfs3_proc_name(proc));
		return -1;
	}
	if (call_sync(k, NFS_PROGRAM, NFS_V3, proc, args, o.len, &x, e, sizeof e) < 0) {
		snprintf(err, errlen, "%s: %s", nfs3_proc_name(proc), e);
		return -1;
	}
	if (nfs3_get_res(&x, proc, r) < 0) {
		snprintf(err, errlen, "%s: malformed reply", nfs3_proc_name(proc));
		return -1;
	}
	if (r->status != NFS3_OK) {
		snprintf(err, errlen, "%s: %s", nfs3_proc_name(proc), nfs3_stat_str(r->status, sb, sizeof sb));
		return -1;
	}
	return 0;
}

/* ---- the server: address, ports, root handle ---- */
struct server {
	uint32_t ip;			/* network order */
	char path[MNT_PATH_MAX + 1];
	uint16_t mount_port, nfs_port;
	int udp;
	struct nfs_fh root;
	uint32_t rtmax, wtmax;
};

static int getport(uint32_t ip, uint32_t prog, uint32_t vers, int udp, uint16_t *port, char *err, size_t errlen)
{
	struct rpc_conn k;
	struct xdr_in x;
	unsigned char args[16];
	struct xdr_out o;
	uint32_t p;
	char e[160];
	if (conn_open(&k, ip, PMAP_PORT, udp, err, errlen) < 0)
		return -1;
	xdr_out_init(&o, args, sizeof args);
	pmap_put_mapping(&o, prog, vers, udp ? IPPROTO_UDP : IPPROTO_TCP, 0);
	if (call_sync(&k, PMAP_PROGRAM, PMAP_V2, PMAP_GETPORT, args, o.len, &x, e, sizeof e) < 0 ||
	    (pmap_get_port(&x, &p) < 0 && snprintf(e, sizeof e, "malformed reply"))) {
		snprintf(err, errlen, "portmapper GETPORT %u v%u: %s", prog, vers, e);
		rpc_conn_close(&k);
		return -1;
	}
	rpc_conn_close(&k);
	if (!p) {
		snprintf(err, errlen, "program %u v%u (%s) is not registered with the portmapper", prog, vers,
			 udp ? "udp" : "tcp");
		return -1;
	}
	*port = (uint16_t)p;
	return 0;
}

static int mount_root(struct server *s, char *err, size_t errlen)
{
	struct rpc_conn k;
	struct xdr_in x;
	unsigned char args[MNT_PATH_MAX + 8];
	struct xdr_out o;
	uint32_t st;
	char e[160];
	if (getport(s->ip, MOUNT_PROGRAM, MOUNT_V3, s->udp, &s->mount_port, err, errlen) < 0 ||
	    getport(s->ip, NFS_PROGRAM, NFS_V3, s->udp, &s->nfs_port, err, errlen) < 0)
		return -1;
	if (conn_open(&k, s->ip, s->mount_port, s->udp, err, errlen) < 0)
		return -1;
	xdr_out_init(&o, args, sizeof args);
	mnt3_put_path(&o, s->path);
	if (call_sync(&k, MOUNT_PROGRAM, MOUNT_V3, MOUNT3_MNT, args, o.len, &x, e, sizeof e) < 0 ||
	    (mnt3_get_mnt(&x, &st, &s->root) < 0 && snprintf(e, sizeof e, "malformed reply"))) {
		snprintf(err, errlen, "MOUNT %.100s: %.80s", s->path, e);
		rpc_conn_close(&k);
		return -1;
	}
	rpc_conn_close(&k);
	if (st != MNT3_OK) {
		snprintf(err, errlen, "MOUNT %.100s refused: status %u%s", s->path, st,
			 st == MNT3ERR_NOENT ? " (not exported)" : st == MNT3ERR_ACCES ? " (permission denied)" : "");
		return -1;
	}
	return 0;
}

/* ---- one process's file set ---- */
struct fileset {
	struct nfs_fh dir;
	size_t nfiles, nlinks, npool, poolcap;
	struct nfs_fh *file, *link, *pool;
	uint64_t *size;
	char (*poolname)[24];
	unsigned long created;	/* names c<N> made so far */
};

static unsigned draw_size_kib(uint64_t *rs)
{
	unsigned r = (unsigned)(rnd_next(rs) % 100), acc = 0;
	for (size_t i = 0; i < sizeof sizes / sizeof *sizes; i++) {
		acc += sizes[i].pct;
		if (r < acc)
			return sizes[i].kib;
	}
	return 1;
}

/* What CREATE, MKDIR or SYMLINK made: RFC 1813 lets the server leave the
 * handle out of its reply, and a LOOKUP then asks for it. */
static int made(struct rpc_conn *k, uint32_t proc, const struct nfs3_args *a, struct nfs3_res *r, char *err, size_t errlen)
{
	struct nfs3_args l = { .fh = a->fh, .name = a->name };
	if (nfs_sync(k, proc, a, r, err, errlen) < 0)
		return -1;
	if (r->has_fh)
		return 0;
	if (nfs_sync(k, NFS3_LOOKUP, &l, r, err, errlen) < 0)
		return -1;
	return r->has_fh ? 0 : (snprintf(err, errlen, "%s: no file handle, nor from lookup", nfs3_proc_name(proc)), -1);
}

static int build_fileset(struct rpc_conn *k, const struct nfs_fh *top, int id, size_t nfiles, uint32_t xfer,
			 struct fileset *fs, uint64_t *rs, char *err, size_t errlen)
{
	struct nfs3_args a = { 0 };
	struct nfs3_res r;
	char name[32], target[32];
	unsigned char *buf = xmalloc(xfer);
	memset(fs, 0, sizeof *fs);
	memset(buf, 'a' + id % 26, xfer);
	snprintf(name, sizeof name, "p%d", id);
	a.fh = top;
	a.name = name;
	a.mode = 0755;
	if (made(k, NFS3_MKDIR, &a, &r, err, errlen) < 0) {
		free(buf);
		return -1;
	}
	fs->dir = r.fh;
	fs->nfiles = nfiles;
	fs->nlinks = (nfiles + 7) / 8;
	fs->poolcap = nfiles / 4 + 8;
	fs->file = xcalloc(fs->nfiles, sizeof *fs->file);
	fs->size = xcalloc(fs->nfiles, sizeof *fs->size);
	fs->link = xcalloc(fs->nlinks, sizeof *fs->link);
	fs->pool = xcalloc(fs->poolcap, sizeof *fs->pool);
	fs->poolname = xcalloc(fs->poolcap, sizeof *fs->poolname);
	for (size_t i = 0; i < nfiles; i++) {
		uint64_t want = (uint64_t)draw_size_kib(rs) * 1024, off = 0;
		snprintf(name, sizeof name, "f%05zu", i);
		memset(&a, 0, sizeof a);
		a.fh = &fs->dir;
		a.name = name;
		a.mode = 0644;
		if (made(k, NFS3_CREATE, &a, &r, err, errlen) < 0)
			goto fail;
		fs->file[i] = r.fh;
		while (off < want) {
			memset(&a, 0, sizeof a);
			a.fh = &fs->file[i];
			a.offset = off;
			a.count = (uint32_t)(want - off < xfer ? want - off : xfer);
			a.data = buf;
			a.stable = NFS3_UNSTABLE;
			if (nfs_sync(k, NFS3_WRITE, &a, &r, err, errlen) < 0)
				goto fail;
			if (!r.count || r.count > a.count) {
				snprintf(err, errlen, "write: the server says it took %u of %u bytes", r.count, a.count);
				goto fail;
			}
			off += r.count;
		}
		fs->size[i] = want;
		memset(&a, 0, sizeof a);
		a.fh = &fs->file[i];	/* its data on stable storage before the clock runs */
		if (nfs_sync(k, NFS3_COMMIT, &a, &r, err, errlen) < 0)
			goto fail;
	}
	for (size_t i = 0; i < fs->nlinks; i++) {
		snprintf(name, sizeof name, "l%05zu", i);
		snprintf(target, sizeof target, "f%05zu", i * 8);
		memset(&a, 0, sizeof a);
		a.fh = &fs->dir;
		a.name = name;
		a.target = target;
		a.mode = 0777;
		if (made(k, NFS3_SYMLINK, &a, &r, err, errlen) < 0)
			goto fail;
		fs->link[i] = r.fh;
	}
	for (size_t i = 0; i < fs->poolcap / 2; i++) {
		snprintf(fs->poolname[i], sizeof fs->poolname[i], "c%lu", fs->created++);
		memset(&a, 0, sizeof a);
		a.fh = &fs->dir;
		a.name = fs->poolname[i];
		a.mode = 0644;
		if (made(k, NFS3_CREATE, &a, &r, err, errlen) < 0)
			goto fail;
		fs->pool[fs->npool++] = r.fh;
	}
	free(buf);
	return 0;
fail:
	if (!err[0])
		snprintf(err, errlen, "no file handle returned");
	free(buf);
	return -1;
}

/* ---- the open loop ---- */
struct slot {
	int busy;
	uint32_t xid, proc;
	uint64_t sent_us;
	int pool_index;		/* CREATE: the pool entry its handle goes to */
	uint32_t count;		/* WRITE: bytes sent, more than which no reply may claim */
	int counted;		/* sent inside the measured window */
};

struct gen {
	struct rpc_conn k;
	struct fileset fs;
	const struct nfs_fh *root;
	uint32_t xfer;
	unsigned inflight, timeout_ms;
	struct slot slots[NM_MAX_INFLIGHT];
	uint32_t xid;
	uint64_t rs;
	unsigned char *msg, *data;
	unsigned cum[sizeof mix / sizeof *mix];
	uint32_t only;		/* mix=getattr or read: that procedure; 0: the SFS mix */
};

static void pool_drop(struct gen *g, size_t i);

static uint32_t pick_proc(struct gen *g)
{
	unsigned r;
	if (g->only)
		return g->only;
	r = (unsigned)(rnd_next(&g->rs) % 100);
	for (size_t i = 0; i < sizeof mix / sizeof *mix; i++)
		if (r < g->cum[i])
			return mix[i].proc;
	return NFS3_GETATTR;
}

/* build and send one call into slot s; -1: the connection broke */
static int issue(struct gen *g, struct slot *s, int counted)
{
	struct nfs3_args a = { 0 };
	struct xdr_out o;
	struct fileset *fs = &g->fs;
	size_t f = (size_t)(rnd_next(&g->rs) % fs->nfiles);
	char name[24];
	uint32_t proc = pick_proc(g);
	/* an empty pool cannot be removed from; a full one not added to */
	if (proc == NFS3_REMOVE && !fs->npool)
		proc = NFS3_CREATE;
	if (proc == NFS3_CREATE && fs->npool >= fs->poolcap)
		proc = NFS3_REMOVE;
	s->pool_index = -1;
	a.fh = &fs->file[f];
	switch (proc) {
	case NFS3_LOOKUP:
		snprintf(name, sizeof name, "f%05zu", f);
		a.fh = &fs->dir;
		a.name = name;
		break;
	case NFS3_READ: {
		uint64_t blocks;
		/* alone (mix=read), a whole xfer a call: a file that long, when
		 * the set has one within a few draws */
		for (int tries = 0; g->only && fs->size[f] < g->xfer && tries < 64; tries++)
			f = (size_t)(rnd_next(&g->rs) % fs->nfiles);
		a.fh = &fs->file[f];
		blocks = fs->size[f] / g->xfer;
		a.offset = blocks ? (rnd_next(&g->rs) % blocks) * g->xfer : 0;
		a.count = g->xfer;
		break;
	}
	case NFS3_WRITE: {
		uint64_t blocks = fs->size[f] / g->xfer;
		a.offset = blocks ? (rnd_next(&g->rs) % blocks) * g->xfer : 0;
		a.count = (uint32_t)(fs->size[f] < g->xfer ? fs->size[f] : g->xfer);
		a.data = g->data;
		a.stable = NFS3_UNSTABLE;
		break;
	}
	case NFS3_READLINK:
		a.fh = &fs->link[f % fs->nlinks];
		break;
	case NFS3_ACCESS:
		a.access = 0x3f;
		break;
	case NFS3_READDIR: case NFS3_READDIRPLUS:
		a.fh = &fs->dir;
		a.count = 8192;
		break;
	case NFS3_CREATE:
		snprintf(fs->poolname[fs->npool], sizeof fs->poolname[fs->npool], "c%lu", fs->created++);
		a.fh = &fs->dir;
		a.name = fs->poolname[fs->npool];
		a.mode = 0644;
		/* the slot it fills is taken now, so two creates in flight
		 * never aim at one slot; an empty handle marks it pending */
		s->pool_index = (int)fs->npool;
		fs->pool[fs->npool++].len = 0;
		break;
	case NFS3_REMOVE: {
		/* the last pool entry with a handle: pending creates are skipped */
		size_t i = fs->npool;
		while (i > 0 && !fs->pool[i - 1].len)
			i--;
		if (!i) {
			proc = NFS3_GETATTR;
			break;
		}
		i--;
		a.fh = &fs->dir;
		snprintf(name, sizeof name, "%s", fs->poolname[i]);
		a.name = name;
		pool_drop(g, i);
		break;
	}
	case NFS3_FSSTAT: case NFS3_FSINFO:
		a.fh = g->root;
		break;
	case NFS3_SETATTR:
		a.set_mode = 1;
		a.mode = 0644;
		break;
	case NFS3_COMMIT:
		break;
	}
	xdr_out_init(&o, g->msg, NM_XFER_MAX + 1024);
	s->xid = ++g->xid;
	rpc_put_call(&o, s->xid, NFS_PROGRAM, NFS_V3, proc, &cred);
	nfs3_put_args(&o, proc, &a);
	if (o.err)
		return -1;
	s->proc = proc;
	s->count = a.count;
	s->busy = 1;
	s->counted = counted;
	s->sent_us = now_us();
	/* pipelined, no call deadline: a send fails when the server has read
	 * nothing for 5 s, which fails the step (a server that stopped) */
	return rpc_conn_send(&g->k, g->msg, o.len, 0);
}

/* the step's first failure, "read: NFS3ERR_IO": what a reader looks at first */
static void note_error(struct stepstat *st, const char *op, const char *what)
{
	if (!st->first_error[0])
		snprintf(st->first_error, sizeof st->first_error, "%s: %s", op, what);
}

/* Drop pool entry i (the last moves into its place, and a create in flight
 * aimed at the last entry follows it). */
static void pool_drop(struct gen *g, size_t i)
{
	struct fileset *fs = &g->fs;
	if (i >= fs->npool)
		return;
	fs->npool--;
	if (i != fs->npool) {
		fs->pool[i] = fs->pool[fs->npool];
		memcpy(fs->poolname[i], fs->poolname[fs->npool], sizeof fs->poolname[i]);
	}
	for (unsigned j = 0; j < g->inflight; j++)
		if (g->slots[j].busy && g->slots[j].proc == NFS3_CREATE && g->slots[j].pool_index == (int)fs->npool)
			g->slots[j].pool_index = (int)i;
}

/* a call's slot is free again: a create's pool entry is filled or dropped */
static void settle(struct gen *g, struct slot *s, const struct nfs3_res *r)
{
	s->busy = 0;
	if (s->proc != NFS3_CREATE || s->pool_index < 0)
		return;
	if (r && r->status == NFS3_OK && r->has_fh)
		g->fs.pool[s->pool_index] = r->fh;
	else
		pool_drop(g, (size_t)s->pool_index);	/* made or not, its name is forgotten */
}

/* a reply arrived: match it to its slot and count it */
static void reply(struct gen *g, const unsigned char *rec, size_t len, struct stepstat *st)
{
	struct xdr_in x;
	uint32_t xid;
	int rs, dec = -1;
	struct slot *s = NULL;
	struct nfs3_res r;
	uint64_t lat;
	xdr_in_init(&x, rec, len);
	rs = rpc_get_reply(&x, &xid, NULL, NULL);
	for (unsigned i = 0; i < g->inflight && !s; i++)
		if (g->slots[i].busy && g->slots[i].xid == xid)
			s = &g->slots[i];
	if (!s) {
		/* an answer to nothing outstanding (a timed-out call's, or
		 * garbage): counted, never matched to another call */
		st->stray++;
		return;
	}
	lat = now_us() - s->sent_us;
	if (rs == RPC_OK)
		dec = nfs3_get_res(&x, s->proc, &r);
	if (s->counted) {
		if (rs != RPC_OK) {
			st->failed++;
			st->op[s->proc].failed++;
			note_error(st, nfs3_proc_name(s->proc), rpc_reply_str(rs));
		} else if (dec < 0 || (s->proc == NFS3_WRITE && r.status == NFS3_OK && r.count > s->count)) {
			st->failed++;
			st->malformed++;
			st->op[s->proc].failed++;
			note_error(st, nfs3_proc_name(s->proc), "malformed reply");
		} else if (r.status != NFS3_OK) {
			char sb[32];
			st->failed++;
			st->op[s->proc].failed++;
			note_error(st, nfs3_proc_name(s->proc), nfs3_stat_str(r.status, sb, sizeof sb));
		} else {
			st->ok++;
			st->lat_us += lat;
			st->hist[hist_bucket(lat)]++;
			st->op[s->proc].n++;
			st->op[s->proc].lat_us += lat;
		}
	}
	settle(g, s, dec == 0 ? &r : NULL);
}

/* One step: warmup_us unmeasured, then window_us measured, at rate ops/s;
 * then wait for what is outstanding. -1 when the connection broke. */
static int run_step(struct gen *g, double rate, uint64_t start_us, uint64_t warmup_us, uint64_t window_us,
		    struct stepstat *st)
{
	/* rate 0: closed loop, a call whenever a slot is free until the end */
	int closed = rate <= 0;
	double interval = closed ? 0 : 1e6 / rate;
	double next = (double)start_us;
	uint64_t mstart = start_us + warmup_us, mend = mstart + window_us;
	int broken = 0;
	memset(st, 0, sizeof *st);
	st->window_s = window_us / 1e6;
	for (;;) {
		uint64_t t = now_us(), wait_us;
		unsigned busy = 0;
		const unsigned char *rec;
		size_t len;
		int rc;
		/* closed: every free slot, now */
		while (closed && !broken && t >= start_us && t < mend) {
			int counted = t >= mstart;
			struct slot *s = NULL;
			for (unsigned i = 0; i < g->inflight && !s; i++)
				if (!g->slots[i].busy)
					s = &g->slots[i];
			if (!s)
				break;
			if (counted)
				st->sent++;
			if (issue(g, s, counted) < 0)
				broken = 1;
		}
		/* due requests: sent while a slot is free, else not issued */
		while (!closed && !broken && next <= (double)t && next < (double)mend) {
			int counted = next >= (double)mstart;
			struct slot *s = NULL;
			for (unsigned i = 0; i < g->inflight && !s; i++)
				if (!g->slots[i].busy)
					s = &g->slots[i];
			if (s) {
				if (counted)
					st->sent++;	/* attempted: a send that fails is a failed call */
				if (issue(g, s, counted) < 0)
					broken = 1;
			} else if (counted)
				st->not_issued++;
			next += interval;
		}
		/* expired calls are timeouts; their slots are free again */
		for (unsigned i = 0; i < g->inflight; i++) {
			struct slot *s = &g->slots[i];
			if (!s->busy)
				continue;
			if (t > s->sent_us && t - s->sent_us >= g->timeout_ms * 1000ull) {
				if (s->counted) {
					st->failed++;
					st->timeouts++;
					st->op[s->proc].failed++;
					note_error(st, nfs3_proc_name(s->proc), "timed out");
				}
				settle(g, s, NULL);	/* a create's outcome is unknown: its name is forgotten */
			} else
				busy++;
		}
		if ((broken || (closed ? t >= mend : next >= (double)mend)) && !busy)
			break;
		while ((rc = rpc_conn_recv(&g->k, &rec, &len)) == 1)
			reply(g, rec, len, st);
		if (rc < 0) {
			/* every outstanding call is lost with the connection */
			for (unsigned i = 0; i < g->inflight; i++)
				if (g->slots[i].busy) {
					if (g->slots[i].counted) {
						st->failed++;
						st->op[g->slots[i].proc].failed++;
					}
					settle(g, &g->slots[i], NULL);
				}
			note_error(st, "connection", "lost");
			return -1;
		}
		t = now_us();
		if (closed && t < mend && !broken) {
			/* a reply freed a slot: the next call goes now, not after a poll */
			int idle = 0;
			for (unsigned i = 0; i < g->inflight && !idle; i++)
				idle = !g->slots[i].busy;
			if (idle)
				continue;
		}
		wait_us = next > (double)t && next < (double)mend ? (uint64_t)(next - (double)t) : 1000;
		if (wait_us > 20000)
			wait_us = 20000;
		{
			struct pollfd p = { g->k.fd, POLLIN, 0 };
			struct timespec ts = { 0, (long)wait_us * 1000 };
			ppoll(&p, 1, &ts, NULL);
		}
	}
	return broken ? -1 : 0;
}

/* Remove a process's files (not measured), so a lab server is left as it
 * was: after a run that ended well. A run whose connection broke, or whose
 * file set could not be built, leaves what it made (nfsmix.PID/ on the
 * export). */
static void remove_fileset(struct rpc_conn *k, const struct nfs_fh *top, int id, struct fileset *fs)
{
	struct nfs3_args a = { 0 };
	struct nfs3_res r;
	char name[32], err[160];
	a.fh = &fs->dir;
	a.name = name;
	/* a server that stops answering ends the cleanup at once: each call
	 * would wait NM_SETUP_TIMEOUT_MS */
	for (size_t i = 0; i < fs->nfiles; i++) {
		snprintf(name, sizeof name, "f%05zu", i);
		if (nfs_sync(k, NFS3_REMOVE, &a, &r, err, sizeof err) < 0 && !r.status)
			return;
	}
	for (size_t i = 0; i < fs->nlinks; i++) {
		snprintf(name, sizeof name, "l%05zu", i);
		if (nfs_sync(k, NFS3_REMOVE, &a, &r, err, sizeof err) < 0 && !r.status)
			return;
	}
	for (size_t i = 0; i < fs->npool; i++) {
		a.name = fs->poolname[i];
		if (nfs_sync(k, NFS3_REMOVE, &a, &r, err, sizeof err) < 0 && !r.status)
			return;
	}
	snprintf(name, sizeof name, "p%d", id);
	a.fh = top;
	a.name = name;
	nfs_sync(k, NFS3_RMDIR, &a, &r, err, sizeof err);
}

struct genconf {
	const struct server *sv;
	const struct nfs_fh *top;
	size_t nfiles, nloads;
	uint32_t xfer;
	unsigned inflight, timeout_ms, procs;
	const double *loads;
	uint64_t warm_us, win_us;
	uint32_t only;		/* mix=getattr|read: that procedure alone; 0: SFS */
};

/* The child: build its files, say so on ready, wait for the start time on
 * go, run every step, then write every step's figures to out at once (so
 * a full pipe can never hold a step up) and remove its files. */
static void __attribute__((noreturn)) generator(int id, const struct genconf *gc, int ready, int go, int out)
{
	struct gen *g = xcalloc(1, sizeof *g);
	struct stepstat *st = xcalloc(gc->nloads, sizeof *st);
	char err[160] = "", msg[200] = "R";
	uint64_t start;
	unsigned acc = 0;
	int broken = 0;
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	g->root = &gc->sv->root;
	g->xfer = gc->xfer;
	g->inflight = gc->inflight;
	g->timeout_ms = gc->timeout_ms;
	g->only = gc->only;
	g->rs = 0x9e3779b97f4a7c15ull ^ ((uint64_t)id * 0x100000001b3ull + 1);
	g->xid = (uint32_t)id << 24;
	g->msg = xmalloc(NM_XFER_MAX + 1024);
	g->data = xmalloc(gc->xfer);
	memset(g->data, 'w', gc->xfer);
	for (size_t i = 0; i < sizeof mix / sizeof *mix; i++)
		g->cum[i] = acc += mix[i].pct;
	if (conn_open(&g->k, gc->sv->ip, gc->sv->nfs_port, gc->sv->udp, err, sizeof err) < 0 ||
	    build_fileset(&g->k, gc->top, id, gc->nfiles, gc->xfer, &g->fs, &g->rs, err, sizeof err) < 0)
		snprintf(msg, sizeof msg, "E%s", err);
	if (write_all(ready, msg, sizeof msg) != sizeof msg || msg[0] == 'E')
		_exit(1);
	if (read_all(go, &start, sizeof start) != sizeof start)
		_exit(2);
	for (size_t s = 0; s < gc->nloads; s++) {
		if (broken) {
			snprintf(st[s].first_error, sizeof st[s].first_error, "not run: the connection was lost");
			continue;
		}
		broken = run_step(g, gc->loads[s] / gc->procs, start, gc->warm_us, gc->win_us, &st[s]) < 0;
		/* steps follow on one timeline; a step that drained long only
		 * shortens the next one's warmup */
		start += gc->warm_us + gc->win_us;
		if (start < now_us())
			start = now_us();
	}
	if (write_all(out, st, gc->nloads * sizeof *st) != (ssize_t)(gc->nloads * sizeof *st))
		_exit(3);
	close(out);
	sync_timeout_ms = NM_CLEANUP_TIMEOUT_MS;
	if (!broken) {
		/* nothing outstanding may answer into the removals */
		for (unsigned i = 0; i < g->inflight; i++)
			g->slots[i].busy = 0;
		remove_fileset(&g->k, gc->top, id, &g->fs);
	}
	_exit(broken ? 4 : 0);
}

/* ---- parameters ---- */

static int parse_loads(struct wctx *c, double *loads, size_t *n)
{
	const char *v = wl_param(c, "loads");
	char buf[PLAN_MAX_VALUE + 1];
	char *rest = buf, *t;
	*n = 0;
	if (v && !strcmp(v, "closed")) {
		/* one step, as fast as answers come */
		loads[(*n)++] = 0;
		return 0;
	}
	snprintf(buf, sizeof buf, "%s", v ? v : "");
	/* strsep, not strtok: an empty item ("100,,200") is an error, not skipped */
	while ((t = strsep(&rest, ","))) {
		char *end;
		unsigned long x;
		if (!(*t >= '0' && *t <= '9'))
			return wl_fail(c, "loads=\"%s\": \"%s\" is not a whole number of ops/s (or loads=closed, alone)", v, t);
		errno = 0;
		x = strtoul(t, &end, 10);
		if (errno || *end || x < 1 || x > 10000000)
			return wl_fail(c, "loads=\"%s\": \"%s\" is out of range (1..10000000 ops/s)", v, t);
		if (*n >= NM_MAX_STEPS)
			return wl_fail(c, "loads=\"%s\": at most %d steps", v, NM_MAX_STEPS);
		if (*n && x <= loads[*n - 1])
			return wl_fail(c, "loads=\"%s\": steps must rise (%lu after %.0f)", v, x, loads[*n - 1]);
		loads[(*n)++] = (double)x;
	}
	if (!*n)
		return wl_fail(c, "loads=\"%s\": no step", v ? v : "");
	return 0;
}

static int parse_server(struct wctx *c, struct server *s)
{
	const char *v = wl_param(c, "server"), *colon;
	char host[64];
	struct in_addr ia;
	if (!strcmp(v, "local")) {
		if (!c->dir)
			return wl_fail(c, "server=local needs a layout with a directory (the nfsserver directive exports it)");
		s->ip = htonl(INADDR_LOOPBACK);
		if (strlen(c->dir) > MNT_PATH_MAX)
			return wl_fail(c, "layout directory too long to export");
		snprintf(s->path, sizeof s->path, "%s", c->dir);
		return 0;
	}
	colon = strchr(v, ':');
	if (!colon || (size_t)(colon - v) >= sizeof host || colon[1] != '/' || strlen(colon + 1) > MNT_PATH_MAX)
		return wl_fail(c, "server=\"%s\": expected local or A.B.C.D:/export", v);
	snprintf(host, sizeof host, "%.*s", (int)(colon - v), v);
	if (inet_pton(AF_INET, host, &ia) != 1)
		return wl_fail(c, "server=\"%s\": %s is not an IPv4 address (names are not resolved)", v, host);
	s->ip = ia.s_addr;
	snprintf(s->path, sizeof s->path, "%s", colon + 1);
	return 0;
}

/* the file written through NFS, read back on the layout: byte for byte */
static int readback(struct wctx *c, struct rpc_conn *k, const struct nfs_fh *top, const char *topname, char *verdict,
		    size_t vlen)
{
	enum { N = 65536 + 1234 };
	unsigned char *want = xmalloc(N), *got;
	struct nfs3_args a = { 0 };
	struct nfs3_res r;
	char err[160] = "", path[4200];
	size_t len = 0;
	struct nfs_fh fh;
	for (size_t i = 0; i < N; i++)
		want[i] = (unsigned char)(i * 131 + 7);
	a.fh = top;
	a.name = "readback";
	a.mode = 0644;
	if (made(k, NFS3_CREATE, &a, &r, err, sizeof err) < 0)
		goto nfsfail;
	fh = r.fh;
	for (size_t off = 0; off < N;) {
		memset(&a, 0, sizeof a);
		a.fh = &fh;
		a.offset = off;
		a.count = N - off < 8192 ? (uint32_t)(N - off) : 8192;
		a.data = want + off;
		a.stable = NFS3_FILE_SYNC;
		if (nfs_sync(k, NFS3_WRITE, &a, &r, err, sizeof err) < 0)
			goto nfsfail;
		if (!r.count || r.count > a.count) {
			snprintf(err, sizeof err, "the server says it took %u of %u bytes", r.count, a.count);
			goto nfsfail;
		}
		off += r.count;
	}
	snprintf(path, sizeof path, "%s/%s/readback", c->dir, topname);
	got = (unsigned char *)read_file(path, &len);
	if (!got)
		snprintf(verdict, vlen, "unable to read %.100s on the layout: %s", path, strerror(errno));
	else if (len != N || memcmp(got, want, N))
		snprintf(verdict, vlen, "mismatch: %zu bytes on the layout, %d written through NFS", len, (int)N);
	else
		snprintf(verdict, vlen, "ok");
	free(got);
	free(want);
	return strcmp(verdict, "ok") ? -1 : 0;
nfsfail:
	snprintf(verdict, vlen, "writing through NFS failed: %s", err);
	free(want);
	return -1;
}

/* SFS's rule: a step is INVALID when more than 1% of the calls sent failed
 * (or none could be sent at all). */
static int step_invalid(const struct stepstat *t)
{
	return t->sent == 0 || t->failed * 100 > t->sent;
}

/* The figures of one step, summed over the processes. */
static void step_figures(struct wctx *c, size_t idx, double requested, const struct stepstat *t, double *peak,
			 int *valid_steps)
{
	char name[48], pre[32];
	double achieved = t->ok / t->window_s, fpct = t->sent ? 100.0 * t->failed / t->sent : 0;
	int invalid = step_invalid(t);
	unsigned long long req = (unsigned long long)requested;
	size_t first = c->nmetrics;
	/* "load800_" for a step of the curve, "closed_" for loads=closed */
	if (req)
		snprintf(pre, sizeof pre, "load%llu_", req);
	else
		snprintf(pre, sizeof pre, "closed_");
	snprintf(name, sizeof name, "%sops", pre);
	wl_metric(c, name, achieved, "ops/s", "higher");
	if (t->ok) {
		snprintf(name, sizeof name, "%sresp_ms", pre);
		wl_metric(c, name, t->lat_us / 1000.0 / t->ok, "ms", "lower");
		snprintf(name, sizeof name, "%sp50_ms", pre);
		wl_metric(c, name, hist_pct(t->hist, t->ok, 0.50) / 1000.0, "ms", "lower");
		snprintf(name, sizeof name, "%sp90_ms", pre);
		wl_metric(c, name, hist_pct(t->hist, t->ok, 0.90) / 1000.0, "ms", "lower");
		snprintf(name, sizeof name, "%sp99_ms", pre);
		wl_metric(c, name, hist_pct(t->hist, t->ok, 0.99) / 1000.0, "ms", "lower");
	}
	if (!invalid) {
		(*valid_steps)++;
		if (achieved > *peak)
			*peak = achieved;
	} else
		wl_metrics_invalid(c, first);
	jw_obj(&c->details, NULL);
	jw_int(&c->details, "step", (long long)idx + 1);
	jw_num(&c->details, "requested_ops", requested);
	jw_num(&c->details, "achieved_ops", achieved);
	jw_num(&c->details, "resp_ms", t->ok ? t->lat_us / 1000.0 / t->ok : NAN);
	jw_str(&c->details, "status", invalid ? "INVALID" : "valid");
	jw_int(&c->details, "sent", (long long)t->sent);
	jw_int(&c->details, "ok", (long long)t->ok);
	jw_int(&c->details, "failed", (long long)t->failed);
	jw_int(&c->details, "timeouts", (long long)t->timeouts);
	jw_int(&c->details, "malformed", (long long)t->malformed);
	jw_int(&c->details, "stray", (long long)t->stray);
	jw_int(&c->details, "not_issued", (long long)t->not_issued);
	jw_num(&c->details, "failed_pct", fpct);
	jw_num(&c->details, "window_s", t->window_s);
	if (t->first_error[0])
		jw_str(&c->details, "first_error", t->first_error);
	jw_obj(&c->details, "ops");
	for (uint32_t p = 0; p < NFS3_NPROCS; p++) {
		if (!t->op[p].n && !t->op[p].failed)
			continue;
		jw_obj(&c->details, nfs3_proc_name(p));
		jw_int(&c->details, "ok", (long long)t->op[p].n);
		jw_int(&c->details, "failed", (long long)t->op[p].failed);
		jw_num(&c->details, "resp_ms", t->op[p].n ? t->op[p].lat_us / 1000.0 / t->op[p].n : NAN);
		jw_obj_end(&c->details);
	}
	jw_obj_end(&c->details);
	jw_obj_end(&c->details);
	if (req)
		snprintf(name, sizeof name, "load %llu ops/s", req);
	else
		snprintf(name, sizeof name, "closed loop");
	info("nfsmix: %s: achieved %.1f ops/s, response %.2f ms, %llu of %llu calls failed%s%s%s", name, achieved, t->ok ? t->lat_us / 1000.0 / t->ok : 0.0, (unsigned long long)t->failed,
	     (unsigned long long)t->sent, invalid ? ": INVALID" : "", t->first_error[0] ? "; first: " : "",
	     t->first_error);
}

/* Fork the processes, start them together, collect their steps, and turn
 * them into figures. */
static int drive(struct wctx *c, const struct genconf *gc, struct rpc_conn *k, const char *topname)
{
	long long procs = gc->procs;
	int ready[2], go[2], outs[NM_MAX_PROCS], rc = 0, valid_steps = 0;
	pid_t pids[NM_MAX_PROCS];
	struct stepstat *all = NULL;
	double peak = 0;
	char verdict[200] = "not checked (the server is not this appliance's)";
	long long started = 0;
	struct sbuf invalid_list = {0};
	size_t ninvalid = 0, more = 0;

	if (pipe2(ready, O_CLOEXEC) < 0 || pipe2(go, O_CLOEXEC) < 0)
		return wl_fail(c, "unable to make a pipe: %s", strerror(errno));
	fflush(NULL);
	for (; started < procs; started++) {
		int out[2];
		if (pipe2(out, O_CLOEXEC) < 0) {
			rc = wl_fail(c, "unable to make a pipe: %s", strerror(errno));
			break;
		}
		pids[started] = fork();
		if (pids[started] < 0) {
			close(out[0]);
			close(out[1]);
			rc = wl_fail(c, "unable to fork: %s", strerror(errno));
			break;
		}
		if (pids[started] == 0) {
			close(ready[0]);
			close(go[1]);
			close(out[0]);
			generator((int)started, gc, ready[1], go[0], out[1]);
		}
		close(out[1]);
		outs[started] = out[0];
	}
	close(ready[1]);
	close(go[0]);
	for (long long i = 0; rc == 0 && i < procs; i++) {
		char msg[200];
		if (read_all(ready[0], msg, sizeof msg) != sizeof msg)
			rc = wl_fail(c, "a load process died while building its files");
		else if (msg[0] == 'E')
			rc = wl_fail(c, "building the file set: %.150s", msg + 1);
	}
	close(ready[0]);
	if (rc == 0) {
		uint64_t start = now_us() + 100000;	/* every process on one clock */
		info("nfsmix: file set built; %zu steps of %llu s after %llu s warmup each", gc->nloads,
		     (unsigned long long)(gc->win_us / 1000000), (unsigned long long)(gc->warm_us / 1000000));
		for (long long i = 0; i < procs; i++)
			write_all(go[1], &start, sizeof start);
	}
	close(go[1]);
	all = xcalloc((size_t)procs * gc->nloads, sizeof *all);
	for (long long i = 0; i < started; i++) {
		size_t want = gc->nloads * sizeof *all;
		if (rc == 0 && read_all(outs[i], all + i * gc->nloads, want) != (ssize_t)want)
			rc = wl_fail(c, "load process %lld died during the run", i);
		close(outs[i]);
	}
	/* the figures are in; each process now removes its files, which a
	 * server that stopped answering would drag out call by call: they
	 * get NM_CLEANUP_S together, then they are killed */
	{
		uint64_t deadline = now_us() + (rc == 0 ? NM_CLEANUP_S * 1000000ull : 0);
		for (long long i = 0; i < started; i++) {
			int status;
			while (waitpid(pids[i], &status, WNOHANG) == 0) {
				if (now_us() >= deadline) {
					kill(pids[i], SIGKILL);
					while (waitpid(pids[i], &status, 0) < 0 && errno == EINTR)
						;
					break;
				}
				usleep(20000);
			}
		}
	}
	if (rc == 0) {
		jw_arr(&c->details, "steps");
		for (size_t s = 0; s < gc->nloads; s++) {
			struct stepstat t = { 0 };
			t.window_s = all[s].window_s;
			for (long long i = 0; i < procs; i++) {
				const struct stepstat *p = &all[i * gc->nloads + s];
				t.sent += p->sent;
				t.ok += p->ok;
				t.failed += p->failed;
				t.timeouts += p->timeouts;
				t.malformed += p->malformed;
				t.stray += p->stray;
				t.not_issued += p->not_issued;
				t.lat_us += p->lat_us;
				for (unsigned b = 0; b < NM_HIST; b++)
					t.hist[b] += p->hist[b];
				for (uint32_t q = 0; q < NFS3_NPROCS; q++) {
					t.op[q].n += p->op[q].n;
					t.op[q].failed += p->op[q].failed;
					t.op[q].lat_us += p->op[q].lat_us;
				}
				if (!t.first_error[0] && p->first_error[0])
					memcpy(t.first_error, p->first_error, sizeof t.first_error);
			}
			if (!t.window_s)
				t.window_s = gc->win_us / 1e6;
			step_figures(c, s, gc->loads[s], &t, &peak, &valid_steps);
			if (step_invalid(&t)) {
				/* one warning for them all: a run has room for 8, a curve 16 steps */
				char lab[32];
				if (gc->loads[s] > 0)
					snprintf(lab, sizeof lab, "load %.0f", gc->loads[s]);
				else
					snprintf(lab, sizeof lab, "closed loop");
				if (invalid_list.len < 100)
					sb_printf(&invalid_list, "%s%s (%.1f%%%s%.40s)", ninvalid ? ", " : "", lab,
						  t.sent ? 100.0 * t.failed / t.sent : 100.0, t.first_error[0] ? ", " : "",
						  t.first_error);
				else
					more++;
				ninvalid++;
			}
		}
		jw_arr_end(&c->details);
		if (ninvalid)
			wl_warn(c, "%zu of %zu load steps INVALID (over 1%% of calls failed): %s%s", ninvalid, gc->nloads,
				invalid_list.s, more ? " and more (details.steps)" : "");
		sb_free(&invalid_list);
		if (valid_steps)
			wl_metric(c, "peak_ops", peak, "ops/s", "higher");
		jw_int(&c->details, "valid_steps", valid_steps);
		jw_num(&c->details, "peak_ops", valid_steps ? peak : NAN);
	}
	free(all);
	/* the parent's connection sat idle through the run, and a server may
	 * have closed it: readback and cleanup go over a new one */
	{
		char e[160];
		rpc_conn_close(k);
		if (conn_open(k, gc->sv->ip, gc->sv->nfs_port, gc->sv->udp, e, sizeof e) < 0) {
			snprintf(verdict, sizeof verdict, "not checked: %.150s", e);
			jw_str(&c->details, "readback", verdict);
			if (rc == 0 && c->dir && !strcmp(wl_param(c, "server"), "local"))
				rc = wl_fail(c, "a file written through NFS and read on the layout: %s", verdict);
			return rc;
		}
	}
	if (rc == 0 && c->dir && !strcmp(wl_param(c, "server"), "local")) {
		struct nfs_fh topfh = *gc->top;
		if (readback(c, k, &topfh, topname, verdict, sizeof verdict) < 0)
			rc = wl_fail(c, "a file written through NFS and read on the layout: %s", verdict);
	}
	jw_str(&c->details, "readback", verdict);
	{
		struct nfs3_args a = { 0 };
		struct nfs3_res r;
		char err[160];
		sync_timeout_ms = NM_CLEANUP_TIMEOUT_MS;
		a.fh = gc->top;
		a.name = "readback";
		if (nfs_sync(k, NFS3_REMOVE, &a, &r, err, sizeof err) == 0 || r.status) {
			a.fh = &gc->sv->root;
			a.name = topname;
			nfs_sync(k, NFS3_RMDIR, &a, &r, err, sizeof err);
		}
	}
	return rc;
}

static int nfsmix_run(struct wctx *c)
{
	struct server sv = { 0 };
	double loads[NM_MAX_STEPS];
	size_t nloads, nfiles;
	long long procs = wl_param_int(c, "procs"), inflight = wl_param_int(c, "inflight");
	long long files = wl_param_int(c, "files"), xfer = wl_param_size(c, "xfer");
	long long tmo = wl_param_int(c, "timeout_ms");
	const char *tr = wl_param(c, "transport"), *mixp = wl_param(c, "mix");
	unsigned long long step_s, warm_s;
	uint32_t only;
	char err[200] = "", topname[32];
	struct rpc_conn k;
	struct nfs3_args a = { 0 };
	struct nfs3_res r;
	struct nfs_fh top;
	int rc;

	/* a load process that died is an error on the pipe to it, never a
	 * SIGPIPE that kills the run and its figures (lib/rpcconn.c sends
	 * with MSG_NOSIGNAL: a server that closed a connection is an error
	 * there already) */
	signal(SIGPIPE, SIG_IGN);
	if (procs < 0 || inflight < 0 || files < 0 || xfer < 0 || tmo < 0 || parse_loads(c, loads, &nloads) < 0 ||
	    parse_server(c, &sv) < 0)
		return -1;
	if (parse_duration(wl_param(c, "step"), 1000, 3600, &step_s) < 0 || step_s < 1)
		return wl_fail(c, "step=\"%s\": expected 1..3600 seconds (%s)", wl_param(c, "step"), DURATION_HELP);
	if (parse_duration(wl_param(c, "warmup"), 1000, 3600, &warm_s) < 0)
		return wl_fail(c, "warmup=\"%s\": expected 0..3600 seconds (%s)", wl_param(c, "warmup"), DURATION_HELP);
	if (!in_choices(tr, "tcp|udp"))
		return wl_fail(c, "transport=\"%s\": expected tcp or udp", tr);
	if (!in_choices(mixp, "sfs|getattr|read"))
		return wl_fail(c, "mix=\"%s\": expected sfs, getattr or read", mixp);
	only = !strcmp(mixp, "getattr") ? NFS3_GETATTR : !strcmp(mixp, "read") ? NFS3_READ : 0;
	sv.udp = !strcmp(tr, "udp");
	if (procs < 1 || procs > NM_MAX_PROCS)
		return wl_fail(c, "procs=%lld out of range (1..%d)", procs, NM_MAX_PROCS);
	if (inflight < 1 || inflight > NM_MAX_INFLIGHT)
		return wl_fail(c, "inflight=%lld out of range (1..%d)", inflight, NM_MAX_INFLIGHT);
	if (files < 8 || files > NM_MAX_FILES)
		return wl_fail(c, "files=%lld out of range (8..%d)", files, NM_MAX_FILES);
	if (files * procs > NM_FILES_TOTAL_MAX)
		return wl_fail(c, "files=%lld x procs=%lld: at most %d files in all", files, procs, NM_FILES_TOTAL_MAX);
	if (xfer < 512 || xfer > (sv.udp ? NM_UDP_XFER_MAX : NM_XFER_MAX))
		return wl_fail(c, "xfer=%lld out of range (512..%u over %s)", xfer,
			       sv.udp ? NM_UDP_XFER_MAX : NM_XFER_MAX, tr);
	if (tmo < 10 || tmo > 600000)
		return wl_fail(c, "timeout_ms=%lld out of range (10..600000)", tmo);
	if (!strcmp(wl_param(c, "server"), "local") && loopback_up(err, sizeof err) < 0)
		return wl_fail(c, "%s", err);
	nfiles = (size_t)files;

	if (mount_root(&sv, err, sizeof err) < 0)
		return wl_fail(c, "%s%s", err, !strcmp(wl_param(c, "server"), "local") ?
			       " (server=local: is there an nfsserver line in this plan section? its status is in the "
			       "run's nfsserver object)" : "");
	if (conn_open(&k, sv.ip, sv.nfs_port, sv.udp, err, sizeof err) < 0)
		return wl_fail(c, "%s", err);
	a.fh = &sv.root;
	if (nfs_sync(&k, NFS3_FSINFO, &a, &r, err, sizeof err) < 0) {
		rpc_conn_close(&k);
		return wl_fail(c, "the server's root: %s", err);
	}
	{
		long long asked = xfer;
		if (r.rtmax && (uint64_t)xfer > r.rtmax)
			xfer = r.rtmax;
		if (r.wtmax && (uint64_t)xfer > r.wtmax)
			xfer = r.wtmax;
		jw_int(&c->details, "xfer_bytes", xfer);
		if (xfer < 512) {
			rpc_conn_close(&k);
			return wl_fail(c, "the server's rtmax/wtmax (%u/%u) is below 512 bytes: not an SFS-style load", r.rtmax,
				       r.wtmax);
		}
		if (xfer != asked)
			wl_warn(c, "xfer=%lld is over the server's rtmax/wtmax: reads and writes moved %lld bytes", asked, xfer);
	}
	/* a name no other run or boot has used: appliance pids repeat from
	 * boot to boot, and a run that died leaves its directory behind */
	{
		unsigned char rnd[8] = { 0 };
		uint64_t t = now_us();
		if (getrandom(rnd, sizeof rnd, GRND_NONBLOCK) != (ssize_t)sizeof rnd)
			memcpy(rnd, &t, sizeof rnd);
		snprintf(topname, sizeof topname, "nfsmix.%02x%02x%02x%02x%02x%02x%02x%02x", rnd[0], rnd[1], rnd[2], rnd[3],
			 rnd[4], rnd[5], rnd[6], rnd[7]);
	}
	a.name = topname;
	a.mode = 0755;
	if (nfs_sync(&k, NFS3_MKDIR, &a, &r, err, sizeof err) < 0 || !r.has_fh) {
		rpc_conn_close(&k);
		return wl_fail(c, "making %s on the export: %s", topname, err[0] ? err : "no handle");
	}
	top = r.fh;
	info("nfsmix: %s:%s over %s, root handle %u bytes, %lld processes x %lld files, xfer %lld",
	     inet_ntoa((struct in_addr){ sv.ip }), sv.path, tr, sv.root.len, procs, files, xfer);

	{
		struct genconf gc = { &sv, &top, nfiles, nloads, (uint32_t)xfer, (unsigned)inflight, (unsigned)tmo,
				      (unsigned)procs, loads, warm_s * 1000000ull, step_s * 1000000ull, only };
		rc = drive(c, &gc, &k, topname);
	}
	rpc_conn_close(&k);
	return rc;
}

/* nfsmix is an NFS client itself: under the section's nfsclient it would
 * not run through the kernel's client, which is what such a section is for. */
static int nfsmix_plan_check(const struct plan_section *s, const struct plan_workload *pw, char *err, size_t errlen)
{
	const char *server = "local";
	if (!s->nfsc.line)
		return 0;
	for (size_t q = 0; q < pw->nparams; q++)
		if (!strcmp(pw->params[q].key, "server"))
			server = pw->params[q].val;
	if (strcmp(server, "local"))
		return 0;
	snprintf(err, errlen, "nfsmix is an NFS client itself: with server=local it does not run through the "
		 "kernel's client (put it in a section without nfsclient)");
	return -1;
}

/* SPEC SFS's words for a load step and its result */
static const struct wl_label nfsmix_labels[] = {
	{ "peak_ops", "SFS: peak ops/sec" },
	{ "*_ops", "SFS: ops/sec (achieved)" },
	{ "*_resp_ms", "SFS: msec/op" },
	{ NULL },
};

const struct workload wl_nfsmix = {
	.name = "nfsmix",
	.labels = nfsmix_labels,
	.summary = "SFS-style NFSv3 offered-load curve: achieved ops/s and response time per requested load",
	.params = nfsmix_params,
	.needs = 0,
	.plan_check = nfsmix_plan_check,
	.run = nfsmix_run,
};
