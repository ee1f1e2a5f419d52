#!/usr/bin/env bats
# CLI tests: verify and install read a local tar with a v1 statement
# (sign --predicate-version 1; a v2 one is read once, its chunks
# authenticated: chunks.bats) under a read lease
# instead of copying it (docs/security.md, section 5; util/lease.c), and
# take the bounded copy path where no lease is granted: a file open for
# writing, another user's file, a zip.  A writer racing verify gets
# subject_changed or waits (its open blocks until verify lets go; with
# O_NONBLOCK, as coreutils truncate opens, it fails with EAGAIN); a
# success is always over the signed bytes.

load helpers
bats_require_minimum_version 1.5.0

setup_file() {
	cd "$BATS_FILE_TMPDIR"
	"$PACKSIGN" keygen -o k --no-passphrase -q
	"$PACKSIGN" pack "$EXAMPLES/$AGENTPACK" -o r.tar -q
	"$PACKSIGN" sign r.tar -s k.key -q --predicate-version 1
	# Large enough that verify takes a while: a racing writer often
	# lands in the middle.
	cp -R "$EXAMPLES/$AGENTPACK" big
	head -c 48000000 /dev/urandom >big/prompts/big.bin
	"$PACKSIGN" pack big -o big.tar -q
	"$PACKSIGN" sign big.tar -s k.key -q --predicate-version 1
}

setup() {
	cd "$BATS_TEST_TMPDIR"
	cp "$BATS_FILE_TMPDIR"/k.* "$BATS_FILE_TMPDIR"/r.tar* .
}

# read_of ARCHIVE [packsign runner...]: "HOW|WHY" of verify --json.
read_of() {
	local a=$1
	shift
	"$@" "$PACKSIGN" verify "$a" -p k.pub --json |
	    jq -r '.results[0].read | "\(.how)|\(.lease_declined)"'
}

leases_here() {
	local r
	r=$(read_of r.tar)
	[ "${r%%|*}" = lease ] || skip "no read lease here: ${r#*|}"
}

@test "lease: verify of one's own tar reads it under a lease, no copy" {
	leases_here
	[ "$(read_of r.tar)" = "lease|null" ]
}

@test "lease: a tar open for writing elsewhere takes the copy path [EAGAIN]" {
	leases_here
	exec 7>>r.tar
	r=$(read_of r.tar)
	exec 7>&-
	[ "$r" = "memory copy|a process has the file open for writing (EAGAIN)" ]
}

@test "lease: another user's file takes the copy path, one's own gets the lease" {
	command -v setpriv >/dev/null || skip "setpriv (util-linux) not installed"
	[ "$(id -u)" = 0 ] || skip "needs root to switch to an unprivileged user"
	leases_here
	work=$(mktemp -d /tmp/packsign-lease.XXXXXX)
	chmod 0755 "$work"
	cp r.tar r.tar.sig k.pub "$work/"
	chmod a+r "$work"/*
	nobody() { setpriv --reuid=65534 --regid=65534 --clear-groups "$@"; }
	if ! nobody test -x "$PACKSIGN"; then
		rm -rf "$work"
		skip "the binary is not reachable for an unprivileged user"
	fi
	cd "$work"
	theirs=$(read_of r.tar nobody)
	chown 65534 r.tar
	own=$(read_of r.tar nobody)
	cd /
	rm -rf "$work"
	[ "$theirs" = "memory copy|not the file's owner, and no CAP_LEASE (EACCES)" ]
	[ "$own" = "lease|null" ]
}

@test "lease: a zip takes the copy path" {
	leases_here
	(cd "$EXAMPLES/$AGENTPACK" && zip -qrX "$BATS_TEST_TMPDIR/r.zip" .)
	"$PACKSIGN" sign r.zip -s k.key -q --predicate-version 1
	[ "$(read_of r.zip)" = "memory copy|a zip is read with seeks, from a private copy" ]
}

@test "lease: a writer racing verify gets subject_changed or waits, never a success over other bytes" {
	leases_here
	cp "$BATS_FILE_TMPDIR"/big.tar* .
	signed=$(jq -r '.payload' big.tar.sig | base64 -d | jq -r '.subject[0].digest.sha256')
	changed=0 good=0 codes=
	for i in 1 2 3 4 5 6; do
		cp "$BATS_FILE_TMPDIR/big.tar" big.tar
		"$PACKSIGN" verify big.tar -p k.pub --json >out.json &
		v=$!
		# the writer goes once verify has the archive open (or ended)
		while kill -0 "$v" 2>/dev/null &&
		    ! ls -l /proc/"$v"/fd 2>/dev/null | grep -q 'big\.tar$'; do
			:
		done
		case $i in
		1|3|5) printf 'X' | dd of=big.tar bs=1 seek=30000000 conv=notrunc status=none ;;
		*) dd of=big.tar bs=1 seek=20000000 count=0 status=none ;;
		esac
		wait "$v" && st=0 || st=$?
		code=$(jq -r '.results[0].code' out.json)
		got=$(jq -r '.results[0].digests.archive' out.json)
		if [ "$st" -eq 0 ]; then
			# verified before the writer: over the signed bytes
			[ "$got" = "sha256:$signed" ]
			good=$((good + 1))
		else
			[ "$st" -eq 1 ]
			[[ "$code" == subject_changed || "$code" == subject_mismatch ]]
			changed=$((changed + 1)) codes="$codes $code"
		fi
	done
	echo "# $good verified before the writer, $changed refused:$codes" >&3
}

@test "lease: install of one's own tar reads it under a lease; open for writing, its copy" {
	leases_here
	run "$PACKSIGN" install r.tar -p k.pub --data-dir d --yes --json
	[ "$status" -eq 0 ]
	[ "$(jq -r '.verify.read.how' <<<"$output")" = lease ]
	exec 7>>r.tar
	run "$PACKSIGN" install r.tar -p k.pub --data-dir d --yes --reinstall \
	    --json
	exec 7>&-
	[ "$status" -eq 0 ]
	[ "$(jq -r '.verify.read.how' <<<"$output")" = "private copy" ]
}

# Pass 2 of a v1 tar past 1 MiB hashes its files on a second thread
# (pack/archive.c, files_on_hasher): their digests must come back to the
# right entries, empty files and directories between them.
@test "lease: verify --deep of a v1 tar past 1 MiB recomputes the tree digest digest reports" {
	cp -R "$EXAMPLES/$AGENTPACK" many
	for d in 0 1 2; do
		mkdir -p "many/data/d$d"
		for i in 00 01 02 03 04 05 06 07 08 09 10 11; do
			head -c "$(( (10#$i % 4) * 700 * (d + 1) ))" /dev/urandom >"many/data/d$d/f$i"
		done
	done
	head -c 1500000 /dev/urandom >many/data/big.bin
	"$PACKSIGN" pack many -o many.tar -q
	"$PACKSIGN" sign many.tar -s k.key -q --predicate-version 1
	want=$("$PACKSIGN" digest many.tar --json | jq -r .tree_digest)
	run -0 "$PACKSIGN" verify many.tar -p k.pub --deep --json
	[ "$(jq -r '.results[0].checks.tree' <<<"$output")" = true ]
	[ "$(jq -r '.results[0].digests.tree' <<<"$output")" = "$want" ]
	[[ "$(jq -r '.results[0].read.how' <<<"$output")" == @(lease|memory copy) ]]
}

# Pass 2 of a v1 tar past 1 MiB re-encodes it on the hasher thread
# (pack/rebuild.c): names in UTF-8 need that thread's locale, and a tar
# another writer made, or one with blocks after its end, must still be
# found non-canonical there.
@test "lease: pass 2 of a v1 tar past 1 MiB, plain or gzip, finds it canonical (UTF-8 names) or not (GNU tar, a padding byte, blocks after the end)" {
	signer="${PACKSIGN_TESTSIGN:-$BATS_TEST_DIRNAME/../../build/tests/ps-testsign}"
	[ -x "$signer" ] || skip "build/tests/ps-testsign missing (make tools)"
	cp -R "$EXAMPLES/$AGENTPACK" uni
	mkdir -p uni/data/café
	for i in 1 2 3 4 5 6; do
		head -c $(( i * 900 )) /dev/urandom >"uni/data/café/naïve-$i.md"
	done
	head -c 1500000 /dev/urandom >uni/data/日本語.bin
	"$PACKSIGN" pack uni -o uni.tar -q
	"$signer" -s k.key uni.tar        # v1, with the build field
	run -0 "$PACKSIGN" verify uni.tar -p k.pub --deep --json
	[ "$(jq -r '.results[0].checks.tree' <<<"$output")" = true ]
	[ "$(jq -r '.results[0].checks.canonical' <<<"$output")" = true ]

	tar -C uni --format=pax -cf gnu.tar .
	"$signer" -s k.key gnu.tar
	run -1 "$PACKSIGN" verify gnu.tar -p k.pub
	[[ "$output" == *"[not_canonical]" ]]

	# Found only by the re-encoding on the second thread, 1.5 MB before the
	# end: a GNU tar with no "./" entry, and packsign's own tar with one
	# padding byte no reader looks at set.  The parser stops copying bytes
	# over once that thread knows; the answer stays not_canonical.
	(cd uni && tar --format=pax -cf ../members.tar $(ls -A))
	python3 - uni.tar pad.tar <<'PY'
import sys, tarfile
data = bytearray(open(sys.argv[1], "rb").read())
with tarfile.open(sys.argv[1]) as t:
    m = next(m for m in t if m.name.endswith("naïve-1.md"))
assert m.size % 512 != 0 and data[m.offset_data + m.size] == 0
data[m.offset_data + m.size] = 1
open(sys.argv[2], "wb").write(data)
PY
	for odd in members.tar pad.tar; do
		"$signer" -s k.key "$odd"
		run -1 "$PACKSIGN" verify "$odd" -p k.pub
		echo "$odd: $output"
		[[ "$output" == *"[not_canonical]" ]]
		run -0 "$PACKSIGN" digest "$odd"
		[[ "$output" == *"canonical: no"* ]]
	done

	# Compressed, the decoded bytes feed the tar digest and the re-encoding
	# on that thread as one record.
	"$PACKSIGN" pack uni -o uni.tar.gz -q
	"$signer" -s k.key uni.tar.gz
	[ "$(stat -c %s uni.tar.gz)" -gt 1048576 ]
	run -0 "$PACKSIGN" verify uni.tar.gz -p k.pub --deep --json
	[ "$(jq -r '.results[0].checks.tree' <<<"$output")" = true ]
	[ "$(jq -r '.results[0].checks.canonical' <<<"$output")" = true ]
	gzip -n -c pad.tar >pad.tar.gz
	"$signer" -s k.key pad.tar.gz
	run -1 "$PACKSIGN" verify pad.tar.gz -p k.pub
	[[ "$output" == *"[not_canonical]" ]]

	for extra in 512 9437184; do
		cp uni.tar tail.tar
		head -c "$extra" /dev/zero >>tail.tar
		"$signer" -s k.key tail.tar
		run -1 "$PACKSIGN" verify tail.tar -p k.pub
		echo "$extra: $output"
		[[ "$output" == *"[not_canonical]" ]]
	done
}
