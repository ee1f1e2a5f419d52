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
	SOURCE_DATE_EPOCH= "$PACKSIGN" sign "$EXAMPLES/$AGENTPACK" -s k.key -o s.tar >/dev/null
	cmp s.tar unset.tar
	python3 - s.tar.sig <<'PY'
import base64, json, sys
st = json.loads(base64.b64decode(json.load(open(sys.argv[1]))["payload"]))
assert st["predicate"]["build"]["mtime"] == 0, st["predicate"]["build"]
PY
}
