# bootbench - a flat Makefile: wildcard sources, settings in config.mk.
#
#   make            host tool, static appliance binary, userland archive
#   make kernels    fetch and pack the kernels of config.mk
#   make check      every test (installs what is missing first)
#   make check-unit unit tests only (seconds, no QEMU)

include config.mk
export BOOTBENCH_CACHE

B        := build
LIB_SRC  := $(wildcard lib/*.c)
APP_SRC  := $(wildcard init/*.c) $(wildcard cmd/*.c) $(wildcard workloads/*.c)
INC      := -Ilib -Iinit -Icmd -Iworkloads
HDRS     := $(wildcard lib/*.h init/*.h cmd/*.h workloads/*.h)

HOST_OBJ := $(patsubst %.c,$(B)/host/%.o,$(LIB_SRC) $(APP_SRC))
MUSL_OBJ := $(patsubst %.c,$(B)/musl/%.o,$(LIB_SRC) $(APP_SRC))
LIB_HOST := $(patsubst %.c,$(B)/host/%.o,$(LIB_SRC))

UNIT_SRC := $(wildcard tests/unit/*.c)
UNIT_BIN := $(patsubst tests/unit/%.c,$(B)/tests/%.t,$(UNIT_SRC))

.PHONY: all deps kernels check check-unit check-boot clean userland
all: $(B)/bootbench $(B)/userland.cpio.gz

deps:
	@scripts/install-deps

$(B)/host/%.o: %.c $(HDRS)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(WARN) $(INC) -c -o $@ $<

$(B)/musl/%.o: %.c $(HDRS)
	@mkdir -p $(dir $@)
	$(MUSL_CC) -Os $(WARN) $(INC) -c -o $@ $<

$(B)/bootbench: $(HOST_OBJ)
	$(CC) $(CFLAGS) -o $@ $^ -lm

# The appliance's copy: static musl, the same sources.
$(B)/bootbench.static: $(MUSL_OBJ)
	$(MUSL_CC) -static -s -o $@ $^ -lm

$(B)/userland.cpio.gz: $(B)/bootbench.static $(shell find rootfs -type f)
	rootfs/build-userland $(B) $(B)/bootbench.static $(wildcard rootfs/overlay)

userland: $(B)/userland.cpio.gz

kernels:
	@for k in $(KERNELS); do scripts/fetch-kernel $$k || exit 1; done

$(B)/tests/%.t: tests/unit/%.c tests/unit/tap.h $(LIB_HOST)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(WARN) $(INC) -Itests/unit -o $@ $< $(LIB_HOST) -lm

check-unit: $(UNIT_BIN) $(B)/bootbench
	prove --exec '' $(UNIT_BIN) tests/host-*.t

check-boot: all
	prove --exec '' tests/boot-*.t

# The README's test command: sets itself up, then every test through prove.
check: deps
	$(MAKE) all
	$(MAKE) kernels
	$(MAKE) $(UNIT_BIN)
	prove --exec '' $(UNIT_BIN) $(wildcard tests/*.t)

clean:
	rm -rf $(B)/host $(B)/musl $(B)/tests $(B)/bootbench $(B)/bootbench.static
