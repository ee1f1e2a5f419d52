#!/usr/bin/env bats
# CLI tests: packsign verify.  Signatures come from the test-only signer
# build/tests/ps-testsign (tests/tools/ps-testsign.c), so these tests do not
# depend on `packsign sign`.

load helpers
bats_require_minimum_version 1.5.0

SIGNER="${PACKSIGN_TESTSIGN:-$BATS_TEST_DIRNAME/../../build/tests/ps-testsign}"
HOLON_REPO=https://github.com/acme/pdf-profile
HOLON_REF=3f5c2a9d8e7b6c5d4e3f2a1b0c9d8e7f6a5b4c3d
C1=0123456789abcdef0123456789abcdef01234567
C2=89abcdef0123456789abcdef0123456789abcdef

# Keys and the agentpack archive are made once; each test gets copies.
setup_file() {
	cd "$BATS_FILE_TMPDIR"
	unset PACKSIGN_PASSPHRASE PACKSIGN_SECRET_KEY SOURCE_DATE_EPOCH
	"$PACKSIGN" keygen -o alice --identity alice --no-passphrase >/dev/null
	"$PACKSIGN" keygen -o bob --identity bob --no-passphrase >/dev/null
	"$PACKSIGN" pack "$EXAMPLES/$AGENTPACK" -o r.tar.gz >/dev/null
}

setup() {
	cd "$BATS_TEST_TMPDIR"
	unset PACKSIGN_PASSPHRASE PACKSIGN_SECRET_KEY SOURCE_DATE_EPOCH
	[ -x "$SIGNER" ] || skip "build/tests/ps-testsign missing (make tools)"
	cp "$BATS_FILE_TMPDIR"/alice.* "$BATS_FILE_TMPDIR"/bob.* \
	    "$BATS_FILE_TMPDIR"/r.tar.gz .
}

sign() { "$SIGNER" "$@"; }
fp() { "$PACKSIGN" key show "$1" --json | sed -n 's/.*"fingerprint": "\(.*\)".*/\1/p'; }

# policy FILE THRESHOLD [EXTRA YAML for alice's key] [alice's packs]
policy() {
	local packs='"*"'
	[ -z "${4:-}" ] || packs=$4
	cat >"$1" <<YAML
version: 1
signers:
  - identity: alice
    keys:
      - key: $(sed -n 2p alice.pub)
${3:-}
    packs: [$packs]
  - identity: bob
    keys:
      - key: $(sed -n 2p bob.pub)
    packs: ["*"]
threshold: $2
YAML
}

# flip_byte FILE OFFSET: XORs one byte with 0x01.
flip_byte() {
	local v
	v=$(od -An -tu1 -j "$2" -N1 "$1" | tr -d ' ')
	printf "\\$(printf %03o $((v ^ 1)))" |
	    dd of="$1" bs=1 seek="$2" conv=notrunc status=none
}

# flip_b64 FILE OFFSET: replaces one base64 character by another.
flip_b64() {
	local c
	c=$(dd if="$1" bs=1 skip="$2" count=1 status=none)
	if [ "$c" = A ]; then c=B; else c=A; fi
	printf %s "$c" | dd of="$1" bs=1 seek="$2" conv=notrunc status=none
}

@test "round trip: each example pack, packed and signed, verifies" {
	for p in research.top-journal-reviewer soyapack-research-summarizer \
	    autograph.pkg.research; do
		"$PACKSIGN" pack "$EXAMPLES/$p" -o "$p.tar.zst" >/dev/null
		sign -s alice.key "$p.tar.zst"
		run "$PACKSIGN" verify "$p.tar.zst" -p alice.pub
		echo "$output"
		[ "$status" -eq 0 ]
		[[ "$output" == "Good signature: "*" by alice (SHA256:"*"); no source recorded; "*" verified" ]]
	done
	"$PACKSIGN" pack "$EXAMPLES/holon-pdf-profile" -o h.tar >/dev/null
	sign -s alice.key --source-repo "$HOLON_REPO" --source-commit "$HOLON_REF" h.tar
	run "$PACKSIGN" verify h.tar -p alice.pub --require-source
	echo "$output"
	[ "$status" -eq 0 ]
	[[ "$output" == *" from $HOLON_REPO @ $HOLON_REF; "* ]]
}

@test "the success line names id, version, signer, fingerprint, source and prompt count" {
	sign -s alice.key --source-repo https://github.com/org/repo --source-commit $C1 r.tar.gz
	run "$PACKSIGN" verify r.tar.gz -p alice.pub
	[ "$status" -eq 0 ]
	[ "$output" = "Good signature: research.top-journal-reviewer 0.1.0 by alice ($(fp alice.pub)) from https://github.com/org/repo @ $C1; 4 prompt files verified" ]
}

@test "a key encrypted with --kdf interactive signs, its public key verifies" {
	printf 'pw\n' >pass.txt
	"$PACKSIGN" keygen -o enc --identity carol --kdf interactive --passphrase-file pass.txt >/dev/null
	sign -s enc.key --passphrase-file pass.txt r.tar.gz
	run "$PACKSIGN" verify r.tar.gz -p enc.pub
	[ "$status" -eq 0 ]
	[[ "$output" == *" by carol ("* ]]
}

@test "a byte flipped in the archive: subject_mismatch before anything else" {
	sign -s alice.key r.tar.gz
	flip_byte r.tar.gz 200
	run "$PACKSIGN" verify r.tar.gz -p alice.pub
	echo "$output"
	[ "$status" -eq 1 ]
	[[ "$output" == *"compared the SHA-256 of the archive's bytes with the signed subject: expected sha256:"*", found sha256:"*"[subject_mismatch]" ]]
}

@test "a truncated archive is a subject mismatch; a truncated .sig is malformed" {
	sign -s alice.key r.tar.gz
	cp r.tar.gz.sig keep.sig
	truncate -s 300 r.tar.gz
	run "$PACKSIGN" verify r.tar.gz -p alice.pub
	[ "$status" -eq 1 ]
	[[ "$output" == *"[subject_mismatch]" ]]
	truncate -s 100 keep.sig
	run "$PACKSIGN" verify r.tar.gz --sig keep.sig -p alice.pub
	[ "$status" -eq 1 ]
	[[ "$output" == *"[envelope_malformed]" ]]
}

@test "a byte flipped in the payload or the signature: signature_invalid" {
	sign -s alice.key r.tar.gz
	cp r.tar.gz.sig orig.sig
	flip_b64 r.tar.gz.sig 60
	run "$PACKSIGN" verify r.tar.gz -p alice.pub
	echo "$output"
	[ "$status" -eq 1 ]
	[[ "$output" == *"names the key $(fp alice.pub) (alice) of the policy, but does not verify under it"*"[signature_invalid]" ]]
	cp orig.sig r.tar.gz.sig
	off=$(grep -bo '"sig":"' r.tar.gz.sig | cut -d: -f1)
	flip_b64 r.tar.gz.sig $((off + 20))
	run "$PACKSIGN" verify r.tar.gz -p alice.pub
	[ "$status" -eq 1 ]
	[[ "$output" == *"[signature_invalid]" ]]
}

@test "a .sig swapped between packs is refused" {
	"$PACKSIGN" pack "$EXAMPLES/soyapack-research-summarizer" -o s.tar.gz >/dev/null
	sign -s alice.key r.tar.gz
	sign -s alice.key s.tar.gz
	run "$PACKSIGN" verify r.tar.gz --sig s.tar.gz.sig -p alice.pub
	[ "$status" -eq 1 ]
	[[ "$output" == *"[subject_mismatch]" ]]
}

@test "unknown key: signature_untrusted, naming the keyid found" {
	sign -s bob.key r.tar.gz
	run "$PACKSIGN" verify r.tar.gz -p alice.pub
	echo "$output"
	[ "$status" -eq 1 ]
	[[ "$output" == *"no key of the policy verifies it (keyid '$(fp bob.pub)'): expected threshold 1, found 0 [signature_untrusted]" ]]
	[ "$(grep -o 'signature_untrusted' <<<"$output" | wc -l)" -eq 1 ]
}

@test "revoked key: key_revoked with the reason" {
	policy p.yaml 1
	printf 'revoked:\n  - key: %s\n    reason: laptop lost\n' "$(sed -n 2p alice.pub)" >>p.yaml
	sign -s alice.key r.tar.gz
	run "$PACKSIGN" verify r.tar.gz --trust p.yaml
	echo "$output"
	[ "$status" -eq 1 ]
	[[ "$output" == *"laptop lost"*"[key_revoked]" ]]
}

@test "expired and not yet valid keys, judged at --at" {
	policy p.yaml 1 "        not_before: 2026-01-01T00:00:00Z
        not_after: 2026-12-31T23:59:59Z"
	sign -s alice.key r.tar.gz
	run "$PACKSIGN" verify r.tar.gz --trust p.yaml --at 2026-06-01T00:00:00Z
	[ "$status" -eq 0 ]
	run "$PACKSIGN" verify r.tar.gz --trust p.yaml --at 2027-01-01T00:00:00Z
	echo "$output"
	[ "$status" -eq 1 ]
	[[ "$output" == *"[key_expired]" ]]
	run "$PACKSIGN" verify r.tar.gz --trust p.yaml --at 2025-01-01T00:00:00Z
	[ "$status" -eq 1 ]
	[[ "$output" == *"[key_not_yet_valid]" ]]
	run "$PACKSIGN" verify r.tar.gz --trust p.yaml --at yesterday
	[ "$status" -eq 2 ]
}

@test "an index-only identity's signature does not count for a pack: role_missing" {
	policy p.yaml 1 "    roles: [index]
    min_index_version: 3"
	sign -s alice.key r.tar.gz
	run "$PACKSIGN" verify r.tar.gz --trust p.yaml
	echo "$output"
	[ "$status" -eq 1 ]
	[[ "$output" == *"signature 1 by alice did not count: key "*"($(fp alice.pub)) belongs to 'alice', whose roles are [index]: it may not sign packs: expected threshold 1, found 0 [role_missing]" ]]
	# The refusal's code ends its line once (issue 26: it was printed
	# twice, after the signature's reason and at the end).
	[ "$(grep -o '\[role_missing\]' <<<"$output" | wc -l)" -eq 1 ]
	run "$PACKSIGN" verify r.tar.gz --trust p.yaml --json
	[ "$status" -eq 1 ]
	[ "$(echo "$output" | jq -r '.. | objects | select(has("counted")) | "\(.counted) \(.code)"' | head -1)" = "false role_missing" ]
	# bob (roles absent: [pack]) counts; alice's signature still does not
	sign -s bob.key --append r.tar.gz
	run "$PACKSIGN" verify r.tar.gz --trust p.yaml --json
	echo "$output"
	[ "$status" -eq 0 ]
	[ "$(echo "$output" | jq -r '[.. | objects | select(has("counted")) | "\(.counted) \(.code)"] | join(",")')" = "false role_missing,true null" ]
	policy p.yaml 1 "    roles: [pack, index]"
	run "$PACKSIGN" verify r.tar.gz --trust p.yaml
	[ "$status" -eq 0 ]
}

@test "a pack outside the signer's scope: pack_out_of_scope" {
	policy p.yaml 1 "" '"acme/*"'
	sign -s alice.key r.tar.gz
	run "$PACKSIGN" verify r.tar.gz --trust p.yaml
	echo "$output"
	[ "$status" -eq 1 ]
	[[ "$output" == *"acme/*"*"research.top-journal-reviewer"*"[pack_out_of_scope]" ]]
}

@test "threshold 2: one signature is not enough, two identities are" {
	policy p.yaml 2
	sign -s alice.key r.tar.gz
	run "$PACKSIGN" verify r.tar.gz --trust p.yaml
	echo "$output"
	[ "$status" -eq 1 ]
	[[ "$output" == *"expected threshold 2, found 1: alice [threshold_not_met]" ]]
	sign -s bob.key --append r.tar.gz
	run "$PACKSIGN" verify r.tar.gz --trust p.yaml
	echo "$output"
	[ "$status" -eq 0 ]
	[[ "$output" == *" by alice ($(fp alice.pub)), bob ($(fp bob.pub));"* ]]
}

@test "two keys of one identity count once" {
	"$PACKSIGN" keygen -o alice2 --identity alice --no-passphrase >/dev/null
	policy p.yaml 2 "      - key: $(sed -n 2p alice2.pub)"
	sign -s alice.key r.tar.gz
	sign -s alice2.key --append r.tar.gz
	run "$PACKSIGN" verify r.tar.gz --trust p.yaml
	[ "$status" -eq 1 ]
	[[ "$output" == *"found 1: alice [threshold_not_met]" ]]
}

@test "signed_by: a signer not listed is refused; identity or fingerprint accepted" {
	d=$(copy_pack $AGENTPACK)
	printf 'signed_by:\n  - bob\n' >>"$d/manifest.yml"
	"$PACKSIGN" pack "$d" -o sb.tar >/dev/null
	sign -s alice.key sb.tar
	run "$PACKSIGN" verify sb.tar -p alice.pub
	echo "$output"
	[ "$status" -eq 1 ]
	[[ "$output" == *"neither alice nor $(fp alice.pub) is in the manifest's signed_by: expected one of bob"*"[signed_by_mismatch]" ]]
	printf '  - %s\n' "$(fp alice.pub)" >>"$d/manifest.yml"
	"$PACKSIGN" pack "$d" -o sb2.tar >/dev/null
	sign -s alice.key sb2.tar
	run "$PACKSIGN" verify sb2.tar -p alice.pub
	[ "$status" -eq 0 ]
}

@test "--signed-by demands an identity among the counted ones" {
	sign -s alice.key r.tar.gz
	run "$PACKSIGN" verify r.tar.gz -p alice.pub --signed-by alice
	[ "$status" -eq 0 ]
	run "$PACKSIGN" verify r.tar.gz -p alice.pub --signed-by bob
	[ "$status" -eq 1 ]
	[[ "$output" == *"expected bob, found 1: alice [signer_missing]" ]]
}

@test "statements wrong on purpose are refused with their own codes" {
	zero=$(printf '0%.0s' $(seq 64))
	check() { # CODE SIGNER-ARGS...
		local code=$1; shift
		sign -s alice.key "$@" r.tar.gz
		run "$PACKSIGN" verify r.tar.gz -p alice.pub $deep
		echo "$code: $output"
		[ "$status" -eq 1 ]
		[[ "$output" == *"[$code]" ]]
	}
	check subject_mismatch --set "subject.0.digest.sha256=\"$zero\""
	check subject_missing --set 'subject.0.name="x.tar.gz"' --set "subject.1={\"name\":\"y.tar.gz\",\"digest\":{\"sha256\":\"$zero\"}}"
	check tar_digest_mismatch --set "predicate.tarDigest.sha256=\"$zero\""
	# The tree digest is recomputed with --deep only (the archive's bytes
	# are already authenticated by the subject digest).
	deep=--deep check tree_digest_mismatch --set "predicate.treeDigest.sha256=\"$zero\""
	sign -s alice.key --set "predicate.treeDigest.sha256=\"$zero\"" r.tar.gz
	run "$PACKSIGN" verify r.tar.gz -p alice.pub
	[ "$status" -eq 0 ]
	check manifest_digest_mismatch --set "predicate.manifest.digest.sha256=\"$zero\""
	check prompt_digest_mismatch --set "predicate.prompts.0.digest.sha256=\"$zero\""
	check prompt_unsigned --delete predicate.prompts.0
	check pack_mismatch --set 'predicate.pack.version="9.9.9"'
	check predicate_type_unknown --set 'predicateType="https://example.com/other/v1"'
	check tar_digest_mismatch --delete predicate.tarDigest
	check statement_invalid --set 'predicate.surprise=1'
	check payload_type_unknown --payload-type text/plain
	# a branch name where the commit goes
	check statement_invalid --source-commit $C1 --set 'predicate.source.digest.gitCommit="main"'
}

@test "a non-canonical tar is refused when its predicate says packsign built it" {
	mkdir x && tar -C "$EXAMPLES/$AGENTPACK" -cf x/n.tar .
	sign -s alice.key x/n.tar
	run "$PACKSIGN" verify x/n.tar -p alice.pub
	echo "$output"
	[ "$status" -eq 1 ]
	[[ "$output" == *"[not_canonical]" ]]
}

@test "source: commit and repository must match the options; a branch name is refused" {
	sign -s alice.key --source-repo https://github.com/org/repo --source-commit $C1 r.tar.gz
	run "$PACKSIGN" verify r.tar.gz -p alice.pub --source-commit $C1 \
	    --source-repo git@github.com:org/repo.git
	[ "$status" -eq 0 ]
	run "$PACKSIGN" verify r.tar.gz -p alice.pub --source-commit $C2
	[ "$status" -eq 1 ]
	[[ "$output" == *"expected $C2, found $C1 [source_commit_mismatch]" ]]
	run "$PACKSIGN" verify r.tar.gz -p alice.pub --source-repo https://github.com/org/other
	[ "$status" -eq 1 ]
	[[ "$output" == *"expected https://github.com/org/other, found https://github.com/org/repo [source_repo_mismatch]" ]]
	run "$PACKSIGN" verify r.tar.gz -p alice.pub --source-commit main
	[ "$status" -eq 2 ]
	[[ "$output" == *"found main [source_commit_invalid]" ]]
	run "$PACKSIGN" verify r.tar.gz -p alice.pub --source-repo /srv/repo
	[ "$status" -eq 2 ]
	[[ "$output" == *"[source_repo_invalid]" ]]
	[ "$(grep -o '\[[a-z_]*\]' <<<"$output")" = "[source_repo_invalid]" ]
}

@test "source: missing when required or asked for" {
	sign -s alice.key r.tar.gz
	run "$PACKSIGN" verify r.tar.gz -p alice.pub --source-commit $C1
	[ "$status" -eq 1 ]
	[[ "$output" == *"--source-commit asks for the source"*"[source_missing]" ]]
	"$PACKSIGN" pack "$EXAMPLES/holon-pdf-profile" -o h.tar >/dev/null
	sign -s alice.key h.tar
	run "$PACKSIGN" verify h.tar -p alice.pub
	[ "$status" -eq 1 ]
	[[ "$output" == *"the manifest's source asks"*"[source_missing]" ]]
}

@test "holon: source.ref and source.repository must match the recorded source" {
	"$PACKSIGN" pack "$EXAMPLES/holon-pdf-profile" -o h.tar >/dev/null
	sign -s alice.key --source-repo "$HOLON_REPO" --source-commit $C1 h.tar
	run "$PACKSIGN" verify h.tar -p alice.pub
	[ "$status" -eq 1 ]
	[[ "$output" == *"expected $C1, found $HOLON_REF [source_ref_mismatch]" ]]
	sign -s alice.key --source-repo "$HOLON_REPO" --source-commit $C1 --manifest-ref $HOLON_REF h.tar
	run "$PACKSIGN" verify h.tar -p alice.pub
	[ "$status" -eq 0 ]
	sign -s alice.key --source-repo https://github.com/evil/fork --source-commit $HOLON_REF h.tar
	run "$PACKSIGN" verify h.tar -p alice.pub
	[ "$status" -eq 1 ]
	[[ "$output" == *"[source_repo_mismatch]" ]]
}

@test "a dirty source is refused unless --allow-dirty" {
	sign -s alice.key --source-repo https://github.com/org/repo --source-commit $C1 --dirty r.tar.gz
	run "$PACKSIGN" verify r.tar.gz -p alice.pub
	[ "$status" -eq 1 ]
	[[ "$output" == *"expected a clean source, found dirty: true [source_dirty]" ]]
	run "$PACKSIGN" verify r.tar.gz -p alice.pub --allow-dirty
	[ "$status" -eq 0 ]
	[[ "$output" == *"@ $C1 (dirty); "* ]]
}

@test "--rebuild-from: the tar rebuilt from the recorded commit must match" {
	git init -q repo
	mkdir -p repo/packs
	cp -R "$EXAMPLES/$AGENTPACK" repo/packs/rev
	g() { git -C repo -c user.name=t -c user.email=t@example.com "$@"; }
	g add -A && g commit -qm one
	c1=$(g rev-parse HEAD)
	"$PACKSIGN" pack repo/packs/rev -o g.tar.gz >/dev/null
	sign -s alice.key --source-repo https://github.com/org/repo --source-commit "$c1" --source-path packs/rev g.tar.gz
	run "$PACKSIGN" verify g.tar.gz -p alice.pub --rebuild-from repo --json
	[ "$status" -eq 0 ]
	[[ "$output" == *'"rebuild": true'* ]]
	echo changed >>repo/packs/rev/README.md
	g commit -qam two
	"$PACKSIGN" pack repo/packs/rev -o g2.tar.gz >/dev/null
	sign -s alice.key --source-repo https://github.com/org/repo --source-commit "$c1" --source-path packs/rev g2.tar.gz
	run "$PACKSIGN" verify g2.tar.gz -p alice.pub --rebuild-from repo
	echo "$output"
	[ "$status" -eq 1 ]
	[[ "$output" == *"rebuilt the canonical tar from commit $c1 at 'packs/rev'"*"[rebuild_mismatch]" ]]
}

@test "verify DIR --sig: tree and prompt digests, and says the subject is not checked" {
	sign -s alice.key r.tar.gz
	mkdir d && tar -C d -xzf r.tar.gz
	run "$PACKSIGN" verify d --sig r.tar.gz.sig -p alice.pub
	echo "$output"
	[ "$status" -eq 0 ]
	[[ "$output" == *"4 prompt files verified; directory: tree and prompt digests checked, the archive's own digest cannot be" ]]
	echo more >>d/README.md
	run "$PACKSIGN" verify d --sig r.tar.gz.sig -p alice.pub
	[ "$status" -eq 1 ]
	[[ "$output" == *"[tree_digest_mismatch]" ]]
	echo more >>d/prompts/review.md
	run "$PACKSIGN" verify d --sig r.tar.gz.sig -p alice.pub
	[ "$status" -eq 1 ]
	[[ "$output" == *"prompts/review.md: compared the prompt file's SHA-256"*"[prompt_digest_mismatch]" ]]
}

@test "several archives: one line each, an overall line, exit 1 if any failed" {
	"$PACKSIGN" pack "$EXAMPLES/soyapack-research-summarizer" -o s.tar.gz >/dev/null
	cp r.tar.gz bad.tar.gz
	sign -s alice.key r.tar.gz
	sign -s alice.key s.tar.gz
	sign -s bob.key bad.tar.gz
	run "$PACKSIGN" verify r.tar.gz s.tar.gz -p alice.pub
	[ "$status" -eq 0 ]
	[ "${#lines[@]}" -eq 3 ]
	[ "${lines[2]}" = "All good: 2 of 2 verified" ]
	run "$PACKSIGN" verify r.tar.gz bad.tar.gz s.tar.gz -p alice.pub
	[ "$status" -eq 1 ]
	[[ "$output" == *"[signature_untrusted]"* ]]
	[[ "$output" == *"FAILED: 2 of 3 verified" ]]
	run "$PACKSIGN" verify r.tar.gz s.tar.gz --sig r.tar.gz.sig -p alice.pub
	[ "$status" -eq 2 ]
	[[ "$output" == *"[usage]"* ]]
}

@test "--json: the full report per archive" {
	sign -s alice.key --source-repo https://github.com/org/repo --source-commit $C1 r.tar.gz
	cp r.tar.gz t.tar.gz
	cp r.tar.gz.sig t.tar.gz.sig
	flip_byte t.tar.gz 200
	run "$PACKSIGN" verify r.tar.gz t.tar.gz -p alice.pub --json --deep
	[ "$status" -eq 1 ]
	for k in '"ok": false' '"verified": 1' '"total": 2' '"code": "subject_mismatch"' \
	    '"expected": "sha256:' '"identities"' '"fingerprint"' '"digests"' \
	    '"archive": "sha256:' '"tree": "sha256:' '"tar": "sha256:' '"commit": "'$C1'"' \
	    '"repository": "https://github.com/org/repo"' '"prompt_files": 4' '"signatures"' \
	    '"counted": true' '"checks"' '"subject": true'; do
		[[ "$output" == *"$k"* ]] || { echo "missing $k"; return 1; }
	done
}

@test "exit codes: missing signature 1, missing --sig file 2, bad policy 2, usage 2" {
	run "$PACKSIGN" verify r.tar.gz -p alice.pub
	[ "$status" -eq 1 ]
	[[ "$output" == *"[signature_missing]" ]]
	run "$PACKSIGN" verify r.tar.gz --sig nope.sig -p alice.pub
	[ "$status" -eq 2 ]
	[[ "$output" == *"[not_found]" ]]
	echo 'version: 2' >bad.yaml
	run "$PACKSIGN" verify r.tar.gz --trust bad.yaml
	[ "$status" -eq 2 ]
	run "$PACKSIGN" verify r.tar.gz
	[ "$status" -eq 2 ]
	run "$PACKSIGN" verify r.tar.gz -p alice.pub --trust bad.yaml
	[ "$status" -eq 2 ]
	run "$PACKSIGN" verify --help
	[ "$status" -eq 0 ]
	[[ "$output" == "usage: packsign verify ARCHIVE..."* ]]
}

@test "a PATH that does not exist is not_found, exit 2, before its signature is looked for" {
	# A pipeline branching on the exit status must not read a typo as a
	# refused (tampered or unsigned) pack.
	run "$PACKSIGN" verify typo.tar.gz -p alice.pub
	echo "$output"
	[ "$status" -eq 2 ]
	[ "$output" = "packsign: typo.tar.gz: stat: No such file or directory [not_found]" ]
	run "$PACKSIGN" verify typo.tar.gz -p alice.pub --json
	[ "$status" -eq 2 ]
	echo "$output" | jq -e '.results[0] | .code == "not_found" and .exit == 2'
	# also beside a good one, and in a list: 2 wins over nothing refused
	sign -s alice.key r.tar.gz
	run "$PACKSIGN" verify r.tar.gz typo.tar.gz -p alice.pub
	[ "$status" -eq 2 ]
	[[ "$output" == *"typo.tar.gz: stat: No such file or directory [not_found]"* ]]
	printf 'r.tar.gz\ntypo.tar.gz\n' >list
	run "$PACKSIGN" verify --files-from list -p alice.pub
	[ "$status" -eq 2 ]
	[[ "$output" == *"[not_found]"* ]]
	# a directory that does not exist, with --sig: the same
	run "$PACKSIGN" verify nodir --sig r.tar.gz.sig -p alice.pub
	[ "$status" -eq 2 ]
	[[ "$output" == *"nodir: stat: No such file or directory [not_found]" ]]
}

@test "names from the input are printed with control characters escaped" {
	cp r.tar.gz "$(printf 'e\033[31m.tar.gz')"
	run "$PACKSIGN" verify "$(printf 'e\033[31m.tar.gz')" -p alice.pub
	[ "$status" -eq 1 ]
	[[ "$output" == *'e\x1b[31m.tar.gz'* ]]
	[[ "$output" != *$'\033'* ]]
}

@test "a name that is not UTF-8 is printed with its bytes escaped, UTF-8 as it is" {
	cp r.tar.gz "$(printf 'n\377\303.tar.gz')"
	run "$PACKSIGN" verify "$(printf 'n\377\303.tar.gz')" -p alice.pub
	echo "$output"
	[ "$status" -eq 1 ]
	[[ "$output" == *'n\xff\xc3.tar.gz'* ]]
	[[ "$output" != *$'\377'* ]]
	[[ "$output" != *$'\303'* ]]
	# A well-formed character is not escaped; a surrogate (ED A0 80) and an
	# overlong form (C0 AF) are not UTF-8.
	cp r.tar.gz "été.tar.gz"
	run "$PACKSIGN" verify "été.tar.gz" -p alice.pub
	[[ "$output" == *"été.tar.gz"* ]]
	cp r.tar.gz "$(printf 's\355\240\200\300\257.tar.gz')"
	run "$PACKSIGN" verify "$(printf 's\355\240\200\300\257.tar.gz')" -p alice.pub
	[[ "$output" == *'s\xed\xa0\x80\xc0\xaf.tar.gz'* ]]
}

@test "--json keeps a report for a name that is not UTF-8" {
	cp r.tar.gz "$(printf 'n\377.tar.gz')"
	run "$PACKSIGN" verify "$(printf 'n\377.tar.gz')" -p alice.pub --json
	[ "$status" -eq 1 ]
	[[ "$output" == *'"path": "n?.tar.gz"'* ]]
	[[ "$output" == *'"code": "signature_missing"'* ]]
}

@test "a zip: safety rules and digests, no tar digest, no canonical rules" {
	mkdir z && (cd "$EXAMPLES/$AGENTPACK" && zip -qr "$BATS_TEST_TMPDIR/z/p.zip" .)
	sign -s alice.key z/p.zip
	run "$PACKSIGN" verify z/p.zip -p alice.pub --json
	echo "$output"
	[ "$status" -eq 0 ]
	[[ "$output" == *'"tar": null'* ]]
	[[ "$output" == *'"canonical": false'* ]]
	flip_byte z/p.zip 100
	run "$PACKSIGN" verify z/p.zip -p alice.pub
	[ "$status" -eq 1 ]
	[[ "$output" == *"[subject_mismatch]" ]]
}

@test "--rebuild-from also checks a holon manifestRef in the repository" {
	git init -q repo
	mkdir -p repo/packs
	cp -R "$EXAMPLES/holon-pdf-profile" repo/packs/h
	g() { git -C repo -c user.name=t -c user.email=t@example.com "$@"; }
	g add -A && g commit -qm one
	a=$(g rev-parse HEAD)
	sed -i "s/^  ref: .*/  ref: $a/" repo/packs/h/holon.yaml
	g commit -qam "manifest names its source"
	b=$(g rev-parse HEAD)
	"$PACKSIGN" pack repo/packs/h -o h.tar >/dev/null
	sign -s alice.key --source-repo "$HOLON_REPO" --source-commit "$b" --source-path packs/h --manifest-ref "$a" h.tar
	run "$PACKSIGN" verify h.tar -p alice.pub --rebuild-from repo
	echo "$output"
	[ "$status" -eq 0 ]
	[[ "$output" == *" from $HOLON_REPO @ $b; "* ]]
	run "$PACKSIGN" verify h.tar -p alice.pub --json
	[ "$(echo "$output" | jq -r '.results[0].source.manifest_ref')" = "$a" ]
	echo "# changed" >>repo/packs/h/src/server.py
	g commit -qam "code changed too"
	c=$(g rev-parse HEAD)
	"$PACKSIGN" pack repo/packs/h -o h2.tar >/dev/null
	sign -s alice.key --source-repo "$HOLON_REPO" --source-commit "$c" --source-path packs/h --manifest-ref "$a" h2.tar
	run "$PACKSIGN" verify h2.tar -p alice.pub
	[ "$status" -eq 0 ]
	run "$PACKSIGN" verify h2.tar -p alice.pub --rebuild-from repo
	echo "$output"
	[ "$status" -eq 1 ]
	[[ "$output" == *"[holon_ref_changed]" ]]
}

# hostile_pack DIR: a copy of the example AgentPack whose agent configs name
# paths outside the pack (what a packsign older than agentpack_config_path
# could sign).
hostile_pack() {
	cp -R "$EXAMPLES/$AGENTPACK" "$1"
	chmod -R u+w "$1"
	sed -i 's|^system_prompt: .*|system_prompt: /etc/shadow|' "$1/agents/checklist.yml"
	printf 'tools:\n  - script_file: ../x\n' >>"$1/agents/reviewer.yml"
}

@test "verify: a signed pack whose agent config leaves it verifies, with warnings [agentpack_config_path]" {
	hostile_pack hp
	# packsign sign refuses it; an older packsign did not: sign the packed
	# archive with the test signer instead.
	run "$PACKSIGN" sign hp -s alice.key -o refused.tar.gz
	[ "$status" -eq 1 ]
	[ ! -e refused.tar.gz.sig ]
	"$PACKSIGN" pack hp -o h.tar.gz >/dev/null
	sign -s alice.key h.tar.gz
	run --separate-stderr "$PACKSIGN" verify h.tar.gz -p alice.pub
	echo "$output"; echo "$stderr"
	[ "$status" -eq 0 ]
	[[ "$output" == "Good signature: research.top-journal-reviewer 0.1.0 by alice"* ]]
	[ "${#stderr_lines[@]}" -eq 2 ]
	[ "${stderr_lines[0]}" = "packsign: warning: h.tar.gz/agents/checklist.yml:3:16: system_prompt is a path: expected a relative path inside the pack, found the absolute path '/etc/shadow'; a warning as the pack is already signed (packsign sign refuses it) [agentpack_config_path]" ]
	[[ "${stderr_lines[1]}" == "packsign: warning: h.tar.gz/agents/reviewer.yml:7:18: script_file is a path: expected a relative path inside the pack, found '../x' "*" [agentpack_config_path]" ]]
	# --json: the same warnings in the result, nothing on stderr.
	run --separate-stderr "$PACKSIGN" verify h.tar.gz -p alice.pub --json
	[ "$status" -eq 0 ]
	[ -z "$stderr" ]
	python3 -c '
import json, sys
r = json.loads(sys.argv[1])["results"][0]
assert r["ok"] is True
w = [(x["file"], x["line"], x["column"], x["severity"], x["code"]) for x in r["warnings"]]
assert w == [("agents/checklist.yml", 3, 16, "warning", "agentpack_config_path"),
             ("agents/reviewer.yml", 7, 18, "warning", "agentpack_config_path")], w
assert "/etc/shadow" in r["warnings"][0]["message"]
' "$output"
	# A pack without findings has an empty list and no warning line.
	sign -s alice.key r.tar.gz
	run --separate-stderr "$PACKSIGN" verify r.tar.gz -p alice.pub --json
	[ "$status" -eq 0 ]
	python3 -c 'import json, sys; assert json.loads(sys.argv[1])["results"][0]["warnings"] == []' "$output"
	run --separate-stderr "$PACKSIGN" verify r.tar.gz -p alice.pub
	[ "$status" -eq 0 ]
	[ -z "$stderr" ]
}

@test "verify: a signed autograph pack whose compose file Compose refuses verifies, with warnings [autograph_compose_invalid]" {
	cp -R "$EXAMPLES/autograph.pkg.research" ag
	chmod -R u+w ag
	printf 'services:\n  web:\n    privileged: maybe\n' >ag/infra/compose.yaml
	run "$PACKSIGN" sign ag -s alice.key -o refused.tar.gz
	[ "$status" -eq 1 ]
	"$PACKSIGN" pack ag -o a.tar.gz >/dev/null
	sign -s alice.key a.tar.gz
	run --separate-stderr "$PACKSIGN" verify a.tar.gz -p alice.pub
	echo "$output"; echo "$stderr"
	[ "$status" -eq 0 ]
	[ "${#stderr_lines[@]}" -eq 1 ]
	[ "${stderr_lines[0]}" = "packsign: warning: a.tar.gz/infra/compose.yaml:3:17: service 'web': 'privileged' must be true or false, found string 'maybe'; counted as true; a warning as the pack is already signed (packsign sign refuses it) [autograph_compose_invalid]" ]
	run --separate-stderr "$PACKSIGN" verify a.tar.gz -p alice.pub --json
	[ "$status" -eq 0 ]
	python3 -c '
import json, sys
w = json.loads(sys.argv[1])["results"][0]["warnings"]
assert [(x["file"], x["line"], x["code"]) for x in w] == [("infra/compose.yaml", 3, "autograph_compose_invalid")], w
' "$output"
}

@test "verify: warnings come before a later refusal, which stays the last line" {
	hostile_pack hp
	sed -i 's/^id: .*/&\nsigned_by: [bob]/' hp/manifest.yml
	"$PACKSIGN" pack hp -o h.tar.gz >/dev/null
	sign -s alice.key h.tar.gz
	run "$PACKSIGN" verify h.tar.gz -p alice.pub
	echo "$output"
	[ "$status" -eq 1 ]
	[[ "${lines[0]}" == "packsign: warning: h.tar.gz/agents/checklist.yml:3:16: "*"[agentpack_config_path]" ]]
	[[ "${lines[-1]}" == *"[signed_by_mismatch]" ]]
}

@test "verify ARCHIVE.sig says to give the archive, not its .sig [archive_is_signature]" {
	sign -s alice.key r.tar.gz
	run "$PACKSIGN" verify r.tar.gz.sig -p alice.pub
	echo "$output"
	[ "$status" -eq 2 ]
	[ "$output" = "packsign: r.tar.gz.sig: is a signature file, not an archive: give the archive, not its .sig (r.tar.gz; its .sig is read beside it): expected an archive (.tar, .tar.gz, .tgz, .tar.zst or .zip) or a pack directory, found a signature file [archive_is_signature]" ]
	# As a shell glob gives them: the archive verifies, its .sig is named.
	run "$PACKSIGN" verify r.tar.gz* -p alice.pub
	[ "$status" -eq 2 ]
	[[ "$output" == *"Good signature: "* ]]
	[[ "$output" == *"r.tar.gz.sig: is a signature file"*"[archive_is_signature]"* ]]
	run "$PACKSIGN" install r.tar.gz.sig -p alice.pub --data-dir d --yes
	[ "$status" -eq 2 ]
	[[ "$output" == *"give the archive, not its .sig (r.tar.gz;"*"[archive_is_signature]" ]]
	[ ! -e d/agentpacks ]
	# A directory of such a name is an unpacked pack, verified as one.
	cp -R "$EXAMPLES/$AGENTPACK" p.sig
	run "$PACKSIGN" verify p.sig --sig r.tar.gz.sig -p alice.pub
	[[ "$output" != *"[archive_is_signature]"* ]]
}
