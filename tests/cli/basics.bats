#!/usr/bin/env bats
# The command table: help, version, unknown commands, exit codes.

load helpers

@test "--version prints the version" {
	run "$PACKSIGN" --version
	[ "$status" -eq 0 ]
	[[ "$output" =~ ^packsign\ [0-9]+\.[0-9]+\.[0-9]+$ ]]
}

@test "--help lists every command" {
	run "$PACKSIGN" --help
	[ "$status" -eq 0 ]
	[[ "$output" == *"pack "* ]]
	[[ "$output" == *"digest "* ]]
}

@test "help CMD and CMD --help print the same text" {
	for c in pack digest install list uninstall; do
		a=$("$PACKSIGN" help "$c")
		b=$("$PACKSIGN" "$c" --help)
		[ "$a" = "$b" ]
		[[ "$a" == "usage: packsign $c"* ]]
	done
}

@test "no command, an unknown command or help for one is exit 2" {
	run "$PACKSIGN"
	[ "$status" -eq 2 ]
	run "$PACKSIGN" frobnicate
	[ "$status" -eq 2 ]
	[[ "$output" == *"unknown command 'frobnicate'"* ]]
	run "$PACKSIGN" help frobnicate
	[ "$status" -eq 2 ]
}

@test "the man page renders without warnings and covers every command" {
	command -v man >/dev/null || skip "man is not installed"
	page="$BATS_TEST_DIRNAME/../../docs/packsign.1"
	run bash -c "MANWIDTH=80 man --warnings -l '$page' 2>&1 >/dev/null"
	[ -z "$output" ]
	text=$(MANWIDTH=200 man -l "$page" 2>/dev/null)
	for c in $("$PACKSIGN" --help | awk '/^commands:/{f=1;next} f&&NF{print $1} /^$/{if(f)exit}'); do
		[[ "$text" == *"packsign $c"* ]] || { echo "man page lacks $c"; return 1; }
	done
}

@test "make demo's script runs: pack, digest, keygen, sign, verify, a tampered archive refused, install, list" {
	run "$BATS_TEST_DIRNAME/../../scripts/demo"
	echo "$output" | tail -5
	[ "$status" -eq 0 ]
	[ "$(grep -c '^Good signature: ' <<<"$output")" = 4 ]
	[[ "$output" == *"[subject_mismatch]"* ]]
	[[ "$output" == *"installed research.top-journal-reviewer 0.1.0 to "*"/data/agentpacks/research.top-journal-reviewer/0.1.0"* ]]
	[[ "$output" == *"agentpack  research.top-journal-reviewer 0.1.0 (newest)  signer: acme-release"* ]]
}
