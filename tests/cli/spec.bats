#!/usr/bin/env bats
# What docs/formats/*.md and docs/errors.md say packsign writes and reports,
# checked against the binary: the bytes an independent implementation must
# reproduce (extended headers, their names, compression) and the rules it
# must follow (ignore patterns, mtime sources, statement codes).

load helpers

SIGNER="${PACKSIGN_TESTSIGN:-$BATS_TEST_DIRNAME/../../build/tests/ps-testsign}"
SPEC="$BATS_TEST_DIRNAME/../../docs/formats/canonical-tar.md"

setup() {
	cd "$BATS_TEST_TMPDIR"
	unset SOURCE_DATE_EPOCH
	command -v python3 >/dev/null || skip "python3 missing (scripts/install-deps installs it)"
}

# ref_tar DIR MTIME: the canonical tar of DIR (no .packsignignore, names
# already valid) by the reference encoder of canonical-tar.md, section 4.4.
ref_tar() {
	python3 - "$1" "$2" "$SPEC" <<'PY'
import os, re, stat, sys, unicodedata
exec(re.search(r"```python\n(.*?)```", open(sys.argv[3]).read(), re.S).group(1))
root, manifests = sys.argv[1], {b"manifest.yml", b"soyapack.yaml", b"holon.yaml", b"augr.pkg.yml"}
entries = []
for dirpath, dirs, files in os.walk(root):
    for name in dirs + files:
        full = os.path.join(dirpath, name)
        rel = os.path.relpath(full, root)
        path = unicodedata.normalize("NFC", rel).encode()
        st = os.lstat(full)
        is_dir = stat.S_ISDIR(st.st_mode)
        mode = 0o755 if is_dir or st.st_mode & 0o100 else 0o644
        data = b"" if is_dir else open(full, "rb").read()
        entries.append((path, is_dir, mode, data))
entries.sort(key=lambda e: (e[0] not in manifests, e[0]))
sys.stdout.buffer.write(canonical_tar(entries, int(sys.argv[2])))
PY
}

# A pack whose names reach every case of sections 4.2 and 4.3.
names_pack() {
	local p a99 m55
	p=$(copy_pack "$AGENTPACK")
	a99=$(printf 'a%.0s' {1..99}) m55=$(printf 'm%.0s' {1..55})
	echo x >"$p/é.md"
	mkdir -p "$p/ü/sub" && echo x >"$p/ü/sub/ä.md"
	for n in 85 86 87; do echo x >"$p/$(printf 'n%.0s' $(seq "$n"))é"; done
	echo x >"$p/$(printf 'r%.0s' {1..100})"
	mkdir -p "$p/dir" && echo x >"$p/dir/$(printf 'f%.0s' {1..95})"
	mkdir -p "$p/$a99/$m55" && echo x >"$p/$a99/$m55/$(printf 'g%.0s' {1..80})"
	mkdir -p "$p/$(printf 'c%.0s' {1..60})/$(printf 'd%.0s' {1..60})/$(printf 'e%.0s' {1..40})"
	echo x >"$p/$(printf 'c%.0s' {1..60})/$(printf 'd%.0s' {1..60})/$(printf 'e%.0s' {1..40})/h"
	echo "$p"
}

@test "canonical-tar.md 4.4: the reference encoder writes packsign's bytes, whatever the mtime" {
	p=$(names_pack)
	for m in 0 1700000000 2147483646 2147483647 4000000000 8589934591; do
		rm -f out.tar
		"$PACKSIGN" pack "$p" -o out.tar --mtime "$m" >/dev/null
		ref_tar "$p" "$m" >ref.tar
		cmp ref.tar out.tar
		[ "$(digest_field out.tar canonical)" = yes ]
	done
}

@test "canonical-tar.md 4.3: from mtime 2147483647 on, every entry has an 'x' header with an mtime record" {
	mkdir -p p/sub && printf 'id: x\n' >p/manifest.yml && echo y >p/sub/a.txt
	"$PACKSIGN" pack p -o below.tar --mtime 2147483646 >/dev/null
	[ "$(stat -c %s below.tar)" -eq $((512 * 7)) ]   # 3 headers, 2 data, 2 NUL: no 'x'
	"$PACKSIGN" pack p -o big.tar --mtime 8589934591 >/dev/null
	python3 - big.tar <<'PY'
import sys, tarfile
d = open(sys.argv[1], "rb").read()
x, main = d[0:512], d[1024:1536]
assert x[0:100].rstrip(b"\0") == b"PaxHeader/manifest.yml", x[0:100]
assert x[100:108] == b"000644 \0" and x[124:136] == b"00000000024 "
assert x[136:148] == b"17777777777 " and x[156:157] == b"x", x[136:157]
assert d[512:532] == b"20 mtime=8589934591\n" and d[532:1024] == b"\0" * 492
assert main[0:100].rstrip(b"\0") == b"manifest.yml" and main[136:148] == b"77777777777 "
assert d[2048:2048 + 13] == b"PaxHeader/sub" and d[2048 + 13] == 0   # no trailing '/'
assert d[2048 + 100:2048 + 108] == b"000755 \0"
with tarfile.open(sys.argv[1]) as t:
    for m in t.getmembers():
        assert m.mtime == 8589934591 and m.pax_headers == {"mtime": "8589934591"}, m.name
PY
}

@test "canonical-tar.md 4.3: an 88-byte non-ASCII root name gets a PaxHeader name cut inside a character" {
	p=$(copy_pack "$AGENTPACK")
	n86=$(printf 'a%.0s' {1..86})
	echo x >"$p/${n86}é"
	"$PACKSIGN" pack "$p" -o out.tar >/dev/null
	python3 - out.tar "$n86" <<'PY'
import sys
d, n86 = open(sys.argv[1], "rb").read(), sys.argv[2].encode()
name = n86 + "é".encode()
i = d.find(b"PaxHeader/" + n86)
assert i >= 0 and i % 512 == 0
assert d[i:i + 100] == b"PaxHeader/" + n86 + b"\xc3" + b"\0" * 3, d[i:i + 100]
assert d[i + 512:i + 512 + 97] == b"97 path=" + name + b"\n"
assert d[i + 1024:i + 1024 + 100] == name + b"\0" * 12
PY
	[ "$(digest_field out.tar canonical)" = yes ]
}

@test "canonical-tar.md 5: gzip member and zstd frame header as stated" {
	p=$(copy_pack "$AGENTPACK")
	python3 -c 'import random; r = random.Random(1); open("'"$p"'/big.md", "w").write(" ".join(str(r.random()) for _ in range(60000)))'
	"$PACKSIGN" pack "$p" -o a.tar >/dev/null
	"$PACKSIGN" pack "$p" -o a.tar.gz >/dev/null
	"$PACKSIGN" pack "$p" -o a.tar.zst >/dev/null
	python3 - a.tar a.tar.gz a.tar.zst <<'PY'
import struct, sys, zlib
tar, gz, zst = (open(f, "rb").read() for f in sys.argv[1:])
assert len(tar) > 1 << 20                             # several zstd blocks, gzip past a window
assert gz[:10] == bytes.fromhex("1f8b0800000000000003"), gz[:10]
d = zlib.decompressobj(-15)
assert d.decompress(gz[10:]) == tar and d.eof
assert d.unused_data == struct.pack("<II", zlib.crc32(tar), len(tar))   # one member, no more
c = zlib.compressobj(6, zlib.DEFLATED, -15, 8)
assert gz[10:-8] == c.compress(tar) + c.flush()       # level 6, no flush at entry boundaries
assert zst[:4] == bytes.fromhex("28b52ffd")
assert zst[4] == 0x00, zst[4]                         # no content size, checksum, dictionary
assert zst[5] == 0x58, zst[5]                         # 2 MiB window
i, blocks = 6, 0
while True:                                           # walk the blocks to the frame's end
    h = int.from_bytes(zst[i:i + 3], "little")
    last, kind, size = h & 1, (h >> 1) & 3, h >> 3
    i += 3 + (1 if kind == 1 else size)
    blocks += 1
    if last:
        break
assert i == len(zst) and blocks > 1, (i, len(zst))    # one frame, no checksum after it
PY
	zstd -qdc a.tar.zst | cmp - a.tar
}

# kept PATTERNS NAME...: packs a pack holding NAMEs (a trailing / makes a
# directory) with .packsignignore PATTERNS (printf format); prints what was
# packed besides the manifest and .packsignignore, one line.
kept() {
	local pat=$1 f
	shift
	rm -rf ig out.tar && mkdir ig && printf 'id: x\n' >ig/manifest.yml
	for f in "$@"; do
		mkdir -p "ig/$(dirname "$f")"
		case $f in */) mkdir -p "ig/$f" ;; *) echo x >"ig/$f" ;; esac
	done
	printf "$pat" >ig/.packsignignore
	"$PACKSIGN" pack ig -o out.tar >/dev/null
	tar -tf out.tar | grep -vx -e manifest.yml -e .packsignignore | tr '\n' ' ' | sed 's/ $//'
}

@test "canonical-tar.md 6: fnmatch dialect: brackets, escapes, case, characters" {
	[ "$(kept '[!a]*\n' a.txt b.txt)" = a.txt ]
	[ "$(kept '[^a]*\n' a.txt b.txt)" = a.txt ]
	[ "$(kept '[]a]\n' ']' a b)" = b ]
	[ "$(kept '[a\n' '[a' a)" = a ]                  # unclosed '[' is literal
	[ "$(kept '\\#a\n' '#a' a)" = a ]
	[ "$(kept '\\!a\n' '!a' a)" = a ]
	[ "$(kept '\\a\n' a b)" = b ]
	[ "$(kept '*\\\n' a)" = a ]                      # a trailing '\' never matches
	[ "$(kept '*.TXT\n' a.txt B.TXT)" = a.txt ]
	[ "$(kept '?\n' é ab)" = ab ]                    # one character, not one byte
	[ "$(kept '[a-z]\n' é b)" = é ]                  # ranges compare code points
	[ "$(kept '[[:digit:]]\n' a 1)" = a ]
	[ "$(kept '*\n' .hidden)" = "" ]                 # no FNM_PERIOD
	[ "$(kept '  a  \n\t#x\n#b\n' a '#x' '#b')" = "#b #x a" ]
	[ "$(kept 'a\r\n' a b)" = b ]
}

@test "canonical-tar.md 6: slashes anchor; '//' patterns match nothing; a BOM belongs to the first pattern" {
	[ "$(kept '/a\n' a d/a)" = "d/ d/a" ]
	[ "$(kept 'd/a\n' a d/a e/d/a)" = "a d/ e/ e/d/ e/d/a" ]
	[ "$(kept 'a/\n' a d/a/ a2/)" = "a a2/ d/" ]
	[ "$(kept 'd/*\n' d/x d/e/y)" = "d/" ]
	[ "$(kept 'd/*/\n' d/x d/e/)" = "d/ d/x" ]
	[ "$(kept '*/*\n' d/a a)" = "a d/" ]
	[ "$(kept '//a\n///\nd//a\nd[/]a\n' a d/a)" = "a d/ d/a" ]
	[ "$(kept '\xef\xbb\xbfa.txt\nb.txt\n' a.txt b.txt)" = a.txt ]
	[ "$(kept '\xef\xbb\xbf#c\n' "$(printf '\xef\xbb\xbf#c')" a)" = a ]
	for bad in '/\n' '//\n' '!a\n' 'a/**\n'; do
		rm -rf ig && mkdir ig && printf 'id: x\n' >ig/manifest.yml && printf "$bad" >ig/.packsignignore
		run "$PACKSIGN" pack ig -o out.tar
		[ "$status" -eq 1 ]
		[[ "$output" == *".packsignignore:1:"*"[ignore_syntax]" ]]
	done
}

@test "canonical-tar.md 1: an ignored name is never checked; one that is not UTF-8 cannot be matched" {
	[ "$(kept '*.bak\nsub/\n' 'a\b.bak' CON.bak 'x .bak' 'sub/NUL' 'sub/c:d' keep)" = keep ]
	"$PACKSIGN" digest ig | grep -qx 'entries: 3'
	run "$PACKSIGN" validate ig                      # the same walk: no name error
	[[ "$output" != *"[name_"* ]]
	echo x >"ig/$(printf 'z\xff.bak')"
	run "$PACKSIGN" pack ig -o out2.tar
	[ "$status" -eq 1 ]
	[[ "$output" == *"[name_not_utf8]" ]]
	rm "ig/$(printf 'z\xff.bak')" && echo x >'ig/a\b.txt'
	run "$PACKSIGN" pack ig -o out2.tar
	[ "$status" -eq 1 ]
	[[ "$output" == *"[name_forbidden_char]" ]]
}

@test "signature.md 6.4: the rebuild from git ignores before checking names, as pack does" {
	[ -x "$SIGNER" ] || skip "build/tests/ps-testsign missing (make tools)"
	"$PACKSIGN" keygen -o alice --identity alice --no-passphrase >/dev/null
	git init -q repo && mkdir -p repo/p
	cp -R "$EXAMPLES/$AGENTPACK/." repo/p/
	printf '*.bak\n' >repo/p/.packsignignore && echo x >'repo/p/a\b.bak' && echo x >repo/p/CON.bak
	git -C repo -c user.name=t -c user.email=t@example.com add -A
	git -C repo -c user.name=t -c user.email=t@example.com commit -qm one
	"$PACKSIGN" pack repo/p -o g.tar >/dev/null
	"$SIGNER" -s alice.key --source-repo https://github.com/o/r \
	    --source-commit "$(git -C repo rev-parse HEAD)" --source-path p g.tar
	run "$PACKSIGN" verify g.tar -p alice.pub --rebuild-from repo
	echo "$output"
	[ "$status" -eq 0 ]
}

@test "errors.md: a symbolic link .packsignignore is symlink_refused, a directory ignore_syntax" {
	mkdir ig && printf 'id: x\n' >ig/manifest.yml && echo '*.log' >rules
	ln -s ../rules ig/.packsignignore
	run "$PACKSIGN" pack ig -o out.tar
	[ "$status" -eq 1 ]
	[[ "$output" == *".packsignignore: is a symbolic link [symlink_refused]" ]]
	rm ig/.packsignignore && mkdir ig/.packsignignore
	run "$PACKSIGN" pack ig -o out.tar
	[ "$status" -eq 1 ]
	[[ "$output" == *"not a regular file [ignore_syntax]" ]]
}

@test "errors.md: a bad --mtime or SOURCE_DATE_EPOCH is invalid_mtime (exit 2), without a synopsis" {
	for m in -1 1.5 8589934592 '' ' 1' abc; do
		run "$PACKSIGN" pack "$EXAMPLES/$AGENTPACK" -o x.tar --mtime "$m"
		[ "$status" -eq 2 ]
		[[ "$output" == "packsign: --mtime: the mtime must be whole seconds since the epoch: expected 0 to 8589934591, found '$m' [invalid_mtime]" ]]
		[ ! -e x.tar ]
	done
	for cmd in "pack $EXAMPLES/$AGENTPACK -o x.tar" "digest $EXAMPLES/$AGENTPACK"; do
		SOURCE_DATE_EPOCH=soon run $PACKSIGN $cmd
		[ "$status" -eq 2 ]
		[[ "$output" == "packsign: SOURCE_DATE_EPOCH: "*"found 'soon' [invalid_mtime]" ]]
	done
}

@test "canonical-tar.md 4.1: an empty SOURCE_DATE_EPOCH is unset (pack, digest, sign)" {
	"$PACKSIGN" pack "$EXAMPLES/$AGENTPACK" -o unset.tar >/dev/null
	SOURCE_DATE_EPOCH= "$PACKSIGN" pack "$EXAMPLES/$AGENTPACK" -o empty.tar >/dev/null
	cmp unset.tar empty.tar
	[ "$(SOURCE_DATE_EPOCH= digest_field "$EXAMPLES/$AGENTPACK" tar_digest)" = "$(digest_field unset.tar tar_digest)" ]
	SOURCE_DATE_EPOCH=7 "$PACKSIGN" pack "$EXAMPLES/$AGENTPACK" -o seven.tar >/dev/null
	! cmp -s unset.tar seven.tar
	"$PACKSIGN" keygen -o k --identity k --no-passphrase >/dev/null
	# A copy: inside this work tree sign would read the clone's origin.
	SOURCE_DATE_EPOCH= "$PACKSIGN" sign "$(copy_pack "$AGENTPACK")" -s k.key -o s.tar >/dev/null
	cmp s.tar unset.tar
	python3 - s.tar.sig <<'PY'
import base64, json, sys
st = json.loads(base64.b64decode(json.load(open(sys.argv[1]))["payload"]))
assert st["predicate"]["build"]["mtime"] == 0, st["predicate"]["build"]
PY
}

@test "signature.md 3, step 8: a malformed recorded commit is statement_invalid; commit_invalid is a SHA-256 id for the rebuild" {
	[ -x "$SIGNER" ] || skip "build/tests/ps-testsign missing (make tools)"
	"$PACKSIGN" keygen -o alice --identity alice --no-passphrase >/dev/null
	git init -q repo
	"$PACKSIGN" pack "$EXAMPLES/$AGENTPACK" -o r.tar >/dev/null
	"$SIGNER" -s alice.key --source-commit 0123456789abcdef0123456789abcdef01234567 \
	    --set 'predicate.source.digest.gitCommit="main"' r.tar
	run "$PACKSIGN" verify r.tar -p alice.pub
	[ "$status" -eq 1 ]
	[[ "$output" == *"found main [statement_invalid]" ]]
	c64=$(printf 'ab%.0s' {1..32})
	"$SIGNER" -s alice.key --source-commit "$c64" r.tar
	run "$PACKSIGN" verify r.tar -p alice.pub
	[ "$status" -eq 0 ]
	run "$PACKSIGN" verify r.tar -p alice.pub --rebuild-from repo
	[ "$status" -eq 1 ]
	[[ "$output" == *"found $c64 [commit_invalid]" ]]
}

@test "errors.md: subject names break name rules with name_* codes; a '/' is statement_invalid" {
	[ -x "$SIGNER" ] || skip "build/tests/ps-testsign missing (make tools)"
	"$PACKSIGN" keygen -o alice --identity alice --no-passphrase >/dev/null
	"$PACKSIGN" pack "$EXAMPLES/$AGENTPACK" -o r.tar >/dev/null
	for c in '"a/r.tar":statement_invalid' '"../r.tar":name_dot_component' \
	    '"CON.tar":name_reserved' '"r\\\\.tar":name_forbidden_char' \
	    '"r.tar ":name_reserved' '"":name_empty_component'; do
		"$SIGNER" -s alice.key --set "subject.0.name=${c%:*}" r.tar
		run "$PACKSIGN" verify r.tar -p alice.pub
		[ "$status" -eq 1 ]
		[[ "$output" == "packsign: subject.name: "*"[${c##*:}]" ]]
	done
}
