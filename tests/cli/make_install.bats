#!/usr/bin/env bats
# make install / make uninstall into a temporary DESTDIR, from the build
# under test (nothing is rebuilt), then examples/verify-and-install.c
# built against the installed packsign.pc, shared and static, and run on
# an archive the installed packsign signed.

load helpers
bats_require_minimum_version 1.5.0

ROOT=$(cd "$BATS_TEST_DIRNAME/../.." && pwd)
VERSION=$(sed -n 's/^#define PS_VERSION "\(.*\)"$/\1/p' "$ROOT/include/packsign.h")
ABI=$(sed -n 's/^#define PS_ABI_VERSION //p' "$ROOT/include/packsign.h")

setup_file() {
	# The sanitizer build's shared library needs the ASan runtime loaded
	# first; installing is checked once, on the plain build.
	if readelf -d "$PACKSIGN" | grep -q 'libasan'; then
		export SKIP_REASON="the plain build is installed, not build/asan"
	fi
	BUILD_REL=$(realpath --relative-to="$ROOT" "$(dirname "$PACKSIGN")")
	export BUILD_REL
}

setup() {
	[ -z "${SKIP_REASON:-}" ] || skip "$SKIP_REASON"
	cd "$BATS_TEST_TMPDIR"
	unset PACKSIGN_PASSPHRASE PACKSIGN_SECRET_KEY SOURCE_DATE_EPOCH
	unset PACKSIGN_DATA_DIR
	T=$BATS_TEST_TMPDIR/root
}

teardown() {
	chmod -R u+w "$BATS_TEST_TMPDIR" 2>/dev/null || true
}

# mk TARGET VAR=VALUE...: make in the source tree, on the build under test.
mk() {
	make -C "$ROOT" --no-print-directory BUILD="$BUILD_REL" "$@"
}

# installed DIR: every file and link under DIR, relative, sorted.
installed() {
	(cd "$1" && find . \( -type f -o -type l \) -print | sed 's|^\./||' |
	    LC_ALL=C sort)
}

# pc ARGS...: pkg-config on the DESTDIR's packsign.pc, paths under $T.
# Words are printed one space apart, without pkg-config's trailing space.
pc() {
	local out
	out=$(PKG_CONFIG_PATH="$T/usr/lib/pkgconfig" \
	    PKG_CONFIG_SYSROOT_DIR="$T" pkg-config "$@" packsign) || return
	echo $out
}

@test "make install puts exactly the expected files under DESTDIR/PREFIX, rebuilding nothing" {
	local so=libpacksign.so.$ABI.$VERSION before
	# Nothing to compile or link: the build under test is what installs.
	run mk -n install DESTDIR="$T" PREFIX=/usr
	[ "$status" -eq 0 ]
	! grep -E -- "(-o |ar rcs )$BUILD_REL/" <<<"$output"
	before=$(stat -c '%Y %n' "$PACKSIGN" "$ROOT/$BUILD_REL/$so")
	run mk install DESTDIR="$T" PREFIX=/usr
	[ "$status" -eq 0 ]
	[ "$(stat -c '%Y %n' "$PACKSIGN" "$ROOT/$BUILD_REL/$so")" = "$before" ]
	[ "$(installed "$T")" = "$(printf '%s\n' usr/bin/packsign \
	    usr/include/packsign.h usr/lib/libpacksign.a usr/lib/libpacksign.so \
	    usr/lib/libpacksign.so.$ABI usr/lib/$so usr/lib/pkgconfig/packsign.pc \
	    usr/share/bash-completion/completions/packsign \
	    usr/share/man/man1/packsign.1 usr/share/zsh/site-functions/_packsign |
	    LC_ALL=C sort)" ]
	[ "$(readlink "$T/usr/lib/libpacksign.so.$ABI")" = "$so" ]
	[ "$(readlink "$T/usr/lib/libpacksign.so")" = "libpacksign.so.$ABI" ]
	[ "$(stat -c %a "$T/usr/bin/packsign")" = 755 ]
	[ "$(stat -c %a "$T/usr/include/packsign.h")" = 644 ]
	cmp "$ROOT/include/packsign.h" "$T/usr/include/packsign.h"
	cmp "$ROOT/completions/_packsign" \
	    "$T/usr/share/zsh/site-functions/_packsign"
	cmp "$ROOT/completions/packsign.bash" \
	    "$T/usr/share/bash-completion/completions/packsign"
	cmp "$ROOT/docs/packsign.1" "$T/usr/share/man/man1/packsign.1"
	"$T/usr/bin/packsign" --version
	# packsign.pc: version, flags, and the private dependencies.
	[ "$(pc --modversion)" = 0.1.0 ]
	[ "$(pc --cflags)" = "-I$T/usr/include" ]
	[ "$(pc --libs)" = "-L$T/usr/lib -lpacksign" ]
	# libgit2 and libcurl are opened when needed, never linked.
	grep -qx 'Requires.private: libsodium libcrypto libarchive yaml-0.1 jansson zlib libzstd' \
	    "$T/usr/lib/pkgconfig/packsign.pc"
	[[ "$(pc --static --libs)" == *"-lunistring -lpthread -ldl"*"-lsodium"* ]]
	! grep -E 'git2|curl' "$T/usr/lib/pkgconfig/packsign.pc"
	# make uninstall removes all of it.
	run mk uninstall DESTDIR="$T" PREFIX=/usr
	[ "$status" -eq 0 ]
	[ -z "$(installed "$T")" ]
}

@test "the example builds against the installed packsign.pc, shared and static, and installs a pack" {
	local pk=$T/usr/bin/packsign ex=$ROOT/examples/verify-and-install.c
	mk install DESTDIR="$T" PREFIX=/usr >/dev/null
	# The installed packsign makes the key, policy and signed archive.
	"$pk" keygen -o alice --identity alice --no-passphrase >/dev/null
	printf '%s\n' 'version: 1' 'signers:' '  - identity: alice' '    keys:' \
	    "      - key: $(sed -n 2p alice.pub)" '    packs: ["*"]' \
	    'threshold: 1' >policy.yaml
	"$pk" sign "$(copy_pack "$AGENTPACK")" -s alice.key -o ap.tar.gz \
	    >/dev/null
	# Shared: needs libpacksign.so.ABI from DESTDIR at run time.
	# shellcheck disable=SC2046
	cc -std=c11 -Wall -Wextra -Werror "$ex" -o ex-shared \
	    $(pc --cflags --libs)
	readelf -d ex-shared | grep -q "Shared library: \[libpacksign.so.$ABI\]"
	run env LD_LIBRARY_PATH="$T/usr/lib" ./ex-shared ap.tar.gz policy.yaml \
	    data-shared
	[ "$status" -eq 0 ]
	[[ ${lines[0]} == "installed $AGENTPACK 0.1.0" ]]
	# Static: libpacksign.a and every private dependency pkg-config
	# --static names (the system libraries stay shared).
	# shellcheck disable=SC2046
	cc -std=c11 -Wall -Wextra -Werror "$ex" -o ex-static \
	    $(pc --static --cflags --libs | sed 's/-lpacksign\b/-l:libpacksign.a/')
	! readelf -d ex-static | grep -q libpacksign
	run ./ex-static ap.tar.gz policy.yaml data-static
	[ "$status" -eq 0 ]
	[[ ${lines[0]} == "installed $AGENTPACK 0.1.0" ]]
	# Both installed the same tree.
	diff -r data-shared/agentpacks data-static/agentpacks
	mk uninstall DESTDIR="$T" PREFIX=/usr >/dev/null
	[ -z "$(installed "$T")" ]
}

@test "make install honours BINDIR, LIBDIR, INCLUDEDIR, MANDIR, PKGCONFIGDIR and the completion dirs" {
	local vars=(PREFIX=/opt/ps BINDIR=/opt/ps/sbin LIBDIR=/opt/lib64
	    INCLUDEDIR=/opt/ps/inc MANDIR=/opt/man PKGCONFIGDIR=/opt/pc
	    BASHCOMPDIR=/opt/bash ZSHCOMPDIR=/opt/zsh)
	mk install DESTDIR="$T" "${vars[@]}" >/dev/null
	[ "$(installed "$T")" = "$(printf '%s\n' opt/bash/packsign \
	    opt/lib64/libpacksign.a opt/lib64/libpacksign.so \
	    opt/lib64/libpacksign.so.$ABI opt/lib64/libpacksign.so.$ABI.$VERSION \
	    opt/man/man1/packsign.1 opt/pc/packsign.pc opt/ps/inc/packsign.h \
	    opt/ps/sbin/packsign opt/zsh/_packsign | LC_ALL=C sort)" ]
	# Under PREFIX relative to ${prefix}; elsewhere as given.
	grep -qx 'prefix=/opt/ps' "$T/opt/pc/packsign.pc"
	grep -qx 'libdir=/opt/lib64' "$T/opt/pc/packsign.pc"
	grep -qx 'includedir=${prefix}/inc' "$T/opt/pc/packsign.pc"
	mk uninstall DESTDIR="$T" "${vars[@]}" >/dev/null
	[ -z "$(installed "$T")" ]
}

# README, "Installing packsign": a program built against a library under a
# PREFIX of one's own runs with an rpath or LD_LIBRARY_PATH, and stops at
# start without either.
@test "a PREFIX of one's own: README's rpath and LD_LIBRARY_PATH commands run the example" {
	local p=$BATS_TEST_TMPDIR/home/.local
	run mk install PREFIX="$p"
	[ "$status" -eq 0 ]
	export PKG_CONFIG_PATH=$p/lib/pkgconfig
	[ "$(pkg-config --variable=libdir packsign)" = "$p/lib" ]
	cc "$ROOT/examples/verify-and-install.c" $(pkg-config --cflags --libs packsign) \
	    -Wl,-rpath,"$(pkg-config --variable=libdir packsign)" -o with-rpath
	cc "$ROOT/examples/verify-and-install.c" $(pkg-config --cflags --libs packsign) -o v2
	run -127 ./v2
	[ "$status" -eq 127 ]
	[[ "$output" == *"libpacksign.so.$ABI: cannot open shared object file"* ]]
	run ./with-rpath
	[ "$status" -eq 2 ]
	[[ "$output" == "usage: verify-and-install "* ]]
	run env LD_LIBRARY_PATH="$p/lib" ./v2
	[ "$status" -eq 2 ]
	[[ "$output" == "usage: verify-and-install "* ]]
	# The README shows these commands.
	grep -qF -- '-Wl,-rpath,$(pkg-config --variable=libdir packsign) -o verify-and-install' "$ROOT/README.md"
	grep -qF 'LD_LIBRARY_PATH=$HOME/.local/lib ./v2' "$ROOT/README.md"
	run mk uninstall PREFIX="$p"
	[ "$status" -eq 0 ]
}
