#!/usr/bin/env bats
# CLI tests: packsign trust check (policy validation and reporting).

setup() {
	cd "$BATS_TEST_TMPDIR"
	unset PACKSIGN_PASSPHRASE PACKSIGN_SECRET_KEY
	"$PACKSIGN" keygen -o a --identity alice --no-passphrase >/dev/null
	"$PACKSIGN" keygen -o b --no-passphrase >/dev/null
	"$PACKSIGN" keygen -o r --no-passphrase >/dev/null
	ssh-keygen -q -t ed25519 -N '' -C alice@laptop -f s
	openssl genpkey -algorithm ed25519 2>/dev/null | openssl pkey -pubout -out o.spki
	cat >policy.yaml <<YAML
version: 1
signers:
  - identity: alice                    # the name a manifest's signed_by uses
    keys:
      - key: $(sed -n 2p a.pub)
      - key: $(cat s.pub)
        not_before: 2026-01-01T00:00:00Z
        not_after: 2027-12-31T23:59:59Z
    packs: ["research.*", "acme/*"]
    first_party: false
  - identity: bob
    keys:
      - key: $(sed -n 2p b.pub)
      - key: |
$(sed 's/^/          /' o.spki)
    packs: ["*"]
revoked:
  - key: $(sed -n 2p r.pub)
    reason: laptop lost
threshold: 1
YAML
}

@test "trust check prints identities, fingerprints, scopes and windows" {
	run "$PACKSIGN" trust check --trust policy.yaml --at 2026-06-01T00:00:00Z
	[ "$status" -eq 0 ]
	[[ "$output" == *"identity alice"* ]]
	[[ "$output" == *"packs: research.*, acme/*"* ]]
	[[ "$output" == *"$(ssh-keygen -lf s.pub | cut -d' ' -f2) (ssh)"* ]]
	[[ "$output" == *"window 2026-01-01T00:00:00Z .. 2027-12-31T23:59:59Z: valid"* ]]
	[[ "$output" == *"reason: laptop lost"* ]]
}

@test "trust check --json reports windows and status at --at" {
	run "$PACKSIGN" trust check --trust policy.yaml --json --at 2028-01-01T00:00:00Z
	[ "$status" -eq 0 ]
	[ "$(echo "$output" | jq -r '.signers[0].keys[1].status')" = expired ]
	[ "$(echo "$output" | jq -r '.signers[0].keys[0].status')" = valid ]
	[ "$(echo "$output" | jq -r '.signers[1].keys[1].format')" = pem ]
	[ "$(echo "$output" | jq -r '.revoked[0].reason')" = "laptop lost" ]
	[ "$(echo "$output" | jq -r '.threshold')" = 1 ]
	run "$PACKSIGN" trust check --trust policy.yaml --json --at 2025-01-01T00:00:00Z
	[ "$(echo "$output" | jq -r '.signers[0].keys[1].status')" = not_yet_valid ]
}

@test "policy errors name FILE:LINE:COL and exit 2" {
	sed 's/^version: 1/version: 2/' policy.yaml >v2.yaml
	run "$PACKSIGN" trust check --trust v2.yaml
	[ "$status" -eq 2 ]
	[[ "$output" == *"v2.yaml:1:10: unsupported policy version: expected 1, found 2 [trust_version]"* ]]
	sed 's/^threshold: 1/threshold: 1\nsignatures: 2/' policy.yaml >unk.yaml
	run "$PACKSIGN" trust check --trust unk.yaml
	[ "$status" -eq 2 ]
	[[ "$output" == *"unk.yaml:23:1: unknown field 'signatures' in the policy [trust_unknown_field]"* ]]
	sed 's/not_after: 2027-12-31T23:59:59Z/not_after: 2027-12-31/' policy.yaml >date.yaml
	run "$PACKSIGN" trust check --trust date.yaml
	[ "$status" -eq 2 ]
	[[ "$output" == *"date.yaml:8:20:"*"[trust_date]"* ]]
	sed "s|key: $(sed -n 2p b.pub)|key: $(sed -n 2p a.pub)|" policy.yaml >dup.yaml
	run "$PACKSIGN" trust check --trust dup.yaml
	[ "$status" -eq 2 ]
	[[ "$output" == *"dup.yaml:13:14: key SHA256:"*"already listed for identity 'alice' at line 5"*"[trust_duplicate_key]"* ]]
	sed 's/^  - key: RW.*/  - key: RWQxyz/' policy.yaml >bad.yaml
	run "$PACKSIGN" trust check --trust bad.yaml
	[ "$status" -eq 2 ]
	[[ "$output" == *"bad.yaml:20:10:"*"[trust_key]"* ]]
	# One bracketed code a line: the key's own reason is named in words.
	[ "$(grep -o '\[[a-z_]*\]' <<<"$output")" = "[trust_key]" ]
	printf 'version: 1\nsigners: [\n' >syntax.yaml
	run "$PACKSIGN" trust check --trust syntax.yaml
	[ "$status" -eq 2 ]
	[[ "$output" == *"syntax.yaml:"*"[yaml_syntax]"* ]]
}

@test "-p KEY.pub: one key, identity from the comment or else the key id" {
	run "$PACKSIGN" trust check -p a.pub --json
	[ "$status" -eq 0 ]
	[ "$(echo "$output" | jq -r '.signers[0].identity')" = alice ]
	[ "$(echo "$output" | jq -r '.signers[0].packs[0]')" = '*' ]
	run "$PACKSIGN" trust check -p b.pub --json
	[ "$(echo "$output" | jq -r '.signers[0].identity')" = \
	    "$(sed -n 's/.*packsign public key //p' b.pub)" ]
}

@test "trust usage errors exit 2" {
	run "$PACKSIGN" trust check
	[ "$status" -eq 2 ]
	[[ "$output" == *"[usage]"* ]]
	run "$PACKSIGN" trust check --trust policy.yaml --at 2026-01-01T00:00:00+02:00
	[ "$status" -eq 2 ]
	[[ "$output" == *"--at must be an RFC 3339 UTC time"* ]]
	run "$PACKSIGN" trust check --trust policy.yaml -p a.pub
	[ "$status" -eq 2 ]
	run "$PACKSIGN" trust verify
	[ "$status" -eq 2 ]
	run "$PACKSIGN" trust check --trust missing.yaml
	[ "$status" -eq 2 ]
	[[ "$output" == *"[not_found]"* ]]
}

@test "a revocation reason with control characters is refused (review finding)" {
	"$PACKSIGN" keygen -o revoked-key --no-passphrase >/dev/null
	"$PACKSIGN" keygen -o good-key --no-passphrase >/dev/null
	printf 'version: 1\nsigners:\n  - identity: g\n    keys:\n      - key: %s\n    packs: ["*"]\nrevoked:\n  - key: %s\n    reason: "a\\e[31mRED"\n' \
	    "$(sed -n 2p good-key.pub)" "$(sed -n 2p revoked-key.pub)" > p.yaml
	run "$PACKSIGN" trust check --trust p.yaml
	[ "$status" -eq 2 ]
	[[ "$output" == *"control character"*"[trust_type]"* ]]
	[[ "$output" != *$'\033'* ]]
}

@test "trust check shows roles, and min_index_version when set" {
	sed 's/^    packs: \["\*"\]$/&\n    roles: [index, pack]\n    min_index_version: 7/' policy.yaml >roles.yaml
	run "$PACKSIGN" trust check --trust roles.yaml --at 2026-06-01T00:00:00Z
	echo "$output"
	[ "$status" -eq 0 ]
	[[ "$output" == *"identity alice"$'\n'"  packs: research.*, acme/*"$'\n'"  roles: pack"$'\n'"  may: no ceiling"* ]]
	[[ "$output" == *"identity bob"$'\n'"  packs: *"$'\n'"  roles: pack, index"$'\n'"  min_index_version: 7"$'\n'* ]]
	[ "$(grep -c min_index_version <<<"$output")" -eq 1 ]
	run "$PACKSIGN" trust check --trust roles.yaml --json
	[ "$status" -eq 0 ]
	[ "$(echo "$output" | jq -c '[.signers[] | [.roles, .min_index_version]]')" = '[[["pack"],null],[["pack","index"],7]]' ]
	run "$PACKSIGN" trust check -p a.pub --json
	[ "$(echo "$output" | jq -c '[.signers[0].roles, .signers[0].min_index_version]')" = '[["pack","index"],null]' ]
}

@test "roles and min_index_version errors name FILE:LINE:COL and exit 2" {
	sed 's/^    packs: \["\*"\]$/&\n    roles: [index, publish]/' policy.yaml >r1.yaml
	run "$PACKSIGN" trust check --trust r1.yaml
	[ "$status" -eq 2 ]
	[[ "$output" == *"r1.yaml:19:20: unknown role 'publish': a role is pack or index [trust_role]"* ]]
	sed 's/^    packs: \["\*"\]$/&\n    roles: []/' policy.yaml >r2.yaml
	run "$PACKSIGN" trust check --trust r2.yaml
	[ "$status" -eq 2 ]
	[[ "$output" == *"r2.yaml:19:12: 'roles' must list at least one role"*"[trust_role]"* ]]
	sed 's/^    packs: \["\*"\]$/&\n    roles: [pack, pack]/' policy.yaml >r3.yaml
	run "$PACKSIGN" trust check --trust r3.yaml
	[ "$status" -eq 2 ]
	[[ "$output" == *"r3.yaml:19:19: role 'pack' is listed twice [trust_role]"* ]]
	sed 's/^    packs: \["\*"\]$/&\n    min_index_version: 7/' policy.yaml >m1.yaml
	run "$PACKSIGN" trust check --trust m1.yaml
	[ "$status" -eq 2 ]
	[[ "$output" == *"m1.yaml:19:24: 'min_index_version' is the floor of index versions, but identity 'bob' has roles [pack]"*"[trust_role]"* ]]
	sed 's/^    packs: \["\*"\]$/&\n    roles: [index]\n    min_index_version: -3/' policy.yaml >m2.yaml
	run "$PACKSIGN" trust check --trust m2.yaml
	[ "$status" -eq 2 ]
	[[ "$output" == *"m2.yaml:20:24: 'min_index_version' must be a whole number from 1 to 9007199254740991 (2^53 - 1, the highest index version) written in digits, found '-3' [trust_type]"* ]]
}

@test "a public key given as the policy says so and names -p [trust_public_key]" {
	for k in a.pub s.pub o.spki; do
		run "$PACKSIGN" trust check --trust "$k"
		echo "$output"
		[ "$status" -eq 2 ]
		[ "$output" = "packsign: $k: is a public key, not a trust policy (trust this key alone with -p $k, ps_trust_from_pubkey; or list it in a policy, under a signer's keys): expected a trust policy (YAML, version: 1), found a public key file [trust_public_key]" ]
	done
	# Anything else keeps its own error.
	printf 'version: 1\nsigners: [\n' >syntax.yaml
	run "$PACKSIGN" trust check --trust syntax.yaml
	[[ "$output" == *"[yaml_syntax]" ]]
	run "$PACKSIGN" trust check --trust missing.yaml
	[[ "$output" == *"[not_found]" ]]
}
