#!/usr/bin/env bats
# The shared library: soname, links, and an export list that is exactly
# the functions include/packsign.h declares (scripts/public-symbols).

load helpers

ROOT="$BATS_TEST_DIRNAME/../.."

setup() {
	cd "$BATS_TEST_TMPDIR"
	BUILD_DIR=$(dirname "$PACKSIGN")
	VERSION=$(sed -n 's/^#define PS_VERSION "\(.*\)"$/\1/p' \
	    "$ROOT/include/packsign.h")
	ABI=$(sed -n 's/^#define PS_ABI_VERSION //p' "$ROOT/include/packsign.h")
	SO=$BUILD_DIR/libpacksign.so.$VERSION
}

@test "the library's file is the header's version and its soname the header's ABI number" {
	[ -n "$VERSION" ] && [ -n "$ABI" ]
	# One place: the Makefile reads both from the header.
	! grep -qE '^VERSION *=' "$ROOT/Makefile"
	[ -f "$SO" ]
	run readelf -d "$SO"
	[[ $output == *"Library soname: [libpacksign.so.$ABI]"* ]]
	[ "$(readlink "$BUILD_DIR/libpacksign.so.$ABI")" = \
	    "libpacksign.so.$VERSION" ]
	[ "$(readlink "$BUILD_DIR/libpacksign.so")" = "libpacksign.so.$ABI" ]
}

@test "the shared library exports exactly the header's functions" {
	local want got
	want=$("$ROOT/scripts/public-symbols" "$ROOT/include/packsign.h")
	[ "$(wc -l <<<"$want")" -ge 100 ]
	got=$(nm -D --defined-only "$SO" | awk '{ print $3 }' | sed 's/@.*//' |
	    LC_ALL=C sort -u)
	if [ "$want" != "$got" ]; then
		echo "declared in packsign.h but not exported:"
		LC_ALL=C comm -23 <(echo "$want") <(echo "$got")
		echo "exported but not declared in packsign.h:"
		LC_ALL=C comm -13 <(echo "$want") <(echo "$got")
		return 1
	fi
	# Every export is code: the header declares no variables.
	[ -z "$(nm -D --defined-only "$SO" | awk '$2 != "T"')" ]
}

@test "internal ps_ helpers of the archive stay out of the shared library" {
	local internal
	# Non-static library functions the header does not declare exist (the
	# unit tests call them); none of them may be exported.
	internal=$(nm --defined-only "$BUILD_DIR/libpacksign.a" 2>/dev/null |
	    awk '$2 == "T" { print $3 }' | LC_ALL=C sort -u |
	    LC_ALL=C comm -23 - <("$ROOT/scripts/public-symbols" \
	    "$ROOT/include/packsign.h"))
	[ "$(wc -l <<<"$internal")" -ge 10 ]
	! nm -D --defined-only "$SO" | awk '{ print $3 }' |
	    grep -qxF -f <(echo "$internal")
}

@test "the CLI links against the shared library's exports alone" {
	# build/tests/packsign-shared is the CLI linked with -lpacksign: it
	# links only if the CLI uses nothing the library does not export.
	local cli=$BUILD_DIR/tests/packsign-shared
	run readelf -d "$cli"
	[[ $output == *"Shared library: [libpacksign.so.$ABI]"* ]]
	run env LD_LIBRARY_PATH="$BUILD_DIR" "$cli" --version
	[ "$status" -eq 0 ]
	[ "$output" = "packsign $VERSION" ]
	run env LD_LIBRARY_PATH="$BUILD_DIR" "$cli" digest \
	    "$EXAMPLES/$AGENTPACK"
	[ "$status" -eq 0 ]
	[ "$output" = "$("$PACKSIGN" digest "$EXAMPLES/$AGENTPACK")" ]
}

@test "public-symbols reads declarations, not members, typedefs or comments" {
	cat >h.h <<'EOF'
#ifndef H
#define H
#define PS_MACRO(x) ((x) + 1)
#ifdef __cplusplus
extern "C" {
#endif
/* not_a_function(void) in a comment; */
typedef int (*ps_callback)(void *ctx);
typedef struct ps_thing {
	int (*member)(void *ctx, const char *path);
	void (*close)(void *ctx);
} ps_thing;
int ps_one(const char *a,
    int b);
const char *ps_two(ps_thing *t) __attribute__((pure));
int ps_three(const char *fmt, ...)
    __attribute__((format(printf, 1, 2)));
void ps_four(const unsigned char d[32], char out[65]);
extern int ps_variable;
#ifdef __cplusplus
}
#endif
#endif
EOF
	run "$ROOT/scripts/public-symbols" h.h
	[ "$status" -eq 0 ]
	[ "$output" = "$(printf 'ps_four\nps_one\nps_three\nps_two')" ]
	run "$ROOT/scripts/public-symbols" h.h --map
	[[ $output == *"global:"*"ps_four;"*"local:"*"*;"* ]]
}
