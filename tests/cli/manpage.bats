#!/usr/bin/env bats
# docs/packsign.1 renders without a warning (man-db, groff, mandoc's lint
# at error level) and has an entry for every command the binary knows.

load helpers

MAN="$BATS_TEST_DIRNAME/../../docs/packsign.1"

setup() {
	cd "$BATS_TEST_TMPDIR"
}

@test "man -l renders packsign.1 with no warning" {
	command -v man >/dev/null || skip "man-db is not installed"
	MANWIDTH=80 man --warnings -E UTF-8 -l "$MAN" >page 2>warnings
	[ ! -s warnings ] || { cat warnings; return 1; }
	grep -q '^PACKSIGN(1)' page
	grep -q '^NAME' page
	grep -q '^EXIT STATUS' page
}

@test "groff -ww finds nothing to warn about in packsign.1" {
	command -v groff >/dev/null || skip "groff is not installed"
	groff -mdoc -ww -z "$MAN" 2>warnings
	[ ! -s warnings ] || { cat warnings; return 1; }
}

@test "mandoc -Tlint finds no error in packsign.1" {
	command -v mandoc >/dev/null || skip "mandoc is not installed"
	# Cross-references to pages absent from this machine's database are
	# not errors of the page.
	run mandoc -Tlint -Werror "$MAN"
	[ "$status" -eq 0 ]
}

@test "packsign.1 has an entry for every command" {
	local cmd pat
	for cmd in $("$PACKSIGN" help | awk '/^commands:/ { on = 1; next }
	    on && /^  [a-z]/ { print $1 }'); do
		# mdoc writes a hyphen as \- (verify\-blob).
		pat=$(sed 's/-/\\\\-/g' <<<"$cmd")
		grep -q "^\\.It Nm Cm $pat\\b" "$MAN" ||
		    { echo "packsign.1: no '.It Nm Cm $cmd'"; return 1; }
	done
}
