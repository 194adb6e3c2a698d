/*
 * nfsd.c - what the appliance writes to the kernel's NFS server (lib/nfsd.c):
 * export options to NFSEXP flags as exportfs sets them, the cache channel
 * lines, a path that needs escaping, and the filehandle answer, bad ones
 * included.
 */
#include "nfsd.h"
#include "tap.h"

static const struct {
	const char *opts;
	int rc;
	unsigned flags;
} flag_cases[] = {
	/* the seed's export: sync, no write gathering: FSID|NOSUBTREECHECK|INSECURE */
	{ "rw,sync,no_wdelay,no_root_squash,no_subtree_check,insecure", 0, 0x2402 },
	{ "rw", 0, NFSEXP_FSID | NFSEXP_ROOTSQUASH | NFSEXP_GATHERED_WRITES },
	{ "ro,async", 0, NFSEXP_FSID | NFSEXP_ROOTSQUASH | NFSEXP_GATHERED_WRITES | NFSEXP_READONLY | NFSEXP_ASYNC },
	{ "ro,rw", 0, NFSEXP_FSID | NFSEXP_ROOTSQUASH | NFSEXP_GATHERED_WRITES },
	{ "all_squash,secure", 0, NFSEXP_FSID | NFSEXP_ROOTSQUASH | NFSEXP_GATHERED_WRITES | NFSEXP_ALLSQUASH },
	{ "", -1, 0 },
	{ "rw,", -1, 0 },
	{ ",rw", -1, 0 },
	{ "rw,,sync", -1, 0 },
	{ "rw,fsid=0", -1, 0 },
	{ "RW", -1, 0 },
	{ "rws", -1, 0 },
};

static const struct {
	const char *text;
	int rc;
	unsigned len;
	unsigned char first, last;
} fh_cases[] = {
	{ "\\x0100010001000000\n", 0, 8, 0x01, 0x00 },
	{ "\\x01000100ab\n", 0, 5, 0x01, 0xab },
	{ "\\x0100010001000000", 0, 8, 0x01, 0x00 },
	{ "\\x01000100a\n", -1, 0, 0, 0 },
	{ "\\x0g\n", -1, 0, 0, 0 },
	{ "0100\n", -1, 0, 0, 0 },
	{ "\\x\n", -1, 0, 0, 0 },
	{ "", -1, 0, 0, 0 },
};

int main(void)
{
	char buf[256], err[256];
	size_t nf = sizeof flag_cases / sizeof *flag_cases, nh = sizeof fh_cases / sizeof *fh_cases;
	tap_plan((int)(nf + nh + 8 + 11));
	for (size_t i = 0; i < nf; i++) {
		unsigned f = 0;
		int rc = nfsd_export_flags(flag_cases[i].opts, &f, err, sizeof err);
		ok(rc == flag_cases[i].rc && (rc < 0 || f == flag_cases[i].flags), "export \"%s\": %s 0x%x",
		   flag_cases[i].opts, rc ? "refused" : "flags", f);
	}
	for (size_t i = 0; i < nh; i++) {
		struct nfs_fh fh;
		int rc = nfsd_parse_fh(fh_cases[i].text, strlen(fh_cases[i].text), &fh);
		ok(rc == fh_cases[i].rc && (rc < 0 || (fh.len == fh_cases[i].len && fh.data[0] == fh_cases[i].first &&
						       fh.data[fh.len - 1] == fh_cases[i].last)),
		   "filehandle answer %zu: %s (%u bytes)", i + 1, rc ? "refused" : "parsed", fh.len);
	}
	{
		char big[200];
		struct nfs_fh fh;
		memset(big, '0', sizeof big);
		big[0] = '\\';
		big[1] = 'x';
		ok(nfsd_parse_fh(big, 2 + 130, &fh) == -1, "a 65-byte handle is refused");
	}
	ok(nfsd_line_client(buf, sizeof buf, "127.0.0.1") == 0 && !strcmp(buf, "nfsd 127.0.0.1 2147483647 bootbench\n"),
	   "auth.unix.ip line: %s", buf);
	ok(nfsd_line_export(buf, sizeof buf, "/mnt/bb", 0x2402) == 0 &&
	   !strcmp(buf, "bootbench /mnt/bb 2147483647 9218 65534 65534 1\n"), "nfsd.export line: %s", buf);
	ok(nfsd_line_fsid(buf, sizeof buf, "/mnt/bb") == 0 && !strcmp(buf, "bootbench 1 \\x01000000 2147483647 /mnt/bb\n"),
	   "nfsd.fh line: %s", buf);
	ok(nfsd_qword("/mnt/a b\\c\n", buf, sizeof buf) == 0 && !strcmp(buf, "/mnt/a\\040b\\134c\\012"),
	   "a path with a blank, a backslash and a newline: octal escapes (%s)", buf);
	ok(nfsd_qword("", buf, sizeof buf) == -1, "an empty path is refused");
	ok(nfsd_qword("/abcdef", buf, 7) == -1, "a path that does not fit is refused, not cut");
	ok(nfsd_line_export(buf, 20, "/mnt/bb", 0) == -1, "an export line that does not fit is refused, not cut");

	ok(nfs_client_mount_data(buf, sizeof buf, "noac") == 0 &&
	   !strcmp(buf, "vers=3,proto=tcp,mountproto=tcp,mountvers=3,addr=127.0.0.1,mountaddr=127.0.0.1,port=2049,"
		   "mountport=111,nolock,noac"), "client mount data: ours, then the plan's (%s)", buf);
	ok(nfs_client_mount_data(buf, sizeof buf, "") == 0 && !strstr(buf, "nolock,"),
	   "no options: nothing after nolock (%s)", buf);
	ok(nfs_client_mount_data(buf, 40, "noac") == -1, "mount data that does not fit is refused, not cut");
	{
		/* /proc/net/rpc/nfs of a 6.1 client */
		const char *t = "net 0 0 0 0\nrpc 120 0 0\nproc3 22 0 40 1 7 3 0 9 0 0 0 0 0 0 0 0 0 0 2 1 2 1 0\n"
				"proc4 2 0 0\n";
		unsigned long long c[NFS3_NPROCS];
		ok(nfs_client_counts(t, strlen(t), c) == 0 && c[NFS3_GETATTR] == 40 && c[NFS3_LOOKUP] == 7 &&
		   c[NFS3_READ] == 9 && c[NFS3_FSINFO] == 2 && c[NFS3_COMMIT] == 0, "proc3 line: counts by procedure");
		t = "proc3 3 5 6 7\n";
		ok(nfs_client_counts(t, strlen(t), c) == 0 && c[0] == 5 && c[2] == 7 && c[3] == 0,
		   "a shorter line (an older kernel): the rest 0");
		t = "proc3 22 1 2\n";
		ok(nfs_client_counts(t, strlen(t), c) == -1 && c[0] == 0, "a line with fewer counters than it says: refused");
		t = "proc3 2 1 2x\n";
		ok(nfs_client_counts(t, strlen(t), c) == -1, "a counter that is not a number: refused");
		t = "proc3 1 99999999999999999999999\n";
		ok(nfs_client_counts(t, strlen(t), c) == -1, "a counter past 64 bits: refused");
		t = "proc3 2 1 2 3\n";
		ok(nfs_client_counts(t, strlen(t), c) == -1, "a line with more counters than it says: refused");
		t = "proc3 1 18446744073709551615\n";
		ok(nfs_client_counts(t, strlen(t), c) == 0 && c[0] == 18446744073709551615ull, "a counter at 2^64-1 fits");
		t = "net 0 0 0 0\nproc4 2 0 0\n";
		ok(nfs_client_counts(t, strlen(t), c) == -1, "no proc3 line (no v3 client): -1");
	}
	return tap_done();
}
