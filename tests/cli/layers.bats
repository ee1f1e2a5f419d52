#!/usr/bin/env bats
# The house keeps its shape: rooms depend on each other one way
# (scripts/check-layers), the ABI number moves with the ABI
# (scripts/check-abi), no function grows past 60 lines
# (scripts/check-function-length).  Each checker is run on the tree as it is
# and on a copy broken on purpose, so that a checker that passes everything
# fails here.

load helpers

ROOT="$BATS_TEST_DIRNAME/../.."
# The build directory of the binary under test (build/ or build/asan/).
BUILD_DIR=$(cd "$(dirname "$PACKSIGN")" && pwd)

copy_sources() {
	local dst="$BATS_TEST_TMPDIR/tree"
	mkdir -p "$dst/scripts" "$dst/include"
	for room in $("$ROOT/scripts/check-layers" --rooms) examples bench; do
		cp -R "$ROOT/$room" "$dst/"
	done
	cp "$ROOT/include/packsign.h" "$dst/include/"
	cp "$ROOT/scripts/check-layers" "$ROOT/scripts/check-abi" \
	    "$ROOT/scripts/public-symbols" "$ROOT/scripts/packsign.abi" \
	    "$ROOT/scripts/check-function-length" "$dst/scripts/"
	echo "$dst"
}

@test "check-layers: every include and symbol follows the room table, no cycle" {
	run "$ROOT/scripts/check-layers" --build "$BUILD_DIR"
	echo "$output"
	[ "$status" -eq 0 ]
	[[ "$output" == *"every include and symbol follows the table, no cycle"* ]]
	# The objects were read: a symbol-level check ran.
	[[ "$output" != *" 0 objects"* ]]
}

@test "check-layers names an include upward, a public-looking name, a cycle and a header without its room line" {
	tree=$(copy_sources)
	# verify/ may not use install/
	sed -i '0,/^#include "/s//#include "install\/receipt.h"\n#include "/' \
	    "$tree/verify/source.c"
	# an internal function named like a public one
	echo 'int ps_internal_probe(void);' >>"$tree/pack/items.h"
	# a cycle: outputs.c includes signprep.h, signprep.c includes outputs.h
	sed -i '0,/^#include "/s//#include "sign\/signprep.h"\n#include "/' \
	    "$tree/sign/outputs.c"
	# a header that does not say it is internal
	sed -i '1s/.*/\/* The canonical tar writer. *\//' "$tree/pack/tarwrite.h"
	# an example that reaches past packsign.h
	sed -i '0,/^#include </s//#include "util\/error.h"\n#include </' \
	    "$tree/examples/verify-and-install.c"
	run "$tree/scripts/check-layers" --root "$tree" --build "$tree/none"
	echo "$output"
	[ "$status" -eq 1 ]
	[[ "$output" == *'verify/source.c:'*'includes "install/receipt.h": verify/ may use'* ]]
	[[ "$output" == *"pack/items.h:"*"ps_internal_probe looks public but packsign.h does not declare it"* ]]
	[[ "$output" == *"sign/: modules use each other in a cycle: outputs -> signprep -> outputs"* ]]
	[[ "$output" == *'pack/tarwrite.h:1: an internal header opens with "/* Internal header of pack/'* ]]
	[[ "$output" == *'examples/verify-and-install.c:'*'uses libpacksign through packsign.h only'* ]]
}

@test "the static library exports nothing beyond packsign.h without its room's prefix" {
	run nm -g --defined-only "$BUILD_DIR/libpacksign.a"
	[ "$status" -eq 0 ]
	# What the archive exports beyond packsign.h carries a room prefix.
	public=$("$ROOT/scripts/public-symbols" "$ROOT/include/packsign.h")
	# (__-prefixed names are the compiler's: ASan's __odr_asan.X)
	bad=$(awk 'NF == 3 && $2 ~ /[TDRB]/ && $3 !~ /^__/ {print $3}' <<<"$output" | sort -u |
	    grep -vxF -f <(printf '%s\n' $public) |
	    grep -vE '^(util|dynlib|net|keys|sigstore|formats|pack|sign|keyless|verify|diff|index|install)_' || true)
	[ -z "$bad" ] || { echo "unprefixed: $bad"; return 1; }
}

@test "check-abi: the library's layouts and prototypes are the recorded ABI" {
	command -v gdb >/dev/null || skip "gdb is not installed"
	run "$ROOT/scripts/check-abi" --build "$BUILD_DIR"
	echo "$output"
	[ "$status" -eq 0 ]
	abi=$(sed -n 's/^#define PS_ABI_VERSION //p' "$ROOT/include/packsign.h")
	[[ "$output" == "check-abi: ABI $abi: "* ]]
	# The soname is the ABI number.
	run objdump -p "$BUILD_DIR/libpacksign.so"
	[[ "$output" == *"SONAME               libpacksign.so.$abi"* ]]
}

@test "check-abi: a layout that changed without a new ABI number fails, a new number without a record fails" {
	command -v gdb >/dev/null || skip "gdb is not installed"
	tree=$(copy_sources)
	# The record says ps_error was one byte smaller: the library "changed".
	sed -i 's|^/\* 0 \| 4 \*/ ps_status status;$|/* 0 \| 5 */ ps_status status;|' \
	    "$tree/scripts/packsign.abi"
	grep -q '| 5 \*/ ps_status status;' "$tree/scripts/packsign.abi"
	run "$tree/scripts/check-abi" --build "$BUILD_DIR"
	echo "$output"
	[ "$status" -eq 1 ]
	[[ "$output" == *"changed: type ps_error"* ]]
	[[ "$output" == *"the public ABI changed and PS_ABI_VERSION is still"*"bump it"* ]]
	# Bumped, but not recorded.
	sed -i 's/^#define PS_ABI_VERSION \([0-9]*\)$/#define PS_ABI_VERSION 99/' \
	    "$tree/include/packsign.h"
	run "$tree/scripts/check-abi" --build "$BUILD_DIR"
	[ "$status" -eq 1 ]
	[[ "$output" == *"PS_ABI_VERSION is 99, the record describes"*"--update"* ]]
}

@test "ps_version and ps_abi_version report the header the library was built with" {
	cat >"$BATS_TEST_TMPDIR/v.c" <<-'EOF'
	#include <stdio.h>
	#include <string.h>
	#include <packsign.h>
	int main(void) {
		printf("%s %d\n", ps_version(), ps_abi_version());
		return strcmp(ps_version(), PS_VERSION) != 0 ||
		    ps_abi_version() != PS_ABI_VERSION;
	}
	EOF
	cc -I"$ROOT/include" "$BATS_TEST_TMPDIR/v.c" -o "$BATS_TEST_TMPDIR/v" \
	    -L"$ROOT/build" -lpacksign
	run env LD_LIBRARY_PATH="$ROOT/build" "$BATS_TEST_TMPDIR/v"
	[ "$status" -eq 0 ]
	[ "$output" = "$("$PACKSIGN" --version | cut -d' ' -f2) $(sed -n 's/^#define PS_ABI_VERSION //p' "$ROOT/include/packsign.h")" ]
}

@test "check-function-length: no function over 60 lines; a longer one is named" {
	run "$ROOT/scripts/check-function-length" --stats
	echo "$output"
	[ "$status" -eq 0 ]
	tree=$(copy_sources)
	{ printf 'static int\nlong_one(void)\n{\n'; for i in $(seq 61); do
		echo "	(void)$i;"; done; printf '\treturn 0;\n}\n'; } >>"$tree/util/strings.c"
	run "$tree/scripts/check-function-length"
	[ "$status" -eq 1 ]
	[[ "$output" == *"util/strings.c:"*"long_one(void) is 62 lines (at most 60)"* ]]
}

@test "check-function-length covers bench/ and examples/, and a brace on the head's line" {
	tree=$(copy_sources)
	long_body() { for i in $(seq 61); do echo "	(void)$i;"; done; }
	# bench/'s own style (head on one line), and a K&R brace.
	{ printf 'static int long_bench(void)\n{\n'; long_body; printf '\treturn 0;\n}\n'; } \
	    >>"$tree/bench/runmany.c"
	{ printf 'static int knr_one(void) {\n'; long_body; printf '\treturn 0;\n}\n'; } \
	    >>"$tree/examples/show-upgrade.c"
	run "$tree/scripts/check-function-length"
	echo "$output"
	[ "$status" -eq 1 ]
	[[ "$output" == *"bench/runmany.c:"*"static int long_bench(void) is 62 lines (at most 60)"* ]]
	[[ "$output" == *"examples/show-upgrade.c:"*"static int knr_one(void) is 62 lines (at most 60)"* ]]
	[ "${#lines[@]}" -eq 2 ]
}

@test "make names missing dependencies in one line instead of failing to compile" {
	run make --no-print-directory -C "$ROOT" PKG_CONFIG=/bin/false BUILD="$BATS_TEST_TMPDIR/b" all
	echo "$output"
	[ "$status" -ne 0 ]
	[ "${#lines[@]}" -eq 1 ]
	[[ "${lines[0]}" == *"missing libsodium libcrypto libarchive yaml-0.1 jansson zlib libzstd libgit2 libcurl: install them with scripts/install-deps"* ]]
	[ ! -d "$BATS_TEST_TMPDIR/b/obj" ]
}
