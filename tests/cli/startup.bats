#!/usr/bin/env bats
# CLI tests: which shared libraries a command loads.  libgit2 and libcurl
# (and the 30-odd libraries they bring) are opened by dynlib/ only when a
# command needs them: provenance, rebuild, a text diff, an https
# download.  The dynamic loader's LD_DEBUG=files log names every object
# it opens, at start-up and by dlopen; both the CLI and the CLI linked
# against the shared library are checked.

load helpers
bats_require_minimum_version 1.5.0

SHARED_CLI="$(dirname "$PACKSIGN")/tests/packsign-shared"

setup_file() {
	cd "$BATS_FILE_TMPDIR"
	unset PACKSIGN_DATA_DIR SOURCE_DATE_EPOCH
	"$PACKSIGN" keygen -o k --identity alice --no-passphrase >/dev/null
	cp -R "$EXAMPLES/$AGENTPACK" pack
	chmod -R u+w pack
	"$PACKSIGN" sign pack -s k.key -o pack.tar >/dev/null
	cp -R pack pack2
	sed -i 's/^version: .*/version: 0.2.0/' pack2/manifest.yml
	"$PACKSIGN" sign pack2 -s k.key -o pack2.tar >/dev/null
}

# loaded BINARY ARGS...: the file names of every object the dynamic
# loader opened for the command (which must succeed), one per line.
loaded() {
	local bin=$1 log="$BATS_TEST_TMPDIR/ld.log"
	shift
	rm -f "$log"."*"
	LD_DEBUG=files LD_DEBUG_OUTPUT="$log" "$bin" "$@" >/dev/null
	sed -n 's/.*file=\([^ ]*\).*/\1/p' "$log".* | sort -u
}

# assert_not_loaded BINARY ARGS...: neither libgit2 nor libcurl.
assert_not_loaded() {
	local libs
	libs=$(cd "$BATS_FILE_TMPDIR" && loaded "$@")
	[ -n "$libs" ]
	if grep -E 'libgit2|libcurl' <<<"$libs"; then
		echo "loaded by: $*"
		return 1
	fi
}

@test "startup: --version, digest, verify and diff of local packs load neither libgit2 nor libcurl" {
	local bin
	for bin in "$PACKSIGN" "$SHARED_CLI"; do
		[ -x "$bin" ] || continue
		assert_not_loaded "$bin" --version
		assert_not_loaded "$bin" digest pack
		assert_not_loaded "$bin" digest pack.tar
		assert_not_loaded "$bin" verify pack.tar -p k.pub
		assert_not_loaded "$bin" diff pack.tar pack2.tar -p k.pub
		assert_not_loaded "$bin" validate pack
	done
}

@test "startup: the CLI links no shared library but the C library (CLI_LINK=static)" {
	run ldd "$PACKSIGN"
	[ "$status" -eq 0 ]
	! grep -E 'libarchive|libcrypto|libsodium|libyaml|libjansson|libgit2|libcurl' <<<"$output"
}

@test "startup: signing inside a git repository opens libgit2 for its provenance" {
	local repo="$BATS_TEST_TMPDIR/repo" libs
	mkdir "$repo"
	cp -R "$BATS_FILE_TMPDIR/pack" "$repo/pack"
	git -C "$repo" init -q
	git -C "$repo" remote add origin https://example.org/acme/pack.git
	git -C "$repo" add -A
	git -C "$repo" -c user.name=t -c user.email=t@example.org commit -qm p
	libs=$(cd "$BATS_FILE_TMPDIR" &&
	    loaded "$PACKSIGN" sign "$repo/pack" -s k.key -o "$BATS_TEST_TMPDIR/s.tar")
	grep -q 'libgit2\.so' <<<"$libs"
	! grep -q 'libcurl' <<<"$libs"
}

@test "startup: a diff that shows how a prompt changed opens libgit2 for the text diff" {
	local libs prompt
	cd "$BATS_TEST_TMPDIR"
	cp -R "$BATS_FILE_TMPDIR/pack" p3
	prompt=$(find p3 -name '*.md' -path '*prompt*' | head -n 1)
	[ -n "$prompt" ]
	echo "one more line" >>"$prompt"
	"$PACKSIGN" sign p3 -s "$BATS_FILE_TMPDIR/k.key" -o p3.tar >/dev/null
	libs=$(loaded "$PACKSIGN" diff "$BATS_FILE_TMPDIR/pack.tar" p3.tar \
	    -p "$BATS_FILE_TMPDIR/k.pub")
	grep -q 'libgit2\.so' <<<"$libs"
}
