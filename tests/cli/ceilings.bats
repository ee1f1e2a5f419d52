#!/usr/bin/env bats
# CLI tests: permission ceilings (a signer's `may:`, trust-policy.md
# "Permission ceilings") refused by verify and install with
# permission_exceeds_policy, and shown by trust check.  Packs are the
# examples with edited manifests, signed with `packsign sign`.

load helpers
bats_require_minimum_version 1.5.0

HOLON_REPO=https://github.com/acme/pdf-profile
HOLON_REF=3f5c2a9d8e7b6c5d4e3f2a1b0c9d8e7f6a5b4c3d
CHECK="compared the pack's permissions with the ceilings of its signers"

# variant NAME SRC: packs/NAME, a copy of example SRC to edit.
variant() {
	cp -R "$EXAMPLES/$2" "packs/$1"
	chmod -R u+w "packs/$1"
}

# sign_as KEY NAME OUT [ARGS...]: signs packs/NAME as OUT.
sign_as() {
	local key=$1 name=$2 out=$3
	shift 3
	"$PACKSIGN" sign "packs/$name" -s "$key.key" -o "$out" "$@" >/dev/null
}

# signer IDENTITY KEY [MAY YAML lines]: one signer of a policy.
signer() {
	printf '  - identity: %s\n    keys:\n      - key: %s\n    packs: ["*"]\n%s' \
	    "$1" "$(sed -n 2p "$2.pub")" "${3:-}"
}

# Keys and signed archives are made once; each test writes its policy.
setup_file() {
	cd "$BATS_FILE_TMPDIR"
	unset PACKSIGN_PASSPHRASE PACKSIGN_SECRET_KEY SOURCE_DATE_EPOCH
	unset PACKSIGN_DATA_DIR
	for k in community a b c; do
		"$PACKSIGN" keygen -o $k --identity $k --no-passphrase >/dev/null
	done
	mkdir packs
	# An AgentPack asking for the network and one asking for a shell.
	variant net "$AGENTPACK"
	sed -i 's/network: false/network: true/' packs/net/manifest.yml
	sign_as community net net.tar.gz
	variant shell "$AGENTPACK"
	sed -i 's/shell: false/shell: true/' packs/shell/manifest.yml
	sign_as community shell shell.tar.gz
	# Both at once, co-signed by a, b and c.
	variant both "$AGENTPACK"
	sed -i 's/network: false/network: true/; s/shell: false/shell: true/' \
	    packs/both/manifest.yml
	sign_as a both both.tar.gz
	sign_as b both both.tar.gz --append
	sign_as c both both.tar.gz --append
	# The SoyaPack example egresses to api.openai.com and example.com.
	variant soya soyapack-research-summarizer
	sign_as community soya soya.tar.zst
	# The holon example: data.profile, 120 s, 0.02 USD a call.
	variant holon holon-pdf-profile
	sign_as community holon holon.tar --source-repo "$HOLON_REPO" \
	    --source-commit "$HOLON_REF"
	variant augr autograph.pkg.research
	sign_as community augr augr.tar.gz
}

setup() {
	cd "$BATS_TEST_TMPDIR"
	unset PACKSIGN_PASSPHRASE PACKSIGN_SECRET_KEY SOURCE_DATE_EPOCH
	unset PACKSIGN_DATA_DIR
	cp "$BATS_FILE_TMPDIR"/*.pub "$BATS_FILE_TMPDIR"/*.tar* .
}

# community's policy with `may:` lines $1 (indented for a signer).
community_policy() {
	{ printf 'version: 1\nsigners:\n'; signer community community "$1"; } \
	    >policy.yaml
}

AGENT_MAY='    may:
      agentpack: {network: false, shell: false, file_write: workspace, read_knowledge: true, read_filesystem: false}
'

@test "verify: an AgentPack asking for the network its signer may not give" {
	community_policy "$AGENT_MAY"
	run "$PACKSIGN" verify net.tar.gz --trust policy.yaml
	echo "$output"
	[ "$status" -eq 1 ]
	[ "$output" = "packsign: net.tar.gz: $CHECK (community): network: expected false (the ceiling of community), found true [permission_exceeds_policy]" ]
	run --separate-stderr "$PACKSIGN" verify net.tar.gz --trust policy.yaml --json
	[ "$status" -eq 1 ]
	[ "$(echo "$output" | jq -r '.results[0].code')" = permission_exceeds_policy ]
	[ "$(echo "$output" | jq -r '.results[0].expected')" = "false (the ceiling of community)" ]
	[ "$(echo "$output" | jq -r '.results[0].found')" = true ]
}

@test "verify: the same pack within its ceiling verifies, and --json says the ceiling ran" {
	community_policy "${AGENT_MAY/network: false/network: true}"
	run "$PACKSIGN" verify net.tar.gz --trust policy.yaml --json
	echo "$output"
	[ "$status" -eq 0 ]
	[ "$(echo "$output" | jq -r '.results[0].checks.ceilings')" = true ]
	# a signer without may: has no ceiling: nothing to check
	community_policy ""
	run "$PACKSIGN" verify net.tar.gz --trust policy.yaml --json
	[ "$status" -eq 0 ]
	[ "$(echo "$output" | jq -r '.results[0].checks.ceilings')" = false ]
}

@test "install: permission_exceeds_policy; --allow-shell and first_party do not lift a ceiling" {
	community_policy "    first_party: true
$AGENT_MAY"
	run "$PACKSIGN" install shell.tar.gz --trust policy.yaml --data-dir d --yes --allow-shell
	echo "$output"
	[ "$status" -eq 1 ]
	[[ "$output" == *"shell.tar.gz: $CHECK (community): shell: expected false (the ceiling of community), found true [permission_exceeds_policy]"* ]]
	[ ! -e d/agentpacks ]
	run --separate-stderr "$PACKSIGN" install net.tar.gz --trust policy.yaml --data-dir d --yes --json
	[ "$status" -eq 1 ]
	[ "$(echo "$output" | jq -r '.code')" = permission_exceeds_policy ]
	# within the ceiling it installs
	community_policy "    first_party: true
${AGENT_MAY/shell: false/shell: true}"
	run "$PACKSIGN" install shell.tar.gz --trust policy.yaml --data-dir d --yes
	echo "$output"
	[ "$status" -eq 0 ]
}

@test "SoyaPack: an egress host outside the ceiling is refused by verify and install" {
	community_policy '    may:
      soyapack:
        egress: ["api.openai.com:443/https", "*.example.org:443"]
        fs_read: [/workdir]
        fs_write: [/workdir/out]
        determinism_tier: [read-only, side-effect]
'
	run "$PACKSIGN" verify soya.tar.zst --trust policy.yaml
	echo "$output"
	[ "$status" -eq 1 ]
	[ "$output" = "packsign: soya.tar.zst: $CHECK (community): egress: expected one of api.openai.com:443/https, *.example.org:443 (the ceiling of community), found example.com:443/https [permission_exceeds_policy]" ]
	run "$PACKSIGN" install soya.tar.zst --trust policy.yaml --data-dir d --yes
	[ "$status" -eq 1 ]
	[[ "$output" == *"[permission_exceeds_policy]"* ]]
	# *.example.com does not cover example.com itself; the name does
	sed -i 's/"\*\.example\.org:443"/"*.example.com", "example.com:443\/https"/' policy.yaml
	run "$PACKSIGN" verify soya.tar.zst --trust policy.yaml
	echo "$output"
	[ "$status" -eq 0 ]
	# fs_write by component prefix: /workdir/outbox is not under /workdir/out
	sed -i 's|fs_write: \[/workdir/out\]|fs_write: [/workdir/outbox]|' policy.yaml
	run "$PACKSIGN" verify soya.tar.zst --trust policy.yaml
	[ "$status" -eq 1 ]
	[[ "$output" == *": fs_write: expected under one of /workdir/outbox (the ceiling of community), found /workdir/out [permission_exceeds_policy]" ]]
}

@test "SoyaPack: a pack whose format has no block is refused" {
	community_policy "$AGENT_MAY"
	run "$PACKSIGN" verify soya.tar.zst --trust policy.yaml
	[ "$status" -eq 1 ]
	[[ "$output" == *"$CHECK (community): format: expected agentpack (the ceiling of community), found soyapack [permission_exceeds_policy]" ]]
}

HOLON_MAY='    may:
      holon:
        capabilities: ["data.*"]
        data_egress: [api.openai.com]
        retention: P7D
        training_use: false
        endpoint: ["*.acme-agents.net:443"]
        timeout_s: 60
        price: 0.05 USD
'

@test "holon: a timeout, a price and a capability beyond the ceiling" {
	community_policy "$HOLON_MAY"
	run "$PACKSIGN" verify holon.tar --trust policy.yaml
	echo "$output"
	[ "$status" -eq 1 ]
	[ "$output" = "packsign: holon.tar: $CHECK (community): timeout_s: expected at most 60 (the ceiling of community), found 120 [permission_exceeds_policy]" ]
	run "$PACKSIGN" install holon.tar --trust policy.yaml --data-dir d --yes
	[ "$status" -eq 1 ]
	[[ "$output" == *"found 120 [permission_exceeds_policy]"* ]]
	community_policy "${HOLON_MAY/timeout_s: 60/timeout_s: 300}"
	sed -i 's/price: 0.05 USD/price: 0.01 USD/' policy.yaml
	run "$PACKSIGN" verify holon.tar --trust policy.yaml
	[ "$status" -eq 1 ]
	[[ "$output" == *": price: expected at most 0.01 USD (the ceiling of community), found 0.02 USD [permission_exceeds_policy]" ]]
	sed -i 's/price: 0.01 USD/price: 0.02 USD/; s/"data\.\*"/"net.*"/' policy.yaml
	run "$PACKSIGN" verify holon.tar --trust policy.yaml
	[ "$status" -eq 1 ]
	[[ "$output" == *": capabilities: expected one of net.* (the ceiling of community), found data.profile [permission_exceeds_policy]" ]]
	sed -i 's/"net\.\*"/"data.profile"/' policy.yaml
	run "$PACKSIGN" install holon.tar --trust policy.yaml --data-dir d --yes
	echo "$output"
	[ "$status" -eq 0 ]
}

@test "autograph: services and tasks are allow-lists" {
	community_policy '    may:
      autograph: {services: [search-index]}
'
	run "$PACKSIGN" verify augr.tar.gz --trust policy.yaml
	[ "$status" -eq 1 ]
	[[ "$output" == *": tasks: expected none (the ceiling of community), found up [permission_exceeds_policy]" ]]
	sed -i 's/services: \[search-index\]/services: [search-index], tasks: ["*"]/' policy.yaml
	run "$PACKSIGN" verify augr.tar.gz --trust policy.yaml
	[ "$status" -eq 0 ]
}

@test "two counted signers each short of the pack: refused naming both; a third without may: lifts it" {
	{
		printf 'version: 1\nsigners:\n'
		signer a a '    may:
      agentpack: {network: true, file_write: workspace, read_knowledge: true}
'
		signer b b '    may:
      agentpack: {shell: true, file_write: workspace, read_knowledge: true}
'
	} >two.yaml
	run "$PACKSIGN" verify both.tar.gz --trust two.yaml
	echo "$output"
	[ "$status" -eq 1 ]
	[ "$output" = "packsign: both.tar.gz: $CHECK (a, b): shell: expected false (the ceiling of a), found true; network: expected false (the ceiling of b), found true [permission_exceeds_policy]" ]
	run "$PACKSIGN" install both.tar.gz --trust two.yaml --data-dir d --yes --allow-shell
	[ "$status" -eq 1 ]
	[[ "$output" == *"[permission_exceeds_policy]"* ]]
	{ cat two.yaml; signer c c; } >three.yaml
	run "$PACKSIGN" verify both.tar.gz --trust three.yaml
	echo "$output"
	[ "$status" -eq 0 ]
	[[ "$output" == "Good signature: "*" by a ("*"), b ("*"), c ("* ]]
}

@test "trust check prints each ceiling, denials included, and the consent classes" {
	community_policy "$AGENT_MAY    may_not_be_here: 1
"
	run "$PACKSIGN" trust check --trust policy.yaml
	[ "$status" -eq 2 ]
	[[ "$output" == *"policy.yaml:9:5: unknown field 'may_not_be_here' in a signer [trust_unknown_field]"* ]]
	{
		printf 'version: 1\nconsent: [permissions, trust, code]\nsigners:\n'
		signer community community '    may:
      agentpack: {network: false, file_write: workspace}
      soyapack:  {egress: ["api.openai.com:443/https", "*.example.org:443"], fs_write: ["/workdir/out"],
                  determinism_tier: [read-only, side-effect]}
      holon:     {data_egress: ["api.openai.com"], training_use: false}
'
		signer a a
	} >policy.yaml
	run "$PACKSIGN" trust check --trust policy.yaml
	echo "$output"
	[ "$status" -eq 0 ]
	[[ "$output" == *"consent: permissions, trust, code"* ]]
	[[ "$output" == *"  may:
    agentpack: network false; shell false; file_write workspace; read_knowledge false; read_filesystem false
    soyapack: egress api.openai.com:443/https, *.example.org:443; fs_read none; fs_write /workdir/out; determinism_tier read-only, side-effect
    holon: capabilities none; data_egress api.openai.com; retention none; training_use false; endpoint none; timeout_s 0; price 0 (free packs only)
    autograph: refused (no block)"* ]]
	[[ "$output" == *"identity a
  packs: *
  roles: pack
  may: no ceiling (any permission)"* ]]
	run "$PACKSIGN" trust check --trust policy.yaml --json
	[ "$status" -eq 0 ]
	[ "$(echo "$output" | jq -c .consent)" = '["permissions","trust","code"]' ]
	[ "$(echo "$output" | jq -c '.signers[0].may.agentpack')" = '{"file_write":"workspace","network":false,"read_filesystem":false,"read_knowledge":false,"shell":false}' ]
	[ "$(echo "$output" | jq -c '.signers[0].may.soyapack.egress')" = '["api.openai.com:443/https","*.example.org:443"]' ]
	[ "$(echo "$output" | jq -r '.signers[0].may.holon.price')" = null ]
	[ "$(echo "$output" | jq -r '.signers[0].may.autograph')" = null ]
	[ "$(echo "$output" | jq -r '.signers[1].may')" = null ]
}

@test "trust check: ceiling and consent errors name FILE:LINE:COL, exit 2" {
	community_policy '    may:
      soyapack: {egress: ["*.example.org:99999"]}
'
	run "$PACKSIGN" trust check --trust policy.yaml
	[ "$status" -eq 2 ]
	[[ "$output" == *"policy.yaml:8:27: host pattern '*.example.org:99999' must be HOST[:PORT][/PROTOCOL]: the port after ':' must be a number from 1 to 65535 [trust_pattern]"* ]]
	community_policy '    may:
      holon: {retention: forever}
'
	run "$PACKSIGN" trust check --trust policy.yaml
	[ "$status" -eq 2 ]
	[[ "$output" == *"policy.yaml:8:26: 'retention' must be none or an ISO 8601 duration such as P7D, found 'forever' [trust_ceiling]"* ]]
	community_policy ""
	echo 'consent: [permissions, ads]' >>policy.yaml
	run "$PACKSIGN" trust check --trust policy.yaml
	[ "$status" -eq 2 ]
	[[ "$output" == *"policy.yaml:7:24: unknown consent class 'ads': expected permissions, trust, prompts or code [trust_consent]"* ]]
}
