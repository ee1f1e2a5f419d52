#!/usr/bin/env bats
# Zips made on a Mac (issue 21).  tests/corpus/mkmaczip writes, field by
# field, a pack with accented names as Finder's Compress zips it (NFD
# names without the UTF-8 flag, made by Unix, data descriptors, the
# __MACOSX/ tree of AppleDouble twins), the same zip without AppleDouble
# (ditto --norsrc --noextattr), a ._ file beside its file, an empty
# __MACOSX/ directory, a tar as macOS's bsdtar writes it with copyfile,
# and the pack directory in NFC and in NFD.

load helpers

CORPUS_TOOLS="$BATS_TEST_DIRNAME/../corpus"
PY=python3
[ ! -x /usr/bin/python3 ] || PY=/usr/bin/python3
RESUME=$'knowledge/r\xc3\xa9sum\xc3\xa9.md'        # NFC bytes
RESUME_NFD=$'knowledge/re\xcc\x81sume\xcc\x81.md'
CAFE=$'prompts/caf\xc3\xa9.md'

setup_file() {
	export MAC="$BATS_FILE_TMPDIR/mac"
	"$PY" "$CORPUS_TOOLS/mkmaczip" "$MAC"
}

setup() {
	cd "$BATS_TEST_TMPDIR"
	unset PACKSIGN_PASSPHRASE PACKSIGN_SECRET_KEY SOURCE_DATE_EPOCH
	unset PACKSIGN_DATA_DIR
}

teardown() {
	chmod -R u+w "$BATS_TEST_TMPDIR" 2>/dev/null || true
}

need() {
	local t
	for t in "$@"; do
		command -v "$t" >/dev/null ||
		    skip "$t not found (scripts/install-deps)"
	done
}

seven_zip() {
	command -v 7z || command -v 7zz || command -v 7za
}

keys() {
	"$PACKSIGN" keygen -o alice --identity alice --no-passphrase >/dev/null
}

@test "maczip: AppleDouble entries are refused, naming a clean way to make the archive" {
	local f code desc n=0
	keys
	while IFS=$'\t' read -r -u 4 f code desc; do
		[ "$code" = appledouble_refused ] || continue
		n=$((n + 1))
		echo "$f: $desc"
		run "$PACKSIGN" digest "$MAC/$f"
		echo "$output"
		[ "$status" -eq 1 ]
		[[ "$output" == *"[appledouble_refused]"* ]]
		[[ "$output" == *"ditto -c -k --norsrc --noextattr SRC OUT.zip"* ]]
		[[ "$output" == *"packsign sign DIR"* ]]
		# sign, verify and install read it the same way.
		cp "$MAC/$f" .
		run "$PACKSIGN" sign "$f" -s alice.key
		[ "$status" -eq 1 ]
		[[ "$output" == *"[appledouble_refused]"* ]]
		[ ! -e "$f.sig" ]
	done 4<"$MAC/cases.tsv"
	[ "$n" -eq 4 ]
	# Finder's zip stops at its first AppleDouble entry, the __MACOSX/
	# directory right after README.md.
	run "$PACKSIGN" digest "$MAC/finder.zip"
	[[ "$output" == *"'__MACOSX' is AppleDouble metadata"* ]]
	run "$PACKSIGN" digest "$MAC/copyfile.tar"
	[[ "$output" == *"'._README.md' is AppleDouble metadata"* ]]
}

@test "maczip: without AppleDouble the zip signs as it is, verifies and installs; NFD names are installed as NFC" {
	local want tree
	keys
	want=$(digest_field "$MAC/pack" tree_digest)
	[ -n "$want" ]
	[ "$(digest_field "$MAC/pack-nfd" tree_digest)" = "$want" ]
	[ "$(digest_field "$MAC/clean.zip" tree_digest)" = "$want" ]
	# The zip is as a Mac writes it: no UTF-8 flag, NFD, descriptors.
	"$PY" - "$MAC/clean.zip" <<-'PY'
	import sys, zipfile
	infos = zipfile.ZipFile(sys.argv[1]).infolist()
	assert all(i.flag_bits & 0x800 == 0 for i in infos)
	assert all(i.create_system == 3 for i in infos)
	assert all(i.flag_bits & 0x8 for i in infos if not i.is_dir())
	raw = [i.orig_filename.encode("cp437") for i in infos]
	assert "knowledge/re\u0301sume\u0301.md".encode() in raw, raw
	PY
	cp "$MAC/clean.zip" mac.zip
	run "$PACKSIGN" sign mac.zip -s alice.key
	echo "$output"
	[ "$status" -eq 0 ]
	run "$PACKSIGN" verify mac.zip -p alice.pub
	echo "$output"
	[ "$status" -eq 0 ]
	[[ "$output" == "Good signature: research.top-journal-reviewer 0.1.0 by alice"* ]]
	run "$PACKSIGN" install mac.zip -p alice.pub --yes --data-dir "$PWD/data"
	echo "$output"
	[ "$status" -eq 0 ]
	[[ "$output" == *"tree digest: $want "* ]]
	tree=$PWD/data/agentpacks/research.top-journal-reviewer/0.1.0
	[ -f "$tree/$RESUME" ]
	[ -f "$tree/$CAFE" ]
	[ ! -e "$tree/$RESUME_NFD" ]
	[ "$(cd "$tree/knowledge" && printf '%s\n' * | grep -c $'\xcc\x81')" -eq 0 ]
	cmp "$tree/$RESUME" "$MAC/pack/$RESUME"
	[ "$(digest_field "$tree" tree_digest)" = "$want" ]
}

@test "maczip: unzip, bsdtar, 7-Zip and zipfile read as UTF-8 extract what packsign accepted; zipfile's default is CP437" {
	local want
	need unzip bsdtar
	seven_zip >/dev/null || skip "7-Zip not found (scripts/install-deps)"
	"$PACKSIGN" digest "$MAC/clean.zip" --files --json >clean.json
	want=$(digest_field "$MAC/clean.zip" tree_digest)
	# Listings and extractions of bsdtar, unzip and 7-Zip; zipfile with
	# metadata_encoding="utf-8".
	run env COMPARE_ZIPFILE_ENCODING=utf-8 "$PY" "$CORPUS_TOOLS/compare" \
	    "$MAC/clean.zip" clean.json
	echo "$output"
	[ "$status" -eq 0 ]
	# zipfile by default reads a name without the flag as CP437: its
	# only differences are the two accented names (digests.md).
	run "$PY" "$CORPUS_TOOLS/compare" "$MAC/clean.zip" clean.json
	echo "$output"
	[ "$status" -eq 1 ]
	[ "${#lines[@]}" -eq 4 ]
	[ -z "$(printf '%s\n' "$output" | grep -v '^clean.zip: zipfile: ')" ]
	# What unzip and zipfile write to disk is the signed tree.
	unzip -q "$MAC/clean.zip" -d unzipped
	[ "$(digest_field unzipped tree_digest)" = "$want" ]
	"$PY" - "$MAC/clean.zip" zipfiled <<-'PY'
	import sys, zipfile
	zipfile.ZipFile(sys.argv[1], metadata_encoding="utf-8").extractall(
	    sys.argv[2])
	PY
	[ "$(digest_field zipfiled tree_digest)" = "$want" ]
	# Finder's zip extracts the AppleDouble twins as files: what
	# skipping them would have signed less than.
	unzip -q "$MAC/finder.zip" -d finder
	[ -f "finder/__MACOSX/._README.md" ]
	head -c 4 "finder/__MACOSX/._README.md" | od -An -tx1 | grep -q '00 05 16 07'
}

@test "maczip: a directory holding ._ files is refused unless .packsignignore lists them" {
	local p
	p=$(copy_pack "$AGENTPACK")
	printf 'twin\n' >"$p/knowledge/._rubric.md"
	run "$PACKSIGN" digest "$p"
	echo "$output"
	[ "$status" -eq 1 ]
	[[ "$output" == *"[appledouble_refused]"* ]]
	[[ "$output" == *".packsignignore"* ]]
	run "$PACKSIGN" pack "$p" -o p.tar
	[ "$status" -eq 1 ]
	[[ "$output" == *"[appledouble_refused]"* ]]
	printf '._*\n' >"$p/.packsignignore"
	run "$PACKSIGN" pack "$p" -o p.tar
	echo "$output"
	[ "$status" -eq 0 ]
	run "$PACKSIGN" digest p.tar
	[ "$status" -eq 0 ]
	rm "$p/knowledge/._rubric.md" "$p/.packsignignore"
	mkdir "$p/__MACOSX"
	printf 'twin\n' >"$p/__MACOSX/x"
	run "$PACKSIGN" digest "$p"
	[ "$status" -eq 1 ]
	[[ "$output" == *"[appledouble_refused]"* ]]
}
