#!/usr/bin/env bats
# Trusted time for key windows (trust-policy.md, "Trusted time"): a
# signature whose bundle carries a timestamp by a TSA of the trusted root is
# judged at that time, so an expired key still verifies what it timestamped
# while valid, and a revocation's since: spares what was timestamped before
# it; without a verified time the clock (--at) decides as before.  The TSA
# is the local Sigstore's, served on 127.0.0.1 (tests/sigstore/serve).

load helpers
load sigstore_helpers
bats_require_minimum_version 1.5.0

setup_file() {
	cd "$BATS_FILE_TMPDIR"
	unset PACKSIGN_PASSPHRASE PACKSIGN_SECRET_KEY SOURCE_DATE_EPOCH
	"$PACKSIGN" keygen -o alice --identity alice --no-passphrase >/dev/null
}

setup() {
	python_sigstore_or_skip
	sigstore_env
	cd "$BATS_TEST_TMPDIR"
	unset PACKSIGN_PASSPHRASE PACKSIGN_SECRET_KEY SOURCE_DATE_EPOCH
	cp "$BATS_FILE_TMPDIR"/alice.* .
	copy_pack "$AGENTPACK" >/dev/null
	sigstore_serve srv
	"$PACKSIGN" sign "$AGENTPACK" -s alice.key -o p.tar.gz --bundle -q \
	    --tsa-url "$SIGSTORE_URL/api/v1/timestamp" --ca-file srv/ca.pem
	# the timestamp is now; judged two hours on
	LATER=$(date -u -d '+2 hours' +%Y-%m-%dT%H:%M:%SZ)
}

teardown() {
	sigstore_stop
}

at() {
	date -u -d "$1" +%Y-%m-%dT%H:%M:%SZ
}

# policy FILE [KEY-FIELDS] [REVOKED-ITEM-FIELDS]: alice trusted for every
# pack, her key with KEY-FIELDS (YAML lines), revoked with REVOKED-ITEM-FIELDS
# when given.
policy() {
	{
		echo "version: 1"
		echo "signers:"
		echo "  - identity: alice"
		echo "    keys:"
		echo "      - key: $(sed -n 2p alice.pub)"
		[ -z "${2:-}" ] || echo "        $2"
		echo '    packs: ["*"]'
		if [ -n "${3+x}" ]; then
			echo "revoked:"
			echo "  - key: $(sed -n 2p alice.pub)"
			[ -z "$3" ] || echo "    $3"
		fi
		echo "threshold: 1"
	} >"$1"
}

verify_bundle() {
	"$PACKSIGN" verify p.tar.gz --trust "$1" --bundle p.tar.gz.1.sigstore.json \
	    --trusted-root srv/trusted_root.json --at "$LATER" "${@:2}"
}

@test "a key that expired after the timestamp still verifies the timestamped bundle, not the .sig" {
	policy pol.yaml "not_after: $(at '+1 hour')"
	run verify_bundle pol.yaml
	[ "$status" -eq 0 ]
	[[ "$output" == *"1 timestamp verified"* ]]
	# the .sig has no verified time: the clock (--at) decides
	run "$PACKSIGN" verify p.tar.gz --trust pol.yaml --at "$LATER"
	[ "$status" -eq 1 ]
	[[ "$output" == *"[key_expired]"* ]]
	# a TSA the root does not name gives no trusted time
	run "$PACKSIGN" verify p.tar.gz --trust pol.yaml --bundle p.tar.gz.1.sigstore.json \
	    --at "$LATER"
	[ "$status" -eq 1 ]
	[[ "$output" == *"[key_expired]"* ]]
}

@test "every verified signing time must lie inside the window: a timestamp before not_before is refused" {
	policy pol.yaml "not_before: $(at '+1 hour')"
	run verify_bundle pol.yaml
	[ "$status" -eq 1 ]
	[[ "$output" == *"[key_not_yet_valid]"* ]]
	# the key expired before the timestamp
	policy pol2.yaml "not_after: $(at '-1 hour')"
	run verify_bundle pol2.yaml
	[ "$status" -eq 1 ]
	[[ "$output" == *"[key_expired]"* ]]
}

@test "revoked with since: what was timestamped before it stays valid; without since, revocation is absolute" {
	policy pol.yaml "" "since: $(at '+1 hour')"
	run verify_bundle pol.yaml
	[ "$status" -eq 0 ]
	run "$PACKSIGN" verify p.tar.gz --trust pol.yaml --at "$LATER"
	[ "$status" -eq 1 ]
	[[ "$output" == *"[key_revoked]"* ]]
	policy pol2.yaml "" "since: $(at '-1 hour')"
	run verify_bundle pol2.yaml
	[ "$status" -eq 1 ]
	[[ "$output" == *"[key_revoked]"* ]]
	policy pol3.yaml "" ""
	run verify_bundle pol3.yaml
	[ "$status" -eq 1 ]
	[[ "$output" == *"[key_revoked]"* ]]
	# trust check shows since, and the key revoked only from then on
	run "$PACKSIGN" trust check --trust pol.yaml --json
	[ "$status" -eq 0 ]
	[ "$(echo "$output" | jq -r '.revoked[0].since')" = "$(sed -n 's/^    since: //p' pol.yaml)" ]
	[ "$(echo "$output" | jq -r '.signers[0].keys[0].status')" = valid ]
	run "$PACKSIGN" trust check --trust pol.yaml --json --at "$LATER"
	[ "$(echo "$output" | jq -r '.signers[0].keys[0].status')" = revoked ]
}

@test "revoked since: a malformed time is trust_date" {
	policy pol.yaml "" "since: yesterday"
	run "$PACKSIGN" trust check --trust pol.yaml
	[ "$status" -eq 2 ]
	[[ "$output" == *"[trust_date]"* ]]
}
