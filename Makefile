# packsign - canonical, signed agent packs.
#
#   make            build build/packsign, build/libpacksign.a and the shared
#                   build/libpacksign.so.ABI.VERSION (soname
#                   libpacksign.so.ABI, PS_ABI_VERSION of include/packsign.h)
#   make install    install under DESTDIR + PREFIX (default /usr/local);
#                   BINDIR, LIBDIR, INCLUDEDIR, MANDIR, PKGCONFIGDIR,
#                   BASHCOMPDIR, ZSHCOMPDIR override single places
#   make uninstall  remove exactly what make install put there
#   make check      install missing dependencies, build, run every test
#   make demo       install missing dependencies, build, run on examples/packs
#   make node-addon the Node.js binding's addon (bindings/node, node-gyp
#                   against the running Node's headers) into
#                   build/node-packsign (part of check, also in build/asan)
#   make check-asan unit and CLI tests against an ASan+UBSan build only
#                   (build/asan; part of check)
#   make valgrind   representative CLI commands under valgrind memcheck
#   make lint       cppcheck and clang-tidy (.clang-tidy) over the sources
#   make fuzz       build the libFuzzer targets into build/fuzz (clang)
#   make fuzz-smoke build them and run each briefly over its seed corpus
#   make bench      benchmarks against GNU tar, minisign, OpenSSL, ...;
#                   writes docs/performance.md (about 35 minutes).
#                   BENCH_ONLY=ROW[,ROW...] re-runs only those rows:
#                     unlock, index   key unlock, the signed pack index
#                     big, many       1 GiB in 16 files, 100,000 files
#                     examples        every example pack (pack, sign,
#                                     verify, install; runmany)
#                     small           verify each example vs minisign -V
#                     startup         --version and digest vs minisign -v
#                     batch           10,000 packs in one verify vs
#                                     10,000 minisign -V processes
#                     sigstore        verify-blob of keyless bundles vs
#                                     @sigstore/verify in Node
#                   (a dataset's name, such as an example's, also
#                   selects it); BENCH_ARGS passes more options to
#                   bench/run.py (--runs N, --scale F, --batch-count N,
#                   --small-runs N, --example-runs N, --sigstore-runs N,
#                   --verbose)
#   make bench-tools build/bench/runmany (the timing harness) and
#                   build/bench/genpacks (the batch dataset)

# The version and the ABI number (the soname's major) are include/packsign.h's.
VERSION  := $(shell sed -n 's/^\#define PS_VERSION "\(.*\)"$$/\1/p' include/packsign.h)
ABI      := $(shell sed -n 's/^\#define PS_ABI_VERSION \([0-9]*\)$$/\1/p' include/packsign.h)
ifeq ($(ABI),)
  $(error include/packsign.h defines no PS_ABI_VERSION)
endif
ifeq ($(VERSION),)
  $(error include/packsign.h defines no PS_VERSION)
endif
CC       ?= cc
BUILD    ?= build
PKG_CONFIG ?= pkg-config

# make install: DESTDIR + these.
PREFIX       ?= /usr/local
BINDIR       ?= $(PREFIX)/bin
LIBDIR       ?= $(PREFIX)/lib
INCLUDEDIR   ?= $(PREFIX)/include
DATADIR      ?= $(PREFIX)/share
MANDIR       ?= $(DATADIR)/man
PKGCONFIGDIR ?= $(LIBDIR)/pkgconfig
BASHCOMPDIR  ?= $(DATADIR)/bash-completion/completions
ZSHCOMPDIR   ?= $(DATADIR)/zsh/site-functions
INSTALL      ?= install

# libunistring ships no pkg-config file on Debian; it is linked directly.
# LOADED_PKGS are not linked: dynlib/ opens them by the soname found here
# when a command first needs them (provenance, rebuild, text diffs, https),
# so that start-up does not bind the 30-odd libraries they bring.
LINKED_PKGS = libsodium libcrypto libarchive yaml-0.1 jansson zlib libzstd
LOADED_PKGS = libgit2 libcurl
PKGS      = $(LINKED_PKGS) $(LOADED_PKGS)
PKG_CFLAGS := $(shell $(PKG_CONFIG) --cflags $(PKGS) 2>/dev/null)
PKG_LIBS   := $(shell $(PKG_CONFIG) --libs $(LINKED_PKGS) 2>/dev/null) \
              -lunistring -lpthread -ldl
LIBGIT2_SONAME := $(shell PKG_CONFIG='$(PKG_CONFIG)' scripts/soname-of libgit2)
LIBCURL_SONAME := $(shell PKG_CONFIG='$(PKG_CONFIG)' scripts/soname-of libcurl)
# (\" rather than '"..."': the flags are also written, single-quoted, to
# the flags stamp and passed in LINT_CFLAGS)
SONAME_DEFS = -DDYNLIB_LIBGIT2_SONAME=\"$(LIBGIT2_SONAME)\" \
              -DDYNLIB_LIBCURL_SONAME=\"$(LIBCURL_SONAME)\"
# The CLI: CLI_LINK=static (default) links the LINKED_PKGS' static
# archives into build/packsign (the C library stays shared), so that a
# verify of a small pack starts in about 1 ms instead of binding some
# 10,000 symbols of 20 shared libraries (docs/performance.md,
# "Start-up"); CLI_LINK=shared links them as shared libraries, for a
# distribution that wants every library updated on its own (README,
# "Packaging").  --gc-sections drops the archive members' unused
# functions: libarchive's xar writer, pulled in with its format table,
# is never called, and libxml2 (with ICU) is therefore not linked.
CLI_LINK ?= static
STATIC_LIBS = $(filter-out -lxml2 -ldl,$(shell $(PKG_CONFIG) --static \
    --libs-only-l $(LINKED_PKGS) 2>/dev/null)) -lunistring
ifeq ($(CLI_LINK),static)
  CLI_LIBS = -Wl,--gc-sections -Wl,-Bstatic $(STATIC_LIBS) -Wl,-Bdynamic \
             -lpthread -ldl -lm
else ifeq ($(CLI_LINK),shared)
  CLI_LIBS = $(PKG_LIBS)
else
  $(error CLI_LINK must be static or shared, not '$(CLI_LINK)')
endif
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

CPPFLAGS += -D_GNU_SOURCE -Iinclude -I. $(SONAME_DEFS)
CFLAGS   += -std=c11 $(OPT) $(WARN) $(HARDEN) $(SANFLAGS) $(PKG_CFLAGS)
LDFLAGS  += -pie -Wl,-z,relro,-z,now $(SANFLAGS)

LIB_SRCS  = $(sort $(wildcard util/*.c dynlib/*.c net/*.c keys/*.c formats/*.c pack/*.c sign/*.c sigstore/*.c keyless/*.c verify/*.c diff/*.c index/*.c install/*.c))
CLI_SRCS  = $(sort $(wildcard cli/*.c))
UNIT_SRCS = $(sort $(wildcard tests/unit/test_*.c))
FUZZ_SRCS = $(sort $(wildcard tests/fuzz/fuzz_*.c))

LIB_OBJS  = $(LIB_SRCS:%.c=$(BUILD)/obj/%.o)
CLI_OBJS  = $(CLI_SRCS:%.c=$(BUILD)/obj/%.o)
UNIT_BINS = $(UNIT_SRCS:tests/unit/%.c=$(BUILD)/tests/%)
# test_verify counts and races the archive reader's parses, zip scans and
# pass 1's hash.
UNIT_LDFLAGS_test_verify = -Wl,--wrap=pack_files_archive_open_with \
    -Wl,--wrap=pack_zipscan_read -Wl,--wrap=util_sha256_fd_copy
# test_extract and test_install watch what extraction hands to writeback.
UNIT_LDFLAGS_test_extract = -Wl,--wrap=sync_file_range
UNIT_LDFLAGS_test_install = -Wl,--wrap=sync_file_range
# test_sigwork counts the signature checks an envelope costs.
UNIT_LDFLAGS_test_sigwork = -Wl,--wrap=ps_key_verify_signature
# test_net drops libcurl options one at a time (the https-only guards)
# and counts outdated's parses and signature checks.
UNIT_LDFLAGS_test_net = -Wl,--wrap=dynlib_curl_open \
    -Wl,--wrap=pack_files_archive_open_with \
    -Wl,--wrap=ps_key_verify_signature
FUZZ_BINS = $(FUZZ_SRCS:tests/fuzz/%.c=$(BUILD)/%)
# Test-only tools (never installed): the CLI tests run them.
TOOL_BINS = $(BUILD)/tests/ps-testsign
BENCH_BINS = $(BUILD)/bench/runmany $(BUILD)/bench/genpacks

# The example programs, built with the public header only (no -I.).
EXAMPLE_SRCS = examples/verify-and-install.c examples/show-upgrade.c \
    examples/install-from-index.c
EXAMPLE_BIN = $(EXAMPLE_SRCS:examples/%.c=$(BUILD)/examples/%)
# The CLI linked against the shared library: it links only when the CLI
# uses nothing the library does not export.
TOOL_BINS += $(EXAMPLE_BIN) $(BUILD)/tests/packsign-shared

LIB = $(BUILD)/libpacksign.a
BIN = $(BUILD)/packsign

# The shared library exports exactly the functions include/packsign.h
# declares (scripts/public-symbols writes the version script); library
# objects are position-independent for it, and the archive uses them too.
SONAME    = libpacksign.so.$(ABI)
SO        = $(BUILD)/libpacksign.so.$(ABI).$(VERSION)
SO_LINKS  = $(BUILD)/$(SONAME) $(BUILD)/libpacksign.so
SO_MAP    = $(BUILD)/libpacksign.map
PIC       = -fPIC -fno-semantic-interposition
SO_LDFLAGS = -shared -Wl,-soname,$(SONAME) -Wl,--version-script=$(SO_MAP) \
             -Wl,-z,relro,-z,now $(SANFLAGS)
ifeq ($(SAN)$(FUZZ),)
  SO_LDFLAGS += -Wl,-z,defs
endif
# Objects are rebuilt when the compiler or its flags change.
FLAGS_STAMP = $(BUILD)/obj/compile.flags

# Before the first compile, when only building was asked for (targets that
# install the dependencies first, such as check and demo, check in their
# sub-make): every dependency present, or one line naming what is missing
# and how to install it, never a compiler error about a header.  A later
# dependency is added to PKGS or DEP_HEADERS (or TEST_PKGS for the tests).
DEP_HEADERS = unistr.h uninorm.h unicase.h unictype.h zlib.h zstd.h
TEST_PKGS   = cmocka
BUILD_GOALS = all unit tools bench-tools fuzz-bins install
ifeq ($(filter-out $(BUILD_GOALS),$(or $(MAKECMDGOALS),all)),)
  MISSING_DEPS := $(shell PKG_CONFIG='$(PKG_CONFIG)' CC='$(CC)' \
      HEADER_CFLAGS='$(CPPFLAGS) $(PKG_CFLAGS)' \
      scripts/missing-deps $(PKGS) \
      $(if $(filter unit fuzz-bins,$(MAKECMDGOALS)),$(TEST_PKGS)) \
      -- $(DEP_HEADERS))
  ifneq ($(MISSING_DEPS),)
    $(error missing $(MISSING_DEPS): install them with scripts/install-deps (as root; it names the Debian packages) or run make check, which does)
  endif
  ifeq ($(CLI_LINK),static)
    STATIC_MISSING := $(strip $(foreach l,$(patsubst -l%,%,$(STATIC_LIBS)),$(if \
        $(filter /%,$(shell $(CC) -print-file-name=lib$(l).a)),,lib$(l).a)))
    ifneq ($(STATIC_MISSING),)
      $(error CLI_LINK=static links the static archives $(STATIC_MISSING), which are missing: install their -dev packages with scripts/install-deps, or build with CLI_LINK=shared)
    endif
  endif
  ifeq ($(and $(LIBGIT2_SONAME),$(LIBCURL_SONAME)),)
    $(error scripts/soname-of found no shared libgit2 or libcurl (got '$(LIBGIT2_SONAME)' and '$(LIBCURL_SONAME)'): packsign opens them by soname at run time)
  endif
endif

.PHONY: all deps check check-asan asan demo bench bench-tools unit unit-asan tools valgrind lint \
        node-addon \
        clean fuzz fuzz-bins fuzz-smoke install uninstall
all: $(BIN) $(LIB) $(SO) $(SO_LINKS)

$(BUILD)/obj/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(CFLAGS) -MMD -MP -c $< -o $@

$(LIB): $(LIB_OBJS)
	@mkdir -p $(dir $@)
	rm -f $@
	ar rcs $@ $^

$(LIB_OBJS): CFLAGS += $(PIC)
$(LIB_OBJS) $(CLI_OBJS): $(FLAGS_STAMP)

# Rewritten while the Makefile is read, and only when the flags differ, so
# that `make -n` and `make install` see an up-to-date build as one.
COMPILE_FLAGS := $(strip $(CC) $(CPPFLAGS) $(CFLAGS) $(PIC))
ifneq ($(COMPILE_FLAGS),$(strip $(shell cat $(FLAGS_STAMP) 2>/dev/null)))
  $(shell mkdir -p $(dir $(FLAGS_STAMP)) && \
      printf '%s\n' '$(COMPILE_FLAGS)' >$(FLAGS_STAMP))
endif

$(SO_MAP): include/packsign.h scripts/public-symbols
	@mkdir -p $(dir $@)
	scripts/public-symbols include/packsign.h --map >$@.tmp
	mv $@.tmp $@

$(SO): $(LIB_OBJS) $(SO_MAP)
	$(CC) $(SO_LDFLAGS) -o $@ $(LIB_OBJS) $(PKG_LIBS)

$(BUILD)/$(SONAME): $(SO)
	ln -sf $(notdir $(SO)) $@

$(BUILD)/libpacksign.so: $(BUILD)/$(SONAME)
	ln -sf $(SONAME) $@

$(BIN): $(CLI_OBJS) $(LIB)
	$(CC) $(LDFLAGS) -o $@ $(CLI_OBJS) $(LIB) $(CLI_LIBS)

$(BUILD)/tests/packsign-shared: $(CLI_OBJS) $(SO_LINKS)
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) -o $@ $(CLI_OBJS) -L$(BUILD) -lpacksign $(PKG_LIBS)

$(BUILD)/examples/%: examples/%.c include/packsign.h $(LIB)
	@mkdir -p $(dir $@)
	$(CC) -Iinclude $(CFLAGS) $< -o $@ $(LDFLAGS) $(LIB) $(PKG_LIBS)

$(BUILD)/tests/%: tests/unit/%.c $(LIB)
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(CFLAGS) $(CMOCKA_CFLAGS) -Wno-missing-prototypes \
	    $< -o $@ $(LDFLAGS) $(UNIT_LDFLAGS_$*) $(LIB) $(PKG_LIBS) \
	    $(CMOCKA_LIBS)

$(BUILD)/tests/ps-%: tests/tools/ps-%.c $(LIB)
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(CFLAGS) $< -o $@ $(LDFLAGS) $(LIB) $(PKG_LIBS)

$(BUILD)/fuzz_%: tests/fuzz/fuzz_%.c tests/fuzz/fuzz.h $(LIB)
	$(CC) $(CPPFLAGS) $(CFLAGS) $< -o $@ -fsanitize=fuzzer $(LDFLAGS) \
	    $(LIB) $(PKG_LIBS)

tools: $(TOOL_BINS) $(BENCH_BINS)

# The benchmark's own programs (bench/run.py runs them; never installed).
$(BUILD)/bench/runmany: bench/runmany.c $(FLAGS_STAMP)
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(CFLAGS) $< -o $@ $(LDFLAGS)

$(BUILD)/bench/genpacks: bench/genpacks.c $(LIB)
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(CFLAGS) $< -o $@ $(LDFLAGS) $(LIB) $(PKG_LIBS)

bench-tools: $(BENCH_BINS)

# The Node.js binding (bindings/node): a copy of the package in
# $(BUILD)/node-packsign (node-gyp builds inside the package, and the work
# tree stays clean), built by its own install script against the running
# Node's headers (nothing is downloaded) and $(BUILD)'s libpacksign.so.1,
# whose directory becomes the addon's RUNPATH; with SAN=1 the addon is
# sanitized too.  tests/run runs bindings/node/test against it.
NODE_PKG = $(BUILD)/node-packsign
NODE_ADDON = $(NODE_PKG)/build/Release/packsign.node
NODE_FILES = bindings/node/package.json bindings/node/binding.gyp \
    bindings/node/index.js bindings/node/index.d.ts
NODE_SRCS = $(NODE_FILES) $(wildcard bindings/node/src/*.c \
    bindings/node/src/*.h bindings/node/scripts/*.js)
node-addon: $(NODE_ADDON)

$(NODE_ADDON): $(NODE_SRCS) $(SO_LINKS)
	@rm -rf $(NODE_PKG) && mkdir -p $(NODE_PKG)
	cp -R $(NODE_FILES) bindings/node/src bindings/node/scripts $(NODE_PKG)/
	@cd $(NODE_PKG) && PACKSIGN_INCLUDEDIR=$(CURDIR)/include \
	    PACKSIGN_LIBDIR=$(CURDIR)/$(BUILD) PACKSIGN_SANITIZE=$(SAN) \
	    node scripts/build.js >build.log 2>&1 || \
	    { cat build.log; echo "node-addon: node-gyp failed (scripts/install-deps installs Node, its headers and node-gyp)" >&2; exit 1; }

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

# The library, CLI, unit tests and test tools once more under
# AddressSanitizer + UndefinedBehaviorSanitizer, in build/asan.
asan:
	@$(MAKE) --no-print-directory BUILD=build/asan SAN=1 all unit tools \
	    node-addon

unit-asan:
	@$(MAKE) --no-print-directory BUILD=build/asan SAN=1 unit

# tests/run: unit and CLI tests against build/, then against build/asan
# (ASAN_OPTIONS/UBSAN_OPTIONS there make any report fail the run).
check: deps
	@$(MAKE) --no-print-directory all unit tools node-addon
	@$(MAKE) --no-print-directory asan
	@tests/run

check-asan: deps
	@$(MAKE) --no-print-directory asan
	@tests/run --asan

valgrind: deps
	@$(MAKE) --no-print-directory all tools
	@scripts/valgrind-cli

# Static analysis of the library and CLI sources; clang-tidy's checks are
# chosen in .clang-tidy, cppcheck's suppressions are inline.
# The Node.js addon's sources too, against the running Node's headers
# (-idirafter: after the system's, so that the OpenSSL and zlib headers
# node ships never stand in for the system's in the library's files).
NODE_INCLUDE = $(shell node -p "require('path').resolve(process.execPath, '..', '..', 'include', 'node')" 2>/dev/null)
LINT_SRCS = $(LIB_SRCS) $(CLI_SRCS) $(EXAMPLE_SRCS) bench/runmany.c \
            bench/genpacks.c $(sort $(wildcard bindings/node/src/*.c))
lint:
	@LINT_CFLAGS="$(PKG_CFLAGS) -idirafter $(NODE_INCLUDE)" LINT_DEFINES="$(SONAME_DEFS) -DNAPI_VERSION=8" scripts/lint $(LINT_SRCS)

# Benchmarks against GNU tar, gzip, zstd, sha256sum, OpenSSL and minisign;
# writes docs/performance.md (BENCH_ARGS: e.g. --runs 3 --scale 0.1;
# BENCH_ONLY: the rows above).
bench: deps
	@$(MAKE) --no-print-directory all bench-tools
	@test -x /usr/bin/time || { echo "bench: needs GNU time (apt-get install time)" >&2; exit 1; }
	@python3 bench/run.py $(if $(BENCH_ONLY),--only $(BENCH_ONLY)) $(BENCH_ARGS)

demo: deps
	@$(MAKE) --no-print-directory all
	@scripts/demo

clean:
	rm -rf build

# make install / uninstall.  packsign.pc is written from PREFIX and LIBDIR
# at install time (paths under PREFIX as ${prefix}/..., so pkg-config
# --define-prefix can relocate it).
# libgit2 and libcurl are not linked (dynlib/ opens them when needed), so
# the .pc names neither; a static link of libpacksign.a needs -ldl.
PC_REQUIRES = $(LINKED_PKGS)
PC_PREFIXED = $(patsubst $(PREFIX)/%,$${prefix}/%,$(1))
INSTALLED = $(BINDIR)/packsign $(LIBDIR)/libpacksign.a \
    $(LIBDIR)/libpacksign.so.$(ABI).$(VERSION) $(LIBDIR)/$(SONAME) \
    $(LIBDIR)/libpacksign.so $(INCLUDEDIR)/packsign.h \
    $(PKGCONFIGDIR)/packsign.pc $(MANDIR)/man1/packsign.1 \
    $(BASHCOMPDIR)/packsign $(ZSHCOMPDIR)/_packsign

install: all
	$(INSTALL) -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(LIBDIR) \
	    $(DESTDIR)$(INCLUDEDIR) $(DESTDIR)$(PKGCONFIGDIR) \
	    $(DESTDIR)$(MANDIR)/man1 $(DESTDIR)$(BASHCOMPDIR) \
	    $(DESTDIR)$(ZSHCOMPDIR)
	$(INSTALL) -m 755 $(BIN) $(DESTDIR)$(BINDIR)/packsign
	$(INSTALL) -m 644 $(LIB) $(DESTDIR)$(LIBDIR)/libpacksign.a
	$(INSTALL) -m 755 $(SO) $(DESTDIR)$(LIBDIR)/libpacksign.so.$(ABI).$(VERSION)
	ln -sf libpacksign.so.$(ABI).$(VERSION) $(DESTDIR)$(LIBDIR)/$(SONAME)
	ln -sf $(SONAME) $(DESTDIR)$(LIBDIR)/libpacksign.so
	$(INSTALL) -m 644 include/packsign.h $(DESTDIR)$(INCLUDEDIR)/packsign.h
	printf '%s\n' 'prefix=$(PREFIX)' \
	    'libdir=$(call PC_PREFIXED,$(LIBDIR))' \
	    'includedir=$(call PC_PREFIXED,$(INCLUDEDIR))' '' \
	    'Name: packsign' \
	    'Description: canonical, signed agent packs: pack, sign, verify, install' \
	    'Version: $(VERSION)' \
	    'Requires.private: $(PC_REQUIRES)' \
	    'Cflags: -I$${includedir}' \
	    'Libs: -L$${libdir} -lpacksign' \
	    'Libs.private: -lunistring -lpthread -ldl' \
	    >$(DESTDIR)$(PKGCONFIGDIR)/packsign.pc
	chmod 644 $(DESTDIR)$(PKGCONFIGDIR)/packsign.pc
	$(INSTALL) -m 644 docs/packsign.1 $(DESTDIR)$(MANDIR)/man1/packsign.1
	$(INSTALL) -m 644 completions/packsign.bash \
	    $(DESTDIR)$(BASHCOMPDIR)/packsign
	$(INSTALL) -m 644 completions/_packsign $(DESTDIR)$(ZSHCOMPDIR)/_packsign

uninstall:
	rm -f $(addprefix $(DESTDIR),$(INSTALLED))

-include $(LIB_OBJS:.o=.d) $(CLI_OBJS:.o=.d)

