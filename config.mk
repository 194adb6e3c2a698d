# config.mk - build settings; override here or on the make command line.
CC        ?= cc
MUSL_CC   ?= musl-gcc
CFLAGS    ?= -O2 -g
WARN      := -Wall -Wextra -Wno-unused-parameter -Wshadow -Wformat=2
# Where downloads and third-party builds are cached (outside the repo).
BOOTBENCH_CACHE ?= $(HOME)/.cache/bootbench
# Kernels fetched by `make kernels` and booted by the tests.
KERNELS   ?= debian-6.1-generic debian-6.1-cloud debian-6.1-rt debian-6.1.170-generic
# Kernels built from source in make check's set-up (tests/boot-source.t and
# boot-md-noautodetect.t boot it: their SOURCE_B and SOURCE_KERNEL).
SOURCE_KERNELS ?= linux-6.12-ci
