#!/usr/bin/env bats
# CLI tests: install URL --bundle URL (issue 28): a keyless pack and its
# bundle downloaded from a loopback HTTPS server (tests/cli/net_server.py)
# with a throwaway CA; the bundle made by the local Sigstore
# (tests/cli/keyless_sign.py).  Nothing leaves 127.0.0.1.

load helpers
load net_helpers

GH=https://token.actions.githubusercontent.com
REL=https://github.com/acme/packs/.github/workflows/release.yml

setup_file() {
	cd "$BATS_FILE_TMPDIR"
	F=$BATS_FILE_TMPDIR
	unset PACKSIGN_PASSPHRASE PACKSIGN_SECRET_KEY SOURCE_DATE_EPOCH
	cp -R "$EXAMPLES/$AGENTPACK" pk && chmod -R u+w pk
	"$PACKSIGN" keygen -o throwaway --no-passphrase >/dev/null
	"$PACKSIGN" sign pk -s throwaway.key -o p.tar.gz >/dev/null
	python3 "$BATS_TEST_DIRNAME/keyless_sign.py" p.tar.gz.sig kl.json root.json \
	    repository=acme/packs ref=refs/tags/v1.0.0
	head -c $((4 * 1024 * 1024 + 1)) /dev/zero >big.json
	mkdir -p www
	cp p.tar.gz kl.json big.json www/
	ca ca
	cert server IP:127.0.0.1 ca
	serve server PORT
	echo "PORT=$PORT PORT_PID=$PORT_PID" >server.env
	cat >trust.yaml <<YAML
version: 1
trusted_roots: [root.json]
signers:
  - identity: acme-release
    keyless:
      - issuer: $GH
        subject: $REL@refs/tags/v*
        repository_id: 601234567
    packs: ["*"]
YAML
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

@test "install URL --bundle URL: the archive and its keyless bundle downloaded, verified, kept" {
	run "$PACKSIGN" install "$U/files/p.tar.gz" --bundle "$U/files/kl.json" \
	    --trust "$F/trust.yaml" --data-dir "$D" --yes --ca-file "$F/ca.pem"
	echo "$output"
	[ "$status" -eq 0 ]
	[[ "$output" == *"signed by: acme-release (KEYLESS:"* ]]
	cmp "$F/kl.json" "$D/receipts/agentpacks/$AGENTPACK/0.1.0.1.sigstore.json"
	# a local bundle with an archive URL works too
	run "$PACKSIGN" install "$U/files/p.tar.gz" --bundle "$F/kl.json" \
	    --trust "$F/trust.yaml" --data-dir "$D" --yes --ca-file "$F/ca.pem" --reinstall
	[ "$status" -eq 0 ]
}

@test "install URL --bundle URL: a bundle over 4 MiB is refused, a missing one is fetch_http_status" {
	run "$PACKSIGN" install "$U/files/p.tar.gz" --bundle "$U/files/big.json" \
	    --trust "$F/trust.yaml" --data-dir "$D" --yes --ca-file "$F/ca.pem"
	[ "$status" -eq 1 ]
	[[ "$output" == *"[envelope_too_large]"* ]]
	run "$PACKSIGN" install "$U/files/p.tar.gz" --bundle "$U/files/none.json" \
	    --trust "$F/trust.yaml" --data-dir "$D" --yes --ca-file "$F/ca.pem"
	[ "$status" -eq 2 ]
	[[ "$output" == *"[fetch_http_status]"* ]]
	# a bundle URL with a local archive
	run "$PACKSIGN" install "$F/p.tar.gz" --bundle "$U/files/kl.json" \
	    --trust "$F/trust.yaml" --data-dir "$D" --yes
	[ "$status" -eq 2 ]
	[[ "$output" == *"a bundle URL goes with an archive URL"* ]]
}
