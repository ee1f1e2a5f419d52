#!/usr/bin/env bats
# action.yml, the composite GitHub Action: its shape, and its signing step
# (scripts/action-sign) run outside GitHub against the local Sigstore served
# on 127.0.0.1 (tests/sigstore/serve), with GitHub Actions' token request
# emulated by that server and, as GitLab CI gives it, SIGSTORE_ID_TOKEN.

load helpers
load sigstore_helpers
bats_require_minimum_version 1.5.0

ROOT="$BATS_TEST_DIRNAME/../.."
ISSUER=https://token.actions.githubusercontent.com

setup() {
	cd "$BATS_TEST_TMPDIR"
	unset PACKSIGN_PASSPHRASE PACKSIGN_SECRET_KEY SOURCE_DATE_EPOCH
	unset SIGSTORE_ID_TOKEN ACTIONS_ID_TOKEN_REQUEST_URL ACTIONS_ID_TOKEN_REQUEST_TOKEN
}

teardown() {
	sigstore_stop
}

# action_sign [ENV=VALUE...]: the action's signing step against the server.
action_sign() {
	env PACKSIGN="$PACKSIGN" GITHUB_OUTPUT="$BATS_TEST_TMPDIR/outputs" \
	    INPUT_PATH="$AGENTPACK" INPUT_OUTPUT=p.tar.gz INPUT_COMPRESS=gzip \
	    INPUT_SIGNING_CONFIG=srv/signing_config.json \
	    INPUT_TRUSTED_ROOT=srv/trusted_root.json INPUT_CA_FILE=srv/ca.pem \
	    "$@" "$ROOT/scripts/action-sign"
}

@test "action.yml: a composite action with the inputs and outputs the docs name, running action-sign" {
	a="$ROOT/action.yml"
	grep -q '^  using: composite$' "$a"
	for input in path output compress upload signing-config trusted-root ca-file; do
		grep -q "^  $input:$" "$a"
	done
	grep -q '^  digest:$' "$a"
	grep -q 'scripts/install-deps" --build' "$a"
	grep -q 'scripts/action-sign' "$a"
	grep -q 'INPUT_PATH: ${{ inputs.path }}' "$a"
	grep -q 'gh release upload "$GITHUB_REF_NAME" "$ARCHIVE" "$BUNDLE"' "$a"
	python3 - "$a" <<'PY'
import sys
try:
    import yaml
except ImportError:
    sys.exit(0)
a = yaml.safe_load(open(sys.argv[1]))
assert a["runs"]["using"] == "composite"
steps = {s["name"]: s for s in a["runs"]["steps"]}
assert steps["Sign keylessly"]["id"] == "sign"
assert a["outputs"]["digest"]["value"] == "${{ steps.sign.outputs.digest }}"
PY
}

@test "the action's signing step: GitHub Actions' token, the digest output, a bundle that verifies" {
	python_sigstore_or_skip
	sigstore_env
	copy_pack "$AGENTPACK" >/dev/null
	sigstore_serve srv
	run action_sign ACTIONS_ID_TOKEN_REQUEST_URL="$SIGSTORE_URL/github/token?api-version=2.0" \
	    ACTIONS_ID_TOKEN_REQUEST_TOKEN="$(cat srv/github_request_token)"
	[ "$status" -eq 0 ]
	grep -qx "digest=sha256:$(sha256sum p.tar.gz | cut -d' ' -f1)" outputs
	grep -qx "archive=p.tar.gz" outputs
	grep -qx "bundle=p.tar.gz.1.sigstore.json" outputs
	"$PACKSIGN" verify-blob p.tar.gz --bundle p.tar.gz.1.sigstore.json \
	    --certificate-identity "$(cat srv/identity)" --certificate-oidc-issuer "$ISSUER" \
	    --trusted-root srv/trusted_root.json -q
}

@test "the GitLab recipe: SIGSTORE_ID_TOKEN signs the same way; no token fails" {
	python_sigstore_or_skip
	sigstore_env
	copy_pack "$AGENTPACK" >/dev/null
	sigstore_serve srv
	run action_sign SIGSTORE_ID_TOKEN="$(cat srv/token)"
	[ "$status" -eq 0 ]
	[ -f p.tar.gz.1.sigstore.json ]
	rm -f p.tar.gz* outputs
	run action_sign
	[ "$status" -eq 2 ]
	[[ "$output" == *"[identity_token_missing]"* ]]
	[ ! -e outputs ]
	run env -u INPUT_PATH GITHUB_OUTPUT=outputs "$ROOT/scripts/action-sign"
	[ "$status" -eq 2 ]
	[[ "$output" == *"'path' is required"* ]]
}
