/*
 * nfsd.c - the kernel NFS server's export text (nfsd.h). The channel line
 * formats are those the kernel's cache parsers read (fs/nfsd/export.c
 * svc_export_parse and expkey_parse, net/sunrpc/svcauth_unix.c
 * ip_map_parse): words separated by blanks, an expiry in seconds since the
 * epoch, and for the export: flags, anonymous uid and gid, fsid.
 */
#include <stdio.h>
#include <string.h>

#include "nfsd.h"
#include "units.h"

#define NFSD_EXPIRY "2147483647"	/* never, as far as a boot goes */
#define NFSD_ANON "65534"

static const struct {
	const char *name;
	unsigned set, clear;
} options[] = {
	{ "rw", 0, NFSEXP_READONLY },
	{ "ro", NFSEXP_READONLY, 0 },
	{ "sync", 0, NFSEXP_ASYNC },
	{ "async", NFSEXP_ASYNC, 0 },
	{ "wdelay", NFSEXP_GATHERED_WRITES, 0 },
	{ "no_wdelay", 0, NFSEXP_GATHERED_WRITES },
	{ "root_squash", NFSEXP_ROOTSQUASH, 0 },
	{ "no_root_squash", 0, NFSEXP_ROOTSQUASH },
	{ "all_squash", NFSEXP_ALLSQUASH, 0 },
	{ "no_all_squash", 0, NFSEXP_ALLSQUASH },
	{ "secure", 0, NFSEXP_INSECURE_PORT },
	{ "insecure", NFSEXP_INSECURE_PORT, 0 },
	{ "subtree_check", 0, NFSEXP_NOSUBTREECHECK },
	{ "no_subtree_check", NFSEXP_NOSUBTREECHECK, 0 },
};

int nfsd_export_flags(const char *opts, unsigned *flags, char *err, size_t errlen)
{
	unsigned f = NFSEXP_FSID | NFSEXP_ROOTSQUASH | NFSEXP_GATHERED_WRITES;
	const char *p = opts;
	if (!opts || !*opts) {
		snprintf(err, errlen, "no export options");
		return -1;
	}
	while (*p) {
		size_t n = strcspn(p, ","), i;
		for (i = 0; i < sizeof options / sizeof *options; i++)
			if (strlen(options[i].name) == n && !strncmp(options[i].name, p, n))
				break;
		if (i == sizeof options / sizeof *options) {
			size_t o = (size_t)snprintf(err, errlen, "unknown export option \"%.*s\" (valid:", (int)(n < 40 ? n : 40), p);
			for (i = 0; i < sizeof options / sizeof *options && o < errlen; i++)
				o += (size_t)snprintf(err + o, errlen - o, " %s", options[i].name);
			if (o < errlen)
				snprintf(err + o, errlen - o, ")");
			return -1;
		}
		f = (f | options[i].set) & ~options[i].clear;
		p += n;
		if (*p == ',') {
			p++;
			if (!*p) {
				snprintf(err, errlen, "export options end in a comma");
				return -1;
			}
		}
	}
	*flags = f;
	return 0;
}

int nfsd_qword(const char *s, char *out, size_t len)
{
	size_t o = 0;
	if (!*s)
		return -1;
	for (; *s; s++) {
		unsigned char ch = (unsigned char)*s;
		int plain = (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') ||
			    ch == '/' || ch == '.' || ch == '_' || ch == '-';
		if (o + (plain ? 1 : 4) >= len)
			return -1;
		if (plain)
			out[o++] = (char)ch;
		else
			o += (size_t)snprintf(out + o, len - o, "\\%03o", ch);
	}
	out[o] = 0;
	return 0;
}

static int fits(int n, size_t len)
{
	return n > 0 && (size_t)n < len ? 0 : -1;
}

int nfsd_line_client(char *out, size_t len, const char *ip)
{
	/* class, address, expiry, domain */
	return fits(snprintf(out, len, "nfsd %s " NFSD_EXPIRY " " NFSD_DOMAIN "\n", ip), len);
}

int nfsd_line_export(char *out, size_t len, const char *path, unsigned flags)
{
	char q[4200];
	if (nfsd_qword(path, q, sizeof q) < 0)
		return -1;
	/* domain, path, expiry, flags, anon uid, anon gid, fsid */
	return fits(snprintf(out, len, NFSD_DOMAIN " %s " NFSD_EXPIRY " %u " NFSD_ANON " " NFSD_ANON " %d\n", q, flags,
			     NFSD_EXPORT_FSID), len);
}

int nfsd_line_fsid(char *out, size_t len, const char *path)
{
	char q[4200];
	if (nfsd_qword(path, q, sizeof q) < 0)
		return -1;
	/* domain, fsid type 1 (a 4-byte fsid, little-endian as the kernel
	 * stores it), the fsid as \x hex, expiry, path */
	return fits(snprintf(out, len, NFSD_DOMAIN " 1 \\x%02x000000 " NFSD_EXPIRY " %s\n", NFSD_EXPORT_FSID, q), len);
}

static int hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

int nfsd_parse_fh(const char *text, size_t len, struct nfs_fh *fh)
{
	size_t n;
	fh->len = 0;
	if (len && text[len - 1] == '\n')
		len--;
	if (len < 4 || text[0] != '\\' || text[1] != 'x' || (len - 2) % 2)
		return -1;
	n = (len - 2) / 2;
	if (n > NFS3_FHSIZE)
		return -1;
	for (size_t i = 0; i < n; i++) {
		int hi = hexval(text[2 + 2 * i]), lo = hexval(text[3 + 2 * i]);
		if (hi < 0 || lo < 0)
			return -1;
		fh->data[i] = (unsigned char)(hi << 4 | lo);
	}
	fh->len = (uint32_t)n;
	return 0;
}

int nfs_client_mount_data(char *out, size_t len, const char *extra)
{
	int n = snprintf(out, len,
			 "vers=3,proto=tcp,mountproto=tcp,mountvers=3,addr=127.0.0.1,mountaddr=127.0.0.1,"
			 "port=2049,mountport=111,nolock%s%s",
			 extra && *extra ? "," : "", extra ? extra : "");
	return n < 0 || (size_t)n >= len ? -1 : 0;
}

int nfs_client_counts(const char *text, size_t len, unsigned long long out[NFS3_NPROCS])
{
	size_t i = 0;
	memset(out, 0, NFS3_NPROCS * sizeof *out);
	while (i < len) {
		size_t e = i;
		while (e < len && text[e] != '\n')
			e++;
		if (e - i > 6 && !memcmp(text + i, "proc3 ", 6)) {
			unsigned long long n = 0, v;
			size_t p = i + 6, k = 0;
			/* the count of procedures, then that many counters */
			for (;; k++) {
				size_t d;
				while (p < e && text[p] == ' ')
					p++;
				if (p == e)
					break;
				for (d = p; d < e && text[d] >= '0' && text[d] <= '9'; d++)
					;
				if (d == p || (d < e && text[d] != ' ') || units_number(text + p, d - p, &v) < 0)
					break;
				p = d;
				if (!k)
					n = v;
				else if (k - 1 < NFS3_NPROCS)
					out[k - 1] = v;
			}
			if (p != e || !k || k - 1 != n) {
				memset(out, 0, NFS3_NPROCS * sizeof *out);
				return -1;
			}
			return 0;
		}
		i = e + 1;
	}
	return -1;
}
