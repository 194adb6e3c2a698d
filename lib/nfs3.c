/*
 * nfs3.c - NFSv3, MOUNT v3 and portmapper arguments and results (nfs3.h),
 * written from RFC 1813 and RFC 1833. Each decoder reads its result
 * structure field by field in the RFC's order and insists on consuming the
 * reply exactly: a server that sends more or less than the structure is
 * malformed, and so is one that answers the wrong procedure's shape.
 */
#include <stdio.h>
#include <string.h>

#include "nfs3.h"

static const char *const proc_names[NFS3_NPROCS] = {
	"null", "getattr", "setattr", "lookup", "access", "readlink", "read", "write", "create", "mkdir",
	"symlink", "mknod", "remove", "rmdir", "rename", "link", "readdir", "readdirplus", "fsstat", "fsinfo",
	"pathconf", "commit",
};

const char *nfs3_proc_name(uint32_t proc)
{
	return proc < NFS3_NPROCS ? proc_names[proc] : NULL;
}

const char *nfs3_stat_str(uint32_t stat, char *buf, size_t len)
{
	static const struct { uint32_t v; const char *s; } t[] = {
		{ 0, "NFS3_OK" }, { 1, "NFS3ERR_PERM" }, { 2, "NFS3ERR_NOENT" }, { 5, "NFS3ERR_IO" },
		{ 6, "NFS3ERR_NXIO" }, { 13, "NFS3ERR_ACCES" }, { 17, "NFS3ERR_EXIST" }, { 18, "NFS3ERR_XDEV" },
		{ 19, "NFS3ERR_NODEV" }, { 20, "NFS3ERR_NOTDIR" }, { 21, "NFS3ERR_ISDIR" }, { 22, "NFS3ERR_INVAL" },
		{ 27, "NFS3ERR_FBIG" }, { 28, "NFS3ERR_NOSPC" }, { 30, "NFS3ERR_ROFS" }, { 31, "NFS3ERR_MLINK" },
		{ 63, "NFS3ERR_NAMETOOLONG" }, { 66, "NFS3ERR_NOTEMPTY" }, { 69, "NFS3ERR_DQUOT" },
		{ 70, "NFS3ERR_STALE" }, { 71, "NFS3ERR_REMOTE" }, { 10001, "NFS3ERR_BADHANDLE" },
		{ 10002, "NFS3ERR_NOT_SYNC" }, { 10003, "NFS3ERR_BAD_COOKIE" }, { 10004, "NFS3ERR_NOTSUPP" },
		{ 10005, "NFS3ERR_TOOSMALL" }, { 10006, "NFS3ERR_SERVERFAULT" }, { 10007, "NFS3ERR_BADTYPE" },
		{ 10008, "NFS3ERR_JUKEBOX" },
	};
	for (size_t i = 0; i < sizeof t / sizeof *t; i++)
		if (t[i].v == stat)
			return t[i].s;
	snprintf(buf, len, "NFS3ERR_%u", stat);
	return buf;
}

/* ---- arguments ---- */

static void put_fh(struct xdr_out *o, const struct nfs_fh *fh)
{
	if (!fh || fh->len > NFS3_FHSIZE) {
		o->err = 1;
		return;
	}
	xdr_put_opaque(o, fh->data, fh->len);
}

static void put_diropargs(struct xdr_out *o, const struct nfs3_args *a)
{
	put_fh(o, a->fh);
	if (!a->name || strlen(a->name) > NFS3_NAME_MAX) {
		o->err = 1;
		return;
	}
	xdr_put_string(o, a->name);
}

/* sattr3: mode (if set), no uid/gid, size (if set), times left alone */
static void put_sattr(struct xdr_out *o, int set_mode, uint32_t mode, int set_size, uint64_t size)
{
	xdr_put_u32(o, !!set_mode);
	if (set_mode)
		xdr_put_u32(o, mode);
	xdr_put_u32(o, 0);	/* uid */
	xdr_put_u32(o, 0);	/* gid */
	xdr_put_u32(o, !!set_size);
	if (set_size)
		xdr_put_u64(o, size);
	xdr_put_u32(o, 0);	/* atime: DONT_CHANGE */
	xdr_put_u32(o, 0);	/* mtime: DONT_CHANGE */
}

void nfs3_put_args(struct xdr_out *o, uint32_t proc, const struct nfs3_args *a)
{
	switch (proc) {
	case NFS3_NULL:
		break;
	case NFS3_GETATTR: case NFS3_READLINK: case NFS3_FSSTAT: case NFS3_FSINFO: case NFS3_PATHCONF:
		put_fh(o, a->fh);
		break;
	case NFS3_SETATTR:
		put_fh(o, a->fh);
		put_sattr(o, a->set_mode, a->mode, a->set_size, a->size);
		xdr_put_u32(o, 0);	/* guard: none */
		break;
	case NFS3_LOOKUP: case NFS3_REMOVE: case NFS3_RMDIR:
		put_diropargs(o, a);
		break;
	case NFS3_ACCESS:
		put_fh(o, a->fh);
		xdr_put_u32(o, a->access);
		break;
	case NFS3_READ: case NFS3_COMMIT:
		put_fh(o, a->fh);
		xdr_put_u64(o, a->offset);
		xdr_put_u32(o, a->count);
		break;
	case NFS3_WRITE:
		if (a->count > NFS3_DATA_MAX || (a->count && !a->data)) {
			o->err = 1;
			return;
		}
		put_fh(o, a->fh);
		xdr_put_u64(o, a->offset);
		xdr_put_u32(o, a->count);
		xdr_put_u32(o, a->stable);
		xdr_put_opaque(o, a->data, a->count);
		break;
	case NFS3_CREATE:
		put_diropargs(o, a);
		xdr_put_u32(o, 1);	/* GUARDED: a name that exists is an error, not a truncation */
		put_sattr(o, 1, a->mode, 0, 0);
		break;
	case NFS3_MKDIR:
		put_diropargs(o, a);
		put_sattr(o, 1, a->mode, 0, 0);
		break;
	case NFS3_SYMLINK:
		put_diropargs(o, a);
		put_sattr(o, 1, a->mode, 0, 0);
		if (!a->target || strlen(a->target) > NFS3_PATH_MAX) {
			o->err = 1;
			return;
		}
		xdr_put_string(o, a->target);
		break;
	case NFS3_READDIR:
		put_fh(o, a->fh);
		xdr_put_u64(o, a->offset);
		xdr_put_fixed(o, a->verf, 8);
		xdr_put_u32(o, a->count);
		break;
	case NFS3_READDIRPLUS:
		put_fh(o, a->fh);
		xdr_put_u64(o, a->offset);
		xdr_put_fixed(o, a->verf, 8);
		xdr_put_u32(o, a->count / 2 ? a->count / 2 : 1);	/* dircount */
		xdr_put_u32(o, a->count);			/* maxcount */
		break;
	default:
		o->err = 1;	/* MKNOD, RENAME, LINK: not generated */
	}
}

/* ---- results ---- */

static void get_fh(struct xdr_in *x, struct nfs_fh *fh)
{
	const unsigned char *p = xdr_opaque(x, NFS3_FHSIZE, &fh->len);
	if (p)
		memcpy(fh->data, p, fh->len);
	else
		fh->len = 0;
}

static void get_fattr(struct xdr_in *x, struct nfs3_attr *a)
{
	a->type = xdr_u32(x);
	if (a->type < 1 || a->type > 7)
		x->err = 1;
	a->mode = xdr_u32(x);
	a->nlink = xdr_u32(x);
	a->uid = xdr_u32(x);
	a->gid = xdr_u32(x);
	a->size = xdr_u64(x);
	a->used = xdr_u64(x);
	xdr_u32(x);	/* rdev */
	xdr_u32(x);
	a->fsid = xdr_u64(x);
	a->fileid = xdr_u64(x);
	xdr_u32(x);	/* atime */
	xdr_u32(x);
	a->mtime_s = xdr_u32(x);
	a->mtime_ns = xdr_u32(x);
	xdr_u32(x);	/* ctime */
	xdr_u32(x);
}

static int get_post_op_attr(struct xdr_in *x, struct nfs3_attr *a)
{
	struct nfs3_attr scratch;
	if (!xdr_bool(x))
		return 0;
	get_fattr(x, a ? a : &scratch);
	return !x->err;
}

static void get_wcc(struct xdr_in *x, struct nfs3_res *r)
{
	if (xdr_bool(x)) {	/* pre_op_attr: size, mtime, ctime */
		xdr_u64(x);
		xdr_u32(x);
		xdr_u32(x);
		xdr_u32(x);
		xdr_u32(x);
	}
	r->has_attr = get_post_op_attr(x, &r->attr);
}

static void get_post_op_fh(struct xdr_in *x, struct nfs3_res *r)
{
	r->has_fh = xdr_bool(x);
	if (r->has_fh)
		get_fh(x, &r->fh);
}

static void get_dirlist(struct xdr_in *x, struct nfs3_res *r, int plus)
{
	xdr_fixed(x, r->verf, 8);
	while (xdr_bool(x)) {
		char name[NFS3_NAME_MAX + 1];
		xdr_u64(x);	/* fileid */
		xdr_string(x, NFS3_NAME_MAX, name, sizeof name);
		r->cookie = xdr_u64(x);
		if (plus) {
			struct nfs_fh fh;
			get_post_op_attr(x, NULL);
			if (xdr_bool(x))
				get_fh(x, &fh);
		}
		if (x->err)
			return;
		if (++r->count > NFS3_DIR_ENTRIES_MAX) {
			x->err = 1;
			return;
		}
	}
	r->eof = xdr_bool(x);
}

int nfs3_get_res(struct xdr_in *x, uint32_t proc, struct nfs3_res *r)
{
	memset(r, 0, sizeof *r);
	if (proc == NFS3_NULL)
		return xdr_left(x) || x->err ? -1 : 0;
	r->status = xdr_u32(x);
	if (x->err)
		return -1;
	switch (proc) {
	case NFS3_GETATTR:
		if (r->status == NFS3_OK) {
			get_fattr(x, &r->attr);
			r->has_attr = !x->err;
		}
		break;
	case NFS3_SETATTR: case NFS3_REMOVE: case NFS3_RMDIR:
		get_wcc(x, r);
		break;
	case NFS3_LOOKUP:
		if (r->status == NFS3_OK) {
			get_fh(x, &r->fh);
			r->has_fh = !x->err;
			r->has_attr = get_post_op_attr(x, &r->attr);
		}
		get_post_op_attr(x, NULL);	/* the directory's */
		break;
	case NFS3_ACCESS:
		r->has_attr = get_post_op_attr(x, &r->attr);
		if (r->status == NFS3_OK)
			r->access = xdr_u32(x);
		break;
	case NFS3_READLINK:
		r->has_attr = get_post_op_attr(x, &r->attr);
		if (r->status == NFS3_OK) {
			uint32_t n;
			xdr_opaque(x, NFS3_PATH_MAX, &n);
			r->count = n;
		}
		break;
	case NFS3_READ:
		r->has_attr = get_post_op_attr(x, &r->attr);
		if (r->status == NFS3_OK) {
			uint32_t n;
			r->count = xdr_u32(x);
			r->eof = xdr_bool(x);
			xdr_opaque(x, NFS3_DATA_MAX, &n);
			if (n != r->count)	/* the count must say what the data holds */
				x->err = 1;
		}
		break;
	case NFS3_WRITE:
		get_wcc(x, r);
		if (r->status == NFS3_OK) {
			r->count = xdr_u32(x);
			r->committed = xdr_u32(x);
			if (r->committed > NFS3_FILE_SYNC)
				x->err = 1;
			xdr_fixed(x, r->verf, 8);
		}
		break;
	case NFS3_CREATE: case NFS3_MKDIR: case NFS3_SYMLINK: case NFS3_MKNOD: {
		struct nfs3_res dir;	/* the directory's wcc: read, not kept */
		if (r->status == NFS3_OK) {
			get_post_op_fh(x, r);
			r->has_attr = get_post_op_attr(x, &r->attr);
		}
		get_wcc(x, &dir);
		break;
	}
	case NFS3_READDIR: case NFS3_READDIRPLUS:
		r->has_attr = get_post_op_attr(x, &r->attr);
		if (r->status == NFS3_OK)
			get_dirlist(x, r, proc == NFS3_READDIRPLUS);
		break;
	case NFS3_FSSTAT:
		r->has_attr = get_post_op_attr(x, &r->attr);
		if (r->status == NFS3_OK) {
			r->tbytes = xdr_u64(x);
			r->fbytes = xdr_u64(x);
			for (int i = 0; i < 4; i++)	/* abytes tfiles ffiles afiles */
				xdr_u64(x);
			xdr_u32(x);	/* invarsec */
		}
		break;
	case NFS3_FSINFO:
		r->has_attr = get_post_op_attr(x, &r->attr);
		if (r->status == NFS3_OK) {
			r->rtmax = xdr_u32(x);
			for (int i = 0; i < 2; i++)	/* rtpref rtmult */
				xdr_u32(x);
			r->wtmax = xdr_u32(x);
			for (int i = 0; i < 3; i++)	/* wtpref wtmult dtpref */
				xdr_u32(x);
			xdr_u64(x);	/* maxfilesize */
			xdr_u32(x);	/* time_delta */
			xdr_u32(x);
			xdr_u32(x);	/* properties */
		}
		break;
	case NFS3_PATHCONF:
		r->has_attr = get_post_op_attr(x, &r->attr);
		if (r->status == NFS3_OK)
			for (int i = 0; i < 6; i++)	/* linkmax name_max and four bools */
				xdr_u32(x);
		break;
	case NFS3_COMMIT:
		get_wcc(x, r);
		if (r->status == NFS3_OK)
			xdr_fixed(x, r->verf, 8);
		break;
	default:
		return -1;
	}
	return x->err || xdr_left(x) ? -1 : 0;
}

/* ---- MOUNT ---- */

void mnt3_put_path(struct xdr_out *o, const char *path)
{
	if (!path || strlen(path) > MNT_PATH_MAX) {
		o->err = 1;
		return;
	}
	xdr_put_string(o, path);
}

int mnt3_get_mnt(struct xdr_in *x, uint32_t *status, struct nfs_fh *fh)
{
	*status = xdr_u32(x);
	fh->len = 0;
	if (!x->err && *status == MNT3_OK) {
		uint32_t n;
		get_fh(x, fh);
		n = xdr_u32(x);	/* auth flavors */
		if (n > 16)
			x->err = 1;
		for (uint32_t i = 0; i < n && !x->err; i++)
			xdr_u32(x);
	}
	return x->err || xdr_left(x) ? -1 : 0;
}

/* ---- portmapper ---- */

void pmap_put_mapping(struct xdr_out *o, uint32_t prog, uint32_t vers, uint32_t prot, uint32_t port)
{
	xdr_put_u32(o, prog);
	xdr_put_u32(o, vers);
	xdr_put_u32(o, prot);
	xdr_put_u32(o, port);
}

int pmap_get_port(struct xdr_in *x, uint32_t *port)
{
	*port = xdr_u32(x);
	if (*port > 65535)
		x->err = 1;
	return x->err || xdr_left(x) ? -1 : 0;
}
