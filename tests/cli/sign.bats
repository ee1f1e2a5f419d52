#!/usr/bin/env bats
# packsign sign: archive + DSSE .sig, determinism, co-signing, refusals,
# git provenance, minisign interop, atomicity.

load helpers

setup() {
	cd "$BATS_TEST_TMPDIR"
	unset SOURCE_DATE_EPOCH PACKSIGN_SECRET_KEY PACKSIGN_PASSPHRASE
	"$PACKSIGN" keygen -o alice --no-passphrase --identity alice >/dev/null
	"$PACKSIGN" keygen -o bob --no-passphrase --identity bob >/dev/null
}

# check_sig SIG PUB INDEX: signature INDEX of the envelope SIG verifies
# under PUB with OpenSSL over DSSE's PAE; prints the decoded payload.
check_sig() {
	"$PACKSIGN" key export --pem-pub -p "$2" -o "$2.pem" >/dev/null 2>&1 ||
	    [ -f "$2.pem" ]
	python3 - "$1" "$3" <<'EOF'
import base64, json, sys
env = json.load(open(sys.argv[1]))
payload = base64.b64decode(env["payload"], validate=True)
t = env["payloadType"].encode()
pae = b"DSSEv1 %d %s %d %s" % (len(t), t, len(payload), payload)
open("pae.bin", "wb").write(pae)
open("sig.bin", "wb").write(base64.b64decode(env["signatures"][int(sys.argv[2])]["sig"]))
open("payload.json", "wb").write(payload)
EOF
	openssl pkeyutl -verify -pubin -inkey "$2.pem" -rawin -in pae.bin \
	    -sigfile sig.bin >/dev/null
}

# payload_field EXPR: a Python expression over the statement `s`.
payload_field() {
	python3 -c "import json; s=json.load(open('payload.json')); print($1)"
}

# repo_with NAME PACK: a git repository holding a copy of example PACK
# under packs/NAME, committed, with an https origin; prints its path.
repo_with() {
	local r="$BATS_TEST_TMPDIR/repo-$1"
	mkdir -p "$r/packs"
	cp -R "$EXAMPLES/$2" "$r/packs/$1"
	git -C "$r" init -q -b main
	git -C "$r" config user.email t@example.com
	git -C "$r" config user.name t
	git -C "$r" remote add origin git@github.com:Example/Packs.git
	git -C "$r" add -A
	git -C "$r" commit -q -m initial
	echo "$r"
}

@test "sign: each example pack outside git gives an archive and a verifying .sig" {
	for p in "$EXAMPLES"/*; do
		n=$(basename "$p")
		cp -R "$p" "pack-$n"
		extra=()
		if [ "$n" = holon-pdf-profile ]; then
			extra=(--source-repo https://github.com/acme/pdf-profile
			    --source-commit 3f5c2a9d8e7b6c5d4e3f2a1b0c9d8e7f6a5b4c3d)
		fi
		run "$PACKSIGN" sign "pack-$n" -s alice.key -o "$n.tar.gz" "${extra[@]}"
		[ "$status" -eq 0 ]
		[[ "$output" == *"Signed "*" as alice (SHA256:"* ]]
		check_sig "$n.tar.gz.sig" alice.pub 0
		[ "$(payload_field 's["subject"][0]["name"]')" = "$n.tar.gz" ]
		[ "$(payload_field 's["subject"][0]["digest"]["sha256"]')" = \
		    "$(sha256sum "$n.tar.gz" | cut -d' ' -f1)" ]
		[ "sha256:$(payload_field 's["predicate"]["treeDigest"]["sha256"]')" = \
		    "$(digest_field "pack-$n" tree_digest)" ]
		if [ "$n" = holon-pdf-profile ]; then
			[[ "$output" == *"source https://github.com/acme/pdf-profile @ 3f5c2a9d"* ]]
		else
			[[ "$output" == *"; no source recorded" ]]
			[ "$(payload_field '"source" in s["predicate"]')" = False ]
		fi
	done
}

@test "sign: default name, prompts with their digests, keyid is the fingerprint" {
	p=$(copy_pack "$AGENTPACK")
	run "$PACKSIGN" sign "$p" -s alice.key
	[ "$status" -eq 0 ]
	[ -f research.top-journal-reviewer-0.1.0.tar.gz ]
	check_sig research.top-journal-reviewer-0.1.0.tar.gz.sig alice.pub 0
	[ "$(payload_field 'len(s["predicate"]["prompts"])')" = 4 ]
	[ "$(payload_field 's["predicate"]["prompts"][3]["digest"]["sha256"]')" = \
	    "$(sha256sum "$p/prompts/review.md" | cut -d' ' -f1)" ]
	fp=$("$PACKSIGN" key show alice.pub | sed -n 's/^fingerprint: //p')
	python3 -c "import json,sys; e=json.load(open(sys.argv[1])); assert e['signatures'][0]['keyid']==sys.argv[2]" \
	    research.top-journal-reviewer-0.1.0.tar.gz.sig "$fp"
}

@test "sign: deterministic across runs, working directories and SOURCE_DATE_EPOCH" {
	p=$(copy_pack "$AGENTPACK")
	mkdir one two
	(cd one && "$PACKSIGN" sign "$p" -s ../alice.key >/dev/null)
	(cd two && "$PACKSIGN" sign ../"$AGENTPACK" -s "$BATS_TEST_TMPDIR/alice.key" >/dev/null)
	cmp one/research.top-journal-reviewer-0.1.0.tar.gz two/research.top-journal-reviewer-0.1.0.tar.gz
	cmp one/research.top-journal-reviewer-0.1.0.tar.gz.sig two/research.top-journal-reviewer-0.1.0.tar.gz.sig
	mkdir e1 e2
	(cd e1 && SOURCE_DATE_EPOCH=1700000000 "$PACKSIGN" sign "$p" -s ../alice.key >/dev/null)
	(cd e2 && "$PACKSIGN" sign "$p" -s ../alice.key --mtime 1700000000 >/dev/null)
	cmp e1/research.top-journal-reviewer-0.1.0.tar.gz.sig e2/research.top-journal-reviewer-0.1.0.tar.gz.sig
	! cmp -s e1/research.top-journal-reviewer-0.1.0.tar.gz.sig one/research.top-journal-reviewer-0.1.0.tar.gz.sig
	check_sig e1/research.top-journal-reviewer-0.1.0.tar.gz.sig alice.pub 0
	[ "$(payload_field 's["predicate"]["build"]["mtime"]')" = 1700000000 ]
}

@test "sign: an existing .sig is not replaced without --append or --force" {
	p=$(copy_pack "$AGENTPACK")
	"$PACKSIGN" sign "$p" -s alice.key -o a.tar >/dev/null
	cp a.tar.sig before.sig
	run "$PACKSIGN" sign "$p" -s bob.key -o a.tar
	[ "$status" -eq 2 ]
	[[ "$output" == *"[output_exists]"* ]]
	cmp a.tar.sig before.sig
	run "$PACKSIGN" sign "$p" -s bob.key -o a.tar --force
	[ "$status" -eq 0 ]
	check_sig a.tar.sig bob.pub 0
}

@test "sign: --append co-signs the same statement; the same key twice is refused" {
	p=$(copy_pack "$AGENTPACK")
	"$PACKSIGN" sign "$p" -s alice.key -o a.tar.gz >/dev/null
	cp a.tar.gz.sig one.sig
	run "$PACKSIGN" sign "$p" -s bob.key -o a.tar.gz --append
	[ "$status" -eq 0 ]
	[[ "$output" == *"(2 signatures)"* ]]
	check_sig a.tar.gz.sig alice.pub 0
	check_sig a.tar.gz.sig bob.pub 1
	python3 -c "import json,sys; a,b=(json.load(open(f)) for f in sys.argv[1:]); assert a['payload']==b['payload']" one.sig a.tar.gz.sig
	cp a.tar.gz.sig two.sig
	run "$PACKSIGN" sign "$p" -s alice.key -o a.tar.gz --append
	[ "$status" -eq 1 ]
	[[ "$output" == *"[already_signed]"* ]]
	cmp a.tar.gz.sig two.sig
}

@test "sign: a key from PACKSIGN_SECRET_KEY has no identity: signed_by_mismatch names --identity, which signs" {
	p=$(copy_pack "$AGENTPACK")
	printf 'signed_by: [acme-release]\n' >>"$p/manifest.yml"
	"$PACKSIGN" keygen -o release --identity acme-release --no-passphrase >/dev/null
	# docs/pipelines.md's release job: the key's text from a CI secret
	PACKSIGN_SECRET_KEY=$(cat release.key) run "$PACKSIGN" sign "$p" -o a.tar.gz
	echo "$output"
	[ "$status" -eq 1 ]
	[[ "$output" == "packsign: manifest.yml: the signing key has no identity (a key given as text, from PACKSIGN_SECRET_KEY or standard input, carries none) and signed_by does not name its fingerprint: sign with --identity acme-release: expected acme-release, found no identity (SHA256:"*") [signed_by_mismatch]" ]]
	[ ! -e a.tar.gz ]
	PACKSIGN_SECRET_KEY=$(cat release.key) run "$PACKSIGN" sign "$p" -o a.tar.gz \
	    --identity acme-release
	[ "$status" -eq 0 ]
	[[ "$output" == *"Signed research.top-journal-reviewer 0.1.0 as acme-release (SHA256:"* ]]
	# NAME.key without its NAME.pub: that is said, with both ways out.
	mkdir elsewhere && cp release.key elsewhere/
	run "$PACKSIGN" sign "$p" -s elsewhere/release.key -o b.tar.gz
	[ "$status" -eq 1 ]
	[[ "$output" == *"has no identity (no elsewhere/release.pub beside it)"*"sign with --identity acme-release, or keep the key's .pub beside it"*"[signed_by_mismatch]" ]]
}

@test "sign: --append refuses a statement other than this run's, and needs a .sig" {
	p=$(copy_pack "$AGENTPACK")
	"$PACKSIGN" sign "$p" -s alice.key -o a.tar.gz >/dev/null
	cp a.tar.gz.sig before.sig
	run "$PACKSIGN" sign "$p" -s bob.key -o a.tar.gz --append --mtime 5
	[ "$status" -eq 1 ]
	[[ "$output" == *"[append_mismatch]"* ]]
	cmp a.tar.gz.sig before.sig
	run "$PACKSIGN" sign "$p" -s bob.key -o b.tar.gz --append
	[ "$status" -eq 2 ]
	[[ "$output" == *"[sig_missing]"* ]]
	[ ! -e b.tar.gz ]
}

@test "sign: signed_by mismatch is refused before anything is written" {
	p=$(copy_pack "$AGENTPACK")
	printf 'signed_by:\n  - carol\n  - dave@example.com\n' >> "$p/manifest.yml"
	mkdir out && cd out
	run "$PACKSIGN" sign "$p" -s ../bob.key
	[ "$status" -eq 1 ]
	[[ "$output" == *"[signed_by_mismatch]"* ]]
	[[ "$output" == *"expected carol, dave@example.com, found identity bob (SHA256:"* ]]
	[ -z "$(ls -A .)" ]
}

@test "sign: signed_by accepts the identity, --identity, or the key fingerprint" {
	p=$(copy_pack "$AGENTPACK")
	fp=$("$PACKSIGN" key show bob.pub | sed -n 's/^fingerprint: //p')
	printf 'signed_by:\n  - alice\n  - %s\n' "$fp" >> "$p/manifest.yml"
	run "$PACKSIGN" sign "$p" -s alice.key -o a.tar
	[ "$status" -eq 0 ]
	run "$PACKSIGN" sign "$p" -s bob.key -o b.tar
	[ "$status" -eq 0 ]
	[[ "$output" == *"as bob ($fp)"* ]]
	# -s - has no NAME.pub beside it: --identity names the signer.
	run "$PACKSIGN" sign "$p" -s - -o c.tar < alice.key
	[ "$status" -eq 1 ]
	[[ "$output" == *"found no identity (SHA256:"* ]]
	run "$PACKSIGN" sign "$p" -s - -o c.tar --identity alice < alice.key
	[ "$status" -eq 0 ]
}

@test "sign: a NAME.pub beside NAME.key that is another key's is an error" {
	p=$(copy_pack "$AGENTPACK")
	cp bob.pub alice.pub
	run "$PACKSIGN" sign "$p" -s alice.key -o a.tar
	[ "$status" -eq 2 ]
	[[ "$output" == *"[key_pair_mismatch]"* ]]
	[ ! -e a.tar ] && [ ! -e a.tar.sig ]
}

@test "sign: an invalid manifest is refused with every diagnostic, nothing written" {
	p=$(copy_pack "$AGENTPACK")
	sed -i 's/^version: .*/version: not-a-version/' "$p/manifest.yml"
	run "$PACKSIGN" sign "$p" -s alice.key -o a.tar
	[ "$status" -eq 1 ]
	[[ "$output" == *"manifest.yml:"*"error:"* ]]
	[[ "$output" == *"[manifest_invalid]"* ]]
	[ ! -e a.tar ] && [ ! -e a.tar.sig ]
	no_temp_files .
}

@test "sign: a declared prompt that is not a file of the pack is the validator's finding" {
	# There is no signing code for it (prompt_missing was one): the
	# validator sees the view that is packed and reports it first.
	local what
	for what in ignored directory absent; do
		rm -rf p p.zip
		cp -R "$EXAMPLES/soyapack-research-summarizer" p
		chmod -R u+w p
		case $what in
		ignored) echo prompts/extract.md >p/.packsignignore ;;
		directory) rm p/prompts/extract.md && mkdir p/prompts/extract.md &&
		    touch p/prompts/extract.md/x ;;
		absent) (cd p && rm prompts/extract.md && zip -qr ../p.zip .) ;;
		esac
		local target=(p -o out.tar.gz)
		[ "$what" = absent ] && target=(p.zip)
		run "$PACKSIGN" sign "${target[@]}" -s alice.key
		[ "$status" -eq 1 ] || { echo "$what: $output"; false; }
		[[ "$output" == *"soyapack.yaml:44:12: error: prompts.extract 'prompts/extract.md' "*"[path_"*"[manifest_invalid]"* ]] ||
		    { echo "$what: $output"; false; }
		[[ "$output" != *prompt_missing* ]]
		[ ! -e out.tar.gz ] && [ ! -e p.zip.sig ]
	done
}

@test "sign: git clean commit records the https origin, commit and path" {
	r=$(repo_with reviewer "$AGENTPACK")
	head=$(git -C "$r" rev-parse HEAD)
	run "$PACKSIGN" sign "$r/packs/reviewer" -s alice.key -o a.tar.gz
	[ "$status" -eq 0 ]
	[[ "$output" == *"source https://github.com/Example/Packs @ $head" ]]
	check_sig a.tar.gz.sig alice.pub 0
	[ "$(payload_field 's["predicate"]["source"]["repository"]')" = https://github.com/Example/Packs ]
	[ "$(payload_field 's["predicate"]["source"]["digest"]["gitCommit"]')" = "$head" ]
	[ "$(payload_field 's["predicate"]["source"]["path"]')" = packs/reviewer ]
	[ "$(payload_field 's["predicate"]["source"]["dirty"]')" = False ]
}

@test "sign: modified, untracked and ignored files are dirty; --allow-dirty records it" {
	r=$(repo_with reviewer "$AGENTPACK")
	echo changed >> "$r/packs/reviewer/README.md"
	run "$PACKSIGN" sign "$r/packs/reviewer" -s alice.key -o a.tar.gz
	[ "$status" -eq 1 ]
	[[ "$output" == *"[source_dirty]"* ]]
	[ ! -e a.tar.gz ] && [ ! -e a.tar.gz.sig ]
	git -C "$r" checkout -q -- packs/reviewer/README.md
	echo new > "$r/packs/reviewer/knowledge/extra.md"
	run "$PACKSIGN" sign "$r/packs/reviewer" -s alice.key -o a.tar.gz
	[ "$status" -eq 1 ]
	[[ "$output" == *"[source_dirty]"* ]]
	echo 'extra.md' > "$r/.gitignore"
	git -C "$r" add .gitignore && git -C "$r" commit -q -m ignore
	run "$PACKSIGN" sign "$r/packs/reviewer" -s alice.key -o a.tar.gz
	[ "$status" -eq 1 ]
	[[ "$output" == *"[source_dirty]"* ]]
	run "$PACKSIGN" sign "$r/packs/reviewer" -s alice.key -o a.tar.gz --allow-dirty
	[ "$status" -eq 0 ]
	[[ "$output" == *" (dirty)" ]]
	check_sig a.tar.gz.sig alice.pub 0
	[ "$(payload_field 's["predicate"]["source"]["dirty"]')" = True ]
}

@test "sign: --source-repo/--source-commit override, and are checked" {
	p=$(copy_pack "$AGENTPACK")
	c=0123456789abcdef0123456789abcdef01234567
	run "$PACKSIGN" sign "$p" -s alice.key -o a.tar --source-repo git@example.com:o/r.git --source-commit $c
	[ "$status" -eq 0 ]
	[[ "$output" == *"source https://example.com/o/r @ $c" ]]
	run "$PACKSIGN" sign "$p" -s alice.key -o b.tar --source-commit main
	[ "$status" -eq 2 ]
	[[ "$output" == *"[source_commit_invalid]"* ]]
	run "$PACKSIGN" sign "$p" -s alice.key -o b.tar --source-commit ${c^^}
	[ "$status" -eq 2 ]
	run "$PACKSIGN" sign "$p" -s alice.key -o b.tar --source-repo https://example.com/o/r
	[ "$status" -eq 2 ]
	[[ "$output" == *"[source_commit_missing]"* ]]
	[ ! -e b.tar ]
}

@test "sign: a token in origin's URL (GitLab CI's clone) is recorded without it, and reaches no output" {
	tok=glcbt-64_Zq9XsEcReTt0k3n
	r=$(repo_with reviewer "$AGENTPACK")
	git -C "$r" remote set-url origin \
	    "https://gitlab-ci-token:$tok@gitlab.example.com/group/packs.git"
	head=$(git -C "$r" rev-parse HEAD)
	mkdir out
	run "$PACKSIGN" sign "$r/packs/reviewer" -s alice.key -o out/a.tar.gz \
	    --minisig --bundle
	echo "$output"
	[ "$status" -eq 0 ]
	[[ "$output" == *"source https://gitlab.example.com/group/packs @ $head" ]]
	check_sig out/a.tar.gz.sig alice.pub 0
	[ "$(payload_field 's["predicate"]["source"]["repository"]')" = \
	    https://gitlab.example.com/group/packs ]
	echo "$output" >out/stdout
	"$PACKSIGN" sign "$r/packs/reviewer" -s alice.key -o out/b.tar.gz \
	    --json >out/b.json
	"$PACKSIGN" verify out/a.tar.gz -p alice.pub \
	    --source-repo https://gitlab.example.com/group/packs >out/verify 2>&1
	# Any URL that is refused shows neither the token nor part of it.
	git -C "$r" remote set-url origin "https://gitlab-ci-token:$tok@gitlab.example.com:99999/g/p"
	run "$PACKSIGN" sign "$r/packs/reviewer" -s alice.key -o out/c.tar.gz
	[ "$status" -eq 1 ]
	[[ "$output" == *"bad port"*"found https://***@gitlab.example.com:99999/g/p [source_url_invalid]" ]]
	echo "$output" >out/refused
	for f in out/* payload.json; do
		# every file, compressed ones unpacked, for any 6 bytes of it
		{ cat "$f"; case $f in *.gz) gzip -dc "$f" ;; esac; } >all
		for i in $(seq 0 $((${#tok} - 6))); do
			! grep -aqF "${tok:$i:6}" all || { echo "$f holds ${tok:$i:6}"; return 1; }
		done
	done
}

@test "sign: --source-repo replaces origin, which is then not read; a local-path origin names it" {
	r=$(repo_with reviewer "$AGENTPACK")
	head=$(git -C "$r" rev-parse HEAD)
	git -C "$r" remote set-url origin /srv/ci/clones/packs.git
	run "$PACKSIGN" sign "$r/packs/reviewer" -s alice.key -o a.tar.gz
	echo "$output"
	[ "$status" -eq 1 ]
	[ "$output" = "packsign: origin: cannot normalise the repository URL: a local path, not a remote URL; sign with --source-repo https://HOST/PATH to record the repository (origin is then not read): expected https://, ssh://, git:// or [user@]host:path, found /srv/ci/clones/packs.git [source_url_invalid]" ]
	[ ! -e a.tar.gz ]
	# --source-commit alone still records origin's repository: refused
	run "$PACKSIGN" sign "$r/packs/reviewer" -s alice.key -o a.tar.gz \
	    --source-commit "$head"
	[ "$status" -eq 1 ]
	[[ "$output" == *"--source-repo"*"[source_url_invalid]" ]]
	run "$PACKSIGN" sign "$r/packs/reviewer" -s alice.key -o a.tar.gz \
	    --source-repo https://github.com/acme/packs
	echo "$output"
	[ "$status" -eq 0 ]
	[[ "$output" == *"source https://github.com/acme/packs @ $head" ]]
	check_sig a.tar.gz.sig alice.pub 0
	[ "$(payload_field 's["predicate"]["source"]["path"]')" = packs/reviewer ]
	# Not read at all: not even an origin no rule could normalise.
	git -C "$r" config remote.origin.url "$(printf 'bad\001url')"
	run "$PACKSIGN" sign "$r/packs/reviewer" -s alice.key -o b.tar.gz \
	    --source-repo https://github.com/acme/packs
	[ "$status" -eq 0 ]
	# The dirty check still runs against HEAD.
	echo changed >>"$r/packs/reviewer/README.md"
	run "$PACKSIGN" sign "$r/packs/reviewer" -s alice.key -o c.tar.gz \
	    --source-repo https://github.com/acme/packs
	[ "$status" -eq 1 ]
	[[ "$output" == *"[source_dirty]" ]]
	# An unusable --source-repo is the argument's fault: exit 2.
	run "$PACKSIGN" sign "$r/packs/reviewer" -s alice.key -o c.tar.gz \
	    --source-repo /srv/ci/clones/packs.git --allow-dirty
	[ "$status" -eq 2 ]
	[[ "$output" == "packsign: --source-repo: cannot normalise the repository URL: a local path, not a remote URL: expected"*"found /srv/ci/clones/packs.git [source_repo_invalid]" ]]
}

# holon_repo: a repository whose holon pack names, in source.ref, the
# commit before the one that wrote that ref into holon.yaml.
holon_repo() {
	local r ref
	r=$(repo_with holon holon-pdf-profile)
	git -C "$r" remote set-url origin https://github.com/acme/pdf-profile.git
	ref=$(git -C "$r" rev-parse HEAD)
	sed -i "s/^  ref: .*/  ref: $ref/" "$r/packs/holon/holon.yaml"
	git -C "$r" commit -q -am "holon: source.ref"
	echo "$r"
}

@test "sign: holon source.ref as a manifest-only ancestor is accepted and recorded" {
	r=$(holon_repo)
	ref=$(git -C "$r" rev-parse HEAD~1)
	run "$PACKSIGN" sign "$r/packs/holon" -s alice.key -o h.tar.gz
	[ "$status" -eq 0 ]
	check_sig h.tar.gz.sig alice.pub 0
	[ "$(payload_field 's["predicate"]["source"]["manifestRef"]["gitCommit"]')" = "$ref" ]
	run "$PACKSIGN" sign "$r/packs/holon" -s alice.key -o h2.tar.gz --json
	[ "$status" -eq 0 ]
	[ "$(echo "$output" | jq -r .source.manifest_ref)" = "$ref" ]
}

@test "sign: holon ancestor with other changes and a branch name are refused" {
	r=$(holon_repo)
	# an ancestor from which more than holon.yaml changed
	echo "# more" >> "$r/packs/holon/src/server.py"
	git -C "$r" commit -q -am "code change"
	run "$PACKSIGN" sign "$r/packs/holon" -s alice.key -o h.tar.gz
	[ "$status" -eq 1 ]
	[[ "$output" == *"[holon_ref_changed]"* ]]
	sed -i "s/^  ref: .*/  ref: main/" "$r/packs/holon/holon.yaml"
	git -C "$r" commit -q -am "branch as ref"
	run "$PACKSIGN" sign "$r/packs/holon" -s alice.key -o h.tar.gz
	[ "$status" -eq 1 ]
	# the manifest rules already refuse a branch name
	[[ "$output" == *"[holon_source_ref]"* ]]
	[[ "$output" == *"[manifest_invalid]"* ]]
	[ ! -e h.tar.gz ] && [ ! -e h.tar.gz.sig ]
}

@test "sign: holon repository mismatch names both repositories" {
	r=$(holon_repo)
	git -C "$r" remote set-url origin https://github.com/other/repo
	run "$PACKSIGN" sign "$r/packs/holon" -s alice.key -o h.tar.gz
	[ "$status" -eq 1 ]
	[[ "$output" == *"[source_repository_mismatch]"* ]]
	[[ "$output" == *"expected https://github.com/acme/pdf-profile, found https://github.com/other/repo"* ]]
	[ ! -e h.tar.gz ]
}

@test "sign: --minisig verifies with minisign -Vm, trusted comment names the pack" {
	command -v minisign >/dev/null || skip "minisign not installed"
	p=$(copy_pack "$AGENTPACK")
	PACKSIGN_PASSPHRASE=pw "$PACKSIGN" keygen -o carol --kdf interactive --identity carol >/dev/null
	PACKSIGN_PASSPHRASE=pw run "$PACKSIGN" sign "$p" -s carol.key -o a.tar.gz --minisig
	[ "$status" -eq 0 ]
	run minisign -Vm a.tar.gz -p carol.pub
	[ "$status" -eq 0 ]
	tree=$(digest_field "$p" tree_digest)
	[[ "$output" == *"Trusted comment: packsign pack research.top-journal-reviewer 0.1.0 $tree"* ]]
	echo x >> a.tar.gz
	run minisign -Vm a.tar.gz -p carol.pub
	[ "$status" -ne 0 ]
}

@test "sign: a zip and a canonical tar are signed in place" {
	p=$(copy_pack "$AGENTPACK")
	"$PACKSIGN" pack "$p" -o canon.tar >/dev/null
	(cd "$p" && zip -qr "$BATS_TEST_TMPDIR/pack.zip" .)
	cp canon.tar canon-before.tar
	run "$PACKSIGN" sign canon.tar -s alice.key --minisig
	[ "$status" -eq 0 ]
	cmp canon.tar canon-before.tar
	check_sig canon.tar.sig alice.pub 0
	[ "$(payload_field 's["subject"][0]["digest"]["sha256"]')" = "$(sha256sum canon.tar | cut -d' ' -f1)" ]
	[ "$(payload_field 's["predicate"]["tarDigest"]["sha256"]')" = "$(sha256sum canon.tar | cut -d' ' -f1)" ]
	[ "$(payload_field '"build" in s["predicate"]')" = False ]
	if command -v minisign >/dev/null; then minisign -Vm canon.tar -p alice.pub >/dev/null; fi
	run "$PACKSIGN" sign pack.zip -s alice.key
	[ "$status" -eq 0 ]
	check_sig pack.zip.sig alice.pub 0
	[ "$(payload_field '"tarDigest" in s["predicate"]')" = False ]
	[ "sha256:$(payload_field 's["predicate"]["treeDigest"]["sha256"]')" = "$(digest_field "$p" tree_digest)" ]
	run "$PACKSIGN" sign canon.tar -s alice.key -o other.tar
	[ "$status" -eq 2 ]
}

@test "sign: an unsafe archive is refused and gets no .sig" {
	mkdir -p stage/prompts
	cp "$EXAMPLES/$AGENTPACK/manifest.yml" stage/
	ln -s /etc/passwd stage/prompts/review.md
	tar -C stage -cf evil.tar manifest.yml prompts
	run "$PACKSIGN" sign evil.tar -s alice.key
	[ "$status" -eq 1 ]
	[ ! -e evil.tar.sig ]
	echo x > notes.txt
	run "$PACKSIGN" sign notes.txt -s alice.key
	[ "$status" -eq 2 ]
	[[ "$output" == *"[archive_unsupported]"* ]]
}

@test "sign: wrong passphrase exits 2 and writes nothing" {
	p=$(copy_pack "$AGENTPACK")
	PACKSIGN_PASSPHRASE=right "$PACKSIGN" keygen -o enc --kdf interactive >/dev/null
	PACKSIGN_PASSPHRASE=wrong run "$PACKSIGN" sign "$p" -s enc.key -o a.tar
	[ "$status" -eq 2 ]
	[[ "$output" == *"[wrong_passphrase]"* ]]
	[ ! -e a.tar ] && [ ! -e a.tar.sig ]
	echo right > pass.txt
	run "$PACKSIGN" sign "$p" -s enc.key -o a.tar --passphrase-file pass.txt
	[ "$status" -eq 0 ]
	PACKSIGN_SECRET_KEY=$(cat alice.key) run "$PACKSIGN" sign "$p" -o b.tar --identity alice
	[ "$status" -eq 0 ]
}

@test "sign: an output failure leaves no archive, signature or temporary file" {
	p=$(copy_pack "$AGENTPACK")
	mkdir ro && chmod 555 ro
	if touch ro/probe 2>/dev/null; then skip "running as a user who ignores permissions"; fi
	run "$PACKSIGN" sign "$p" -s alice.key -o ro/a.tar
	[ "$status" -eq 2 ]
	[ -z "$(ls -A ro)" ]
}

@test "sign: an output directory that does not exist fails with nothing written" {
	p=$(copy_pack "$AGENTPACK")
	run "$PACKSIGN" sign "$p" -s alice.key -o missing/a.tar
	[ "$status" -eq 2 ]
	[ ! -e missing ]
	no_temp_files .
	no_temp_files "$p"
}

@test "sign: the .sig failing to write removes the archive this run created" {
	p=$(copy_pack "$AGENTPACK")
	# a directory where OUT.minisig must go makes the last step fail
	mkdir a.tar.minisig
	run "$PACKSIGN" sign "$p" -s alice.key -o a.tar --minisig --force
	[ "$status" -eq 2 ]
	[ ! -e a.tar ] && [ ! -e a.tar.sig ]
	no_temp_files .
}

@test "sign: --json reports what was signed; usage errors exit 2" {
	p=$(copy_pack "$AGENTPACK")
	run "$PACKSIGN" sign "$p" -s alice.key -o a.tar --json
	[ "$status" -eq 0 ]
	echo "$output" | python3 -c "import json,sys; j=json.load(sys.stdin); assert j['identity']=='alice' and j['signatures']==1 and j['source'] is None and j['archive_written']"
	# snake_case keys, as every --json report
	echo "$output" | jq -e '(keys | all(test("^[a-z_]+$"))) and
	    (.tree_digest | startswith("sha256:")) and
	    (.archive_digest | startswith("sha256:"))'
	run "$PACKSIGN" sign "$p" -s alice.key --compress lzma
	[ "$status" -eq 2 ]
	[[ "$output" == *"[usage]"* ]]
	run "$PACKSIGN" sign -s alice.key
	[ "$status" -eq 2 ]
	run "$PACKSIGN" sign --help
	[ "$status" -eq 0 ]
	[[ "$output" == usage:* ]]
}

@test "sign: outside git, a holon ref other than --source-commit cannot be checked" {
	p=$(copy_pack holon-pdf-profile)
	run "$PACKSIGN" sign "$p" -s alice.key -o h.tar --source-repo https://github.com/acme/pdf-profile \
	    --source-commit 0123456789abcdef0123456789abcdef01234567
	[ "$status" -eq 1 ]
	[[ "$output" == *"[holon_ref_unchecked]"* ]]
	run "$PACKSIGN" sign "$p" -s alice.key -o h.tar
	[ "$status" -eq 1 ]
	[[ "$output" == *"[holon_source_missing]"* ]]
	run "$PACKSIGN" sign "$p" -s alice.key -o h.tar --source-repo https://github.com/other/x \
	    --source-commit 3f5c2a9d8e7b6c5d4e3f2a1b0c9d8e7f6a5b4c3d
	[ "$status" -eq 1 ]
	[[ "$output" == *"[source_repository_mismatch]"* ]]
	[ ! -e h.tar ]
}

@test "sign: --append works on an archive signed in place, zip included" {
	p=$(copy_pack "$AGENTPACK")
	(cd "$p" && zip -qr "$BATS_TEST_TMPDIR/pack.zip" .)
	"$PACKSIGN" sign pack.zip -s alice.key >/dev/null
	run "$PACKSIGN" sign pack.zip -s bob.key --append
	[ "$status" -eq 0 ]
	[[ "$output" == *"(2 signatures)"* ]]
	[[ "$output" != *"wrote pack.zip"$'\n'* ]]
	check_sig pack.zip.sig alice.pub 0
	check_sig pack.zip.sig bob.pub 1
}

# Issue 22: the files' first bytes are checked from the packing pass (no
# second read of every file); what they refuse leaves no named file, and
# an archive that was there stays as it was.
@test "sign: a file with pickle content is refused after packing, nothing named" {
	p=$(copy_pack "$AGENTPACK")
	printf '\x80\x04\x95\x05\x00\x00\x00\x00\x00\x00\x00}\x94.' \
	    >"$p/knowledge/rubric.bin"
	echo old >a.tar
	run "$PACKSIGN" sign "$p" -s alice.key -o a.tar
	[ "$status" -eq 1 ]
	[[ "$output" == *"knowledge/rubric.bin: error: pickle files are forbidden"*"protocol 4"*"[agentpack_pickle]"* ]]
	[ "$(grep -c 'rubric.bin' <<<"$output")" = 1 ]
	[[ "$output" == *"1 error(s) [manifest_invalid]"* ]]
	[ "$(cat a.tar)" = old ] && [ ! -e a.tar.sig ]
	no_temp_files .
	rm a.tar
	run "$PACKSIGN" sign "$p" -s alice.key -o a.tar
	[ "$status" -eq 1 ]
	[ ! -e a.tar ] && [ ! -e a.tar.sig ]
	no_temp_files .
	printf '\x80\x01' >"$p/knowledge/rubric.bin"
	run "$PACKSIGN" sign "$p" -s alice.key -o a.tar
	[ "$status" -eq 0 ]
	"$PACKSIGN" verify a.tar -p alice.pub >/dev/null
}

# Found in review: sign walked the pack with links dropped, so a declared
# prompt that is a symbolic link read as "missing" rather than as a link,
# and AgentPack's conventional prompts/ listing reported it a second time.
@test "sign: a declared prompt that is a symbolic link is named as one, once" {
	p=$(copy_pack "$AGENTPACK")
	mv "$p/prompts/checklist.md" outside.md
	ln -s "$BATS_TEST_TMPDIR/outside.md" "$p/prompts/checklist.md"
	run "$PACKSIGN" sign "$p" -s alice.key -o a.tar
	[ "$status" -eq 1 ]
	[[ "$output" == *"prompts/checklist.md: error: is a symbolic link"*"[path_special]"* ]]
	[ "$(grep -c 'checklist.md' <<<"$output")" = 1 ]
	[[ "$output" == *"1 error(s) [manifest_invalid]"* ]]
	[ ! -e a.tar ] && [ ! -e a.tar.sig ]
	no_temp_files .
}
