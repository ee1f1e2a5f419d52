#!/usr/bin/env bats
# What packsign 0.1.0 wrote and signed stays valid (tests/fixtures/v0.1.0).

load helpers

FIXTURES="$BATS_TEST_DIRNAME/../fixtures/v0.1.0"

setup() {
	cd "$BATS_TEST_TMPDIR"
}

@test "archives signed by 0.1.0 verify, one per compression" {
	for c in tar tar.gz tar.zst; do
		run "$PACKSIGN" verify "$FIXTURES/reviewer-0.1.0.$c" -p "$FIXTURES/fixture.pub" --deep
		echo "$output"
		[ "$status" -eq 0 ]
		[[ "$output" == "Good signature: research.top-journal-reviewer 0.1.0 by packsign-0.1.0-fixture"* ]]
		minisign -Vm "$FIXTURES/reviewer-0.1.0.$c" -p "$FIXTURES/fixture.pub" \
		    -x "$FIXTURES/reviewer-0.1.0.$c.minisig" -q
	done
}

@test "archives signed by 0.1.0 are canonical and install" {
	for c in tar tar.gz tar.zst; do
		[ "$(digest_field "$FIXTURES/reviewer-0.1.0.$c" canonical)" = yes ]
		run "$PACKSIGN" install "$FIXTURES/reviewer-0.1.0.$c" \
		    -p "$FIXTURES/fixture.pub" --data-dir "$BATS_TEST_TMPDIR/d-$c" --yes
		echo "$output"
		[ "$status" -eq 0 ]
	done
	run "$PACKSIGN" list --data-dir "$BATS_TEST_TMPDIR/d-tar.zst" --verify
	[ "$status" -eq 0 ]
}

@test "a 0.1.0 archive repacked by this packsign is the same tar" {
	p=$(copy_pack "$AGENTPACK")
	"$PACKSIGN" pack "$p" -o now.tar --mtime 1700000000
	zstd -dc "$FIXTURES/reviewer-0.1.0.tar.zst" | cmp - now.tar
	cmp "$FIXTURES/reviewer-0.1.0.tar" now.tar
}
