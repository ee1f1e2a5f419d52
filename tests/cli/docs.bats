#!/usr/bin/env bats
# The documentation cannot drift from the program: error codes
# (docs/errors.md), the man page (docs/packsign.1), --json on every command
# that prints a report, and the commands README.md, docs/pipelines.md and
# docs/distribution.md show, run as written (scripts/run-doc).

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

# run_doc DOC...: scripts/run-doc with the packsign under test.
run_doc() {
	command -v python3 >/dev/null && python3 -c 'import yaml' 2>/dev/null ||
	    skip "python3 or python3-yaml missing (scripts/install-deps installs them)"
	cd "$BATS_TEST_TMPDIR"
	run "$ROOT/scripts/run-doc" --packsign "$PACKSIGN" "$@"
	echo "$output"
}

@test "README.md: the tour and every command not marked otherwise run as written and print what is shown" {
	run_doc "$ROOT/README.md"
	[ "$status" -eq 0 ]
	[[ "${lines[-1]}" == "README.md: "*" commands run, "*" outputs compared, "*": ok" ]]
}

@test "docs/pipelines.md: the keys, the release workflow's steps, co-signing and the installer's checks run as written" {
	run_doc "$ROOT/docs/pipelines.md"
	[ "$status" -eq 0 ]
	[[ "${lines[-1]}" == *": ok" ]]
}

@test "docs/distribution.md: the index workflows, yanking and the installer's check run as written" {
	run_doc "$ROOT/docs/distribution.md"
	[ "$status" -eq 0 ]
	[[ "${lines[-1]}" == *": ok" ]]
}

@test "the tour's secret key is ignored by git in a clone of this repository" {
	git -C "$ROOT" check-ignore -q --no-index alice.key
	git -C "$ROOT" check-ignore -q --no-index docs/release.key
}

# doc NAME: writes a small document to NAME.md from standard input.
doc() { cat >"$BATS_TEST_TMPDIR/$1.md"; }

@test "run-doc: shown outputs, elisions, volatile values, exit statuses, files and workflows" {
	doc good <<'MD'
A session: output compared, `…` elides, volatile values compare by kind.

    $ echo hello
    hello
    $ printf 'key id: 0123456789ABCDEF\nat 2020-01-01T00:00:00Z\nfp SHA256:sK006J32tX/QmEYt3Pi3K8sD/h/g9e1NqslKJex3kog\n%s\n' "$HOME/x"
    key id: FEDCBA9876543210
    at 2026-11-30T13:30:09Z
    fp SHA256:abcd…
    /home/me/x
    $ printf 'a\nb\nc\nd: one two three\n'
    a
    …
    d: one … three
    $ cd sub 2>/dev/null || mkdir sub; cd sub; v=kept
    $ echo "$v in $(basename "$PWD")"; cd ..
    kept in sub
    $ false                  # exit 1

A script block: each line must succeed, nothing compared.

    packsign --version >/dev/null
    test -d "$RUN_DOC_ROOT/examples"

<!-- doc-test: file conf.yaml -->
```yaml
a: 1
```

```sh
grep -qx 'a: 1' conf.yaml
```

<!-- doc-test: workflow ref=v9.9.9 secrets.S=@conf.yaml -->
```yaml
jobs:
  one:
    steps:
      - uses: actions/checkout@v4
      - run: 'test "$S" = "a: 1" && test "$GITHUB_REF_NAME" = v9.9.9 && git remote get-url origin >url'
        env:
          S: ${{ secrets.S }}
      - run: grep -qx https://github.com/example/packsign url
```
MD
	run_doc good.md
	[ "$status" -eq 0 ]
	[ "${lines[-1]}" = "good.md: 14 commands run, 4 outputs compared, 0 blocks or steps skipped: ok" ]
}

@test "run-doc: a changed output, a wrong exit status and a failing workflow step fail, naming the line" {
	doc stale <<'MD'
Text.

    $ echo "12 entries, 1444 bytes of files"
    8 files, 1444 bytes
MD
	run_doc stale.md
	[ "$status" -eq 1 ]
	[[ "$output" == *"stale.md:3: \$ echo \"12 entries, 1444 bytes of files\""*"shown:"*"8 files, 1444 bytes"*"found:"*"12 entries, 1444 bytes of files"* ]]
	doc status <<'MD'
Text.

    $ false
    $ echo never
MD
	run_doc status.md
	[ "$status" -eq 1 ]
	[[ "$output" == *"status.md:3: \$ false"*"exited 1, expected 0"* ]]
	[[ "${lines[-1]}" == "status.md: 1 commands run, 0 outputs compared, 0 blocks or steps skipped: 1 FAILED" ]]
	doc refused <<'MD'
Text.

    $ true            # exit 1
MD
	run_doc refused.md
	[ "$status" -eq 1 ]
	[[ "$output" == *"exited 0, expected 1"* ]]
	doc step <<'MD'
<!-- doc-test: workflow -->
```yaml
jobs:
  j:
    steps:
      - name: Build
        run: |
          echo building
          exit 3
```
MD
	run_doc step.md
	[ "$status" -eq 1 ]
	[[ "$output" == *"step.md:3: workflow job j, step 'Build':"*"echo building"*"exited 3, expected 0"*"building"* ]]
}

@test "run-doc: a block it cannot run, a directive without its block or reason, an unknown action are errors (exit 2)" {
	printf 'Text.\n\n```yaml\na: 1\n```\n' >"$BATS_TEST_TMPDIR/y.md"
	run_doc y.md
	[ "$status" -eq 2 ]
	[[ "$output" == *"line 4: a yaml block needs a doc-test directive (skip, file, append or workflow)"* ]]
	printf 'Text.\n\n<!-- doc-test: skip -->\n    $ true\n' >"$BATS_TEST_TMPDIR/r.md"
	run_doc r.md
	[ "$status" -eq 2 ]
	[[ "$output" == *"skip needs a reason"* ]]
	printf 'Text.\n\n<!-- doc-test: file x -->\n\nno block\n' >"$BATS_TEST_TMPDIR/n.md"
	run_doc n.md
	[ "$status" -eq 2 ]
	[[ "$output" == *"directive 'file' has no block"* ]]
	printf '<!-- doc-test: workflow -->\n```yaml\njobs:\n  j:\n    steps:\n      - uses: some/action@v1\n```\n' >"$BATS_TEST_TMPDIR/a.md"
	run_doc a.md
	[ "$status" -eq 2 ]
	[[ "$output" == *"action some/action@v1 is not emulated (skip it)"* ]]
}
