#!/usr/bin/env bats
# The local Sigstore (tests/sigstore): its self-tests, and every case that
# tests/sigstore/mkcases writes checked by an independent verifier,
# @sigstore/verify (tests/node/sigstore_cases.js), against the outcomes
# tests/sigstore/sigstore-js.expected records (its known differences with
# their reasons).  Offline; packsign itself is not run here.

load helpers
bats_require_minimum_version 1.5.0

SIGSTORE_DIR="$BATS_TEST_DIRNAME/../sigstore"
EXPECTED="$SIGSTORE_DIR/sigstore-js.expected"

# python_or_skip: sets PY to a python3 with python3-cryptography and pytest
# (scripts/install-deps), else skips (fails under CI).
python_or_skip() {
	local py
	for py in python3 /usr/bin/python3; do
		if command -v "$py" >/dev/null 2>&1 &&
		    "$py" -c 'import cryptography, pytest' >/dev/null 2>&1; then
			PY=$py
			return 0
		fi
	done
	if [ "${CI:-}" = true ]; then
		echo "CI=true: no python3 with cryptography and pytest (scripts/install-deps)" >&2
		return 1
	fi
	skip "no python3 with cryptography and pytest (scripts/install-deps installs them)"
}

setup_file() {
	export PYTHONDONTWRITEBYTECODE=1
}

# cases: the cases directory, made once per file.
cases() {
	local dir=$BATS_FILE_TMPDIR/cases
	if [ ! -d "$dir" ]; then
		"$PY" "$SIGSTORE_DIR/mkcases" "$BATS_FILE_TMPDIR/cases.new" >&2 || return 1
		mv "$BATS_FILE_TMPDIR/cases.new" "$dir"
	fi
	echo "$dir"
}

# js_results: @sigstore/verify's line for every case (NAME, verified or
# refused, the error), made once per file.
js_results() {
	local out=$BATS_FILE_TMPDIR/js.txt dir
	if [ ! -f "$out" ]; then
		dir=$(cases) || return 1
		NODE_PATH="$NODE_DIR/node_modules" node "$BATS_TEST_DIRNAME/../node/sigstore_cases.js" \
		    "$dir"/*/ >"$out.new" || return 1
		mv "$out.new" "$out"
	fi
	echo "$out"
}

# keep_case DIR: a case @sigstore/verify disagreed on, kept under
# build/test-failures/sigstore-js/ (mkcases draws fresh ECDSA nonces every
# run, so the bytes that failed cannot be made again).
keep_case() {
	local kept
	kept="$BATS_TEST_DIRNAME/../../build/test-failures/sigstore-js/$(basename "$1").$$"
	mkdir -p "$(dirname "$kept")" && rm -rf "$kept" && cp -R "$1" "$kept" &&
	    echo "kept the case in $kept" >&2
}

# expected_lines: sigstore-js.expected without its comments.
expected_lines() {
	grep -v '^#' "$EXPECTED"
}

@test "local sigstore: Merkle tree (RFC 6962 vectors), signed notes (C2SP example), services (pytest)" {
	python_or_skip
	run "$PY" -m pytest -q -p no:cacheprovider "$SIGSTORE_DIR/tests"
	echo "$output"
	[ "$status" -eq 0 ]
	[[ "$output" == *" passed"* ]]
}

@test "mkcases: one directory per listed case, names ending _fail for refusals, the suite's files" {
	python_or_skip
	dir=$(cases)
	"$PY" "$SIGSTORE_DIR/mkcases" --list | cut -f1 | sort >"$BATS_TEST_TMPDIR/listed"
	(cd "$dir" && ls -d -- */ | tr -d / | sort) >"$BATS_TEST_TMPDIR/made"
	diff "$BATS_TEST_TMPDIR/listed" "$BATS_TEST_TMPDIR/made"
	[ "$(grep -c '_fail$' "$BATS_TEST_TMPDIR/made")" -ge 30 ]
	[ "$(grep -vc '_fail$' "$BATS_TEST_TMPDIR/made")" -ge 20 ]
	for c in "$dir"/*/; do
		[ -s "$c/bundle.sigstore.json" ] && [ -s "$c/trusted_root.json" ] && [ -s "$c/artifact" ]
		[ -s "$c/key.pub" ] || { [ -s "$c/identity" ] && [ -s "$c/issuer" ]; }
	done
}

@test "mkcases --only CASE --seed TEXT: that case alone, from other keys" {
	python_or_skip
	run "$PY" "$SIGSTORE_DIR/mkcases" --only happy-rekor2 --seed other "$BATS_TEST_TMPDIR/one"
	[ "$status" -eq 0 ]
	[ "$output" = "mkcases: wrote 1 case to $BATS_TEST_TMPDIR/one" ]
	[ "$(cd "$BATS_TEST_TMPDIR/one" && ls -d -- */)" = "happy-rekor2/" ]
	dir=$(cases)
	run cmp -s "$dir/happy-rekor2/trusted_root.json" "$BATS_TEST_TMPDIR/one/happy-rekor2/trusted_root.json"
	[ "$status" -eq 1 ]
	run "$PY" "$SIGSTORE_DIR/mkcases" "$BATS_TEST_TMPDIR/one"
	[ "$status" -eq 2 ]
}

@test "sigstore-js.expected and the README name every case mkcases writes, once, and no other" {
	python_or_skip
	"$PY" "$SIGSTORE_DIR/mkcases" --list | cut -f1 | sort >"$BATS_TEST_TMPDIR/listed"
	expected_lines | cut -f1 | sort >"$BATS_TEST_TMPDIR/expected"
	diff "$BATS_TEST_TMPDIR/listed" "$BATS_TEST_TMPDIR/expected"
	[ -z "$(uniq -d "$BATS_TEST_TMPDIR/expected")" ]
	sed -n 's/^| `\([^`]*\)` | \(verified\|refused\) |.*/\1/p' "$SIGSTORE_DIR/README.md" |
	    sort >"$BATS_TEST_TMPDIR/readme"
	diff "$BATS_TEST_TMPDIR/listed" "$BATS_TEST_TMPDIR/readme"
}

@test "sigstore-js.expected: a reason for exactly the outcomes that contradict the case's name" {
	local name outcome note want got bad=0
	while IFS=$'\t' read -r name outcome note; do
		want=verified
		[[ "$name" == *_fail ]] && want=refused
		got=refused
		[ "$outcome" = verified ] && got=verified
		if [ "$want" != "$got" ] && [[ "$note" != "differs: "?* ]]; then
			echo "$name: @sigstore/verify says $got, the case $want, and no reason is given" >&2
			bad=1
		fi
		if [ "$want" = "$got" ] && [ -n "$note" ]; then
			echo "$name: a difference is noted where there is none" >&2
			bad=1
		fi
	done < <(expected_lines)
	[ "$bad" -eq 0 ]
}

@test "@sigstore/verify: every case verified or refused as sigstore-js.expected says" {
	python_or_skip
	node_or_skip
	local results name outcome note line agree=0 differ=0 bad=0 dir
	results=$(js_results)
	dir=$(cases)
	[ "$(wc -l <"$results")" -eq "$(expected_lines | wc -l)" ]
	while IFS=$'\t' read -r name outcome note; do
		line=$(grep -F "$name	" "$results" | head -1)
		[ -n "$line" ] || { echo "$name: no result" >&2; bad=1; continue; }
		if [ "$outcome" = verified ]; then
			[ "$(cut -f2 <<<"$line")" = verified ] ||
			    { echo "expected verified: $line" >&2; keep_case "$dir/$name"; bad=1; }
		else
			[ "$(cut -f2 <<<"$line")" = refused ] && [[ "$(cut -f3 <<<"$line")" == "$outcome"* ]] ||
			    { echo "expected refused ($outcome): $line" >&2; keep_case "$dir/$name"; bad=1; }
		fi
		if [ -n "$note" ]; then differ=$((differ + 1)); else agree=$((agree + 1)); fi
	done < <(expected_lines)
	echo "# @sigstore/verify: $agree cases as expected, $differ known differences" >&3
	[ "$bad" -eq 0 ]
}
