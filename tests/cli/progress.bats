#!/usr/bin/env bats
# Progress of long work (issue 9): a line redrawn on a terminal's stderr,
# nothing without a terminal or with --quiet, no escape sequence under
# NO_COLOR.  PACKSIGN_PROGRESS_MS=0 redraws at every update, so a small
# pack shows it however fast the machine is.

bats_require_minimum_version 1.5.0

load helpers

SOYA=soyapack-research-summarizer

setup() {
	cd "$BATS_TEST_TMPDIR"
	command -v script >/dev/null || skip "script(1) is not installed"
	unset SOURCE_DATE_EPOCH PACKSIGN_SECRET_KEY PACKSIGN_PASSPHRASE NO_COLOR
	export PACKSIGN_PROGRESS_MS=0
	"$PACKSIGN" keygen -o k --no-passphrase --identity alice >/dev/null
	pack=$(copy_pack "$SOYA")
	head -c 2000000 /dev/urandom >"$pack/prompts/big.bin"
}

# on_pty CMD: runs CMD with a terminal as stdin, stdout and stderr.
on_pty() {
	run script -qec "$1" /dev/null
}

@test "progress: pack on a terminal redraws a line and erases it" {
	on_pty "'$PACKSIGN' pack '$pack' -o p.tar"
	[ "$status" -eq 0 ]
	[[ "$output" == *"packing: "*" / "*" files, "*" / "*" MiB, "*" MiB/s"* ]]
	[[ "$output" == *$'\r\033[K'* ]]
	[[ "$output" == *"wrote p.tar"* ]]
}

@test "progress: --quiet, -q and a non-terminal stderr show nothing" {
	on_pty "'$PACKSIGN' pack '$pack' -o p.tar --quiet"
	[ "$status" -eq 0 ]
	[[ "$output" != *"packing:"* ]]
	on_pty "'$PACKSIGN' sign '$pack' -s k.key -o s.tar -q"
	[ "$status" -eq 0 ]
	[[ "$output" != *"packing:"* ]]
	run --separate-stderr "$PACKSIGN" pack "$pack" -o q.tar
	[ "$status" -eq 0 ]
	[ -z "$stderr" ]
	cmp p.tar q.tar
}

@test "progress: NO_COLOR clears the line with spaces, no escape sequence" {
	on_pty "NO_COLOR=1 '$PACKSIGN' pack '$pack' -o p.tar"
	[ "$status" -eq 0 ]
	[[ "$output" == *"packing: "* ]]
	[[ "$output" != *$'\033'* ]]
}

@test "progress: sign, verify and install show theirs, then their report" {
	on_pty "'$PACKSIGN' sign '$pack' -s k.key -o s.tar"
	[ "$status" -eq 0 ]
	[[ "$output" == *"packing: "* ]]
	on_pty "'$PACKSIGN' verify s.tar -p k.pub"
	[ "$status" -eq 0 ]
	[[ "$output" == *"reading: "*" MiB/s"* ]]
	[[ "$output" == *"verified"* || "$output" == *"OK"* || "$output" == *"good"* ]]
	on_pty "'$PACKSIGN' install s.tar -p k.pub --data-dir data --yes"
	[ "$status" -eq 0 ]
	[[ "$output" == *"reading: "* ]]
	"$PACKSIGN" list --data-dir data | grep -q research-summarizer
}
