#!/usr/bin/env bats
# CLI tests: packsign install, list, uninstall and verify --installed.
# Hostile archives, kill loops and concurrent installs are in
# install_hostile.bats.

load helpers
bats_require_minimum_version 1.5.0

HOLON_REPO=https://github.com/acme/pdf-profile
HOLON_REF=3f5c2a9d8e7b6c5d4e3f2a1b0c9d8e7f6a5b4c3d
AP_ID=research.top-journal-reviewer

# sign_copy NAME OUT [ARGS...]: signs the copy packs/NAME as OUT with alice.
sign_copy() {
	local name=$1 out=$2
	shift 2
	"$PACKSIGN" sign "packs/$name" -s alice.key -o "$out" "$@" >/dev/null
}

# variant NAME SRC: packs/NAME, a copy of example SRC to edit.
variant() {
	cp -R "$EXAMPLES/$2" "packs/$1"
	chmod -R u+w "packs/$1"
}

# Keys, policies and signed archives are made once; tests read them.
setup_file() {
	cd "$BATS_FILE_TMPDIR"
	unset PACKSIGN_PASSPHRASE PACKSIGN_SECRET_KEY SOURCE_DATE_EPOCH
	unset PACKSIGN_DATA_DIR
	"$PACKSIGN" keygen -o alice --identity alice --no-passphrase >/dev/null
	for first in false true; do
		cat >"policy-$first.yaml" <<YAML
version: 1
signers:
  - identity: alice
    first_party: $first
    keys:
      - key: $(sed -n 2p alice.pub)
    packs: ["*"]
threshold: 1
YAML
	done
	mkdir packs
	variant ap "$AGENTPACK"
	variant soya soyapack-research-summarizer
	variant holon holon-pdf-profile
	variant augr autograph.pkg.research
	sign_copy ap ap.tar.gz
	sign_copy soya soya.tar.zst
	sign_copy holon holon.tar --source-repo "$HOLON_REPO" \
	    --source-commit "$HOLON_REF"
	sign_copy augr augr.tar.gz
	# 0.2.0 of the AgentPack, for the rollback rule.
	variant ap2 "$AGENTPACK"
	sed -i 's/^version: 0\.1\.0$/version: 0.2.0/' packs/ap2/manifest.yml
	sign_copy ap2 ap2.tar.gz
	# 0.1.0 again with another README: same version, other content.
	variant apx "$AGENTPACK"
	echo "an edit after the release" >>packs/apx/README.md
	sign_copy apx apx.tar.gz
	# An AgentPack that asks for a shell.
	variant apsh "$AGENTPACK"
	sed -i 's/^  shell: false$/  shell: true/' packs/apsh/manifest.yml
	grep -q '^  shell: true$' packs/apsh/manifest.yml
	sign_copy apsh apsh.tar.gz
}

setup() {
	cd "$BATS_TEST_TMPDIR"
	unset PACKSIGN_PASSPHRASE PACKSIGN_SECRET_KEY SOURCE_DATE_EPOCH
	unset PACKSIGN_DATA_DIR
	F=$BATS_FILE_TMPDIR
	D=$BATS_TEST_TMPDIR/data
}

teardown() {
	# Installed trees may be read-only; let bats remove them.
	chmod -R u+w "$BATS_TEST_TMPDIR" 2>/dev/null || true
}

# inst ARCHIVE [ARGS...]: install from the file tmpdir into $D, no question.
inst() {
	local a=$1
	shift
	"$PACKSIGN" install "$F/$a" --trust "$F/policy-false.yaml" \
	    --data-dir "$D" --yes "$@"
}

# snapshot: the data directory's paths, without the lock, work and receipt
# directories themselves (a run may create them empty).
snapshot() {
	[ -d "$D" ] || return 0
	(cd "$D" && find . | grep -vxE '\./(\.lock|\.tmp|receipts)' | sort)
}

ap_tree() { echo "$D/agentpacks/$AP_ID/$1"; }

@test "install, list, uninstall: each of the four formats" {
	run inst ap.tar.gz
	echo "$output"
	[ "$status" -eq 0 ]
	[[ "${lines[0]}" == "installed $AP_ID 0.1.0 to $(ap_tree 0.1.0)" ]]
	[[ "$output" == *"signed by: alice (SHA256:"* ]]
	[[ "$output" == *"tree digest: $(digest_field "$F/ap.tar.gz" tree_digest) "* ]]
	[ -f "$(ap_tree 0.1.0)/manifest.yml" ]
	cmp "$(ap_tree 0.1.0)/manifest.yml" "$EXAMPLES/$AGENTPACK/manifest.yml"
	run inst soya.tar.zst
	[ "$status" -eq 0 ]
	[ -f "$D/soyapacks/chzealot/research-summarizer/0.1.0/soyapack.yaml" ]
	run inst holon.tar
	[ "$status" -eq 0 ]
	[ -f "$D/holons/acme/pdf-profile/1.2.0/holon.yaml" ]
	run inst augr.tar.gz
	[ "$status" -eq 0 ]
	[ -f "$D/augr/autograph.pkg.research/0.1.0/augr.pkg.yml" ]

	run "$PACKSIGN" list --data-dir "$D"
	echo "$output"
	[ "$status" -eq 0 ]
	[ "${#lines[@]}" -eq 4 ]
	[[ "$output" == *"agentpack  $AP_ID 0.1.0 (newest)  signer: alice  commit: -  domain: research  may: "* ]]
	[[ "$output" == *"soyapack  chzealot/research-summarizer 0.1.0 (newest)  signer: alice"* ]]
	[[ "$output" == *"holon  acme/pdf-profile 1.2.0 (newest)  signer: alice  commit: ${HOLON_REF:0:12}  may: "* ]]
	[[ "$output" == *"autograph  autograph.pkg.research 0.1.0 (newest)  signer: alice  commit: -  may: "* ]]

	run "$PACKSIGN" uninstall "$AP_ID" --data-dir "$D"
	echo "$output"
	[ "$status" -eq 0 ]
	[ "$output" = "removed agentpack $AP_ID 0.1.0 from $(ap_tree 0.1.0)" ]
	[ ! -e "$(ap_tree 0.1.0)" ]
	run "$PACKSIGN" uninstall chzealot/research-summarizer@0.1.0 --data-dir "$D"
	[ "$status" -eq 0 ]
	run "$PACKSIGN" uninstall acme/pdf-profile --data-dir "$D" --format holon
	[ "$status" -eq 0 ]
	run "$PACKSIGN" uninstall autograph.pkg.research --data-dir "$D"
	echo "$output"
	[ "$status" -eq 0 ]
	run --separate-stderr "$PACKSIGN" list --data-dir "$D"
	[ "$status" -eq 0 ]
	[ -z "$output" ]
	[ "$stderr" = "packsign: no packs installed in $D" ]
	[ -z "$(find "$D" -name '*.yml' -o -name '*.yaml' -o -name '*.md')" ]
	# The help says so (issue 26: it said an empty directory prints nothing).
	run "$PACKSIGN" list --help
	[[ "$output" == *'stderr says "packsign: no packs installed in'* ]]
}

@test "install, list, uninstall, verify --installed: --json parses" {
	run --separate-stderr inst ap.tar.gz --json
	echo "$output"
	[ "$status" -eq 0 ]
	echo "$output" | jq -e --arg p "$(ap_tree 0.1.0)" '.ok == true and
	    .exit == 0 and .action == "installed" and .format == "agentpack" and
	    .id == "research.top-journal-reviewer" and .version == "0.1.0" and
	    .path == $p and (.tree_digest | startswith("sha256:")) and
	    .verify.identities[0].identity == "alice" and .code == null and
	    (.summary | length) > 0'
	run --separate-stderr "$PACKSIGN" list --data-dir "$D" --json --verify
	echo "$output"
	[ "$status" -eq 0 ]
	echo "$output" | jq -e '.ok == true and (.packs | length) == 1 and
	    .packs[0].newest == true and .packs[0].signer == "alice" and
	    .packs[0].domain == "research" and .packs[0].verify.ok == true and
	    .packs[0].verify.modified == []'
	run --separate-stderr "$PACKSIGN" verify --installed "$(ap_tree 0.1.0)" --json
	echo "$output"
	[ "$status" -eq 0 ]
	echo "$output" | jq -e '.ok == true and .results[0].receipt.id ==
	    "research.top-journal-reviewer" and .results[0].check.missing == []'
	run --separate-stderr "$PACKSIGN" uninstall "$AP_ID@0.1.0" --data-dir "$D" --json
	echo "$output"
	[ "$status" -eq 0 ]
	echo "$output" | jq -e '.ok == true and .removed[0].version == "0.1.0"'
	run --separate-stderr "$PACKSIGN" uninstall "$AP_ID" --data-dir "$D" --json
	[ "$status" -eq 1 ]
	echo "$output" | jq -e '.ok == false and .exit == 1 and
	    .code == "not_installed" and .removed == []'
}

@test "install: a lower version is refused, then accepted with --allow-downgrade" {
	run inst ap2.tar.gz
	[ "$status" -eq 0 ]
	before=$(snapshot)
	run inst ap.tar.gz
	echo "$output"
	[ "$status" -eq 1 ]
	[[ "$output" == *"[downgrade_refused]"* ]]
	[[ "$output" == *"0.2.0"* && "$output" == *"0.1.0"* ]]
	[ "$(snapshot)" = "$before" ]
	run inst ap.tar.gz --allow-downgrade
	echo "$output"
	[ "$status" -eq 0 ]
	[ -d "$(ap_tree 0.1.0)" ] && [ -d "$(ap_tree 0.2.0)" ]
	run "$PACKSIGN" list --data-dir "$D"
	echo "$output"
	[[ "${lines[0]}" == "agentpack  $AP_ID 0.1.0  signer: alice"* ]]
	[[ "${lines[1]}" == "agentpack  $AP_ID 0.2.0 (newest)  signer: alice"* ]]
}

@test "install: the same version again is a no-op; other content is version_conflict" {
	run inst ap.tar.gz
	[ "$status" -eq 0 ]
	before=$(snapshot)
	run inst ap.tar.gz
	echo "$output"
	[ "$status" -eq 0 ]
	[[ "${lines[0]}" == "already installed: $AP_ID 0.1.0 at $(ap_tree 0.1.0)" ]]
	[[ "${lines[2]}" == "tree digest: $(digest_field "$F/ap.tar.gz" tree_digest) (8 files, "* ]]
	[ "$(snapshot)" = "$before" ]
	run --separate-stderr inst ap.tar.gz --json
	echo "$output" | jq -e --arg t "$(digest_field "$F/ap.tar.gz" tree_digest)" \
	    '.ok and .action == "already_installed" and .tree_digest == $t'
	run inst apx.tar.gz
	echo "$output"
	[ "$status" -eq 1 ]
	[[ "$output" == *"[version_conflict]"* ]]
	# expected the installed tree, found the archive's
	[[ "$output" == *"$(digest_field "$F/ap.tar.gz" tree_digest)"* ]]
	[[ "$output" == *"$(digest_field "$F/apx.tar.gz" tree_digest)"* ]]
	[ "$(snapshot)" = "$before" ]
	[ -z "$(grep "an edit after the release" "$(ap_tree 0.1.0)/README.md")" ]
}

# One word for one count (issue 26): "entries" are an archive's files and
# directories (pack, digest), "files" its regular files (install, list,
# verify --installed), in text and JSON alike.
@test "entries and files: each word counts one thing everywhere" {
	entries=$(digest_field "$F/ap.tar.gz" entries)
	files=$(find "$EXAMPLES/$AGENTPACK" -type f | wc -l)
	[ "$entries" -gt "$files" ]
	run "$PACKSIGN" pack "$EXAMPLES/$AGENTPACK" -o p.tar.gz
	[[ "${lines[0]}" == *": agentpack pack, $entries entries, "*" bytes of files" ]]
	run inst ap.tar.gz
	[[ "$output" == *"tree digest: sha256:"*" ($files files, "*" bytes)"* ]]
	run "$PACKSIGN" verify --installed "$(ap_tree 0.1.0)"
	[[ "$output" == *": $files files match the receipt"* ]]
	run "$PACKSIGN" list --data-dir "$D" --json
	[ "$(jq '.packs[0].files' <<<"$output")" = "$files" ]
	[ "$(jq '.packs[0] | has("entries")' <<<"$output")" = false ]
	run inst ap2.tar.gz --json
	[ "$(jq '.files' <<<"$output")" = "$files" ]
	[ "$(jq 'has("entries")' <<<"$output")" = false ]
}

@test "verify --installed ID[@VERSION]: the data directory's trees, as uninstall names them" {
	inst ap.tar.gz >/dev/null
	inst ap2.tar.gz >/dev/null
	run "$PACKSIGN" verify --installed "$AP_ID@0.1.0" --data-dir "$D"
	echo "$output"
	[ "$status" -eq 0 ]
	[ "${#lines[@]}" -eq 1 ]
	[[ "${lines[0]}" == "ok: $AP_ID 0.1.0 at $(ap_tree 0.1.0): "* ]]
	# ID alone: every installed version; PACKSIGN_DATA_DIR as elsewhere.
	run env PACKSIGN_DATA_DIR="$D" "$PACKSIGN" verify --installed "$AP_ID" \
	    --trust "$F/policy-false.yaml" --json
	echo "$output"
	[ "$status" -eq 0 ]
	jq -e '.total == 2 and .verified == 2 and
	    ([.results[].receipt.version] == ["0.1.0", "0.2.0"]) and
	    all(.results[]; .check.signature_checked)' <<<"$output"
	chmod -R u+w "$(ap_tree 0.2.0)"
	echo edited >>"$(ap_tree 0.2.0)/README.md"
	run "$PACKSIGN" verify --installed "$AP_ID" --data-dir "$D"
	echo "$output"
	[ "$status" -eq 1 ]
	[[ "$output" == *"ok: $AP_ID 0.1.0"* ]]
	[[ "$output" == *"modified: README.md"* ]]
	[[ "$output" == *"0.2.0: compared the installed files"*"[installed_modified]"* ]]
	run "$PACKSIGN" verify --installed "$AP_ID@0.3.0" no.such.pack --data-dir "$D"
	echo "$output"
	[ "$status" -eq 1 ]
	[[ "$output" == *"packsign: $AP_ID@0.3.0: is neither an installed pack of the data directory $D (ID or ID@VERSION, as packsign list shows them) nor a path [not_installed]"* ]]
	[[ "$output" == *"packsign: no.such.pack: is neither an installed pack"*"[not_installed]"* ]]
	# The pack's source directory, named by its id here, does not hide it.
	cp -R "$EXAMPLES/$AGENTPACK" "$AP_ID"
	run "$PACKSIGN" verify --installed "$AP_ID@0.1.0" --data-dir "$D"
	[ "$status" -eq 0 ]
	[[ "${lines[0]}" == "ok: $AP_ID 0.1.0 at $(ap_tree 0.1.0): "* ]]
	# A path needs no data directory.
	run env -u HOME -u XDG_DATA_HOME "$PACKSIGN" verify --installed "$(ap_tree 0.1.0)"
	[ "$status" -eq 0 ]
	run "$PACKSIGN" verify --installed "$AP_ID@0.1.0" --data-dir "$D" --format soyapack
	[ "$status" -eq 1 ]
	[[ "$output" == *"[not_installed]"* ]]
	run "$PACKSIGN" verify --installed "$AP_ID@0.1.0" --data-dir "$D" --format agentpack
	[ "$status" -eq 0 ]
	run "$PACKSIGN" verify "$F/ap.tar.gz" --data-dir "$D" -p "$F/alice.pub"
	[ "$status" -eq 2 ]
	[[ "$output" == *"--data-dir and --format name installed packs: they need --installed [usage]"* ]]
}

@test "verify --installed and list --verify name modified, added and missing files" {
	run inst ap.tar.gz
	[ "$status" -eq 0 ]
	t=$(ap_tree 0.1.0)
	run "$PACKSIGN" verify --installed "$t"
	echo "$output"
	[ "$status" -eq 0 ]
	[[ "$output" == "ok: $AP_ID 0.1.0 at $t: "*" files match the receipt"* ]]
	run "$PACKSIGN" list --data-dir "$D" --verify
	[ "$status" -eq 0 ]
	[[ "$output" == *"  ok" ]]

	chmod -R u+w "$t"
	echo tampered >>"$t/README.md"
	echo new >"$t/knowledge/extra.txt"
	victim=$(cd "$t" && find prompts -type f | sort | head -1)
	rm "$t/$victim"
	run "$PACKSIGN" verify --installed "$t"
	echo "$output"
	[ "$status" -eq 1 ]
	[[ "$output" == *"modified: README.md"* ]]
	[[ "$output" == *"added: knowledge/extra.txt"* ]]
	[[ "$output" == *"missing: $victim"* ]]
	[[ "$output" == *"[installed_modified]"* ]]
	run "$PACKSIGN" list --data-dir "$D" --verify
	echo "$output"
	[ "$status" -eq 1 ]
	[[ "$output" == *"  MODIFIED"* ]]
	[[ "$output" == *"    modified: README.md"* ]]
	[[ "$output" == *"    added: knowledge/extra.txt"* ]]
	[[ "$output" == *"    missing: $victim"* ]]
	run --separate-stderr "$PACKSIGN" list --data-dir "$D" --verify --json
	[ "$status" -eq 1 ]
	echo "$output" | jq -e --arg v "$victim" '.ok == false and
	    .packs[0].verify.code == "installed_modified" and
	    .packs[0].verify.modified == ["README.md"] and
	    .packs[0].verify.added == ["knowledge/extra.txt"] and
	    .packs[0].verify.missing == [$v]'
	# Plain list still lists it: only --verify looks at the files.
	run "$PACKSIGN" list --data-dir "$D"
	[ "$status" -eq 0 ]
}

@test "verify --installed with a policy checks the receipt's signature too" {
	run inst ap.tar.gz
	[ "$status" -eq 0 ]
	run "$PACKSIGN" verify --installed "$(ap_tree 0.1.0)" \
	    --trust "$F/policy-false.yaml"
	echo "$output"
	[ "$status" -eq 0 ]
	[[ "$output" == *"receipt signature verified"* ]]
	run "$PACKSIGN" verify --installed "$D/agentpacks/$AP_ID/9.9.9"
	echo "$output"
	[ "$status" -ne 0 ]
	run "$PACKSIGN" verify --installed "$(ap_tree 0.1.0)" --sig x.sig
	[ "$status" -eq 2 ]
	[[ "$output" == *"--sig"*"[usage]"* ]]
}

@test "install: AgentPack shell: true needs a first_party signer or --allow-shell" {
	run inst apsh.tar.gz
	echo "$output"
	[ "$status" -eq 1 ]
	[[ "$output" == *"expected shell: false, or a first_party signer, found shell: true [shell_refused]"* ]]
	[ ! -e "$(ap_tree 0.1.0)" ]
	run inst apsh.tar.gz --allow-shell
	echo "$output"
	[ "$status" -eq 0 ]
	[ -d "$(ap_tree 0.1.0)" ]
	D=$BATS_TEST_TMPDIR/data-first
	run "$PACKSIGN" install "$F/apsh.tar.gz" --trust "$F/policy-true.yaml" \
	    --data-dir "$D" --yes
	echo "$output"
	[ "$status" -eq 0 ]
	[ -d "$(ap_tree 0.1.0)" ]
}

@test "install: no terminal and no --yes is confirmation_required, nothing installed" {
	run inst ap2.tar.gz
	[ "$status" -eq 0 ]
	before=$(snapshot)
	run setsid -w "$PACKSIGN" install "$F/ap.tar.gz" --allow-downgrade \
	    --trust "$F/policy-false.yaml" --data-dir "$D" </dev/null
	echo "$output"
	[ "$status" -eq 2 ]
	[[ "$output" == *"no terminal to ask on; pass --yes after reading \`packsign describe\`"*"[confirmation_required]"* ]]
	[ "$(snapshot)" = "$before" ]
	[ ! -e "$(ap_tree 0.1.0)" ]
}

@test "install: on a terminal, the plan is shown and the answer decides" {
	command -v script >/dev/null || skip "script(1) is not installed"
	cmd="'$PACKSIGN' install '$F/ap.tar.gz' --trust '$F/policy-false.yaml' --data-dir '$D'"
	run bash -c "printf 'n\n' | script -qec \"$cmd\" /dev/null"
	echo "$output"
	[ "$status" -eq 1 ]
	[[ "$output" == *"id:"*"$AP_ID"* ]]
	[[ "$output" == *"destination:"*"$(ap_tree 0.1.0)"* ]]
	[[ "$output" == *"signed by:"*"alice"* ]]
	[[ "$output" == *"Install? [y/N]"* ]]
	[[ "$output" == *"[install_declined]"* ]]
	[ ! -e "$(ap_tree 0.1.0)" ]
	run bash -c "printf 'y\n' | script -qec \"$cmd\" /dev/null"
	echo "$output"
	[ "$status" -eq 0 ]
	[[ "$output" == *"installed $AP_ID 0.1.0 to "* ]]
	[ -d "$(ap_tree 0.1.0)" ]
}

@test "install: the question in the locale's language takes its answer" {
	pty="$BATS_TEST_DIRNAME/../tools/ptyrun"
	run env -u LC_ALL -u LC_MESSAGES LANG=zh_CN.UTF-8 "$pty" "expect=安装？[y/N]（是/否）" send=否 -- \
	    "$PACKSIGN" install "$F/ap.tar.gz" --trust "$F/policy-false.yaml" --data-dir "$D"
	echo "$output"
	[ "$status" -eq 1 ]
	[[ "$output" == *"此智能体包"* ]]
	[[ "$output" == *"[install_declined]"* ]]
	[ ! -e "$(ap_tree 0.1.0)" ]
	run env -u LC_ALL -u LC_MESSAGES LANG=zh_CN.UTF-8 "$pty" "expect=安装？" send=是 -- \
	    "$PACKSIGN" install "$F/ap.tar.gz" --trust "$F/policy-false.yaml" --data-dir "$D"
	echo "$output"
	[ "$status" -eq 0 ]
	[ -d "$(ap_tree 0.1.0)" ]
	# English keeps its question and answers; y and yes still do in Chinese.
	run env LANG=zh_CN.UTF-8 "$pty" "expect=[y/N]" send=Y -- \
	    "$PACKSIGN" install "$F/ap2.tar.gz" --trust "$F/policy-false.yaml" --data-dir "$D"
	[ "$status" -eq 0 ]
	run env -u LC_ALL -u LC_MESSAGES LANG=en_US.UTF-8 "$pty" "expect=Install? [y/N] " send=是 -- \
	    "$PACKSIGN" install "$F/apx.tar.gz" --trust "$F/policy-false.yaml" \
	    --data-dir "$D-en"
	[ "$status" -eq 1 ]
	[[ "$output" == *"[install_declined]"* ]]
}

@test "install --dry-run checks everything and keeps nothing" {
	run inst ap.tar.gz --dry-run
	echo "$output"
	[ "$status" -eq 0 ]
	[[ "${lines[0]}" == "dry run: would install $AP_ID 0.1.0 to $(ap_tree 0.1.0)" ]]
	[ ! -e "$(ap_tree 0.1.0)" ]
	[ -z "$(snapshot | grep -v '^\.$')" ] || {
		snapshot; false; }
	run "$PACKSIGN" list --data-dir "$D"
	[ "$status" -eq 0 ]
	[ -z "$(echo "$output" | grep -v 'no packs installed')" ]
	# A dry run installs nothing, so it asks nothing.
	run setsid -w "$PACKSIGN" install "$F/ap.tar.gz" --dry-run \
	    --trust "$F/policy-false.yaml" --data-dir "$D" </dev/null
	echo "$output"
	[ "$status" -eq 0 ]
	[ ! -e "$(ap_tree 0.1.0)" ]
	run inst apsh.tar.gz --dry-run
	[ "$status" -eq 1 ]
	[[ "$output" == *"[shell_refused]"* ]]
}

@test "install: a signed pack whose agent config leaves it installs, with warnings [agentpack_config_path]" {
	local signer="${PACKSIGN_TESTSIGN:-$BATS_TEST_DIRNAME/../../build/tests/ps-testsign}"
	[ -x "$signer" ] || skip "build/tests/ps-testsign missing (make tools)"
	# What a packsign older than the rule could sign: `packsign sign`
	# refuses it now, so the test signer signs the packed archive.
	cp -R "$EXAMPLES/$AGENTPACK" hp
	chmod -R u+w hp
	printf 'data_dir: /etc\n' >>hp/agents/checklist.yml
	"$PACKSIGN" pack hp -o h.tar.gz >/dev/null
	"$signer" -s "$F/alice.key" h.tar.gz
	run --separate-stderr "$PACKSIGN" install h.tar.gz \
	    --trust "$F/policy-false.yaml" --data-dir "$D" --yes
	echo "$output"; echo "$stderr"
	[ "$status" -eq 0 ]
	[[ "${lines[0]}" == "installed $AP_ID 0.1.0 to $(ap_tree 0.1.0)" ]]
	[ "$stderr" = "packsign: warning: h.tar.gz/agents/checklist.yml:4:11: data_dir is a path: expected a relative path inside the pack, found the absolute path '/etc'; a warning as the pack is already signed (packsign sign refuses it) [agentpack_config_path]" ]
	[ -f "$(ap_tree 0.1.0)/agents/checklist.yml" ]
	# On a terminal the warnings come with the plan, before the question,
	# and are not repeated afterwards.
	if command -v script >/dev/null; then
		cmd="'$PACKSIGN' install h.tar.gz --trust '$F/policy-false.yaml' --data-dir '$D-tty'"
		run bash -c "printf 'n\n' | script -qec \"$cmd\" /dev/null"
		echo "$output"
		[ "$status" -eq 1 ]
		[[ "$output" == *"it may:"*"[agentpack_config_path]"*"Install? [y/N]"* ]]
		[ "$(grep -c 'agentpack_config_path' <<<"$output")" = 1 ]
	fi
	# --json: a warnings array at the top; stderr still says it.
	run --separate-stderr "$PACKSIGN" install h.tar.gz \
	    --trust "$F/policy-false.yaml" --data-dir "$D-json" --yes --json
	[ "$status" -eq 0 ]
	[[ "$stderr" == *"[agentpack_config_path]" ]]
	python3 -c '
import json, sys
d = json.loads(sys.argv[1])
assert d["action"] == "installed", d["action"]
w = [(x["file"], x["line"], x["column"], x["severity"], x["code"]) for x in d["warnings"]]
assert w == [("agents/checklist.yml", 4, 11, "warning", "agentpack_config_path")], w
' "$output"
	# A clean pack: an empty list.
	D=$BATS_TEST_TMPDIR/data-clean
	run --separate-stderr inst ap.tar.gz --json
	[ "$status" -eq 0 ]
	[ -z "$stderr" ]
	python3 -c 'import json, sys; assert json.loads(sys.argv[1])["warnings"] == []' "$output"
}

@test "uninstall: an id or version that is not installed is exit 1" {
	run "$PACKSIGN" uninstall no.such.pack --data-dir "$D"
	echo "$output"
	[ "$status" -eq 1 ]
	[[ "$output" == *"no.such.pack"*"[not_installed]"* ]]
	run inst ap.tar.gz
	[ "$status" -eq 0 ]
	run "$PACKSIGN" uninstall "$AP_ID@0.9.0" --data-dir "$D"
	echo "$output"
	[ "$status" -eq 1 ]
	[[ "$output" == *"0.9.0"*"[not_installed]"* ]]
	[ -d "$(ap_tree 0.1.0)" ]
	run "$PACKSIGN" uninstall "$AP_ID@" --data-dir "$D"
	[ "$status" -eq 2 ]
	[[ "$output" == *"[usage]"* ]]
}

@test "install: a tampered archive is refused and the data directory is unchanged" {
	run inst soya.tar.zst
	[ "$status" -eq 0 ]
	before=$(snapshot)
	cp "$F/ap.tar.gz" bad.tar.gz
	cp "$F/ap.tar.gz.sig" bad.tar.gz.sig
	size=$(stat -c %s bad.tar.gz)
	flip_byte bad.tar.gz $((size / 2))
	run "$PACKSIGN" install bad.tar.gz --trust "$F/policy-false.yaml" \
	    --data-dir "$D" --yes
	echo "$output"
	[ "$status" -eq 1 ]
	[[ "$output" == *"[subject_mismatch]"* ]]
	[[ "$output" == *"expected sha256:"*"found sha256:"* ]]
	[ "$(snapshot)" = "$before" ]
	# An unsigned archive: no .sig beside it.
	cp "$F/ap.tar.gz" unsigned.tar.gz
	run "$PACKSIGN" install unsigned.tar.gz --trust "$F/policy-false.yaml" \
	    --data-dir "$D" --yes
	echo "$output"
	# As verify: signature_missing, exit 1.
	[ "$status" -eq 1 ]
	[[ "$output" == *"[signature_missing]"* ]]
	[[ "$output" == *"unsigned.tar.gz.sig"* ]]
	[ "$(snapshot)" = "$before" ]
}

@test "install: the verify check flags apply; usage errors are exit 2" {
	run inst ap.tar.gz --signed-by bob
	echo "$output"
	[ "$status" -eq 1 ]
	[[ "$output" == *"[signer_missing]"* ]]
	run inst ap.tar.gz --require-source
	[ "$status" -eq 1 ]
	[[ "$output" == *"[source_missing]"* ]]
	run "$PACKSIGN" install "$F/ap.tar.gz" --data-dir "$D" --yes
	[ "$status" -eq 2 ]
	[[ "$output" == *"--trust"*"[usage]"* ]]
	run inst ap.tar.gz --max-size lots
	[ "$status" -eq 2 ]
	[[ "$output" == *"--max-size"*"found 'lots'"*"[usage]"* ]]
	run inst ap.tar.gz --lang fr
	[ "$status" -eq 2 ]
	[ ! -e "$D/agentpacks" ]
	run inst ap.tar.gz --max-size 10
	echo "$output"
	[ "$status" -eq 1 ]
	[[ "$output" == *"[extract_too_large]"* ]]
}

@test "install: the data directory defaults to \$PACKSIGN_DATA_DIR, then XDG_DATA_HOME" {
	PACKSIGN_DATA_DIR=$BATS_TEST_TMPDIR/env-data run "$PACKSIGN" install \
	    "$F/ap.tar.gz" --trust "$F/policy-false.yaml" --yes
	echo "$output"
	[ "$status" -eq 0 ]
	[ -d "$BATS_TEST_TMPDIR/env-data/agentpacks/$AP_ID/0.1.0" ]
	XDG_DATA_HOME=$BATS_TEST_TMPDIR/xdg run "$PACKSIGN" list
	[ "$status" -eq 0 ]
	[ -z "$(echo "$output" | grep -v 'no packs installed')" ]
	PACKSIGN_DATA_DIR=$BATS_TEST_TMPDIR/env-data run "$PACKSIGN" list
	[[ "$output" == "agentpack  $AP_ID 0.1.0 (newest)"* ]]
}

@test "uninstall ID removes every installed version of it" {
	run inst ap.tar.gz
	[ "$status" -eq 0 ]
	run inst ap2.tar.gz
	[ "$status" -eq 0 ]
	run "$PACKSIGN" uninstall "$AP_ID" --data-dir "$D"
	echo "$output"
	[ "$status" -eq 0 ]
	[[ "$output" == *"removed agentpack $AP_ID 0.1.0 from "* ]]
	[[ "$output" == *"removed agentpack $AP_ID 0.2.0 from "* ]]
	[ ! -e "$(ap_tree 0.1.0)" ] && [ ! -e "$(ap_tree 0.2.0)" ]
	[ -z "$(find "$D/receipts" -type f)" ]
}

# Issue 26: Ctrl-C during a local install left DIR/.tmp/install.* (the
# archive's copy and the extracted tree) until the next install.  SIGINT,
# SIGTERM and SIGHUP now stop it and it removes its work before the run
# ends by that signal.
left_over() {
	[ -d "$D/.tmp" ] && find "$D/.tmp" -mindepth 1 -print -quit
}

@test "install: SIGINT or SIGTERM at the question leaves no DIR/.tmp/install.*" {
	pty="$BATS_TEST_DIRNAME/../tools/ptyrun"
	for sig in INT TERM; do
		run "$pty" "expect=Install? [y/N] " "exists=$D/.tmp/install.*/tree" \
		    "signal=$sig" -- "$PACKSIGN" install "$F/ap.tar.gz" \
		    --trust "$F/policy-false.yaml" --data-dir "$D"
		echo "$sig: $output"
		[ "$status" -eq $((128 + $(kill -l "$sig"))) ]
		[ -z "$(left_over)" ] || { ls -laR "$D/.tmp"; false; }
		[ ! -e "$(ap_tree 0.1.0)" ]
		[ -z "$(find "$D/receipts" -type f 2>/dev/null)" ]
	done
}

@test "install: a signal while a large archive is copied and extracted leaves nothing" {
	mkdir -p packs && variant big "$AGENTPACK"
	head -c 96M /dev/urandom >packs/big/knowledge/big.bin
	"$PACKSIGN" pack packs/big -o big.tar >/dev/null
	"$PACKSIGN" sign big.tar -s "$F/alice.key" >/dev/null
	"$PACKSIGN" install big.tar --trust "$F/policy-false.yaml" \
	    --data-dir "$D" --yes >out 2>&1 &
	pid=$!
	# Caught in the act: stopped as soon as its work directory exists,
	# then the signal is delivered as it goes on.
	while ! compgen -G "$D/.tmp/install.*" >/dev/null && kill -0 "$pid" 2>/dev/null; do
		:
	done
	kill -STOP "$pid"
	compgen -G "$D/.tmp/install.*" >/dev/null || { kill -CONT "$pid"; skip "the install ended first"; }
	kill -TERM "$pid"
	kill -CONT "$pid"
	rc=0
	wait "$pid" || rc=$?
	cat out
	[ "$rc" -eq 143 ]
	[ -z "$(left_over)" ] || { ls -laR "$D/.tmp"; false; }
	[ ! -e "$(ap_tree 0.1.0)" ]
	[ -z "$(find "$D/receipts" -type f 2>/dev/null)" ]
}

# --reinstall (issue 26): "already installed" over a modified tree was exit
# 0 with the tree left modified.
@test "install over a modified tree: installed_modified names --reinstall, which restores it" {
	inst ap.tar.gz >/dev/null
	t=$(ap_tree 0.1.0)
	receipt="$D/receipts/agentpacks/$AP_ID/0.1.0.json"
	chmod -R u+w "$t"
	echo "an edit" >>"$t/README.md"
	rm "$t/prompts/review.md"
	run --separate-stderr inst ap.tar.gz
	echo "$output"; echo "$stderr"
	[ "$status" -eq 1 ]
	[ -z "$output" ]
	[ "$stderr" = "packsign: $t: $AP_ID 0.1.0 is already installed, but its files changed since; pass --reinstall (ps_install_options.reinstall) to replace them with this archive's verified tree: expected the files as installed, found 1 modified, 0 added, 1 missing (modified: README.md) [installed_modified]" ]
	grep -q "an edit" "$t/README.md"
	before=$(stat -c %i "$t")
	run inst ap.tar.gz --reinstall
	echo "$output"
	[ "$status" -eq 0 ]
	[[ "${lines[0]}" == "reinstalled $AP_ID 0.1.0 to $t" ]]
	[ "$(stat -c %i "$t")" != "$before" ]
	cmp "$t/README.md" "$EXAMPLES/$AGENTPACK/README.md"
	[ -f "$t/prompts/review.md" ]
	run "$PACKSIGN" verify --installed "$t" --trust "$F/policy-false.yaml"
	[ "$status" -eq 0 ]
	[ -z "$(left_over)" ]
	# An intact tree is the no-op again; --reinstall of it still works.
	run inst ap.tar.gz
	[[ "${lines[0]}" == "already installed: "* ]]
	run inst ap.tar.gz --reinstall --json
	[ "$status" -eq 0 ]
	[ "$(jq -r .action <<<"$output")" = reinstalled ]
	[ "$(jq -r .files <<<"$output")" -gt 0 ]
	# One receipt, as before.
	[ "$(find "$D/receipts" -name '*.json' | wc -l)" -eq 1 ]
}

@test "install --reinstall: an older installed version, a version not installed, other content, the pins" {
	inst ap.tar.gz >/dev/null
	inst ap2.tar.gz >/dev/null
	# Reinstalling the older version is no rollback: it is installed.
	run inst ap.tar.gz --reinstall
	echo "$output"
	[ "$status" -eq 0 ]
	[[ "${lines[0]}" == "reinstalled $AP_ID 0.1.0 to "* ]]
	run "$PACKSIGN" list --data-dir "$D"
	[[ "$output" == *"$AP_ID 0.2.0 (newest)"* ]]
	# Other content under the same version is still version_conflict.
	run inst apx.tar.gz --reinstall
	[ "$status" -eq 1 ]
	[[ "$output" == *"[version_conflict]"* ]]
	# A version not installed is installed as usual.
	run inst apsh.tar.gz --reinstall --allow-shell --data-dir "$D-other"
	[ "$status" -eq 0 ]
	# The pins are never rewritten.
	run inst ap.tar.gz --reinstall --allow-signer-change
	[ "$status" -eq 2 ]
	[[ "$output" == *"--reinstall keeps the pins"*"[usage]"* ]]
	run "$PACKSIGN" update --reinstall --index x -p "$F/alice.pub" --data-dir "$D"
	[ "$status" -eq 2 ]
	[[ "$output" == *"[usage]"* ]]
}

@test "an upgrade over a modified installed version names --reinstall" {
	inst ap.tar.gz >/dev/null
	t=$(ap_tree 0.1.0)
	chmod -R u+w "$t"
	echo "changed" >>"$t/manifest.yml"
	run inst ap2.tar.gz
	echo "$output"
	[ "$status" -eq 1 ]
	[[ "$output" == *"$t/manifest.yml: hashed the installed file before reading it: it must be what the receipt records (packsign verify --installed lists every change; packsign install --reinstall with that version's archive restores its tree)"*"[installed_modified]"* ]]
	run inst ap.tar.gz --reinstall
	[ "$status" -eq 0 ]
	run inst ap2.tar.gz
	[ "$status" -eq 0 ]
	[ -d "$(ap_tree 0.2.0)" ]
}

# The crash guarantee of install.md 3.2: whatever syscall a kill interrupts,
# the layout path holds a whole tree, and its receipt describes it: the
# modified tree with its old receipt (verify --installed names the one
# edit), or the verified tree (verify --installed passes) with either
# receipt.
@test "install --reinstall: a kill at any rename, write or sync leaves the old tree or the verified one" {
	command -v strace >/dev/null || skip "strace is not installed"
	local call n st kills=0
	for call in write fsync syncfs renameat renameat2; do
		n=1
		while :; do
			rm -rf "$D"
			inst ap.tar.gz >/dev/null
			chmod -R u+w "$(ap_tree 0.1.0)"
			echo "an edit" >>"$(ap_tree 0.1.0)/README.md"
			st=0
			ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" \
			strace -f -o /dev/null -e trace="$call" \
			    -e inject="$call":signal=SIGKILL:when=$n \
			    "$PACKSIGN" install "$F/ap.tar.gz" \
			    --trust "$F/policy-false.yaml" --data-dir "$D" --yes \
			    --reinstall >/dev/null 2>&1 || st=$?
			run --separate-stderr "$PACKSIGN" verify --installed \
			    "$AP_ID@0.1.0" --data-dir "$D"
			[ "$status" -eq 0 ] || { [ "$output" = "modified: README.md" ] &&
			    [[ "$stderr" == *"found 1 modified, 0 added, 0 missing [installed_modified]" ]]; } ||
			    { echo "$call #$n: $output $stderr"; return 1; }
			[ "$st" -eq 0 ] && break
			kills=$((kills + 1))
			n=$((n + 1))
			[ "$n" -lt 400 ] || return 1
		done
	done
	echo "# $kills kills" >&3
	[ "$kills" -gt 5 ]
}
