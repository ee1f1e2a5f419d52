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
