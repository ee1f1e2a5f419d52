#!/usr/bin/env bats
# CLI tests: keygen and key show|pubkey|passwd|export|import, with real
# interop against minisign, OpenSSL and OpenSSH.  Light scrypt limits
# (--kdf interactive) everywhere except the opt-in slow test.

setup() {
	cd "$BATS_TEST_TMPDIR"
	unset PACKSIGN_PASSPHRASE PACKSIGN_NEW_PASSPHRASE PACKSIGN_SECRET_KEY
	printf 'correct horse\n' >pass.txt
	printf 'other horse\n' >other.txt
	printf 'pack bytes\n' >msg
}

# keygen NAME [options...]: a light encrypted key (passphrase in pass.txt)
keygen() {
	local name=$1
	shift
	"$PACKSIGN" keygen -o "$name" --kdf interactive \
	    --passphrase-file pass.txt "$@"
}

b64_line() { sed -n 2p "$1"; }

@test "keygen writes minisign files: 0600 secret key, comment with identity" {
	run keygen alice --identity alice@example
	[ "$status" -eq 0 ]
	[ "$(stat -c %a alice.key)" = 600 ]
	[ "$(stat -c %a alice.pub)" = 644 ]
	id=$(echo "$output" | sed -n 's/^key id: //p')
	[ "${#id}" -eq 16 ]
	[ "$(sed -n 1p alice.pub)" = "untrusted comment: packsign public key $id for alice@example" ]
	# "Ed" || key id || key = 42 bytes; secret key 158 bytes, "Ed" "Sc" "B2"
	[ "$(b64_line alice.pub | base64 -d | wc -c)" -eq 42 ]
	[ "$(b64_line alice.key | base64 -d | wc -c)" -eq 158 ]
	[ "$(b64_line alice.key | base64 -d | head -c 6)" = EdScB2 ]
	[ -z "$(ls -A | grep '^\.alice')" ]   # no temporary files left
}

@test "keygen refuses to overwrite either file, --force replaces both" {
	keygen k
	cp k.key k.key.orig
	cp k.pub k.pub.orig
	run keygen k
	[ "$status" -eq 2 ]
	[[ "$output" == *"[output_exists]"* ]]
	cmp k.key k.key.orig
	rm k.key
	run keygen k
	[ "$status" -eq 2 ]
	[ ! -e k.key ]            # the refusal wrote nothing
	run keygen k --force
	[ "$status" -eq 0 ]
	run cmp -s k.pub k.pub.orig
	[ "$status" -ne 0 ]
	[ "$(stat -c %a k.key)" = 600 ]
}

@test "keygen usage errors exit 2" {
	run "$PACKSIGN" keygen
	[ "$status" -eq 2 ]
	[[ "$output" == *"[usage]"* ]]
	run "$PACKSIGN" keygen -o x --identity "bad id"
	[ "$status" -eq 2 ]
	run "$PACKSIGN" keygen -o x --passphrase-file a --passphrase-fd 0
	[ "$status" -eq 2 ]
	run "$PACKSIGN" keygen -o x --kdf fast
	[ "$status" -eq 2 ]
	run "$PACKSIGN" keygen -o x --no-passphrase --passphrase-file pass.txt
	[ "$status" -eq 2 ]
	[ ! -e x.key ]
}

@test "passphrase routes: file, descriptor, environment; none without a terminal" {
	"$PACKSIGN" keygen -o f --kdf interactive --passphrase-file pass.txt
	"$PACKSIGN" keygen -o d --kdf interactive --passphrase-fd 3 3<pass.txt
	PACKSIGN_PASSPHRASE='correct horse' "$PACKSIGN" keygen -o e --kdf interactive
	for k in f d e; do
		"$PACKSIGN" key pubkey -s $k.key --passphrase-file pass.txt >$k.out
		[ "$(sed -n 2p $k.out)" = "$(b64_line $k.pub)" ]
		"$PACKSIGN" key pubkey -s $k.key --passphrase-fd 4 4<pass.txt >$k.out
		[ "$(sed -n 2p $k.out)" = "$(b64_line $k.pub)" ]
		PACKSIGN_PASSPHRASE='correct horse' "$PACKSIGN" key pubkey -s $k.key >$k.out
		[ "$(sed -n 2p $k.out)" = "$(b64_line $k.pub)" ]
	done
	run setsid -w "$PACKSIGN" key pubkey -s f.key
	[ "$status" -eq 2 ]
	[[ "$output" == *"[passphrase_required]"* ]]
	run setsid -w "$PACKSIGN" keygen -o n --kdf interactive
	[ "$status" -eq 2 ]
	[ ! -e n.key ]
}

@test "wrong or empty passphrase: clear error, exit 2" {
	keygen k
	run "$PACKSIGN" key pubkey -s k.key --passphrase-file other.txt
	[ "$status" -eq 2 ]
	[[ "$output" == *"wrong passphrase [wrong_passphrase]"* ]]
	printf '\n' >empty.txt
	run "$PACKSIGN" keygen -o e --passphrase-file empty.txt
	[ "$status" -eq 2 ]
	[[ "$output" == *"[passphrase_invalid]"* ]]
}

@test "secret key from stdin (-s -) and from PACKSIGN_SECRET_KEY" {
	keygen k
	run "$PACKSIGN" key pubkey -s - --passphrase-file pass.txt <k.key
	[ "$status" -eq 0 ]
	[ "$(echo "$output" | sed -n 2p)" = "$(b64_line k.pub)" ]
	run env PACKSIGN_SECRET_KEY="$(cat k.key)" PACKSIGN_PASSPHRASE='correct horse' \
	    "$PACKSIGN" key pubkey
	[ "$status" -eq 0 ]
	[ "$(echo "$output" | sed -n 2p)" = "$(b64_line k.pub)" ]
	run "$PACKSIGN" key pubkey
	[ "$status" -eq 2 ]
	[[ "$output" == *"[usage]"* ]]
}

@test "packsign keys sign with minisign -S and verify with minisign -V" {
	keygen enc
	"$PACKSIGN" keygen -o plain --no-passphrase
	run sh -c 'printf "correct horse\n" | minisign -S -s enc.key -m msg -x enc.sig'
	[ "$status" -eq 0 ]
	minisign -V -p enc.pub -m msg -x enc.sig
	minisign -S -s plain.key -m msg -x plain.sig </dev/null
	minisign -V -p plain.pub -m msg -x plain.sig
	printf 'tampered\n' >msg
	run minisign -V -p plain.pub -m msg -x plain.sig
	[ "$status" -eq 1 ]
}

@test "minisign -G -W keys load in packsign with the same key id" {
	minisign -G -W -p m.pub -s m.key >/dev/null
	run "$PACKSIGN" key pubkey -s m.key
	[ "$status" -eq 0 ]
	[ "$(echo "$output" | sed -n 2p)" = "$(b64_line m.pub)" ]
	# minisign prints the key id without leading zeros; packsign always
	# prints 16 digits (one run in 16 has a leading zero).
	mid=$(printf '%16s' "$(sed -n 's/.*minisign public key //p' m.pub)" |
	    tr ' ' 0)
	run "$PACKSIGN" key show m.key
	[[ "$output" == *"key id:      $mid"* ]]
	[[ "$output" == *"encrypted:   no"* ]]
	run "$PACKSIGN" key show m.pub --json
	[ "$(echo "$output" | jq -r .key_id)" = "$mid" ]
	[ "$(echo "$output" | jq -r .kind)" = public ]
}

# minisign always uses its 1 GiB scrypt limits: this test takes ~20 s and 1 GiB.
@test "minisign -G keys with a password load in packsign" {
	printf 'pw\npw\n' | minisign -G -p g.pub -s g.key >/dev/null
	printf 'pw\n' >pw.txt
	run "$PACKSIGN" key pubkey -s g.key --passphrase-file pw.txt
	[ "$status" -eq 0 ]
	[ "$(echo "$output" | sed -n 2p)" = "$(b64_line g.pub)" ]
}

@test "key show: fingerprint equals ssh-keygen -l, for ssh-keygen's own keys too" {
	ssh-keygen -q -t ed25519 -N '' -C me@host -f s
	run "$PACKSIGN" key show s.pub
	[ "$status" -eq 0 ]
	fp=$(ssh-keygen -lf s.pub | cut -d' ' -f2)
	[[ "$output" == *"fingerprint: $fp"* ]]
	[[ "$output" == *"format:      ssh"* ]]
	keygen k --identity kim
	"$PACKSIGN" key export --ssh-pub -p k.pub -o k.ssh
	run "$PACKSIGN" key show k.pub --json
	[ "$(echo "$output" | jq -r .fingerprint)" = "$(ssh-keygen -lf k.ssh | cut -d' ' -f2)" ]
	[ "$(echo "$output" | jq -r .identity)" = kim ]
	run "$PACKSIGN" key show k.key
	[[ "$output" == *"key id:      (encrypted"* ]]
	[[ "$output" == *"opslimit 524288, memlimit 16777216"* ]]
	run "$PACKSIGN" key show k.key --passphrase-file pass.txt --json
	[ "$(echo "$output" | jq -r .encrypted)" = true ]
	[ "$(echo "$output" | jq -r .key_id)" != null ]
}

@test "key show refuses broken key files with exit 2" {
	printf 'untrusted comment: x\nRWQAAAA!\n' >bad.pub
	run "$PACKSIGN" key show bad.pub
	[ "$status" -eq 2 ]
	[[ "$output" == *"[key_bad_base64]"* ]]
	printf 'ssh-rsa AAAAB3NzaC1yc2E x\n' >rsa.pub
	run "$PACKSIGN" key show rsa.pub
	[ "$status" -eq 2 ]
	[[ "$output" == *"expected ssh-ed25519, found ssh-rsa [key_unsupported_algorithm]"* ]]
	run "$PACKSIGN" key show missing.pub
	[ "$status" -eq 2 ]
	[[ "$output" == *"[not_found]"* ]]
}

@test "key passwd changes, then removes, the passphrase" {
	keygen k
	"$PACKSIGN" key passwd -s k.key --passphrase-file pass.txt \
	    --new-passphrase-file other.txt --kdf interactive
	[ "$(stat -c %a k.key)" = 600 ]
	run "$PACKSIGN" key pubkey -s k.key --passphrase-file pass.txt
	[ "$status" -eq 2 ]
	[[ "$output" == *"[wrong_passphrase]"* ]]
	"$PACKSIGN" key pubkey -s k.key --passphrase-file other.txt >/dev/null
	PACKSIGN_PASSPHRASE='other horse' "$PACKSIGN" key passwd -s k.key --no-passphrase
	run "$PACKSIGN" key show k.key --json
	[ "$(echo "$output" | jq -r .encrypted)" = false ]
	[ "$(b64_line k.key | base64 -d | head -c 6 | tail -c 4 | od -An -tx1 | tr -d ' ')" = 00004232 ]
	minisign -S -s k.key -m msg -x m.sig </dev/null
	minisign -V -p k.pub -m msg -x m.sig
}

@test "openssl genpkey ed25519 keys import; both sides agree on the public key" {
	openssl genpkey -algorithm ed25519 -out o.pem
	run "$PACKSIGN" key import --pem o.pem -o imp --identity ops \
	    --kdf interactive --passphrase-file pass.txt
	[ "$status" -eq 0 ]
	[ "$(stat -c %a imp.key)" = 600 ]
	[ "$(sed -n 1p imp.pub | sed 's/.* for //')" = ops ]
	"$PACKSIGN" key export --pem-pub -p imp.pub -o imp.spki
	cmp imp.spki <(openssl pkey -in o.pem -pubout)
	# the imported secret key signs for minisign
	printf 'correct horse\n' | minisign -S -s imp.key -m msg -x i.sig >/dev/null
	minisign -V -p imp.pub -m msg -x i.sig
	# an encrypted PKCS#8 key from openssl, and a PEM public key
	openssl genpkey -algorithm ed25519 -aes256 -pass file:pass.txt -out e.pem
	run "$PACKSIGN" key import --pem e.pem -o e --kdf interactive --passphrase-file pass.txt
	[ "$status" -eq 0 ]
	openssl pkey -in e.pem -passin file:pass.txt -pubout -out e.spki
	"$PACKSIGN" key import --pem e.spki -o epub
	[ "$(b64_line epub.pub)" = "$(b64_line e.pub)" ]
	[ ! -e epub.key ]
	run "$PACKSIGN" key import --pem e.pem -o e2 --passphrase-file other.txt
	[ "$status" -eq 2 ]
	[[ "$output" == *"[wrong_passphrase]"* ]]
	openssl genpkey -algorithm EC -pkeyopt ec_paramgen_curve:P-256 -out ec.pem
	run "$PACKSIGN" key import --pem ec.pem -o ec --no-passphrase
	[ "$status" -eq 2 ]
	[[ "$output" == *"[key_unsupported_algorithm]"* ]]
}

@test "key export --pem loads in openssl pkey, encrypted unless --no-passphrase" {
	keygen k
	"$PACKSIGN" key export --pem -s k.key --passphrase-file pass.txt -o k.pem
	[ "$(stat -c %a k.pem)" = 600 ]
	grep -q 'BEGIN ENCRYPTED PRIVATE KEY' k.pem
	run openssl pkey -in k.pem -passin pass:wrong -noout
	[ "$status" -ne 0 ]
	openssl pkey -in k.pem -passin file:pass.txt -pubout -out k.spki
	"$PACKSIGN" key export --pem-pub -s k.key --passphrase-file pass.txt -o k2.spki
	cmp k.spki k2.spki
	"$PACKSIGN" key export --pem -s k.key --passphrase-file pass.txt \
	    --no-passphrase -o plain.pem
	grep -q 'BEGIN PRIVATE KEY' plain.pem
	cmp k.spki <(openssl pkey -in plain.pem -pubout)
	run "$PACKSIGN" key export --pem -s k.key --passphrase-file pass.txt -o k.pem
	[ "$status" -eq 2 ]
	[[ "$output" == *"[output_exists]"* ]]
	# openssl signs, the exported key's public half verifies (raw ed25519)
	openssl pkeyutl -sign -inkey plain.pem -rawin -in msg -out msg.sig
	openssl pkeyutl -verify -pubin -inkey k2.spki -rawin -in msg -sigfile msg.sig
}

@test "key command usage: unknown subcommand, misplaced option, help" {
	run "$PACKSIGN" key frobnicate
	[ "$status" -eq 2 ]
	[[ "$output" == *"[usage]"* ]]
	run "$PACKSIGN" key show --kdf interactive x
	[ "$status" -eq 2 ]
	[[ "$output" == *"does not apply to 'key show'"* ]]
	run "$PACKSIGN" key --help
	[ "$status" -eq 0 ]
	[[ "$output" == *"packsign key import --pem"* ]]
	run "$PACKSIGN" help keygen
	[ "$status" -eq 0 ]
}

@test "terminal: asked twice without echo at keygen, once to unlock" {
	command -v script >/dev/null || skip "script(1) not installed"
	# script(1) gives packsign a terminal; input is fed after each prompt.
	run sh -c '(sleep 0.5; printf "tty horse\n"; sleep 0.5; printf "tty horse\n") |
	    script -qec "$PACKSIGN keygen -o t --kdf interactive" /dev/null'
	[ "$status" -eq 0 ]
	[[ "$output" == *"Passphrase (again):"* ]]
	[[ "$output" != *"tty horse"* ]]          # never echoed
	printf 'tty horse\n' >tty.txt
	"$PACKSIGN" key pubkey -s t.key --passphrase-file tty.txt >/dev/null
	run sh -c '(sleep 0.5; printf "one\n"; sleep 0.5; printf "two\n") |
	    script -qec "$PACKSIGN keygen -o u --kdf interactive" /dev/null'
	[[ "$output" == *"[passphrase_mismatch]"* ]]
	[ ! -e u.key ]
}

# Review findings on the key commands.

@test "PEM input must be exactly one block: a hidden second key is refused" {
	keygen a --identity a
	keygen b --identity b
	"$PACKSIGN" key export --pem-pub -p a.pub -o a.pem
	"$PACKSIGN" key export --pem-pub -p b.pub -o b.pem
	cat a.pem b.pem > two.pem
	run "$PACKSIGN" key show two.pem
	[ "$status" -eq 2 ]
	[[ "$output" == *"exactly one"*"[key_malformed]"* ]]
	{ echo junk; cat a.pem; } > lead.pem
	run "$PACKSIGN" key show lead.pem
	[ "$status" -eq 2 ]
	run "$PACKSIGN" key show a.pem
	[ "$status" -eq 0 ]
}

@test "exported encrypted PEM keys use PBKDF2-HMAC-SHA256 with 600000 iterations" {
	keygen k
	"$PACKSIGN" key export --pem -s k.key -o k.pem --passphrase-file pass.txt
	openssl asn1parse -in k.pem | grep -q 'INTEGER *:0927C0'
	openssl asn1parse -in k.pem | grep -q hmacWithSHA256
	openssl pkey -in k.pem -passin file:pass.txt -pubout >/dev/null
}

@test "key passwd refuses a symlinked or hard-linked key file" {
	"$PACKSIGN" keygen -o plain --no-passphrase >/dev/null
	mkdir vault && mv plain.key vault/
	ln -s vault/plain.key link.key
	run env PACKSIGN_NEW_PASSPHRASE=new "$PACKSIGN" key passwd -s link.key
	[ "$status" -eq 2 ]
	[[ "$output" == *"[key_file_linked]"* ]]
	ln vault/plain.key hard.key
	run env PACKSIGN_NEW_PASSPHRASE=new "$PACKSIGN" key passwd -s hard.key
	[ "$status" -eq 2 ]
}

@test "an unencrypted secret key with a salt or scrypt limits is refused" {
	"$PACKSIGN" keygen -o plain --no-passphrase >/dev/null
	python3 - <<'PY'
import base64
lines = open("plain.key").read().split("\n")
raw = bytearray(base64.b64decode(lines[1]))
raw[6] = 1                       # first salt byte
lines[1] = base64.b64encode(bytes(raw)).decode()
open("salted.key", "w").write("\n".join(lines))
PY
	run "$PACKSIGN" key pubkey -s salted.key
	[ "$status" -eq 2 ]
	[[ "$output" == *"[key_malformed]"* ]]
}
