/*
 * cmdline.c - kernel command line splitting and the bootbench.* key table.
 */
#include <arpa/inet.h>
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmdline.h"
#include "defaults.h"
#include "httpc.h"
#include "units.h"
#include "xio.h"

int cmdline_split(const char *buf, size_t len, struct cmdline *out, char *err, size_t errlen)
{
	size_t i = 0;
	out->args = NULL;
	out->n = 0;
	while (i < len) {
		struct sbuf key = {0}, val = {0};
		int inq = 0, haseq = 0;
		while (i < len && (buf[i] == ' ' || buf[i] == '\t' || buf[i] == '\n' || buf[i] == '\0'))
			i++;
		if (i >= len)
			break;
		if (out->n >= CMDLINE_MAX_ARGS) {
			snprintf(err, errlen, "more than %d words on the command line", CMDLINE_MAX_ARGS);
			goto bad;
		}
		while (i < len && buf[i] != '\0' && (inq || (buf[i] != ' ' && buf[i] != '\t' && buf[i] != '\n'))) {
			char c = buf[i++];
			if (c == '"') {
				inq = !inq;
				continue;
			}
			if (c == '=' && !haseq) {
				haseq = 1;
				sb_add(&val, "", 0);
				continue;
			}
			sb_putc(haseq ? &val : &key, c);
		}
		if (inq) {
			snprintf(err, errlen, "unterminated quote in the command line");
			sb_free(&key);
			sb_free(&val);
			goto bad;
		}
		out->args = xrealloc(out->args, (out->n + 1) * sizeof *out->args);
		out->args[out->n].key = sb_steal(&key);
		out->args[out->n].val = haseq ? sb_steal(&val) : NULL;
		out->n++;
	}
	return 0;
bad:
	cmdline_free(out);
	return -1;
}

void cmdline_free(struct cmdline *c)
{
	for (size_t i = 0; i < c->n; i++) {
		free(c->args[i].key);
		free(c->args[i].val);
	}
	free(c->args);
	c->args = NULL;
	c->n = 0;
}

enum ktype { K_BOOL, K_NAME, K_LIST, K_MS, K_BYTES, K_ENUM, K_URL, K_IPV4, K_MAC };

struct keydef {
	const char *name;
	enum ktype type;
	const char *choices;	/* K_ENUM: '|' separated */
	size_t off;		/* offset in struct bbconf */
	const char *help;
};

#define OFF(f) offsetof(struct bbconf, f)

static const struct keydef keys[] = {
	{ "plan", K_NAME, NULL, OFF(plan), "plan to run, by name" },
	{ "disks", K_LIST, NULL, OFF(disks), "disks the appliance may write: serials, WWNs or by-path names, comma separated" },
	{ "readonly", K_LIST, NULL, OFF(readonly), "disks read-only layouts may read, never write: serials, WWNs or by-path names" },
	{ "results", K_NAME, NULL, OFF(results), "auto (the partition named " RESULTS_PART_NAME "), none, or a device name" },
	{ "reboot", K_BOOL, NULL, OFF(reboot), "1: reboot at the end instead of powering off" },
	{ "shell", K_BOOL, NULL, OFF(shell), "1: open a shell on the console before the end" },
	{ "lava", K_BOOL, NULL, OFF(lava), "1: also print records as LAVA test-case signals" },
	{ "debug", K_BOOL, NULL, OFF(debug), "1: verbose console" },
	{ "monitor_ms", K_MS, NULL, OFF(monitor_ms), "system counter sampling interval in milliseconds" },
	{ "mode", K_ENUM, "wallclock|deterministic", OFF(mode), "measurement mode the host booted us in" },
	{ "accel", K_ENUM, "kvm|tcg|none", OFF(accel), "accelerator the host used (none: real hardware)" },
	{ "profile", K_ENUM, "on|perf|offcpu|off", OFF(profile), "on: a kernel profile and delay accounting per run, whatever the plan says (needs profile=2 too); perf: perf's call-chain samples besides; offcpu: and every context switch (where the run's tasks blocked)" },
	{ "tag", K_NAME, NULL, OFF(tag), "a label for this boot, shown beside the kernel in comparisons" },
	{ "qemu", K_NAME, NULL, OFF(qemu), "QEMU version the host ran us under (scripts/boot-qemu sets it)" },
	{ "entry", K_ENUM, "pvh|bzimage", OFF(entry), "how QEMU entered the kernel: pvh (its ELF image: no decompressor, no KASLR) or bzimage (scripts/boot-qemu sets it)" },
	{ "disk_read_bps", K_BYTES, NULL, OFF(disk_read_bps), "bytes a second QEMU lets the attached (--disk) images be read at, 0: no cap (scripts/boot-qemu --disk-read-bps sets it)" },
	{ "nonce", K_NAME, NULL, OFF(nonce), "host-given value mixed into the boot id (deterministic guests repeat their random numbers)" },
	{ "upload", K_URL, NULL, OFF(upload), "a boot server's http://A.B.C.D:PORT/results/MAC/BOOT (bootbench pxe writes it): the records not yet sent go there at the end of the boot, signed with the results disk's key" },
	{ "ip", K_IPV4, NULL, OFF(ip), "this machine's IPv4 address for the upload (iPXE: ${netX/ip})" },
	{ "netmask", K_IPV4, NULL, OFF(netmask), "its netmask (iPXE: ${netX/netmask})" },
	{ "mac", K_MAC, NULL, OFF(mac), "MAC address of the interface to upload through (iPXE: ${netX/mac})" },
};

const char *bbconf_keys(void)
{
	static char list[512];
	if (!list[0]) {
		for (size_t i = 0; i < sizeof keys / sizeof *keys; i++) {
			if (i)
				strcat(list, ", ");
			strcat(list, keys[i].name);
		}
	}
	return list;
}

char *redact_token(const char *s, const char *upload)
{
	const char *tok = upload ? strrchr(upload, '/') : NULL, *p;
	size_t tl = UPLOAD_TOKEN_LEN;
	struct sbuf out = {0};
	if (!s)
		s = "";
	if (!tok || strlen(tok + 1) != tl || strspn(tok + 1, "0123456789abcdef") != tl)
		return xstrdup(s);
	tok++;
	while ((p = strstr(s, tok))) {
		sb_add(&out, s, (size_t)(p - s));
		sb_puts(&out, "TOKEN");
		s = p + tl;
	}
	sb_puts(&out, s);
	return out.s ? out.s : xstrdup("");
}

static int valid_name(const char *s)
{
	return name_ok(s, 255, "._-:/");
}

static int valid_list(const char *s)
{
	/* comma separated names, no empty element */
	char *copy = xstrdup(s), *save = NULL, *tok;
	int ok = *s && s[strlen(s) - 1] != ',' && *s != ',' && !strstr(s, ",,");
	for (tok = strtok_r(copy, ",", &save); ok && tok; tok = strtok_r(NULL, ",", &save))
		ok = valid_name(tok);
	free(copy);
	return ok;
}

static int valid_ipv4(const char *s)
{
	struct in_addr a;
	return inet_pton(AF_INET, s, &a) == 1;
}

char *mac_normal(const char *in, char out[18])
{
	if (strlen(in) != 17)
		return NULL;
	for (int i = 0; i < 17; i++) {
		if (i % 3 == 2) {
			if (in[i] != ':' && in[i] != '-')
				return NULL;
			out[i] = '-';
		} else if (isxdigit((unsigned char)in[i])) {
			out[i] = (char)tolower((unsigned char)in[i]);
		} else {
			return NULL;
		}
	}
	out[17] = 0;
	return out;
}

static int valid_mac(const char *s)
{
	char norm[18];
	return mac_normal(s, norm) != NULL;
}

static int valid_url(const char *s)
{
	struct sockaddr_in sa;
	char path[512];
	return !strncmp(s, "http://", 7) && httpc_parse_url(s, &sa, path, sizeof path, "/") == 0;
}

int bbconf_parse(const struct cmdline *c, struct bbconf *conf, struct sbuf *warnings,
		 char *err, size_t errlen)
{
	memset(conf, 0, sizeof *conf);
	conf->monitor_ms = 1000;
	for (size_t i = 0; i < c->n; i++) {
		const char *k = c->args[i].key, *v = c->args[i].val;
		const struct keydef *d = NULL;
		if (strncmp(k, "bootbench.", 10))
			continue;
		for (size_t j = 0; j < sizeof keys / sizeof *keys; j++)
			if (!strcmp(k + 10, keys[j].name))
				d = &keys[j];
		if (!d) {
			if (warnings)
				sb_printf(warnings, "unknown key %s ignored (valid: %s)\n", k, bbconf_keys());
			continue;
		}
		if (!v) {
			snprintf(err, errlen, "bootbench.%s needs a value (bootbench.%s=...): %s",
				 d->name, d->name, d->help);
			return -1;
		}
		switch (d->type) {
		case K_BOOL:
			if (strcmp(v, "0") && strcmp(v, "1")) {
				snprintf(err, errlen, "bad value for bootbench.%s: \"%s\" (expected 0 or 1)", d->name, v);
				return -1;
			}
			*(int *)((char *)conf + d->off) = v[0] == '1';
			break;
		case K_MS: {
			unsigned long long u;
			if (parse_duration(v, 1, 3600000, &u) < 0 || u == 0) {
				snprintf(err, errlen, "bad value for bootbench.%s: \"%s\" (expected milliseconds from 1 to 3600000: "
					 DURATION_HELP ")", d->name, v);
				return -1;
			}
			*(unsigned *)((char *)conf + d->off) = u;
			break;
		}
		case K_BYTES: {
			/* bytes a second as QEMU takes them, passed through by
			 * scripts/boot-qemu: digits only, no size suffix */
			unsigned long long u = 0;
			size_t nd = strspn(v, "0123456789");
			if (!nd || v[nd] || nd > 13 || units_number(v, nd, &u) < 0) {
				snprintf(err, errlen, "bad value for bootbench.%s: \"%s\" (expected a whole number of bytes below 10^13)",
					 d->name, v);
				return -1;
			}
			*(unsigned long long *)((char *)conf + d->off) = u;
			break;
		}
		case K_URL:
		case K_IPV4:
		case K_MAC:
		case K_NAME:
		case K_LIST:
		case K_ENUM: {
			char **slot = (char **)((char *)conf + d->off);
			if (d->type == K_NAME && !valid_name(v)) {
				snprintf(err, errlen, "bad value for bootbench.%s: \"%s\" (expected a name of letters, digits and . _ - : /)",
					 d->name, v);
				return -1;
			}
			if (d->type == K_LIST && !valid_list(v)) {
				snprintf(err, errlen, "bad value for bootbench.%s: \"%s\" (expected names separated by commas)",
					 d->name, v);
				return -1;
			}
			if ((d->type == K_URL && !valid_url(v)) || (d->type == K_IPV4 && !valid_ipv4(v)) ||
			    (d->type == K_MAC && !valid_mac(v))) {
				snprintf(err, errlen, "bad value for bootbench.%s: \"%s\" (expected %s)", d->name, v,
					 d->type == K_URL ? "http://A.B.C.D:PORT/path" :
					 d->type == K_IPV4 ? "a dotted IPv4 address" : "a MAC address aa:bb:cc:dd:ee:ff");
				return -1;
			}
			if (d->type == K_ENUM && !in_choices(v, d->choices)) {
				snprintf(err, errlen, "bad value for bootbench.%s: \"%s\" (expected one of %s)",
					 d->name, v, d->choices);
				return -1;
			}
			if (d->off == OFF(readonly) && *slot) {
				/* given twice (LAVA, iPXE and the user each append
				 * one): every disk named stays read-only */
				char *both = xasprintf("%s,%s", *slot, v);
				free(*slot);
				*slot = both;
				break;
			}
			free(*slot);
			*slot = xstrdup(v);
			break;
		}
		}
	}
	if (!conf->results)
		conf->results = xstrdup("auto");
	if (!conf->mode)
		conf->mode = xstrdup("wallclock");
	return 0;
}

void bbconf_free(struct bbconf *conf)
{
	free(conf->plan);
	free(conf->disks);
	free(conf->readonly);
	free(conf->results);
	free(conf->mode);
	free(conf->accel);
	free(conf->tag);
	free(conf->profile);
	free(conf->nonce);
	free(conf->entry);
	free(conf->upload);
	free(conf->ip);
	free(conf->netmask);
	free(conf->mac);
	free(conf->qemu);
	memset(conf, 0, sizeof *conf);
}
