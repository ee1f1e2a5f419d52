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
