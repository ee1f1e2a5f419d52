# Shared set-up for the CLI tests.  $PACKSIGN is the binary under test.
: "${PACKSIGN:=$BATS_TEST_DIRNAME/../../build/packsign}"
EXAMPLES="$BATS_TEST_DIRNAME/../../examples/packs"
AGENTPACK=research.top-journal-reviewer

# copy_pack NAME: a private, writable copy of an example pack; prints its path.
copy_pack() {
	local dst="$BATS_TEST_TMPDIR/$1"
	rm -rf "$dst"
	cp -R "$EXAMPLES/$1" "$dst"
	chmod -R u+w "$dst"
	echo "$dst"
}

# digest_field PATH FIELD: one value of `packsign digest`.
digest_field() {
	"$PACKSIGN" digest "$1" | sed -n "s/^$2: //p"
}

# no_temp_files DIR: fails if an atomic-output temporary file was left.
no_temp_files() {
	[ -z "$(find "$1" -maxdepth 1 -name '.*.??????' -print -quit)" ]
}

# Sigstore's JavaScript libraries (tests/node), installed into build/node by
# scripts/install-deps.
NODE_DIR="$BATS_TEST_DIRNAME/../../build/node"

# node_or_skip: Sigstore's libraries in build/node, else skip (fail under CI).
node_or_skip() {
	if command -v node >/dev/null &&
	    [ -d "$NODE_DIR/node_modules/@sigstore/verify" ] &&
	    [ -d "$NODE_DIR/node_modules/@sigstore/bundle" ]; then
		# The locked packages' engines: an older Node (Debian 12 ships
		# 18) is not a missing package but a platform they do not run
		# on; said, not failed.
		node -e 'const [a, b] = process.versions.node.split(".").map(Number);
		    process.exit(a === 20 && b >= 17 || a === 22 && b >= 9 || a > 22 ? 0 : 1)' ||
		    skip "Node $(node --version) is older than the locked @sigstore packages need (^20.17.0 || >=22.9.0)"
		return 0
	fi
	if [ "${CI:-}" = true ]; then
		echo "CI=true: node or build/node/node_modules missing (scripts/install-deps)" >&2
		return 1
	fi
	skip "node or @sigstore/verify missing (scripts/install-deps installs them into build/node)"
}

# flip_byte FILE OFFSET: the byte at OFFSET xor 1, in place.  Writing a
# fixed byte such as 'X' over random data leaves it as it was once in 256
# times, and a test expecting a refusal then sees the file accepted.
flip_byte() {
	local b
	b=$(od -An -tu1 -j "$2" -N1 "$1" | tr -d ' ')
	# shellcheck disable=SC2059
	printf "\\$(printf %03o $((b ^ 1)))" |
	    dd of="$1" bs=1 seek="$2" conv=notrunc status=none
}
