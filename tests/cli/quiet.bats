#!/usr/bin/env bats
# -q / --quiet on every command (issue 26): a command that succeeds prints
# nothing, neither on standard output nor standard error; errors, warnings
# and what a refusal found are printed as always; --json and a product
# written to standard output still are.  outdated, update and fetch, which
# need the HTTPS server, are checked in index.bats and net.bats.

load helpers
bats_require_minimum_version 1.5.0

setup() {
	cd "$BATS_TEST_TMPDIR"
	unset PACKSIGN_PASSPHRASE PACKSIGN_SECRET_KEY SOURCE_DATE_EPOCH PACKSIGN_DATA_DIR
	D=$BATS_TEST_TMPDIR/data
	p=$(copy_pack "$AGENTPACK")
}

teardown() {
	chmod -R u+w "$BATS_TEST_TMPDIR" 2>/dev/null || true
}

# silent CMD...: CMD succeeds and prints nothing at all.
silent() {
	run --separate-stderr "$PACKSIGN" "$@"
	[ "$status" -eq 0 ] && [ -z "$output" ] && [ -z "$stderr" ] || {
		echo "packsign $*: exit $status, stdout '$output', stderr '$stderr'"
		return 1
	}
}

@test "quiet: every command that succeeds prints nothing" {
	silent keygen -o k --identity alice --no-passphrase -q
	[ -f k.pub ] && [ -f k.key ]
	silent key show k.pub -q
	silent key pubkey -s k.key -o k2.pub --quiet
	[ "$(sed -n 2p k.pub)" = "$(sed -n 2p k2.pub)" ]
	silent key export --pem-pub -p k.pub -o k.pem -q
	silent key import --pem k.pem -o imported -q
	silent trust check -p k.pub -q
	silent pack "$p" -o p.tar.gz -q
	silent digest p.tar.gz -q
	silent validate "$p" -q
	silent describe p.tar.gz -q
	silent sign "$p" -s k.key -o s.tar.gz -q
	silent verify s.tar.gz -p k.pub -q
	cp s.tar.gz t.tar.gz && cp s.tar.gz.sig t.tar.gz.sig
	silent verify s.tar.gz t.tar.gz -p k.pub -q
	silent diff s.tar.gz t.tar.gz -p k.pub -q
	silent install s.tar.gz -p k.pub --data-dir "$D" --yes -q
	silent install s.tar.gz -p k.pub --data-dir "$D" --yes -q
	silent list --data-dir "$D" -q
	silent list --data-dir "$D" --verify -q
	silent verify --installed "$AGENTPACK" --data-dir "$D" -q
	silent index build s.tar.gz -o ix.json -s k.key -p k.pub \
	    --url-prefix https://example.invalid/ -q
	# (A first use warns, -q or not: a warning is not a success line.)
	run --separate-stderr "$PACKSIGN" index verify ix.json -p k.pub --data-dir "$D" --record -q
	[ -z "$output" ] && [[ "$stderr" == "packsign: warning: no index state for alice"* ]]
	silent index verify ix.json -p k.pub --data-dir "$D" -q
	silent uninstall "$AGENTPACK" --data-dir "$D" -q
	silent uninstall "$AGENTPACK" --data-dir "$D" --forget -q
	silent list --data-dir "$D" -q
	# Without -q they would have said something.
	run "$PACKSIGN" verify s.tar.gz -p k.pub
	[[ "$output" == "Good signature: "* ]]
}

@test "quiet: a product on standard output and --json are still printed" {
	"$PACKSIGN" keygen -o k --no-passphrase >/dev/null
	run --separate-stderr "$PACKSIGN" key pubkey -s k.key -q
	[ "$status" -eq 0 ]
	[ "$output" = "$(cat k.pub)" ]
	run --separate-stderr "$PACKSIGN" digest "$p" --json -q
	[ "$status" -eq 0 ]
	jq -e '.tree_digest | startswith("sha256:")' <<<"$output"
	"$PACKSIGN" pack "$p" -o - -q | tar -t >/dev/null
}

@test "quiet: refusals, what they found and warnings are printed" {
	"$PACKSIGN" keygen -o k --identity alice --no-passphrase >/dev/null
	"$PACKSIGN" sign "$p" -s k.key -o s.tar.gz >/dev/null
	cp s.tar.gz t.tar.gz && cp s.tar.gz.sig t.tar.gz.sig
	printf '\001' | dd of=t.tar.gz bs=1 seek=100 conv=notrunc status=none
	run --separate-stderr "$PACKSIGN" verify s.tar.gz t.tar.gz -p k.pub -q
	[ "$status" -eq 1 ]
	[ "$output" = "FAILED: 1 of 2 verified" ]
	[[ "$stderr" == "packsign: t.tar.gz: "*"[subject_mismatch]" ]]
	# validate: the diagnostics and the verdict of an invalid pack.
	sed -i 's/^version: .*/version: x/' "$p/manifest.yml"
	run --separate-stderr "$PACKSIGN" validate "$p" -q
	[ "$status" -eq 1 ]
	[[ "${lines[0]}" == *"[version_invalid]" ]]
	[[ "${lines[1]}" == *": invalid agentpack "* ]]
	# list --verify and verify --installed: the modified pack and its paths.
	"$PACKSIGN" install s.tar.gz -p k.pub --data-dir "$D" --yes >/dev/null
	t="$D/agentpacks/$AGENTPACK/0.1.0"
	chmod -R u+w "$t"
	echo x >>"$t/README.md"
	run --separate-stderr "$PACKSIGN" list --data-dir "$D" --verify -q
	[ "$status" -eq 1 ]
	[[ "${lines[0]}" == "agentpack  $AGENTPACK 0.1.0 (newest)  signer: alice"* ]]
	[ "${lines[1]}" = "  MODIFIED" ]
	[ "${lines[2]}" = "    modified: README.md" ]
	[[ "$stderr" == *"[installed_modified]" ]]
	run --separate-stderr "$PACKSIGN" verify --installed "$t" -q
	[ "$status" -eq 1 ]
	[ "$output" = "modified: README.md" ]
	# diff: the exit status says they differ, nothing is printed.
	"$PACKSIGN" pack "$p" -o other.tar.gz >/dev/null 2>&1 || true
	cp -R "$EXAMPLES/$AGENTPACK" q && chmod -R u+w q
	echo more >>q/README.md
	run --separate-stderr "$PACKSIGN" diff "$EXAMPLES/$AGENTPACK" q -q
	[ "$status" -eq 1 ]
	[ -z "$output" ] && [ -z "$stderr" ]
	# A usage error is an error.
	run "$PACKSIGN" digest -q
	[ "$status" -eq 2 ]
	[[ "$output" == *"[usage]"* ]]
}
