#!/usr/bin/env bats
# CLI tests: keyless signers in the trust policy (issue 28): trust check's
# report of `keyless:` entries and `trusted_roots:`, the policy's refusals.

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
