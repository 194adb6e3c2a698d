/*
 * pxe.c - bootbench pxe: the HTTP half of the boot server. It hands each
 * target (by MAC) the iPXE script of its next boot in an unattended rotation,
 * serves the kernels and the userland, and receives the records the
 * appliance sends home at the end of each boot. dnsmasq (proxy DHCP and
 * TFTP) and the boot root come from scripts/pxe-serve.
 */
const char pxe_usage[] =
"usage: bootbench pxe serve ROOT [--bind ADDR] [--port P] [--quota SIZE]\n"
"                            [--max-records N] [--boot-seconds S]\n"
"       bootbench pxe status ROOT\n"
"\n"
"ROOT is a boot root laid out by scripts/pxe-serve: userland.cpio.gz,\n"
"userland-id.cpio.gz, kernels/NAME/{vmlinuz,modules.cpio.gz} and, per\n"
"target, targets/MAC/ (MAC as aa-bb-cc-dd-ee-ff) with\n"
"  key        the target's upload key (64 hex digits): the file given to\n"
"             bootbench mkresults --key for the target's results disk. A\n"
"             target without one is refused its boots\n"
"  schedule   the kernel of each boot, one per line (e.g. A B B A)\n"
"  args       kernel command line for that target (plan, disks, console)\n"
"  finally    what a target gets once its schedule is done: poweroff, or\n"
"             exit (iPXE returns to the BIOS: boot the local disk)\n"
"  layers     (optional) the layers its boots load after the userland, one\n"
"             name a line (postgresql: a plan of PostgreSQL workloads needs\n"
"             it), each served from ROOT/layers/NAME.cpio.gz; a name that is\n"
"             not there is a boot refused (the schedule does not advance)\n"
"  confirm    (optional) confirmation rounds: \"rounds M\" and any number of\n"
"             \"care WORKLOAD[@LAYOUT]\" lines. When the schedule is done and\n"
"             it holds fewer than M rounds (a round: each kernel once), the\n"
"             server runs bootbench compare RECORDS --rounds M --undecided\n"
"             [--care ...] in a child (at most --confirm-seconds and\n"
"             --confirm-memory; its output in confirm.out) while it goes\n"
"             on answering: until the answer is in, the target is told\n"
"             to ask again in 5 s. While that asks for another round,\n"
"             one is appended to schedule (the last round's kernels in\n"
"             reverse order) and booted\n"
"serve answers\n"
"  GET /boot/MAC      the iPXE script of the target's next boot, with a new\n"
"                     boot id in its upload URL (kept in targets/MAC/state and\n"
"                     tokens, so a restarted server resumes the schedule).\n"
"                     Until the target sent that boot's records (signed), or\n"
"                     --boot-seconds passed, anyone asking gets that same\n"
"                     boot: nothing advances\n"
"  POST /results/MAC/BOOT/DIGEST/HMAC  JSON lines of records of a boot id\n"
"                     this server gave the target, signed: DIGEST is the\n"
"                     body's SHA-256, HMAC is HMAC-SHA-256 with the target's\n"
"                     key over \"bootbench-upload-2\\n\" MAC \"\\n\" BOOT \"\\n\"\n"
"                     LEN \"\\n\" DIGEST, in hex (lib/uploadauth.h). The HMAC\n"
"                     is checked when the header is in (403 before a byte of\n"
"                     the body is kept), DIGEST when the body is. An empty\n"
"                     body says the boot started. At most 32 MiB, a line at\n"
"                     most one record's 4 MiB, appended to\n"
"                     targets/MAC/records.jsonl unless\n"
"                     already there. The file is append-only: read once per\n"
"                     server run (streamed) for the keys of its lines, never\n"
"                     cut shorter than it was; 413 past the quota\n"
"  GET /status        every target's progress, as text (to the server's own\n"
"                     host only: loopback, or the address it serves on)\n"
"  GET /FILE          the boot files above (nothing outside ROOT, nothing\n"
"                     under targets/, no listing)\n"
"and logs every event to stdout and to targets/MAC/log.\n"
"  --bind ADDR   IPv4 address to listen on (default 127.0.0.1: say the boot\n"
"                network's address explicitly)\n"
"  --port P      TCP port (default 8080; 0 picks one, printed on stdout)\n"
"  --confirm-seconds S  a confirmation's compare is killed past S (default\n"
"                120 s; a whole number, or one with ms, s, min or h): no\n"
"                more rounds, logged\n"
"  --confirm-memory SIZE  its address space (default 2G, from 64M): past it\n"
"                compare fails, no more rounds, logged\n"
"  --quota SIZE  bytes of records.jsonl a target may reach (default 1G):\n"
"                only signed uploads count\n"
"  --max-records N  records one boot (a record's boot_id) may store\n"
"                (default 1000000): the records past it are not stored, the\n"
"                rest of the upload is (the answer and a log line give the\n"
"                count; they stay on the target's results partition). 65536\n"
"                boots a target are counted; later ones are stored uncounted.\n"
"                Past --quota the upload is refused whole (413), and the\n"
"                appliance sends it no more.\n"
"  --boot-seconds S  a boot handed out is handed out again (the same boot)\n"
"                until its records arrive, or S s passed since it was handed\n"
"                out without saying it started (a kernel that never reaches\n"
"                init is booted again until then), or S s since it said it\n"
"                started (it hung, or its upload failed). Default 1800: make\n"
"                it longer than a boot of your longest plan. 0: every GET is\n"
"                the next boot (anyone can move the schedule: tests only)\n"
"Threat model (a lab segment with strangers on it): a stranger who can reach\n"
"the port cannot store a record, move a schedule, or read a key: uploads are\n"
"signed with the target's key, which only its results disk and\n"
"targets/MAC/key hold (never a command line, record, console line, log or\n"
"served file), and a GET /boot changes nothing until the target itself\n"
"sent its boot's records. Boot ids are public, but an upload's header is\n"
"signed: a stranger's is refused before a byte of its body is kept (what\n"
"it still sends is read and dropped while it keeps sending, one connection\n"
"an address, so that a target with the wrong key hears why). What a\n"
"stranger can still do:\n"
"learn a target's kernel and arguments (GET /boot/MAC, over HTTP in clear,\n"
"as iPXE needs), download the boot files, and use its share of the\n"
"server's limits: an address holds at most 16 connections and 4 downloads\n"
"(when all 32 senders are busy, an address holding at least two fewer\n"
"takes one from the address holding most: 32 addresses can still hold\n"
"them all), and refusals are logged once a minute a source. A sniffer sees\n"
"records in clear (no TLS: iPXE and the appliance speak plain HTTP) and can\n"
"send a captured upload again: one stored already is answered at its\n"
"header; one not yet stored is read (one copy of it at a time), and its\n"
"body holds at most 40 MiB of one address's upload buffer while it keeps\n"
"64 KiB/s, storing nothing new. A boot that sends no word for\n"
"--boot-seconds (its target is off, or hung) is given up on at the next\n"
"GET, whoever sends it. Whoever holds a key file, or the target's disk, can\n"
"upload as that target.\n"
"status prints, per target, the boots served, the records received and the\n"
"boots that sent nothing (hung, or their upload failed: their records come\n"
"with the next boot's upload).\n"
"exit: 0 stopped by SIGINT/SIGTERM, 100 bad usage, 111 unable to serve.\n";

#define _GNU_SOURCE
#include <arpa/inet.h>
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/sendfile.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cmdline.h"
#include "commands.h"
#include "defaults.h"
#include "err.h"
#include "gpt.h"
#include "hash.h"
#include "httphead.h"
#include "spawn.h"
#include "recsource.h"
#include "recstore.h"
#include "sbuf.h"
#include "units.h"
#include "uploadauth.h"
#include "xio.h"

#define MAX_HEADER 16384
#define DOWNLOAD_RATE (256u << 10)	/* bytes a second a download must keep up */
/* An upload is one boot's records: the seeds plan's largest is ~15 MiB. */
#define MAX_BODY (32u << 20)
/* Damaged lines logged per upload; the rest are counted in one line. */
#define LOG_DAMAGED 3
#define MAX_SCHEDULE 4096

static volatile sig_atomic_t stopping;
static void on_stop(int sig) { (void)sig; stopping = 1; }

static const char *root;
static pid_t server_pid;

/* ---- target state ---------------------------------------------------- */

/* a target directory's name: a MAC in the server's own spelling */
static int valid_mac(const char *m)
{
	char norm[18];
	return mac_normal(m, norm) && !strcmp(norm, m);
}

static char *tpath(const char *mac, const char *file)
{
	struct sbuf sb = {0};
	sb_printf(&sb, "%s/targets/%s/%s", root, mac, file);
	return sb_steal(&sb);
}

static char *tread(const char *mac, const char *file)
{
	char *p = tpath(mac, file), *s = read_regular(p, NULL);	/* a FIFO there hangs nothing */
	free(p);
	return s;
}

/* A target's file opened to append, a regular file only: a FIFO put at
 * targets/MAC/log or tokens would hang the server in fopen(3). */
static FILE *fopen_append(const char *path)
{
	int fd = open_regular(path, O_WRONLY | O_APPEND | O_CREAT, 0644);
	FILE *f = fd < 0 ? NULL : fdopen(fd, "a");
	if (fd >= 0 && !f)
		close(fd);
	return f;
}

static void tlog(const char *mac, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void tlog(const char *mac, const char *fmt, ...)
{
	char when[32], msg[1024];
	time_t t = time(NULL);
	va_list ap;
	char *p = tpath(mac, "log");
	FILE *f;
	strftime(when, sizeof when, "%Y-%m-%dT%H:%M:%SZ", gmtime(&t));
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	printf("%s %s %s\n", when, mac, msg);
	fflush(stdout);
	f = fopen_append(p);
	if (f) {
		fprintf(f, "%s %s\n", when, msg);
		fclose(f);
	}
	free(p);
}

/* Refusals are a stranger's to make at any rate: each (source address,
 * kind) is logged at most once a minute, the next line saying how many
 * were not (the MAC is the client's to choose: not part of the key), and
 * all sources together at most REFUSE_LINES lines a minute. A fixed
 * table, the stalest entry reused. */
#define REFUSE_SLOTS 256
#define REFUSE_EVERY 60
#define REFUSE_LINES 60
static struct refusal {
	in_addr_t peer;
	int kind;
	time_t last;
	unsigned long quiet;
} refusals[REFUSE_SLOTS];
static time_t refuse_minute;
static unsigned refuse_lines;
static unsigned long refuse_dropped;

/* What was refused (or asked again): each kind is logged at most once a
 * minute per address. */
enum refusal_kind {
	RK_NO_SCHEDULE = 1,	/* a /boot of a machine that is not a target */
	RK_NOT_TARGET,		/* an upload for one */
	RK_UNSIGNED,		/* an upload without /BOOT/DIGEST/HMAC */
	RK_UNKNOWN_BOOT,	/* a boot id never given to that target */
	RK_NO_KEY,		/* the target has no key: no boot, no upload */
	RK_SAME_BOOT,		/* /boot asked again while that boot is in hand */
	RK_BAD_SIGNATURE,	/* the signature is not the key's */
	RK_BAD_DIGEST,		/* a signed head with another body than it names (a captured head) */
	RK_NOTHING_NEW,		/* a signed upload of records all stored already (a replay, or a retry) */
	RK_DONE,		/* /boot after the schedule ended */
};

static void refused(in_addr_t peer, const char *mac, int kind, const char *what)
{
	struct refusal *r = NULL, *old = &refusals[0];
	time_t now = time(NULL);
	char a[INET_ADDRSTRLEN] = "?";
	for (size_t i = 0; i < REFUSE_SLOTS && !r; i++) {
		struct refusal *x = &refusals[i];
		if (x->last && x->peer == peer && x->kind == kind)
			r = x;
		else if (x->last < old->last)
			old = x;
	}
	if (r && now - r->last < REFUSE_EVERY) {
		r->quiet++;
		return;
	}
	if (now - refuse_minute >= 60) {
		if (refuse_dropped)
			tlog(mac, "%lu refusals in the last minute not logged (more than %d lines a minute from all "
				  "sources)", refuse_dropped, REFUSE_LINES);
		refuse_minute = now;
		refuse_lines = 0;
		refuse_dropped = 0;
	}
	if (refuse_lines >= REFUSE_LINES) {
		refuse_dropped++;
		return;
	}
	refuse_lines++;
	if (!r) {
		r = old;
		memset(r, 0, sizeof *r);
		r->peer = peer;
		r->kind = kind;
	}
	inet_ntop(AF_INET, &peer, a, sizeof a);
	if (r->quiet)
		tlog(mac, "%s (from %s; %lu more like it in the last %lld s, not logged)", what, a, r->quiet,
		     (long long)(now - r->last));
	else
		tlog(mac, "%s (from %s; more like it within %d s are counted, not logged)", what, a, REFUSE_EVERY);
	r->quiet = 0;
	r->last = now;
}

struct state {
	long served;	/* boots handed out */
	long reported;	/* the highest boot number that sent records */
	long started;	/* the highest boot number the target said (signed) had started */
	long ended;	/* the highest boot number that sent (signed) records, stored or not */
	long long started_at;	/* when it said so (epoch s) */
	long long served_at;	/* when the last boot was handed out (epoch s) */
	char token[33];	/* the last boot's id: 16 random bytes, hex (public) */
};

static void state_read(const char *mac, struct state *st)
{
	char *s = tread(mac, "state"), *p;
	st->served = st->reported = st->started = st->ended = 0;
	st->served_at = st->started_at = 0;
	st->token[0] = 0;
	if (!s)
		return;
	if ((p = strstr(s, "served=")))
		st->served = strtol(p + 7, NULL, 10);
	if ((p = strstr(s, "reported=")))
		st->reported = strtol(p + 9, NULL, 10);
	if ((p = strstr(s, "\nstarted=")))
		st->started = strtol(p + 9, NULL, 10);
	if ((p = strstr(s, "ended=")))
		st->ended = strtol(p + 6, NULL, 10);
	if ((p = strstr(s, "started_at=")))
		st->started_at = strtoll(p + 11, NULL, 10);
	if ((p = strstr(s, "served_at=")))
		st->served_at = strtoll(p + 10, NULL, 10);
	if ((p = strstr(s, "token=")))
		snprintf(st->token, sizeof st->token, "%.*s", (int)strspn(p + 6, "0123456789abcdef"), p + 6);
	free(s);
}

static int state_write(const char *mac, const struct state *st)
{
	char *p = tpath(mac, "state"), *tmp = tpath(mac, "state.tmp");
	FILE *f = fopen(tmp, "w");
	int rc = -1;
	if (f) {
		/* durable before it replaces the old one: a power cut must not
		 * leave an empty state (the rotation would start over) */
		int ok = fprintf(f, "served=%ld\nreported=%ld\nstarted=%ld\nended=%ld\nserved_at=%lld\nstarted_at=%lld\n"
				    "token=%s\n", st->served, st->reported, st->started, st->ended, st->served_at,
				 st->started_at, st->token) > 0 &&
			 fflush(f) == 0 && fsync(fileno(f)) == 0;
		if (fclose(f) == 0 && ok && rename(tmp, p) == 0)
			rc = 0;
	}
	if (rc < 0)
		warn_sys("unable to write %s", p);
	free(p);
	free(tmp);
	return rc;
}

/* The schedule's kernel names, one per line, blank lines and # ignored. */
static size_t schedule_read(const char *mac, char *names[], size_t max)
{
	char *s = tread(mac, "schedule"), *line, *save = NULL;
	size_t n = 0;
	if (!s)
		return 0;
	for (line = strtok_r(s, "\n", &save); line && n < max; line = strtok_r(NULL, "\n", &save)) {
		while (isspace((unsigned char)*line))
			line++;
		if (*line && *line != '#')
			names[n++] = xstrdup(line);
	}
	free(s);
	return n;
}

/* ---- HTTP plumbing --------------------------------------------------- */

static void send_all(int fd, const char *p, size_t n)
{
	while (n) {
		ssize_t w = send(fd, p, n, MSG_NOSIGNAL);
		if (w <= 0) {
			if (w < 0 && errno == EINTR)
				continue;
			return;
		}
		p += w;
		n -= (size_t)w;
	}
}

static void reply(int fd, int status, const char *ctype, const char *body, size_t len)
{
	struct sbuf h = {0};
	const char *reason = status == 200 ? "OK" : status == 400 ? "Bad Request" : status == 404 ? "Not Found" :
			     status == 405 ? "Method Not Allowed" : status == 413 ? "Payload Too Large" :
			     status == 403 ? "Forbidden" : status == 503 ? "Service Unavailable" : "Internal Server Error";
	sb_printf(&h, "HTTP/1.0 %d %s\r\nContent-Type: %s\r\nContent-Length: %zu\r\nConnection: close\r\n\r\n",
		  status, reason, ctype, len);
	send_all(fd, h.s, h.len);
	send_all(fd, body, len);
	sb_free(&h);
}

static void reply_text(int fd, int status, const char *text)
{
	reply(fd, status, "text/plain", text, strlen(text));
}

/* The files a boot script names (boot_text): userland.cpio.gz,
 * userland-id.cpio.gz, kernels/NAME/vmlinuz, kernels/NAME/modules.cpio.gz,
 * layers/NAME.cpio.gz; NAME one path component. */
static int boot_file(const char *rel)
{
	const char *slash, *name;
	if (!strcmp(rel, "userland.cpio.gz") || !strcmp(rel, "userland-id.cpio.gz"))
		return 1;
	if (!strncmp(rel, "kernels/", 8)) {
		name = rel + 8;
		slash = strchr(name, '/');
		return slash && slash > name && (!strcmp(slash + 1, "vmlinuz") || !strcmp(slash + 1, "modules.cpio.gz"));
	}
	if (!strncmp(rel, "layers/", 7)) {
		size_t n = strlen(rel + 7);
		return !strchr(rel + 7, '/') && n > 8 && !strcmp(rel + 7 + n - 8, ".cpio.gz");
	}
	return 0;
}

/* Only the boot files, by name: no "..", no hidden files, nothing else
 * that ROOT holds (targets/, logs, leases, a pid file). */
static int servable(const char *rel)
{
	return *rel && rel[0] != '/' && rel[0] != '.' && !strstr(rel, "..") && !strstr(rel, "/.") &&
	       !strstr(rel, "//") && boot_file(rel);
}

static void serve_file(int fd, const char *rel)
{
	struct sbuf path = {0}, h = {0};
	struct stat st;
	int f;
	off_t off = 0;
	if (!servable(rel)) {
		reply_text(fd, 404, "not found\n");
		return;
	}
	sb_printf(&path, "%s/%s", root, rel);
	f = open(path.s, O_RDONLY | O_CLOEXEC);
	if (f < 0 || fstat(f, &st) < 0 || !S_ISREG(st.st_mode)) {
		reply_text(fd, 404, "not found\n");
		if (f >= 0)
			close(f);
		sb_free(&path);
		return;
	}
	/* A sender that trickles holds a slot: the whole file must go at
	 * DOWNLOAD_RATE at least (a 15 MB kernel: 90 s), or the sender ends. */
	if (getpid() != server_pid)	/* never the server itself (its fork failed) */
		alarm(30 + (unsigned)(st.st_size / DOWNLOAD_RATE));
	sb_printf(&h, "HTTP/1.0 200 OK\r\nContent-Type: application/octet-stream\r\nContent-Length: %lld\r\n"
		      "Connection: close\r\n\r\n", (long long)st.st_size);
	send_all(fd, h.s, h.len);
	while (off < st.st_size) {
		ssize_t n = sendfile(fd, f, &off, (size_t)(st.st_size - off));
		if (n <= 0 && !(n < 0 && errno == EINTR))
			break;
	}
	close(f);
	sb_free(&path);
	sb_free(&h);
}

/* ---- the routes -------------------------------------------------------- */

/* The initrds, named: iPXE on UEFI hands the kernel's EFI stub only the
 * images named by initrd= on the command line (a kernel booted without them
 * panics: no root); on BIOS the names are unused words for init. */
#define INITRD_ARGS "initrd=userland.cpio.gz initrd=userland-id.cpio.gz initrd=modules.cpio.gz"
#define INITRD_LINES \
	"initrd --name userland.cpio.gz http://%s/userland.cpio.gz\n" \
	"initrd --name userland-id.cpio.gz http://%s/userland-id.cpio.gz\n" \
	"initrd --name modules.cpio.gz http://%s/kernels/%s/modules.cpio.gz\n"

/* The target's layers (targets/MAC/layers: one name a line, at most
 * MAX_LAYERS, each [a-z0-9-] and not userland*, each a regular file
 * ROOT/layers/NAME.cpio.gz) as initrd= words and initrd lines, loaded
 * after the userland and before the modules, as boot-qemu --layer does.
 * 0, or -1 with why. */
#define MAX_LAYERS 8
static int target_layers(const char *mac, const char *self, struct sbuf *words, struct sbuf *lines, char *why,
			 size_t len)
{
	char *t = tread(mac, "layers"), *save = NULL;
	int n = 0, rc = 0;
	if (!t)
		return 0;
	if (strlen(t) > 1024) {
		snprintf(why, len, "targets/%s/layers is longer than 1 KiB", mac);
		free(t);
		return -1;
	}
	for (char *l = strtok_r(t, "\n", &save); l && !rc; l = strtok_r(NULL, "\n", &save)) {
		struct stat st;
		struct sbuf f = { 0 };
		if (!*l)
			continue;
		if (++n > MAX_LAYERS || strlen(l) > 32 || strspn(l, "abcdefghijklmnopqrstuvwxyz0123456789-") != strlen(l) ||
		    *l == '-' || !strncmp(l, "userland", 8)) {
			snprintf(why, len, "targets/%s/layers: \"%.40s\" is not a layer name (a-z, 0-9, -; at most %d)", mac, l,
				 MAX_LAYERS);
			rc = -1;
			break;
		}
		sb_printf(&f, "%s/layers/%s.cpio.gz", root, l);
		if (lstat(f.s, &st) < 0 || !S_ISREG(st.st_mode)) {
			snprintf(why, len, "targets/%s/layers names %s, but there is no layers/%s.cpio.gz in the root", mac, l, l);
			rc = -1;
		}
		sb_free(&f);
		sb_printf(words, " initrd=%s.cpio.gz", l);
		sb_printf(lines, "initrd --name %s.cpio.gz http://%s/layers/%s.cpio.gz\n", l, self, l);
	}
	free(t);
	return rc;
}

/* ---- boot ids and signed uploads ------------------------------------------
 *
 * Each boot handed out gets an id (16 random bytes, hex), in the upload URL
 * its kernel command line carries (/results/MAC/BOOT). The id is public:
 * what an upload must carry is its signature (lib/uploadauth.h), made with
 * the target's key, which only the target's results disk and
 * targets/MAC/key hold: /results/MAC/BOOT/DIGEST/HMAC. targets/MAC/tokens keeps
 * every id handed out ("BOOT ID" lines): a boot's records may come with a
 * later boot's upload, signed for that later boot. A signed empty POST
 * says the boot started: with it (or its records) the target's next /boot
 * is its next boot; without, whoever asks gets the same boot again until
 * --boot-seconds passed, so a stranger's GET changes nothing. */

static long boot_seconds = 1800;	/* --boot-seconds: a boot handed out with no word from it is handed out again */

/* The target's upload key (targets/MAC/key): 0, or -1 (none, or not a key). */
static int target_key(const char *mac, unsigned char key[UPLOAD_KEY_LEN])
{
	char *p = tpath(mac, "key"), err[300];
	int r = upload_key_load(p, key, err, sizeof err);
	free(p);
	return r > 0 ? 0 : -1;
}

static void new_token(char out[UPLOAD_TOKEN_LEN + 1])
{
	unsigned char b[UPLOAD_TOKEN_LEN / 2];
	random_bytes(b, sizeof b);
	hexify(b, sizeof b, out);
}

/* The boot a boot id was handed out with, or 0. Ids are public: the
 * signature is the secret, so a plain comparison does. */
static long token_boot(const char *mac, const char *token)
{
	char *s = tread(mac, "tokens"), *line, *save = NULL;
	long boot = 0;
	for (line = s ? strtok_r(s, "\n", &save) : NULL; line && !boot; line = strtok_r(NULL, "\n", &save)) {
		char t[40];
		long b;
		if (sscanf(line, "%ld %39s", &b, t) == 2 && !strcmp(t, token))
			boot = b;
	}
	free(s);
	return boot;
}

static int token_add(const char *mac, long boot, const char *token)
{
	char *p = tpath(mac, "tokens");
	FILE *f = fopen_append(p);
	int ok = f && fprintf(f, "%ld %s\n", boot, token) > 0 && fflush(f) == 0 && fsync(fileno(f)) == 0;
	if (f)
		fclose(f);
	if (!ok)
		warn_sys("unable to write %s", p);
	free(p);
	return ok ? 0 : -1;
}

/* The iPXE script of boot st->served (kernel k), with its boot id and the
 * target's layers (checked by target_layers before). */
static void boot_text(struct sbuf *s, const char *mac, const char *self, const struct state *st, size_t n,
		      const char *k)
{
	char *args = tread(mac, "args"), why[200];
	struct sbuf lw = { 0 }, ll = { 0 };
	if (args)
		args[strcspn(args, "\n")] = 0;
	target_layers(mac, self, &lw, &ll, why, sizeof why);
	sb_printf(s, "#!ipxe\n"
		     "echo bootbench: %s boot %ld of %zu: kernel %s\n"
		     /* ours first: a target's args may still override it */
		     "kernel http://%s/kernels/%s/vmlinuz " KERNEL_SAFE_ARGS " %s bootbench.reboot=1 "
		     "bootbench.ip=${netX/ip} bootbench.netmask=${netX/netmask} bootbench.mac=${netX/mac} "
		     "bootbench.upload=http://%s/results/%s/%s initrd=userland.cpio.gz initrd=userland-id.cpio.gz%s "
		     "initrd=modules.cpio.gz\n"
		     "initrd --name userland.cpio.gz http://%s/userland.cpio.gz\n"
		     "initrd --name userland-id.cpio.gz http://%s/userland-id.cpio.gz\n"
		     "%s"
		     "initrd --name modules.cpio.gz http://%s/kernels/%s/modules.cpio.gz\n"
		     "boot\n",
		 mac, st->served, n, k, self, k, args ? args : "", self, mac, st->token, lw.s ? lw.s : "", self, self,
		 ll.s ? ll.s : "", self, k);
	sb_free(&lw);
	sb_free(&ll);
	free(args);
}

/* Confirmation rounds (targets/MAC/confirm): the schedule of n boots is
 * done; bootbench compare decides whether another round is wanted. It runs
 * in a child (its own memory and time limits) while the server goes on
 * answering: the target is told to ask again in a few seconds until the
 * answer is in (targets/MAC/confirm.out), then a round is appended or the
 * schedule ends. A decision is kept per schedule length: asking again
 * does not run compare again. */
#define MAX_CONFIRMING 64	/* targets with a decision kept */
#define CONFIRM_RUNNING 2	/* compares at once: CPU and memory are the server machine's */
static long confirm_seconds = 120;	/* --confirm-seconds */
static unsigned long long confirm_memory = 2ull << 30;	/* --confirm-memory: compare's address space */
static struct confirming {
	char mac[18];
	pid_t pid;		/* compare running, else 0 */
	int done;		/* it ended: status holds how; read by the target's next ask */
	int status;
	int timed_out;		/* killed by the server past its time (it ignored, or could not take, SIGALRM) */
	time_t started;
	size_t n;		/* the schedule length it answered (or answers) for */
} confirming[MAX_CONFIRMING];

static void child_close_others(int keep);

/* SIGKILL pid, and reap it if it dies within 100 ms: the server never
 * waits on a child stuck in the kernel (a hung NFS root, a dying disk),
 * which a later reap collects instead. waitpid's answer (0: not yet). */
static pid_t kill_reap(pid_t pid, int *status)
{
	pid_t r = 0;
	kill(pid, SIGKILL);
	for (int i = 0; i < 100 && (r = waitpid(pid, status, WNOHANG)) == 0; i++)
		usleep(1000);
	return r;
}

/* The server loop's part: a compare that ended is reaped at once (no
 * zombie waits for its target to ask again), one past its time is killed. */
static void confirm_reap(void)
{
	for (size_t i = 0; i < MAX_CONFIRMING; i++) {
		struct confirming *j = &confirming[i];
		int st;
		pid_t r;
		if (!j->pid)
			continue;
		r = waitpid(j->pid, &st, WNOHANG);
		if (r == 0 && time(NULL) - j->started > confirm_seconds + 5) {
			/* the alarm did not end it (stopped, or blocked in the kernel) */
			r = kill_reap(j->pid, &st);
			j->timed_out = 1;
		}
		if (r == 0)
			continue;
		j->status = r > 0 ? st : 0x7f00;	/* lost (ECHILD): "exit 127" */
		j->done = 1;
		j->pid = 0;
	}
}

/* This target's slot, else a free one (empty, or the oldest answered and
 * read), else NULL. */
static struct confirming *confirm_job(const char *mac)
{
	struct confirming *free_slot = NULL;
	for (size_t i = 0; i < MAX_CONFIRMING; i++) {
		struct confirming *j = &confirming[i];
		if (!strcmp(j->mac, mac))
			return j;
		if (!j->pid && (!j->done || time(NULL) - j->started > 3600) &&
		    (!free_slot || j->started < free_slot->started))	/* an answer unread for an hour: its target left */
			free_slot = j;
	}
	if (free_slot)
		memset(free_slot, 0, sizeof *free_slot);
	return free_slot;
}

static size_t confirm_running(void)
{
	size_t n = 0;
	for (size_t i = 0; i < MAX_CONFIRMING; i++)
		n += confirming[i].pid != 0;
	return n;
}

/* Whether compare was asked already for this target's schedule of n:
 * its re-asks while it decides say nothing new. */
static int confirm_asked(const char *mac, size_t n)
{
	for (size_t i = 0; i < MAX_CONFIRMING; i++)
		if (!strcmp(confirming[i].mac, mac))
			return confirming[i].n == n;
	return 0;
}

static int confirm_start(struct confirming *j, const char *mac, char *const argv[], size_t n)
{
	char *p = tpath(mac, "confirm.out");
	int out = open(p, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	pid_t pid;
	free(p);
	if (out < 0)
		return -1;
	pid = fork();
	if (pid == 0) {
		struct rlimit as = { confirm_memory, confirm_memory };
		child_close_others(-1);
		setrlimit(RLIMIT_AS, &as);
		alarm((unsigned)confirm_seconds);	/* survives exec: compare dies with SIGALRM past it */
		dup2(out, 1);
		dup2(out, 2);
		execv(argv[0], argv);
		_exit(127);
	}
	close(out);
	if (pid < 0)
		return -1;
	snprintf(j->mac, sizeof j->mac, "%s", mac);
	j->pid = pid;
	j->done = 0;
	j->timed_out = 0;
	j->started = time(NULL);
	j->n = n;
	return 0;
}

/* 1 a round was appended, 0 no more rounds (decided, the budget spent, no
 * confirm file, or compare failed: logged), 2 compare is still deciding. */
static int confirm_round(const char *mac, char *const names[], size_t n)
{
	char *conf = tread(mac, "confirm"), *line, *save = NULL, *argv[48], rounds[16] = "";
	char *records = NULL, why[300];
	size_t k = 0, nargs = 0, done;
	struct sbuf out = { 0 }, add = { 0 };
	struct confirming *j;
	int appended = 0, status = 0;

	if (!conf)
		return 0;
	/* a round: each kernel of the schedule once (its first kernels until
	 * one repeats) */
	while (k < n) {
		size_t i = 0;
		while (i < k && strcmp(names[i], names[k]))
			i++;
		if (i < k)
			break;
		k++;
	}
	done = k ? n / k : 0;
	argv[nargs++] = "/proc/self/exe";
	argv[nargs++] = "compare";
	argv[nargs++] = records = tpath(mac, "records.jsonl");
	argv[nargs++] = "--rounds";
	argv[nargs++] = rounds;
	argv[nargs++] = "--undecided";
	for (line = strtok_r(conf, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		line += strspn(line, " \t");
		if (!*line || *line == '#')
			continue;
		if (!strncmp(line, "rounds ", 7) && strspn(line + 7, "0123456789") == strlen(line + 7) &&
		    strlen(line + 7) < 5 && line[7])
			snprintf(rounds, sizeof rounds, "%s", line + 7);
		else if (!strncmp(line, "care ", 5) && line[5] && nargs + 3 < sizeof argv / sizeof *argv) {
			argv[nargs++] = "--care";
			argv[nargs++] = line + 5;
		} else {
			tlog(mac, "confirm: ignoring the line \"%.80s\" (rounds M, or care WORKLOAD[@LAYOUT])", line);
		}
	}
	argv[nargs] = NULL;
	if (!rounds[0] || k < 2 || n % k) {
		tlog(mac, "confirm: no confirmation rounds (%s)",
		     !rounds[0] ? "no \"rounds M\" line" : k < 2 ? "one kernel" : "the schedule is not whole rounds");
		goto out;
	}
	if (done >= strtoul(rounds, NULL, 10)) {
		tlog(mac, "confirm: %zu rounds booted, the budget of %s: no more", done, rounds);
		goto out;
	}
	if (n + k > MAX_SCHEDULE) {
		tlog(mac, "confirm: the schedule holds %d boots at most: no more rounds", MAX_SCHEDULE);
		goto out;
	}
	confirm_reap();
	j = confirm_job(mac);
	if (j && j->mac[0] && j->n == n && (j->pid || j->done))
		;	/* asked for this schedule: running, or its answer waits */
	else if (j && j->mac[0] && j->n == n)
		goto out;	/* answered for this schedule: no more rounds (it would have grown) */
	else if (!j || confirm_running() >= CONFIRM_RUNNING) {
		/* others are deciding: ask again (said once a minute at most) */
		static time_t said;
		if (time(NULL) - said >= 60) {
			tlog(mac, "confirm: %zu compares running, %s: this target waits its turn", confirm_running(),
			     j ? "the most at once" : "and no slot free");
			said = time(NULL);
		}
		appended = 2;
		goto out;
	} else {
		if (confirm_start(j, mac, argv, n) < 0) {
			tlog(mac, "confirm: unable to run bootbench compare: %s", strerror(errno));
			goto out;
		}
		tlog(mac, "confirm: bootbench compare is deciding whether round %zu is needed (pid %ld)", done + 1,
		     (long)j->pid);
		appended = 2;
		goto out;
	}
	if (j->pid) {
		appended = 2;
		goto out;
	}
	status = j->status;
	j->done = 0;	/* read: the slot keeps the answer's schedule length, and may be reused */
	{
		/* the decision line is compare's last output: read the tail */
		char *p = tpath(mac, "confirm.out");
		int fd = open(p, O_RDONLY | O_CLOEXEC);
		char buf[4096];
		off_t end = fd < 0 ? -1 : lseek(fd, 0, SEEK_END);
		ssize_t got = end < 0 ? -1 : pread(fd, buf, sizeof buf - 1, end > (off_t)sizeof buf - 1 ? end - (off_t)(sizeof buf - 1) : 0);
		if (got > 0)
			sb_add(&out, buf, (size_t)got);
		if (fd >= 0)
			close(fd);
		free(p);
	}
	tool_reason(&out, NULL, why, sizeof why);
	if (!WIFEXITED(status) || (WEXITSTATUS(status) != 0 && WEXITSTATUS(status) != 3)) {
		char st[64];
		if (j->timed_out || (WIFSIGNALED(status) && WTERMSIG(status) == SIGALRM))
			snprintf(st, sizeof st, "its %ld s (--confirm-seconds) passed", confirm_seconds);
		else
			status_text(status, st, sizeof st);
		tlog(mac, "confirm: bootbench compare failed (%s): %s; no more rounds", st, why);
		goto out;
	}
	if (WEXITSTATUS(status) == 0) {
		tlog(mac, "confirm: %s", why);
		goto out;
	}
	/* another round, the last one's kernels reversed: A B, B A, A B ... */
	sb_puts(&add, "# confirmation round\n");
	for (size_t i = 0; i < k; i++)
		sb_printf(&add, "%s\n", names[n - 1 - i]);
	{
		char *p = tpath(mac, "schedule");
		int fd = open(p, O_WRONLY | O_APPEND | O_CLOEXEC);
		if (fd < 0 || write_all(fd, add.s, add.len) < 0 || fsync(fd) < 0) {
			tlog(mac, "confirm: unable to append a round to %s: %s", p, strerror(errno));
		} else {
			appended = 1;
			tlog(mac, "confirm: %s: round %zu of at most %s appended", why, done + 1, rounds);
		}
		if (fd >= 0)
			close(fd);
		free(p);
	}
out:
	sb_free(&out);
	sb_free(&add);
	free(records);
	free(conf);
	return appended;
}

static void boot_script(int fd, in_addr_t peer, const char *mac, const char *self)
{
	char *names[MAX_SCHEDULE], *args, *finally;
	size_t n = schedule_read(mac, names, MAX_SCHEDULE);
	struct state st;
	struct sbuf s = {0};

	if (!n) {
		refused(peer, mac, RK_NO_SCHEDULE, "asked for a boot, but has no schedule (not a target of this server)");
		reply_text(fd, 404, "#!ipxe\necho bootbench: this machine is not a target of this boot server\nexit\n");
		return;
	}
	{
		/* a layer the root does not hold: refused, before anything advances */
		struct sbuf lw = { 0 }, ll = { 0 };
		char why[200];
		int bad = target_layers(mac, self, &lw, &ll, why, sizeof why);
		sb_free(&lw);
		sb_free(&ll);
		if (bad) {
			tlog(mac, "asked for a boot, refused: %s", why);
			sb_printf(&s, "#!ipxe\necho bootbench: %s\nexit\n", why);
			reply(fd, 500, "text/plain", s.s, s.len);
			goto out;
		}
	}
	{
		unsigned char key[UPLOAD_KEY_LEN];
		if (target_key(mac, key) < 0) {
			/* its uploads could not be checked: no boot at all */
			refused(peer, mac, RK_NO_KEY, "asked for a boot, refused: targets/MAC/key is missing or not a key "
					      "(bootbench mkresults --key FILE for its results disk, pxe-serve --key FILE)");
			sb_printf(&s, "#!ipxe\necho bootbench: the boot server holds no upload key for %s\nexit\n", mac);
			reply(fd, 403, "text/plain", s.s, s.len);
			goto out;
		}
	}
	state_read(mac, &st);
	/* The boot handed out is asked for again (a retried DHCP/PXE, a boot
	 * reset before its end, or a stranger's GET): it is the same boot,
	 * with the same id, and nothing changes, until the target sent its
	 * records (signed: only the target can), or --boot-seconds passed
	 * since it was handed out (it never said it started) or since it said
	 * it started (it hung, or its upload failed). The log says so once a
	 * minute per address. */
	if (st.served > 0 && st.served <= (long)n && st.token[0] && st.served > st.reported && st.served > st.ended) {
		long long now = (long long)time(NULL);
		int started = st.started >= st.served;
		long long since = now - (started ? st.started_at : st.served_at);
		if (since < boot_seconds) {
			char what[240];
			snprintf(what, sizeof what, "asked again for boot %ld (%s), %s: the same boot", st.served,
				 names[st.served - 1], started ? "which started and has not sent its records" :
								 "which has not said it started");
			refused(peer, mac, RK_SAME_BOOT, what);
			boot_text(&s, mac, self, &st, n, names[st.served - 1]);
			goto send;
		}
		if (!confirm_asked(mac, n))
			tlog(mac, "boot %ld (%s) sent no records (%s), and its %ld s are up: the next boot (its records, "
				  "if any, come with a later upload)", st.served, names[st.served - 1],
			     started ? "it started: it hung, or its upload failed" : "it never said it started", boot_seconds);
	} else if (st.served > st.reported && st.served > 0 && !confirm_asked(mac, n)) {
		tlog(mac, "boot %ld (%s) sent no records: its upload failed (its records come with a later upload)",
		     st.served, names[st.served - 1 < (long)n ? st.served - 1 : (long)n - 1]);
	}
	if (st.served >= (long)n) {
		int r = confirm_round(mac, names, n);
		if (r == 2) {
			/* still deciding: the target asks again, nothing advances */
			sb_printf(&s, "#!ipxe\necho bootbench: %s: the server is deciding whether another round is "
				      "needed\nsleep 5\nchain http://%s/boot/%s\n", mac, self, mac);
			goto send;
		}
		if (r == 1) {
			for (size_t i = 0; i < n; i++)
				free(names[i]);
			n = schedule_read(mac, names, MAX_SCHEDULE);
		}
	}
	if (st.served >= (long)n) {
		finally = tread(mac, "finally");
		int off = finally && !strncmp(finally, "poweroff", 8);
		char what[120];
		snprintf(what, sizeof what, "schedule done (%zu boots): %s", n, off ? "poweroff" : "exit to the BIOS");
		refused(peer, mac, RK_DONE, what);
		sb_printf(&s, "#!ipxe\necho bootbench: %s: schedule done (%zu boots)\n", mac, n);
		if (off) {
			/* iPXE builds without the poweroff command (QEMU's ROMs) boot
			 * the appliance once more with nothing to do: it powers off
			 * without writing anything. */
			char console[128] = "";
			const char *c;
			args = tread(mac, "args");
			if (args && (c = strstr(args, "console=")))
				snprintf(console, sizeof console, "%.*s", (int)strcspn(c, " \n"), c);
			sb_printf(&s, "poweroff || echo bootbench: this iPXE has no poweroff: booting the appliance to power off\n"
				      "kernel http://%s/kernels/%s/vmlinuz %s panic=-1 " KERNEL_SAFE_ARGS " bootbench.results=none " INITRD_ARGS "\n"
				      INITRD_LINES
				      "boot\n",
				  self, names[0], console, self, self, self, names[0]);
			free(args);
		} else {
			sb_puts(&s, "exit\n");
		}
		free(finally);
	} else {
		const char *k = names[st.served];
		st.served++;
		st.served_at = (long long)time(NULL);
		new_token(st.token);
		if (token_add(mac, st.served, st.token) < 0 || state_write(mac, &st) < 0) {
			reply_text(fd, 500, "#!ipxe\necho bootbench: the boot server cannot write its state\nexit\n");
			goto out;
		}
		tlog(mac, "boot %ld of %zu: kernel %s", st.served, n, k);
		boot_text(&s, mac, self, &st, n, k);
	}
send:
	reply(fd, 200, "text/plain", s.s, s.len);
out:
	sb_free(&s);
	for (size_t i = 0; i < n; i++)
		free(names[i]);
}

/* The secret of this server run in the keys of the record stores' maps
 * (lib/recstore.c): lines or ids chosen to collide in a map cannot make it
 * quadratic. Keys are never stored on disk, so they may change per run. */
static unsigned char boot_salt[16];

/* ---- the record stores -----------------------------------------------
 *
 * targets/MAC/records.jsonl, one lib/recstore per target, opened (indexed)
 * the first time this server run needs it. Each target has a byte quota
 * (an upload past it is refused whole, 413) and a quota of records per
 * boot (records past it are not stored, the rest of the upload is: 200,
 * with the count). */
/* Uploads stored this server run, per target, by boot id and digest
 * (the last STORE_SEEN): the same upload again (a sniffer's replay, or
 * the target's retry after a lost answer) is answered at its header, its
 * body never read. */
#define STORE_SEEN 64
#define SEEN_KEY (UPLOAD_TOKEN_LEN + UPLOAD_SIG_HEX + 1)

struct store {
	char mac[18];
	struct recstore rs;
	char seen[STORE_SEEN][SEEN_KEY];
	unsigned seen_next;
};

static struct store *stores;
static size_t nstores;
static struct recstore_limits limits = {
	.quota = 1ull << 30,	/* --quota: bytes of records.jsonl per target */
	/* --max-records: records one boot may store. A plan has at most
	 * PLAN_MAX_RUNS runs; a boot's records are those plus a few of its own. */
	.per_boot = 1000000,
};

static void count_line(void *ctx, char *line, size_t len, unsigned long lineno)
{
	(*(size_t *)ctx)++;
}

/* The target's store if this server run opened it already, else NULL
 * (never opens one: store_of does). */
static struct store *store_open_already(const char *mac)
{
	for (size_t i = 0; i < nstores; i++)
		if (!strcmp(stores[i].mac, mac))
			return &stores[i];
	return NULL;
}

static struct store *store_of(const char *mac)
{
	struct store *st = store_open_already(mac);
	char *p;
	if (st)
		return st;
	stores = xrealloc(stores, (nstores + 1) * sizeof *stores);
	st = &stores[nstores];
	memset(st, 0, sizeof *st);
	snprintf(st->mac, sizeof st->mac, "%s", mac);
	p = tpath(mac, "records.jsonl");
	if (recstore_open(&st->rs, p, boot_salt) < 0) {
		tlog(mac, "unable to store records: unable to read %s: %s", p,
		     errno == EINVAL ? "not a regular file" : strerror(errno));
		free(p);
		return NULL;
	}
	free(p);
	if (st->rs.toolong)
		/* stored before the per-line cap, or written there by hand: kept
		 * as they are, said once per server run */
		tlog(mac, "records.jsonl has %llu line%s longer than %d bytes, more than any record: kept, "
		     "not indexed (an upload of the same record would be stored again)", st->rs.toolong,
		     st->rs.toolong == 1 ? "" : "s", RECORD_LINE_MAX);
	nstores++;
	return st;
}

struct damaged_log {
	const char *mac;
	size_t n;
};

/* the first LOG_DAMAGED damaged lines of an upload are logged, one by one */
static void log_damaged(void *ctx, size_t lineno, const char *why)
{
	struct damaged_log *d = ctx;
	if (++d->n <= LOG_DAMAGED)
		tlog(d->mac, "upload line %zu: %s: skipped", lineno, why);
}

/* An upload of boot `boot` of target mac, its signature already checked
 * (upload_allowed, when its header came in). */
static void seen_key(char key[SEEN_KEY], const char *boot_id, const char *digest)
{
	snprintf(key, SEEN_KEY, "%.*s%.*s", (int)UPLOAD_TOKEN_LEN, boot_id, (int)UPLOAD_SIG_HEX, digest);
}

/* This upload (boot id, digest) was stored this server run. */
static int upload_seen(const char *mac, const char *boot_id, const char *digest)
{
	struct store *st = store_open_already(mac);
	char key[SEEN_KEY];
	seen_key(key, boot_id, digest);
	for (size_t k = 0; st && k < STORE_SEEN; k++)
		if (!strcmp(st->seen[k], key))
			return 1;
	return 0;
}

static void receive(int fd, in_addr_t peer, const char *mac, long boot, const char *boot_id, const char *digest,
		    const char *body, size_t len)
{
	struct store *store;
	struct recstore_upload u;
	struct damaged_log dl = { mac, 0 };
	struct sbuf msg = {0};
	struct state st;

	if (!(store = store_of(mac))) {
		reply_text(fd, 500, "unable to store the records\n");
		return;
	}
	enum recstore_status rst = recstore_append(&store->rs, &limits, body, len, &u, log_damaged, &dl);
	/* what the upload held, whether or not it was stored */
	if (u.over)
		tlog(mac, "upload: %zu records over the quota not stored (the first of boot %s; at most %llu records a boot, "
		     "--max-records); they stay on the target's results partition", u.over,
		     u.over_id[0] ? u.over_id : "(none)", limits.per_boot);
	if (u.bad > LOG_DAMAGED)
		tlog(mac, "upload: %zu more damaged lines skipped", u.bad - LOG_DAMAGED);
	switch (rst) {
	case RECSTORE_STORED:
		break;
	case RECSTORE_QUOTA:
		tlog(mac, "upload of %zu records (%zu bytes) refused: %s holds %llu bytes, the quota is %llu", u.fresh,
		     u.add_bytes, store->rs.path, u.file_bytes, limits.quota);
		reply_text(fd, 413, UPLOAD_QUOTA_REFUSAL " this target's records are at the server's limit\n");
		return;
	case RECSTORE_FAILED:
		tlog(mac, "unable to store %zu records in %s: %s", u.fresh, store->rs.path, strerror(errno));
		reply_text(fd, 500, "unable to store the records\n");
		return;
	}
	if (u.uncounted)
		tlog(mac, "upload: %zu records of boots past the %llu this target counts: stored, not counted per boot",
		     u.uncounted, store->rs.max_boot_ids);
	if (len) {
		seen_key(store->seen[store->seen_next], boot_id, digest);
		store->seen_next = (store->seen_next + 1) % STORE_SEEN;
	}
	state_read(mac, &st);
	/* an empty or all-damaged upload does not count as a report; one whose
	 * records are all over the quota does */
	if ((u.fresh || u.dup || u.over) && boot > st.reported) {
		st.reported = boot;
		state_write(mac, &st);
	}
	sb_printf(&msg, "stored %zu new records, %zu already here, %zu damaged", u.fresh, u.dup, u.bad);
	if (u.over)
		sb_printf(&msg, ", %zu" UPLOAD_NOT_STORED, u.over);
	sb_putc(&msg, '\n');
	if (u.fresh || u.bad || u.over) {
		tlog(mac, "boot %ld sent records: %zu new, %zu already here, %zu damaged, %zu over the quota", boot,
		     u.fresh, u.dup, u.bad, u.over);
	} else {
		char what[120];	/* a replay can come a thousand times a second */
		snprintf(what, sizeof what, "boot %ld sent records: 0 new, %zu already here", boot, u.dup);
		refused(peer, mac, RK_NOTHING_NEW, what);
	}
	reply_text(fd, u.bad && !u.fresh && !u.dup && !u.over ? 400 : 200, msg.s);
	sb_free(&msg);
}

static void status_report(struct sbuf *out)
{
	struct sbuf dir = {0};
	DIR *d;
	struct dirent *e;
	sb_printf(&dir, "%s/targets", root);
	d = opendir(dir.s);
	if (!d) {
		sb_printf(out, "no targets in %s\n", dir.s);
		sb_free(&dir);
		return;
	}
	while ((e = readdir(d))) {
		char *names[MAX_SCHEDULE], *recs, counted[64];
		size_t n, nrec = 0;
		int known = 1;
		struct state st;
		if (!valid_mac(e->d_name))
			continue;
		n = schedule_read(e->d_name, names, MAX_SCHEDULE);
		state_read(e->d_name, &st);
		/* the server's store knows the count; pxe status streams the file */
		recs = NULL;
		if (server_pid) {
			/* a store not opened yet this run is not opened here: indexing
			 * a large one would hold every target's answer for seconds */
			struct store *sto = store_open_already(e->d_name);
			nrec = sto ? (size_t)sto->rs.lines : 0;
			known = sto != NULL;
		} else {
			int rfd;
			recs = tpath(e->d_name, "records.jsonl");
			/* a regular file only: a FIFO does not hang pxe status */
			if ((rfd = open_regular(recs, O_RDONLY, 0)) < 0 && errno != ENOENT)
				warning("%s: its records are not counted: %s", recs,
					errno == EINVAL ? "not a regular file" : strerror(errno));
			if (rfd >= 0) {
				if (lines_read(rfd, RECORD_LINE_MAX, count_line, &nrec) < 0)
					warning("%s: read error after %zu records: %s", recs, nrec, strerror(errno));
				close(rfd);
			}
		}
		if (known)
			snprintf(counted, sizeof counted, "%zu records received", nrec);
		else
			snprintf(counted, sizeof counted, "records not counted yet this run");
		sb_printf(out, "%s: %ld of %zu boots served, %s, last boot %s%s\n", e->d_name,
			  st.served > (long)n ? (long)n : st.served, n, counted,
			  st.reported >= st.served ? "reported" : "has not reported",
			  st.served >= (long)n ? ", schedule done" : "");
		for (size_t i = 0; i < n; i++)
			free(names[i]);
		free(recs);
	}
	closedir(d);
	sb_free(&dir);
}

/* ---- connections -------------------------------------------------------
 *
 * One process, many connections: poll() gathers each request (header, then
 * body) with its own deadline, and only a complete request is answered, so
 * an idle or slow client holds nothing but its slot. Answers are small and
 * local (a script, a status line, an upload's verdict) and need no locking
 * of the per-target state; files go out from a child process, at most
 * MAX_CHILDREN at once, each closing every descriptor but its own client.
 */

#define MAX_CONNS 256
#define MAX_CONNS_PER_ADDR 16	/* one address cannot hold the slots the others need */
#define MAX_CHILDREN 32
#define HEADER_SECONDS 10	/* to send a request's header */
#define BODY_RATE (64u << 10)	/* bytes a second an upload must keep up, after the header */

struct conn {
	int fd;
	char hdr[MAX_HEADER + 1];
	size_t got;		/* header bytes */
	char *end;		/* the header's blank line, once seen */
	struct http_head head;	/* parsed, once end is set */
	long boot;		/* an upload: the boot its id names */
	char mac[18], boot_id[UPLOAD_TOKEN_LEN + 1];	/* an upload: /results/MAC/BOOT/DIGEST/SIG */
	char digest[UPLOAD_SIG_HEX + 1], sig[UPLOAD_SIG_HEX + 1];
	char *body;
	size_t clen, have, cap;
	time_t deadline;	/* the whole request */
	time_t idle;		/* the next byte */
	in_addr_t peer;		/* the client's address (downloads per client are capped) */
	int answered_early;	/* a signed upload's head, or a known boot's, answered before its body was read */
	int draining;		/* refused at its header: what it still sends is read and dropped */
};

static struct conn conns[MAX_CONNS];
static int lfd = -1;
static unsigned children;
static size_t buffered;	/* body bytes held by all connections */
#define MAX_BUFFERED (128u << 20)
#define MAX_BUFFERED_PER_ADDR (40u << 20)	/* one address: one whole upload and some */

/* Body bytes the connections of one address hold. */
static size_t buffered_by(in_addr_t peer)
{
	size_t n = 0;
	for (size_t i = 0; i < MAX_CONNS; i++)
		if (conns[i].fd >= 0 && conns[i].peer == peer)
			n += conns[i].cap;
	return n;
}

static void conn_close(struct conn *c)
{
	close(c->fd);
	buffered -= c->cap;
	free(c->body);
	memset(c, 0, sizeof *c);
	c->fd = -1;
}

/* The file senders: at most MAX_CHILDREN, MAX_PER_CLIENT of one address. */
#define MAX_PER_CLIENT 4
static struct {
	pid_t pid;
	in_addr_t peer;
	unsigned long long started;	/* the order senders were started in */
} senders[MAX_CHILDREN];
static unsigned long long senders_started;

static void reap(void)
{
	/* the senders by pid: a confirmation's compare is waited for by its own code */
	for (size_t i = 0; i < MAX_CHILDREN; i++)
		if (senders[i].pid && waitpid(senders[i].pid, NULL, WNOHANG) != 0) {
			senders[i].pid = 0;
			if (children)
				children--;
		}
}

/* All senders busy: the address holding the most of them gives up its
 * newest to peer, if peer holds at least two fewer (so no one address can
 * keep the others out by holding every sender, and two addresses never
 * take one back and forth). 1 a sender was freed, 0 not. */
static int sender_evict(in_addr_t peer)
{
	unsigned count[MAX_CHILDREN] = { 0 }, mine = 0, most = 0;
	size_t victim = MAX_CHILDREN;
	for (size_t i = 0; i < MAX_CHILDREN; i++) {
		if (!senders[i].pid)
			continue;
		mine += senders[i].peer == peer;
		for (size_t j = 0; j <= i; j++)
			if (senders[j].pid && senders[j].peer == senders[i].peer) {
				count[j]++;	/* counted at the address's first sender */
				break;
			}
	}
	for (size_t i = 0; i < MAX_CHILDREN; i++)
		if (count[i] > most) {
			most = count[i];
			victim = i;
		}
	if (victim == MAX_CHILDREN || mine + 2 > most)
		return 0;
	/* its newest: the one that has sent least */
	for (size_t i = 0; i < MAX_CHILDREN; i++)
		if (senders[i].pid && senders[i].peer == senders[victim].peer && senders[i].started > senders[victim].started)
			victim = i;
	if (kill_reap(senders[victim].pid, NULL) == 0)
		return 0;	/* not dead yet: reap() frees its slot later */
	senders[victim].pid = 0;
	if (children)
		children--;
	return 1;
}

/* In a file sender: nothing of the server but this client stays open. */
static void child_close_others(int keep)
{
	close(lfd);
	for (size_t i = 0; i < MAX_CONNS; i++)
		if (conns[i].fd >= 0 && conns[i].fd != keep)
			close(conns[i].fd);
}

/* The normalised MAC of "/boot/MAC" or "/results/MAC[/...]" (an upload's
 * path: upload_path_parse, which the upload's header was checked with). 0
 * ok, -1 a malformed MAC. */
static int route_mac(const char *target, int isboot, char mac[18])
{
	char b[UPLOAD_TOKEN_LEN + 1], d[UPLOAD_SIG_HEX + 1], sig[UPLOAD_SIG_HEX + 1];
	if (!isboot)
		return upload_path_parse(target, mac, b, d, sig) == UPLOAD_PATH_BAD_MAC ? -1 : 0;
	return strlen(target + 6) == 17 && mac_normal(target + 6, mac) ? 0 : -1;
}

static void signed_upload(struct conn *c, const char *mac);

/* A complete request: answer it. */
static void respond(struct conn *c)
{
	const char *method = c->head.method, *target = c->head.target;
	char self[64];
	struct sockaddr_in me;
	socklen_t ml = sizeof me;
	struct timeval tv = { .tv_sec = 30 };
	int fd = c->fd;
	in_addr_t local = htonl(INADDR_LOOPBACK);	/* the address the client reached (GET /status) */

	/* answers are sent blocking, each send bounded by SO_SNDTIMEO */
	fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK);
	setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
	/* the address the client reached us at, for the URLs in the script */
	if (getsockname(fd, (struct sockaddr *)&me, &ml) == 0) {
		char a[INET_ADDRSTRLEN];
		inet_ntop(AF_INET, &me.sin_addr, a, sizeof a);
		snprintf(self, sizeof self, "%s:%u", a, (unsigned)ntohs(me.sin_port));
		local = me.sin_addr.s_addr;
	} else {
		snprintf(self, sizeof self, "127.0.0.1");
	}
	if (!strncmp(target, "/boot/", 6) || !strncmp(target, "/results/", 9)) {
		int isboot = target[1] == 'b';
		char mac[18];
		if (route_mac(target, isboot, mac) < 0) {
			reply_text(fd, 400, "bad MAC address in the path\n");
		} else if (isboot && strcmp(method, "GET")) {
			reply_text(fd, 405, "GET only\n");
		} else if (!isboot && strcmp(method, "POST")) {
			reply_text(fd, 405, "POST only\n");
		} else if (isboot) {
			boot_script(fd, c->peer, mac, self);
		} else {
			signed_upload(c, mac);
		}
	} else if (!strcmp(target, "/status")) {
		struct sbuf s = {0};
		if ((ntohl(c->peer) >> 24) != 127 && c->peer != local) {
			/* it names every target: for the lab's admin (pxe status ROOT), not the segment */
			reply_text(fd, 403, "/status answers the server's own host only (or run bootbench pxe status ROOT)\n");
			return;
		}
		status_report(&s);
		reply(fd, 200, "text/plain", s.s ? s.s : "", s.len);
		sb_free(&s);
	} else if (!strcmp(method, "GET") && !servable(target + 1)) {
		reply_text(fd, 404, "not found\n");	/* no fork, no sender slot for what is never served */
	} else if (!strcmp(method, "GET")) {
		/* a kernel is 10-15 MB: a slow target must not hold the others */
		pid_t pid;
		unsigned mine = 0;
		reap();
		for (size_t i = 0; i < MAX_CHILDREN; i++)
			mine += senders[i].pid && senders[i].peer == c->peer;
		if (mine >= MAX_PER_CLIENT || (children >= MAX_CHILDREN && !sender_evict(c->peer))) {
			reply_text(fd, 503, "busy: too many downloads at once, try again\n");
			return;
		}
		pid = fork();
		if (pid == 0) {
			child_close_others(fd);
			serve_file(fd, target + 1);
			_exit(0);
		}
		if (pid > 0) {
			for (size_t i = 0; i < MAX_CHILDREN; i++)
				if (!senders[i].pid) {
					senders[i].pid = pid;
					senders[i].peer = c->peer;
					senders[i].started = ++senders_started;
					break;
				}
			children++;
		} else
			serve_file(fd, target + 1);
	} else {
		reply_text(fd, 405, "not allowed\n");
	}
}

/* A whole upload, its head's signature checked (upload_allowed): stored
 * if the body is the one signed for; empty, it says the boot started. */
static void signed_upload(struct conn *c, const char *mac)
{
	const char *body = c->body ? c->body : "";
	struct state st;
	if (!upload_body_ok(body, c->clen, c->digest)) {
		/* only a key holder signs a head: this is a captured one sent
		 * with another body */
		refused(c->peer, mac, RK_BAD_DIGEST, "an upload whose body is not the one its signed head names "
			"(its SHA-256; a captured head sent with another body): refused, nothing stored");
		reply_text(c->fd, 403, "bad digest: the body is not the one signed for\n");
		return;
	}
	/* the target's word moves its schedule: an empty POST says the boot
	 * started, records say it reached its end (stored or not) */
	state_read(mac, &st);
	/* the first word counts: a captured "started" sent again does not
	 * hold the boot longer; a boot past the one handed out (an id of an
	 * earlier schedule, state lost) says nothing of this one */
	if (c->boot <= st.served && (!c->clen ? c->boot > st.started : c->boot > st.ended)) {
		if (!c->clen) {
			st.started = c->boot;
			st.started_at = (long long)time(NULL);
		} else {
			st.ended = c->boot;
		}
		if (state_write(mac, &st) < 0) {
			reply_text(c->fd, 500, "the boot server cannot write its state\n");
			return;
		}
		if (!c->clen)
			tlog(mac, "boot %ld said it started", c->boot);
	}
	if (!c->clen)
		reply_text(c->fd, 200, "started\n");
	else
		receive(c->fd, c->peer, mac, c->boot, c->boot_id, c->digest, body, c->clen);
}

/* An upload is checked when its header is in, before a byte of its body is
 * kept: one without a boot id this server gave the target and the target's
 * signature over its head (boot id, length, the body's digest) costs no
 * memory and holds its slot no longer than its header took. Boot ids are
 * public, signatures are not: only the target (or a sniffer sending its
 * captured upload again) gets its body read, within the per-address limits
 * (MAX_BUFFERED_PER_ADDR). 0 go on, -1 answered. */
static int upload_allowed(struct conn *c, const char *target)
{
	char mac[18], *sched[MAX_SCHEDULE];
	unsigned char key[UPLOAD_KEY_LEN];
	size_t n;
	int parsed = upload_path_parse(target, mac, c->boot_id, c->digest, c->sig);
	if (parsed == UPLOAD_PATH_BAD_MAC) {
		reply_text(c->fd, 400, "bad MAC address in the path\n");
		return -1;
	}
	snprintf(c->mac, sizeof c->mac, "%s", mac);
	n = schedule_read(mac, sched, MAX_SCHEDULE);
	for (size_t i = 0; i < n; i++)
		free(sched[i]);
	if (!n) {
		refused(c->peer, mac, RK_NOT_TARGET, "sent records, but is not a target of this server: refused");
		reply_text(c->fd, 404, "not a target of this server\n");
		return -1;
	}
	if (parsed == UPLOAD_PATH_UNSIGNED) {
		refused(c->peer, mac, RK_UNSIGNED, "an upload without a boot id and signature (/results/MAC/BOOT/DIGEST/HMAC): refused");
		reply_text(c->fd, 403, "unsigned: upload to /results/MAC/BOOT/DIGEST/HMAC (the boot's URL, the "
				       "body's SHA-256 and the signature of both with the target's key)\n");
		return -1;
	}
	if (target_key(mac, key) < 0) {
		refused(c->peer, mac, RK_NO_KEY, "an upload, but targets/MAC/key is missing or not a key: refused");
		reply_text(c->fd, 403, "the boot server holds no upload key for this target\n");
		return -1;
	}
	if (!(c->boot = token_boot(mac, c->boot_id))) {
		refused(c->peer, mac, RK_UNKNOWN_BOOT, "an upload for a boot id this server never gave the target: refused");
		reply_text(c->fd, 403, "unknown boot: upload to the URL of the boot's command line\n");
		return -1;
	}
	if (!upload_head_ok(key, mac, c->boot_id, c->clen, c->digest, c->sig)) {
		/* a stranger's forgery, or the target's disk holds another key
		 * than targets/MAC/key: the log says how to tell */
		char what[300];
		snprintf(what, sizeof what, "an upload for boot %ld whose signature is not targets/MAC/key's: refused "
			 "at its header, nothing stored (if it is the target: its results disk holds another key; "
			 "bootbench mkresults --set-key with this key file on it)", c->boot);
		refused(c->peer, mac, RK_BAD_SIGNATURE, what);
		reply_text(c->fd, 403, UPLOAD_BAD_SIGNATURE " not signed with this target's upload key\n");
		c->answered_early = 1;
		return -1;
	}
	if (c->clen && upload_seen(mac, c->boot_id, c->digest)) {
		/* stored already: the body is the one stored */
		char what[120];
		snprintf(what, sizeof what, "boot %ld sent an upload stored already (a retry, or a replay): answered at "
			 "its header", c->boot);
		refused(c->peer, mac, RK_NOTHING_NEW, what);
		reply_text(c->fd, 200, "stored 0 new records: this upload is here already\n");
		c->answered_early = 1;
		return -1;
	}
	for (size_t i = 0; c->clen && i < MAX_CONNS; i++) {
		const struct conn *o = &conns[i];
		if (o != c && o->fd >= 0 && o->clen && !o->draining && o->body && !strcmp(o->mac, mac) &&
		    !strcmp(o->boot_id, c->boot_id) && !strcmp(o->digest, c->digest)) {
			/* one copy of an upload in flight: a sniffer's replays hold no more than the target's own */
			reply_text(c->fd, 503, "busy: the same upload is arriving already, try again\n");
			return -1;
		}
	}
	return 0;
}

#define DRAIN_SECONDS 2	/* a draining client may pause this long */
#define DRAIN_MAX 60		/* and drain this long in all */

/* conn_read's answer for an upload answered at its header (refused at its
 * signature, or stored already) whose body is still coming: closing now
 * would reset the connection, and the client (httpc sends the whole body
 * before it reads) would lose the answer with it: the appliance says a
 * key is not the server's. So its body is read and dropped, holding no
 * memory, for as long as it keeps coming at BODY_RATE, at most DRAIN_MAX
 * s, one such connection an address (a stranger's others, and every
 * refusal before the signature, are closed at once). 0 keep the
 * connection (draining), -1 close it. */
static int conn_drain(struct conn *c)
{
	size_t left;
	time_t now = time(NULL), span;
	if (!c->answered_early || c->got - c->head.head_len >= c->clen)
		return -1;	/* nothing more is coming, or no answer a target needs */
	for (size_t i = 0; i < MAX_CONNS; i++)
		if (conns[i].fd >= 0 && conns[i].draining && conns[i].peer == c->peer)
			return -1;
	shutdown(c->fd, SHUT_WR);
	c->draining = 1;
	left = c->clen - (c->got - c->head.head_len);
	span = DRAIN_SECONDS + (time_t)(left / BODY_RATE);
	c->deadline = now + (span < DRAIN_MAX ? span : DRAIN_MAX);
	c->idle = now + DRAIN_SECONDS;
	return 0;
}

/* Read what the client sent; returns 1 when the request is complete, 0 to
 * wait for more, -1 to drop the connection (answered or gone). */
static int conn_read(struct conn *c)
{
	ssize_t n;
	if (c->draining) {
		char junk[16384];
		n = recv(c->fd, junk, sizeof junk, 0);
		if (n > 0)
			c->idle = time(NULL) + DRAIN_SECONDS;
		return n > 0 || (n < 0 && (errno == EAGAIN || errno == EINTR)) ? 0 : -1;
	}
	if (!c->end) {
		int r;
		n = recv(c->fd, c->hdr + c->got, MAX_HEADER - c->got, 0);
		if (n <= 0)
			return n < 0 && (errno == EAGAIN || errno == EINTR) ? 0 : -1;
		c->got += (size_t)n;
		c->hdr[c->got] = 0;
		r = http_head_parse(c->hdr, c->got, &c->head);
		if (r < 0 || (r == 0 && c->got >= MAX_HEADER)) {
			reply_text(c->fd, 400, r < 0 ? "bad request\n" : "bad request (header too large)\n");
			return -1;
		}
		if (r == 0)
			return 0;
		c->end = c->hdr + c->head.head_len - 4;
		if (strcmp(c->head.method, "POST") || strncmp(c->head.target, "/results/", 9))
			return 1;	/* no body to read: respond() answers (or refuses) it */
		{
			size_t extra = c->got - c->head.head_len;
			if (!c->head.has_length || c->head.length > MAX_BODY) {
				reply_text(c->fd, c->head.has_length ? 413 : 400,
					   c->head.has_length ? "body too large\n" : "Content-Length required\n");
				return -1;
			}
			c->clen = (size_t)c->head.length;
			if (upload_allowed(c, c->head.target) < 0)
				return conn_drain(c);
			if (buffered + (c->clen < (64u << 10) ? c->clen : (64u << 10)) > MAX_BUFFERED) {
				reply_text(c->fd, 503, "busy: too many uploads at once, try again\n");
				return -1;
			}
			/* what came with the header (at most MAX_HEADER bytes) fits
			 * the first 64 KiB */
			c->cap = c->clen < (64u << 10) ? c->clen : (64u << 10);
			c->body = xmalloc(c->cap + 1);
			buffered += c->cap;
			c->have = extra < c->clen ? extra : c->clen;
			memcpy(c->body, c->hdr + c->head.head_len, c->have);
			c->deadline = time(NULL) + HEADER_SECONDS + (time_t)(c->clen / BODY_RATE);
			c->idle = time(NULL) + HEADER_SECONDS;
		}
		return c->have == c->clen;
	}
	if (c->have == c->cap) {
		/* the buffer grows with what arrives, not with what was announced */
		size_t grow = c->cap < c->clen - c->cap ? c->cap : c->clen - c->cap;
		if (buffered + grow > MAX_BUFFERED || buffered_by(c->peer) + grow > MAX_BUFFERED_PER_ADDR) {
			reply_text(c->fd, 503, buffered + grow > MAX_BUFFERED ? "busy: too many uploads at once, try again\n" :
				   "busy: too many uploads from your address at once, try again\n");
			return -1;
		}
		c->body = xrealloc(c->body, c->cap + grow + 1);
		c->cap += grow;
		buffered += grow;
	}
	n = recv(c->fd, c->body + c->have, c->cap - c->have, 0);
	if (n <= 0)
		return n < 0 && (errno == EAGAIN || errno == EINTR) ? 0 : -1;
	c->have += (size_t)n;
	c->idle = time(NULL) + HEADER_SECONDS;
	return c->have == c->clen;
}

static int serve(const char *bind_addr, long port)
{
	struct sockaddr_in sa = { .sin_family = AF_INET, .sin_port = htons((unsigned short)port) };
	socklen_t sl = sizeof sa;
	struct sigaction act = { .sa_handler = on_stop };
	struct pollfd pfd[MAX_CONNS + 1];
	time_t accept_pause = 0;
	int one = 1;

	if (inet_pton(AF_INET, bind_addr, &sa.sin_addr) != 1)
		die(EXIT_BADINPUT, "bad --bind \"%s\" (a numeric IPv4 address)", bind_addr);
	sigaction(SIGINT, &act, NULL);	/* no SA_RESTART: poll() returns EINTR */
	sigaction(SIGTERM, &act, NULL);
	signal(SIGPIPE, SIG_IGN);
	random_bytes(boot_salt, sizeof boot_salt);	/* the maps' secret, for this run */
	signal(SIGXFSZ, SIG_IGN);	/* a file size limit fails the write (EFBIG), not the server */
	signal(SIGCHLD, SIG_DFL);	/* whatever the parent set: file senders are reaped here */
	server_pid = getpid();
	for (size_t i = 0; i < MAX_CONNS; i++)
		conns[i].fd = -1;
	lfd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (lfd < 0)
		die_sys(EXIT_SYSFAIL, "socket");
	/* a restarted server binds while old connections linger */
	setsockopt(lfd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
	if (bind(lfd, (struct sockaddr *)&sa, sizeof sa) < 0)
		die_sys(EXIT_SYSFAIL, "unable to listen on %s:%ld", bind_addr, port);
	if (listen(lfd, 128) < 0 || getsockname(lfd, (struct sockaddr *)&sa, &sl) < 0)
		die_sys(EXIT_SYSFAIL, "listen");
	printf("serving %s at http://%s:%u/\n", root, bind_addr, (unsigned)ntohs(sa.sin_port));
	fflush(stdout);
	while (!stopping) {
		size_t n = 0, map[MAX_CONNS];
		time_t now = time(NULL);
		int r;
		pfd[n].fd = now >= accept_pause ? lfd : -1;	/* poll ignores a negative fd */
		pfd[n++].events = POLLIN;
		for (size_t i = 0; i < MAX_CONNS; i++) {
			if (conns[i].fd < 0)
				continue;
			if (now >= conns[i].deadline || now >= conns[i].idle) {
				conn_close(&conns[i]);	/* too slow: its slot goes to someone else */
				continue;
			}
			map[n - 1] = i;
			pfd[n].fd = conns[i].fd;
			pfd[n++].events = POLLIN;
		}
		r = poll(pfd, n, 1000);
		if (r < 0) {
			if (errno == EINTR)
				continue;
			die_sys(EXIT_SYSFAIL, "poll");
		}
		reap();
		confirm_reap();
		for (size_t k = 1; k < n; k++) {
			struct conn *c = &conns[map[k - 1]];
			int done;
			if (!(pfd[k].revents & (POLLIN | POLLHUP | POLLERR)))
				continue;
			done = conn_read(c);
			if (done > 0)
				respond(c);
			if (done != 0)
				conn_close(c);
		}
		if (pfd[0].revents & POLLIN)
			for (;;) {
				struct sockaddr_in peer = { 0 };
				socklen_t pl = sizeof peer;
				int fd = accept4(lfd, (struct sockaddr *)&peer, &pl, SOCK_CLOEXEC | SOCK_NONBLOCK);
				size_t i;
				if (fd < 0) {
					/* out of descriptors: stop asking for a second
					 * instead of spinning on a readable socket */
					if (errno == EMFILE || errno == ENFILE)
						accept_pause = time(NULL) + 1;
					break;
				}
				{
					unsigned mine = 0;
					for (size_t j = 0; j < MAX_CONNS; j++)
						mine += conns[j].fd >= 0 && conns[j].peer == peer.sin_addr.s_addr;
					if (mine >= MAX_CONNS_PER_ADDR) {
						reply_text(fd, 503, "busy: too many connections from your address, try again\n");
						close(fd);
						continue;
					}
				}
				for (i = 0; i < MAX_CONNS && conns[i].fd >= 0; i++)
					;
				if (i == MAX_CONNS) {
					reply_text(fd, 503, "busy: too many connections, try again\n");
					close(fd);
					continue;
				}
				conns[i].fd = fd;
				conns[i].deadline = conns[i].idle = time(NULL) + HEADER_SECONDS;
				conns[i].peer = peer.sin_addr.s_addr;
			}
	}
	for (size_t i = 0; i < MAX_CONNS; i++)
		if (conns[i].fd >= 0)
			conn_close(&conns[i]);
	close(lfd);
	fprintf(stderr, "bootbench pxe: stopped\n");
	return 0;
}

int pxe_main(int argc, char **argv)
{
	const char *bind_addr = "127.0.0.1";
	long port = 8080;
	struct stat st;

	if (argc < 3 || (strcmp(argv[1], "serve") && strcmp(argv[1], "status"))) {
		fputs(pxe_usage, stderr);
		die(EXIT_BADINPUT, "pxe: serve ROOT or status ROOT");
	}
	root = argv[2];
	if (stat(root, &st) < 0 || !S_ISDIR(st.st_mode))
		die(EXIT_BADINPUT, "%s is not a directory (lay one out with scripts/pxe-serve)", root);
	for (int i = 3; i < argc; i++) {
		if (!strcmp(argv[i], "--boot-seconds") && i + 1 < argc) {
			unsigned long long v;
			if (parse_duration(argv[++i], 1000, 7 * 86400, &v) < 0)
				die(EXIT_BADINPUT, "bad --boot-seconds \"%s\" (" DURATION_HELP ", 0 to 7 days)", argv[i]);
			boot_seconds = (long)v;
		} else if (!strcmp(argv[i], "--bind") && i + 1 < argc) {
			bind_addr = argv[++i];
		} else if (!strcmp(argv[i], "--port") && i + 1 < argc) {
			char *e;
			port = strtol(argv[++i], &e, 10);
			if (!*argv[i] || *e || port < 0 || port > 65535)
				die(EXIT_BADINPUT, "bad --port \"%s\" (0..65535)", argv[i]);
		} else if (!strcmp(argv[i], "--max-records") && i + 1 < argc) {
			char *e;
			errno = 0;
			limits.per_boot = strtoull(argv[++i], &e, 10);
			if (errno || *e || argv[i][0] < '0' || argv[i][0] > '9' || !limits.per_boot)
				die(EXIT_BADINPUT, "bad --max-records \"%s\" (a count from 1)", argv[i]);
		} else if (!strcmp(argv[i], "--confirm-seconds") && i + 1 < argc) {
			unsigned long long v;
			if (parse_duration(argv[++i], 1000, 86400, &v) < 0 || !v)
				die(EXIT_BADINPUT, "bad --confirm-seconds \"%s\" (" DURATION_HELP ", 1 s to 1 day)", argv[i]);
			confirm_seconds = (long)v;
		} else if (!strcmp(argv[i], "--confirm-memory") && i + 1 < argc) {
			if (parse_size(argv[++i], 1ull << 40, &confirm_memory) < 0 || confirm_memory < (64ull << 20))
				die(EXIT_BADINPUT, "bad --confirm-memory \"%s\" (a size from 64M: K, M, G, T)", argv[i]);
		} else if (!strcmp(argv[i], "--quota") && i + 1 < argc) {
			if (parse_size(argv[++i], 1ull << 50, &limits.quota) < 0 || limits.quota < 4096)
				die(EXIT_BADINPUT, "bad --quota \"%s\" (a size from 4K: bytes, or K, M, G, T)", argv[i]);
		} else {
			die(EXIT_BADINPUT, "unknown argument %s (see bootbench pxe --help)", argv[i]);
		}
	}
	if (!strcmp(argv[1], "status")) {
		struct sbuf s = {0};
		status_report(&s);
		fputs(s.s ? s.s : "", stdout);
		sb_free(&s);
		return 0;
	}
	return serve(bind_addr, port);
}
