# Helpers for validate.bats and describe.bats: copy an example pack into
# the test's temporary directory, then edit its manifest with sed.

EXAMPLES="$BATS_TEST_DIRNAME/../../examples/packs"

# pack NAME: copies examples/packs/NAME to $P (a fresh temporary copy).
pack() {
	P="$BATS_TEST_TMPDIR/$1"
	rm -rf "$P"
	cp -R "$EXAMPLES/$1" "$P"
}

# edit FILE SED-SCRIPT: edits a file of the copied pack in place.
edit() {
	sed -i -e "$2" "$P/$1"
}

# validate [ARGS...]: runs packsign validate on $P with ARGS.
validate() {
	run "$PACKSIGN" validate "$P" "$@"
}

# has_code CODE: the output holds a diagnostic with [CODE].
has_code() {
	if ! grep -qF "[$1]" <<<"$output"; then
		echo "expected [$1] in:"
		echo "$output"
		return 1
	fi
}

# refused_with CODE: exit 1, an error diagnostic [CODE], summary "invalid".
refused_with() {
	if [ "$status" -ne 1 ]; then
		echo "expected exit 1, got $status:"
		echo "$output"
		return 1
	fi
	has_code "$1"
	grep -qE ": error: .*\[$1\]" <<<"$output" || {
		echo "[$1] is not an error:"; echo "$output"; return 1; }
	grep -qE "^$P: invalid" <<<"$output" || {
		echo "no invalid summary:"; echo "$output"; return 1; }
}

# valid_ok: exit 0 and a "valid" summary.
valid_ok() {
	if [ "$status" -ne 0 ]; then
		echo "expected exit 0, got $status:"
		echo "$output"
		return 1
	fi
	grep -qE "^$P: valid " <<<"$output"
}
