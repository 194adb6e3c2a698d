/*
 * serve.c - bootbench serve http: the http workload's server alone, in the
 * foreground, so ab, wrk or the http workload's url= can be pointed at the
 * very server the appliance measures.
 */
const char serve_usage[] =
"usage: bootbench serve http [--port P] [--size BYTES] [--bind ADDR]\n"
"\n"
"Serves one generated document of BYTES bytes (default 51200; 64K, 1M work)\n"
"at http://ADDR:P" "/doc with bootbench's event-driven server (one process,\n"
"epoll, HTTP/1.0 keep-alive and HTTP/1.1) until SIGINT or SIGTERM, then\n"
"prints what it served to stderr. Its first line on stdout is\n"
"  serving BYTES bytes at http://ADDR:PORT/doc\n"
"with the real port (--port 0, the default, picks an ephemeral one).\n"
"  --port P      TCP port, 0..65535\n"
"  --size BYTES  document size\n"
"  --bind ADDR   numeric IPv4 address to listen on (default 127.0.0.1; the\n"
"                server is for benchmarks: it listens elsewhere only when\n"
"                told so with --bind)\n"
"exit: 0 stopped by a signal, 100 bad usage, 111 unable to serve.\n";

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/signalfd.h>
#include <unistd.h>

#include "commands.h"
#include "defaults.h"
#include "err.h"
#include "httpd.h"
#include "units.h"

int serve_main(int argc, char **argv)
{
	const char *bind_addr = "127.0.0.1";
	long long port = 0, size = 51200;
	struct httpd_stats st;
	struct httpd *h;
	sigset_t sigs;
	char err[256];
	int sfd;

	if (argc < 2 || strcmp(argv[1], "http")) {
		fputs(serve_usage, stderr);
		die(EXIT_BADINPUT, "serve: the only protocol is http");
	}
	for (int i = 2; i < argc; i++) {
		const char *a = argv[i];
		if (!strcmp(a, "--port") && i + 1 < argc) {
			char *end;
			port = strtoll(argv[++i], &end, 10);
			if (!*argv[i] || *end || port < 0 || port > 65535)
				die(EXIT_BADINPUT, "bad --port \"%s\" (0..65535)", argv[i]);
		} else if (!strcmp(a, "--size") && i + 1 < argc) {
			unsigned long long sz;
			if (parse_size(argv[++i], HTTPD_MAX_DOC, &sz) < 0)
				die(EXIT_BADINPUT, "bad --size \"%s\" (up to %lld bytes: " SIZE_HELP ")", argv[i],
				    (long long)HTTPD_MAX_DOC);
			size = (long long)sz;
		} else if (!strcmp(a, "--bind") && i + 1 < argc) {
			bind_addr = argv[++i];
		} else {
			die(EXIT_BADINPUT, "unexpected argument %s (see bootbench serve --help)", a);
		}
	}
	if (loopback_up(err, sizeof err) < 0)
		warning("%s", err);
	/* signals arrive as data in the server's own loop: no handler does work */
	sigemptyset(&sigs);
	sigaddset(&sigs, SIGINT);
	sigaddset(&sigs, SIGTERM);
	if (sigprocmask(SIG_BLOCK, &sigs, NULL) < 0 || (sfd = signalfd(-1, &sigs, SFD_CLOEXEC)) < 0)
		die_sys(EXIT_SYSFAIL, "unable to set up signalfd");
	h = httpd_open(bind_addr, port, size, err, sizeof err);
	if (!h)
		die(strstr(err, "bad address") ? EXIT_BADINPUT : EXIT_SYSFAIL, "%s", err);
	setvbuf(stdout, NULL, _IOLBF, 0);
	printf("serving %lld bytes at http://%s:%u%s\n", size, bind_addr, httpd_port(h), HTTPD_DOC_PATH);
	if (httpd_serve(h, sfd) < 0)
		die_sys(EXIT_SYSFAIL, "unable to serve");
	httpd_get_stats(h, &st);
	fprintf(stderr, "bootbench: serve: %llu connections, %llu requests, %llu bytes sent, %llu errors\n",
		st.connections, st.requests, st.bytes, st.errors);
	httpd_close(h);
	close(sfd);
	return 0;
}
