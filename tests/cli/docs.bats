#!/usr/bin/env bats
# The documentation cannot drift from the program: error codes
# (docs/errors.md), the man page (docs/packsign.1), --json on every command
# that prints a report.

load helpers

ROOT="$BATS_TEST_DIRNAME/../.."

# A copy of the sources and docs the checkers read, to break on purpose.
copy_tree() {
	local dst="$BATS_TEST_TMPDIR/tree"
	mkdir -p "$dst/scripts" "$dst/docs" "$dst/include"
	for room in $("$ROOT/scripts/check-layers" --rooms); do
		cp -R "$ROOT/$room" "$dst/"
	done
	cp "$ROOT/include/packsign.h" "$dst/include/"
	cp "$ROOT/docs/errors.md" "$ROOT/docs/packsign.1" "$dst/docs/"
	cp "$ROOT/scripts/check-error-codes" "$ROOT/scripts/check-man-page" \
	    "$ROOT/scripts/check-layers" "$dst/scripts/"
	echo "$dst"
}

@test "every error code the sources produce is in docs/errors.md, and every row is produced" {
	run "$ROOT/scripts/check-error-codes"
	echo "$output"
	[ "$status" -eq 0 ]
	[[ "$output" == *"error codes, all documented, none stale" ]]
	# The extraction finds codes through every route: helpers, ternaries,
	# mapping functions, variables, codes printed directly.
	codes=$("$ROOT/scripts/check-error-codes" --list)
	for c in usage subject_mismatch field_missing yaml_alias key_malformed \
	    output_exists disk_full path_special key_file_linked json_output \
	    threshold_not_met install_declined; do
		grep -qx "$c" <<<"$codes" || { echo "not found: $c"; return 1; }
	done
}

@test "check-error-codes fails on an undocumented code, a stale row, a wrong exit" {
	tree=$(copy_tree)
	cat >>"$tree/pack/digest.c" <<-'EOF'
	int ps_drift_probe(ps_error *err);
	int
	ps_drift_probe(ps_error *err)
	{
		return util_refuse(err, "drift_probe_code", "x", "probe");
	}
	struct drift_row { const char *code; };
	static const struct drift_row drift_table[] = { { .code = "drift_table_code" } };
	EOF
	sed -i -e '/^| `rebuild_mismatch` /d' \
	    -e 's/^| `key_corrupt` | 2 |/| `key_corrupt` | 1 |/' "$tree/docs/errors.md"
	printf '| `never_made_code` | 1 | stale |\n' >>"$tree/docs/errors.md"
	run "$tree/scripts/check-error-codes"
	echo "$output"
	[ "$status" -eq 1 ]
	[[ "$output" == *"undocumented: drift_probe_code (produced at pack/digest.c:"* ]]
	[[ "$output" == *"undocumented: rebuild_mismatch"* ]]
	[[ "$output" == *"undocumented: drift_table_code"* ]]
	[[ "$output" == *"never produced: never_made_code"* ]]
	[[ "$output" == *"wrong exit: key_corrupt is produced with exit 2 ("*") but docs/errors.md line "*" says 1"* ]]
}

@test "check-error-codes refuses a code argument it cannot resolve" {
	tree=$(copy_tree)
	cat >>"$tree/pack/digest.c" <<-'EOF'
	int ps_drift_probe(ps_error *err, const char *(*pick)(void));
	int
	ps_drift_probe(ps_error *err, const char *(*pick)(void))
	{
		return util_fail(err, pick(), "x", "probe");
	}
	EOF
	run "$tree/scripts/check-error-codes"
	echo "$output"
	[ "$status" -eq 1 ]
	[[ "$output" == *"unresolved: pack/digest.c:"*"cannot resolve the code argument 'pick()'"* ]]
}

@test "the man page documents every command, option, environment variable and exit status" {
	command -v man >/dev/null || skip "man is not installed"
	run "$ROOT/scripts/check-man-page" "$PACKSIGN"
	echo "$output"
	[ "$status" -eq 0 ]
	run groff -mandoc -ww -z "$ROOT/docs/packsign.1"
	[ -z "$output" ]
}

@test "check-man-page names an option, a variable and an exit status the page lacks, and a stale option" {
	command -v man >/dev/null || skip "man is not installed"
	tree=$(copy_tree)
	page="$tree/docs/packsign.1"
	sed -i -e 's/Fl \\-deep//g' -e '/^\.It Ev PACKSIGN_DATA_DIR/,/^\.It Ev/{/^\.It Ev PACKSIGN_DATA_DIR/d}' \
	    -e 's/^\.It 2$/.It 3/' \
	    -e 's/^\(\.It Nm Cm list .*\)$/\1 Op Fl \\-gone\\-option/' "$page"
	run "$ROOT/scripts/check-man-page" "$PACKSIGN" "$page"
	echo "$output"
	[ "$status" -eq 1 ]
	[[ "$output" == *"verify: option --deep (in 'packsign verify --help') is not in its COMMANDS entry"* ]]
	[[ "$output" == *"environment variable PACKSIGN_DATA_DIR"* ]]
	[[ "$output" == *"EXIT STATUS has no item for 2"* ]]
	[[ "$output" == *"list: the synopsis 'packsign list"*"names --gone-option, which 'packsign list --help' does not list"* ]]
}

@test "every command's help that prints a report offers --json" {
	for c in pack digest sign keygen key verify install list uninstall \
	    trust validate describe; do
		"$PACKSIGN" "$c" --help | grep -q -- '--json' ||
		    { echo "$c has no --json"; return 1; }
	done
}

@test "pack --json: what was written, the digests packsign digest prints" {
	pack="$EXAMPLES/$AGENTPACK"
	run "$PACKSIGN" pack "$pack" -o "$BATS_TEST_TMPDIR/a.tar.gz" --mtime 7 --json
	[ "$status" -eq 0 ]
	echo "$output" | python3 -m json.tool >/dev/null
	tree=$(digest_field "$BATS_TEST_TMPDIR/a.tar.gz" tree_digest)
	tar=$(digest_field "$BATS_TEST_TMPDIR/a.tar.gz" tar_digest)
	echo "$output" | jq -e --arg p "$BATS_TEST_TMPDIR/a.tar.gz" \
	    --arg tree "$tree" --arg tar "$tar" '.path == $p and
	    .format == "agentpack" and .manifest == "manifest.yml" and
	    .compression == "gzip" and .mtime == 7 and .entries > 0 and
	    .size > 0 and .tree_digest == $tree and .tar_digest == $tar'
	run "$PACKSIGN" pack "$pack" -o - --json
	[ "$status" -eq 2 ]
	[[ "$output" == *"--json and '-o -' exclude each other"*"[usage]"* ]]
}

@test "keygen --json, key passwd --json, key import --json: key id, fingerprint, files; no secret" {
	cd "$BATS_TEST_TMPDIR"
	run "$PACKSIGN" keygen -o k --no-passphrase --identity alice --json
	[ "$status" -eq 0 ]
	echo "$output" | python3 -m json.tool >/dev/null
	id=$("$PACKSIGN" key show k.pub --json | jq -r .key_id)
	fp=$("$PACKSIGN" key show k.pub --json | jq -r .fingerprint)
	echo "$output" | jq -e --arg id "$id" --arg fp "$fp" '.key_id == $id and
	    .fingerprint == $fp and .identity == "alice" and
	    .public_key == "k.pub" and .secret_key == "k.key" and
	    .encrypted == false and (keys | length) == 6'
	[[ "$output" != *"$(sed -n 2p k.key)"* ]]
	echo pass-one >pw
	run "$PACKSIGN" key passwd -s k.key --new-passphrase-file pw \
	    --kdf interactive --json
	[ "$status" -eq 0 ]
	echo "$output" | jq -e '.secret_key == "k.key" and .encrypted == true'
	"$PACKSIGN" key export --pem-pub -s k.key --passphrase-file pw -o k.pem
	run "$PACKSIGN" key import --pem k.pem -o imported --json
	[ "$status" -eq 0 ]
	echo "$output" | jq -e --arg fp "$fp" '.fingerprint == $fp and
	    .public_key == "imported.pub" and .secret_key == null and
	    .encrypted == null'
	run "$PACKSIGN" key pubkey -s k.key --passphrase-file pw --json
	[ "$status" -eq 2 ]
	[[ "$output" == *"does not apply to 'key pubkey'"*"[usage]"* ]]
}
