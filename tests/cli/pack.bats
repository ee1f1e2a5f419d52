#!/usr/bin/env bats
# packsign pack: canonical output, reproducibility, refusals, atomic output.

load helpers

setup() {
	cd "$BATS_TEST_TMPDIR"
}

@test "pack: golden digests of the AgentPack example (format drift fails here)" {
	run "$PACKSIGN" pack "$EXAMPLES/$AGENTPACK" -o out.tar
	[ "$status" -eq 0 ]
	[ "$(sha256sum out.tar | cut -d' ' -f1)" = 708289fcbef1cd2b7c35a3605eeafce40547c7b08bd740d9f34dfbfd33499384 ]
	[[ "$output" == *"tree_digest: sha256:2b80fecd7f093d5abcb6d7a37a863b9a3889d355c4533296c864fc54ecca5af2"* ]]
}

@test "pack: manifest first, then bytewise order, fixed metadata" {
	"$PACKSIGN" pack "$EXAMPLES/$AGENTPACK" -o out.tar
	run tar --numeric-owner -tvf out.tar
	[ "${lines[0]}" = "-rw-r--r-- 0/0             638 1970-01-01 00:00 manifest.yml" ]
	[ "${lines[1]}" = "-rw-r--r-- 0/0              90 1970-01-01 00:00 README.md" ]
	[ "${lines[2]}" = "drwxr-xr-x 0/0               0 1970-01-01 00:00 agents/" ]
	tar -tf out.tar | tail -n +2 | LC_ALL=C sort -c
}

@test "pack: every example pack round-trips through GNU tar with the same tree digest" {
	for p in "$EXAMPLES"/*; do
		n=$(basename "$p")
		"$PACKSIGN" pack "$p" -o "$n.tar" >/dev/null
		mkdir "x-$n" && tar -xf "$n.tar" -C "x-$n"
		[ "$(digest_field "$p" tree_digest)" = "$(digest_field "x-$n" tree_digest)" ]
		[ "$(digest_field "$n.tar" canonical)" = yes ]
	done
}

@test "pack: file, stdout and pipe outputs are byte-identical" {
	"$PACKSIGN" pack "$EXAMPLES/$AGENTPACK" -o file.tar
	"$PACKSIGN" pack "$EXAMPLES/$AGENTPACK" -o - > stdout.tar
	"$PACKSIGN" pack "$EXAMPLES/$AGENTPACK" -o - | cat > pipe.tar
	cmp file.tar stdout.tar
	cmp file.tar pipe.tar
}

@test "pack: gzip and zstd hold the same tar and are reproducible" {
	"$PACKSIGN" pack "$EXAMPLES/$AGENTPACK" -o a.tar
	"$PACKSIGN" pack "$EXAMPLES/$AGENTPACK" -o a.tar.gz
	"$PACKSIGN" pack "$EXAMPLES/$AGENTPACK" -o b.tgz
	"$PACKSIGN" pack "$EXAMPLES/$AGENTPACK" -o a.tar.zst
	"$PACKSIGN" pack "$EXAMPLES/$AGENTPACK" --compress gzip -o - > c.gz
	cmp a.tar.gz b.tgz
	cmp a.tar.gz c.gz
	zcat a.tar.gz | cmp - a.tar
	zstd -qdc a.tar.zst | cmp - a.tar
	# gzip header: no name, no timestamp
	[ "$(head -c 10 a.tar.gz | od -An -tx1 | tr -d ' \n')" = 1f8b0800000000000003 ]
}

# build_variant DIR: the example pack re-created with different metadata.
build_variant() {
	local src="$EXAMPLES/$AGENTPACK" dst=$1 f
	mkdir -p "$dst"
	# reverse creation order, odd umask, random mtimes
	(umask 077
	 cd "$src" && find . -type d | sort -r | while read -r d; do mkdir -p "$dst/$d"; done
	 cd "$src" && find . -type f | sort -r | while read -r f; do cat "$f" > "$dst/$f"; done)
	find "$dst" -exec touch -d "@$((RANDOM * 1000))" {} +
}

@test "pack: reproducible whatever the umask, creation order and mtimes" {
	"$PACKSIGN" pack "$EXAMPLES/$AGENTPACK" -o ref.tar
	build_variant "$BATS_TEST_TMPDIR/variant"
	"$PACKSIGN" pack "$BATS_TEST_TMPDIR/variant" -o var.tar
	cmp ref.tar var.tar
}

@test "pack: reproducible whatever the owner and group" {
	[ "$(id -u)" = 0 ] || skip "needs root to chown"
	"$PACKSIGN" pack "$EXAMPLES/$AGENTPACK" -o ref.tar
	p=$(copy_pack "$AGENTPACK")
	chown -R 1234:5678 "$p"
	"$PACKSIGN" pack "$p" -o var.tar
	cmp ref.tar var.tar
}

@test "pack: reproducible on another file system (readdir order differs)" {
	[ -d /dev/shm ] && [ -w /dev/shm ] || skip "no tmpfs at /dev/shm"
	"$PACKSIGN" pack "$EXAMPLES/$AGENTPACK" -o ref.tar
	shm=$(mktemp -d /dev/shm/packsign.XXXXXX)
	build_variant "$shm/p"
	"$PACKSIGN" pack "$shm/p" -o var.tar
	rm -rf "$shm"
	cmp ref.tar var.tar
}

@test "pack: reproducible whatever LC_ALL and TZ, with non-ASCII names" {
	p=$(copy_pack "$AGENTPACK")
	echo "résumé" > "$p/knowledge/résumé.md"
	echo "中文" > "$p/knowledge/指南.md"
	LC_ALL=C TZ=UTC "$PACKSIGN" pack "$p" -o c.tar
	LC_ALL=C.UTF-8 TZ=Asia/Shanghai "$PACKSIGN" pack "$p" -o u.tar
	LANG= LC_ALL=POSIX TZ=America/New_York "$PACKSIGN" pack "$p" -o p.tar
	cmp c.tar u.tar
	cmp c.tar p.tar
	tar -tf c.tar | grep -qx 'knowledge/指南.md'
}

@test "pack: NFD names are stored in NFC" {
	p=$(copy_pack "$AGENTPACK")
	printf x > "$p/knowledge/cafe$(printf '\xcc\x81').md"
	"$PACKSIGN" pack "$p" -o out.tar
	tar -tf out.tar | grep -qx "knowledge/caf$(printf '\xc3\xa9').md"
}

@test "pack: --mtime and SOURCE_DATE_EPOCH set one mtime" {
	"$PACKSIGN" pack "$EXAMPLES/$AGENTPACK" --mtime 1700000000 -o m.tar
	SOURCE_DATE_EPOCH=1700000000 "$PACKSIGN" pack "$EXAMPLES/$AGENTPACK" -o s.tar
	cmp m.tar s.tar
	[ "$(tar --full-time -tvf m.tar | awk '{print $4}' | sort -u)" = 2023-11-14 ]
	run "$PACKSIGN" pack "$EXAMPLES/$AGENTPACK" --mtime 1.5 -o x.tar
	[ "$status" -eq 2 ]
	run "$PACKSIGN" pack "$EXAMPLES/$AGENTPACK" --mtime -1 -o x.tar
	[ "$status" -eq 2 ]
	[ ! -e x.tar ]
}

@test "pack: executable bit is kept, other mode bits are not" {
	p=$(copy_pack "$AGENTPACK")
	printf '#!/bin/sh\n' > "$p/run.sh"
	chmod 0700 "$p/run.sh"
	chmod 0600 "$p/README.md"
	"$PACKSIGN" pack "$p" -o out.tar
	tar -tvf out.tar | grep -q '^-rwxr-xr-x .* run.sh$'
	tar -tvf out.tar | grep -q '^-rw-r--r-- .* README.md$'
}

@test "pack: empty directories are kept, VCS metadata is skipped" {
	p=$(copy_pack "$AGENTPACK")
	mkdir -p "$p/empty" "$p/.git/objects" "$p/sub/.svn"
	echo x > "$p/.git/HEAD"
	echo x > "$p/.hg"
	"$PACKSIGN" pack "$p" -o out.tar
	tar -tf out.tar | grep -qx 'empty/'
	! tar -tf out.tar | grep -q -e '\.git' -e '\.svn' -e '\.hg'
}

@test "pack: .packsignignore skips matching paths and is itself packed" {
	p=$(copy_pack "$AGENTPACK")
	printf '# build output\n*.log\nnode_modules/\n/examples\n' > "$p/.packsignignore"
	echo x > "$p/debug.log"
	mkdir -p "$p/node_modules/m" && ln -s /etc/passwd "$p/node_modules/m/link"
	"$PACKSIGN" pack "$p" -o out.tar
	run tar -tf out.tar
	[[ "$output" == *".packsignignore"* ]]
	[[ "$output" != *"debug.log"* ]]
	[[ "$output" != *"node_modules"* ]]
	[[ "$output" != *"examples/"* ]]
	[[ "$output" == *"knowledge/rubric.md"* ]]
}

@test "pack: .packsignignore with unsupported syntax is refused with its line" {
	p=$(copy_pack "$AGENTPACK")
	printf '*.log\n!keep.log\n' > "$p/.packsignignore"
	run "$PACKSIGN" pack "$p" -o out.tar
	[ "$status" -eq 1 ]
	[[ "$output" == *".packsignignore:2"*"[ignore_syntax]"* ]]
}

@test "pack: hard-linked files become ordinary files" {
	p=$(copy_pack "$AGENTPACK")
	ln "$p/README.md" "$p/README-copy.md"
	"$PACKSIGN" pack "$p" -o out.tar
	tar -tvf out.tar | grep -q '^-rw-r--r-- .* README-copy.md$'
	[ "$(digest_field out.tar canonical)" = yes ]
}

# refuse_pack DIR CODE: pack must exit 1 with CODE and leave no output.
refuse_pack() {
	run "$PACKSIGN" pack "$1" -o out.tar
	echo "$output"
	[ "$status" -eq 1 ]
	[[ "$output" == *"[$2]"* ]]
	[ ! -e out.tar ]
	no_temp_files .
}

@test "pack: refuses symlinks, naming the path" {
	p=$(copy_pack "$AGENTPACK")
	ln -s ../../etc/passwd "$p/knowledge/passwd"
	refuse_pack "$p" symlink_refused
	[[ "$output" == *"knowledge/passwd"*"symbolic link"* ]]
}

@test "pack: refuses FIFOs and devices" {
	p=$(copy_pack "$AGENTPACK")
	mkfifo "$p/fifo"
	refuse_pack "$p" special_file_refused
	[[ "$output" == *"FIFO"* ]]
	rm "$p/fifo"
	if [ "$(id -u)" = 0 ] && mknod "$p/null" c 1 3 2>/dev/null; then
		refuse_pack "$p" special_file_refused
		[[ "$output" == *"character device"* ]]
	fi
}

@test "pack: refuses names that collide when case is folded, naming both" {
	p=$(copy_pack "$AGENTPACK")
	echo x > "$p/readme.md"
	refuse_pack "$p" case_collision
	[[ "$output" == *"'README.md' and 'readme.md'"* ]]
}

@test "pack: refuses NFC and NFD spellings of one name" {
	p=$(copy_pack "$AGENTPACK")
	printf x > "$p/caf$(printf '\xc3\xa9')"
	printf y > "$p/cafe$(printf '\xcc\x81')"
	refuse_pack "$p" duplicate_entry
}

@test "pack: refuses unsafe names" {
	p=$(copy_pack "$AGENTPACK")
	touch "$p/a\\b"; refuse_pack "$p" name_forbidden_char; rm "$p/a\\b"
	touch "$p/$(printf 'tab\there')"; refuse_pack "$p" name_forbidden_char; rm "$p"/tab*
	touch "$p/$(printf 'bad\xff')"; refuse_pack "$p" name_not_utf8; rm "$p"/bad*
	touch "$p/AUX.md"; refuse_pack "$p" name_reserved; rm "$p/AUX.md"
	touch "$p/trailing."; refuse_pack "$p" name_reserved; rm "$p/trailing."
	touch "$p/space "; refuse_pack "$p" name_reserved; rm "$p/space "
	"$PACKSIGN" pack "$p" -o ok.tar
}

@test "pack: refuses a pack without a manifest, or with two" {
	p=$(copy_pack "$AGENTPACK")
	mv "$p/manifest.yml" "$p/other.yml"
	refuse_pack "$p" manifest_missing
	[[ "$output" == *"expected one of soyapack.yaml"* ]]
	mv "$p/other.yml" "$p/manifest.yml"
	touch "$p/holon.yaml"
	refuse_pack "$p" manifest_conflict
	[[ "$output" == *"holon.yaml"*"manifest.yml"* ]]
}

@test "pack: a missing directory or unreadable file is exit 2" {
	run "$PACKSIGN" pack "$BATS_TEST_TMPDIR/nope" -o out.tar
	[ "$status" -eq 2 ]
	[[ "$output" == *"[not_found]"* ]]
	[ "$(id -u)" = 0 ] && skip "root reads every file"
	p=$(copy_pack "$AGENTPACK")
	chmod 000 "$p/README.md"
	run "$PACKSIGN" pack "$p" -o out.tar
	[ "$status" -eq 2 ]
	[ ! -e out.tar ]
}

@test "pack: usage errors are exit 2" {
	run "$PACKSIGN" pack "$EXAMPLES/$AGENTPACK"
	[ "$status" -eq 2 ]
	[[ "$output" == *"[usage]"* ]]
	run "$PACKSIGN" pack "$EXAMPLES/$AGENTPACK" -o out.rar
	[ "$status" -eq 2 ]
	run "$PACKSIGN" pack "$EXAMPLES/$AGENTPACK" --compress bzip2 -o x.tar
	[ "$status" -eq 2 ]
	run "$PACKSIGN" pack --bogus
	[ "$status" -eq 2 ]
}

@test "pack: a failure keeps an existing OUT as it was" {
	"$PACKSIGN" pack "$EXAMPLES/$AGENTPACK" -o out.tar
	cp out.tar before.tar
	p=$(copy_pack "$AGENTPACK")
	ln -s /etc/passwd "$p/link"
	run "$PACKSIGN" pack "$p" -o out.tar
	[ "$status" -eq 1 ]
	cmp out.tar before.tar
	no_temp_files .
}

@test "pack: disk full (RLIMIT_FSIZE) is exit 2 and leaves no file" {
	p=$(copy_pack "$AGENTPACK")
	head -c 200000 /dev/urandom > "$p/knowledge/big.bin"
	run bash -c "trap '' XFSZ; ulimit -f 64; '$PACKSIGN' pack '$p' -o out.tar"
	echo "$output"
	[ "$status" -eq 2 ]
	[[ "$output" == *"[disk_full]"* || "$output" == *"[io_error]"* ]]
	[ ! -e out.tar ]
	no_temp_files .
}

@test "pack: refuses to write an archive to a terminal" {
	command -v script >/dev/null || skip "no script(1)"
	run script -qec "'$PACKSIGN' pack '$EXAMPLES/$AGENTPACK' -o -" /dev/null
	[[ "$output" == *"refusing to write an archive to a terminal"* ]]
}

@test "pack: long paths use the ustar prefix split; unsplittable ones are refused" {
	p=$(copy_pack "$AGENTPACK")
	long=$(printf 'd%.0s' {1..90})/$(printf 'f%.0s' {1..40}).md
	mkdir -p "$p/$(dirname "$long")" && echo x > "$p/$long"
	"$PACKSIGN" pack "$p" -o split.tar
	tar -tf split.tar | grep -qx "$long"
	[ "$(digest_field split.tar canonical)" = yes ]
	echo x > "$p/$(printf 'a%.0s' {1..120})"
	refuse_pack "$p" name_too_long
	[[ "$output" == *"does not fit a tar header"* ]]
}

@test "pack: non-ASCII names get a pax path record and stay canonical" {
	p=$(copy_pack "$AGENTPACK")
	mkdir -p "$p/ü/sub" && echo x > "$p/ü/sub/ä.md"
	"$PACKSIGN" pack "$p" -o pax.tar
	tar -tf pax.tar | grep -qx 'ü/sub/ä.md'
	grep -qa 'ü/sub/PaxHeader/ä.md' pax.tar
	[ "$(digest_field pax.tar canonical)" = yes ]
}

@test "pack: an output inside the pack directory never packs itself (review finding)" {
	p=$(copy_pack "$AGENTPACK")
	"$PACKSIGN" pack "$p" -o "$p/out.tar"
	! tar -tf "$p/out.tar" | grep -q 'out\.tar'
	[ "$(digest_field "$p/out.tar" tree_digest)" = "$(digest_field "$EXAMPLES/$AGENTPACK" tree_digest)" ]
}

@test "pack: names Windows refuses are refused" {
	p=$(copy_pack "$AGENTPACK")
	touch "$p/manifest.yml:stream"
	refuse_pack "$p" name_forbidden_char
	[[ "$output" == *"':'"* ]]
}

@test "pack: control characters in names are escaped in errors (review finding)" {
	p=$(copy_pack "$AGENTPACK")
	touch "$p/$(printf 'x\033[2Jy')"
	run "$PACKSIGN" pack "$p" -o out.tar
	[ "$status" -eq 1 ]
	[[ "$output" == *'x\x1b[2Jy'* ]]
	[[ "$output" != *$'\033'* ]]
}

@test "pack: a .packsignignore that is not UTF-8 is refused" {
	p=$(copy_pack "$AGENTPACK")
	printf '*.log\n\xff\n' > "$p/.packsignignore"
	refuse_pack "$p" ignore_syntax
}
