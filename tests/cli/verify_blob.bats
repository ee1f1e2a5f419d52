#!/usr/bin/env bats
# packsign verify-blob: any file's Sigstore bundle, verified offline
# (docs/formats/sigstore.md), on Sigstore's own conformance suite
# (tests/conformance, through its CLI protocol) and on the checks around it.

load helpers
bats_require_minimum_version 1.5.0

ROOT="$BATS_TEST_DIRNAME/../.."
CONF="$ROOT/tests/conformance"
V="$CONF/bundle-verify"
ID=https://github.com/sigstore-conformance/extremely-dangerous-public-oidc-beacon/.github/workflows/extremely-dangerous-oidc-beacon.yml@refs/heads/main
ISS=https://token.actions.githubusercontent.com

setup() {
	cd "$BATS_TEST_TMPDIR"
}

# blob CASE [OPTIONS...]: verify-blob of a conformance case's bundle over
# the suite's artifact with the default identity.
blob() {
	local c=$1
	shift
	"$PACKSIGN" verify-blob "$V/a.txt" --bundle "$V/$c/bundle.sigstore.json" \
	    --certificate-identity "$ID" --certificate-oidc-issuer "$ISS" "$@"
}

@test "conformance: every case of the suite, by path and by digest, with the expected code" {
	run env PACKSIGN="$PACKSIGN" "$CONF/run-cases" "$V" "$CONF/expected"
	[ "$status" -eq 0 ] || { echo "$output" | grep -v '^ok '; false; }
	[[ "$output" == *"# 70 cases, 140 runs agree, 0 disagree"* ]]
	# every _fail case is refused with a code, never by a crash or usage
	! grep -E '_fail +0 ' "$CONF/expected"
	! grep -E ' (usage|internal_error|out_of_memory) ' "$CONF/expected"
	[ "$(grep -c '_fail ' "$CONF/expected")" -eq 49 ]
}

@test "sigstore-python's test bundles, by path and by digest, verified or refused as its tests expect" {
	run env PACKSIGN="$PACKSIGN" "$CONF/run-cases" "$CONF/sigstore-python" "$CONF/expected-sigstore-python"
	[ "$status" -eq 0 ] || { echo "$output" | grep -v '^ok '; false; }
	[[ "$output" == *"# 14 cases, 28 runs agree, 0 disagree"* ]]
	! grep -E '_fail +0 ' "$CONF/expected-sigstore-python"
	! grep -E ' (usage|internal_error|out_of_memory) ' "$CONF/expected-sigstore-python"
}

@test "conformance: run-cases fails a case whose outcome differs, and one without an expectation" {
	grep -v '^happy-path-v0.1 ' "$CONF/expected" |
	    sed 's/^\(signature-mismatch_fail *1\) tlog_body_mismatch/\1 signature_invalid/' >exp
	run env PACKSIGN="$PACKSIGN" "$CONF/run-cases" "$V" exp
	[ "$status" -eq 1 ]
	[[ "$output" == *"not ok - happy-path-v0.1 (path): no line in exp"* ]]
	[[ "$output" == *"not ok - signature-mismatch_fail (digest): expected exit 1 signature_invalid, got exit 1 tlog_body_mismatch"* ]]
}

# The local Sigstore's cases (tests/sigstore/mkcases): one per check and its
# failure that the suite does not cover, each with its code in
# tests/conformance/expected-mkcases.
@test "local Sigstore: every case mkcases writes, by path and by digest, with the expected code" {
	"$ROOT/tests/sigstore/mkcases" cases >/dev/null
	run env PACKSIGN="$PACKSIGN" "$CONF/run-cases" cases "$CONF/expected-mkcases"
	[ "$status" -eq 0 ] || { echo "$output" | grep -v '^ok '; false; }
	local n
	n=$(grep -cvE '^(#|$)' "$CONF/expected-mkcases")
	[ "$n" -ge 75 ]
	[[ "$output" == *"# $n cases, $((2 * n)) runs agree, 0 disagree"* ]]
	! grep -E '_fail +0 ' "$CONF/expected-mkcases"
	! grep -E ' (usage|internal_error|out_of_memory) ' "$CONF/expected-mkcases"
}

@test "certificate_san says what it found: the number of names, or the one name's kind" {
	"$ROOT/tests/sigstore/mkcases" --only leaf-san-dns-only_fail cases >/dev/null
	local c=cases/leaf-san-dns-only_fail
	run -1 "$PACKSIGN" verify-blob "$c/artifact" --bundle "$c/bundle.sigstore.json" \
	    --trusted-root "$c/trusted_root.json" \
	    --certificate-identity "$(cat "$c/identity")" --certificate-oidc-issuer "$(cat "$c/issuer")"
	[[ "$output" == *"bundle.sigstore.json: looked for the signer's identity in the certificate's subject alternative names: expected exactly one, a URI, an email address or Fulcio's OtherName, found a DNS name [certificate_san]" ]]
	local rc=0
	"$PACKSIGN" verify-blob "$c/artifact" --bundle "$c/bundle.sigstore.json" \
	    --trusted-root "$c/trusted_root.json" --json \
	    --certificate-identity "$(cat "$c/identity")" --certificate-oidc-issuer "$(cat "$c/issuer")" \
	    >out.json 2>/dev/null || rc=$?
	[ "$rc" -eq 1 ]
	[ "$(jq -r '"\(.code) \(.found)"' out.json)" = "certificate_san a DNS name" ]
}

@test "run-cases: digest=EXIT:CODE is the run by digest's outcome, and only that run's" {
	mkdir -p cases
	cp -r "$V/managed-key-happy-path" "$V/happy-path-v0.3" cases/
	cp "$V/a.txt" cases/
	printf '%s\n' 'managed-key-happy-path 0 - digest=1:artifact_digest_unusable' \
	    'happy-path-v0.3 0 -' >exp
	run env PACKSIGN="$PACKSIGN" "$CONF/run-cases" cases exp
	[ "$status" -eq 1 ]
	[[ "$output" == *"ok - managed-key-happy-path (path): exit 0 -"* ]]
	[[ "$output" == *"not ok - managed-key-happy-path (digest): expected exit 1 artifact_digest_unusable, got exit 0 -"* ]]
	[[ "$output" == *"# 2 cases, 3 runs agree, 1 disagree"* ]]
}

@test "the adapter speaks the suite's protocol and refuses what it cannot do" {
	run env PACKSIGN="$PACKSIGN" "$CONF/packsign-conformance" verify-bundle \
	    --bundle "$V/managed-key-happy-path/bundle.sigstore.json" \
	    --key "$V/managed-key-happy-path/key.pub" "$V/a.txt"
	[ "$status" -eq 0 ]
	[[ "$output" == "Good signature: "* ]]
	run env PACKSIGN="$PACKSIGN" "$CONF/packsign-conformance" verify-bundle \
	    --staging --bundle x --key y z
	[ "$status" -eq 2 ]
	[[ "$output" == *"[usage]"* ]]
	run env PACKSIGN="$PACKSIGN" "$CONF/packsign-conformance" sign-bundle \
	    --identity-token t --bundle b f
	[ "$status" -eq 2 ]
}

@test "a keyless bundle: the report names the signer, the log entry, the SCT and the source" {
	run blob happy-path-v0.3
	[ "$status" -eq 0 ]
	[ "${lines[0]}" = "Good signature: $V/a.txt (sha256:a0cfc71271d6e278e57cd332ff957c3f7043fdda354c4cbb190a30d56efa01bf) by $ID (issuer $ISS)" ]
	[ "${lines[1]}" = "  bundle: v0.3, message signature, certificate from https://fulcio.sigstore.dev, SCT from https://ctfe.sigstore.dev/2022" ]
	[ "${lines[2]}" = "  log entry: https://rekor.sigstore.dev index 79571823 (hashedrekord 0.0.1, Rekor v1): inclusion promise and inclusion proof verified, integrated 2024-03-19T17:26:26Z, tree size 75408393" ]
	[[ "${lines[3]}" == "  built from: https://github.com/sigstore-conformance/extremely-dangerous-public-oidc-beacon at c7b3dfb335f051e1c86bda4c716fac97df62ad81 (refs/heads/main), signer workflow $ID" ]]
}

@test "--json: every step's evidence, Fulcio's extensions by name and in full" {
	run -0 "$PACKSIGN" verify-blob "$V/a.txt" --json \
	    --bundle "$V/rekor2-happy-path/bundle.sigstore.json" \
	    --trusted-root "$V/rekor2-happy-path/trusted_root.json" \
	    --certificate-identity "$ID" --certificate-oidc-issuer "$ISS"
	echo "$output" >out.json
	q() { python3 -c "import json,sys; d=json.load(open('out.json')); print($1)"; }
	[ "$(q 'd["ok"], d["exit"], d["code"]')" = "True 0 None" ]
	[ "$(q 'all(d["steps"].values())')" = True ]
	[ "$(q 'd["log_entries"][0]["rekor_version"], d["log_entries"][0]["inclusion_proof_verified"], d["log_entries"][0]["integrated_time"]')" = "2 True None" ]
	[ "$(q 'd["log_entries"][0]["checkpoint_origin"]')" = log2025-alpha1.rekor.sigstage.dev ]
	[ "$(q 'd["timestamps"][0]["verified"], d["timestamps"][0]["time"]')" = "True 2025-06-12T12:02:20Z" ]
	[ "$(q 'd["signing_times"]')" = "['2025-06-12T12:02:20Z']" ]
	[ "$(q 'd["certificate"]["extensions"]["fields"]["source_repository_digest"]')" = 9739798945b2a848e911bcf1dddb97298cade0b1 ]
	[ "$(q 'd["certificate"]["extensions"]["fields"]["source_repository_identifier"], d["certificate"]["extensions"]["fields"]["runner_environment"]')" = "632596897 github-hosted" ]
	[ "$(q 'len(d["certificate"]["extensions"]["all"])')" -eq 21 ]
	[ "$(q 'd["certificate"]["san_type"], d["trusted_root"]["public_good"]')" = "uri False" ]
}

@test "--json of a refusal: the code, and the steps passed before it" {
	status=0
	blob happy-path-v0.3 --json --certificate-identity https://example.com/other \
	    >out.json 2>err.txt || status=$?
	[ "$status" -eq 1 ]
	q() { python3 -c "import json,sys; d=json.load(open('out.json')); print($1)"; }
	[ "$(q 'd["ok"], d["exit"], d["code"], d["expected"]')" = "False 1 identity_mismatch https://example.com/other" ]
	[ "$(q 'd["steps"]["certificate"], d["steps"]["identity"], d["steps"]["signature"]')" = "True False False" ]
	grep -q '\[identity_mismatch\]$' err.txt
}

@test "identity and issuer are compared exactly, each with its code" {
	run -1 blob happy-path-v0.3 --certificate-identity "$ID/"
	[[ "$output" == *"compared the certificate's subject alternative name with the identity asked for: expected $ID/, found $ID [identity_mismatch]"* ]]
	run -1 blob happy-path-v0.3 --certificate-oidc-issuer "$ISS/"
	[[ "$output" == *"expected $ISS/, found $ISS [issuer_mismatch]"* ]]
	run -1 blob happy-path-v0.3 --certificate-identity "${ID%main}"
	[[ "$output" == *"[identity_mismatch]"* ]]
}

@test "--at before the signing time: refused as a time in the future" {
	run -1 blob happy-path-v0.3 --at 2024-03-19T17:26:25Z
	[[ "$output" == *"a verified signing time lies in the future: expected 2024-03-19T17:26:25Z, found 2024-03-19T17:26:26Z [signing_time_future]"* ]]
	run -0 blob happy-path-v0.3 --at 2024-03-19T17:26:27Z
}

@test "another artifact, or its digest, is refused by the log entry's record of it" {
	echo other >other.txt
	run -1 "$PACKSIGN" verify-blob other.txt \
	    --bundle "$V/happy-path-v0.3/bundle.sigstore.json" \
	    --certificate-identity "$ID" --certificate-oidc-issuer "$ISS"
	[[ "$output" == *"another artifact digest [tlog_body_mismatch]"* ]]
	run -1 "$PACKSIGN" verify-blob "sha256:$(sha256sum other.txt | cut -d' ' -f1)" \
	    --bundle "$V/happy-path-v0.3/bundle.sigstore.json" \
	    --certificate-identity "$ID" --certificate-oidc-issuer "$ISS"
	[[ "$output" == *"[tlog_body_mismatch]"* ]]
}

@test "sha256:HEX is a digest only when no such file exists" {
	d=sha256:a0cfc71271d6e278e57cd332ff957c3f7043fdda354c4cbb190a30d56efa01bf
	run -0 blob happy-path-v0.3
	run -0 "$PACKSIGN" verify-blob "$d" --bundle "$V/happy-path-v0.3/bundle.sigstore.json" \
	    --certificate-identity "$ID" --certificate-oidc-issuer "$ISS"
	[[ "$output" == "Good signature: $d ($d)"* ]]
	echo not-the-artifact >"$d"
	run -1 "$PACKSIGN" verify-blob "$d" --bundle "$V/happy-path-v0.3/bundle.sigstore.json" \
	    --certificate-identity "$ID" --certificate-oidc-issuer "$ISS"
	[[ "$output" == *"[tlog_body_mismatch]"* ]]
}

@test "a JSON Lines trusted root trusts every root it holds" {
	cat "$V/rekor2-happy-path/trusted_root.json" >roots.jsonl
	python3 -c 'import json,sys; print(json.dumps(json.load(open(sys.argv[1]))))' \
	    "$ROOT/sigstore/publicgood.json" >>roots.jsonl
	run -0 blob rekor2-happy-path --trusted-root roots.jsonl
	run -0 blob happy-path-v0.3 --trusted-root roots.jsonl
	run -1 blob rekor2-happy-path
	[[ "$output" == *"[tlog_unknown_log]"* ]]
}

@test "trusted roots are operator input: each malformation exit 2 with its code" {
	run -2 blob happy-path-v0.3 --trusted-root missing.json
	[[ "$output" == *"[not_found]"* ]]
	echo '{"mediaType": "application/vnd.dev.sigstore.trustedroot.v0.9+json"}' >r.json
	run -2 blob happy-path-v0.3 --trusted-root r.json
	[[ "$output" == *"expected trustedroot v0.1 or v0.2, found application/vnd.dev.sigstore.trustedroot.v0.9+json [trusted_root_unsupported]"* ]]
	python3 - "$ROOT/sigstore/publicgood.json" <<'PY' >r.json
import json, sys
d = json.load(open(sys.argv[1]))
d["tlogs"][0]["surprise"] = 1
print(json.dumps(d))
PY
	run -2 blob happy-path-v0.3 --trusted-root r.json
	[[ "$output" == *'tlogs[0]: unknown field "surprise" [trusted_root_invalid]'* ]]
	python3 -c 'print("[" * 40 + "]" * 40)' >r.json
	run -2 blob happy-path-v0.3 --trusted-root r.json
	[[ "$output" == *"JSON nested deeper than 32 levels [trusted_root_invalid]"* ]]
	run -2 blob trust-root-tlog-missing-validity-start_fail \
	    --trusted-root "$V/trust-root-tlog-missing-validity-start_fail/trusted_root.json"
	[[ "$output" == *"tlogs[1].publicKey: no start of validity"*"[trusted_root_validity]"* ]]
}

@test "usage: --bundle, and an identity with its issuer or a key, are required" {
	run -2 "$PACKSIGN" verify-blob a.txt --key k.pem
	[[ "$output" == *"missing --bundle B [usage]"* ]]
	run -2 "$PACKSIGN" verify-blob a.txt --bundle b --key k.pem --certificate-identity x
	[[ "$output" == *"--key excludes --certificate-identity"* ]]
	run -2 "$PACKSIGN" verify-blob a.txt --bundle b --certificate-identity x
	[[ "$output" == *"give --certificate-identity and --certificate-oidc-issuer, or --key [usage]"* ]]
	run -2 "$PACKSIGN" verify-blob --bundle b --key k.pem
	[[ "$output" == *"missing FILE or sha256:HEX"* ]]
}

@test "a certificate bundle with --key, a key bundle with an identity: bundle_material_mismatch" {
	run -1 "$PACKSIGN" verify-blob "$V/a.txt" --bundle "$V/happy-path-v0.3/bundle.sigstore.json" \
	    --key "$V/managed-key-happy-path/key.pub"
	[[ "$output" == *"expected a public key hint, found a certificate [bundle_material_mismatch]"* ]]
	run -1 blob managed-key-happy-path
	[[ "$output" == *"expected a certificate, found a public key hint [bundle_material_mismatch]"* ]]
}

@test "a timestamp that does not verify is skipped when another time is verified" {
	python3 - "$V/rekor2-happy-path/bundle.sigstore.json" \
	    "$V/rekor2-timestamp-payload-mismatch_fail/bundle.sigstore.json" <<'PY' >b.json
import json, sys
good = json.load(open(sys.argv[1]))
bad = json.load(open(sys.argv[2]))
ts = good["verificationMaterial"]["timestampVerificationData"]["rfc3161Timestamps"]
ts.insert(0, bad["verificationMaterial"]["timestampVerificationData"]["rfc3161Timestamps"][0])
print(json.dumps(good))
PY
	run -0 "$PACKSIGN" verify-blob "$V/a.txt" --bundle b.json \
	    --trusted-root "$V/rekor2-happy-path/trusted_root.json" \
	    --certificate-identity "$ID" --certificate-oidc-issuer "$ISS"
	[[ "$output" == *"  timestamp 0 skipped: "*"[timestamp_imprint_mismatch]"* ]]
	[[ "$output" == *"  timestamp: 2025-06-12T12:02:20Z by https://timestamp.sigstage.dev/api/v1/timestamp"* ]]
	# the same token twice is refused (one TSA cannot count twice)
	python3 - b.json <<'PY' >c.json
import json, sys
d = json.load(open(sys.argv[1]))
ts = d["verificationMaterial"]["timestampVerificationData"]["rfc3161Timestamps"]
ts.append(ts[1])
print(json.dumps(d))
PY
	run -1 "$PACKSIGN" verify-blob "$V/a.txt" --bundle c.json \
	    --trusted-root "$V/rekor2-happy-path/trusted_root.json" \
	    --certificate-identity "$ID" --certificate-oidc-issuer "$ISS"
	[[ "$output" == *"rfc3161Timestamps[2]: the same timestamp twice [timestamp_duplicate]"* ]]
}

@test "bounds: a bundle over 4 MiB, a proof over 64 hashes, more than 4 log entries" {
	head -c $((4 * 1024 * 1024 + 1)) /dev/zero >big.json
	run -1 blob happy-path-v0.3 --bundle big.json
	[[ "$output" == *"[bundle_malformed]"* ]]
	python3 - "$V/happy-path-v0.3/bundle.sigstore.json" <<'PY' >b.json
import json, sys
d = json.load(open(sys.argv[1]))
e = d["verificationMaterial"]["tlogEntries"][0]
e["inclusionProof"]["hashes"] = e["inclusionProof"]["hashes"] * 7
print(json.dumps(d))
PY
	run -1 blob happy-path-v0.3 --bundle b.json
	[[ "$output" == *"tlogEntries[0].inclusionProof.hashes: more than 64 items [bundle_malformed]"* ]]
	python3 - "$V/happy-path-v0.3/bundle.sigstore.json" <<'PY' >b.json
import json, sys
d = json.load(open(sys.argv[1]))
d["verificationMaterial"]["tlogEntries"] *= 5
print(json.dumps(d))
PY
	run -1 blob happy-path-v0.3 --bundle b.json
	[[ "$output" == *"tlogEntries: more than 4 items [bundle_malformed]"* ]]
}

@test "the same log entry twice is refused" {
	python3 - "$V/happy-path-v0.3/bundle.sigstore.json" <<'PY' >b.json
import json, sys
d = json.load(open(sys.argv[1]))
d["verificationMaterial"]["tlogEntries"] *= 2
print(json.dumps(d))
PY
	run -1 blob happy-path-v0.3 --bundle b.json
	[[ "$output" == *"tlogEntries[1]: the same log entry twice (as tlogEntries[0]) [tlog_duplicate]"* ]]
}

# Refusals neither the suite nor mkcases reaches, each from a conformance
# bundle or root changed in one place: every code of docs/errors.md,
# "Sigstore", that a bundle can cause this way has a test asserting it.
edited() {
	python3 - "$V" "$ROOT/sigstore/publicgood.json" "$1" <<'PY'
import base64, copy, json, sys
V, pg, what = sys.argv[1:]
def case(c, f="bundle.sigstore.json"):
    return json.load(open("%s/%s/%s" % (V, c, f)))
if what == "dsse-two":
    b = case("happy-path-intoto-in-dsse-v3")
    s = b["dsseEnvelope"]["signatures"]
    s.append(copy.deepcopy(s[0]))
elif what == "dsse-none":
    b = case("happy-path-intoto-in-dsse-v3")
    b["dsseEnvelope"]["signatures"] = []
elif what == "material-two":
    b = case("happy-path-v0.3")
    b["verificationMaterial"]["publicKey"] = {"hint": "x"}
elif what == "material-chain-v0.3":
    b = case("happy-path-v0.3")
    vm = b["verificationMaterial"]
    vm["x509CertificateChain"] = {"certificates": [vm.pop("certificate")]}
elif what == "ca-leaf":
    b = case("happy-path-v0.3")
    ca = json.load(open(pg))["certificateAuthorities"][-1]
    b["verificationMaterial"]["certificate"]["rawBytes"] = \
        ca["certChain"]["certificates"][0]["rawBytes"]
elif what == "kind-rekord":
    b = case("happy-path-v0.3")
    b["verificationMaterial"]["tlogEntries"][0]["kindVersion"]["kind"] = "rekord"
elif what == "no-checkpoint":
    b = case("happy-path-v0.3")
    b["verificationMaterial"]["tlogEntries"][0]["inclusionProof"].pop("checkpoint")
elif what == "no-promise":
    b = case("happy-path-v0.3")
    b["verificationMaterial"]["tlogEntries"][0].pop("inclusionPromise")
elif what == "timestamp-not-der":
    b = case("rekor2-happy-path")
    t = b["verificationMaterial"]["timestampVerificationData"]["rfc3161Timestamps"]
    t[0]["signedTimestamp"] = base64.b64encode(b"not a timestamp").decode()
elif what == "root-log-ml-dsa":
    b = case("rekor2-happy-path", "trusted_root.json")
    for log in b["tlogs"]:
        if log["baseUrl"] == "https://log2025-alpha1.rekor.sigstage.dev":
            log["publicKey"]["keyDetails"] = "ML_DSA_65"
print(json.dumps(b))
PY
}

@test "refusals the suite does not reach: DSSE signatures, material, a CA leaf, kinds, checkpoints, times, keys" {
	edited dsse-two >b.json
	run -1 blob happy-path-intoto-in-dsse-v3 --bundle b.json
	[[ "$output" == *"b.json: counted the signatures of the bundle's DSSE envelope, which carries exactly one: expected 1, found 2 [bundle_dsse_signatures]" ]]
	edited dsse-none >b.json
	run -1 blob happy-path-intoto-in-dsse-v3 --bundle b.json
	[[ "$output" == *"which carries exactly one: expected 1, found 0 [bundle_dsse_signatures]" ]]
	edited material-two >b.json
	run -1 blob happy-path-v0.3 --bundle b.json
	[[ "$output" == *"verificationMaterial: a bundle v0.3 holds one of publicKey and certificate: expected one form, found several [bundle_material]" ]]
	edited material-chain-v0.3 >b.json
	run -1 blob happy-path-v0.3 --bundle b.json
	[[ "$output" == *"expected one form, found the other version's form [bundle_material]" ]]
	edited ca-leaf >b.json
	run -1 blob happy-path-v0.3 --bundle b.json
	[[ "$output" == *"b.json: the bundle's first certificate is a CA certificate, not the signing (leaf) certificate [certificate_not_leaf]" ]]
	edited kind-rekord >b.json
	run -1 blob happy-path-v0.3 --bundle b.json
	[[ "$output" == *"tlogEntries[0]: an entry of a kind packsign does not verify: expected hashedrekord 0.0.1, dsse 0.0.1, intoto 0.0.2 (Rekor v1); hashedrekord 0.0.2, dsse 0.0.2 (Rekor v2), found rekord 0.0.1 [tlog_kind_unsupported]" ]]
	edited no-checkpoint >b.json
	run -1 blob happy-path-v0.3 --bundle b.json
	[[ "$output" == *"tlogEntries[0]: the inclusion proof has no checkpoint"*"[tlog_checkpoint_missing]" ]]
	# a Rekor v1 entry proven by its inclusion proof alone carries no
	# verified time, and there is no timestamp: the certificate cannot be
	# checked at any signing time (sigstore.md section 6, rule 4)
	edited no-promise >b.json
	run -1 blob happy-path-v0.3 --bundle b.json
	[[ "$output" == *"b.json: no verified signing time (an inclusion promise or a timestamp) to check the certificate at [signing_time_missing]" ]]
	edited timestamp-not-der >b.json
	run -1 blob rekor2-happy-path --bundle b.json \
	    --trusted-root "$V/rekor2-happy-path/trusted_root.json"
	[[ "$output" == *"rfc3161Timestamps[0]: not an RFC 3161 timestamp response: not DER TimeStampResp [timestamp_malformed]" ]]
	# a root may list a log key of an algorithm packsign does not verify
	# (trust check marks it): an entry of that log is refused, exit 1
	edited root-log-ml-dsa >r.json
	run -1 blob rekor2-happy-path --trusted-root r.json
	[[ "$output" == *"tlogEntries[0]: the trusted root's key of https://log2025-alpha1.rekor.sigstage.dev is of an algorithm packsign does not verify (ML_DSA_65) [tlog_key_unsupported]" ]]
}

@test "a root that lists transparency logs requires a log entry" {
	python3 - "$V/rekor2-happy-path/bundle.sigstore.json" <<'PY' >b.json
import json, sys
d = json.load(open(sys.argv[1]))
d["verificationMaterial"]["tlogEntries"] = []
print(json.dumps(d))
PY
	run -1 "$PACKSIGN" verify-blob "$V/a.txt" --bundle b.json \
	    --trusted-root "$V/rekor2-happy-path/trusted_root.json" \
	    --certificate-identity "$ID" --certificate-oidc-issuer "$ISS"
	[[ "$output" == *"the trusted root lists transparency logs and the bundle carries no log entry [tlog_entry_missing]"* ]]
}

@test "the compiled-in root is generated from the vendored public-good root" {
	run -0 "$ROOT/scripts/embed-trusted-root" --check
}

@test "trust check --sigstore: the compiled-in root, its source and date, every entry" {
	run -0 "$PACKSIGN" trust check --sigstore
	[ "${lines[0]}" = "sigstore trusted root: the compiled-in public-good trusted root (1 root)" ]
	[[ "${lines[1]}" == "  source: Sigstore's TUF repository https://tuf-repo-cdn.sigstore.dev, target trusted_root.json, as embedded by sigstore-python"*"27db13db157ecae5606eb22ec0be299ef348c370)" ]]
	[ "${lines[2]}" = "  date: 2025-10-21" ]
	[[ "$output" == *"  transparency log https://rekor.sigstore.dev (PKIX_ECDSA_P256_SHA_256)"$'\n'"      valid 2021-01-12T11:53:27Z .. (open)"* ]]
	[[ "$output" == *"  CT log https://ctfe.sigstore.dev/test (PKIX_ECDSA_P256_SHA_256)"$'\n'"      valid 2021-03-14T00:00:00Z .. 2022-10-31T23:59:59Z"* ]]
	[[ "$output" == *"  timestamp authority https://timestamp.sigstore.dev/api/v1/timestamp (2 certificates)"* ]]
	run -0 "$PACKSIGN" trust check --sigstore --json
	echo "$output" >t.json
	[ "$(python3 -c 'import json; d=json.load(open("t.json"))["sigstore_trusted_root"]; print(d["public_good"], d["date"], len(d["entries"]))')" = "True 2025-10-21 7" ]
}

@test "trust check --trusted-root F: another root, and a key it cannot use marked so" {
	run -0 "$PACKSIGN" trust check --trusted-root "$V/rekor2-dsse-happy-path/trusted_root.json"
	[[ "${lines[0]}" == "sigstore trusted root: $V/rekor2-dsse-happy-path/trusted_root.json (1 root)" ]]
	[[ "$output" != *"source:"* ]]
	[[ "$output" == *"  transparency log https://log2025-alpha3.rekor.sigstage.dev (PKIX_ED25519)"* ]]
	python3 - "$V/rekor2-dsse-happy-path/trusted_root.json" <<'PY' >r.json
import json, sys
d = json.load(open(sys.argv[1]))
d["ctlogs"][0]["publicKey"]["keyDetails"] = "ML_DSA_65"
print(json.dumps(d))
PY
	run -0 "$PACKSIGN" trust check --trusted-root r.json
	[[ "$output" == *"(ML_DSA_65, not usable: packsign does not verify with this algorithm)"* ]]
	run -2 "$PACKSIGN" trust check --sigstore --trusted-root r.json
	[[ "$output" == *"[usage]"* ]]
}
