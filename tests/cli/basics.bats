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

@test "a mistyped command, subcommand or option: did you mean" {
	run "$PACKSIGN" verfy x.tar.gz
	[ "$status" -eq 2 ]
	[ "$output" = "packsign: unknown command 'verfy'; did you mean 'verify'? See 'packsign --help' [usage]" ]
	run "$PACKSIGN" instal
	[[ "$output" == *"did you mean 'install'?"* ]]
	run "$PACKSIGN" help lsit
	[ "$output" = "packsign: unknown command 'lsit'; did you mean 'list'? [usage]" ]
	run "$PACKSIGN" frobnicate
	[ "$output" = "packsign: unknown command 'frobnicate'; see 'packsign --help' [usage]" ]
	run "$PACKSIGN" verify r.tar.gz --turst p.yaml
	[ "$status" -eq 2 ]
	[ "${lines[0]}" = "packsign verify: unknown option '--turst'; did you mean '--trust'? [usage]" ]
	run "$PACKSIGN" verify r.tar.gz --sigend-by=alice
	[ "${lines[0]}" = "packsign verify: unknown option '--sigend-by'; did you mean '--signed-by'? [usage]" ]
	# A long option written with one dash.
	run "$PACKSIGN" verify r.tar.gz -trust p.yaml
	[ "${lines[0]}" = "packsign verify: unknown option '-t'; did you mean '--trust'? [usage]" ]
	# Ambiguous prefixes name the options they could be.
	run "$PACKSIGN" install x --allow
	[[ "${lines[0]}" == "packsign install: unknown option '--allow'; did you mean '--allow-"*" more? [usage]" ]]
	run "$PACKSIGN" key shwo k.pub
	[ "${lines[0]}" = "packsign key: unknown subcommand 'shwo'; did you mean 'show'? [usage]" ]
	run "$PACKSIGN" index biuld
	[[ "${lines[0]}" == *"did you mean 'build'?"* ]]
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
	[[ "$output" == *"egress telemetry.example.net:443/https"*"[consent_required]"* ]]
	[[ "$output" == *"+ egress telemetry.example.net:443/https  [widening: permissions]"* ]]
	[[ "$output" == *"upgrade from 0.1.0: "*"consent: accept-diff"* ]]
}

# One option layer: every command words an option it does not take the same
# way, naming it, with its synopsis and exit 2.
@test "every command refuses an unknown option and a missing argument in one wording" {
	for c in $("$PACKSIGN" --help | awk '/^commands:/{f=1;next} f&&NF{print $1} /^$/{if(f)exit}'); do
		[ "$c" = help ] && continue
		case $c in key) sub=show ;; trust) sub=check ;; index) sub=verify ;; *) sub= ;; esac
		run "$PACKSIGN" $c $sub --no-such-option
		[ "$status" -eq 2 ] || { echo "$c: exit $status"; return 1; }
		[[ "${lines[0]}" == "packsign $c: unknown option '--no-such-option' [usage]" ]] ||
		    { echo "$c: ${lines[0]}"; return 1; }
		[[ "${lines[1]}" == "usage: packsign $c"* ]] || { echo "$c: ${lines[1]}"; return 1; }
		run "$PACKSIGN" $c --help
		[ "$status" -eq 0 ]
		[[ "${lines[0]}" == "usage: packsign $c"* ]]
	done
	run "$PACKSIGN" pack -qZ x
	[ "${lines[0]}" = "packsign pack: unknown option '-Z' [usage]" ]
	# Found in review: a bad letter inside a cluster named the word before.
	run "$PACKSIGN" digest --json -Zq x
	[ "${lines[0]}" = "packsign digest: unknown option '-Z' [usage]" ]
	run "$PACKSIGN" verify x --trust
	[ "${lines[0]}" = "packsign verify: option '--trust' needs an argument [usage]" ]
	run "$PACKSIGN" pack x -o
	[ "${lines[0]}" = "packsign pack: option '-o' needs an argument [usage]" ]
	run "$PACKSIGN" validate --lang zh x
	[ "${lines[0]}" = "packsign validate: '--lang' does not apply to 'validate' [usage]" ]
	run "$PACKSIGN" key show --kdf interactive x
	[ "${lines[0]}" = "packsign key: '--kdf' does not apply to 'key show' [usage]" ]
}
