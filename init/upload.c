/*
 * upload.c - results home: at the end of a boot with bootbench.upload=URL,
 * bring up the interface iPXE booted through (bootbench.mac, .ip, .netmask)
 * and POST every record the server has not acknowledged yet, as JSON lines.
 *
 * The partition stays the source of truth. What was acknowledged is itself a
 * record: an event {"event":"upload","through_seq":N,...} appended after a
 * 2xx answer. The next boot sends everything after the last such N, so a
 * failed upload (no link, server down, timeout) is retried then, and nothing
 * is lost; the server drops records it already holds. The server's quota
 * refusals are final: retrying cannot help and would hold every later
 * record back, so they too get an event and the mark moves past them; the
 * records stay on the partition. A 413 saying "quota exceeded:" (the byte
 * quota: "stored":false), and a 200 saying some were "over the quota (not
 * stored)" (the per-boot quota: "not_stored":N). Records that reached
 * only the console (the partition filled up) go once, as they are.
 *
 * Every POST is signed with the upload key of the results partition's
 * header (lib/uploadauth.h): the boot server stores nothing it cannot
 * check. Without a key (a partition made without mkresults --key) or
 * without a partition, nothing is sent, and the console says why. Before
 * the plan runs, a signed empty POST tells the server this boot started
 * (upload_started): with that, or the records, the target's schedule
 * moves on, and a stranger's GET /boot cannot move it.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <dirent.h>
#include <errno.h>
#include <net/if.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>

#include "cmdline.h"
#include "defaults.h"
#include "err.h"
#include "httpc.h"
#include "init.h"
#include "json.h"
#include "spawn.h"
#include "uploadauth.h"
#include "recsource.h"
#include "xio.h"

#define UPLOAD_TIMEOUT_MS 30000
#define UPLOAD_TRIES 3
#define LINK_WAIT_MS 10000
#define STARTED_TIMEOUT_MS 5000

static int ifreq_set(int fd, unsigned long req, struct ifreq *ifr, const char *what)
{
	if (ioctl(fd, req, ifr) < 0) {
		warn_sys("upload: unable to %s on %s", what, ifr->ifr_name);
		return -1;
	}
	return 0;
}

static int if_up(int fd, const char *name)
{
	struct ifreq ifr = {0};
	snprintf(ifr.ifr_name, sizeof ifr.ifr_name, "%s", name);
	if (ifreq_set(fd, SIOCGIFFLAGS, &ifr, "read the flags") < 0)
		return -1;
	ifr.ifr_flags |= IFF_UP | IFF_RUNNING;
	return ifreq_set(fd, SIOCSIFFLAGS, &ifr, "bring the interface up");
}

static int if_addr(int fd, const char *name, unsigned long req, const char *dotted, const char *what)
{
	struct ifreq ifr = {0};
	struct sockaddr_in *sa = (struct sockaddr_in *)&ifr.ifr_addr;
	snprintf(ifr.ifr_name, sizeof ifr.ifr_name, "%s", name);
	sa->sin_family = AF_INET;
	if (inet_pton(AF_INET, dotted, &sa->sin_addr) != 1) {
		warning("upload: bad address %s", dotted);
		return -1;
	}
	return ifreq_set(fd, req, &ifr, what);
}

/* The interface with this MAC (any case, ':' or '-'), or with none given the
 * first one that is not loopback. */
static int find_if(const char *mac, char *name, size_t len)
{
	DIR *d = opendir("/sys/class/net");
	struct dirent *e;
	int found = 0;
	if (!d) {
		warn_sys("upload: unable to list /sys/class/net");
		return -1;
	}
	while (!found && (e = readdir(d))) {
		char path[300], *addr;
		if (e->d_name[0] == '.' || !strcmp(e->d_name, "lo") || strlen(e->d_name) >= len)
			continue;
		snprintf(path, sizeof path, "/sys/class/net/%s/address", e->d_name);
		addr = read_attr(path);
		if (!addr)
			continue;
		if (!mac) {
			found = 1;
		} else {
			char a[18], b[18];
			found = mac_normal(addr, a) && mac_normal(mac, b) && !strcmp(a, b);
		}
		if (found)
			memcpy(name, e->d_name, strlen(e->d_name) + 1);
		free(addr);
	}
	closedir(d);
	return found ? 0 : -1;
}

static int wait_carrier(const char *name)
{
	char path[300];
	snprintf(path, sizeof path, "/sys/class/net/%s/carrier", name);
	for (double t0 = mono_now(); mono_now() - t0 < LINK_WAIT_MS / 1000.0; usleep(100000)) {
		char *c = read_attr(path);
		int up = c && c[0] == '1';
		free(c);
		if (up)
			return 0;
	}
	warning("upload: no link on %s after %d s", name, LINK_WAIT_MS / 1000);
	return -1;
}

static int net_up(void)
{
	char name[IFNAMSIZ];
	int fd, rc = -1;
	if (!A.conf.ip) {
		warning("upload: bootbench.upload needs bootbench.ip (and .netmask): the appliance has no DHCP client");
		return -1;
	}
	if (find_if(A.conf.mac, name, sizeof name) < 0) {
		warning("upload: no network interface%s%s (is its driver in the kernel or its module archive?)",
		     A.conf.mac ? " with MAC " : "", A.conf.mac ? A.conf.mac : "");
		return -1;
	}
	fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0) {
		warn_sys("upload: socket");
		return -1;
	}
	if (if_up(fd, "lo") == 0 && if_addr(fd, name, SIOCSIFADDR, A.conf.ip, "set the address") == 0 &&
	    (!A.conf.netmask || if_addr(fd, name, SIOCSIFNETMASK, A.conf.netmask, "set the netmask") == 0) &&
	    if_up(fd, name) == 0)
		rc = wait_carrier(name);
	close(fd);
	if (rc == 0)
		info("upload: %s up as %s%s%s", name, A.conf.ip, A.conf.netmask ? "/" : "",
		     A.conf.netmask ? A.conf.netmask : "");
	return rc;
}

/* The upload key (the results partition's header), or NULL. */
static const unsigned char *upload_key(void)
{
	return A.results_dev[0] && A.rec.w.h.has_key ? A.rec.w.h.key : NULL;
}

/* A.conf.upload with body's digest and the signature of the upload's head
 * appended (/DIGEST/HMAC, uploadauth.h; malloc'd), or NULL: no key, or the
 * URL does not end in /results/MAC/BOOT as a boot server writes it. */
static char *signed_url(const char *body, size_t len)
{
	const unsigned char *key = upload_key();
	char mac[18], boot[UPLOAD_TOKEN_LEN + 1], digest[UPLOAD_SIG_HEX + 1], sig[UPLOAD_SIG_HEX + 1];
	struct sbuf out = { 0 };
	if (!key || upload_path_parse(A.conf.upload, mac, boot, NULL, NULL) != UPLOAD_PATH_OK)
		return NULL;
	upload_sign(key, mac, boot, body, len, digest, sig);
	sb_printf(&out, "%s/%s/%s", A.conf.upload, digest, sig);
	return out.s;
}

/* The boot server refused a signature: say the likely cause, a key on
 * this disk that is not the server's (a stranger cannot make the
 * appliance's own signature fail). */
static void key_hint(int status, const char *resp)
{
	if (status == 403 && resp && !strncmp(resp, UPLOAD_BAD_SIGNATURE, strlen(UPLOAD_BAD_SIGNATURE)))
		warning("upload: the results partition's key is not the one the boot server holds for this "
			"target (ROOT/targets/MAC/key): give this disk that key with bootbench mkresults "
			"--set-key FILE");
}

/* Why nothing can be sent, or NULL. */
static const char *unsendable(void)
{
	if (!A.results_dev[0])
		return "no results partition, so no upload key to sign with (bootbench mkresults --key)";
	if (!A.rec.w.h.has_key)
		return "the results partition has no upload key (bootbench mkresults --set-key FILE on it, and the "
		       "same FILE in the boot root's targets/MAC/key)";
	{
		char *u = signed_url("", 0);
		if (!u)
			return "bootbench.upload is not a boot server's URL (http://ADDR:PORT/results/MAC/BOOT)";
		free(u);
	}
	return NULL;
}

void upload_started(void)
{
	struct sbuf resp = { 0 };
	char err[256], *url, *shown;
	int status;
	const char *why = unsendable();
	if (why) {
		warning("upload: nothing will be sent to the boot server: %s; the records stay on the results "
			"partition", why);
		return;
	}
	if (net_up() < 0) {
		warning("upload: the boot server was not told this boot started (it moves on when the boot's "
			"time is up)");
		return;
	}
	url = signed_url("", 0);
	status = httpc_request("POST", url, "application/x-ndjson", "", 0, STARTED_TIMEOUT_MS, &resp, err, sizeof err);
	if (status > 0)
		snprintf(err, sizeof err, "HTTP status %d: %.120s", status, resp.s ? resp.s : "");
	shown = redact_token(err, A.conf.upload);
	if (status >= 200 && status < 300)
		info("upload: the boot server knows this boot started");
	else
		warning("upload: the boot server was not told this boot started: %s", shown);
	key_hint(status, resp.s);
	free(shown);
	free(url);
	sb_free(&resp);
}

/* Records go in batches of at most this many bytes, each acknowledged by
 * its own event record: a long backlog (a partition of many boots whose
 * uploads failed) goes home in pieces the server answers within the timeout,
 * and what was acknowledged stays acknowledged if a later piece fails. */
#define BATCH_BYTES (4u << 20)

struct pending {
	unsigned long long mark;	/* highest through_seq acknowledged before */
	unsigned long long top;		/* highest seq on the partition */
	struct sbuf batch;		/* lines not yet sent */
	unsigned long long last;	/* highest seq in batch */
	size_t n;			/* lines in batch */
	size_t sent;			/* lines acknowledged by this upload */
	int failed;			/* a batch failed: send no more */
	int net;			/* the interface is up */
};

static const struct jv *upload_event(const struct jv *v)
{
	const struct jv *d = json_get(v, "data");
	const char *type = json_get_str(v, "type"), *ev = d ? json_get_str(d, "event") : NULL;
	return type && !strcmp(type, "event") && ev && !strcmp(ev, "upload") ? d : NULL;
}

/* Pass 1: the last acknowledged seq and the highest seq. */
static void find_mark(void *ctx, const char *line, size_t len, const char *where)
{
	struct pending *p = ctx;
	struct jv *v = json_parse(line, len, NULL, 0);
	const struct jv *seq = v ? json_get(v, "seq") : NULL, *d;
	(void)where;
	if (seq && seq->t == J_NUM) {
		if (seq->num > (double)p->top)
			p->top = (unsigned long long)seq->num;
		if ((d = upload_event(v))) {
			const struct jv *t = json_get(d, "through_seq");
			if (t && t->t == J_NUM && t->num > (double)p->mark)
				p->mark = (unsigned long long)t->num;
		}
	}
	json_free(v);
}

/* POSTs the batch; on success records the acknowledgement. */
static void send_batch(struct pending *p)
{
	struct sbuf resp = {0};
	char err[256];
	int status = -1, final = 0;
	enum upload_answer answer = UPLOAD_RETRY;
	unsigned long long not_stored = 0;

	if (!p->batch.len || p->failed)
		return;
	for (int try = 1; try <= UPLOAD_TRIES; try++) {
		char *url = signed_url(p->batch.s, p->batch.len);
		sb_free(&resp);
		status = url ? httpc_request("POST", url, "application/x-ndjson", p->batch.s, p->batch.len,
					     UPLOAD_TIMEOUT_MS, &resp, err, sizeof err) : -1;
		if (!url)
			snprintf(err, sizeof err, "%s", unsendable() ? unsendable() : "no signed URL");
		free(url);
		answer = upload_answer(status, resp.s);
		final = answer == UPLOAD_OVER_QUOTA;
		if (answer == UPLOAD_STORED || final)
			break;	/* stored, or over the quota for good */
		if (status > 0)
			snprintf(err, sizeof err, "HTTP status %d: %.120s", status, resp.s ? resp.s : "");
		{
			/* httpc's messages name the URL: not its token */
			char *shown = redact_token(err, A.conf.upload);
			if (answer == UPLOAD_REFUSED) {
				warning("upload: refused (%s): sending the same again cannot help, not tried again "
					"this boot", shown);
				key_hint(status, resp.s);
			}
			else
				warning("upload: try %d of %d failed: %s", try, UPLOAD_TRIES, shown);
			free(shown);
		}
		if (answer == UPLOAD_REFUSED)
			break;
		if (try < UPLOAD_TRIES)
			sleep(2);
	}
	if (status >= 200 && status < 300 && resp.s) {
		const char *n = strstr(resp.s, UPLOAD_NOT_STORED);
		if (n) {
			while (n > resp.s && n[-1] >= '0' && n[-1] <= '9')
				n--;
			not_stored = strtoull(n, NULL, 10);
		}
	}
	if (final || not_stored) {
		/* Past a quota: sending them again changes nothing, and would
		 * hold back every later record. Where they are is said. */
		unsigned long long k = final ? p->n : not_stored;
		const char *where = !p->last ? "they were only on the console (no results partition, or it was full): "
					       "the console log keeps them" :
				    !A.rec.stored ? "the results partition is full, so this cannot be marked: they go "
						    "again with the next boot's upload" :
						    "not sent again: they stay on the results partition (bootbench collect)";
		warning("upload: the server did not store %llu of %zu records (through seq %llu): over its %s quota; %s",
			k, p->n, p->last, final ? "byte" : "per-boot", where);
	}
	if ((status >= 200 && status < 300) || final) {
		if (!final) {
			info("upload: %zu records (through seq %llu) accepted: %.120s", p->n, p->last,
			     resp.s ? resp.s : "");
			p->sent += p->n - (not_stored < p->n ? not_stored : p->n);
		}
		if (A.rec.stored && p->last) {
			struct jw w;
			jw_init(&w);
			jw_obj(&w, NULL);
			jw_str(&w, "event", "upload");
			jw_int(&w, "through_seq", (long long)p->last);
			jw_int(&w, "records", (long long)p->n);
			jw_str(&w, "url", A.upload_shown);
			jw_int(&w, "status", status);
			jw_bool(&w, "stored", !final);
			jw_int(&w, "not_stored", (long long)(final ? p->n : not_stored));
			jw_obj_end(&w);
			rec_emit(&A.rec, RS_EVENT, w.sb.s);
			sb_free(&w.sb);
		}
	} else {
		p->failed = 1;
		warning("upload: not sent; the records stay on the results partition and go with the next boot's upload");
	}
	sb_free(&resp);
	p->batch.len = 0;
	p->n = 0;
}

/* Pass 2: every line after the mark, in batches. */
static void add_line(void *ctx, const char *line, size_t len, const char *where)
{
	struct pending *p = ctx;
	struct jv *v;
	const struct jv *seq;
	(void)where;
	if (p->failed)
		return;
	v = json_parse(line, len, NULL, 0);
	seq = v ? json_get(v, "seq") : NULL;
	/* only what was there before this upload began: our own ack events
	 * go with the next upload */
	if (seq && seq->t == J_NUM && seq->num > (double)p->mark && seq->num <= (double)p->top) {
		if (p->batch.len && p->batch.len + len + 1 > BATCH_BYTES)
			send_batch(p);
		sb_add(&p->batch, line, len);
		sb_putc(&p->batch, '\n');
		p->n++;
		p->last = (unsigned long long)seq->num;
	}
	json_free(v);
}

void upload_results(const struct sbuf *this_boot)
{
	struct pending p = {0};
	char path[80];
	const char *why;

	if (!A.conf.upload)
		return;
	if ((why = unsendable())) {
		/* a partition is there unless that is the reason */
		warning("upload: not sent: %s; the records stay %s", why,
			A.results_dev[0] ? "on the results partition" : "on the console only");
		return;
	}
	info("upload: sending the records the server has not acknowledged to %s", A.upload_shown);
	/* The partition, even when it filled up during this boot (stored is
	 * then 0, but its older records still wait for the server). */
	snprintf(path, sizeof path, "/dev/%s", A.results_dev);	/* unsendable: there is one */
	if (source_read(path, find_mark, &p, 1, NULL) != 0)
		warning("upload: unable to read the records back from %s", path);
	if (p.top <= p.mark && !(this_boot && this_boot->len && !A.rec.stored)) {
		info("upload: nothing new to send");
		return;
	}
	if (net_up() < 0) {
		warning("upload: not sent; the records stay on the results partition and go with the next boot's upload");
		return;
	}
	source_read(path, add_line, &p, 1, NULL);
	send_batch(&p);
	/* Records that only reached the console (no partition, or it filled
	 * up): this boot's, sent as they are (the server drops duplicates). */
	if (!A.rec.stored && this_boot && this_boot->len && !p.failed) {
		sb_add(&p.batch, this_boot->s, this_boot->len);
		for (size_t i = 0; i < this_boot->len; i++)
			p.n += this_boot->s[i] == '\n';
		p.last = 0;
		send_batch(&p);
	}
	if (!p.failed)
		info("upload: done, %zu records acknowledged", p.sent);
	sb_free(&p.batch);
}
