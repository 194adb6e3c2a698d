# bootbench - a flat Makefile: wildcard sources, settings in config.mk.
#
#   make demo       the main job, end to end (scripts/demo --help)
#   make            host tool, static appliance binary, userland archive
#   make kernels    fetch and pack the kernels of config.mk
#   make check      every test (installs what is missing first), in parallel
#   make check-unit unit test binaries only (seconds)
#   make check-host the host tests, in parallel (no QEMU)
#   prove --exec tests/timeout-run tests/FILE.t     one test file

include config.mk
PROVE_FLAGS ?=
# Every test file runs under a deadline (kselftest's per-test timeout).
PROVE    := prove --exec $(CURDIR)/tests/timeout-run
# Test files at once: one per core. A file that must not share the machine
# (it measures wall-clock time) says "# bootbench-test: alone" near its top
# and runs after the others, by itself.
JOBS     ?= $(shell nproc)
export BOOTBENCH_CACHE

B        := build
LIB_SRC  := $(wildcard lib/*.c)
# Host-side analysis (compare, statistics, report): apart from the appliance's
# code, but linked into both binaries: one bootbench program everywhere.
ANA_SRC  := $(wildcard analysis/*.c)
APP_SRC  := $(wildcard init/*.c) $(wildcard cmd/*.c) $(wildcard workloads/*.c)
INC      := -Ilib -Ianalysis -Iinit -Icmd -Iworkloads
HDRS     := $(wildcard lib/*.h analysis/*.h init/*.h cmd/*.h workloads/*.h)

HOST_OBJ := $(patsubst %.c,$(B)/host/%.o,$(LIB_SRC) $(ANA_SRC) $(APP_SRC))
MUSL_OBJ := $(patsubst %.c,$(B)/musl/%.o,$(LIB_SRC) $(ANA_SRC) $(APP_SRC))
LIB_HOST := $(patsubst %.c,$(B)/host/%.o,$(LIB_SRC) $(ANA_SRC))

UNIT_SRC := $(wildcard tests/unit/*.c)
UNIT_BIN := $(patsubst tests/unit/%.c,$(B)/tests/%.t,$(UNIT_SRC))

# a recipe that fails leaves no target behind that the next make would trust
# (build-userland failing in a layer after the userland was packed)
.DELETE_ON_ERROR:

.PHONY: demo bench bench-sensitivity all deps kernel kernels source-kernels check-setup check check-unit check-host check-boot check-faults clean userland packages layer layers
all: $(B)/bootbench $(B)/userland.cpio.gz

deps:
	@scripts/install-deps

$(B)/host/%.o: %.c $(HDRS)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(WARN) $(INC) -c -o $@ $<

$(B)/musl/%.o: %.c $(HDRS)
	@mkdir -p $(dir $@)
	$(MUSL_CC) -Os $(WARN) $(INC) -c -o $@ $<

# ---- SQLite, the engine of the dbload and oltp workloads ----
# Static libraries built by rootfs/build-lib from the Debian source package
# pinned in rootfs/sources.lock, with the options of rootfs/recipes/sqlite3.sh:
# one for musl (bootbench.static), one for the host (bootbench). The build is
# cached in $(BOOTBENCH_CACHE)/build; build/sqlite holds copies. Only the
# database workloads include sqlite3.h (and the boot record, for its version).
SQLITE_OUT    := $(B)/sqlite
SQLITE_HOST_A := $(SQLITE_OUT)/host/libsqlite3.a
SQLITE_MUSL_A := $(SQLITE_OUT)/musl/libsqlite3.a
SQLITE_H      := $(SQLITE_OUT)/include/sqlite3.h
SQLITE_USERS  := $(wildcard workloads/dbload.c workloads/oltp.c workloads/sqlgen.c) init/bootrec.c
INC += -I$(SQLITE_OUT)/include

$(SQLITE_HOST_A) $(SQLITE_MUSL_A) $(SQLITE_H) &: rootfs/build-lib rootfs/recipes/sqlite3.sh rootfs/sources.lock
	rootfs/build-lib sqlite3 $(SQLITE_OUT) >/dev/null

$(patsubst %.c,$(B)/host/%.o,$(SQLITE_USERS)) $(patsubst %.c,$(B)/musl/%.o,$(SQLITE_USERS)): $(SQLITE_H)
# ---- end of SQLite ----

# ---- libblkid: what a disk holds (lib/probe.c) ----
# Static libraries built by rootfs/build-lib from the util-linux source
# package pinned in rootfs/sources.lock (libblkid only), for musl and for
# the host, as SQLite is: mkscratch on the host and the appliance's claim
# must read a disk alike. Only lib/probe.c includes blkid/blkid.h.
BLKID_OUT    := $(B)/blkid
BLKID_HOST_A := $(BLKID_OUT)/host/libblkid.a
BLKID_MUSL_A := $(BLKID_OUT)/musl/libblkid.a
BLKID_H      := $(BLKID_OUT)/include/blkid/blkid.h
BLKID_USERS  := lib/probe.c
HOST_LIBS    := $(BLKID_HOST_A) -lm
INC          += -I$(BLKID_OUT)/include

$(BLKID_HOST_A) $(BLKID_MUSL_A) $(BLKID_H) &: rootfs/build-lib rootfs/recipes/util-linux.sh rootfs/sources.lock
	rootfs/build-lib util-linux $(BLKID_OUT) >/dev/null

$(patsubst %.c,$(B)/host/%.o,$(BLKID_USERS)) $(patsubst %.c,$(B)/musl/%.o,$(BLKID_USERS)) $(patsubst %.c,$(B)/fuzz/obj/%.o,$(BLKID_USERS)): $(BLKID_H)
# ---- end of libblkid ----

$(B)/bootbench: $(HOST_OBJ) $(SQLITE_HOST_A) $(BLKID_HOST_A)
	$(CC) $(CFLAGS) -o $@ $(HOST_OBJ) $(SQLITE_HOST_A) $(HOST_LIBS)

# The appliance's copy: static musl, the same sources.
$(B)/bootbench.static: $(MUSL_OBJ) $(SQLITE_MUSL_A) $(BLKID_MUSL_A)
	$(MUSL_CC) -static -s -o $@ $^ -lm

# The third-party packages are fetched and built (or found in the cache)
# beside the compile of bootbench itself under make -j: nothing of theirs
# waits for our objects. The layers' packages are part of it only with
# WITH_LAYERS=1 (make check's set-up: it boots every layer); packing a
# layer is `make layer` (below).
packages:
	rootfs/build-userland --packages $(if $(filter 1,$(WITH_LAYERS)),--layers)

$(B)/userland.cpio.gz: $(B)/bootbench.static $(shell find rootfs -type f) | packages
	rootfs/build-userland $(B) $(B)/bootbench.static $(wildcard rootfs/overlay)

userland: $(B)/userland.cpio.gz

# ---- layers: built the first time a plan needs one ----
# A plan says what it needs (`requires layer=postgresql`); scripts/boot-qemu,
# scripts/demo and scripts/pxe-serve then build the layer with
# `make layer NAME=postgresql` if it is not there (about 5 min the first
# time on 2 cores, cached afterwards). make check builds them all.
LAYER_NAMES := postgresql
LAYER_RECIPES_postgresql := rootfs/recipes/postgresql-15.sh rootfs/recipes/jemalloc.sh
$(B)/postgresql.cpio.gz: $(B)/userland.cpio.gz $(LAYER_RECIPES_postgresql) rootfs/build-userland
	rootfs/build-userland --layer postgresql $(B)

layer:
	@case " $(LAYER_NAMES) " in *" $(NAME) "*) ;; *) echo "usage: make layer NAME=layer (one of: $(LAYER_NAMES))" >&2; exit 2 ;; esac
	@$(MAKE) --no-print-directory $(B)/$(NAME).cpio.gz

layers: $(addprefix $(B)/,$(addsuffix .cpio.gz,$(LAYER_NAMES)))

kernels:
	@for k in $(KERNELS); do scripts/fetch-kernel $$k || exit 1; done

# One kernel by name: fetch a Debian one, or build a KIND=source one (cached by
# source, config recipe and compiler), e.g. make kernel NAME=linux-6.12-qemu.
kernel:
	@test -n "$(NAME)" || { echo "usage: make kernel NAME=descriptor (see scripts/fetch-kernel --list)" >&2; exit 2; }
	scripts/fetch-kernel $(NAME)

$(B)/tests/%.t: tests/unit/%.c $(wildcard tests/unit/*.h) $(LIB_HOST) $(BLKID_HOST_A)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(WARN) $(INC) -Itests/unit -o $@ $< $(LIB_HOST) $(HOST_LIBS)

check-unit: $(UNIT_BIN)
	$(PROVE) -j$(JOBS) $(PROVE_FLAGS) $(UNIT_BIN)

check-host: $(UNIT_BIN) all
	$(PROVE) -j$(JOBS) $(PROVE_FLAGS) $(call together,$(wildcard tests/host-*.t))
	$(if $(call alone,$(wildcard tests/host-*.t)),$(PROVE) $(PROVE_FLAGS) $(call alone,$(wildcard tests/host-*.t)))

check-boot: all
	$(PROVE) -j$(JOBS) $(PROVE_FLAGS) $(call together,$(wildcard tests/boot-*.t))
	$(if $(call alone,$(wildcard tests/boot-*.t)),$(PROVE) $(PROVE_FLAGS) $(call alone,$(wildcard tests/boot-*.t)))

# The test files that must run by themselves, and the rest; the slowest
# ("# bootbench-test: slow", then boots) are started first.
alone    = $(shell grep -l '^\# bootbench-test: alone' $(1) 2>/dev/null)
together = $(filter-out $(call alone,$(1)),$(1))
slowest  = $(shell grep -l '^\# bootbench-test: slow' $(1) 2>/dev/null)
slow_first = $(call slowest,$(1)) $(filter-out $(call slowest,$(1)),$(filter tests/boot-% tests/faults-%,$(1))) \
	$(filter-out $(call slowest,$(1)) tests/boot-% tests/faults-%,$(1))

# The main job: set up, build, fetch two kernels, boot, collect, compare.
demo:
	scripts/demo $(DEMO_ARGS)

# Fidelity and speed against reference tools on this host (not tests): ratios
# ours/reference for dd, fio, hdparm, bonnie++, ab, wrk, iperf3, sqlite3, and
# the field's tools through our workloads against Debian's fio, perf, rt-tests;
# compare's time and peak memory on a synthetic fleet (10,000 boots); and how
# often its verdicts mislead on simulated noise (scripts/bench-verdicts), and
# how often a bisect step does (scripts/bench-bisect); what the why
# instruments cost per figure and how many samples they give (scripts/bench-why).
bench: all
	scripts/bench-storage
	scripts/bench-net
	scripts/bench-db
	scripts/bench-field
	scripts/bench-nfs
	scripts/bench-pg
	scripts/bench-compare
	scripts/bench-verdicts
	scripts/bench-bisect
	scripts/bench-velocity
	scripts/bench-why

# Deterministic mode's sensitivity: init_on_free=1 against the default.
bench-sensitivity: all
	scripts/bench-sensitivity

# Power cuts while the appliance writes: 20 here, 10 as part of make check.
check-faults: all
	CUTS=20 $(PROVE) $(PROVE_FLAGS) tests/faults-*.t

# What the tests use, set up at once: bootbench, the userland's packages
# with the layers' (WITH_LAYERS), Debian's kernels (downloads) and the
# kernels the tests build from source (SOURCE_KERNELS, config.mk). On a
# cold cache each of these is minutes of mostly serial work (a configure,
# a download, an unpack); side by side they keep the cores busy, where one
# after another they left them half idle. SETUP_JOBS: make's jobs for it,
# 4 a core by default, since each of its jobs is itself a script that
# waits on a download or runs its own make -j (make -jN on the command
# line is overridden here). Then the layers are packed (seconds).
SETUP_JOBS ?= $(shell echo $$(( $(JOBS) * 4 )))
check-setup:
	$(MAKE) -j$(SETUP_JOBS) source-kernels kernels all WITH_LAYERS=1
	$(MAKE) layers

# A source kernel that does not build is its tests' failure, not every
# test's: they say so (boot-source.t, boot-md-noautodetect.t), the rest run.
source-kernels:
	@for k in $(SOURCE_KERNELS); do scripts/fetch-kernel $$k || \
		echo "make: warning: $$k did not build: the tests that boot it will fail and say why" >&2; done

# The README's test command: sets itself up, then every test through prove:
# JOBS files at once (the longest first, so the run ends together), then
# the few that must run alone, one after another.
TESTS_ALL := $(wildcard tests/*.t)
check: deps
	$(MAKE) check-setup
	$(MAKE) -j$(JOBS) $(UNIT_BIN)
	@rc=0; \
	$(PROVE) -j$(JOBS) $(PROVE_FLAGS) $(call slow_first,$(call together,$(TESTS_ALL))) $(UNIT_BIN) || rc=1; \
	$(if $(call alone,$(TESTS_ALL)),$(PROVE) $(PROVE_FLAGS) $(call alone,$(TESTS_ALL)) || rc=1;) \
	exit $$rc

clean:
	rm -rf $(B)/host $(B)/musl $(B)/tests $(B)/bootbench $(B)/bootbench.static

# ---- fuzzing: make fuzz [FUZZ_SECONDS=60] [FUZZ_RUNS=N] [FUZZ_TARGETS=...] [FUZZ_FLAGS=...] ----
# Seven readers of hostile bytes under libFuzzer with ASan and UBSan, each for
# FUZZ_SECONDS (or FUZZ_RUNS executions, whichever ends first): records
# (results header, rs_scan, json_parse/json_dump, rec_line), recstore (the
# boot server's record store: an upload against a records.jsonl), plan
# (plan_parse, plan_expand), gpt (gpt_parse), httphead (the boot server's
# request head, and its target as an upload's path), nfs3 (RPC replies, NFSv3 and MOUNT results, record
# marking, the portmapper's calls) and rpcconn (nfsmix's RPC transport:
# calls answered by a hostile server over a socketpair). lib/ is compiled again into
# build/fuzz/obj: the host objects carry no coverage instrumentation. Seeds
# are generated (tests/fuzz/mkseeds.c, the tree's plans, a mkresults image,
# two request heads), never committed; each corpus grows in build/fuzz/
# across runs. A crash, leak, hang or UB report is kept as
# build/fuzz/TARGET-{crash,leak,timeout,oom}-* and fails the target. FUZZ_FLAGS passes libFuzzer options, e.g.
# "-fork=2 -ignore_crashes=1" to keep going past a known finding.
FUZZ_CC      ?= clang
FUZZ_SECONDS ?= 60
FUZZ_FLAGS   ?=
FUZZ_CFLAGS  := -g -O1 -fno-omit-frame-pointer -fsanitize=address,undefined -fno-sanitize-recover=all
FUZZ_OBJ     := $(patsubst %.c,$(B)/fuzz/obj/%.o,$(LIB_SRC))
FUZZ_OUT     := $(B)/fuzz

.PHONY: fuzz fuzz-build clean-fuzz

$(FUZZ_OUT)/obj/%.o: %.c $(HDRS)
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(FUZZ_CFLAGS) -fsanitize=fuzzer-no-link $(INC) -c -o $@ $<

FUZZ_TARGETS ?= records recstore plan gpt httphead nfs3 rpcconn

$(FUZZ_OUT)/%: tests/fuzz/%.c $(FUZZ_OBJ) $(BLKID_HOST_A)
	$(FUZZ_CC) $(FUZZ_CFLAGS) -fsanitize=fuzzer $(WARN) $(INC) -o $@ $< $(FUZZ_OBJ) $(HOST_LIBS)

$(FUZZ_OUT)/mkseeds: tests/fuzz/mkseeds.c $(FUZZ_OBJ) $(BLKID_HOST_A)
	$(FUZZ_CC) $(FUZZ_CFLAGS) $(WARN) $(INC) -o $@ $< $(FUZZ_OBJ) $(HOST_LIBS)

$(FUZZ_OUT)/.seeds: $(FUZZ_OUT)/mkseeds
	@mkdir -p $(FUZZ_OUT)/corpus
	$(FUZZ_OUT)/mkseeds $(FUZZ_OUT)/corpus
	@touch $@

fuzz-build: $(addprefix $(FUZZ_OUT)/,$(FUZZ_TARGETS)) $(FUZZ_OUT)/.seeds $(B)/bootbench

# Each target for FUZZ_SECONDS; the plan and GPT targets start from the
# plans in the tree and from a results image's first sectors.
fuzz: fuzz-build
	@rc=0; for t in $(FUZZ_TARGETS); do \
		mkdir -p $(FUZZ_OUT)/corpus-$$t; \
		case $$t in \
		records) corpus=$(FUZZ_OUT)/corpus ;; \
		plan) corpus=$(FUZZ_OUT)/corpus-plan; cp rootfs/overlay/etc/bootbench/plans/*.plan $$corpus/ ;; \
		gpt) corpus=$(FUZZ_OUT)/corpus-gpt; \
			$(B)/bootbench mkresults $(FUZZ_OUT)/gpt.img --size 4M --force 2>/dev/null && \
			{ printf '\0'; dd if=$(FUZZ_OUT)/gpt.img bs=512 skip=1 count=33 2>/dev/null; } >$$corpus/seed-512 ;; \
		httphead) corpus=$(FUZZ_OUT)/corpus-httphead; \
			printf 'POST /results/52-54-00-aa-bb-cc/00ff HTTP/1.0\r\nContent-Length: 12\r\n\r\n' >$$corpus/seed-post; \
			printf 'POST /results/52-54-00-aa-bb-cc/0123456789abcdef0123456789abcdef/%064d/%064d HTTP/1.0\r\nContent-Length: 12\r\n\r\n' 0 0 >$$corpus/seed-signed; \
			printf 'GET /boot/52:54:00:aa:bb:cc HTTP/1.1\r\nHost: x\r\n\r\n' >$$corpus/seed-get ;; \
		recstore) corpus=$(FUZZ_OUT)/corpus-recstore; \
			printf '\010{"seq":1,"boot_id":"ab","type":"run","data":{}}\n{"seq":2,"boot_id":"ab","type":"x","data":1}\n' >$$corpus/seed-two; \
			printf '\230{"seq":1,"boot_id":"ab","type":"run","data":{}}\n{"type":"t","boot_id":"c\\u0041","data":[]}\r\n\n{"seq":3,"boot_id":"d","type":"run","data":{}}' >$$corpus/seed-torn ;; \
		rpcconn) corpus=$(FUZZ_OUT)/corpus-rpcconn; \
			printf '\004\200\0\0\030\100\0\0\001\0\0\0\001\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0' >$$corpus/seed-tcp; \
			printf '\005\0\030\100\0\0\001\0\0\0\001\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0' >$$corpus/seed-udp ;; \
		nfs3) corpus=$(FUZZ_OUT)/corpus-nfs3; \
			printf '\001\0\0\0\007\0\0\0\001\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0' >$$corpus/seed-reply; \
			printf '\200\0\0\030\0\0\0\001\0\0\0\0\0\0\0\002\0\001\206\240\0\0\0\002\0\0\0\0' >$$corpus/seed-call ;; \
		esac; \
		dict=; [ -f tests/fuzz/$$t.dict ] && dict=-dict=tests/fuzz/$$t.dict; \
		touch $(FUZZ_OUT)/.run; r=0; \
		echo "fuzz: $$t for $(FUZZ_SECONDS) s, log in $(FUZZ_OUT)/$$t.log"; \
		UBSAN_OPTIONS=print_stacktrace=1 $(FUZZ_OUT)/$$t -max_total_time=$(FUZZ_SECONDS) -rss_limit_mb=2048 -timeout=10 \
			$(if $(FUZZ_RUNS),-runs=$(FUZZ_RUNS)) \
			$$dict -artifact_prefix=$(FUZZ_OUT)/$$t- -print_final_stats=1 \
			$(FUZZ_FLAGS) $$corpus >$(FUZZ_OUT)/$$t.log 2>&1 || r=$$?; \
		grep -E '^stat::number_of_executed_units' $(FUZZ_OUT)/$$t.log | sed "s/^/fuzz: $$t: /"; \
		found=$$(find $(FUZZ_OUT) -maxdepth 1 -newer $(FUZZ_OUT)/.run \
			\( -name "$$t-crash-*" -o -name "$$t-leak-*" -o -name "$$t-timeout-*" -o -name "$$t-oom-*" \)); \
		if [ $$r != 0 ] || [ -n "$$found" ]; then \
			tail -n 60 $(FUZZ_OUT)/$$t.log; \
			echo "fuzz: $$t FAILED (libFuzzer exit $$r); inputs kept:" $$found; \
			echo "fuzz: reproduce with $(FUZZ_OUT)/$$t <input>"; \
			rc=1; \
		else echo "fuzz: $$t: no crash, leak, hang or UB report in $$(sed -n 's/^stat::number_of_executed_units: *//p' $(FUZZ_OUT)/$$t.log) runs"; fi; \
	done; exit $$rc

clean-fuzz:
	rm -rf $(FUZZ_OUT)
