# packsign - canonical, signed agent packs.
#
#   make            build build/packsign and build/libpacksign.a
#   make check      install missing dependencies, build, run every test
#   make demo       install missing dependencies, build, run on examples/packs
#   make unit-asan  unit tests under AddressSanitizer + UBSan (part of check)
#   make fuzz       build the libFuzzer targets into build/fuzz (clang)
#   make fuzz-smoke build them and run each briefly over its seed corpus

VERSION   = 0.1.0
CC       ?= cc
BUILD    ?= build
PKG_CONFIG ?= pkg-config

# libunistring ships no pkg-config file on Debian; it is linked directly.
PKGS      = libsodium libcrypto libarchive yaml-0.1 jansson libgit2
PKG_CFLAGS := $(shell $(PKG_CONFIG) --cflags $(PKGS) 2>/dev/null)
PKG_LIBS   := $(shell $(PKG_CONFIG) --libs $(PKGS) 2>/dev/null) -lunistring -lpthread
CMOCKA_CFLAGS := $(shell $(PKG_CONFIG) --cflags cmocka 2>/dev/null)
CMOCKA_LIBS   := $(shell $(PKG_CONFIG) --libs cmocka 2>/dev/null)

WARN      = -Wall -Wextra -Werror -Wformat=2 -Wshadow -Wvla -Wpointer-arith \
            -Wstrict-prototypes -Wmissing-prototypes -Wundef -Wcast-align
HARDEN    = -D_FORTIFY_SOURCE=2 -fstack-protector-strong \
            -fstack-clash-protection -fcf-protection -fPIE
OPT      ?= -O2 -g
SAN      ?=
ifeq ($(SAN),1)
  OPT     = -O1 -g -fno-omit-frame-pointer
  HARDEN  = -fPIE
  SANFLAGS = -fsanitize=address,undefined -fno-sanitize-recover=all
endif
# The library instrumented for libFuzzer (coverage, ASan, UBSan); only the
# fuzz targets themselves link the fuzzer's main (tests/fuzz/README.md).
ifeq ($(FUZZ),1)
  OPT     = -O1 -g -fno-omit-frame-pointer
  HARDEN  = -fPIE
  SANFLAGS = -fsanitize=fuzzer-no-link,address,undefined \
             -fno-sanitize-recover=all
endif
FUZZ_CC  ?= clang
FUZZ_TIME ?= 20
FUZZ_JOBS ?= 2

CPPFLAGS += -D_GNU_SOURCE -Iinclude -I.
CFLAGS   += -std=c11 $(OPT) $(WARN) $(HARDEN) $(SANFLAGS) $(PKG_CFLAGS)
LDFLAGS  += -pie -Wl,-z,relro,-z,now $(SANFLAGS)

LIB_SRCS  = $(sort $(wildcard util/*.c keys/*.c formats/*.c sign/*.c verify/*.c))
CLI_SRCS  = $(sort $(wildcard cli/*.c))
UNIT_SRCS = $(sort $(wildcard tests/unit/test_*.c))
FUZZ_SRCS = $(sort $(wildcard tests/fuzz/fuzz_*.c))

LIB_OBJS  = $(LIB_SRCS:%.c=$(BUILD)/obj/%.o)
CLI_OBJS  = $(CLI_SRCS:%.c=$(BUILD)/obj/%.o)
UNIT_BINS = $(UNIT_SRCS:tests/unit/%.c=$(BUILD)/tests/%)
FUZZ_BINS = $(FUZZ_SRCS:tests/fuzz/%.c=$(BUILD)/%)
# Test-only tools (never installed): the CLI tests run them.
TOOL_BINS = $(BUILD)/tests/ps-testsign

LIB = $(BUILD)/libpacksign.a
BIN = $(BUILD)/packsign

.PHONY: all deps check demo bench unit unit-asan cli-tests tools clean fuzz \
        fuzz-bins fuzz-smoke
all: $(BIN) $(LIB)

$(BUILD)/obj/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(CFLAGS) -MMD -MP -c $< -o $@

$(LIB): $(LIB_OBJS)
	@mkdir -p $(dir $@)
	rm -f $@
	ar rcs $@ $^

$(BIN): $(CLI_OBJS) $(LIB)
	$(CC) $(LDFLAGS) -o $@ $(CLI_OBJS) $(LIB) $(PKG_LIBS)

$(BUILD)/tests/%: tests/unit/%.c $(LIB)
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(CFLAGS) $(CMOCKA_CFLAGS) -Wno-missing-prototypes \
	    $< -o $@ $(LDFLAGS) $(LIB) $(PKG_LIBS) $(CMOCKA_LIBS)

$(BUILD)/tests/ps-%: tests/tools/ps-%.c $(LIB)
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(CFLAGS) $< -o $@ $(LDFLAGS) $(LIB) $(PKG_LIBS)

$(BUILD)/fuzz_%: tests/fuzz/fuzz_%.c tests/fuzz/fuzz.h $(LIB)
	$(CC) $(CPPFLAGS) $(CFLAGS) $< -o $@ -fsanitize=fuzzer $(LDFLAGS) \
	    $(LIB) $(PKG_LIBS)

tools: $(TOOL_BINS)

fuzz-bins: $(FUZZ_BINS)

# libFuzzer targets: clang with -fsanitize=fuzzer,address,undefined.
fuzz: deps
	@$(MAKE) --no-print-directory BUILD=build/fuzz FUZZ=1 CC=$(FUZZ_CC) \
	    fuzz-bins

# Each target for FUZZ_TIME seconds over a copy of its seed corpus,
# FUZZ_JOBS at a time; any crash, leak or broken invariant fails.
fuzz-smoke: fuzz
	@FUZZ_TIME=$(FUZZ_TIME) FUZZ_JOBS=$(FUZZ_JOBS) tests/fuzz/smoke build/fuzz

deps:
	@scripts/install-deps

unit: $(UNIT_BINS)

# Unit tests once more under AddressSanitizer + UndefinedBehaviorSanitizer.
unit-asan:
	@$(MAKE) --no-print-directory BUILD=build/asan SAN=1 unit

check: deps
	@$(MAKE) --no-print-directory all unit tools
	@$(MAKE) --no-print-directory unit-asan
	@tests/run

# Benchmarks against GNU tar, gzip, zstd, sha256sum, OpenSSL and minisign;
# writes docs/performance.md (BENCH_ARGS: e.g. --runs 3 --scale 0.1).
bench: deps
	@$(MAKE) --no-print-directory all
	@test -x /usr/bin/time || { echo "bench: needs GNU time (apt-get install time)" >&2; exit 1; }
	@python3 bench/run.py $(BENCH_ARGS)

demo: deps
	@$(MAKE) --no-print-directory all
	@scripts/demo

clean:
	rm -rf build

-include $(LIB_OBJS:.o=.d) $(CLI_OBJS:.o=.d)
