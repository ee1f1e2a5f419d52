#!/usr/bin/env bats
# CLI tests: DSSE signatures by ECDSA P-256 keys (docs/formats/keys.md).
# packsign never signs with ECDSA: ps-testsign --ecdsa-key makes them.

load helpers
bats_require_minimum_version 1.5.0

SIGNER="${PACKSIGN_TESTSIGN:-$BATS_TEST_DIRNAME/../../build/tests/ps-testsign}"

setup_file() {
	cd "$BATS_FILE_TMPDIR"
	openssl ecparam -name prime256v1 -genkey -noout -out ec.key 2>/dev/null
	openssl pkey -in ec.key -pubout -out ec.pub
	openssl ecparam -name prime256v1 -genkey -noout -out ec2.key 2>/dev/null
	openssl pkey -in ec2.key -pubout -out ec2.pub
	openssl ecparam -name secp384r1 -genkey -noout -out p384.key 2>/dev/null
	openssl pkey -in p384.key -pubout -out p384.pub
	"$PACKSIGN" pack "$EXAMPLES/$AGENTPACK" -o r.tar.gz >/dev/null
}

setup() {
	cd "$BATS_TEST_TMPDIR"
	[ -x "$SIGNER" ] || skip "build/tests/ps-testsign missing (make tools)"
	cp "$BATS_FILE_TMPDIR"/* .
}

# policy FILE PEM: carol trusts the PEM key.
policy() {
	{
		printf 'version: 1\nsigners:\n  - identity: carol\n    keys:\n'
		printf '      - key: |\n'
		sed 's/^/          /' "$2"
		printf '    packs: ["*"]\nthreshold: 1\n'
	} >"$1"
}

@test "ecdsa: a P-256 signature verifies with the PEM key in a policy" {
	"$SIGNER" --ecdsa-key ec.key r.tar.gz
	policy p.yaml ec.pub
	run "$PACKSIGN" verify r.tar.gz --trust p.yaml
	[ "$status" -eq 0 ]
	fp=$(openssl pkey -pubin -in ec.pub -outform DER |
	    openssl dgst -sha256 -binary | base64 | tr -d '=')
	[[ $output == *"by carol (SHA256:$fp)"* ]]
	run "$PACKSIGN" key show ec.pub --json
	[[ $output == *"\"fingerprint\": \"SHA256:$fp\""* ]]
	[[ $output == *'"algorithm": "ecdsa-p256"'* ]]
}

@test "ecdsa: another key's signature is untrusted; a tampered payload fails" {
	"$SIGNER" --ecdsa-key ec2.key r.tar.gz
	policy p.yaml ec.pub
	run "$PACKSIGN" verify r.tar.gz --trust p.yaml
	[ "$status" -eq 1 ]
	[[ $output == *"[signature_untrusted]"* ]]
	"$SIGNER" --ecdsa-key ec.key --set predicate.pack.version='"9.9.9"' \
	    r.tar.gz
	run "$PACKSIGN" verify r.tar.gz --trust p.yaml
	[ "$status" -eq 1 ]
	# the envelope's payload is changed after signing
	"$SIGNER" --ecdsa-key ec.key r.tar.gz
	python3 - r.tar.gz.sig <<'PY'
import base64, json, sys
p = sys.argv[1]
e = json.load(open(p))
body = base64.b64decode(e["payload"]).replace(b'"0.1.0"', b'"0.1.1"')
e["payload"] = base64.b64encode(body).decode()
json.dump(e, open(p, "w"))
PY
	run "$PACKSIGN" verify r.tar.gz --trust p.yaml
	[ "$status" -eq 1 ]
	[[ $output == *"[signature_untrusted]"* || $output == *"[signature_invalid]"* ]]
}

@test "ecdsa: high S is accepted; BER, trailing bytes and raw r||s are not" {
	policy p.yaml ec.pub
	"$SIGNER" --ecdsa-key ec.key --ecdsa-mangle high-s r.tar.gz
	run "$PACKSIGN" verify r.tar.gz --trust p.yaml
	[ "$status" -eq 0 ]
	for m in ber trailing p1363; do
		"$SIGNER" --ecdsa-key ec.key --ecdsa-mangle "$m" r.tar.gz
		run "$PACKSIGN" verify r.tar.gz --trust p.yaml
		[ "$status" -eq 1 ]
	done
}

@test "ecdsa: signed_by by ECDSA fingerprint passes; another ECDSA signer is refused" {
	fp=$("$PACKSIGN" key show ec.pub --json |
	    sed -n 's/.*"fingerprint": "\(.*\)".*/\1/p')
	mkdir packs && cp -R "$EXAMPLES/$AGENTPACK" packs/p
	m=$(ls packs/p/manifest.y*ml packs/p/*.pkg.yml 2>/dev/null | head -1)
	[ -n "$m" ] || skip "no manifest.yml in the example"
	printf 'signed_by:\n  - %s\n' "$fp" >>"$m"
	"$PACKSIGN" pack packs/p -o s.tar.gz >/dev/null
	"$SIGNER" --ecdsa-key ec.key s.tar.gz
	policy p.yaml ec.pub
	run "$PACKSIGN" verify s.tar.gz --trust p.yaml
	[ "$status" -eq 0 ]
	"$SIGNER" --ecdsa-key ec2.key s.tar.gz
	policy q.yaml ec2.pub
	run "$PACKSIGN" verify s.tar.gz --trust q.yaml
	[ "$status" -eq 1 ]
}

@test "ecdsa: a P-384 key and a duplicate (compressed) key are refused at load" {
	policy p.yaml p384.pub
	run "$PACKSIGN" verify r.tar.gz --trust p.yaml
	[ "$status" -eq 2 ]
	[[ $output == *"(key_unsupported_algorithm)"*"[trust_key]"* ]]
	[[ $output == *"prime256v1"* ]]
	openssl pkey -pubin -in ec.pub -pubout -ec_conv_form compressed \
	    -out ecc.pub 2>/dev/null
	{
		printf 'version: 1\nsigners:\n'
		printf '  - identity: carol\n    keys:\n      - key: |\n'
		sed 's/^/          /' ec.pub
		printf '    packs: ["*"]\n  - identity: dave\n    keys:\n'
		printf '      - key: |\n'
		sed 's/^/          /' ecc.pub
		printf '    packs: ["*"]\nthreshold: 1\n'
	} >d.yaml
	run "$PACKSIGN" verify r.tar.gz --trust d.yaml
	[ "$status" -eq 2 ]
	[[ $output == *"[trust_duplicate_key]"* ]]
}

@test "ecdsa: an index signed with a P-256 key of the index role verifies; without the role it is role_missing" {
	"$PACKSIGN" keygen -o ed --identity ec-index --no-passphrase >/dev/null
	"$PACKSIGN" sign r.tar.gz -s ed.key >/dev/null
	"$PACKSIGN" index build r.tar.gz -o built.json -s ed.key \
	    --base-url https://example.org/r/ --at 2026-01-01T00:00:00Z >/dev/null
	# The same payload, signed over its PAE with the P-256 key instead.
	python3 - built.json pae.bin <<'PY'
import base64, json, sys
e = json.load(open(sys.argv[1]))
p = base64.b64decode(e["payload"]); t = e["payloadType"].encode()
open(sys.argv[2], "wb").write(b"DSSEv1 %d %s %d %s" % (len(t), t, len(p), p))
PY
	openssl dgst -sha256 -sign ec.key -out pae.sig pae.bin
	fp=SHA256:$(openssl pkey -pubin -in ec.pub -outform DER |
	    openssl dgst -sha256 -binary | base64 | tr -d '=')
	python3 - built.json pae.sig "$fp" ec.json <<'PY'
import base64, json, sys
e = json.load(open(sys.argv[1]))
sig = base64.b64encode(open(sys.argv[2], "rb").read()).decode()
e["signatures"] = [{"keyid": sys.argv[3], "sig": sig}]
json.dump(e, open(sys.argv[4], "w"))
PY
	for roles in "[index]" "[pack]"; do
		{
			printf 'version: 1\nsigners:\n  - identity: ec-index\n'
			printf '    roles: %s\n    keys:\n      - key: |\n' "$roles"
			sed 's/^/          /' ec.pub
			printf '    packs: ["research.*"]\n'
		} >"idx-$roles.yaml"
	done
	run "$PACKSIGN" index verify ec.json --trust "idx-[index].yaml" \
	    --data-dir d --at 2026-01-02T00:00:00Z
	[ "$status" -eq 0 ]
	[[ $output == *"index version 1 of ec-index ($fp)"* ]]
	run "$PACKSIGN" index verify ec.json --trust "idx-[pack].yaml" \
	    --data-dir d --at 2026-01-02T00:00:00Z
	[ "$status" -eq 1 ]
	[[ $output == *"[role_missing]"* ]]
}
