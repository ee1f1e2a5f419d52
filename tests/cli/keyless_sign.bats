#!/usr/bin/env bats
# sign --keyless against the local Sigstore served on 127.0.0.1
# (tests/sigstore/serve): GitHub Actions' OIDC token, Fulcio, Rekor v1, the
# TSA; the bundle verified by packsign (verify-blob) and @sigstore/verify;
# every failure leaves nothing behind, and the token reaches no output.

load helpers
load sigstore_helpers
bats_require_minimum_version 1.5.0

ISSUER=https://token.actions.githubusercontent.com

setup() {
	python_sigstore_or_skip
	sigstore_env
	cd "$BATS_TEST_TMPDIR"
	unset PACKSIGN_PASSPHRASE PACKSIGN_SECRET_KEY SOURCE_DATE_EPOCH
	unset SIGSTORE_ID_TOKEN ACTIONS_ID_TOKEN_REQUEST_URL ACTIONS_ID_TOKEN_REQUEST_TOKEN
	copy_pack "$AGENTPACK" >/dev/null
}

teardown() {
	sigstore_stop
}

# keyless [ARGS...]: signs the pack into p.tar.gz keylessly against the
# running server (its signing config, trusted root and TLS CA).
keyless() {
	"$PACKSIGN" sign "$AGENTPACK" -o p.tar.gz --keyless \
	    --signing-config srv/signing_config.json \
	    --trusted-root srv/trusted_root.json --ca-file srv/ca.pem "$@"
}

verify_blob() {
	"$PACKSIGN" verify-blob p.tar.gz --bundle p.tar.gz.1.sigstore.json \
	    --certificate-identity "$(cat srv/identity)" \
	    --certificate-oidc-issuer "$ISSUER" --trusted-root srv/trusted_root.json "$@"
}

# nothing_written: no output of the run, finished or temporary.
nothing_written() {
	[ -z "$(ls -A | grep 'p\.tar\.gz' || true)" ]
}

@test "sign --keyless: a bundle with certificate, log entry and timestamp that verify-blob verifies" {
	sigstore_serve srv
	run keyless --identity-token srv/token
	[ "$status" -eq 0 ]
	[[ "$output" == *"wrote p.tar.gz.1.sigstore.json"* ]]
	[[ "$output" == *"as $(cat srv/identity) (keyless)"* ]]
	[ ! -e p.tar.gz.sig ]
	b=p.tar.gz.1.sigstore.json
	[ "$(jq -r .mediaType $b)" = application/vnd.dev.sigstore.bundle.v0.3+json ]
	[ "$(jq -r '.verificationMaterial.tlogEntries[0].kindVersion.kind' $b)" = dsse ]
	[ "$(jq '.verificationMaterial.timestampVerificationData.rfc3161Timestamps | length' $b)" = 1 ]
	run verify_blob --json
	[ "$status" -eq 0 ]
	[ "$(echo "$output" | jq -r .certificate.san)" = "$(cat srv/identity)" ]
	[ "$(echo "$output" | jq -r .certificate.extensions.fields.source_repository_uri)" = https://github.com/octo-org/octo-repo ]
	# another identity is refused
	run "$PACKSIGN" verify-blob p.tar.gz --bundle $b --certificate-identity https://github.com/other \
	    --certificate-oidc-issuer "$ISSUER" --trusted-root srv/trusted_root.json
	[ "$status" -eq 1 ]
}

@test "sign --keyless: @sigstore/verify verifies the bundle against the same root and identity" {
	node_or_skip
	sigstore_serve srv
	keyless --identity-token srv/token -q
	mkdir -p case/keyless
	cp p.tar.gz case/keyless/artifact
	cp p.tar.gz.1.sigstore.json case/keyless/bundle.sigstore.json
	cp srv/trusted_root.json case/keyless/
	cp srv/identity case/keyless/identity
	echo "$ISSUER" >case/keyless/issuer
	run env NODE_PATH="$NODE_DIR/node_modules" node "$BATS_TEST_DIRNAME/../node/sigstore_cases.js" case/keyless/
	[ "$status" -eq 0 ]
	[ "$output" = "$(printf 'keyless\tverified')" ]
}

@test "sign --keyless: the token from SIGSTORE_ID_TOKEN, stdin, or GitHub Actions' request" {
	sigstore_serve srv
	SIGSTORE_ID_TOKEN=$(cat srv/token) keyless -q
	verify_blob -q
	rm p.tar.gz*
	keyless --identity-token - -q <srv/token
	verify_blob -q
	rm p.tar.gz*
	ACTIONS_ID_TOKEN_REQUEST_URL="$SIGSTORE_URL/github/token?api-version=2.0" \
	    ACTIONS_ID_TOKEN_REQUEST_TOKEN=$(cat srv/github_request_token) keyless -q
	verify_blob -q
	rm p.tar.gz*
	# the request token is not sent on across a redirect (to localhost)
	run env ACTIONS_ID_TOKEN_REQUEST_URL="$SIGSTORE_URL/github/redirect?api-version=2.0" \
	    ACTIONS_ID_TOKEN_REQUEST_TOKEN="$(cat srv/github_request_token)" \
	    "$PACKSIGN" sign "$AGENTPACK" -o p.tar.gz --keyless \
	    --signing-config srv/signing_config.json --trusted-root srv/trusted_root.json \
	    --ca-file srv/ca.pem
	[ "$status" -eq 2 ]
	[[ "$output" == *"[identity_token_missing]"* ]]
	[[ "$output" == *"HTTP status 302"* ]]
	nothing_written
	# a wrong request token
	run env ACTIONS_ID_TOKEN_REQUEST_URL="$SIGSTORE_URL/github/token" \
	    ACTIONS_ID_TOKEN_REQUEST_TOKEN=wrong "$PACKSIGN" sign "$AGENTPACK" -o p.tar.gz \
	    --keyless --signing-config srv/signing_config.json \
	    --trusted-root srv/trusted_root.json --ca-file srv/ca.pem
	[ "$status" -eq 2 ]
	[[ "$output" == *"HTTP status 401"* ]]
}

@test "sign --keyless: no token, an expired one, one for another audience: refused before any request" {
	sigstore_serve srv --fulcio-fault refuse
	run keyless
	[ "$status" -eq 2 ]
	[[ "$output" == *"[identity_token_missing]"* ]]
	run keyless --identity-token srv/token-expired
	[ "$status" -eq 2 ]
	[[ "$output" == *"[identity_token_expired]"* ]]
	run keyless --identity-token srv/token-audience
	[ "$status" -eq 2 ]
	[[ "$output" == *"[identity_token_invalid]"* ]]
	[[ "$output" == *"does not name sigstore"* ]]
	printf 'not a token' >bad
	run keyless --identity-token bad
	[ "$status" -eq 2 ]
	[[ "$output" == *"[identity_token_invalid]"* ]]
	nothing_written
}

# fails_with SERVE-ARGS CODE TEXT: the run against a server started with
# SERVE-ARGS fails with CODE saying TEXT, and leaves nothing.
fails_with() {
	sigstore_serve srv $1
	run keyless --identity-token srv/token
	[ "$status" -eq 2 ]
	[[ "$output" == *"[$2]"* ]]
	[[ "$output" == *"$3"* ]]
	nothing_written
}

@test "sign --keyless: Fulcio refusing the token fails the run, nothing written" {
	fails_with "--fulcio-fault refuse" fulcio_failed "HTTP status 401"
}

@test "sign --keyless: Rekor down fails the run, nothing written" {
	fails_with "--rekor-fault down" rekor_failed "HTTP status 503"
}

@test "sign --keyless: a log entry for other bytes is caught by the bundle's own verification" {
	fails_with "--rekor-fault other-entry" keyless_bundle_refused "[tlog_"
}

@test "sign --keyless: an inclusion proof that does not match is caught, nothing written" {
	fails_with "--rekor-fault bad-proof" keyless_bundle_refused "[tlog_"
}

@test "sign --keyless: a TSA answering with another nonce fails the run, nothing written" {
	fails_with "--tsa-fault nonce" timestamp_failed "nonce is not the request's"
}

@test "sign --keyless: without a TSA in the signing config, the log's integrated time suffices" {
	sigstore_serve srv --no-tsa
	keyless --identity-token srv/token -q
	[ "$(jq '.verificationMaterial.timestampVerificationData' p.tar.gz.1.sigstore.json)" = null ]
	verify_blob -q
}

@test "sign --keyless: the statement's source must be the token's repository and commit" {
	sigstore_serve srv
	sha=4f5a5b0c1d2e3f405162738495a6b7c8d9e0f102
	run keyless --identity-token srv/token --source-repo https://github.com/other/repo \
	    --source-commit $sha
	[ "$status" -eq 1 ]
	[[ "$output" == *"[keyless_source_mismatch]"* ]]
	nothing_written
	run keyless --identity-token srv/token --source-repo https://github.com/octo-org/octo-repo \
	    --source-commit 0000000000000000000000000000000000000000
	[ "$status" -eq 1 ]
	[[ "$output" == *"[keyless_source_mismatch]"* ]]
	run keyless --identity-token srv/token --source-repo https://github.com/octo-org/octo-repo \
	    --source-commit $sha
	[ "$status" -eq 0 ]
}

@test "sign --keyless: the token reaches no output and no file" {
	sigstore_serve srv --rekor-fault down
	token=$(cat srv/token)
	sig=${token##*.}
	run keyless --identity-token srv/token
	[ "$status" -eq 2 ]
	[[ "$output" != *"$sig"* ]]
	sigstore_stop
	sigstore_serve srv2
	cp srv2/* srv/
	run keyless --identity-token srv/token --json
	[ "$status" -eq 0 ]
	token=$(cat srv/token)
	sig=${token##*.}
	[[ "$output" != *"$sig"* ]]
	! grep -rqF "$sig" p.tar.gz p.tar.gz.1.sigstore.json
	! grep -rqF "$(cat srv/github_request_token)" p.tar.gz.1.sigstore.json
}

@test "sign --keyless: usage: without a key no --bundle/--minisig, no --append, options need --keyless" {
	run "$PACKSIGN" sign "$AGENTPACK" --keyless --bundle
	[ "$status" -eq 2 ]
	[[ "$output" == *"--keyless without -s signs without a key"* ]]
	run "$PACKSIGN" sign "$AGENTPACK" --keyless --append
	[ "$status" -eq 2 ]
	run "$PACKSIGN" sign "$AGENTPACK" -s x.key --identity-token t
	[ "$status" -eq 2 ]
	[[ "$output" == *"apply to --keyless"* ]]
}

@test "sign --keyless --force: a kill at any sync or rename of the commit leaves the old outputs or the new" {
	command -v strace >/dev/null || skip "strace is not installed"
	sigstore_serve srv
	keyless --identity-token srv/token -q
	local call n st total=0
	for call in fsync rename renameat renameat2 link linkat; do
		n=1
		while :; do
			cp p.tar.gz.1.sigstore.json old.json
			st=0
			ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" \
			strace -f -o /dev/null -e trace="$call" \
			    -e inject="$call":signal=SIGKILL:when=$n \
			    "$PACKSIGN" sign "$AGENTPACK" -o p.tar.gz --keyless --force -q \
			    --identity-token srv/token --signing-config srv/signing_config.json \
			    --trusted-root srv/trusted_root.json --ca-file srv/ca.pem \
			    >/dev/null 2>&1 || st=$?
			# the bundle in place is the old one or the new, and verifies
			# with the archive in place
			verify_blob -q || { echo "$call #$n: outputs disagree" >&2; return 1; }
			[ "$st" -eq 0 ] && break
			n=$((n + 1))
			[ "$n" -lt 30 ] || return 1
		done
		echo "$call: $((n - 1)) kills" >&3
		total=$((total + n - 1))
	done
	[ "$total" -ge 2 ]
}

# cosign_policy FILE THRESHOLD: alice's key and the local workflow (the
# identity serve certifies) as two identities.
cosign_policy() {
	cat >"$1" <<YAML
version: 1
trusted_roots: [srv/trusted_root.json]
signers:
  - identity: alice
    keys:
      - key: $(sed -n 2p alice.pub)
    packs: ["*"]
  - identity: release-workflow
    keyless:
      - issuer: $ISSUER
        subject: $(cat srv/identity)
        repository_id: 601234567
    packs: ["*"]
threshold: $2
YAML
}

@test "sign -s KEY --keyless co-signs: the key's signature in OUT.sig and OUT.1, the keyless one OUT.2; threshold 2 counts both" {
	"$PACKSIGN" keygen -o alice --identity alice --no-passphrase >/dev/null
	sigstore_serve srv
	run keyless --identity-token srv/token -s alice.key --bundle
	[ "$status" -eq 0 ]
	[[ "$output" == *"wrote p.tar.gz.1.sigstore.json"* ]]
	[[ "$output" == *"wrote p.tar.gz.2.sigstore.json"* ]]
	[[ "$output" == *"wrote p.tar.gz.sig (1 signature)"* ]]
	[ "$(jq -r '.verificationMaterial.publicKey.hint' p.tar.gz.1.sigstore.json)" = "$(jq -r '.signatures[0].keyid' p.tar.gz.sig)" ]
	[ "$(jq -r '.verificationMaterial.certificate.rawBytes | length > 0' p.tar.gz.2.sigstore.json)" = true ]
	# the keyless bundle signs the same statement as OUT.sig
	[ "$(jq -r .payload p.tar.gz.sig)" = "$(jq -r .dsseEnvelope.payload p.tar.gz.2.sigstore.json)" ]
	"$PACKSIGN" verify-blob p.tar.gz --bundle p.tar.gz.2.sigstore.json \
	    --certificate-identity "$(cat srv/identity)" \
	    --certificate-oidc-issuer "$ISSUER" --trusted-root srv/trusted_root.json -q
	cosign_policy two.yaml 2
	run "$PACKSIGN" verify p.tar.gz --trust two.yaml --bundle p.tar.gz.1.sigstore.json \
	    --bundle p.tar.gz.2.sigstore.json --json
	[ "$status" -eq 0 ]
	[ "$(echo "$output" | jq -c '[.results[0].identities[].identity] | sort')" = '["alice","release-workflow"]' ]
	# one of the two is not enough
	run "$PACKSIGN" verify p.tar.gz --trust two.yaml --bundle p.tar.gz.2.sigstore.json
	[ "$status" -eq 1 ]
	[[ "$output" == *"expected threshold 2, found 1: release-workflow [threshold_not_met]"* ]]
	run "$PACKSIGN" verify p.tar.gz --trust two.yaml --bundle p.tar.gz.1.sigstore.json
	[ "$status" -eq 1 ]
	[[ "$output" == *"[threshold_not_met]"* ]]
	# the same workflow twice counts once
	cp p.tar.gz.2.sigstore.json again.json
	run "$PACKSIGN" verify p.tar.gz --trust two.yaml --bundle p.tar.gz.2.sigstore.json \
	    --bundle again.json
	[ "$status" -eq 1 ]
	[[ "$output" == *"found 1: release-workflow [threshold_not_met]"* ]]
}

@test "sign -s KEY --keyless: without --bundle OUT.sig and OUT.2; taken outputs refused, --force replaces them" {
	"$PACKSIGN" keygen -o alice --identity alice --no-passphrase >/dev/null
	sigstore_serve srv
	run keyless --identity-token srv/token -s alice.key --minisig
	[ "$status" -eq 0 ]
	[ -e p.tar.gz.sig ] && [ -e p.tar.gz.minisig ] && [ -e p.tar.gz.2.sigstore.json ]
	[ ! -e p.tar.gz.1.sigstore.json ]
	"$PACKSIGN" verify-blob p.tar.gz --bundle p.tar.gz.2.sigstore.json \
	    --certificate-identity "$(cat srv/identity)" \
	    --certificate-oidc-issuer "$ISSUER" --trusted-root srv/trusted_root.json -q
	rm p.tar.gz.sig p.tar.gz.minisig
	cp p.tar.gz.2.sigstore.json old.json
	run keyless --identity-token srv/token -s alice.key
	[ "$status" -eq 2 ]
	[[ "$output" == *"p.tar.gz.2.sigstore.json"*"use --force"*"[output_exists]"* ]]
	[ ! -e p.tar.gz.sig ]
	cmp old.json p.tar.gz.2.sigstore.json
	run keyless --identity-token srv/token -s alice.key --force
	[ "$status" -eq 0 ]
	! cmp -s old.json p.tar.gz.2.sigstore.json
	# --append stays refused with --keyless
	run keyless --identity-token srv/token -s alice.key --append
	[ "$status" -eq 2 ]
	[[ "$output" == *"excludes --append"* ]]
}

@test "sign -s KEY --keyless: Rekor down fails the run and leaves no OUT.sig, no bundle" {
	"$PACKSIGN" keygen -o alice --identity alice --no-passphrase >/dev/null
	sigstore_serve srv --rekor-fault down
	run keyless --identity-token srv/token -s alice.key --bundle
	[ "$status" -eq 2 ]
	[[ "$output" == *"[rekor_failed]"* ]]
	rm -f alice.key alice.pub
	nothing_written
}

@test "sign --append --bundle after a co-signature numbers the new bundle after the keyless one" {
	"$PACKSIGN" keygen -o alice --identity alice --no-passphrase >/dev/null
	"$PACKSIGN" keygen -o bob --identity bob --no-passphrase >/dev/null
	sigstore_serve srv
	keyless --identity-token srv/token -s alice.key --bundle -q
	cp p.tar.gz.2.sigstore.json keyless.json
	run "$PACKSIGN" sign p.tar.gz -s bob.key --append --bundle
	[ "$status" -eq 0 ]
	[[ "$output" == *"wrote p.tar.gz.3.sigstore.json"* ]]
	[[ "$output" != *"wrote p.tar.gz.2.sigstore.json"* ]]
	cmp keyless.json p.tar.gz.2.sigstore.json
	[ "$(jq '.signatures | length' p.tar.gz.sig)" = 2 ]
	[ "$(jq -r '.dsseEnvelope.signatures[0].sig' p.tar.gz.3.sigstore.json)" = "$(jq -r '.signatures[1].sig' p.tar.gz.sig)" ]
	# and the next one after that; every earlier bundle kept
	"$PACKSIGN" keygen -o carol --identity carol --no-passphrase >/dev/null
	cp p.tar.gz.3.sigstore.json bob.json
	run "$PACKSIGN" sign p.tar.gz -s carol.key --append --bundle
	[ "$status" -eq 0 ]
	[[ "$output" == *"wrote p.tar.gz.4.sigstore.json"* ]]
	cmp keyless.json p.tar.gz.2.sigstore.json
	cmp bob.json p.tar.gz.3.sigstore.json
	"$PACKSIGN" verify-blob p.tar.gz --bundle p.tar.gz.2.sigstore.json \
	    --certificate-identity "$(cat srv/identity)" \
	    --certificate-oidc-issuer "$ISSUER" --trusted-root srv/trusted_root.json -q
}

@test "sign --keyless with Rekor v2: a dsse 0.0.2 entry with proof and checkpoint, no SET; verify-blob verifies it" {
	sigstore_serve srv --rekor-v2
	[ "$(jq '.rekorTlogUrls[0].majorApiVersion' srv/signing_config.json)" = 2 ]
	run keyless --identity-token srv/token
	[ "$status" -eq 0 ]
	b=p.tar.gz.1.sigstore.json
	[ "$(jq -c '.verificationMaterial.tlogEntries[0].kindVersion' $b)" = '{"kind":"dsse","version":"0.0.2"}' ]
	[ "$(jq '.verificationMaterial.tlogEntries[0].inclusionPromise' $b)" = null ]
	[ "$(jq -r '.verificationMaterial.tlogEntries[0].inclusionProof.checkpoint.envelope | length > 0' $b)" = true ]
	[ "$(jq '.verificationMaterial.timestampVerificationData.rfc3161Timestamps | length' $b)" = 1 ]
	# the logged body is rekor-tiles' DSSELogEntryV002 over this certificate
	body=$(jq -r '.verificationMaterial.tlogEntries[0].canonicalizedBody' $b | base64 -d)
	[ "$(echo "$body" | jq -r '.spec.dsseV002.signatures[0].verifier.x509Certificate.rawBytes')" = \
	    "$(jq -r .verificationMaterial.certificate.rawBytes $b)" ]
	[ "$(echo "$body" | jq -r '.spec.dsseV002.signatures[0].verifier.keyDetails')" = PKIX_ECDSA_P256_SHA_256 ]
	run verify_blob
	[ "$status" -eq 0 ]
}

@test "sign --keyless with Rekor v2 and no TSA: refused before Fulcio is asked, nothing written" {
	sigstore_serve srv --rekor-v2 --no-tsa --fulcio-fault refuse
	run keyless --identity-token srv/token
	[ "$status" -eq 2 ]
	[[ "$output" == *"selects Rekor v2, whose entries prove no signing time"*"[signing_config_invalid]"* ]]
	[[ "$output" != *"fulcio_failed"* ]]
	nothing_written
}

@test "sign --keyless with Rekor v2: @sigstore/verify verifies the bundle" {
	node_or_skip
	sigstore_serve srv --rekor-v2
	keyless --identity-token srv/token -q
	mkdir -p case/keyless
	cp p.tar.gz case/keyless/artifact
	cp p.tar.gz.1.sigstore.json case/keyless/bundle.sigstore.json
	cp srv/trusted_root.json case/keyless/
	cp srv/identity case/keyless/identity
	echo "$ISSUER" >case/keyless/issuer
	run env NODE_PATH="$NODE_DIR/node_modules" node "$BATS_TEST_DIRNAME/../node/sigstore_cases.js" case/keyless/
	[ "$status" -eq 0 ]
	[ "$output" = "$(printf 'keyless\tverified')" ]
}

@test "@sigstore/sign against the loopback servers: packsign's verify-blob and verify --bundle accept its bundle" {
	node_or_skip
	[ -d "$NODE_DIR/node_modules/@sigstore/sign" ] || skip "@sigstore/sign missing (scripts/install-deps installs tests/node's lock into build/node)"
	"$PACKSIGN" keygen -o alice --identity alice --no-passphrase >/dev/null
	# no TSA: @sigstore/sign asks a TSA through timestamp-authority's JSON
	# request, the loopback TSA takes RFC 3161's application/timestamp-query
	# only; Rekor v1's integrated time (its SET) is the signing time
	sigstore_serve srv --no-tsa
	# packsign's statement for the archive, signed by @sigstore/sign
	"$PACKSIGN" sign "$AGENTPACK" -s alice.key -o p.tar.gz --bundle -q
	jq -r .payload p.tar.gz.sig | base64 -d >statement.json
	run env NODE_PATH="$NODE_DIR/node_modules" NODE_EXTRA_CA_CERTS=srv/ca.pem \
	    node "$BATS_TEST_DIRNAME/../node/sigstore_sign.js" srv/signing_config.json \
	    srv/token statement.json js.sigstore.json
	[ "$status" -eq 0 ] || { echo "$output" >&2; false; }
	[ "$(jq -r '.verificationMaterial.tlogEntries[0].kindVersion.kind' js.sigstore.json)" = dsse ]
	run "$PACKSIGN" verify-blob p.tar.gz --bundle js.sigstore.json \
	    --certificate-identity "$(cat srv/identity)" \
	    --certificate-oidc-issuer "$ISSUER" --trusted-root srv/trusted_root.json
	[ "$status" -eq 0 ]
	cosign_policy one.yaml 1
	run "$PACKSIGN" verify p.tar.gz --trust one.yaml --bundle js.sigstore.json --json
	[ "$status" -eq 0 ]
	[ "$(echo "$output" | jq -r '.results[0].identities[0].identity')" = release-workflow ]
	# with alice's bundle of the same statement, threshold 2
	cosign_policy two.yaml 2
	run "$PACKSIGN" verify p.tar.gz --trust two.yaml --bundle p.tar.gz.1.sigstore.json \
	    --bundle js.sigstore.json --json
	[ "$status" -eq 0 ]
	[ "$(echo "$output" | jq -c '[.results[0].identities[].identity] | sort')" = '["alice","release-workflow"]' ]
}

@test "sign -s KEY --keyless --bundle --tsa-url: the key's bundle is timestamped too" {
	"$PACKSIGN" keygen -o alice --identity alice --no-passphrase >/dev/null
	sigstore_serve srv
	run keyless --identity-token srv/token -s alice.key --bundle \
	    --tsa-url "$SIGSTORE_URL/api/v1/timestamp"
	[ "$status" -eq 0 ]
	[ "$(jq '.verificationMaterial.timestampVerificationData.rfc3161Timestamps | length' p.tar.gz.1.sigstore.json)" = 1 ]
	[ "$(jq -r '.verificationMaterial.publicKey.hint' p.tar.gz.1.sigstore.json)" != null ]
	[ "$(jq '.verificationMaterial.timestampVerificationData.rfc3161Timestamps | length' p.tar.gz.2.sigstore.json)" = 1 ]
	cosign_policy two.yaml 2
	run "$PACKSIGN" verify p.tar.gz --trust two.yaml --bundle p.tar.gz.1.sigstore.json \
	    --bundle p.tar.gz.2.sigstore.json
	[ "$status" -eq 0 ]
	[[ "$output" == *"timestamp"* ]]
}
