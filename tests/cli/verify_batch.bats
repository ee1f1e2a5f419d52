#!/usr/bin/env bats
# CLI tests: packsign verify --files-from LIST [--jobs N] and verify A B C
# (the pool of cli/verify_batch.c): each archive reported as `verify A`
# alone reports it, in the list's order, whatever the number of jobs.

load helpers
bats_require_minimum_version 1.5.0

SIGNER="${PACKSIGN_TESTSIGN:-$BATS_TEST_DIRNAME/../../build/tests/ps-testsign}"

# Twenty archives a01..a20, each signed by alice under its own name, except
# a07 (one byte changed after signing: subject_mismatch) and a13 (no .sig:
# signature_missing); list20 names them in order.
setup_file() {
	cd "$BATS_FILE_TMPDIR"
	unset PACKSIGN_PASSPHRASE PACKSIGN_SECRET_KEY SOURCE_DATE_EPOCH
	[ -x "$SIGNER" ] || return 0
	"$PACKSIGN" keygen -o alice --identity alice --no-passphrase >/dev/null
	"$PACKSIGN" pack "$EXAMPLES/$AGENTPACK" -o r.tar.gz >/dev/null
	local i n
	for i in $(seq 1 20); do
		n=$(printf 'a%02d.tar.gz' "$i")
		"$PACKSIGN" pack "$EXAMPLES/$AGENTPACK" --mtime "$i" -o "$n" >/dev/null
		"$SIGNER" -s alice.key "$n"
		echo "$n" >>list20
	done
	printf '\001' | dd of=a07.tar.gz bs=1 seek=100 conv=notrunc status=none
	rm a13.tar.gz.sig
}

setup() {
	[ -x "$SIGNER" ] || skip "build/tests/ps-testsign missing (make tools)"
	cd "$BATS_FILE_TMPDIR"
	unset PACKSIGN_PASSPHRASE PACKSIGN_SECRET_KEY SOURCE_DATE_EPOCH
}

# The reference: each archive of list20 verified by a run of its own,
# stdout and stderr apart, then the closing line.
reference() {
	local a good=0 total=0
	: >"$BATS_TEST_TMPDIR/ref.out"
	: >"$BATS_TEST_TMPDIR/ref.err"
	for a in $(cat list20); do
		total=$((total + 1))
		"$PACKSIGN" verify "$a" -p alice.pub "$@" \
		    >>"$BATS_TEST_TMPDIR/ref.out" 2>>"$BATS_TEST_TMPDIR/ref.err" &&
		    good=$((good + 1)) || true
	done
	echo "FAILED: $good of $total verified" >>"$BATS_TEST_TMPDIR/ref.out"
}

@test "files-from: the same lines and exit as the operands, with --jobs 1, 2 and 8" {
	reference
	for j in 1 2 8; do
		"$PACKSIGN" verify --files-from list20 --jobs "$j" -p alice.pub \
		    >"$BATS_TEST_TMPDIR/out" 2>"$BATS_TEST_TMPDIR/err" && rc=0 || rc=$?
		[ "$rc" -eq 1 ]
		diff "$BATS_TEST_TMPDIR/ref.out" "$BATS_TEST_TMPDIR/out"
		diff "$BATS_TEST_TMPDIR/ref.err" "$BATS_TEST_TMPDIR/err"
	done
	[ "$(tail -1 "$BATS_TEST_TMPDIR/out")" = "FAILED: 18 of 20 verified" ]
}

# Issue 26: operands (verify *.tar.gz) go through the pool too.
@test "operands: the same lines and exit as one run each, with --jobs 1, 2 and 8" {
	reference
	for j in "" 1 2 8; do
		"$PACKSIGN" verify $(cat list20) ${j:+--jobs $j} -p alice.pub \
		    >"$BATS_TEST_TMPDIR/out" 2>"$BATS_TEST_TMPDIR/err" && rc=0 || rc=$?
		[ "$rc" -eq 1 ]
		diff "$BATS_TEST_TMPDIR/ref.out" "$BATS_TEST_TMPDIR/out"
		diff "$BATS_TEST_TMPDIR/ref.err" "$BATS_TEST_TMPDIR/err"
		run "$PACKSIGN" verify $(cat list20) ${j:+--jobs $j} -p alice.pub
		[[ "${lines[6]}" == "packsign: a07.tar.gz: "*"[subject_mismatch]" ]]
		[[ "${lines[12]}" == "packsign: a13.tar.gz: "*"[signature_missing]" ]]
	done
	run "$PACKSIGN" verify a01.tar.gz a02.tar.gz --jobs 3 -p alice.pub
	[ "$status" -eq 0 ]
	[ "${lines[2]}" = "All good: 2 of 2 verified" ]
}

@test "operands: verified by the pool's threads (--jobs of them and a reader)" {
	command -v strace >/dev/null || skip "strace is not installed"
	# LeakSanitizer cannot run under ptrace (an ASan build's tests).
	export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0"
	for j in 1 3; do
		strace -f -qq -o "$BATS_TEST_TMPDIR/trace" -e trace=clone,clone3 \
		    "$PACKSIGN" verify $(grep -v 'a07\|a13' list20) --jobs "$j" \
		    -p alice.pub >/dev/null
		[ "$(grep -c 'clone' "$BATS_TEST_TMPDIR/trace")" -eq $((j + 1)) ]
	done
	# One archive is verified on the calling thread, with its progress line.
	strace -f -qq -o "$BATS_TEST_TMPDIR/trace" -e trace=clone,clone3 \
	    "$PACKSIGN" verify a01.tar.gz -p alice.pub >/dev/null
	[ "$(grep -c 'clone' "$BATS_TEST_TMPDIR/trace")" -eq 0 ]
}

@test "operands --json: one document, results in the operands' order" {
	run -1 "$PACKSIGN" verify $(cat list20) --jobs 4 -p alice.pub --json
	jq -e '(.ok | not) and .verified == 18 and .total == 20 and
	    ([.results[].path] == [range(1; 21) | "a\(if . < 10 then "0" else "" end)\(.).tar.gz"]) and
	    .results[6].code == "subject_mismatch" and .results[12].exit == 1' <<<"$output"
	for a in a01.tar.gz a07.tar.gz; do
		"$PACKSIGN" verify "$a" -p alice.pub --json | jq -c '.results[0]' >one.json || true
		i=$(( 10#${a:1:2} - 1 ))
		jq -c ".results[$i]" <<<"$output" | diff one.json -
	done
}

@test "files-from: refusals in their place in the list's order (one stream)" {
	for j in 1 2 8; do
		run "$PACKSIGN" verify --files-from list20 --jobs "$j" -p alice.pub
		[ "$status" -eq 1 ]
		[ "${#lines[@]}" -eq 21 ]
		[[ "${lines[6]}" == "packsign: a07.tar.gz: "*"[subject_mismatch]" ]]
		[[ "${lines[12]}" == "packsign: a13.tar.gz: "*"[signature_missing]" ]]
		for i in 0 1 2 3 4 5 7 8 9 10 11 13 14 15 16 17 18 19; do
			[[ "${lines[$i]}" == "Good signature: $AGENTPACK 0.1.0 by alice"* ]]
		done
		[ "${lines[20]}" = "FAILED: 18 of 20 verified" ]
	done
}

@test "files-from -: the list on standard input" {
	reference
	"$PACKSIGN" verify --files-from - --jobs 2 -p alice.pub <list20 \
	    >"$BATS_TEST_TMPDIR/out" 2>"$BATS_TEST_TMPDIR/err" && rc=0 || rc=$?
	[ "$rc" -eq 1 ]
	diff "$BATS_TEST_TMPDIR/ref.out" "$BATS_TEST_TMPDIR/out"
	diff "$BATS_TEST_TMPDIR/ref.err" "$BATS_TEST_TMPDIR/err"
	run "$PACKSIGN" verify --files-from - -p alice.pub < <(printf 'a01.tar.gz\na02.tar.gz')
	[ "$status" -eq 0 ]
	[ "${lines[2]}" = "All good: 2 of 2 verified" ]
}

@test "files-from: all good is exit 0; one archive prints no summary" {
	grep -v 'a07\|a13' list20 >good
	run "$PACKSIGN" verify --files-from good --jobs 2 -p alice.pub
	[ "$status" -eq 0 ]
	[ "${#lines[@]}" -eq 19 ]
	[ "${lines[18]}" = "All good: 18 of 18 verified" ]
	echo a01.tar.gz >one
	run "$PACKSIGN" verify --files-from one -p alice.pub
	[ "$status" -eq 0 ]
	[ "${#lines[@]}" -eq 1 ]
	[[ "$output" == "Good signature: "* ]]
}

@test "files-from: -q prints the same" {
	reference -q
	"$PACKSIGN" verify --files-from list20 -q -p alice.pub \
	    >"$BATS_TEST_TMPDIR/out" 2>"$BATS_TEST_TMPDIR/err" && rc=0 || rc=$?
	[ "$rc" -eq 1 ]
	diff "$BATS_TEST_TMPDIR/ref.out" "$BATS_TEST_TMPDIR/out"
	diff "$BATS_TEST_TMPDIR/ref.err" "$BATS_TEST_TMPDIR/err"
}

@test "files-from --json: one object a line, each the operands' results[i]" {
	"$PACKSIGN" verify $(cat list20) -p alice.pub --json >ref.json || true
	for j in 1 8; do
		run -1 "$PACKSIGN" verify --files-from list20 --jobs "$j" \
		    -p alice.pub --json
		[ "${#lines[@]}" -eq 20 ]
		printf '%s\n' "$output" >lines.json
		jq -c '.results[]' ref.json | diff - <(jq -c . lines.json)
	done
	[ "$(jq -r .code lines.json | sed -n 7p)" = subject_mismatch ]
	[ "$(jq -r .exit lines.json | sed -n 13p)" = 1 ]
	[ "$(jq -r .path lines.json | sed -n 20p)" = a20.tar.gz ]
}

@test "files-from: a missing archive is exit 2, the rest still verified" {
	cp a01.tar.gz.sig none.tar.gz.sig
	printf 'a01.tar.gz\nnone.tar.gz\na02.tar.gz\n' >l
	run "$PACKSIGN" verify --files-from l --jobs 2 -p alice.pub
	[ "$status" -eq 2 ]
	[[ "${lines[1]}" == "packsign: none.tar.gz: "*"[not_found]" ]]
	[[ "${lines[2]}" == "Good signature: "* ]]
	[ "${lines[3]}" = "FAILED: 2 of 3 verified" ]
}

@test "files-from: empty lines skipped; CR, NUL and overlong lines reported in place" {
	long=$(head -c 5000 /dev/zero | tr '\0' a)
	{ printf '\na01.tar.gz\n\n\na02.tar.gz\r\n%s\n' "$long"
	  printf 'a0\0003.tar.gz\na04.tar.gz\n'; } >l
	run "$PACKSIGN" verify --files-from l --jobs 2 -p alice.pub
	[ "$status" -eq 2 ]
	[ "${#lines[@]}" -eq 6 ]
	[[ "${lines[0]}" == "Good signature: "* ]]
	[[ "${lines[1]}" == "packsign: l:5: "*"[files_from_crlf]" ]]
	[[ "${lines[2]}" == "packsign: l:6: "*"expected at most 4095 bytes (PATH_MAX - 1), found 5000 [files_from_line_too_long]" ]]
	[[ "${lines[3]}" == "packsign: l:7: "*"[files_from_nul]" ]]
	[[ "${lines[4]}" == "Good signature: "* ]]
	[ "${lines[5]}" = "FAILED: 2 of 5 verified" ]
	run "$PACKSIGN" verify --files-from - -p alice.pub --json <l
	[ "$status" -eq 2 ]
	[[ "${lines[1]}" == *'"code":"files_from_crlf"'* ]]
	[[ "${lines[1]}" == *'"path":"stdin:5"'* ]]
	# A line of exactly PATH_MAX - 1 bytes is a path (none such exists).
	head -c 4095 /dev/zero | tr '\0' b >l
	run "$PACKSIGN" verify --files-from l -p alice.pub
	[ "$status" -eq 2 ]
	[[ "$output" != *files_from_line_too_long* ]]
}

@test "files-from: an empty list is files_from_empty, exit 2" {
	: >empty
	run "$PACKSIGN" verify --files-from empty -p alice.pub
	[ "$status" -eq 2 ]
	[[ "$output" == "packsign: empty: "*"it names no archive [files_from_empty]" ]]
	printf '\n\n' >blank
	run "$PACKSIGN" verify --files-from - -p alice.pub --json <blank
	[ "$status" -eq 2 ]
	[[ "$output" == "packsign: stdin: "*"[files_from_empty]" ]]
}

@test "files-from: an unreadable list is exit 2 before anything is verified" {
	run "$PACKSIGN" verify --files-from nolist -p alice.pub
	[ "$status" -eq 2 ]
	[[ "$output" == "packsign: nolist: cannot open the --files-from list: "*"[not_found]" ]]
	run "$PACKSIGN" verify --files-from . -p alice.pub
	[ "$status" -eq 2 ]
	[[ "$output" == *"[io_error]" ]]
}

@test "files-from: usage errors (operands, --sig, --bundle, --installed, --jobs)" {
	for args in "a01.tar.gz --files-from list20" \
	    "--files-from list20 --sig a01.tar.gz.sig" \
	    "--files-from list20 --bundle b.json" \
	    "--files-from list20 --installed" \
	    "--files-from list20 --jobs 0" "--files-from list20 --jobs 65" \
	    "--files-from list20 --jobs x" "--files-from list20 --jobs -1" \
	    "a01.tar.gz a02.tar.gz --jobs 65" "--installed a01 --jobs 2" \
	    "--files-from list20"; do
		run "$PACKSIGN" verify $args ${args:+-p alice.pub}
		[ "$args" = "--files-from list20" ] && continue
		echo "$args: $output"
		[ "$status" -eq 2 ]
		[[ "${lines[0]}" == "packsign verify: "*"[usage]" ]]
	done
	run "$PACKSIGN" verify --files-from list20
	[ "$status" -eq 2 ]
	[[ "$output" == *"give one of --trust POLICY and -p KEY.pub"* ]]
	run "$PACKSIGN" verify --files-from list20 --jobs 0 -p alice.pub
	[[ "$output" == *"--jobs takes a number from 1 to 64"* ]]
}

@test "files-from: 200 archives with --jobs 4, in the list's order" {
	mkdir -p many
	for i in $(seq 1 200); do
		cp r.tar.gz "many/p$i.tar.gz"
		"$SIGNER" -s alice.key "many/p$i.tar.gz"
		echo "many/p$i.tar.gz"
	done >list200
	printf '\001' | dd of=many/p150.tar.gz bs=1 seek=100 conv=notrunc status=none
	run "$PACKSIGN" verify --files-from list200 --jobs 4 -p alice.pub --json
	[ "$status" -eq 1 ]
	[ "${#lines[@]}" -eq 200 ]
	printf '%s\n' "$output" | jq -r .path | diff list200 -
	[ "$(printf '%s\n' "$output" | jq -r 'select(.ok | not) | .path')" = many/p150.tar.gz ]
	run "$PACKSIGN" verify --files-from list200 --jobs 4 -p alice.pub
	[ "$status" -eq 1 ]
	[ "${lines[200]}" = "FAILED: 199 of 200 verified" ]
}

@test "files-from: the list is streamed: an archive is reported before the list ends" {
	mkfifo "$BATS_TEST_TMPDIR/fifo"
	"$PACKSIGN" verify --files-from "$BATS_TEST_TMPDIR/fifo" --jobs 2 \
	    -p alice.pub >"$BATS_TEST_TMPDIR/out" 2>&1 3>&- &
	pid=$!
	exec 5>"$BATS_TEST_TMPDIR/fifo"
	echo a01.tar.gz >&5
	for _ in $(seq 1 100); do
		[ -s "$BATS_TEST_TMPDIR/out" ] && break
		sleep 0.1
	done
	# The first report is out while the list is still open.
	[[ "$(cat "$BATS_TEST_TMPDIR/out")" == "Good signature: "* ]]
	echo a13.tar.gz >&5
	exec 5>&-
	wait "$pid" && rc=0 || rc=$?
	[ "$rc" -eq 1 ]
	run cat "$BATS_TEST_TMPDIR/out"
	[ "${#lines[@]}" -eq 3 ]
	[[ "${lines[1]}" == *"[signature_missing]" ]]
	[ "${lines[2]}" = "FAILED: 1 of 2 verified" ]
}
