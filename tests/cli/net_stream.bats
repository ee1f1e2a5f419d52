#!/usr/bin/env bats
# CLI tests: install URL of a tar with a v2 statement streams it (issue 30;
# install.md section 3.1): downloaded on a thread into a pipe, each 1 MiB
# chunk authenticated before it is extracted, nothing written to disk but
# the tree.  A server that sends the right bytes then more, or changes a
# byte of chunk N, is refused before that chunk is parsed, and nothing is
# left.  Loopback only (tests/cli/net_server.py, a CA made here).

load helpers
load net_helpers
bats_require_minimum_version 1.5.0

AP_ID=research.top-journal-reviewer

setup_file() {
	cd "$BATS_FILE_TMPDIR"
	F=$BATS_FILE_TMPDIR
	"$PACKSIGN" keygen -o alice --identity alice --no-passphrase >/dev/null
	cp -R "$EXAMPLES/$AGENTPACK" ap && chmod -R u+w ap
	head -c 3500000 /dev/urandom >ap/prompts/big.bin
	mkdir -p www/v1
	"$PACKSIGN" sign ap -s alice.key -o www/ap.tar -q
	cp www/ap.tar www/v1/ap.tar
	"$PACKSIGN" sign www/v1/ap.tar -s alice.key -q --predicate-version 1
	ca ca
	cert server IP:127.0.0.1 ca
	serve server PORT
	echo "PORT=$PORT PORT_PID=$PORT_PID" >server.env
}

teardown_file() {
	net_stop
}

setup() {
	cd "$BATS_TEST_TMPDIR"
	F=$BATS_FILE_TMPDIR
	D=$BATS_TEST_TMPDIR/data
	net_env
	U=https://127.0.0.1:$PORT
}

inst() {
	local u=$1
	shift
	"$PACKSIGN" install "$u" -p "$F/alice.pub" --data-dir "$D" --yes \
	    --ca-file "$F/ca.pem" "$@"
}

nothing_left() {
	[ ! -e "$D/agentpacks/$AP_ID" ]
	[ -z "$(ls -A "$D/receipts/agentpacks" 2>/dev/null)" ]
	[ -z "$(ls -A "$D/.tmp" 2>/dev/null)" ]
}

@test "stream: install URL of a v2 tar reads it once from the network, chunks authenticated" {
	run inst "$U/files/ap.tar" --json
	echo "$output"
	[ "$status" -eq 0 ]
	[ "$(jq -r .verify.read.how <<<"$output")" = chunks ]
	cmp "$D/agentpacks/$AP_ID/0.1.0/prompts/big.bin" "$F/ap/prompts/big.bin"
}

@test "stream: the right bytes, then more, is refused and leaves nothing" {
	run inst "$U/more/ap.tar" --sig "$U/files/ap.tar.sig"
	echo "$output"
	[ "$status" -eq 1 ]
	[[ "$output" == *"[subject_mismatch]"* ]]
	nothing_left
}

@test "stream: a byte changed in chunk N is refused at chunk N, before it is parsed" {
	for n in 0 1 3; do
		run inst "$U/flip/$n/ap.tar" --sig "$U/files/ap.tar.sig"
		echo "$output"
		[ "$status" -eq 1 ]
		[[ "$output" == *"chunk $n (bytes from $((n * 1048576)))"*"[subject_mismatch]"* ]]
		nothing_left
	done
}

@test "stream: a connection cut mid-body is the download's error, nothing left" {
	run inst "$U/cut/ap.tar" --sig "$U/files/ap.tar.sig"
	echo "$output"
	[ "$status" -eq 2 ]
	[[ "$output" == *"[fetch_truncated]"* ]]
	nothing_left
}

@test "stream: a v1 statement's archive is downloaded into a private copy first" {
	run inst "$U/files/v1/ap.tar" --json
	[ "$status" -eq 0 ]
	[ "$(jq -r .verify.read.how <<<"$output")" = "private copy" ]
}
