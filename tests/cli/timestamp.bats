#!/usr/bin/env bats
# sign --bundle --tsa-url: an RFC 3161 timestamp of each new signature from
# a timestamp authority, checked (nonce, imprint, the token's signature)
# before its bundle is written; against the local Sigstore's TSA served on
# 127.0.0.1 (tests/sigstore/serve), right and misbehaving.

load helpers
load sigstore_helpers
bats_require_minimum_version 1.5.0

setup_file() {
	cd "$BATS_FILE_TMPDIR"
	unset PACKSIGN_PASSPHRASE PACKSIGN_SECRET_KEY SOURCE_DATE_EPOCH
	"$PACKSIGN" keygen -o alice --identity alice --no-passphrase >/dev/null
	"$PACKSIGN" keygen -o bob --identity bob --no-passphrase >/dev/null
}

setup() {
	python_sigstore_or_skip
	sigstore_env
	cd "$BATS_TEST_TMPDIR"
	unset PACKSIGN_PASSPHRASE PACKSIGN_SECRET_KEY SOURCE_DATE_EPOCH
	cp "$BATS_FILE_TMPDIR"/alice.* "$BATS_FILE_TMPDIR"/bob.* .
	copy_pack "$AGENTPACK" >/dev/null
}

teardown() {
	sigstore_stop
}

# sign_ts KEY [ARGS...]: signs the pack into p.tar.gz with a bundle
# timestamped by the running server's TSA.
sign_ts() {
	local key=$1
	shift
	"$PACKSIGN" sign "$AGENTPACK" -s "$key" -o p.tar.gz --bundle \
	    --tsa-url "$SIGSTORE_URL/api/v1/timestamp" --ca-file srv/ca.pem "$@"
}

# timestamps FILE: how many RFC 3161 tokens the bundle carries.
timestamps() {
	jq '.verificationMaterial.timestampVerificationData.rfc3161Timestamps // [] | length' "$1"
}

@test "sign --bundle --tsa-url: the bundle carries a timestamp that verify counts" {
	sigstore_serve srv
	run sign_ts alice.key
	[ "$status" -eq 0 ]
	[ "$(timestamps p.tar.gz.1.sigstore.json)" = 1 ]
	run "$PACKSIGN" verify p.tar.gz -p alice.pub --bundle p.tar.gz.1.sigstore.json \
	    --trusted-root srv/trusted_root.json --json
	[ "$status" -eq 0 ]
	[ "$(echo "$output" | jq -c '.results[0].signatures[0].sigstore.timestamps')" = 1 ]
	# the time is the TSA's, today's
	[[ "$(echo "$output" | jq -r '.results[0].signatures[0].sigstore.signing_times[0]')" == "$(date -u +%Y-%m-%d)"T* ]]
	# a TSA the root does not name gives no signing time (the timestamp is
	# skipped, signature.md 9.2)
	run "$PACKSIGN" verify p.tar.gz -p alice.pub --bundle p.tar.gz.1.sigstore.json --json
	[ "$status" -eq 0 ]
	[ "$(echo "$output" | jq -c '.results[0].signatures[0].sigstore')" = null ]
}

@test "sign --append --bundle --tsa-url: only the new signature is timestamped, the first bundle stays" {
	sigstore_serve srv
	sign_ts alice.key -q
	cp p.tar.gz.1.sigstore.json first.json
	run sign_ts bob.key --append
	[ "$status" -eq 0 ]
	cmp first.json p.tar.gz.1.sigstore.json
	[ "$(timestamps p.tar.gz.2.sigstore.json)" = 1 ]
	# the two tokens are over two signatures
	[ "$(jq -r '.verificationMaterial.timestampVerificationData.rfc3161Timestamps[0].signedTimestamp' p.tar.gz.1.sigstore.json)" != \
	    "$(jq -r '.verificationMaterial.timestampVerificationData.rfc3161Timestamps[0].signedTimestamp' p.tar.gz.2.sigstore.json)" ]
	run "$PACKSIGN" verify p.tar.gz -p bob.pub --bundle p.tar.gz.2.sigstore.json \
	    --trusted-root srv/trusted_root.json
	[ "$status" -eq 0 ]
	[[ "$output" == *"1 timestamp verified"* ]]
	# a plain --append --bundle keeps both bundles as they are too
	"$PACKSIGN" keygen -o carol --identity carol --no-passphrase >/dev/null
	cp p.tar.gz.2.sigstore.json second.json
	"$PACKSIGN" sign "$AGENTPACK" -s carol.key -o p.tar.gz --bundle --append -q
	cmp first.json p.tar.gz.1.sigstore.json
	cmp second.json p.tar.gz.2.sigstore.json
	[ "$(timestamps p.tar.gz.3.sigstore.json)" = 0 ]
}

# refused_by FAULT WHAT: the TSA misbehaving as FAULT fails the run with
# timestamp_failed saying WHAT, and nothing is written.
refused_by() {
	sigstore_serve srv --tsa-fault "$1"
	run sign_ts alice.key
	[ "$status" -eq 2 ]
	[[ "$output" == *"[timestamp_failed]"* ]]
	[[ "$output" == *"$2"* ]]
	[ ! -e p.tar.gz ] && [ ! -e p.tar.gz.sig ] && [ ! -e p.tar.gz.1.sigstore.json ]
	[ -z "$(ls -A | grep 'p\.tar\.gz' || true)" ]
}

@test "sign --tsa-url: a token with another nonce is refused, nothing written" {
	refused_by nonce "nonce is not the request's"
}

@test "sign --tsa-url: a token over other bytes is refused, nothing written" {
	refused_by other-bytes "message imprint is not the SHA-256"
}

@test "sign --tsa-url: a TSA that refuses (HTTP 500) fails the run, nothing written" {
	refused_by refuse "[fetch_http_status]"
}

@test "sign --tsa-url: a TSA that is down fails the run, nothing written" {
	refused_by down "[fetch_connect]"
}

@test "sign --append --tsa-url: a failed timestamp leaves OUT.sig and the bundles as they were" {
	sigstore_serve srv
	sign_ts alice.key -q
	cp p.tar.gz.sig sig.before
	cp p.tar.gz.1.sigstore.json b1.before
	sigstore_stop
	sigstore_serve srv --tsa-fault nonce
	run sign_ts bob.key --append
	[ "$status" -eq 2 ]
	[[ "$output" == *"[timestamp_failed]"* ]]
	cmp sig.before p.tar.gz.sig
	cmp b1.before p.tar.gz.1.sigstore.json
	[ ! -e p.tar.gz.2.sigstore.json ]
}

@test "sign --tsa-url: the TSA's certificate is checked (no --ca-file), https only, needs --bundle" {
	sigstore_serve srv
	run "$PACKSIGN" sign "$AGENTPACK" -s alice.key -o p.tar.gz --bundle \
	    --tsa-url "$SIGSTORE_URL/api/v1/timestamp"
	[ "$status" -eq 2 ]
	[[ "$output" == *"[timestamp_failed]"* ]]
	[[ "$output" == *"[fetch_tls]"* ]]
	[ ! -e p.tar.gz ]
	run "$PACKSIGN" sign "$AGENTPACK" -s alice.key -o p.tar.gz --bundle \
	    --tsa-url "http://127.0.0.1:1/api/v1/timestamp"
	[ "$status" -eq 2 ]
	[[ "$output" == *"[url_scheme_refused]"* ]]
	run "$PACKSIGN" sign "$AGENTPACK" -s alice.key -o p.tar.gz \
	    --tsa-url "$SIGSTORE_URL/api/v1/timestamp"
	[ "$status" -eq 2 ]
	[[ "$output" == *"--tsa-url needs --bundle"* ]]
	run "$PACKSIGN" sign "$AGENTPACK" -s alice.key -o p.tar.gz --bundle --ca-file srv/ca.pem
	[ "$status" -eq 2 ]
	[[ "$output" == *"--ca-file applies to --tsa-url"* ]]
}
