/*
 * cmdline.c - table tests for the kernel command-line splitter and the
 * bootbench.* key validation, bad input included (u-root cmdline_test style).
 */
#include "cmdline.h"
#include "tap.h"

static const struct {
	const char *line;
	int nwords;
	const char *key2, *val2;	/* the second word, when there is one */
} splits[] = {
	{ "console=ttyS0 panic=-1", 2, "panic", "-1" },
	{ "  quiet \t ro ", 2, "ro", NULL },
	{ "a bootbench.plan=\"x y\"", 2, "bootbench.plan", "x y" },
	{ "a b=c=d", 2, "b", "c=d" },
	{ "a \"quoted word\"=1", 2, "quoted word", "1" },
	{ "", 0, NULL, NULL },
	{ "a b=", 2, "b", "" },
};

static const struct {
	const char *line;
	int ok;
	const char *err_or_warn;	/* exact error, or the first warning line */
} confs[] = {
	{ "bootbench.plan=quick bootbench.reboot=1", 1, NULL },
	{ "bootbench.reboot=yes", 0, "bad value for bootbench.reboot: \"yes\" (expected 0 or 1)" },
	{ "bootbench.reboot", 0, "bootbench.reboot needs a value (bootbench.reboot=...): 1: reboot at the end instead of powering off" },
	{ "bootbench.monitor_ms=0", 0, "bad value for bootbench.monitor_ms: \"0\" (expected milliseconds from 1 to 3600000: a whole number, or one with ms, s, min or h)" },
	{ "bootbench.monitor_ms=12x", 0, "bad value for bootbench.monitor_ms: \"12x\" (expected milliseconds from 1 to 3600000: a whole number, or one with ms, s, min or h)" },
	/* milliseconds are a duration, not a size: 1k was 1024 ms once */
	{ "bootbench.monitor_ms=1k", 0, "bad value for bootbench.monitor_ms: \"1k\" (expected milliseconds from 1 to 3600000: a whole number, or one with ms, s, min or h)" },
	{ "bootbench.monitor_ms=3600001", 0, "bad value for bootbench.monitor_ms: \"3600001\" (expected milliseconds from 1 to 3600000: a whole number, or one with ms, s, min or h)" },
	{ "bootbench.monitor_ms=99999999999999999999", 0, "bad value for bootbench.monitor_ms: \"99999999999999999999\" (expected milliseconds from 1 to 3600000: a whole number, or one with ms, s, min or h)" },
	{ "bootbench.monitor_ms=250ms", 1, NULL },
	{ "bootbench.plan=a;rm", 0, "bad value for bootbench.plan: \"a;rm\" (expected a name of letters, digits and . _ - : /)" },
	{ "bootbench.disks=a,,b", 0, "bad value for bootbench.disks: \"a,,b\" (expected names separated by commas)" },
	{ "bootbench.disks=a,b,", 0, "bad value for bootbench.disks: \"a,b,\" (expected names separated by commas)" },
	{ "bootbench.profile=on", 1, NULL },
	{ "bootbench.profile=offcpu", 1, NULL },
	{ "bootbench.profile=1", 0, "bad value for bootbench.profile: \"1\" (expected one of on|perf|offcpu|off)" },
	{ "bootbench.entry=pvh", 1, NULL },
	{ "bootbench.entry=elf", 0, "bad value for bootbench.entry: \"elf\" (expected one of pvh|bzimage)" },
	{ "bootbench.disk_read_bps=16777216", 1, NULL },
	{ "bootbench.disk_read_bps=16M", 0, "bad value for bootbench.disk_read_bps: \"16M\" (expected a whole number of bytes below 10^13)" },
	{ "bootbench.disk_read_bps=99999999999999", 0, "bad value for bootbench.disk_read_bps: \"99999999999999\" (expected a whole number of bytes below 10^13)" },
	{ "bootbench.disk_read_bps=", 0, "bad value for bootbench.disk_read_bps: \"\" (expected a whole number of bytes below 10^13)" },
	{ "bootbench.mode=fast", 0, "bad value for bootbench.mode: \"fast\" (expected one of wallclock|deterministic)" },
	{ "bootbench.foo=1 bootbench.plan=x", 1,
	  "unknown key bootbench.foo ignored (valid: plan, disks, readonly, results, reboot, shell, lava, debug, monitor_ms, mode, accel, profile, tag, qemu, entry, disk_read_bps, nonce, upload, ip, netmask, mac)" },
	/* what the boot server's iPXE script passes */
	{ "bootbench.upload=http://10.77.0.1:8080/results/52-54-00-12-34-56 bootbench.ip=10.77.0.111 "
	  "bootbench.netmask=255.255.255.0 bootbench.mac=52:54:00:12:34:56", 1, NULL },
	{ "bootbench.upload=ftp://10.0.0.1/x", 0, "bad value for bootbench.upload: \"ftp://10.0.0.1/x\" (expected http://A.B.C.D:PORT/path)" },
	{ "bootbench.upload=http://server:8080/x", 0, "bad value for bootbench.upload: \"http://server:8080/x\" (expected http://A.B.C.D:PORT/path)" },
	{ "bootbench.upload=http://10.0.0.1:99999/x", 0, "bad value for bootbench.upload: \"http://10.0.0.1:99999/x\" (expected http://A.B.C.D:PORT/path)" },
	{ "bootbench.ip=10.0.0.256", 0, "bad value for bootbench.ip: \"10.0.0.256\" (expected a dotted IPv4 address)" },
	{ "bootbench.ip=${net0/ip}", 0, "bad value for bootbench.ip: \"${net0/ip}\" (expected a dotted IPv4 address)" },
	{ "bootbench.mac=52:54:00:12:34", 0, "bad value for bootbench.mac: \"52:54:00:12:34\" (expected a MAC address aa:bb:cc:dd:ee:ff)" },
	{ "bootbench.mac=52:54:00:12:34:zz", 0, "bad value for bootbench.mac: \"52:54:00:12:34:zz\" (expected a MAC address aa:bb:cc:dd:ee:ff)" },
	{ "notours.reboot=yes bootbench.disks=bbscratch0,pci-0000:00:04.0", 1, NULL },
};

int main(void)
{
	char err[512];
	struct cmdline c;
	struct bbconf conf;
	size_t nsplit = sizeof splits / sizeof *splits, nconf = sizeof confs / sizeof *confs;

	tap_plan(nsplit * 2 + nconf * 2 + 16);
	for (size_t i = 0; i < nsplit; i++) {
		int rc = cmdline_split(splits[i].line, strlen(splits[i].line), &c, err, sizeof err);
		is_int(rc == 0 ? (long long)c.n : -1, splits[i].nwords, "split \"%s\": word count", splits[i].line);
		if (splits[i].nwords >= 2)
			ok(!strcmp(c.args[1].key, splits[i].key2) &&
			   (splits[i].val2 ? c.args[1].val && !strcmp(c.args[1].val, splits[i].val2) : !c.args[1].val),
			   "split \"%s\": second word key/value", splits[i].line);
		else
			ok(rc == 0, "split \"%s\": accepted", splits[i].line);
		if (rc == 0)
			cmdline_free(&c);
	}
	is_int(cmdline_split("a \"open", 7, &c, err, sizeof err), -1, "unterminated quote rejected");
	is_str(err, "unterminated quote in the command line", "unterminated quote message");

	for (size_t i = 0; i < nconf; i++) {
		struct sbuf w = {0};
		int rc;
		cmdline_split(confs[i].line, strlen(confs[i].line), &c, err, sizeof err);
		err[0] = 0;
		rc = bbconf_parse(&c, &conf, &w, err, sizeof err);
		is_int(rc == 0, confs[i].ok, "conf \"%s\": %s", confs[i].line, confs[i].ok ? "accepted" : "rejected");
		if (!confs[i].ok) {
			is_str(err, confs[i].err_or_warn, "conf \"%s\": error text", confs[i].line);
		} else if (confs[i].err_or_warn) {
			char *nl = w.s ? strchr(w.s, '\n') : NULL;
			if (nl)
				*nl = 0;
			is_str(w.s, confs[i].err_or_warn, "conf \"%s\": warning text", confs[i].line);
		} else {
			ok(w.len == 0, "conf \"%s\": no warnings", confs[i].line);
		}
		sb_free(&w);
		cmdline_free(&c);
		bbconf_free(&conf);
	}

	{
		const char *l = "bootbench.plan=quick bootbench.reboot=1 bootbench.disks=a,b";
		cmdline_split(l, strlen(l), &c, err, sizeof err);
	}
	bbconf_parse(&c, &conf, NULL, err, sizeof err);
	is_str(conf.plan, "quick", "plan value stored");
	is_int(conf.reboot, 1, "reboot value stored");
	is_str(conf.disks, "a,b", "disks value stored");
	is_str(conf.results, "auto", "results defaults to auto");
	cmdline_free(&c);
	bbconf_free(&conf);
	{
		const char *l = "bootbench.monitor_ms=2s";
		cmdline_split(l, strlen(l), &c, err, sizeof err);
	}
	is_int(bbconf_parse(&c, &conf, NULL, err, sizeof err), 0, "monitor_ms=2s accepted");
	is_int(conf.monitor_ms, 2000, "... as 2000 ms");
	cmdline_free(&c);
	bbconf_free(&conf);
	{
		/* LAVA, iPXE and the user may each append one: none is lost */
		const char *l = "bootbench.readonly=USERDISK bootbench.disks=S1 bootbench.readonly=OTHER";
		cmdline_split(l, strlen(l), &c, err, sizeof err);
	}
	bbconf_parse(&c, &conf, NULL, err, sizeof err);
	is_str(conf.readonly, "USERDISK,OTHER", "bootbench.readonly= given twice: both disks stay read-only");
	cmdline_free(&c);
	bbconf_free(&conf);
	{
		const char *u = "http://10.0.0.1:8080/results/52-54-00-12-34-56/0123456789abcdef0123456789abcdef";
		char *r = redact_token("console=ttyS1 bootbench.upload=http://10.0.0.1:8080/results/52-54-00-12-34-56/"
				       "0123456789abcdef0123456789abcdef bootbench.ip=10.0.0.5", u);
		is_str(r, "console=ttyS1 bootbench.upload=http://10.0.0.1:8080/results/52-54-00-12-34-56/TOKEN bootbench.ip=10.0.0.5",
		       "redact_token: the upload URL's token is replaced on the command line");
		free(r);
		r = redact_token("connect to http://h/results/m/0123456789abcdef0123456789abcdef: refused; again "
				 "0123456789abcdef0123456789abcdef", u);
		is_str(r, "connect to http://h/results/m/TOKEN: refused; again TOKEN", "... every occurrence");
		free(r);
		r = redact_token("bootbench.upload=http://10.0.0.1:8080/up/short", "http://10.0.0.1:8080/up/short");
		is_str(r, "bootbench.upload=http://10.0.0.1:8080/up/short", "a last segment that is not 32 hex digits is no token: kept");
		free(r);
		r = redact_token("u=http://10.0.0.1:8080/results/52-54-00-12-34-56", "http://10.0.0.1:8080/results/52-54-00-12-34-56");
		is_str(r, "u=http://10.0.0.1:8080/results/52-54-00-12-34-56", "... a MAC is kept");
		free(r);
		r = redact_token("u=http://192.168.100.200:8080", "http://192.168.100.200:8080");
		is_str(r, "u=http://192.168.100.200:8080", "... a URL without a path is kept");
		free(r);
		r = redact_token("plain", NULL);
		is_str(r, "plain", "no upload: a plain copy");
		free(r);
		r = redact_token(NULL, u);
		is_str(r, "", "NULL: the empty string");
		free(r);
	}
	return tap_done();
}
