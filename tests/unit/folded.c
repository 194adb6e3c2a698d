/*
 * folded.c - perf script's samples folded into "comm;outer;...;leaf"
 * lines, and folded lines from outside checked: real perf output shapes,
 * user frames, modules, stacks past the depth bound, junk and binary bytes,
 * recursion (cycles), and more distinct stacks than the table keeps.
 */
#include <stdlib.h>

#include "folded.h"
#include "sbuf.h"
#include "tap.h"
#include "xio.h"

static const char *resolve(void *ctx, unsigned long long a)
{
	(void)ctx;
	if (a == 0xffffffff81000010ULL)
		return "do_syscall_64";
	if (a == 0xffffffff81000020ULL)
		return "__x64_sys_clone";
	if (a == 0xffffffff81000030ULL)
		return "copy_process";
	if (a == 0xffffffff81000040ULL)
		return "bad;name\twith junk";
	if (a >= 0xffffffff81100000ULL && a < 0xffffffff81200000ULL)
		return "recurse";
	return NULL;	/* past the kernel's text: a module */
}

static unsigned long long count_of(struct folded *f, const char *stack)
{
	for (size_t i = 0; i < f->cap; i++)
		if (f->s[i].stack && !strcmp(f->s[i].stack, stack))
			return f->s[i].samples;
	return 0;
}

int main(void)
{
	struct folded f = {0};
	char err[100];
	const char *frames[80];
	struct sbuf sb = {0};
	struct jw w;

	tap_plan(22);
	static const char perf[] =
		"forkexec \n"
		"\tffffffff81000030\n"
		"\tffffffff81000020\n"
		"\tffffffff81000010\n"
		"\t    7f2183d4013e\n"
		"\t    7f2183d40000\n"
		"\n"
		"forkexec \n"
		"\tffffffff81000030\n\tffffffff81000020\n\tffffffff81000010\n\t7f0000000001\n"
		"\n"
		"swapper \n"
		"\tffffffffc0123456\n"
		"\tffffffff81000010\n"
		"\n"
		"ld \n"
		"\t    7f2183cd6104\n"
		"\n"
		"my;comm \n"
		"\tffffffff81000040\n"
		"\n"
		"\tnot hex\n"
		"junk line without a stack\n"
		"\tzzzz\n";
	is_int(perf_script_fold(perf, sizeof perf - 1, resolve, NULL, &f, NULL, err, sizeof err), 0, "perf script output folds");
	is_int(f.samples, 6, "six samples (the junk line opens one with no frames)");
	is_int(count_of(&f, "forkexec;[user];do_syscall_64;__x64_sys_clone;copy_process"), 2,
	       "two samples of one stack, root first, the user frames one [user]");
	is_int(count_of(&f, "swapper;do_syscall_64;[kernel.module]"), 1, "a module address: [kernel.module]");
	is_int(count_of(&f, "ld;[user]"), 1, "a user-only sample");
	is_int(count_of(&f, "my_comm;bad_name_with junk"), 1, "';' and control bytes in a comm or a name become '_'");
	is_int(f.kernel, 4, "kernel samples: those whose leaf is in the kernel");
	ok(f.bad >= 2, "lines that are not a sample's are counted (%llu)", f.bad);
	folded_sort(&f);
	is_str(f.s[0].stack, "forkexec;[user];do_syscall_64;__x64_sys_clone;copy_process", "sorted: the heaviest first");
	jw_init(&w);
	jw_obj(&w, NULL);
	folded_json(&w, &f, 2);
	jw_obj_end(&w);
	ok(strstr(w.sb.s, "\"other_samples\":3") && strstr(w.sb.s, "\"samples\":6,\"kernel_samples\":4"),
	   "the record keeps the top 2, the rest in other_samples (%s)", w.sb.s);
	sb_free(&w.sb);
	folded_free(&f);

	/* a stack deeper than the bound: the leaf-most frames are kept */
	sb_puts(&sb, "deep \n");
	for (int i = 0; i < 200; i++)
		sb_printf(&sb, "\tffffffff811%05x\n", i);
	sb_puts(&sb, "\n");
	perf_script_fold(sb.s, sb.len, resolve, NULL, &f, NULL, err, sizeof err);
	is_int(f.truncated, 1, "a 200-frame stack is cut");
	{
		char *copy = xstrdup(f.n ? f.s[0].stack ? f.s[0].stack : "" : "");
		for (size_t i = 0; i < f.cap; i++)
			if (f.s[i].stack) {
				free(copy);
				copy = xstrdup(f.s[i].stack);
			}
		int n = folded_split(copy, frames, 80);
		ok(n == FOLDED_MAX_DEPTH + 2 && !strcmp(frames[1], "[deeper]"), "... to %d frames under comm;[deeper]", n);
		free(copy);
	}
	folded_free(&f);
	sb_free(&sb);

	/* binary junk: NULs and high bytes, never a crash, never a frame */
	{
		char junk[4096];
		for (size_t i = 0; i < sizeof junk; i++)
			junk[i] = (char)(i * 131 + 7);
		is_int(perf_script_fold(junk, sizeof junk, resolve, NULL, &f, NULL, err, sizeof err), 0, "binary junk is read");
		ok(f.n <= f.samples && f.kernel == 0, "... and yields no kernel sample");
		folded_free(&f);
	}

	/* more distinct stacks than the table keeps: counted in other */
	for (unsigned i = 0; i < FOLDED_MAX_DISTINCT + 100; i++) {
		char s[40];
		int l = snprintf(s, sizeof s, "c;f%u", i);
		folded_add(&f, s, (size_t)l, 1);
	}
	ok(f.n == FOLDED_MAX_DISTINCT && f.other == 100 && f.samples == FOLDED_MAX_DISTINCT + 100,
	   "past %d distinct stacks, samples go to other (%llu)", FOLDED_MAX_DISTINCT, f.other);
	folded_free(&f);

	/* a record's list is bounded in bytes too: 1000 stacks of 4000 bytes
	 * would be 4 MB, a record's whole payload */
	for (unsigned i = 0; i < 1000; i++) {
		char s[4001];
		memset(s, 'a', 4000);
		s[0] = 'c';
		s[1] = ';';
		snprintf(s + 2, 10, "%05u", i);
		s[7] = 'a';
		folded_add(&f, s, 4000, 1);
	}
	jw_init(&w);
	jw_obj(&w, NULL);
	folded_json(&w, &f, FOLDED_TOP);
	jw_obj_end(&w);
	ok(w.sb.len < FOLDED_TOP_BYTES + 100000 && strstr(w.sb.s, "\"other_samples\":738"),
	   "1000 stacks of 4000 bytes: the first %u bytes' (262 stacks) are kept, the rest in other (%zu bytes)",
	   FOLDED_TOP_BYTES, w.sb.len);
	sb_free(&w.sb);
	folded_free(&f);

	/* folded lines from outside */
	{
		static const struct { const char *in; int want; } t[] = {
			{ "comm;a;b;a;b", 5 },		/* recursion: frames repeat, that is all */
			{ "", -1 },
			{ "a;;b", -1 },
			{ ";a", -1 },
			{ "a;b;", -1 },
			{ "a;b\x01", -1 },
		};
		int good = 1;
		for (size_t i = 0; i < sizeof t / sizeof *t; i++) {
			char *c = xstrdup(t[i].in);
			int n = folded_split(c, frames, 80);
			if (n != t[i].want) {
				printf("# %zu: got %d want %d\n", i, n, t[i].want);
				good = 0;
			}
			free(c);
		}
		ok(good, "folded_split: a recursive stack splits; empty frames and control bytes are refused");
		{
			char *c = xcalloc(1, FOLDED_MAX_STACK + 10);
			memset(c, 'a', FOLDED_MAX_STACK + 5);
			is_int(folded_split(c, frames, 80), -1, "a line past FOLDED_MAX_STACK is refused");
			memset(c, 0, FOLDED_MAX_STACK + 10);
			memset(c, 'a', FOLDED_MAX_FRAME + 1);
			is_int(folded_split(c, frames, 80), -1, "a frame past FOLDED_MAX_FRAME is refused");
			free(c);
		}
		{
			struct sbuf d = {0};
			for (int i = 0; i < 90; i++)
				sb_puts(&d, i ? ";f" : "c");
			is_int(folded_split(d.s, frames, 80), -1, "a line deeper than the caller's bound is refused");
			sb_free(&d);
		}
		{
			char c[] = "comm;x";
			is_int(folded_split(c, frames, 80), 2, "a plain line: two frames");
			is_str(frames[1], "x", "... split in place");
		}
	}
	return tap_done();
}
