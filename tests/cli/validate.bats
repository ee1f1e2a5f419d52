#!/usr/bin/env bats
# packsign validate: the example packs, every manifest rule (one failing
# test per rule, asserting its code), YAML attacks, several errors at once.

load manifest_helpers

# --------------------------------------------------------------- generic

@test "validate: each example pack is valid" {
	for p in soyapack-research-summarizer holon-pdf-profile \
	    autograph.pkg.research research.top-journal-reviewer; do
		pack "$p"
		validate
		valid_ok
		grep -qF "(0 errors, 0 warnings)" <<<"$output"
	done
}

@test "validate: summary names format, id and version" {
	pack research.top-journal-reviewer
	validate
	[ "$status" -eq 0 ]
	[ "${lines[-1]}" = "$P: valid agentpack research.top-journal-reviewer 0.1.0 (0 errors, 0 warnings)" ]
}

@test "validate: a missing path cannot be validated (exit 2)" {
	run "$PACKSIGN" validate "$BATS_TEST_TMPDIR/nope"
	[ "$status" -eq 2 ]
	grep -qF "[not_found]" <<<"$output"
}

@test "validate: archives are validated like their directory (tar.gz, zip, GNU tar)" {
	ex="$BATS_TEST_DIRNAME/../../examples/packs"
	cd "$BATS_TEST_TMPDIR"
	for p in "$ex"/*; do
		n=$(basename "$p")
		"$PACKSIGN" pack "$p" -o "$n.tar.gz" >/dev/null
		(cd "$p" && zip -qr "$BATS_TEST_TMPDIR/$n.zip" .)
		tar -C "$p" -cf "$n.gnu.tar" .
		for a in "$n.tar.gz" "$n.zip" "$n.gnu.tar"; do
			run "$PACKSIGN" validate "$a"
			[ "$status" -eq 0 ]
			[[ "$output" == "$a: valid "* ]]
		done
	done
}

@test "validate: an invalid pack inside an archive is refused with its codes" {
	ex="$BATS_TEST_DIRNAME/../../examples/packs"
	cd "$BATS_TEST_TMPDIR"
	cp -R "$ex/research.top-journal-reviewer" p && chmod -R u+w p
	rm p/agents/reviewer.yml
	printf '\x80\x04data' > p/knowledge/model.bin
	tar -C p -czf bad.tar.gz .
	run "$PACKSIGN" validate bad.tar.gz
	[ "$status" -eq 1 ]
	[[ "$output" == *"bad.tar.gz/manifest.yml:6:13: error: entrypoint 'agents/reviewer.yml' does not exist"*"[path_missing]"* ]]
	[[ "$output" == *"bad.tar.gz/knowledge/model.bin: error: pickle files are forbidden"*"[agentpack_pickle]"* ]]
	printf 'not an archive' > junk.tar.gz
	run "$PACKSIGN" validate junk.tar.gz
	[ "$status" -eq 1 ]
	[[ "$output" == *"[archive_corrupt]"* ]]
}

@test "validate: usage errors exit 2" {
	run "$PACKSIGN" validate
	[ "$status" -eq 2 ]
	grep -qF "[usage]" <<<"$output"
	pack holon-pdf-profile
	validate --format nope
	[ "$status" -eq 2 ]
	grep -qF "unknown format 'nope'" <<<"$output"
	run "$PACKSIGN" validate --help
	[ "$status" -eq 0 ]
	grep -qF "usage: packsign validate" <<<"$output"
	# The help says what validate takes: archives too (issue 26: it said
	# they were not accepted).
	grep -qF "a directory or an archive (.tar, .tar.gz," <<<"$output"
	! grep -qi "not accepted" <<<"$output"
}

@test "validate: no manifest at the root [manifest_missing]" {
	mkdir "$BATS_TEST_TMPDIR/empty"
	P="$BATS_TEST_TMPDIR/empty"
	validate
	refused_with manifest_missing
}

@test "validate: two manifests at once, both named [manifest_conflict]" {
	pack holon-pdf-profile
	cp "$EXAMPLES/research.top-journal-reviewer/manifest.yml" "$P/"
	validate
	refused_with manifest_conflict
	grep -qF "holon.yaml, manifest.yml" <<<"$output"
}

@test "validate: --format must match the manifest [format_mismatch]" {
	pack holon-pdf-profile
	validate --format soyapack
	refused_with format_mismatch
	validate --format holon
	valid_ok
}

@test "validate: --json prints diagnostics and summary" {
	pack holon-pdf-profile
	edit holon.yaml 's/^license: .*/license: Proprietary/'
	validate --json
	[ "$status" -eq 1 ]
	grep -qF '"valid": false' <<<"$output"
	grep -qF '"code": "license_not_osi"' <<<"$output"
	grep -qF '"line": 5' <<<"$output"
	grep -qF '"errors": 1' <<<"$output"
}

@test "validate: a manifest with several errors reports all of them, sorted" {
	pack soyapack-research-summarizer
	edit soyapack.yaml 's/^kind: Agent/kind: Robot/; s/^license: MIT/license: Nope-1.0/; s/port: 443/port: 0/'
	edit soyapack.yaml 's|prompts/extract.md|prompts/gone.md|'
	validate
	refused_with soyapack_kind
	has_code license_not_spdx
	has_code soyapack_egress_port
	has_code path_missing
	grep -qF "(5 errors, 0 warnings)" <<<"$output"
	# sorted by line: kind (3) before license (9) before the ports (15, 18)
	[ "$(grep -n 'soyapack_kind' <<<"$output" | cut -d: -f1)" -lt \
	  "$(grep -n 'license_not_spdx' <<<"$output" | cut -d: -f1)" ]
	grep -qE "soyapack.yaml:44:12: error: prompts.extract 'prompts/gone.md' does not exist" <<<"$output"
}

@test "validate: a diagnostic reads FILE:LINE:COL: error: MESSAGE [CODE]" {
	pack holon-pdf-profile
	edit holon.yaml 's/^license: .*/license: Proprietary/'
	validate
	grep -qxF "$P/holon.yaml:5:10: error: license 'Proprietary' is not an OSI-approved license (write its SPDX id, e.g. Apache-2.0, MIT) [license_not_osi]" <<<"$output"
}

@test "validate: unknown top-level fields draw a warning, fatal only under --strict" {
	pack holon-pdf-profile
	echo 'colour: blue' >>"$P/holon.yaml"
	validate
	valid_ok
	has_code field_unknown
	grep -qF "(0 errors, 1 warning)" <<<"$output"
	validate --strict
	[ "$status" -eq 1 ]
}

@test "validate: signed_by accepts names and fingerprints, refuses junk" {
	pack holon-pdf-profile
	printf 'signed_by:\n  - acme-release\n  - "SHA256:%s"\n' \
	    "47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU" >>"$P/holon.yaml"
	validate
	valid_ok
	pack holon-pdf-profile
	printf 'signed_by: "SHA256:abc"\n' >>"$P/holon.yaml"
	validate
	refused_with signed_by_invalid
	pack holon-pdf-profile
	printf 'signed_by: {a: b}\n' >>"$P/holon.yaml"
	validate
	refused_with signed_by_invalid
	pack holon-pdf-profile
	{ echo 'signed_by:'; for i in $(seq 257); do echo "  - signer$i"; done; } >>"$P/holon.yaml"
	validate
	refused_with signed_by_invalid
	grep -qF "at most 256" <<<"$output"
}

@test "validate: a symbolic link in the pack is never followed [path_special]" {
	pack research.top-journal-reviewer
	ln -s /etc/passwd "$P/prompts/leak.md"
	validate
	refused_with path_special
}

@test "validate: the manifest must be a mapping [manifest_not_mapping]" {
	pack holon-pdf-profile
	echo '- just a list' >"$P/holon.yaml"
	validate
	refused_with manifest_not_mapping
}

# ------------------------------------------------------------ YAML attacks

@test "validate: YAML billion laughs is refused at the first anchor [yaml_anchor]" {
	pack holon-pdf-profile
	cat >"$P/holon.yaml" <<'Y'
a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]
b: &b [*a,*a,*a,*a,*a,*a,*a,*a,*a]
c: &c [*b,*b,*b,*b,*b,*b,*b,*b,*b]
Y
	validate
	refused_with yaml_anchor
	grep -qF "holon.yaml:1:4:" <<<"$output"
}

@test "validate: YAML alias without anchor is refused" {
	pack holon-pdf-profile
	printf 'x: *nothing\n' >"$P/holon.yaml"
	validate
	[ "$status" -eq 1 ]
	grep -qE "\[yaml_(alias|syntax)\]" <<<"$output"
}

@test "validate: YAML duplicate keys name both lines [yaml_duplicate_key]" {
	pack holon-pdf-profile
	echo 'license: MIT' >>"$P/holon.yaml"
	validate
	refused_with yaml_duplicate_key
	grep -qF "first at line 5" <<<"$output"
}

@test "validate: YAML nesting deeper than 64 is refused [yaml_too_deep]" {
	pack holon-pdf-profile
	printf 'x: %s%s\n' "$(printf '[%.0s' $(seq 70))" "$(printf ']%.0s' $(seq 70))" >"$P/holon.yaml"
	validate
	refused_with yaml_too_deep
}

@test "validate: a manifest over 1 MiB is refused [yaml_too_large]" {
	pack holon-pdf-profile
	head -c 1100000 /dev/zero | tr '\0' '#' >>"$P/holon.yaml"
	validate
	refused_with yaml_too_large
}

@test "validate: custom YAML tags are refused, nothing is executed [yaml_tag]" {
	pack holon-pdf-profile
	printf 'name: !!python/object/apply:os.system ["touch %s/pwned"]\n' "$BATS_TEST_TMPDIR" >"$P/holon.yaml"
	validate
	refused_with yaml_tag
	[ ! -e "$BATS_TEST_TMPDIR/pwned" ]
}

@test "validate: invalid UTF-8 is refused [yaml_invalid_utf8]" {
	pack holon-pdf-profile
	printf 'name: \xff\xfe\n' >>"$P/holon.yaml"
	validate
	refused_with yaml_invalid_utf8
}

@test "validate: yes/no are strings, not booleans [field_not_boolean]" {
	pack research.top-journal-reviewer
	edit manifest.yml 's/^  network: false/  network: no/'
	validate
	refused_with field_not_boolean
	grep -qF "'no' is a string in YAML 1.2, write true or false" <<<"$output"
}

# --------------------------------------------------------------- SoyaPack

soya() { pack soyapack-research-summarizer; }

@test "soyapack: apiVersion must be soyaos.ai/v0 or v1 [soyapack_api_version]" {
	soya; edit soyapack.yaml 's|^apiVersion: .*|apiVersion: soyaos.ai/v2|'
	validate; refused_with soyapack_api_version
	soya; edit soyapack.yaml 's|^apiVersion: .*|apiVersion: soyaos.ai/v1|'
	validate; valid_ok
}

@test "soyapack: kind must be Agent, Tool, Skill or Model [soyapack_kind]" {
	soya; edit soyapack.yaml 's/^kind: Agent/kind: agent/'
	validate; refused_with soyapack_kind
}

@test "soyapack: name must be a DNS label [soyapack_name]" {
	soya; edit soyapack.yaml 's/^name: .*/name: Research_Summarizer/'
	validate; refused_with soyapack_name
	soya; edit soyapack.yaml "s/^name: .*/name: $(printf 'a%.0s' $(seq 64))/"
	validate; refused_with soyapack_name
}

@test "soyapack: version must be SemVer 2.0.0; pre-release allowed [version_invalid]" {
	soya; edit soyapack.yaml 's/^version: .*/version: "01.2"/'
	validate; refused_with version_invalid
	soya; edit soyapack.yaml 's/^version: .*/version: 0.1.0-alpha.0/'
	validate; valid_ok
}

@test "soyapack: virtual_model_id required for Agent, of the form soya:<id>" {
	soya; edit soyapack.yaml '/^virtual_model_id:/d'
	validate; refused_with field_missing
	grep -qF "'virtual_model_id' is missing" <<<"$output"
	soya; edit soyapack.yaml 's/^virtual_model_id: .*/virtual_model_id: research/'
	validate; refused_with soyapack_virtual_model_id
	soya; edit soyapack.yaml 's/^kind: Agent/kind: Tool/; /^virtual_model_id:/d'
	validate; valid_ok
}

@test "soyapack: description, owner and license are required [field_missing]" {
	for f in description owner license; do
		soya; edit soyapack.yaml "/^$f:/d"
		validate; refused_with field_missing
		grep -qF "'$f' is missing" <<<"$output"
	done
}

@test "soyapack: owner must be a GitHub handle [soyapack_owner]" {
	soya; edit soyapack.yaml 's/^owner: .*/owner: "-bad--owner"/'
	validate; refused_with soyapack_owner
}

@test "soyapack: license must be an SPDX identifier [license_not_spdx]" {
	soya; edit soyapack.yaml 's/^license: .*/license: Proprietary/'
	validate; refused_with license_not_spdx
	soya; edit soyapack.yaml 's/^license: .*/license: BUSL-1.1/'
	validate; valid_ok
	soya; edit soyapack.yaml 's/^license: .*/license: mit/'
	validate; valid_ok; has_code license_case
	soya; edit soyapack.yaml 's/^license: .*/license: GPL-2.0/'
	validate; valid_ok; has_code license_deprecated
	soya; edit soyapack.yaml 's/^license: .*/license: LicenseRef-acme-internal/'
	validate; valid_ok
	soya; edit soyapack.yaml 's/^license: .*/license: "LicenseRef-"/'
	validate; refused_with license_not_spdx
	soya; edit soyapack.yaml 's/^license: .*/license: MIT OR Apache-2.0/'
	validate; refused_with license_not_spdx
}

@test "soyapack: capabilities are required [field_missing]" {
	soya; edit soyapack.yaml '/^capabilities:/,/^  determinism_tier/d'
	validate; refused_with field_missing
	grep -qF "'capabilities' is missing" <<<"$output"
}

@test "soyapack: egress port 1-65535 [soyapack_egress_port]" {
	soya; edit soyapack.yaml '0,/port: 443/s//port: 65536/'
	validate; refused_with soyapack_egress_port
	soya; edit soyapack.yaml '0,/port: 443/s//port: "443"/'
	validate; refused_with soyapack_egress_port
}

@test "soyapack: egress needs host and protocol [field_missing, soyapack_egress_protocol]" {
	soya; edit soyapack.yaml '0,/      protocol: https/{/      protocol: https/d}'
	validate; refused_with field_missing
	grep -qF "'protocol' is missing" <<<"$output"
	soya; edit soyapack.yaml '0,/protocol: https/s//protocol: "https:\/\/"/'
	validate; refused_with soyapack_egress_protocol
	soya; edit soyapack.yaml '0,/host: api.openai.com/s//host: "https:\/\/api.openai.com"/'
	validate; refused_with soyapack_egress_host
}

@test "soyapack: fs.read and fs.write are absolute paths [soyapack_fs_path]" {
	soya; edit soyapack.yaml 's|      - /workdir/out|      - workdir/out|'
	validate; refused_with soyapack_fs_path
	soya; edit soyapack.yaml 's|      - /workdir$|      - /workdir/../etc|'
	validate; refused_with soyapack_fs_path
}

@test "soyapack: determinism_tier is one of three [soyapack_determinism_tier]" {
	soya; edit soyapack.yaml 's/determinism_tier: read-only/determinism_tier: cached/'
	validate; refused_with soyapack_determinism_tier
}

@test "soyapack: inputs is a required JSON Schema fragment" {
	soya; edit soyapack.yaml 's/^  type: object/  type: objekt/'
	validate; refused_with schema_invalid
	soya; edit soyapack.yaml '/^inputs:/,/^      maximum: 12/d'
	validate; refused_with field_missing
	grep -qF "'inputs' is missing" <<<"$output"
}

@test "soyapack: outputs map artifact names to name.vN [soyapack_output_schema]" {
	soya; edit soyapack.yaml 's/summary: summary.v1 .*/summary: summary/'
	validate; refused_with soyapack_output_schema
}

@test "soyapack: prompts required for Agent, every path inside and existing" {
	soya; edit soyapack.yaml '/^prompts:/,/summarize.md/d'
	validate; refused_with field_missing
	grep -qF "'prompts' is missing" <<<"$output"
	soya; edit soyapack.yaml 's|  extract: prompts/extract.md|  extract: /etc/passwd|'
	validate; refused_with path_absolute
	grep -qF "soyapack.yaml:44:12:" <<<"$output"
	soya; edit soyapack.yaml 's|  extract: prompts/extract.md|  extract: ../x.md|'
	validate; refused_with path_escapes
	soya; edit soyapack.yaml 's|  extract: prompts/extract.md|  extract: prompts|'
	validate; refused_with path_not_file
}

@test "soyapack: templates must exist and are prompt files [path_missing]" {
	soya; printf 'templates:\n  page: templates/page.html\n' >>"$P/soyapack.yaml"
	validate; refused_with path_missing
	mkdir "$P/templates"; echo '<p>{{.}}</p>' >"$P/templates/page.html"
	validate; valid_ok
}

@test "soyapack: an example is an inline mapping with input or a fixture [soyapack_example]" {
	soya; edit soyapack.yaml 's/    input: { url: "https:\/\/example.com\/post", max_bullets: 5 }/    inputs: {}/'
	validate; refused_with soyapack_example
	soya; edit soyapack.yaml 's/  short_blog:$/  short_blog: examples\/short.yaml/; /url: "https:\/\/example.com\/post"/d'
	validate; refused_with path_missing
	mkdir "$P/examples"; printf 'input:\n  url: https://example.com/x\n' >"$P/examples/short.yaml"
	validate; valid_ok
}

@test "soyapack: examples drifting from inputs warn, and fail under --strict [schema_mismatch]" {
	soya; edit soyapack.yaml 's/max_bullets: 12 }/max_bullets: 40 }/'
	validate; valid_ok
	has_code schema_mismatch
	grep -qE ": warning: .*\[schema_mismatch\]" <<<"$output"
	validate --strict
	refused_with schema_mismatch
}

@test "soyapack: tools need a kind, builtin.* or external [soyapack_tool_kind]" {
	soya; edit soyapack.yaml 's/kind: builtin.http_get/kind: "Builtin HTTP"/'
	validate; refused_with soyapack_tool_kind
	soya; edit soyapack.yaml '/kind: builtin.http_get/d'
	validate; refused_with field_missing
	soya; edit soyapack.yaml 's/kind: builtin.http_get/kind: mcp.remote/'
	validate; valid_ok
}

@test "soyapack: v1 fields secrets, sla, signed_by, compat are accepted" {
	soya; printf 'secrets:\n  OPENAI_KEY: {env: OPENAI_API_KEY}\nsla:\n  extract: {timeout: 30s}\nsigned_by: chzealot\ncompat:\n  min_runtime: 1.2.0\n' >>"$P/soyapack.yaml"
	validate; valid_ok
	grep -qF "(0 errors, 0 warnings)" <<<"$output"
}

@test "soyapack: --strict flags wildcard egress hosts [soyapack_egress_wildcard]" {
	soya; edit soyapack.yaml 's/host: example.com .*/host: "*.example.com"/'
	validate; valid_ok
	validate --strict; refused_with soyapack_egress_wildcard
}

@test "soyapack: --strict flags the unrestricted tier [soyapack_unrestricted_tier]" {
	soya; edit soyapack.yaml 's/determinism_tier: read-only/determinism_tier: unrestricted/'
	validate; valid_ok
	validate --strict; refused_with soyapack_unrestricted_tier
}

@test "soyapack: --strict flags pre-release versions [soyapack_prerelease]" {
	soya; edit soyapack.yaml 's/^version: .*/version: 0.1.0-alpha.0/'
	validate --strict; refused_with soyapack_prerelease
}

# ------------------------------------------------------------------- holon

hol() { pack holon-pdf-profile; }

@test "holon: id is handle/name [holon_id]" {
	hol; edit holon.yaml 's|^id: .*|id: pdf-profile|'
	validate; refused_with holon_id
}

@test "holon: version is SemVer [version_invalid]" {
	hol; edit holon.yaml 's/^version: .*/version: v1.2/'
	validate; refused_with version_invalid
}

@test "holon: name, summary and non-empty authors are required" {
	hol; edit holon.yaml '/^summary:/d'
	validate; refused_with field_missing
	hol; edit holon.yaml 's/^name: .*/name: ""/'
	validate; refused_with field_empty
	hol; edit holon.yaml '/^authors:/,/email:/d'; echo 'authors: []' >>"$P/holon.yaml"
	validate; refused_with holon_authors
}

@test "holon: license must be OSI-approved [license_not_osi]" {
	hol; edit holon.yaml 's/^license: .*/license: BUSL-1.1/'
	validate; refused_with license_not_osi
	hol; edit holon.yaml 's/^license: .*/license: MPL-2.0/'
	validate; valid_ok
}

@test "holon: source.repository is an https URL [holon_source_repository]" {
	hol; edit holon.yaml 's|repository: https://|repository: http://|'
	validate; refused_with holon_source_repository
}

@test "holon: source.ref is a full commit hash; a branch is refused with the reason [holon_source_ref]" {
	hol; edit holon.yaml 's/^  ref: .*/  ref: main/'
	validate; refused_with holon_source_ref
	grep -qF "a branch or tag moves" <<<"$output"
	hol; edit holon.yaml 's/^  ref: .*/  ref: 3f5c2a9/'
	validate; refused_with holon_source_ref
	grep -qF "abbreviated" <<<"$output"
	hol; edit holon.yaml 's/^  ref: .*/  ref: 3F5C2A9D8E7B6C5D4E3F2A1B0C9D8E7F6A5B4C3D/'
	validate; refused_with holon_source_ref
	hol; edit holon.yaml "s/^  ref: .*/  ref: $(printf 'a%.0s' $(seq 64))/"
	validate; valid_ok
}

@test "holon: interface input and output are JSON Schemas [schema_invalid]" {
	hol; edit holon.yaml '0,/    required: \[document_url\]/s//    required: document_url/'
	validate; refused_with schema_invalid
	hol; edit holon.yaml 's/^  output:/  outputs:/'
	validate; refused_with field_missing
}

@test "holon: error codes match ^[a-z][a-z0-9_]*\$ and are unique" {
	hol; edit holon.yaml 's/code: empty_text/code: Empty-Text/'
	validate; refused_with holon_error_code
	hol; edit holon.yaml 's/code: empty_text/code: over_budget/'
	validate; refused_with holon_error_code_duplicate
	grep -qF "holon.yaml:42:13: error: error code 'over_budget' is declared twice (first at line 40)" <<<"$output"
}

@test "holon: capabilities need a class [holon_capability_class]" {
	hol; edit holon.yaml 's/  - class: data.profile/  - class: "Data Profile"/'
	validate; refused_with holon_capability_class
	hol; edit holon.yaml 's/  - class: data.profile/  - kind: data.profile/'
	validate; refused_with field_missing
}

@test "holon: pricing must make the worst case computable [holon_pricing_worst_case]" {
	hol; edit holon.yaml '/^  amount:/d'
	validate; refused_with holon_pricing_worst_case
	hol; edit holon.yaml 's/model: per_call/model: per_page/'
	validate; refused_with holon_pricing_worst_case
	hol; edit holon.yaml 's/model: per_call/model: per_page/; s/^  amount: .*/  amount: 0.01\n  max: 0.50/'
	validate; valid_ok
	hol; edit holon.yaml 's/^  amount: .*/  amount: -1/'
	validate; refused_with holon_pricing_amount
	hol; edit holon.yaml 's/currency: USD/currency: dollars/'
	validate; refused_with holon_pricing_currency
	hol; edit holon.yaml '/charge_on:/d'
	validate; refused_with field_missing
}

@test "holon: runtime.kind is mcp [holon_runtime_kind]" {
	hol; edit holon.yaml 's/^  kind: mcp/  kind: http/'
	validate; refused_with holon_runtime_kind
}

@test "holon: endpoint must be a public https URL [holon_endpoint]" {
	for url in http://pdf-profile.acme-agents.net/mcp http://localhost:8080/mcp \
	    https://localhost/mcp https://api.localhost/mcp https://printer.local/mcp \
	    https://svc.internal/x https://127.0.0.1/mcp https://10.1.2.3/ \
	    https://172.16.0.1/ https://192.168.1.1/ https://169.254.169.254/latest \
	    https://100.64.0.1/ https://0.0.0.0/ https://224.0.0.1/ \
	    'https://[::1]/mcp' 'https://[fd00::1]/' 'https://[fe80::1]/' \
	    'https://[::ffff:127.0.0.1]/' https://2130706433/ https://0x7f.0.0.1/ \
	    https://0177.0.0.1/ https://127.1/ https://intranet/mcp \
	    https://user@pdf.acme-agents.net/ 'https://pdf.acme-agents.net:99999/'; do
		hol; edit holon.yaml "s|^  endpoint: .*|  endpoint: \"$url\"|"
		validate
		refused_with holon_endpoint || { echo "accepted: $url"; return 1; }
	done
	for url in https://pdf.acme-agents.net:8443/mcp https://8.8.8.8/mcp \
	    'https://[2606:4700::1111]/mcp'; do
		hol; edit holon.yaml "s|^  endpoint: .*|  endpoint: \"$url\"|"
		validate
		valid_ok || { echo "refused: $url"; return 1; }
	done
}

@test "holon: one tool per version [holon_one_tool]" {
	hol; edit holon.yaml 's/^  tool: profile_pdf/  tool: [profile_pdf, summarize_pdf]/'
	validate; refused_with holon_one_tool
}

@test "holon: limits.timeout_s is 1-300 [holon_timeout]" {
	hol; edit holon.yaml 's/timeout_s: 120/timeout_s: 301/'
	validate; refused_with holon_timeout
	hol; edit holon.yaml 's/timeout_s: 120/timeout_s: 0/'
	validate; refused_with holon_timeout
	hol; edit holon.yaml 's/timeout_s: 120/timeout_s: 300/'
	validate; valid_ok
}

@test "holon: data.retention is none or an ISO 8601 duration [holon_data_retention]" {
	hol; edit holon.yaml 's/retention: none/retention: 7 days/'
	validate; refused_with holon_data_retention
	for d in P7D PT12H P1Y2M3DT4H5M6S P2W PT0.5S; do
		hol; edit holon.yaml "s/retention: none/retention: $d/"
		validate; valid_ok || { echo "refused $d"; return 1; }
	done
	for d in P PT P1H P1W2D 7D; do
		hol; edit holon.yaml "s/retention: none/retention: $d/"
		validate; refused_with holon_data_retention || { echo "accepted $d"; return 1; }
	done
}

@test "holon: data.training_use is a boolean [field_not_boolean]" {
	hol; edit holon.yaml 's/training_use: false/training_use: off/'
	validate; refused_with field_not_boolean
	hol; edit holon.yaml '/training_use:/d'
	validate; refused_with field_missing
}

@test "holon: data.egress is a list of hosts [holon_data_egress]" {
	hol; edit holon.yaml 's/    - api.openai.com/    - "https:\/\/api.openai.com\/v1"/'
	validate; refused_with holon_data_egress
	hol; edit holon.yaml 's/^  egress:/  egress: api.openai.com/; /    - api.openai.com/d'
	validate; refused_with field_type
}

@test "holon: at least one success example [holon_example_success]" {
	hol; edit holon.yaml 's/^    output:/    error: empty_text\n    x_output:/'
	validate; refused_with holon_example_success
}

@test "holon: examples match the schemas [schema_mismatch]" {
	hol; edit holon.yaml '/^      language: en/d'
	validate; refused_with schema_mismatch
	grep -qF "example two_page_paper output" <<<"$output"
	hol; edit holon.yaml 's/      max_abstract_words: 50/      max_abstract_words: 5000/'
	validate; refused_with schema_mismatch
	grep -qF "example two_page_paper input" <<<"$output"
}

@test "holon: an error example's code must be declared [holon_example_error_code]" {
	hol; cat >>"$P/holon.yaml" <<'Y'
  - name: scanned
    input:
      document_url: https://example.com/scan.pdf
    error:
      code: ocr_failed
Y
	validate; refused_with holon_example_error_code
	hol; cat >>"$P/holon.yaml" <<'Y'
  - name: blank
    input:
      document_url: https://example.com/blank.pdf
    error: empty_text
Y
	validate; valid_ok
}

@test "holon: the spec's worked refusal lists all manifest errors together" {
	hol; edit holon.yaml 's/^license: .*/license: Proprietary/; /^      language: en/d; s|^  endpoint: .*|  endpoint: http://localhost:8080/mcp|'
	validate
	refused_with license_not_osi
	has_code schema_mismatch
	has_code holon_endpoint
	grep -qF "(3 errors, 0 warnings)" <<<"$output"
}

# --------------------------------------------------------------- autograph

ag() { pack autograph.pkg.research; }

@test "autograph: name is autograph.pkg.<name> [autograph_name]" {
	ag; edit augr.pkg.yml 's/^name: .*/name: research/'
	validate; refused_with autograph_name
}

@test "autograph: version is a SemVer string" {
	ag; edit augr.pkg.yml 's/^version: .*/version: 1.0/'
	validate; refused_with field_type
	ag; edit augr.pkg.yml 's/^version: .*/version: "1.0"/'
	validate; refused_with version_invalid
}

@test "autograph: description is required [field_missing]" {
	ag; edit augr.pkg.yml '/^description:/d'
	validate; refused_with field_missing
}

@test "autograph: contract.engine_version is a node-semver range [autograph_engine_range]" {
	ag; edit augr.pkg.yml 's/engine_version: .*/engine_version: "at least 0.1"/'
	validate; refused_with autograph_engine_range
	ag; edit augr.pkg.yml 's/engine_version: .*/engine_version: "^0.3.0 || >=1.2.0 <2.0.0-0"/'
	validate; valid_ok
}

@test "autograph: --engine-version is checked against the range [autograph_engine_unsatisfied]" {
	ag
	validate --engine-version 0.2.0
	valid_ok
	validate --engine-version 0.0.9
	refused_with autograph_engine_unsatisfied
	validate --engine-version 0.1.0-rc.1
	refused_with autograph_engine_unsatisfied
	validate --engine-version nope
	[ "$status" -eq 2 ]
	grep -qF "[engine_version_invalid]" <<<"$output"
}

@test "autograph: compose files exist and have services [autograph_compose]" {
	ag; edit augr.pkg.yml 's|  - infra/compose.yaml|  - infra/compose.yaml\n  - infra/compose.dev.yaml|'
	validate; refused_with path_missing
	echo 'volumes: {}' >"$P/infra/compose.dev.yaml"
	validate; refused_with autograph_compose
	printf 'services:\n  web: {image: nginx}\n' >"$P/infra/compose.dev.yaml"
	validate; valid_ok
	ag; edit augr.pkg.yml '/^compose:/,/compose.yaml/d'; echo 'compose: infra/compose.yaml' >>"$P/augr.pkg.yml"
	validate; valid_ok
}

@test "autograph: a compose file must parse (anchors refused) [autograph_compose]" {
	ag; printf 'x-common: &c {read_only: true}\nservices:\n  a: *c\n' >"$P/infra/compose.yaml"
	validate; refused_with autograph_compose
	has_code yaml_anchor
	grep -qF "$P/infra/compose.yaml:1:" <<<"$output"
}

@test "autograph: compose values of a type Compose refuses [autograph_compose_invalid]" {
	ag; printf 'services:\n  web:\n    privileged: maybe\n' >"$P/infra/compose.yaml"
	validate; refused_with autograph_compose_invalid
	grep -qF "$P/infra/compose.yaml:3:17: error: service 'web': 'privileged' must be true or false" <<<"$output"
	ag; printf 'services:\n  web:\n    ports: ["80:abc"]\n    volumes: ["/a:/b:ro:x"]\n' >"$P/infra/compose.yaml"
	validate; refused_with autograph_compose_invalid
	grep -qF "$P/infra/compose.yaml:4:15:" <<<"$output"
	# What Compose casts is read as Compose reads it, without a finding.
	ag; printf 'services:\n  web:\n    privileged: "yes"\n    user: "1000"\n' >"$P/infra/compose.yaml"
	validate; valid_ok
	grep -qF "(0 errors, 0 warnings)" <<<"$output"
}

@test "autograph: compose values from the environment, extends, include [autograph_compose_unresolved]" {
	ag; printf 'services:\n  web:\n    network_mode: ${NET:-bridge}\n' >"$P/infra/compose.yaml"
	validate; valid_ok; has_code autograph_compose_unresolved
	grep -qF "$P/infra/compose.yaml:3:19: warning: service 'web': 'network_mode: \${NET:-bridge}' depends on the environment; counted as host" <<<"$output"
	validate --strict
	[ "$status" -eq 1 ]
}

@test "autograph: more services than packsign reads [autograph_compose_limit]" {
	ag; { echo services:; for i in $(seq 0 256); do echo "  s$i: {image: x}"; done; } >"$P/infra/compose.yaml"
	validate; refused_with autograph_compose_limit
	grep -qF "$P/infra/compose.yaml:258:3:" <<<"$output"
}

@test "autograph: Taskfile values of a type Task refuses [autograph_taskfile_invalid]" {
	ag; printf 'tasks:\n  up:\n    cmds:\n      - {silent: true}\n' >"$P/Taskfile.yaml"
	validate; refused_with autograph_taskfile_invalid
	grep -qF "$P/Taskfile.yaml:4:9: error: task 'up': a command mapping needs 'cmd', 'task' or 'defer'" <<<"$output"
}

@test "autograph: more commands than packsign reads [autograph_taskfile_limit]" {
	ag; { printf 'tasks:\n  up:\n'; for i in $(seq 0 128); do echo "    - echo $i"; done; } >"$P/Taskfile.yaml"
	validate; refused_with autograph_taskfile_limit
}

@test "autograph: Taskfile includes are not read [autograph_taskfile_unresolved]" {
	ag; printf 'includes: {lib: ./lib.yml}\ntasks: {}\n' >"$P/Taskfile.yaml"
	validate; valid_ok; has_code autograph_taskfile_unresolved
}

@test "autograph: an undeclared infra/compose.yaml is read, as the engine uses it" {
	ag; edit augr.pkg.yml '/^compose:/,/compose.yaml/d'
	printf 'services: [unclosed\n' >"$P/infra/compose.yaml"
	validate; refused_with yaml_syntax
	has_code autograph_undeclared
	grep -qF "$P/infra/compose.yaml:2:1:" <<<"$output"
}

@test "autograph: the taskfile exists and parses [autograph_taskfile]" {
	ag; printf 'tasks: [unclosed\n' >"$P/Taskfile.yaml"
	validate; refused_with autograph_taskfile
	has_code yaml_syntax
	ag; edit augr.pkg.yml 's/^taskfile: .*/taskfile: tasks\/Taskfile.yaml/'
	validate; refused_with path_missing
}

@test "autograph: skills and attitudes directories exist; a trailing / is fine" {
	ag; rm -r "$P/agent/attitudes"
	validate; refused_with path_missing
	ag; edit augr.pkg.yml 's|^skills: .*|skills: README.md|'
	validate; refused_with path_not_dir
	ag; edit augr.pkg.yml 's|^skills: .*|skills: agent/skills|'
	validate; valid_ok
}

@test "autograph: standard paths in use but undeclared draw a warning [autograph_undeclared]" {
	ag; edit augr.pkg.yml '/^attitudes:/d'
	validate; valid_ok; has_code autograph_undeclared
	grep -qF "agent/attitudes exists at its standard path" <<<"$output"
}

@test "autograph: Taskfile.yaml and README.md at the root [autograph_layout]" {
	ag; rm "$P/README.md"
	validate; refused_with autograph_layout
	ag; rm "$P/Taskfile.yaml"; edit augr.pkg.yml '/^taskfile:/d'
	validate; refused_with autograph_layout
}

# --------------------------------------------------------------- AgentPack

ap() { pack research.top-journal-reviewer; }

@test "agentpack: the agents/ directory exists [agentpack_agents_dir]" {
	ap; mv "$P/agents" "$P/roles"; edit manifest.yml 's|entrypoint: agents/|entrypoint: roles/|'
	validate; refused_with agentpack_agents_dir
}

@test "agentpack: id matches the pattern [agentpack_id]" {
	for id in Research.Reviewer research_reviewer .research research.; do
		ap; edit manifest.yml "s/^id: .*/id: \"$id\"/"
		validate; refused_with agentpack_id || { echo "accepted $id"; return 1; }
	done
}

@test "agentpack: an id that is not reverse-dotted draws a warning [agentpack_id_not_dotted]" {
	ap; edit manifest.yml 's/^id: .*/id: reviewer/'
	validate; valid_ok; has_code agentpack_id_not_dotted
}

@test "agentpack: name and domain are non-empty strings" {
	ap; edit manifest.yml 's/^name: .*/name: "  "/'
	validate; refused_with field_empty
	ap; edit manifest.yml '/^domain:/d'
	validate; refused_with field_missing
}

@test "agentpack: version is MAJOR.MINOR.PATCH [version_invalid]" {
	ap; edit manifest.yml 's/^version: .*/version: 0.1.0-beta/'
	validate; refused_with version_invalid
	ap; edit manifest.yml 's/^version: .*/version: "0.1"/'
	validate; refused_with version_invalid
}

@test "agentpack: entrypoint is relative, exists, stays inside" {
	ap; edit manifest.yml 's|^entrypoint: .*|entrypoint: ../outside.yml|'
	validate; refused_with path_escapes
	grep -qF "manifest.yml:6:13:" <<<"$output"
	ap; edit manifest.yml 's|^entrypoint: .*|entrypoint: /etc/passwd|'
	validate; refused_with path_absolute
	ap; edit manifest.yml 's|^entrypoint: .*|entrypoint: agents/missing.yml|'
	validate; refused_with path_missing
}

@test "agentpack: permissions are required; booleans; file_write enum" {
	ap; edit manifest.yml '/^permissions:/,/read_filesystem/d'
	validate; refused_with field_missing
	ap; edit manifest.yml 's/  shell: false/  shell: "false"/'
	validate; refused_with field_not_boolean
	ap; edit manifest.yml 's/file_write: workspace/file_write: everywhere/'
	validate; refused_with agentpack_file_write
}

@test "agentpack: a missing permission means deny" {
	ap; edit manifest.yml '/^  network:/d; /^  read_knowledge:/d; /^  file_write:/d'
	validate; valid_ok
}

@test "agentpack: audience is a list of strings [field_type]" {
	ap; edit manifest.yml '/^  - professor/d; /^  - phd_student/d; s/^audience:/audience: professors/'
	validate; refused_with field_type
}

@test "agentpack: model.recommended entries are provider/model [agentpack_model]" {
	ap; edit manifest.yml 's|    - ollama/qwen|    - qwen|'
	validate; refused_with agentpack_model
}

@test "agentpack: config: references resolve from the pack root and must exist" {
	ap; edit agents/reviewer.yml 's|config: agents/checklist.yml|config: checklist.yml|'
	validate; refused_with path_missing
	grep -qF "$P/agents/reviewer.yml:5:13: error:" <<<"$output"
	ap; edit agents/reviewer.yml 's|config: agents/checklist.yml|config: ../../etc/passwd|'
	validate; refused_with path_escapes
}

# hostile_paths: agent configs of $P naming paths outside the pack, one key
# of each kind (lines and columns below are the values').
hostile_paths() {
	edit agents/checklist.yml 's|^system_prompt: .*|system_prompt: /etc/shadow|'
	cat >>"$P/agents/reviewer.yml" <<-'EOF'
	prompt: ../../prompts/steal.md
	tools:
	  - name: lint
	    script_file: ../x
	data_dir: /etc
	EOF
}

@test "agentpack: agent config paths stay inside the pack [agentpack_config_path]" {
	ap; hostile_paths
	validate; refused_with agentpack_config_path
	echo "$output"
	grep -qF "$P/agents/checklist.yml:3:16: error: system_prompt is a path: expected a relative path inside the pack, found the absolute path '/etc/shadow' [agentpack_config_path]" <<<"$output"
	grep -qF "$P/agents/reviewer.yml:6:9: error: prompt is a path: expected a relative path inside the pack, found '../../prompts/steal.md' (a '..' component can lead out of it) [agentpack_config_path]" <<<"$output"
	grep -qF "$P/agents/reviewer.yml:9:18: error: script_file is a path: expected a relative path inside the pack, found '../x'" <<<"$output"
	grep -qF "$P/agents/reviewer.yml:10:11: error: data_dir is a path: expected a relative path inside the pack, found the absolute path '/etc'" <<<"$output"
	[ "$(grep -c '\[agentpack_config_path\]' <<<"$output")" -eq 4 ]
	[ "${lines[-1]}" = "$P: invalid agentpack research.top-journal-reviewer 0.1.0 (4 errors, 0 warnings)" ]
	# In an archive too, and --json names each one.
	(cd "$BATS_TEST_TMPDIR" && tar -C "$P" -czf hostile.tar.gz .)
	run "$PACKSIGN" validate "$BATS_TEST_TMPDIR/hostile.tar.gz" --json
	[ "$status" -eq 1 ]
	python3 -c '
import json, sys
d = json.loads(sys.argv[1])
found = sorted((x["file"].split("/")[-1], x["line"], x["column"]) for x in d["diagnostics"]
               if x["code"] == "agentpack_config_path" and x["severity"] == "error")
assert found == [("checklist.yml", 3, 16), ("reviewer.yml", 6, 9),
                 ("reviewer.yml", 9, 18), ("reviewer.yml", 10, 11)], found
' "$output"
}

@test "agentpack: relative, missing and inline values under path keys are accepted" {
	ap
	cat >>"$P/agents/reviewer.yml" <<-'EOF'
	prompt: |
	  /etc/passwd is mentioned, not read: a block of text
	output_file: out/review.md
	cache_dirs: [cache, ./tmp/]
	retries_path: 3
	EOF
	validate; valid_ok
	grep -qF "(0 errors, 0 warnings)" <<<"$output"
}

@test "agentpack: sign refuses a pack whose agent config leaves it [agentpack_config_path]" {
	ap; hostile_paths
	cd "$BATS_TEST_TMPDIR"
	"$PACKSIGN" keygen -o k --identity k --no-passphrase >/dev/null
	run "$PACKSIGN" sign "$P" -s k.key -o s.tar.gz
	echo "$output"
	[ "$status" -eq 1 ]
	[[ "$output" == *"agents/checklist.yml:3:16: error: system_prompt is a path"*"[agentpack_config_path]"* ]]
	[[ "$output" == *"[manifest_invalid]"* ]]
	[ ! -e s.tar.gz ]
	[ ! -e s.tar.gz.sig ]
	# An archive of it is refused as well.
	tar -C "$P" -czf h.tar.gz .
	run "$PACKSIGN" sign h.tar.gz -s k.key
	[ "$status" -eq 1 ]
	[[ "$output" == *"[agentpack_config_path]"* ]]
	[ ! -e h.tar.gz.sig ]
}

@test "agentpack: pickle files are forbidden, by extension [agentpack_pickle]" {
	ap; echo 'not really' >"$P/knowledge/index.pkl"
	validate; refused_with agentpack_pickle
	ap; echo 'x' >"$P/knowledge/model.PICKLE.gz"
	validate; refused_with agentpack_pickle
}

@test "agentpack: pickle files are forbidden, by content [agentpack_pickle]" {
	ap; printf '\x80\x04\x95\x05\x00\x00\x00\x00\x00\x00\x00}\x94.' >"$P/knowledge/rubric.bin"
	validate; refused_with agentpack_pickle
	grep -qF "protocol 4" <<<"$output"
}

@test "agentpack: license is free text here" {
	ap; edit manifest.yml 's/^license: .*/license: "All rights reserved, ask first"/'
	validate; valid_ok
}

@test "agentpack: shell: true is legal but warned about [agentpack_shell]" {
	ap; edit manifest.yml 's/  shell: false/  shell: true/'
	validate; valid_ok; has_code agentpack_shell
	validate --strict; [ "$status" -eq 1 ]
}

@test "license tables are in sync with their text files" {
	run "$BATS_TEST_DIRNAME/../../scripts/gen-licenses" --check
	[ "$status" -eq 0 ]
}

@test "validate: a FIFO is never opened, in a walk or on a declared path [path_special]" {
	pack research.top-journal-reviewer
	mkfifo "$P/knowledge/pipe"
	run timeout 10 "$PACKSIGN" validate "$P"
	refused_with path_special
	pack soyapack-research-summarizer
	rm "$P/prompts/extract.md"; mkfifo "$P/prompts/extract.md"
	run timeout 10 "$PACKSIGN" validate "$P"
	refused_with path_special
	grep -qF "soyapack.yaml:44:12:" <<<"$output"
}

@test "validate: control characters in quoted values are scrubbed from messages" {
	pack holon-pdf-profile
	edit holon.yaml 's/^license: .*/license: "\\e[31mMIT\\x9b"/'
	validate
	refused_with license_not_osi
	! grep -q $'\e' <<<"$output"
	grep -qF "license '?[31mMIT??'" <<<"$output"
}

@test "validate: any '..' in a declared path is refused, even one that stays inside (review finding)" {
	ex="$BATS_TEST_DIRNAME/../../examples/packs"
	cd "$BATS_TEST_TMPDIR"
	cp -R "$ex/soyapack-research-summarizer" sp && chmod -R u+w sp
	mkdir -p outside/a && echo SECRET > outside/summarize.md
	ln -s "$BATS_TEST_TMPDIR/outside/a" sp/prompts/link
	sed -i 's|summarize: prompts/summarize.md|summarize: prompts/link/../summarize.md|' sp/soyapack.yaml
	run "$PACKSIGN" validate sp
	[ "$status" -eq 1 ]
	[[ "$output" == *"[path_escapes]"* ]]
}

@test "validate: config references are followed transitively, cycles included (review finding)" {
	ex="$BATS_TEST_DIRNAME/../../examples/packs"
	cd "$BATS_TEST_TMPDIR"
	cp -R "$ex/research.top-journal-reviewer" cf && chmod -R u+w cf
	mkdir -p cf/sub
	printf 'extra:\n  - config: sub/inner.yml\n' >> cf/agents/reviewer.yml
	printf 'config: ../../../../etc/passwd\n' > cf/sub/inner.yml
	run "$PACKSIGN" validate cf
	[ "$status" -eq 1 ]
	[[ "$output" == *"cf/sub/inner.yml:1:9: error: config '../../../../etc/passwd' escapes the pack root [path_escapes]"* ]]
	printf 'config: agents/reviewer.yml\n' > cf/sub/inner.yml    # a cycle
	run "$PACKSIGN" validate cf
	[ "$status" -eq 0 ]
}

# Found in review: the directory reader's ignore matching ran in the host's
# locale on one thread and in C.UTF-8 on the other, so which non-ASCII
# names an ignore rule matched changed from run to run.
@test "validate: .packsignignore applies to validation as to packing, the same every run" {
	pack research.top-journal-reviewer
	for i in $(seq 60); do
		mkdir -p "$P/knowledge/d$i"
		printf 'x' >"$P/knowledge/d$i/café.pkl"
	done
	echo 'caf?.pkl' >"$P/.packsignignore"
	for run in 1 2 3; do
		validate
		valid_ok
		grep -qF "(0 errors, 0 warnings)" <<<"$output"
	done
	# An ignored prompt is not part of the pack for validation either.
	echo 'prompts/checklist.md' >>"$P/.packsignignore"
	run "$PACKSIGN" digest "$P"
	[ "$status" -eq 0 ]
	[ "$(grep -c '^prompt: ' <<<"$output")" = 3 ]
	! grep -q 'checklist.md' <<<"$output"
}
