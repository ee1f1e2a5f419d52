#!/usr/bin/env bats
# CLI tests: keyless signers in the trust policy (issue 28): trust check's
# report of `keyless:` entries and `trusted_roots:`, the policy's refusals;
# verify --bundle with keyless bundles the local Sigstore makes
# (keyless_sign.py).

load helpers

GH=https://token.actions.githubusercontent.com
REL=https://github.com/acme/packs/.github/workflows/release.yml

setup() {
	cd "$BATS_TEST_TMPDIR"
	mkdir -p conf
	cat >conf/trust.yaml <<YAML
version: 1
trusted_roots: [root.json]
signers:
  - identity: acme-release
    keyless:
      - issuer: $GH
        subject: $REL@refs/tags/v*
        repository: https://github.com/acme/packs
        repository_id: 123456789
        ref: refs/tags/v*
        trigger: push
        runner: github-hosted
        trusted_roots: [gh-root.json]
    packs: ["acme.*"]
  - identity: acme-gitlab
    keyless:
      - issuer: https://gitlab.com
        subject: https://gitlab.com/acme/packs//.gitlab-ci.yml@refs/tags/*
    packs: ["acme.*"]
YAML
}

@test "trust check shows every keyless entry and the policy's trusted roots" {
	run "$PACKSIGN" trust check --trust conf/trust.yaml
	[ "$status" -eq 0 ]
	[[ "$output" == *"identity acme-release"* ]]
	[[ "$output" == *"  keyless issuer $GH"* ]]
	[[ "$output" == *"      subject $REL@refs/tags/v*"* ]]
	[[ "$output" == *"      repository_id 123456789"* ]]
	[[ "$output" == *"      ref refs/tags/v*"* ]]
	[[ "$output" == *"      runner github-hosted"* ]]
	# relative names resolve against the policy's directory
	[[ "$output" == *"      trusted_roots: conf/gh-root.json"* ]]
	[[ "$output" == *"  keyless issuer https://gitlab.com"* ]]
	[[ "$output" == *"      trusted_roots: (the policy's)"* ]]
	[[ "$output" == *"trusted_roots: conf/root.json"* ]]
	[[ "$output" != *"warning"* ]]
}

@test "trust check --json: keyless entries with every field, null when absent" {
	run "$PACKSIGN" trust check --trust conf/trust.yaml --json
	[ "$status" -eq 0 ]
	python3 - "$output" <<'PY'
import json, sys
d = json.loads(sys.argv[1])
assert d["trusted_roots"] == ["conf/root.json"], d["trusted_roots"]
assert d["warnings"] == []
rel, gl = d["signers"]
assert rel["keys"] == [] and rel["roles"] == ["pack"]
e = rel["keyless"][0]
assert e["repository_id"] == "123456789" and e["trigger"] == "push"
assert e["signer_workflow"] is None and e["config_workflow"] is None
assert e["trusted_roots"] == ["conf/gh-root.json"]
assert gl["keyless"][0]["trusted_roots"] is None
assert gl["keyless"][0]["repository_id"] is None
PY
}

@test "a GitHub keyless entry without repository_id draws a warning, not a refusal" {
	sed -i '/repository_id: 123456789/d' conf/trust.yaml
	run "$PACKSIGN" trust check --trust conf/trust.yaml
	[ "$status" -eq 0 ]
	[[ "$output" == *"packsign: warning: conf/trust.yaml:6:9: identity 'acme-release': a GitHub keyless entry without repository_id"*"[keyless_repository_id]"* ]]
	run "$PACKSIGN" trust check --trust conf/trust.yaml --json
	[ "$status" -eq 0 ]
	[[ "$output" == *'"code": "keyless_repository_id"'* ]]
	# GitLab entries are not warned about
	[ "$(printf '%s\n' "$output" | grep -c keyless_repository_id)" -eq 1 ]
}

refused() {   # CODE WHERE: the policy on stdin is refused with CODE at WHERE
	cat >bad.yaml
	run "$PACKSIGN" trust check --trust bad.yaml
	[ "$status" -eq 2 ] || { echo "$output"; return 1; }
	[[ "$output" == *"packsign: bad.yaml:$2: "*"[$1]"* ]] || { echo "$output"; return 1; }
}

@test "keyless entries are read strictly, every error at FILE:LINE:COL, exit 2" {
	refused trust_missing_field 3:5 <<YAML
version: 1
signers:
  - identity: x
    packs: ["*"]
YAML
	refused trust_pattern 5:19 <<YAML
version: 1
signers:
  - identity: x
    keyless:
      - {subject: "$REL@refs/**", issuer: $GH}
    packs: ["*"]
YAML
	refused trust_keyless 5:90 <<YAML
version: 1
signers:
  - identity: x
    keyless:
      - {issuer: $GH, subject: s, repository_id: "12a"}
    packs: ["*"]
YAML
	refused trust_unknown_field 5:75 <<YAML
version: 1
signers:
  - identity: x
    keyless:
      - {issuer: $GH, subject: s, branch: main}
    packs: ["*"]
YAML
	refused trust_keyless 2:16 <<YAML
version: 1
trusted_roots: root.json
signers:
  - identity: x
    keyless: [{issuer: $GH, subject: s, repository_id: 1}]
    packs: ["*"]
YAML
}

@test "roles: [index] on a keyless signer is refused: the index stays key-signed" {
	refused trust_role 6:12 <<YAML
version: 1
signers:
  - identity: x
    keyless: [{issuer: $GH, subject: s, repository_id: 1}]
    packs: ["*"]
    roles: [index]
YAML
	[[ "$output" == *"keyless signer signs packs only (an index stays key-signed)"* ]]
	refused trust_role 6:12 <<YAML
version: 1
signers:
  - identity: x
    keyless: [{issuer: $GH, subject: s, repository_id: 1}]
    packs: ["*"]
    roles: [pack, index]
YAML
}

@test "an overlapping policy: two identities' keyless entries one certificate could match" {
	refused trust_keyless_overlap 8:9 <<YAML
version: 1
signers:
  - identity: acme
    keyless: [{issuer: $GH, subject: "https://github.com/acme/*/.github/workflows/release.yml@refs/*/*"}]
    packs: ["*"]
  - identity: packs
    keyless:
      - {issuer: $GH, subject: "https://github.com/*/packs/.github/workflows/*@refs/tags/*"}
    packs: ["*"]
YAML
	[[ "$output" == *"a keyless entry of 'packs' and one of 'acme' (line 4)"* ]]
	# told apart by the repository id, by the ref in the subject: loads
	cat >ok.yaml <<YAML
version: 1
signers:
  - identity: acme
    keyless: [{issuer: $GH, subject: "$REL@refs/tags/*", repository_id: 1}]
    packs: ["*"]
  - identity: other
    keyless:
      - {issuer: $GH, subject: "$REL@refs/tags/*", repository_id: 2}
      - {issuer: $GH, subject: "$REL@refs/heads/*"}
    packs: ["*"]
YAML
	run "$PACKSIGN" trust check --trust ok.yaml -q
	[ "$status" -eq 0 ]
}

# ------------------------------------------------ verifying keyless bundles

SIGN="$BATS_TEST_DIRNAME/keyless_sign.py"

# signed_pack: p.tar.gz signed by alice (its .sig carries the statement the
# keyless bundles sign again), made once per file.
signed_pack() {
	if [ ! -f "$BATS_FILE_TMPDIR/p.tar.gz" ]; then
		(cd "$BATS_FILE_TMPDIR" &&
		    cp -R "$EXAMPLES/research.top-journal-reviewer" pk &&
		    "$PACKSIGN" keygen -o alice --identity alice --no-passphrase >/dev/null &&
		    "$PACKSIGN" sign pk -s alice.key -o p.tar.gz --bundle >/dev/null)
	fi
	cp "$BATS_FILE_TMPDIR"/p.tar.gz "$BATS_FILE_TMPDIR"/p.tar.gz.sig \
	    "$BATS_FILE_TMPDIR"/p.tar.gz.1.sigstore.json "$BATS_FILE_TMPDIR"/alice.pub .
}

# keyless BUNDLE NAME=VALUE...: a keyless bundle over p.tar.gz's statement
# (tests/cli/keyless_sign.py), the local instance's root in root.json.
keyless() {
	local out=$1
	shift
	python3 "$SIGN" p.tar.gz.sig "$out" root.json "$@"
}

# gh_policy FILE [EXTRA]: acme-release trusts acme/packs' release workflow
# on tags v*, repository id 601234567 (the local GitHub's), root.json.
gh_policy() {
	cat >"$1" <<YAML
version: 1
trusted_roots: [root.json]
signers:
  - identity: acme-release
    keyless:
      - issuer: $GH
        subject: $REL@refs/tags/v*
        repository_id: 601234567
$2
    packs: ["research.*"]
YAML
}

@test "verify --bundle: a keyless bundle counts for the identity its certificate matches" {
	signed_pack
	keyless kl.json repository=acme/packs ref=refs/tags/v1.0.0
	gh_policy t.yaml
	run "$PACKSIGN" verify p.tar.gz --trust t.yaml --bundle kl.json
	[ "$status" -eq 0 ]
	[[ "$output" == "Good signature: research.top-journal-reviewer 0.1.0 by acme-release (KEYLESS:"* ]]
	[[ "$output" == *"; keyless: acme-release is the workflow $REL@refs/tags/v1.0.0, issuer $GH, repository https://github.com/acme/packs, id 601234567, ref refs/tags/v1.0.0, commit 4f5a5b0c1d2e3f405162738495a6b7c8d9e0f102, trigger push"* ]]
	[[ "$output" == *"1 transparency-log entry and 0 timestamps verified, signed by 2026-06-01T12:01:00Z"* ]]
	run "$PACKSIGN" verify p.tar.gz --trust t.yaml --bundle kl.json --json
	[ "$status" -eq 0 ]
	python3 - "$output" <<'PY'
import json, sys
r = json.loads(sys.argv[1])["results"][0]
s = r["signatures"][0]
k = s["keyless"]
assert s["counted"] and s["identity"] == "acme-release"
assert s["fingerprint"] == k["signer_id"] and k["signer_id"].startswith("KEYLESS:")
assert len(k["signer_id"]) == 51
assert r["identities"] == [{"identity": "acme-release", "fingerprint": k["signer_id"]}]
assert k["repository_id"] == "601234567" and k["ref"] == "refs/tags/v1.0.0"
assert k["commit"] == "4f5a5b0c1d2e3f405162738495a6b7c8d9e0f102"
assert k["runner"] == "github-hosted" and k["trigger"] == "push"
assert k["reusable_workflow"] is False and k["trusted_root"] == "root.json"
assert k["signing_time"] == "2026-06-01T12:01:00Z" and k["policy_line"] == 6
PY
	# another release of the same workflow: the same signer id
	first=$(echo "$output" | jq -r '.results[0].signatures[0].keyless.signer_id')
	keyless kl2.json repository=acme/packs ref=refs/tags/v2.0.0
	run "$PACKSIGN" verify p.tar.gz --trust t.yaml --bundle kl2.json --json
	[ "$status" -eq 0 ]
	[ "$(echo "$output" | jq -r '.results[0].signatures[0].keyless.signer_id')" = "$first" ]
}

@test "keyless: another repository, a re-created repository, a tag pattern miss, a branch" {
	signed_pack
	gh_policy t.yaml
	keyless other.json repository=evil/packs ref=refs/tags/v1.0.0
	run "$PACKSIGN" verify p.tar.gz --trust t.yaml --bundle other.json
	[ "$status" -eq 1 ]
	[[ "$output" == *"subject https://github.com/evil/packs/.github/workflows/release.yml@refs/tags/v1.0.0) against the policy's keyless entries: none matches (the entry of 'acme-release' at line 6 wants subject $REL@refs/tags/v*, the certificate has https://github.com/evil/packs/"*"[keyless_untrusted]"* ]]
	# same URI, another repository id: a deleted and re-created acme/packs
	keyless again.json repository=acme/packs ref=refs/tags/v1.0.0 source_repository_identifier=777
	run "$PACKSIGN" verify p.tar.gz --trust t.yaml --bundle again.json
	[ "$status" -eq 1 ]
	[[ "$output" == *"wants repository_id 601234567, the certificate has 777)"*"[keyless_untrusted]"* ]]
	keyless miss.json repository=acme/packs ref=refs/tags/release-1
	run "$PACKSIGN" verify p.tar.gz --trust t.yaml --bundle miss.json
	[ "$status" -eq 1 ]
	[[ "$output" == *"wants subject $REL@refs/tags/v*, the certificate has $REL@refs/tags/release-1)"*"[keyless_untrusted]"* ]]
	keyless branch.json repository=acme/packs ref=refs/heads/v1
	run "$PACKSIGN" verify p.tar.gz --trust t.yaml --bundle branch.json
	[ "$status" -eq 1 ]
	[[ "$output" == *"the certificate has $REL@refs/heads/v1)"*"[keyless_untrusted]"* ]]
	# a tag with a '/' after v: '*' never matches '/'
	keyless slash.json repository=acme/packs ref=refs/tags/v1/x
	run "$PACKSIGN" verify p.tar.gz --trust t.yaml --bundle slash.json
	[ "$status" -eq 1 ]
	[[ "$output" == *"[keyless_untrusted]"* ]]
}

@test "keyless: a reusable workflow called from another repository needs repository or repository_id" {
	signed_pack
	cat >t.yaml <<YAML
version: 1
trusted_roots: [root.json]
signers:
  - identity: acme-release
    keyless:
      - issuer: $GH
        subject: $REL@refs/tags/v*
    packs: ["*"]
YAML
	# acme/packs' release workflow, called by other/app
	keyless reuse.json repository=other/app ref=refs/tags/v1 \
	    san="$REL@refs/tags/v1" build_signer_uri="$REL@refs/tags/v1"
	run "$PACKSIGN" verify p.tar.gz --trust t.yaml --bundle reuse.json
	[ "$status" -eq 1 ]
	[[ "$output" == *"the certificate shows a reusable workflow (Build Signer URI $REL@refs/tags/v1, of another repository than the Source Repository URI https://github.com/other/app) and the keyless entry of 'acme-release' at line 6 constrains neither repository nor repository_id"*"[keyless_reusable_workflow]"* ]]
	# the entry names the calling repository: it counts
	sed -i "s|subject: $REL@refs/tags/v\*|&\n        repository: https://github.com/other/app|" t.yaml
	run "$PACKSIGN" verify p.tar.gz --trust t.yaml --bundle reuse.json --json
	[ "$status" -eq 0 ]
	[ "$(echo "$output" | jq -r '.results[0].signatures[0].keyless.reusable_workflow')" = true ]
}

@test "keyless: scope, window, --signed-by and the threshold work as for keys" {
	signed_pack
	keyless kl.json repository=acme/packs ref=refs/tags/v1.0.0
	gh_policy t.yaml
	run "$PACKSIGN" verify p.tar.gz --trust t.yaml --bundle kl.json --signed-by acme-release
	[ "$status" -eq 0 ]
	run "$PACKSIGN" verify p.tar.gz --trust t.yaml --bundle kl.json --signed-by alice
	[ "$status" -eq 1 ]
	[[ "$output" == *"[signer_missing]"* ]]
	sed 's|packs: \["research.\*"\]|packs: ["acme.*"]|' t.yaml >scope.yaml
	run "$PACKSIGN" verify p.tar.gz --trust scope.yaml --bundle kl.json
	[ "$status" -eq 1 ]
	[[ "$output" == *"identity 'acme-release' may not sign this pack: expected acme.*, found research.top-journal-reviewer"*"[pack_out_of_scope]"* ]]
	# the window is judged on the certificate's verified signing time
	gh_policy old.yaml "        not_after: 2026-05-31T23:59:59Z"
	run "$PACKSIGN" verify p.tar.gz --trust old.yaml --bundle kl.json
	[ "$status" -eq 1 ]
	[[ "$output" == *"is expired at the certificate's verified signing time 2026-06-01T12:01:00Z (its not_after is 2026-05-31T23:59:59Z)"*"[key_expired]"* ]]
	gh_policy new.yaml "        not_before: 2026-06-01T12:00:00Z"
	run "$PACKSIGN" verify p.tar.gz --trust new.yaml --bundle kl.json
	[ "$status" -eq 0 ]
	# threshold 2: alice's key and the workflow are two identities
	gh_policy two.yaml
	cat >>two.yaml <<YAML
  - identity: alice
    keys:
      - key: $(sed -n 2p alice.pub)
    packs: ["*"]
threshold: 2
YAML
	run "$PACKSIGN" verify p.tar.gz --trust two.yaml --bundle p.tar.gz.1.sigstore.json \
	    --bundle kl.json --json
	[ "$status" -eq 0 ]
	[ "$(echo "$output" | jq -c '[.results[0].identities[].identity]')" = '["alice","acme-release"]' ]
	# two releases of one workflow are one identity: no double counting
	keyless kl2.json repository=acme/packs ref=refs/tags/v2.0.0
	sed -i 's/^threshold: 2/threshold: 2/' two.yaml
	run "$PACKSIGN" verify p.tar.gz --trust two.yaml --bundle kl.json --bundle kl2.json
	[ "$status" -eq 1 ]
	[[ "$output" == *"expected threshold 2, found 1: acme-release [threshold_not_met]"* ]]
}

@test "keyless: the entry's trusted roots; without any, the public-good root refuses the local CA" {
	signed_pack
	keyless kl.json repository=acme/packs ref=refs/tags/v1.0.0
	gh_policy t.yaml
	sed -i '/^trusted_roots:/d' t.yaml
	run "$PACKSIGN" verify p.tar.gz --trust t.yaml --bundle kl.json
	[ "$status" -eq 1 ]
	[[ "$output" == *"signature 1 did not count"* ]]
	# --trusted-root stands in for the policy's roots
	run "$PACKSIGN" verify p.tar.gz --trust t.yaml --bundle kl.json --trusted-root root.json
	[ "$status" -eq 0 ]
	# an entry's own roots, relative to the policy's directory
	mkdir cfg && mv root.json cfg/local-root.json
	sed "s|repository_id: 601234567|&\n        trusted_roots: [local-root.json]|" t.yaml >cfg/t.yaml
	run "$PACKSIGN" verify p.tar.gz --trust cfg/t.yaml --bundle kl.json
	[ "$status" -eq 0 ]
	# a root file that is missing: the job cannot be done
	sed -i 's|local-root.json|gone.json|' cfg/t.yaml
	run "$PACKSIGN" verify p.tar.gz --trust cfg/t.yaml --bundle kl.json
	[ "$status" -eq 2 ]
	[[ "$output" == *"cfg/gone.json"*"[not_found]"* ]]
}

# ------------------------------------------- provenance from the certificate

HOLON_COMMIT=3f5c2a9d8e7b6c5d4e3f2a1b0c9d8e7f6a5b4c3d
PDF_REL=https://github.com/acme/pdf-profile/.github/workflows/release.yml

# holon_pack: h.tar.gz, the example holon signed by alice with the source
# its manifest names (acme/pdf-profile at HOLON_COMMIT); nosrc.json its
# statement without the source, in another tool's key order and spacing.
holon_pack() {
	cp -R "$EXAMPLES/holon-pdf-profile" h
	"$PACKSIGN" keygen -o alice --identity alice --no-passphrase >/dev/null
	"$PACKSIGN" sign h -s alice.key -o h.tar.gz --source-repo https://github.com/acme/pdf-profile \
	    --source-commit "$HOLON_COMMIT" >/dev/null
	python3 - <<'PY'
import base64, json
st = json.loads(base64.b64decode(json.load(open("h.tar.gz.sig"))["payload"]))
del st["predicate"]["source"]
open("nosrc.json", "w").write(json.dumps(st, indent=2, sort_keys=True))
PY
	cat >th.yaml <<YAML
version: 1
trusted_roots: [root.json]
signers:
  - identity: pdf-release
    keyless:
      - issuer: $GH
        subject: $PDF_REL@refs/tags/v*
        repository_id: 601234567
    packs: ["*"]
YAML
}

hk() {   # OUT NAME=VALUE...: a keyless bundle over h.tar.gz's statement
	local out=$1
	shift
	python3 "$SIGN" h.tar.gz.sig "$out" root.json repository=acme/pdf-profile ref=refs/tags/v1.2.0 "$@"
}

@test "certified provenance: the statement's source must be the commit and repository the CI certified" {
	holon_pack
	hk ok.json sha="$HOLON_COMMIT"
	run "$PACKSIGN" verify h.tar.gz --trust th.yaml --bundle ok.json
	[ "$status" -eq 0 ]
	[[ "$output" == *" from https://github.com/acme/pdf-profile @ $HOLON_COMMIT; source certified by the CI: repository https://github.com/acme/pdf-profile, commit $HOLON_COMMIT, workflow $PDF_REL@refs/tags/v1.2.0, ref refs/tags/v1.2.0;"* ]]
	run "$PACKSIGN" verify h.tar.gz --trust th.yaml --bundle ok.json --json
	[ "$(echo "$output" | jq -c '.results[0].source | [.certified, .certificate_checked]')" = '[false,true]' ]
	# a commit mismatch: the CI ran another commit than the statement claims
	hk other.json sha=1111111111111111111111111111111111111111
	run "$PACKSIGN" verify h.tar.gz --trust th.yaml --bundle other.json
	[ "$status" -eq 1 ]
	[[ "$output" == *"compared the statement's source commit and the certificate's Source Repository Digest (1.3.6.1.4.1.57264.1.13) with what the CI certified in the signing certificate: expected 1111111111111111111111111111111111111111, found $HOLON_COMMIT [source_certificate_mismatch]"* ]]
	# another repository than the statement's (the policy trusts the workflow by id)
	hk fork.json sha="$HOLON_COMMIT" source_repository_uri=https://github.com/acme/pdf-fork
	run "$PACKSIGN" verify h.tar.gz --trust th.yaml --bundle fork.json
	[ "$status" -eq 1 ]
	[[ "$output" == *"expected https://github.com/acme/pdf-fork, found https://github.com/acme/pdf-profile [source_certificate_mismatch]"* ]]
}

@test "certified provenance: a statement without source takes the CI's, for --source-* and holon source.ref" {
	holon_pack
	hk nosrc.bundle sha="$HOLON_COMMIT" payload=nosrc.json
	run "$PACKSIGN" verify h.tar.gz --trust th.yaml --bundle nosrc.bundle \
	    --source-repo git@github.com:acme/pdf-profile.git --source-commit "$HOLON_COMMIT" --require-source
	[ "$status" -eq 0 ]
	[[ "$output" == *" from https://github.com/acme/pdf-profile @ $HOLON_COMMIT (not recorded by the signer: source certified by the CI: repository https://github.com/acme/pdf-profile, commit $HOLON_COMMIT, workflow $PDF_REL@refs/tags/v1.2.0, ref refs/tags/v1.2.0);"* ]]
	run "$PACKSIGN" verify h.tar.gz --trust th.yaml --bundle nosrc.bundle --json
	[ "$(echo "$output" | jq -c '.results[0].source | [.repository, .commit, .certified]')" = \
	    "[\"https://github.com/acme/pdf-profile\",\"$HOLON_COMMIT\",true]" ]
	run "$PACKSIGN" verify h.tar.gz --trust th.yaml --bundle nosrc.bundle \
	    --source-commit 2222222222222222222222222222222222222222
	[ "$status" -eq 1 ]
	[[ "$output" == *"[source_commit_mismatch]"* ]]
	# the holon's source.ref is checked against the certificate's commit
	hk ref.bundle sha=1111111111111111111111111111111111111111 payload=nosrc.json
	run "$PACKSIGN" verify h.tar.gz --trust th.yaml --bundle ref.bundle
	[ "$status" -eq 1 ]
	[[ "$output" == *"compared the holon manifest's source.ref and the certificate's Source Repository Digest (the statement records no source) with what the CI certified in the signing certificate: expected 1111111111111111111111111111111111111111, found $HOLON_COMMIT [source_certificate_mismatch]"* ]]
}

# ------------------------------------------- install, receipts and pins

# two_versions: p.tar.gz (0.1.0) and p2.tar.gz (0.2.0) signed by alice.
two_versions() {
	signed_pack
	cp -R "$BATS_FILE_TMPDIR/pk" pk2
	sed -i 's/^version: 0.1.0/version: 0.2.0/' pk2/manifest.yml
	"$PACKSIGN" sign pk2 -s "$BATS_FILE_TMPDIR/alice.key" -o p2.tar.gz >/dev/null
	cat >any.yaml <<YAML
version: 1
trusted_roots: [root.json]
signers:
  - identity: acme-release
    keyless:
      - issuer: $GH
        subject: https://github.com/acme/packs/.github/workflows/*@refs/tags/v*
        repository_id: 601234567
    packs: ["*"]
YAML
}

@test "install --bundle: a keyless pack installs; receipt 3 keeps the bundle and the identity; verify --installed" {
	signed_pack
	keyless kl.json repository=acme/packs ref=refs/tags/v1.0.0
	gh_policy t.yaml
	run "$PACKSIGN" install p.tar.gz --bundle kl.json --trust t.yaml --data-dir dd --yes
	[ "$status" -eq 0 ]
	[[ "$output" == *"signed by: acme-release (KEYLESS:"* ]]
	rdir=dd/receipts/agentpacks/research.top-journal-reviewer
	[ -f "$rdir/0.1.0.1.sigstore.json" ]
	[ ! -e "$rdir/0.1.0.sig" ]
	cmp kl.json "$rdir/0.1.0.1.sigstore.json"
	python3 - "$rdir/0.1.0.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
assert r["packsignReceipt"] == 3 and r["bundles"] == 1
s = r["signers"][0]
assert s["identity"] == "acme-release" and s["fingerprint"].startswith("KEYLESS:")
k = s["keyless"]
assert k["signerId"] == s["fingerprint"]
assert k["repository_id"] == "601234567" and k["ref"] == "refs/tags/v1.0.0"
assert r["source"]["commit"] == k["commit"]      # certified, not recorded
PY
	run "$PACKSIGN" verify --installed research.top-journal-reviewer --data-dir dd --trust t.yaml
	[ "$status" -eq 0 ]
	[[ "$output" == *"receipt signature verified"* ]]
	# a changed bundle in the receipt no longer verifies
	python3 - "$rdir/0.1.0.1.sigstore.json" <<'PY'
import json, sys
b = json.load(open(sys.argv[1]))
b["dsseEnvelope"]["signatures"][0]["sig"] = "AAAA" + b["dsseEnvelope"]["signatures"][0]["sig"][4:]
json.dump(b, open(sys.argv[1], "w"))
PY
	run "$PACKSIGN" verify --installed research.top-journal-reviewer --data-dir dd --trust t.yaml
	[ "$status" -eq 1 ]
	run "$PACKSIGN" uninstall research.top-journal-reviewer --data-dir dd
	[ "$status" -eq 0 ]
	[ ! -e "$rdir/0.1.0.1.sigstore.json" ]
}

@test "install --bundle: pins the signer id; the same workflow's next release passes, another workflow is signer_changed" {
	two_versions
	keyless v1.json repository=acme/packs ref=refs/tags/v1.0.0
	run "$PACKSIGN" install p.tar.gz --bundle v1.json --trust any.yaml --data-dir dd --yes
	[ "$status" -eq 0 ]
	# 0.2.0 by another workflow of the same repository (the policy's pattern allows it)
	python3 "$SIGN" p2.tar.gz.sig other.json root.json repository=acme/packs \
	    ref=refs/tags/v2.0.0 workflow=.github/workflows/nightly.yml
	run "$PACKSIGN" install p2.tar.gz --bundle other.json --trust any.yaml --data-dir dd --yes
	[ "$status" -eq 1 ]
	[[ "$output" == *"no pinned identity or key signed this version"*"[signer_changed]"* ]]
	# the release workflow's next tag passes the pins
	python3 "$SIGN" p2.tar.gz.sig v2.json root.json repository=acme/packs ref=refs/tags/v2.0.0
	run "$PACKSIGN" install p2.tar.gz --bundle v2.json --trust any.yaml --data-dir dd --yes --accept permissions,trust
	[ "$status" -eq 0 ]
	[[ "$output" == *"installed research.top-journal-reviewer 0.2.0"* ]]
	# the first version's bundle survived the second install's cleaning
	run "$PACKSIGN" verify --installed research.top-journal-reviewer@0.1.0 --data-dir dd --trust any.yaml
	[ "$status" -eq 0 ]
}

@test "install --bundle: usage and library refusals" {
	signed_pack
	run "$PACKSIGN" install p.tar.gz --bundle kl.json --sig p.tar.gz.sig -p alice.pub --data-dir dd
	[ "$status" -eq 2 ]
	[[ "$output" == *"--bundle reads Sigstore bundles in place of the .sig of an archive file or URL"*"[usage]"* ]]
	run "$PACKSIGN" install acme.x --index index.json --bundle kl.json -p alice.pub --data-dir dd
	[ "$status" -eq 2 ]
	[[ "$output" == *"not with --sig or --index"*"[usage]"* ]]
}

# ------------------------------------------------ other tools' statements

@test "sign --predicate-out: another tool's statement with packsign's predicate (its key order and spacing) verifies" {
	cp -R "$EXAMPLES/research.top-journal-reviewer" pk
	"$PACKSIGN" keygen -o alice --identity alice --no-passphrase >/dev/null
	run "$PACKSIGN" sign pk -s alice.key -o rel.tar.gz --predicate-out pred.json
	[ "$status" -eq 0 ]
	[[ "$output" == *"wrote pred.json (the predicate)"* ]]
	run "$PACKSIGN" sign pk -s alice.key -o rel.tar.gz --force --predicate-out pred.json --json
	[ "$status" -eq 0 ]
	[ "$(echo "$output" | jq -r .predicate)" = pred.json ]
	# what actions/attest writes: subject by file name and digest, the
	# predicate file as given, keys in its own order, other whitespace
	python3 - <<'PY'
import hashlib, json
pred = json.load(open("pred.json"))
digest = hashlib.sha256(open("rel.tar.gz", "rb").read()).hexdigest()
kind = "v2" if "chunks" in pred else "v1"   # the version sign wrote
st = {"predicate": pred, "predicateType": "https://packsign.dev/attestation/pack/" + kind,
      "subject": [{"name": "rel.tar.gz", "digest": {"sha256": digest}}],
      "_type": "https://in-toto.io/Statement/v1"}
open("attest.json", "w").write(json.dumps(st, indent=4) + "\n")
PY
	python3 "$SIGN" rel.tar.gz.sig attest.bundle root.json repository=acme/packs \
	    ref=refs/tags/v1.0.0 payload=attest.json
	gh_policy t.yaml
	run "$PACKSIGN" verify rel.tar.gz --trust t.yaml --bundle attest.bundle
	[ "$status" -eq 0 ]
	[[ "$output" == "Good signature: research.top-journal-reviewer 0.1.0 by acme-release"* ]]
	# the predicate's strict reading is unchanged: an unknown member is refused
	python3 - <<'PY'
import json
st = json.load(open("attest.json"))
st["predicate"]["extra"] = 1
open("attest2.json", "w").write(json.dumps(st))
PY
	python3 "$SIGN" rel.tar.gz.sig attest2.bundle root.json repository=acme/packs \
	    ref=refs/tags/v1.0.0 payload=attest2.json
	run "$PACKSIGN" verify rel.tar.gz --trust t.yaml --bundle attest2.bundle
	[ "$status" -eq 1 ]
	[[ "$output" == *"[statement_invalid]"* ]]
}

@test "diff --old-bundle/--new-bundle: the trust group compares keyless signer ids" {
	two_versions
	keyless v1.json repository=acme/packs ref=refs/tags/v1.0.0
	python3 "$SIGN" p2.tar.gz.sig same.json root.json repository=acme/packs ref=refs/tags/v2.0.0
	python3 "$SIGN" p2.tar.gz.sig other.json root.json repository=acme/packs \
	    ref=refs/tags/v2.0.0 workflow=.github/workflows/nightly.yml
	id1=$("$PACKSIGN" verify p.tar.gz --bundle v1.json --trust any.yaml --json | jq -r '.results[0].identities[0].fingerprint')
	run "$PACKSIGN" diff p.tar.gz p2.tar.gz --old-bundle v1.json --new-bundle same.json --trust any.yaml --json
	[ "$status" -eq 1 ]
	# the same workflow: no signer change in the trust group
	[ "$(echo "$output" | jq '[.changes[] | select(.group == "trust")] | length')" -eq 0 ]
	run "$PACKSIGN" diff p.tar.gz p2.tar.gz --old-bundle v1.json --new-bundle other.json --trust any.yaml --json
	[ "$status" -eq 1 ]
	[[ "$output" == *"$id1"* ]]
	[ "$(echo "$output" | jq '[.changes[] | select(.group == "trust")] | length')" -gt 0 ]
	run "$PACKSIGN" diff p.tar.gz p2.tar.gz --old-sig p.tar.gz.sig --old-bundle v1.json --trust any.yaml
	[ "$status" -eq 2 ]
	[[ "$output" == *"[usage]"* ]]
}

@test "keyless: several trusted roots, tried in order, each bundle verified once per root" {
	signed_pack
	# another instance's root first, then the one that issued the certificate
	python3 "$SIGN" p.tar.gz.sig ignored.json other-root.json seed=another-instance
	keyless kl.json repository=acme/packs ref=refs/tags/v1.0.0
	cat >t.yaml <<YAML
version: 1
trusted_roots: [other-root.json, root.json]
signers:
  - identity: acme-release
    keyless:
      - issuer: $GH
        subject: $REL@refs/tags/v*
        repository_id: 601234567
    packs: ["*"]
  - identity: acme-gitlab
    keyless:
      - issuer: https://gitlab.com
        subject: https://gitlab.com/acme/packs//.gitlab-ci.yml@refs/tags/*
    packs: ["*"]
YAML
	run "$PACKSIGN" verify p.tar.gz --trust t.yaml --bundle kl.json --json
	[ "$status" -eq 0 ]
	[ "$(echo "$output" | jq -r '.results[0].signatures[0].keyless.trusted_root')" = root.json ]
	# only the other instance's root: the certificate chains to none
	sed -i 's/trusted_roots: \[other-root.json, root.json\]/trusted_roots: [other-root.json]/' t.yaml
	run "$PACKSIGN" verify p.tar.gz --trust t.yaml --bundle kl.json
	[ "$status" -eq 1 ]
	[[ "$output" == *"[certificate_untrusted]"* || "$output" == *"[tlog_unknown_log]"* ]]
}
