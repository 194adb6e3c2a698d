/*
 * cmdline.h - the kernel command line, split the way the kernel splits it,
 * and the bootbench.* keys validated against one table.
 *
 * The parser takes a buffer; init reads /proc/cmdline and hands it over, the
 * unit tests hand over table rows.
 */
#ifndef BB_CMDLINE_H
#define BB_CMDLINE_H

#include <stddef.h>

#include "sbuf.h"

struct kv {
	char *key;
	char *val;	/* NULL when the word had no '=' */
};

struct cmdline {
	struct kv *args;
	size_t n;
};

/* Split on blanks; double quotes group (kernel semantics: key="a b").
 * Returns 0, or -1 with a message in err (unterminated quote, too many words). */
int cmdline_split(const char *buf, size_t len, struct cmdline *out, char *err, size_t errlen);
void cmdline_free(struct cmdline *c);

/* What the appliance was told. Defaults are set by bbconf_parse. */
struct bbconf {
	char *plan;		/* plan name, NULL: none */
	char *disks;		/* comma list of claimed disk ids, NULL: none */
	char *readonly;		/* comma list of disks only ever opened O_RDONLY, NULL: none */
	char *results;		/* "auto", "none" or a device name */
	int reboot;
	int shell;
	int lava;
	int debug;
	unsigned monitor_ms;
	char *mode;		/* "wallclock" or "deterministic" */
	char *accel;		/* how the host ran us, if it said: kvm, tcg, none */
	char *profile;		/* "on" or "off": overrides the plan's profile directive; NULL: the plan says */
	char *tag;		/* a label the user gives this boot (A/A runs, "patched") */
	char *qemu;		/* QEMU version, when booted by scripts/boot-qemu */
	char *entry;		/* "pvh" or "bzimage": how QEMU entered the kernel */
	unsigned long long disk_read_bps; /* QEMU's read cap on the --disk images, 0: none */
	char *nonce;		/* host-given uniqueness for the boot id (deterministic mode) */
	char *upload;		/* http://A.B.C.D:PORT/path: send new records there at the end */
	char *ip;		/* the appliance's IPv4 address for the upload (iPXE's lease) */
	char *netmask;		/* its netmask, dotted quad */
	char *mac;		/* the interface to use, by MAC address */
};

/* Fill conf from the bootbench.* keys of c. Unknown bootbench.* keys are
 * appended, one line each, to warnings. A malformed value is an error:
 * returns -1 with a message naming the key, the value and what was expected. */
int bbconf_parse(const struct cmdline *c, struct bbconf *conf, struct sbuf *warnings,
		 char *err, size_t errlen);
void bbconf_free(struct bbconf *conf);
/* A MAC address, "52:54:00:AB:cd:01" or with dashes, as "52-54-00-ab-cd-01"
 * (the boot server's spelling, and iPXE's ${mac:hexhyp}); NULL if not one. */
char *mac_normal(const char *in, char out[18]);
/* "plan, disks, ..." for messages and --help. */
const char *bbconf_keys(void);
/* A boot server's boot id: 16 random bytes in lowercase hex, the last
 * path segment of /results/MAC/BOOT (cmd/pxe.c). Public: uploads are
 * signed with the results disk's key (lib/uploadauth.h). */
#define UPLOAD_TOKEN_LEN 32
/* s (NULL: "") with every occurrence of the upload URL's boot id, its last
 * path segment when that is UPLOAD_TOKEN_LEN lowercase hex digits,
 * replaced by "TOKEN". It once was the upload's secret; it no longer is,
 * but records of one boot's runs then read alike whatever the boot, and a
 * record shows nothing a server handed out. upload NULL or without such a
 * segment: a plain copy. Returns malloc'd memory. */
char *redact_token(const char *s, const char *upload);

#endif
