#!/usr/bin/env bats
# packsign digest: container-independent tree digest, tar and archive
# digests, canonical detection, refusals.

load helpers

setup() {
	cd "$BATS_TEST_TMPDIR"
}

@test "digest: directory, canonical tars, zip, GNU tar and extraction agree" {
	for p in "$EXAMPLES"/*; do
		n=$(basename "$p")
		want=$(digest_field "$p" tree_digest)
		"$PACKSIGN" pack "$p" -o "$n.tar" >/dev/null
		"$PACKSIGN" pack "$p" -o "$n.tar.gz" >/dev/null
		"$PACKSIGN" pack "$p" -o "$n.tar.zst" >/dev/null
		tar -C "$p" -cf "$n.gnu.tar" .
		(cd "$p" && zip -qr "$BATS_TEST_TMPDIR/$n.zip" .)
		for a in "$n.tar" "$n.tar.gz" "$n.tar.zst" "$n.gnu.tar" "$n.zip"; do
			[ "$(digest_field "$a" tree_digest)" = "$want" ]
		done
	done
}

@test "digest: tar digest of a directory is the digest of its canonical tar" {
	"$PACKSIGN" pack "$EXAMPLES/$AGENTPACK" -o out.tar.gz
	want="sha256:$(zcat out.tar.gz | sha256sum | cut -d' ' -f1)"
	[ "$(digest_field "$EXAMPLES/$AGENTPACK" tar_digest)" = "$want" ]
	[ "$(digest_field out.tar.gz tar_digest)" = "$want" ]
	[ "$(digest_field out.tar.gz archive_digest)" = "sha256:$(sha256sum out.tar.gz | cut -d' ' -f1)" ]
	[ "$(digest_field out.tar.gz canonical)" = yes ]
}

@test "digest: ordinary tars are marked non-canonical" {
	tar -C "$EXAMPLES/$AGENTPACK" -cf gnu.tar .
	[ "$(digest_field gnu.tar canonical)" = no ]
	"$PACKSIGN" pack "$EXAMPLES/$AGENTPACK" -o c.tar
	# same entries, another mtime: no longer the canonical bytes of mtime 0?
	# (any single mtime is canonical; a changed mode is not)
	mkdir x && tar -xf c.tar -C x && chmod 0600 x/README.md
	tar -C x --sort=name --owner=0 --group=0 --numeric-owner --mtime=@0 \
	    --format=ustar -cf sorted.tar manifest.yml $(cd x && ls -A | grep -vx manifest.yml)
	[ "$(digest_field sorted.tar canonical)" = no ]
}

@test "digest: a canonical tar with another mtime is still canonical" {
	"$PACKSIGN" pack "$EXAMPLES/$AGENTPACK" --mtime 1234567890 -o m.tar
	[ "$(digest_field m.tar canonical)" = yes ]
	[ "$(digest_field m.tar tree_digest)" = "$(digest_field "$EXAMPLES/$AGENTPACK" tree_digest)" ]
}

@test "digest: the tree digest changes with content, path, mode or an empty dir" {
	ref=$(digest_field "$EXAMPLES/$AGENTPACK" tree_digest)
	p=$(copy_pack "$AGENTPACK")
	echo >> "$p/README.md"
	[ "$(digest_field "$p" tree_digest)" != "$ref" ]
	p=$(copy_pack "$AGENTPACK")
	mv "$p/README.md" "$p/README.markdown"
	[ "$(digest_field "$p" tree_digest)" != "$ref" ]
	p=$(copy_pack "$AGENTPACK")
	chmod +x "$p/README.md"
	[ "$(digest_field "$p" tree_digest)" != "$ref" ]
	p=$(copy_pack "$AGENTPACK")
	mkdir "$p/empty"
	[ "$(digest_field "$p" tree_digest)" != "$ref" ]
}

@test "digest: --json has the documented keys" {
	"$PACKSIGN" pack "$EXAMPLES/$AGENTPACK" -o out.tar
	run "$PACKSIGN" digest out.tar --json --files
	[ "$status" -eq 0 ]
	for k in '"tree_digest": "sha256:' '"tar_digest": "sha256:' '"archive_digest": "sha256:' \
	    '"canonical": true' '"manifest": {' '"path": "manifest.yml"' '"files": [' \
	    '"format": "agentpack"' '"executable": false'; do
		[[ "$output" == *"$k"* ]]
	done
	run "$PACKSIGN" digest "$EXAMPLES/$AGENTPACK" --json
	[[ "$output" == *'"archive_digest": null'* ]]
	[[ "$output" == *'"canonical": null'* ]]
}

@test "digest: --files lists every file with its SHA-256 and size" {
	run "$PACKSIGN" digest "$EXAMPLES/$AGENTPACK" --files
	[ "$status" -eq 0 ]
	sum=$(sha256sum "$EXAMPLES/$AGENTPACK/prompts/review.md" | cut -d' ' -f1)
	size=$(stat -c %s "$EXAMPLES/$AGENTPACK/prompts/review.md")
	[[ "$output" == *"file: $sum $size - prompts/review.md"* ]]
	[ "$(grep -c '^file: ' <<<"$output")" = 8 ]
}

# refuse_digest ARCHIVE CODE
refuse_digest() {
	run "$PACKSIGN" digest "$1"
	echo "$output"
	[ "$status" -eq 1 ]
	[[ "$output" == *"[$2]"* ]]
}

stage() {
	rm -rf stage && cp -R "$EXAMPLES/$AGENTPACK" stage && chmod -R u+w stage
}

@test "digest: refuses archives with symlinks and hard links" {
	stage
	ln -s /etc/passwd stage/link
	tar -C stage -cf sym.tar .
	refuse_digest sym.tar symlink_refused
	rm stage/link
	ln stage/README.md stage/hard.md
	tar -C stage -cf hard.tar .
	refuse_digest hard.tar hardlink_refused
}

@test "digest: refuses ../ and absolute member names" {
	stage
	tar -C stage -cf dotdot.tar --transform 's,^\./knowledge,../../escape,' .
	tar -tf dotdot.tar | grep -q '\.\./'
	refuse_digest dotdot.tar name_dot_component
	tar -C stage -cPf abs.tar --transform 's,^\./knowledge,/tmp/escape,' .
	tar -tPf abs.tar | grep -q '^/tmp/escape'
	refuse_digest abs.tar name_absolute
}

@test "digest: refuses duplicate members and case collisions" {
	stage
	tar -C stage -cf dup.tar .
	tar -C stage -rf dup.tar ./README.md
	refuse_digest dup.tar duplicate_entry
	stage
	echo x > stage/readme.md
	tar -C stage -cf case.tar .
	refuse_digest case.tar case_collision
}

@test "digest: refuses setuid members and devices" {
	stage
	chmod 4755 stage/README.md
	tar -C stage -cf suid.tar .
	refuse_digest suid.tar unsafe_mode
	stage
	mkfifo stage/fifo
	tar -C stage -cf fifo.tar .
	refuse_digest fifo.tar special_file_refused
}

@test "digest: refuses archives without a manifest and unsupported ones" {
	stage
	rm stage/manifest.yml
	tar -C stage -cf nomanifest.tar .
	refuse_digest nomanifest.tar manifest_missing
	echo "not an archive" > junk.tar
	refuse_digest junk.tar archive_corrupt
	cp junk.tar pack.rar
	refuse_digest pack.rar unsupported_archive
	"$PACKSIGN" pack "$EXAMPLES/$AGENTPACK" -o t.tar.gz
	head -c 700 t.tar.gz > trunc.tar.gz
	refuse_digest trunc.tar.gz archive_corrupt
}

@test "digest: a declared size larger than the data is refused" {
	"$PACKSIGN" pack "$EXAMPLES/$AGENTPACK" -o t.tar
	head -c 1500 t.tar > short.tar
	run "$PACKSIGN" digest short.tar
	[ "$status" -eq 1 ]
}

@test "digest: a missing path is exit 2" {
	run "$PACKSIGN" digest nothing-here.tar
	[ "$status" -eq 2 ]
	[[ "$output" == *"[not_found]"* ]]
	run "$PACKSIGN" digest
	[ "$status" -eq 2 ]
}

@test "digest: the reference script in docs/formats/digests.md gives the same tree digest" {
	command -v python3 >/dev/null || skip "python3 missing (scripts/install-deps installs it)"
	p=$(copy_pack "$AGENTPACK")
	mkdir -p "$p/empty" "$p/ü" && echo y > "$p/ü/a b.md" && chmod +x "$p/README.md"
	want=$(digest_field "$p" tree_digest)
	got=$(python3 - "$p" "$BATS_TEST_DIRNAME/../../docs/formats/digests.md" <<'PY'
import re, sys
src = open(sys.argv[2]).read()
exec(re.search(r"```python\n(.*?)```", src, re.S).group(1))
print(tree_digest(sys.argv[1]))
PY
)
	[ "$got" = "$want" ]
}

@test "digest: archives with VCS metadata are refused (review finding)" {
	stage
	mkdir -p stage/.git && echo x > stage/.git/config
	tar -C stage -cf git.tar .
	refuse_digest git.tar vcs_metadata_refused
}

@test "digest: a file used as a directory deeper down is refused (review finding)" {
	stage
	mkdir -p deep/a/b && echo x > deep/a/b/c
	tar -C stage -cf conflict.tar ./manifest.yml
	# 'knowledge' as a file, and knowledge/x/y below it, without directory entries
	echo f > knowledgefile
	tar -rf conflict.tar --transform 's,^knowledgefile$,knowledge,' knowledgefile
	tar -rf conflict.tar --transform 's,^deep/a/b/c$,knowledge/x/y,' deep/a/b/c
	refuse_digest conflict.tar path_conflict
}

@test "digest: prints format, id, version and every prompt file's SHA-256" {
	for a in "$EXAMPLES/$AGENTPACK" ; do
		run "$PACKSIGN" digest "$a"
		[[ "$output" == *"id: research.top-journal-reviewer"* ]]
		[[ "$output" == *"version: 0.1.0"* ]]
		sum=$(sha256sum "$EXAMPLES/$AGENTPACK/prompts/review.md" | cut -d' ' -f1)
		[[ "$output" == *"prompt: $sum prompts/review.md"* ]]
		[ "$(grep -c '^prompt: ' <<<"$output")" = 4 ]
	done
	"$PACKSIGN" pack "$EXAMPLES/soyapack-research-summarizer" -o s.tar.zst
	run "$PACKSIGN" digest s.tar.zst --json
	[[ "$output" == *'"id": "chzealot/research-summarizer"'* ]]
	[[ "$output" == *'"path": "prompts/extract.md"'* ]]
	run "$PACKSIGN" digest "$EXAMPLES/holon-pdf-profile"
	[ "$(grep -c '^prompt: ' <<<"$output")" = 0 ]
}

@test "digest: canonical detection holds across multi-megabyte files and trailing data" {
	p=$(copy_pack "$AGENTPACK")
	head -c 3000000 /dev/urandom > "$p/knowledge/a.bin"
	head -c 5000000 /dev/urandom > "$p/knowledge/b.bin"
	"$PACKSIGN" pack "$p" -o big.tar
	"$PACKSIGN" pack "$p" -o big.tar.gz
	[ "$(digest_field big.tar canonical)" = yes ]
	[ "$(digest_field big.tar.gz canonical)" = yes ]
	cp big.tar trail.tar && head -c 512 /dev/zero >> trail.tar
	[ "$(digest_field trail.tar canonical)" = no ]
	cp big.tar flip.tar
	# The byte's complement: a fixed byte equals the random one 1 time in 256.
	at=$((2048 + 1500000))
	byte=$(od -An -tu1 -j "$at" -N1 flip.tar | tr -d ' ')
	printf "\\$(printf '%03o' $((byte ^ 255)))" |
	    dd of=flip.tar bs=1 seek="$at" conv=notrunc 2>/dev/null
	cmp -s big.tar flip.tar && return 1
	[ "$(digest_field flip.tar canonical)" = yes ]   # content is not a canonical rule
	[ "$(digest_field flip.tar tree_digest)" != "$(digest_field big.tar tree_digest)" ]
}
