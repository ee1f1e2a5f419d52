#!/usr/bin/env bats
# The two halves together: packsign sign in release CI, packsign verify in
# the installer, for every format and container.

load helpers

setup() {
	cd "$BATS_TEST_TMPDIR"
	# Sign copies: inside this repository's work tree, sign would record
	# (and check) its git provenance, whose origin a CI clone may not have.
	cp -R "$EXAMPLES" packs
	chmod -R u+w packs
	EXAMPLES=$BATS_TEST_TMPDIR/packs
	"$PACKSIGN" keygen -o alice --identity alice --no-passphrase >/dev/null
	"$PACKSIGN" keygen -o bob --identity bob --no-passphrase >/dev/null
	cat > trust.yaml <<YAML
version: 1
signers:
  - identity: alice
    keys:
      - key: $(sed -n 2p alice.pub)
    packs: ["*"]
  - identity: bob
    keys:
      - key: $(sed -n 2p bob.pub)
    packs: ["*"]
threshold: 1
YAML
	sed 's/^threshold: 1/threshold: 2/' trust.yaml > trust2.yaml
}

@test "roundtrip: every example pack, signed from its directory, verifies" {
	for p in "$EXAMPLES"/*; do
		n=$(basename "$p")
		mkdir "$n.out" && cd "$n.out"
		repo=https://github.com/acme/packs
		commit=0123456789abcdef0123456789abcdef01234567
		if [ -f "$p/holon.yaml" ]; then   # holon names its own source
			repo=$(sed -n 's/^ *repository: *//p' "$p/holon.yaml")
			commit=$(sed -n 's/^ *ref: *//p' "$p/holon.yaml")
		fi
		run "$PACKSIGN" sign "$p" -s ../alice.key --source-commit "$commit" \
		    --source-repo "$repo"
		echo "$output"
		[ "$status" -eq 0 ]
		archive=$(ls *.tar.gz)
		run "$PACKSIGN" verify "$archive" --trust ../trust.yaml
		echo "$output"
		[ "$status" -eq 0 ]
		[[ "$output" == "Good signature: "*" by alice (SHA256:"*") from $repo @ $commit; "*" verified"* ]]
		run "$PACKSIGN" verify "$archive" -p ../alice.pub
		[ "$status" -eq 0 ]
		cd ..
	done
}

@test "roundtrip: the same pack and key give byte-identical archive and signature" {
	p=$(copy_pack "$AGENTPACK")
	mkdir a b
	(cd a && "$PACKSIGN" sign "$p" -s ../alice.key >/dev/null)
	(cd b && "$PACKSIGN" sign "$p" -s ../alice.key >/dev/null)
	cmp a/*.tar.gz b/*.tar.gz
	cmp a/*.tar.gz.sig b/*.tar.gz.sig
}

@test "roundtrip: a zip and an ordinary tar signed as they are verify" {
	(cd "$EXAMPLES/$AGENTPACK" && zip -qr "$BATS_TEST_TMPDIR/r.zip" .)
	tar -C "$EXAMPLES/$AGENTPACK" -cf gnu.tar .
	for a in r.zip gnu.tar; do
		"$PACKSIGN" sign "$a" -s alice.key >/dev/null
		run "$PACKSIGN" verify "$a" --trust trust.yaml
		echo "$output"
		[ "$status" -eq 0 ]
		[[ "$output" == *"no source recorded"* ]]
	done
}

@test "roundtrip: tampering with the archive or the signature is refused" {
	"$PACKSIGN" sign "$EXAMPLES/$AGENTPACK" -s alice.key -o r.tar >/dev/null
	cp r.tar bad.tar && cp r.tar.sig bad.tar.sig
	printf 'X' | dd of=bad.tar bs=1 seek=700 conv=notrunc 2>/dev/null
	run "$PACKSIGN" verify bad.tar --trust trust.yaml
	[ "$status" -eq 1 ]
	[[ "$output" == *"[subject_mismatch]"* ]]
	run "$PACKSIGN" verify r.tar --trust trust.yaml --signed-by bob
	[ "$status" -eq 1 ]
	"$PACKSIGN" sign "$EXAMPLES/soyapack-research-summarizer" -s alice.key -o s.tar >/dev/null
	run "$PACKSIGN" verify r.tar --sig s.tar.sig --trust trust.yaml
	[ "$status" -eq 1 ]
}

@test "roundtrip: co-signing the published archive reaches a threshold of two identities" {
	"$PACKSIGN" sign "$EXAMPLES/$AGENTPACK" -s alice.key -o r.tar.gz >/dev/null
	run "$PACKSIGN" verify r.tar.gz --trust trust2.yaml
	[ "$status" -eq 1 ]
	[[ "$output" == *"[threshold_not_met]"* ]]
	"$PACKSIGN" sign r.tar.gz -s bob.key --append >/dev/null
	run "$PACKSIGN" verify r.tar.gz --trust trust2.yaml
	echo "$output"
	[ "$status" -eq 0 ]
	[[ "$output" == *"alice"*"bob"* || "$output" == *"bob"*"alice"* ]]
}

@test "roundtrip: a pack signed inside git records and verifies its commit" {
	git init -q repo && cp -R "$EXAMPLES/$AGENTPACK" repo/pack
	git -C repo -c user.email=a@b -c user.name=a add -A
	git -C repo -c user.email=a@b -c user.name=a commit -qm pack
	git -C repo remote add origin git@github.com:acme/packs.git
	commit=$(git -C repo rev-parse HEAD)
	"$PACKSIGN" sign repo/pack -s alice.key -o r.tar.gz >/dev/null
	run "$PACKSIGN" verify r.tar.gz --trust trust.yaml --source-commit "$commit" \
	    --source-repo https://github.com/acme/packs --require-source --rebuild-from repo
	echo "$output"
	[ "$status" -eq 0 ]
	[[ "$output" == *"from https://github.com/acme/packs @ $commit"* ]]
	run "$PACKSIGN" verify r.tar.gz --trust trust.yaml --source-commit \
	    0000000000000000000000000000000000000000
	[ "$status" -eq 1 ]
	[[ "$output" == *"[source_commit_mismatch]"* ]]
}

@test "roundtrip: --minisig output verifies with minisign -Vm" {
	"$PACKSIGN" sign "$EXAMPLES/$AGENTPACK" -s alice.key -o r.tar.gz --minisig >/dev/null
	run minisign -Vm r.tar.gz -p alice.pub
	[ "$status" -eq 0 ]
	[[ "$output" == *"packsign pack research.top-journal-reviewer 0.1.0 sha256:"* ]]
}

@test "roundtrip: co-signing refuses a signature over another archive" {
	"$PACKSIGN" sign "$EXAMPLES/$AGENTPACK" -s alice.key -o r.tar.gz >/dev/null
	"$PACKSIGN" sign "$EXAMPLES/soyapack-research-summarizer" -s alice.key -o s.tar.gz >/dev/null
	cp s.tar.gz.sig r.tar.gz.sig
	run "$PACKSIGN" sign r.tar.gz -s bob.key --append
	[ "$status" -eq 1 ]
	[[ "$output" == *"[append_mismatch]"* ]]
}
