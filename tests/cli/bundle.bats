#!/usr/bin/env bats
# Sigstore bundles: sign --bundle writes OUT.N.sigstore.json, verify
# --bundle reads them (and other tools' key-based bundles); Sigstore's
# JavaScript libraries (tests/node, installed by scripts/install-deps into
# build/node) verify packsign's bundles offline.

load helpers
bats_require_minimum_version 1.5.0

NODE_SCRIPT="$BATS_TEST_DIRNAME/../node/bundle.js"

setup_file() {
	cd "$BATS_FILE_TMPDIR"
	unset PACKSIGN_PASSPHRASE PACKSIGN_SECRET_KEY SOURCE_DATE_EPOCH
	"$PACKSIGN" keygen -o alice --identity alice --no-passphrase >/dev/null
	"$PACKSIGN" keygen -o bob --identity bob --no-passphrase >/dev/null
}

setup() {
	cd "$BATS_TEST_TMPDIR"
	unset PACKSIGN_PASSPHRASE PACKSIGN_SECRET_KEY SOURCE_DATE_EPOCH
	cp "$BATS_FILE_TMPDIR"/alice.* "$BATS_FILE_TMPDIR"/bob.* .
	copy_pack "$AGENTPACK" >/dev/null
}

# policy FILE THRESHOLD: alice and bob may sign every pack.
policy() {
	cat >"$1" <<YAML
version: 1
signers:
  - identity: alice
    keys:
      - key: $(sed -n 2p alice.pub)
    packs: ["*"]
  - identity: bob
    keys:
      - key: $(sed -n 2p bob.pub)
    packs: ["*"]
threshold: $2
YAML
}

node_verify() {
	NODE_PATH="$NODE_DIR/node_modules" node "$NODE_SCRIPT" verify "$@"
}

sign_bundle() {
	"$PACKSIGN" sign "$AGENTPACK" -s alice.key -o p.tar.gz --bundle "$@"
}

# rewrite FILE EXPR: applies a Python statement to the bundle `b`.
rewrite() {
	python3 - "$1" "$2" <<'PY'
import base64, json, sys
b = json.load(open(sys.argv[1]))
exec(sys.argv[2])
open(sys.argv[1], "w").write(json.dumps(b))
PY
}

@test "sign --bundle writes OUT.1.sigstore.json: a bundle v0.3 of the .sig's signature" {
	run sign_bundle
	[ "$status" -eq 0 ]
	[[ "$output" == *"wrote p.tar.gz.1.sigstore.json"* ]]
	[ ! -e p.tar.gz.2.sigstore.json ]
	python3 - "$("$PACKSIGN" key fingerprint alice.pub 2>/dev/null || true)" <<'PY'
import json, sys
raw = open("p.tar.gz.1.sigstore.json", "rb").read()
b = json.loads(raw)
env = json.load(open("p.tar.gz.sig"))
assert raw.endswith(b"}\n") and b" " not in raw, "compact, one LF"
assert sorted(b) == ["dsseEnvelope", "mediaType", "verificationMaterial"], sorted(b)
assert b["mediaType"] == "application/vnd.dev.sigstore.bundle.v0.3+json"
vm = b["verificationMaterial"]
assert sorted(vm) == ["publicKey", "tlogEntries"], sorted(vm)
assert vm["tlogEntries"] == []
assert sorted(vm["publicKey"]) == ["hint"]
d = b["dsseEnvelope"]
assert sorted(d) == ["payload", "payloadType", "signatures"]
assert d["payload"] == env["payload"]
assert d["payloadType"] == env["payloadType"] == "application/vnd.in-toto+json"
assert len(d["signatures"]) == 1
assert d["signatures"][0] == env["signatures"][0]
assert sorted(d["signatures"][0]) == ["keyid", "sig"]
assert vm["publicKey"]["hint"] == env["signatures"][0]["keyid"]
assert vm["publicKey"]["hint"].startswith("SHA256:")
PY
}

@test "sign --bundle: the same pack and key give the same bundle bytes" {
	sign_bundle
	cp p.tar.gz.1.sigstore.json first.json
	sign_bundle --force
	cmp first.json p.tar.gz.1.sigstore.json
}

@test "sign --bundle --json lists the bundles" {
	run sign_bundle --json
	[ "$status" -eq 0 ]
	[ "$(echo "$output" | jq -r '.bundles[0]')" = p.tar.gz.1.sigstore.json ]
	run "$PACKSIGN" sign "$AGENTPACK" -s alice.key -o q.tar.gz -q --json
	[ "$(echo "$output" | jq -r '.bundles | length')" = 0 ]
}

@test "sign --bundle refuses to replace an existing bundle without --force" {
	echo x >p.tar.gz.1.sigstore.json
	run sign_bundle
	[ "$status" -eq 2 ]
	[[ "$output" == *"p.tar.gz.1.sigstore.json"*"[output_exists]"* ]]
	[ ! -e p.tar.gz.sig ]
	[ "$(cat p.tar.gz.1.sigstore.json)" = x ]
}

@test "verify --bundle: a packsign bundle verifies with the signer's key" {
	sign_bundle
	rm p.tar.gz.sig
	run "$PACKSIGN" verify p.tar.gz -p alice.pub --bundle p.tar.gz.1.sigstore.json
	[ "$status" -eq 0 ]
	[[ "$output" == *"Good signature: $AGENTPACK 0.1.0 by alice"* ]]
}

@test "verify --bundle: a wrong key is refused" {
	sign_bundle
	run "$PACKSIGN" verify p.tar.gz -p bob.pub --bundle p.tar.gz.1.sigstore.json
	[ "$status" -eq 1 ]
	[[ "$output" == *"[signature_untrusted]"* ]]
}

@test "verify --bundle: a changed payload is refused" {
	sign_bundle
	rewrite p.tar.gz.1.sigstore.json '
p = base64.b64decode(b["dsseEnvelope"]["payload"]).replace(b"Top Journal", b"Top Journax")
b["dsseEnvelope"]["payload"] = base64.b64encode(p).decode()'
	run "$PACKSIGN" verify p.tar.gz -p alice.pub --bundle p.tar.gz.1.sigstore.json
	[ "$status" -eq 1 ]
	# The refusal's own code ends the line, once (issue 26).
	[[ "$output" == *"does not verify under it: expected threshold 1, found 0 [signature_invalid]"* ]]
}

@test "verify --bundle: a keyless (certificate) bundle is refused with bundle_keyless" {
	sign_bundle
	cp p.tar.gz.1.sigstore.json chain.json
	rewrite p.tar.gz.1.sigstore.json '
b["verificationMaterial"] = {"certificate": {"rawBytes": "MIIB"}, "tlogEntries": []}'
	run "$PACKSIGN" verify p.tar.gz -p alice.pub --bundle p.tar.gz.1.sigstore.json
	[ "$status" -eq 1 ]
	[[ "$output" == *"[bundle_keyless]"* ]]
	rewrite chain.json '
b["verificationMaterial"]["x509CertificateChain"] = {"certificates": [{"rawBytes": "MIIB"}]}'
	run "$PACKSIGN" verify p.tar.gz -p alice.pub --bundle chain.json
	[ "$status" -eq 1 ]
	[[ "$output" == *"[bundle_keyless]"* ]]
}

@test "verify --bundle: v0.1 and v0.2 media types are read, others and message signatures refused" {
	sign_bundle
	for t in "application/vnd.dev.sigstore.bundle+json;version=0.1" \
	    "application/vnd.dev.sigstore.bundle+json;version=0.2"; do
		cp p.tar.gz.1.sigstore.json old.json
		rewrite old.json "b['mediaType'] = '$t'"
		"$PACKSIGN" verify p.tar.gz -p alice.pub --bundle old.json
	done
	cp p.tar.gz.1.sigstore.json new.json
	rewrite new.json "b['mediaType'] = 'application/vnd.dev.sigstore.bundle.v0.4+json'"
	run "$PACKSIGN" verify p.tar.gz -p alice.pub --bundle new.json
	[ "$status" -eq 1 ]
	[[ "$output" == *"[bundle_unsupported]"* ]]
	rewrite p.tar.gz.1.sigstore.json '
del b["dsseEnvelope"]
b["messageSignature"] = {"messageDigest": {"algorithm": "SHA2_256", "digest": "AA=="}, "signature": "AA=="}'
	run "$PACKSIGN" verify p.tar.gz -p alice.pub --bundle p.tar.gz.1.sigstore.json
	[ "$status" -eq 1 ]
	[[ "$output" == *"[bundle_unsupported]"* ]]
}

@test "verify --bundle: duplicate keys, no public key and non-JSON are bundle_malformed" {
	sign_bundle
	sed 's/^{/{"mediaType":"x",/' p.tar.gz.1.sigstore.json >dup.json
	run "$PACKSIGN" verify p.tar.gz -p alice.pub --bundle dup.json
	[ "$status" -eq 1 ]
	[[ "$output" == *"[bundle_malformed]"* ]]
	cp p.tar.gz.1.sigstore.json nokey.json
	rewrite nokey.json 'b["verificationMaterial"] = {"tlogEntries": []}'
	run "$PACKSIGN" verify p.tar.gz -p alice.pub --bundle nokey.json
	[ "$status" -eq 1 ]
	[[ "$output" == *"[bundle_malformed]"* ]]
	echo '[1]' >list.json
	run "$PACKSIGN" verify p.tar.gz -p alice.pub --bundle list.json
	[ "$status" -eq 1 ]
	[[ "$output" == *"[bundle_malformed]"* ]]
}

@test "verify --bundle: a bundle over 4 MiB is refused" {
	head -c $((4 * 1024 * 1024 + 1)) /dev/zero | tr '\0' ' ' >big.json
	sign_bundle
	run "$PACKSIGN" verify p.tar.gz -p alice.pub --bundle big.json
	[ "$status" -eq 1 ]
	[[ "$output" == *"[envelope_too_large]"* ]]
}

@test "verify --bundle: the 4 MiB bound is on the bundle's bytes as given, not re-encoded JSON" {
	sign_bundle
	# 3.4 MiB of reals in an unknown member of dsseEnvelope: jansson
	# writes each 0.1 as 0.10000000000000001, five times the bytes.
	rewrite p.tar.gz.1.sigstore.json '
b["dsseEnvelope"]["x"] = [0.1] * (700 * 1024)'
	size=$(stat -c %s p.tar.gz.1.sigstore.json)
	[ "$size" -lt $((4 * 1024 * 1024)) ] && [ "$size" -gt $((3 * 1024 * 1024)) ]
	run "$PACKSIGN" verify p.tar.gz -p alice.pub --bundle p.tar.gz.1.sigstore.json
	[ "$status" -eq 0 ]
	[[ "$output" == "Good signature: "* ]]
	# over the bound, the message says what was measured: the bundle
	rewrite p.tar.gz.1.sigstore.json '
b["dsseEnvelope"]["x"] = [0.1] * (900 * 1024)'
	run "$PACKSIGN" verify p.tar.gz -p alice.pub --bundle p.tar.gz.1.sigstore.json
	[ "$status" -eq 1 ]
	[[ "$output" == *"the bundle is over 4194304 bytes"*"[envelope_too_large]"* ]]
}

@test "verify --bundle: a bundle's tlog entries and timestamps must verify (signature.md 9.2)" {
	sign_bundle
	cp p.tar.gz.1.sigstore.json plain.json
	rewrite p.tar.gz.1.sigstore.json '
b["verificationMaterial"]["tlogEntries"] = [{"logIndex": "1", "anything": True}]'
	run "$PACKSIGN" verify p.tar.gz -p alice.pub --bundle p.tar.gz.1.sigstore.json
	[ "$status" -eq 1 ]
	[[ "$output" == *"signature 1 by alice did not count: tlogEntries[0].logId: missing: expected threshold 1, found 0 [bundle_malformed]"* ]]
	# a real public-good Rekor entry, of another signature: its SET and
	# inclusion proof verify, its body records another payload and key
	cp plain.json p.tar.gz.1.sigstore.json
	CONF_BUNDLE="$BATS_TEST_DIRNAME/../conformance/bundle-verify/happy-path-intoto-in-dsse-v3/bundle.sigstore.json" \
	    rewrite p.tar.gz.1.sigstore.json '
import os
c = json.load(open(os.environ["CONF_BUNDLE"]))
b["verificationMaterial"]["tlogEntries"] = c["verificationMaterial"]["tlogEntries"]'
	run "$PACKSIGN" verify p.tar.gz -p alice.pub --bundle p.tar.gz.1.sigstore.json
	[ "$status" -eq 1 ]
	[[ "$output" == *"signature 1 by alice did not count: the log entry does not record this bundle: another payload hash: expected threshold 1, found 0 [tlog_body_mismatch]"* ]]
	# against a root without that log, the entry's log is unknown
	run "$PACKSIGN" verify p.tar.gz -p alice.pub --bundle p.tar.gz.1.sigstore.json \
	    --trusted-root "$BATS_TEST_DIRNAME/../conformance/bundle-verify/rekor2-happy-path/trusted_root.json"
	[ "$status" -eq 1 ]
	[[ "$output" == *"[tlog_unknown_log]"* ]]
	# a timestamp that is no timestamp is skipped; a Rekor-less bundle
	# without a verified time is still what it was without one
	cp plain.json p.tar.gz.1.sigstore.json
	rewrite p.tar.gz.1.sigstore.json '
b["verificationMaterial"]["timestampVerificationData"] = {"rfc3161Timestamps": [{"signedTimestamp": "AA=="}]}'
	run "$PACKSIGN" verify p.tar.gz -p alice.pub --bundle p.tar.gz.1.sigstore.json --json
	[ "$status" -eq 0 ]
	# no verified evidence: no "sigstore" member, as for a .sig
	[ "$(echo "$output" | jq -c '.results[0].signatures[0].sigstore')" = null ]
	# --trusted-root belongs to --bundle
	run "$PACKSIGN" verify p.tar.gz -p alice.pub --trusted-root x.json
	[ "$status" -eq 2 ]
	[[ "$output" == *"--trusted-root applies to --bundle [usage]"* ]]
}

# log_bundle V BUNDLE PUB.pem ROOT: BUNDLE's DSSE envelope logged by the
# local Sigstore (tests/sigstore) to its Rekor V (1: dsse 0.0.1 with SET and
# proof; 2: dsse 0.0.2, proof and checkpoint) and timestamped by its TSA, at
# 2026-06-01T12:01:00Z; the instance's trusted root written to ROOT.
log_bundle() {
	python3 - "$@" "$BATS_TEST_DIRNAME/../sigstore" <<'PY'
import json, sys
v, path, pem, root, lib = sys.argv[1:]
sys.path.insert(0, lib)
from cryptography.hazmat.primitives import serialization
from localsigstore import bundle, instance, util
b = json.load(open(path))
env = b["dsseEnvelope"]
pub = open(pem, "rb").read()

class Key:
    key_details = "PKIX_ED25519"
    def public_pem(self):
        return pub
    def spki_der(self):
        return serialization.load_pem_public_key(pub).public_bytes(
            serialization.Encoding.DER,
            serialization.PublicFormat.SubjectPublicKeyInfo)

s = instance.LocalSigstore(b"packsign bundle.bats")
sig = util.unb64(env["signatures"][0]["sig"])
signed = instance.Signed(Key(), None, None, sig, None, "sha256", envelope=env)
when = util.utc(2026, 6, 1, 12, 1, 0)
if v == "1":
    entry = s.rekor1.entry(s.log_v1(signed, when))
else:
    entry = s.rekor2.entry(s.log_v2(signed, kind="dsse"))
b["verificationMaterial"]["tlogEntries"] = [entry]
b["verificationMaterial"]["timestampVerificationData"] = bundle.timestamps(
    [s.timestamp(signed, when)])
json.dump(b, open(path, "w"))
json.dump(s.trusted_root().to_json(), open(root, "w"))
PY
}

@test "verify --bundle: a bundle logged to Rekor v1 and v2 and timestamped counts with its evidence" {
	"$PACKSIGN" key export --pem-pub -p alice.pub -o alice.pem
	sign_bundle
	cp p.tar.gz.1.sigstore.json plain.json
	log_bundle 1 p.tar.gz.1.sigstore.json alice.pem root.json
	run "$PACKSIGN" verify p.tar.gz -p alice.pub --bundle p.tar.gz.1.sigstore.json \
	    --trusted-root root.json
	[ "$status" -eq 0 ]
	[[ "$output" == *"1 transparency-log entry and 1 timestamp verified, signed by 2026-06-01T12:01:00Z"* ]]
	run "$PACKSIGN" verify p.tar.gz -p alice.pub --bundle p.tar.gz.1.sigstore.json \
	    --trusted-root root.json --json
	[ "$status" -eq 0 ]
	[ "$(echo "$output" | jq -c '.results[0].signatures[0].sigstore')" = \
	    '{"log_entries":1,"signing_times":["2026-06-01T12:01:00Z","2026-06-01T12:01:00Z"],"timestamps":1}' ]
	# not against the public-good root, which lacks the local logs
	run "$PACKSIGN" verify p.tar.gz -p alice.pub --bundle p.tar.gz.1.sigstore.json
	[ "$status" -eq 1 ]
	[[ "$output" == *"[tlog_unknown_log]"* ]]
	# judged before it was logged, the signing time is in the future
	run "$PACKSIGN" verify p.tar.gz -p alice.pub --bundle p.tar.gz.1.sigstore.json \
	    --trusted-root root.json --at 2026-05-01T00:00:00Z
	[ "$status" -eq 1 ]
	[[ "$output" == *"[signing_time_future]"* ]]
	cp plain.json p.tar.gz.1.sigstore.json
	log_bundle 2 p.tar.gz.1.sigstore.json alice.pem root.json
	run "$PACKSIGN" verify p.tar.gz -p alice.pub --bundle p.tar.gz.1.sigstore.json \
	    --trusted-root root.json --json
	[ "$status" -eq 0 ]
	[ "$(echo "$output" | jq -c '.results[0].signatures[0].sigstore')" = \
	    '{"log_entries":1,"signing_times":["2026-06-01T12:01:00Z"],"timestamps":1}' ]
	# a Rekor v2 entry whose timestamp is gone has no signing time
	rewrite p.tar.gz.1.sigstore.json '
del b["verificationMaterial"]["timestampVerificationData"]'
	run "$PACKSIGN" verify p.tar.gz -p alice.pub --bundle p.tar.gz.1.sigstore.json \
	    --trusted-root root.json
	[ "$status" -eq 1 ]
	[[ "$output" == *"[timestamp_missing]"* ]]
}

@test "verify --bundle twice: two signers' bundles meet threshold 2; one does not" {
	sign_bundle
	"$PACKSIGN" sign p.tar.gz -s bob.key --append --bundle -q >/dev/null
	[ -f p.tar.gz.2.sigstore.json ]
	policy both.yml 2
	run "$PACKSIGN" verify p.tar.gz --trust both.yml \
	    --bundle p.tar.gz.1.sigstore.json
	[ "$status" -eq 1 ]
	[[ "$output" == *"[threshold_not_met]"* ]]
	run "$PACKSIGN" verify p.tar.gz --trust both.yml \
	    --bundle p.tar.gz.1.sigstore.json --bundle p.tar.gz.2.sigstore.json
	[ "$status" -eq 0 ]
	[[ "$output" == *"alice"*"bob"* ]]
	run "$PACKSIGN" verify p.tar.gz --trust both.yml \
	    --bundle p.tar.gz.1.sigstore.json --bundle p.tar.gz.1.sigstore.json
	[ "$status" -eq 1 ]
	[[ "$output" == *"[threshold_not_met]"* ]]
}

@test "verify --bundle: bundles over different payloads are refused (bundle_mismatch)" {
	sign_bundle
	"$PACKSIGN" sign "$AGENTPACK" -s bob.key -o q.tar.gz --bundle --mtime 5 -q
	run "$PACKSIGN" verify p.tar.gz -p alice.pub \
	    --bundle p.tar.gz.1.sigstore.json --bundle q.tar.gz.1.sigstore.json
	[ "$status" -eq 1 ]
	[[ "$output" == *"q.tar.gz.1.sigstore.json"*"[bundle_mismatch]"* ]]
}

@test "verify --bundle: usage errors with --sig, several archives, --installed" {
	sign_bundle
	run "$PACKSIGN" verify p.tar.gz -p alice.pub --sig p.tar.gz.sig \
	    --bundle p.tar.gz.1.sigstore.json
	[ "$status" -eq 2 ]
	run "$PACKSIGN" verify p.tar.gz p.tar.gz -p alice.pub \
	    --bundle p.tar.gz.1.sigstore.json
	[ "$status" -eq 2 ]
	run "$PACKSIGN" verify --installed x --bundle p.tar.gz.1.sigstore.json
	[ "$status" -eq 2 ]
}

@test "sign --append --bundle rewrites every bundle, byte-identical for the old signatures" {
	sign_bundle
	cp p.tar.gz.1.sigstore.json first.json
	run "$PACKSIGN" sign p.tar.gz -s bob.key --append --bundle
	[ "$status" -eq 0 ]
	[[ "$output" == *"wrote p.tar.gz.1.sigstore.json"*"wrote p.tar.gz.2.sigstore.json"*"wrote p.tar.gz.sig (2 signatures)"* ]]
	cmp first.json p.tar.gz.1.sigstore.json
	python3 - <<'PY'
import json
env = json.load(open("p.tar.gz.sig"))
for i in range(2):
    b = json.load(open("p.tar.gz.%d.sigstore.json" % (i + 1)))
    assert b["dsseEnvelope"]["signatures"] == [env["signatures"][i]]
    assert b["verificationMaterial"]["publicKey"]["hint"] == env["signatures"][i]["keyid"]
PY
	"$PACKSIGN" verify p.tar.gz -p bob.pub --bundle p.tar.gz.2.sigstore.json
}

@test "a statement of another predicate type in a bundle is refused as in a .sig" {
	sign_bundle
	rewrite p.tar.gz.1.sigstore.json '
p = base64.b64decode(b["dsseEnvelope"]["payload"]).replace(b"https://packsign.dev/", b"https://example.com/")
b["dsseEnvelope"]["payload"] = base64.b64encode(p).decode()'
	run "$PACKSIGN" verify p.tar.gz -p alice.pub --bundle p.tar.gz.1.sigstore.json
	[ "$status" -eq 1 ]
}

@test "node: @sigstore/verify verifies packsign's bundle with the signer's Ed25519 key" {
	node_or_skip
	sign_bundle
	"$PACKSIGN" key export --pem-pub -p alice.pub -o alice.pem >/dev/null
	"$PACKSIGN" key export --pem-pub -p bob.pub -o bob.pem >/dev/null
	run node_verify p.tar.gz.1.sigstore.json alice.pem
	[ "$status" -eq 0 ]
	[[ "$output" == *verified* ]]
	run node_verify p.tar.gz.1.sigstore.json bob.pem
	[ "$status" -eq 1 ]
	[[ "$output" == *"refused"* ]]
}

@test "node: @sigstore/verify refuses a changed payload" {
	node_or_skip
	sign_bundle
	"$PACKSIGN" key export --pem-pub -p alice.pub -o alice.pem >/dev/null
	rewrite p.tar.gz.1.sigstore.json '
p = base64.b64decode(b["dsseEnvelope"]["payload"]).replace(b"Top Journal", b"Top Journax")
b["dsseEnvelope"]["payload"] = base64.b64encode(p).decode()'
	run node_verify p.tar.gz.1.sigstore.json alice.pem
	[ "$status" -eq 1 ]
}

@test "node: @sigstore/verify verifies both bundles of a co-signed pack" {
	node_or_skip
	sign_bundle
	"$PACKSIGN" sign p.tar.gz -s bob.key --append --bundle -q >/dev/null
	"$PACKSIGN" key export --pem-pub -p bob.pub -o bob.pem >/dev/null
	node_verify p.tar.gz.2.sigstore.json bob.pem
}

@test "node: a bundle signed by Node's crypto with ECDSA P-256 verifies in packsign" {
	node_or_skip
	sign_bundle
	python3 -c '
import base64, json
b = json.load(open("p.tar.gz.1.sigstore.json"))
open("statement.json", "wb").write(base64.b64decode(b["dsseEnvelope"]["payload"]))'
	NODE_PATH="$NODE_DIR/node_modules" node "$NODE_SCRIPT" sign-p256 \
	    statement.json p256.json p256.pem
	node_verify p256.json p256.pem
	{
		echo "version: 1"
		echo "signers:"
		echo "  - identity: carol"
		echo "    keys:"
		echo "      - key: |"
		sed 's/^/          /' p256.pem
		echo '    packs: ["*"]'
		echo "threshold: 1"
	} >p256.yml
	"$PACKSIGN" trust check --trust p256.yml >/dev/null
	run "$PACKSIGN" verify p.tar.gz --trust p256.yml --bundle p256.json
	[ "$status" -eq 0 ]
	[[ "$output" == *"by carol"* ]]
	# Another P-256 key in the policy: the bundle's signature is not its.
	openssl ecparam -name prime256v1 -genkey -noout 2>/dev/null |
	    openssl ec -pubout 2>/dev/null >other.pem
	sed -n '1,/key: |/p' p256.yml >other.yml
	sed 's/^/          /' other.pem >>other.yml
	printf '    packs: ["*"]\nthreshold: 1\n' >>other.yml
	"$PACKSIGN" trust check --trust other.yml >/dev/null
	run "$PACKSIGN" verify p.tar.gz --trust other.yml --bundle p256.json
	[ "$status" -eq 1 ]
	[[ "$output" == *"[signature_untrusted]"* ]]
}
