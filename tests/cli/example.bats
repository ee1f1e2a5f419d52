#!/usr/bin/env bats
# examples/verify-and-install.c, built with the public header alone
# (build/examples/verify-and-install): it installs what packsign signed,
# refuses what was tampered with (exit 1, code, expected, found), and
# fails with exit 2 on the operator's own mistakes.

load helpers
bats_require_minimum_version 1.5.0

setup_file() {
	cd "$BATS_FILE_TMPDIR"
	unset PACKSIGN_PASSPHRASE PACKSIGN_SECRET_KEY SOURCE_DATE_EPOCH
	unset PACKSIGN_DATA_DIR
	"$PACKSIGN" keygen -o alice --identity alice --no-passphrase >/dev/null
	"$PACKSIGN" keygen -o mallory --identity mallory --no-passphrase \
	    >/dev/null
	for who in alice mallory; do
		cat >"policy-$who.yaml" <<YAML
version: 1
signers:
  - identity: $who
    keys:
      - key: $(sed -n 2p "$who.pub")
    packs: ["*"]
threshold: 1
YAML
	done
	cp -R "$EXAMPLES/$AGENTPACK" pack
	chmod -R u+w pack
	"$PACKSIGN" sign pack -s alice.key -o ap.tar.gz >/dev/null
}

setup() {
	cd "$BATS_TEST_TMPDIR"
	F=$BATS_FILE_TMPDIR
	EXAMPLE=$(dirname "$PACKSIGN")/examples/verify-and-install
	D=$BATS_TEST_TMPDIR/data
}

teardown() {
	chmod -R u+w "$BATS_TEST_TMPDIR" 2>/dev/null || true
	[ -z "${PORT_PID:-}" ] || kill "$PORT_PID" 2>/dev/null || true
}

@test "example: a signed archive is verified and installed, then is a no-op" {
	run "$EXAMPLE" "$F/ap.tar.gz" "$F/policy-alice.yaml" "$D"
	[ "$status" -eq 0 ]
	[[ ${lines[0]} == "installed $AGENTPACK 0.1.0" ]]
	[[ $output == *"path: $D/agentpacks/$AGENTPACK/0.1.0"* ]]
	[[ $output == *"signed by: alice"$'\n'"  key: SHA256:"* ]]
	[ -f "$D/agentpacks/$AGENTPACK/0.1.0/manifest.yml" ]
	# The CLI sees the same install, with the digest the example printed.
	run "$PACKSIGN" list --data-dir "$D" --verify
	[ "$status" -eq 0 ]
	[[ $output == *"$AGENTPACK"*"0.1.0"* ]]
	[[ "$("$EXAMPLE" "$F/ap.tar.gz" "$F/policy-alice.yaml" "$D")" == \
	    "already installed: $AGENTPACK 0.1.0"* ]]
	local tree
	tree=$(digest_field "$F/ap.tar.gz" tree_digest)
	"$EXAMPLE" "$F/ap.tar.gz" "$F/policy-alice.yaml" "$D" |
	    grep -qx "tree digest: $tree"
}

@test "example: a tampered archive is refused with exit 1, code, expected and found" {
	cp "$F/ap.tar.gz" bad.tar.gz
	cp "$F/ap.tar.gz.sig" bad.tar.gz.sig
	# One byte of the gzip stream's stored size changes: the archive's
	# SHA-256 no longer matches the signed subject.
	printf '\001' | dd of=bad.tar.gz bs=1 seek=$(($(stat -c %s bad.tar.gz) - 1)) \
	    conv=notrunc status=none
	run --separate-stderr "$EXAMPLE" bad.tar.gz "$F/policy-alice.yaml" "$D"
	[ "$status" -eq 1 ]
	[ -z "$output" ]
	[[ $stderr == *"code:     subject_mismatch"* ]]
	[[ $stderr == *"expected: sha256:"* ]]
	[[ $stderr == *"found:    sha256:"* ]]
	[ ! -e "$D/agentpacks/$AGENTPACK" ]
	# The CLI refuses it with the same code.
	run "$PACKSIGN" install bad.tar.gz --trust "$F/policy-alice.yaml" \
	    --data-dir "$D" --yes
	[ "$status" -eq 1 ]
	[[ $output == *"[subject_mismatch]"* ]]
}

@test "example: a signer the policy does not trust is refused with exit 1" {
	run --separate-stderr "$EXAMPLE" "$F/ap.tar.gz" \
	    "$F/policy-mallory.yaml" "$D"
	[ "$status" -eq 1 ]
	[[ $stderr == *"code:     "[a-z]* ]]
	[ ! -e "$D/agentpacks/$AGENTPACK" ]
}

@test "example: usage, a broken policy and a missing archive are exit 2" {
	run "$EXAMPLE" "$F/ap.tar.gz"
	[ "$status" -eq 2 ]
	[[ $output == usage:* ]]
	printf 'version: 1\nsigners: [\n' >broken.yaml
	run --separate-stderr "$EXAMPLE" "$F/ap.tar.gz" broken.yaml "$D"
	[ "$status" -eq 2 ]
	[[ $stderr == *"broken.yaml:"*"code:     yaml_syntax"* ]]
	run --separate-stderr "$EXAMPLE" missing.tar.gz \
	    "$F/policy-alice.yaml" "$D"
	[ "$status" -eq 2 ]
	[[ $stderr == *"code:     not_found"* ]]
}

@test "example: control characters from names never reach the terminal" {
	local name=$'evil\033[2J.tar.gz'
	cp "$F/ap.tar.gz" "$name"
	cp "$F/ap.tar.gz.sig" "$name.sig"
	run --separate-stderr "$EXAMPLE" "$name" "$F/policy-alice.yaml" "$D"
	[ "$status" -eq 1 ]
	[[ $stderr == *'evil\x1b[2J.tar.gz'* ]]
	[[ $stderr != *$'\033'* ]]
}

@test "show-upgrade: shows an upgrade's changes, then installs exactly what it showed" {
	local show
	show=$(dirname "$PACKSIGN")/examples/show-upgrade
	cp -R "$F/pack" v2
	chmod -R u+w v2
	sed -i 's/^version: 0\.1\.0$/version: 0.2.0/; s/^  network: false/  network: true/' \
	    v2/manifest.yml
	"$PACKSIGN" sign v2 -s "$F/alice.key" -o v2.tar.gz >/dev/null
	run "$show" "$F/ap.tar.gz" "$F/policy-alice.yaml" "$D" accept
	[ "$status" -eq 0 ]
	[[ $output == *"a first install"*"installed 0.1.0"* ]]
	run "$show" v2.tar.gz "$F/policy-alice.yaml" "$D"
	[ "$status" -eq 0 ]
	[[ $output == *"0.1.0 -> 0.2.0"*"permissions ~ permissions.network true  [widens: permissions]"* ]]
	[ ! -e "$D/agentpacks/$AGENTPACK/0.2.0" ]
	run "$show" v2.tar.gz "$F/policy-alice.yaml" "$D" accept
	[ "$status" -eq 0 ]
	[ -d "$D/agentpacks/$AGENTPACK/0.2.0" ]
	grep -q '"by": "accept-diff"' "$D/receipts/agentpacks/$AGENTPACK/0.2.0.json"
}

@test "install-from-index: installs by name from a signed index, then refuses the older index it replaced" {
	local ex
	ex=$(dirname "$PACKSIGN")/examples/install-from-index
	unset https_proxy HTTPS_PROXY http_proxy HTTP_PROXY all_proxy ALL_PROXY no_proxy NO_PROXY
	F=$BATS_TEST_TMPDIR
	load net_helpers
	mkdir -p www
	cp -R "$BATS_FILE_TMPDIR/pack" v1
	"$PACKSIGN" sign v1 -s "$BATS_FILE_TMPDIR/alice.key" -o www/ap.tar.gz >/dev/null
	"$PACKSIGN" keygen -o pub --identity pub --no-passphrase >/dev/null
	cat >policy.yaml <<YAML
version: 1
signers:
  - identity: alice
    keys:
      - key: $(sed -n 2p "$BATS_FILE_TMPDIR/alice.pub")
    packs: ["*"]
  - identity: pub
    roles: [index]
    keys:
      - key: $(sed -n 2p pub.pub)
    packs: ["research.*"]
YAML
	ca ca
	cert server IP:127.0.0.1 ca
	serve server PORT
	"$PACKSIGN" index build www/ap.tar.gz -o old.json -s pub.key \
	    -p "$BATS_FILE_TMPDIR/alice.pub" --base-url "https://127.0.0.1:$PORT/files/" >/dev/null
	"$PACKSIGN" index refresh old.json -o new.json -s pub.key >/dev/null
	run --separate-stderr "$ex" new.json policy.yaml "$D" "$AGENTPACK" "" ca.pem
	kill "$PORT_PID"
	[ "$status" -eq 0 ]
	[[ $output == "installed $AGENTPACK 0.1.0"$'\n'"from: https://127.0.0.1:$PORT/files/ap.tar.gz" ]]
	[[ $stderr == *"no index state for pub"* ]]
	grep -q '"version": 2' "$D/index-state.json"
	# The index it replaced is a replay now: refused before any download.
	run --separate-stderr "$ex" old.json policy.yaml "$D" "$AGENTPACK"
	[ "$status" -eq 1 ]
	[[ $stderr == *"code:     index_rollback"* ]]
	run --separate-stderr "$ex" new.json policy.yaml "$D" no.such.pack
	[ "$status" -eq 1 ]
	[[ $stderr == *"code:     index_not_listed"* ]]
}
