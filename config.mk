# config.mk - build settings; override here or on the make command line.
CC        ?= cc
MUSL_CC   ?= musl-gcc
CFLAGS    ?= -O2 -g
WARN      := -Wall -Wextra -Wno-unused-parameter -Wshadow -Wformat=2
# Where downloads and third-party builds are cached (outside the repo).
BOOTBENCH_CACHE ?= $(HOME)/.cache/bootbench
# Kernels fetched by `make kernels` and booted by the tests.
KERNELS   ?= debian-6.1-generic debian-6.1-cloud debian-6.1-rt debian-6.1.170-generic
