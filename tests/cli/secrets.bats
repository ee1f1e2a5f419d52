#!/usr/bin/env bats
# Secrets (issue 7): no secret byte reaches disk unencrypted unless asked;
# core dumps are off while a secret key is loaded.  Memory wiping is in
# tests/unit/test_secrets.c.

load helpers

setup() {
	cd "$BATS_TEST_TMPDIR"
	unset SOURCE_DATE_EPOCH PACKSIGN_SECRET_KEY PACKSIGN_PASSPHRASE
	printf 'correct horse\n' >pass.txt
	printf 'battery staple\n' >new.txt
	"$PACKSIGN" keygen -o k --passphrase-file pass.txt --kdf interactive \
	    --identity alice >/dev/null
}

# seed KEY PASSFILE: the 32-byte Ed25519 seed of KEY as hex, through an
# unencrypted PKCS#8 export (what the user asks for with --no-passphrase).
seed() {
	"$PACKSIGN" key export --pem -s "$1" --passphrase-file "$2" \
	    --no-passphrase -o seed.pem --force >/dev/null
	openssl pkey -in seed.pem -outform DER | tail -c 32 | od -An -tx1 | tr -d ' \n'
	rm -f seed.pem
}

# holds_seed HEX FILE...: succeeds when some file holds an 8-byte run of
# the seed, raw or in the key file's base64 line decoded.
holds_seed() {
	python3 - "$@" <<'EOF'
import base64, sys
seed = bytes.fromhex(sys.argv[1])
runs = [seed[i:i + 8] for i in range(len(seed) - 7)]
for name in sys.argv[2:]:
    data = open(name, "rb").read()
    blobs = [data]
    for line in data.splitlines():
        try:
            blobs.append(base64.b64decode(line, validate=True))
        except Exception:
            pass
    if any(r in b for b in blobs for r in runs):
        sys.exit(0)
sys.exit(1)
EOF
}

@test "secrets: keygen with a passphrase writes no run of the secret key" {
	s=$(seed k.key pass.txt)
	[ ${#s} -eq 64 ]
	! holds_seed "$s" k.key k.pub
	# Control: asked for an unencrypted copy, the bytes are there.
	"$PACKSIGN" key export --pem -s k.key --passphrase-file pass.txt \
	    --no-passphrase -o plain.pem >/dev/null
	openssl pkey -in plain.pem -outform DER >plain.der
	holds_seed "$s" plain.der
}

@test "secrets: key passwd to a new passphrase leaves no plaintext and no temp file" {
	s=$(seed k.key pass.txt)
	TMPDIR="$BATS_TEST_TMPDIR/tmp" && mkdir "$TMPDIR" && export TMPDIR
	before=$(ls -A | sort | tr '\n' ' ')
	"$PACKSIGN" key passwd -s k.key --passphrase-file pass.txt \
	    --new-passphrase-file new.txt --kdf interactive >/dev/null
	[ "$(ls -A | sort | tr '\n' ' ')" = "$before" ]
	[ -z "$(ls -A "$TMPDIR")" ]
	! holds_seed "$s" k.key
	[ "$("$PACKSIGN" key show k.key --json | jq -r .encrypted)" = true ]
	[ "$(seed k.key new.txt)" = "$s" ]
	# Removing the passphrase is asking for plaintext.
	"$PACKSIGN" key passwd -s k.key --passphrase-file new.txt \
	    --no-passphrase >/dev/null
	holds_seed "$s" k.key
}

# wait_until SECONDS CMD...: polls CMD every 0.05 s.
wait_until() {
	local end=$((SECONDS + $1))
	shift
	until "$@"; do
		[ "$SECONDS" -lt "$end" ] || return 1
		sleep 0.05
	done
}

core_limit_zero() {
	grep -Eq '^Max core file size +0 +0 ' "/proc/$1/limits"
}

@test "secrets: core dumps are off while a secret key is read and used" {
	pack=$(copy_pack soyapack-research-summarizer)
	mkfifo key.fifo
	# The key arrives on stdin from a FIFO that stays open, empty: packsign
	# waits there, after protecting itself and before reading any secret.
	"$PACKSIGN" sign "$pack" -s - --passphrase-file pass.txt \
	    -o p.tar.gz <key.fifo 2>err.txt &
	pid=$!
	exec 5>key.fifo
	wait_until 10 core_limit_zero "$pid" || {
		grep -i core "/proc/$pid/limits"
		exec 5>&-
		false
	}
	cat k.key >&5
	exec 5>&-
	wait "$pid"
	"$PACKSIGN" verify p.tar.gz -p k.pub >/dev/null
}

# owner_is UID PID: /proc/PID/status belongs to UID.  For a process that is
# not dumpable (PR_SET_DUMPABLE 0) the kernel shows root as the owner.
owner_is() {
	[ "$(stat -c %u "/proc/$2/status" 2>/dev/null)" = "$1" ]
}

is_packsign_and_protected() {
	[ "$(cat "/proc/$1/comm" 2>/dev/null)" = packsign ] &&
	    core_limit_zero "$1" && owner_is 0 "$1"
}

@test "secrets: a process holding a secret key is not dumpable (not ptrace-able by its user)" {
	command -v setpriv >/dev/null || skip "setpriv (util-linux) not installed"
	[ "$(id -u)" = 0 ] || skip "needs root to run the check as another user"
	setpriv --reuid=65534 --regid=65534 --clear-groups test -x "$PACKSIGN" ||
	    skip "the binary is not reachable for an unprivileged user"
	# Control: an ordinary process of that user is owned by it.
	setpriv --reuid=65534 --regid=65534 --clear-groups sleep 5 &
	ctl=$!
	wait_until 5 owner_is 65534 "$ctl"
	kill "$ctl"
	mkfifo key.fifo
	setpriv --reuid=65534 --regid=65534 --clear-groups \
	    "$PACKSIGN" key pubkey -s - <key.fifo >pub.txt 2>err.txt &
	pid=$!
	exec 5>key.fifo
	wait_until 10 is_packsign_and_protected "$pid" || {
		cat "/proc/$pid/comm"; stat -c %u "/proc/$pid/status"
		exec 5>&-
		false
	}
	exec 5>&-
	wait "$pid" || true
}

# Issue 26: a mistyped passphrase on a terminal is asked again, three tries
# in all, as sudo and ssh do; one from a file or the environment once.
@test "secrets: a wrong passphrase typed on the terminal gets three tries" {
	pty="$BATS_TEST_DIRNAME/../tools/ptyrun"
	p=$(copy_pack "$AGENTPACK")
	run "$pty" "expect=Passphrase for k.key: " send=wrong \
	    "expect=wrong passphrase; try again (2 of 3)" \
	    "expect=Passphrase for k.key: " "send=correct horse" -- \
	    "$PACKSIGN" sign "$p" -s k.key -o s.tar.gz
	echo "$output"
	[ "$status" -eq 0 ]
	[[ "$output" == *"wrote s.tar.gz.sig (1 signature)"* ]]
	[ "$(grep -c 'Passphrase for k.key: ' <<<"$output")" -eq 2 ]
	# Three wrong ones: the refusal, after the third.
	run "$pty" "expect=Passphrase for k.key: " send=one \
	    "expect=(2 of 3)" "expect=Passphrase for k.key: " send=two \
	    "expect=(3 of 3)" "expect=Passphrase for k.key: " send=three -- \
	    "$PACKSIGN" sign "$p" -s k.key -o t.tar.gz
	echo "$output"
	[ "$status" -eq 2 ]
	[ "$(grep -c 'Passphrase for k.key: ' <<<"$output")" -eq 3 ]
	[[ "$output" == *"[wrong_passphrase]"* ]]
	[ ! -e t.tar.gz ] && [ ! -e t.tar.gz.sig ]
	# A passphrase from the environment or a file is tried once.
	printf 'wrong\n' >bad.txt
	run "$pty" -- "$PACKSIGN" sign "$p" -s k.key -o u.tar.gz \
	    --passphrase-file bad.txt
	[ "$status" -eq 2 ]
	[[ "$output" != *"try again"* ]]
	[ "$(grep -c 'wrong_passphrase' <<<"$output")" -eq 1 ]
	run env PACKSIGN_PASSPHRASE=wrong "$pty" -- "$PACKSIGN" key passwd k.key
	[ "$status" -eq 2 ]
	[[ "$output" != *"try again"* ]]
}
