#!/usr/bin/env bats
# CLI tests: the v2 predicate's chunk digests (docs/formats/signature.md,
# section 4.4): sign writes them (v1 with --predicate-version 1, and for a
# zip); verify reads a tar with a v2 statement once, each 1 MiB chunk
# authenticated before it is parsed; every chunk flipped, the archive cut
# or extended, chunks reordered, the signed list edited are refused; and
# tests/tools/chunkcheck.py, an outsider's check written from the spec,
# agrees with what packsign writes and refuses.

load helpers
bats_require_minimum_version 1.5.0

SIGNER="${PACKSIGN_TESTSIGN:-$BATS_TEST_DIRNAME/../../build/tests/ps-testsign}"
CHECK="$BATS_TEST_DIRNAME/../tools/chunkcheck.py"
MIB=1048576

setup_file() {
	cd "$BATS_FILE_TMPDIR"
	"$PACKSIGN" keygen -o k --no-passphrase -q
	cp -R "$EXAMPLES/$AGENTPACK" big
	# 4 chunks, the last one short
	head -c 3500000 /dev/urandom >big/prompts/big.bin
	"$PACKSIGN" pack big -o big.tar -q
	"$PACKSIGN" sign big.tar -s k.key -q
}

setup() {
	cd "$BATS_TEST_TMPDIR"
	command -v python3 >/dev/null || skip "python3 missing"
	cp "$BATS_FILE_TMPDIR"/k.* "$BATS_FILE_TMPDIR"/big.tar* .
}

payload() { jq -r .payload "$1" | base64 -d; }

# verify_refused ARCHIVE WORDS: exit 1, subject_mismatch, WORDS in it.
verify_refused() {
	run "$PACKSIGN" verify "$1" -p k.pub --sig big.tar.sig
	[ "$status" -eq 1 ]
	[[ "$output" == *"[subject_mismatch]"* ]]
	[[ "$output" == *"$2"* ]]
	run python3 "$CHECK" "$1" big.tar.sig
	[ "$status" -eq 1 ]
}

@test "chunks: sign writes v2, its digests the outsider's; verify reads the tar once" {
	[ "$(payload big.tar.sig | jq -r .predicateType)" = \
	    https://packsign.dev/attestation/pack/v2 ]
	payload big.tar.sig | jq -r '.predicate.chunks.sha256[]' >signed
	python3 "$CHECK" big.tar --print >outsider
	[ "$(wc -l <signed)" -eq 4 ]
	diff signed outsider
	[ "$(payload big.tar.sig | jq .predicate.chunks.archiveSize)" = \
	    "$(stat -c %s big.tar)" ]
	run python3 "$CHECK" big.tar
	[ "$status" -eq 0 ]
	[ "$output" = "v2: 4 chunks match" ]
	run "$PACKSIGN" verify big.tar -p k.pub --json
	[ "$status" -eq 0 ]
	[ "$(jq -r '.results[0].read.how' <<<"$output")" = chunks ]
}

@test "chunks: --predicate-version 1 writes v1 (no chunks), verified the v1 way" {
	"$PACKSIGN" sign big.tar -s k.key -q --force --predicate-version 1
	[ "$(payload big.tar.sig | jq -r .predicateType)" = \
	    https://packsign.dev/attestation/pack/v1 ]
	[ "$(payload big.tar.sig | jq .predicate.chunks)" = null ]
	run python3 "$CHECK" big.tar
	[ "$output" = "v1: no chunks" ]
	run "$PACKSIGN" verify big.tar -p k.pub --json
	[ "$status" -eq 0 ]
	[ "$(jq -r '.results[0].read.how' <<<"$output")" != chunks ]
	run "$PACKSIGN" sign big.tar -s k.key --force --predicate-version 3
	[ "$status" -eq 2 ]
}

@test "chunks: a zip is signed with v1" {
	(cd "$EXAMPLES/$AGENTPACK" && zip -qrX "$BATS_TEST_TMPDIR/r.zip" .)
	"$PACKSIGN" sign r.zip -s k.key -q
	[ "$(payload r.zip.sig | jq -r .predicateType)" = \
	    https://packsign.dev/attestation/pack/v1 ]
	"$PACKSIGN" verify r.zip -p k.pub -q
}

@test "chunks: each chunk flipped is refused at that chunk, before it is parsed" {
	for i in 0 1 2 3; do
		cp "$BATS_FILE_TMPDIR/big.tar" t.tar
		flip_byte t.tar $((i * MIB + 4321))
		verify_refused t.tar "chunk $i (bytes from $((i * MIB)))"
	done
}

@test "chunks: cut at a chunk boundary or inside one, extended, reordered: refused" {
	head -c $((2 * MIB)) big.tar >t.tar
	verify_refused t.tar "the file ended at $((2 * MIB)) bytes"
	head -c $((2 * MIB + 100)) big.tar >t.tar
	verify_refused t.tar "chunk 2"
	cp big.tar t.tar
	printf 'x' >>t.tar
	verify_refused t.tar "chunk 3"
	cp big.tar t.tar
	head -c $MIB /dev/zero >>t.tar
	verify_refused t.tar "chunk 3"
	# chunks 0 and 1 swapped
	{ dd if=big.tar bs=$MIB skip=1 count=1 status=none
	  dd if=big.tar bs=$MIB count=1 status=none
	  dd if=big.tar bs=$MIB skip=2 status=none; } >t.tar
	[ "$(stat -c %s t.tar)" -eq "$(stat -c %s big.tar)" ]
	verify_refused t.tar "chunk 0 (bytes from 0)"
}

@test "chunks: a one-chunk tar (read into a buffer of its size and a byte) cut or extended by one byte or by 70,000: refused at chunk 0, on a file and a pipe" {
	"$PACKSIGN" pack "$EXAMPLES/$AGENTPACK" -o one.tar -q
	"$PACKSIGN" sign one.tar -s k.key -q
	[ "$(payload one.tar.sig | jq '.predicate.chunks.sha256 | length')" -eq 1 ]
	size=$(stat -c %s one.tar)
	[ "$size" -lt 65536 ]
	"$PACKSIGN" verify one.tar -p k.pub -q
	refused_one() {
		run "$PACKSIGN" verify t.tar -p k.pub --sig one.tar.sig
		echo "$output"
		[ "$status" -eq 1 ]
		[[ "$output" == *"chunk 0 (bytes from 0)"*"[subject_mismatch]"* ]]
		run "$PACKSIGN" install - --sig one.tar.sig -p k.pub --data-dir d \
		    --yes < <(cat t.tar)
		[ "$status" -eq 1 ]
		[[ "$output" == *"[subject_mismatch]"* ]]
		[ ! -d d/agentpacks ] || [ -z "$(ls -A d/agentpacks)" ]
	}
	cp one.tar t.tar; printf 'x' >>t.tar; refused_one
	cp one.tar t.tar; head -c 70000 /dev/zero >>t.tar; refused_one
	head -c $((size - 1)) one.tar >t.tar; refused_one
	head -c $((size - 512)) one.tar >t.tar; refused_one
}

@test "chunks: a signed list that disagrees with the bytes is refused; shortened or lengthened, invalid" {
	[ -x "$SIGNER" ] || skip "build/tests/ps-testsign missing (make tools)"
	list=$(payload big.tar.sig | jq -c .predicate.chunks)
	v2='predicateType="https://packsign.dev/attestation/pack/v2"'
	swapped=$(jq -c '.sha256 |= [.[1], .[0], .[2], .[3]]' <<<"$list")
	"$SIGNER" -s k.key --set "$v2" --set "predicate.chunks=$swapped" big.tar
	run "$PACKSIGN" verify big.tar -p k.pub
	[ "$status" -eq 1 ]
	[[ "$output" == *"chunk 0 (bytes from 0)"*"[subject_mismatch]"* ]]
	run python3 "$CHECK" big.tar
	[ "$status" -eq 1 ]
	short=$(jq -c '.sha256 |= .[:3]' <<<"$list")
	"$SIGNER" -s k.key --set "$v2" --set "predicate.chunks=$short" big.tar
	run "$PACKSIGN" verify big.tar -p k.pub
	[ "$status" -eq 1 ]
	[[ "$output" == *"[statement_invalid]"* ]]
	long=$(jq -c '.sha256 += [.sha256[0]]' <<<"$list")
	"$SIGNER" -s k.key --set "$v2" --set "predicate.chunks=$long" big.tar
	run "$PACKSIGN" verify big.tar -p k.pub
	[ "$status" -eq 1 ]
	[[ "$output" == *"[statement_invalid]"* ]]
	# the size one byte off: the last chunk no longer matches
	off=$(jq -c '.archiveSize -= 1' <<<"$list")
	"$SIGNER" -s k.key --set "$v2" --set "predicate.chunks=$off" big.tar
	run "$PACKSIGN" verify big.tar -p k.pub
	[ "$status" -eq 1 ]
	[[ "$output" == *"[subject_mismatch]"* ]]
	run python3 "$CHECK" big.tar
	[ "$status" -eq 1 ]
}

@test "chunks: install of a tar with a v2 statement installs what was signed" {
	run "$PACKSIGN" install big.tar -p k.pub --data-dir d --yes --json
	[ "$status" -eq 0 ]
	[ "$(jq -r .ok <<<"$output")" = true ]
	cp "$BATS_FILE_TMPDIR/big.tar" t.tar
	flip_byte t.tar $((2 * MIB + 5))
	run "$PACKSIGN" install t.tar --sig big.tar.sig -p k.pub --data-dir d2 --yes
	echo "$output"
	[ "$status" -eq 1 ]
	[[ "$output" == *"[subject_mismatch]"* ]]
	[ ! -d d2/agentpacks ] || [ -z "$(ls -A d2/agentpacks)" ]
}

@test "chunks: install - --sig FILE streams a v2 tar from standard input, once" {
	run "$PACKSIGN" install - --sig big.tar.sig -p k.pub --data-dir d --yes \
	    --json < <(cat big.tar)
	[ "$status" -eq 0 ]
	[ "$(jq -r .ok <<<"$output")" = true ]
	[ "$(jq -r .verify.read.how <<<"$output")" = chunks ]
	tree=$(jq -r .path <<<"$output")
	cmp "$tree/prompts/big.bin" "$BATS_FILE_TMPDIR/big/prompts/big.bin"
	# refused before the chunk is parsed, nothing installed, no leftovers
	cp big.tar t.tar
	flip_byte t.tar $((MIB + 9))
	run "$PACKSIGN" install - --sig big.tar.sig -p k.pub --data-dir d2 \
	    --yes < <(cat t.tar)
	[ "$status" -eq 1 ]
	[[ "$output" == *"chunk 1 (bytes from $MIB)"*"[subject_mismatch]"* ]]
	[ -z "$(ls -A d2/.tmp 2>/dev/null)" ]
	[ ! -d d2/agentpacks ] || [ -z "$(ls -A d2/agentpacks)" ]
	# the right bytes, then more
	run "$PACKSIGN" install - --sig big.tar.sig -p k.pub --data-dir d2 \
	    --yes < <(cat big.tar; printf 'more')
	[ "$status" -eq 1 ]
	[[ "$output" == *"[subject_mismatch]"* ]]
	[ ! -d d2/agentpacks ] || [ -z "$(ls -A d2/agentpacks)" ]
}

@test "chunks: install - with a v1 statement copies it first, at most --max-size" {
	"$PACKSIGN" sign big.tar -s k.key -q --force --predicate-version 1
	run "$PACKSIGN" install - --sig big.tar.sig -p k.pub --data-dir d \
	    --yes --json < <(cat big.tar)
	[ "$status" -eq 0 ]
	[ "$(jq -r .verify.read.how <<<"$output")" = "private copy" ]
	# standard input a file, not a pipe: read in place, under a lease
	run "$PACKSIGN" install - --sig big.tar.sig -p k.pub --data-dir d3 \
	    --yes --json <big.tar
	[ "$status" -eq 0 ]
	[[ "$(jq -r .verify.read.how <<<"$output")" == @(lease|private copy) ]]
	run "$PACKSIGN" install - --sig big.tar.sig -p k.pub --data-dir d2 \
	    --yes --max-size 1000000 < <(cat big.tar)
	[ "$status" -eq 1 ]
	[[ "$output" == *"[extract_too_large]"* ]]
	run "$PACKSIGN" install - -p k.pub --data-dir d2 --yes < <(cat big.tar)
	[ "$status" -eq 2 ]
	[[ "$output" == *"--sig FILE"* ]]
}
