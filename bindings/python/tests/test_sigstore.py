"""verify_blob(): Sigstore bundles verified offline through
ps_sigstore_verify(), on cases of Sigstore's conformance suite
(tests/conformance), compared with the CLI's verify-blob --json."""
import datetime as dt
import hashlib

import pytest

import packsign
from conftest import REPO, cli_json

V = REPO / "tests" / "conformance" / "bundle-verify"
ID = ("https://github.com/sigstore-conformance/extremely-dangerous-public-"
      "oidc-beacon/.github/workflows/extremely-dangerous-oidc-beacon.yml"
      "@refs/heads/main")
ISS = "https://token.actions.githubusercontent.com"


def test_keyless_bundle_evidence_matches_the_cli():
    r = packsign.verify_blob(V / "a.txt", V / "happy-path-v0.3" /
                             "bundle.sigstore.json", identity=ID, issuer=ISS)
    assert r.ok and r.exit == 0 and r.code is None
    assert r.steps == packsign.SIGSTORE_STEPS
    assert r.keyless and not r.dsse and r.bundle_version == 3
    assert r.certificate.san == ID and r.certificate.issuer == ISS
    assert r.certificate.fields["source_repository_digest"] == \
        "c7b3dfb335f051e1c86bda4c716fac97df62ad81"
    assert r.certificate.authority == "https://fulcio.sigstore.dev"
    e = r.log_entries[0]
    assert (e.log_index, e.kind, e.rekor_version) == (79571823,
                                                      "hashedrekord", 1)
    assert e.integrated_time == dt.datetime(2024, 3, 19, 17, 26, 26,
                                            tzinfo=dt.timezone.utc)
    assert r.signing_times == [e.integrated_time]
    code, j = cli_json("verify-blob", V / "a.txt", "--bundle",
                       V / "happy-path-v0.3" / "bundle.sigstore.json",
                       "--certificate-identity", ID,
                       "--certificate-oidc-issuer", ISS)
    assert code == 0
    assert j["log_entries"][0]["log_index"] == e.log_index
    assert j["certificate"]["sha256"] == r.certificate.sha256
    assert len(j["certificate"]["extensions"]["all"]) == \
        len(r.certificate.extensions)


def test_by_digest_and_with_a_key():
    digest = hashlib.sha256((V / "a.txt").read_bytes()).hexdigest()
    d = V / "managed-key-happy-path"
    r = packsign.verify_blob(None, d / "bundle.sigstore.json",
                             sha256="sha256:" + digest, key=d / "key.pub")
    assert r.ok and not r.keyless and r.certificate is None
    assert r.key_details == "PKIX_ECDSA_P256_SHA_256"
    assert r.artifact_sha256 == "sha256:" + digest
    assert r.timestamps[0].verified
    assert r.timestamps[0].authority == \
        "https://timestamp.sigstore.dev/api/v1/timestamp"


def test_a_dsse_bundle_returns_its_verified_payload():
    d = V / "rekor2-dsse-happy-path"
    r = packsign.verify_blob(V / "a.txt", d / "bundle.sigstore.json",
                             identity=ID, issuer=ISS,
                             trusted_root=d / "trusted_root.json")
    assert r.ok and r.dsse
    assert r.payload_type == "application/vnd.in-toto+json"
    assert b'"subject"' in r.payload
    assert r.log_entries[0].rekor_version == 2


def test_a_refusal_is_a_result_and_check_raises_it():
    r = packsign.verify_blob(V / "a.txt", V / "happy-path-v0.3" /
                             "bundle.sigstore.json", identity=ID + "x",
                             issuer=ISS)
    assert not r.ok and r.exit == 1 and r.code == "identity_mismatch"
    assert r.expected == ID + "x" and r.found == ID
    assert "certificate" in r.steps and "identity" not in r.steps
    with pytest.raises(packsign.PacksignError) as e:
        r.check()
    assert e.value.code == "identity_mismatch"


def test_a_bad_trusted_root_raises():
    d = V / "trust-root-tlog-missing-validity-start_fail"
    with pytest.raises(packsign.PacksignError) as e:
        packsign.verify_blob(V / "a.txt", d / "bundle.sigstore.json",
                             identity=ID, issuer=ISS,
                             trusted_root=d / "trusted_root.json")
    assert e.value.code == "trusted_root_validity" and e.value.exit == 2


def test_arguments_are_checked():
    with pytest.raises(ValueError):
        packsign.verify_blob(V / "a.txt", V / "x.json", identity=ID)
    with pytest.raises(ValueError):
        packsign.verify_blob(None, V / "x.json", key=V / "k.pem")


# tests/cli/bundle.bats's log_bundle: the archive's bundle logged by the
# local Sigstore (tests/sigstore) to Rekor V and timestamped at
# 2026-06-01T12:01:00Z, the instance's trusted root written to ROOT.
LOG_BUNDLE = r'''
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

s = instance.LocalSigstore(b"packsign python test_sigstore")
sig = util.unb64(env["signatures"][0]["sig"])
signed = instance.Signed(Key(), None, None, sig, None, "sha256", envelope=env)
when = util.utc(2026, 6, 1, 12, 1, 0)
entry = s.rekor1.entry(s.log_v1(signed, when)) if v == "1" else \
    s.rekor2.entry(s.log_v2(signed, kind="dsse"))
b["verificationMaterial"]["tlogEntries"] = [entry]
b["verificationMaterial"]["timestampVerificationData"] = bundle.timestamps(
    [s.timestamp(signed, when)])
json.dump(b, open(path, "w"))
json.dump(s.trusted_root().to_json(), open(root, "w"))
'''


def test_verify_with_logged_bundles_and_a_trusted_root(tmp_path):
    import subprocess
    import sys
    from conftest import cli, copy_pack
    cli("keygen", "-o", tmp_path / "alice", "--identity", "alice",
        "--no-passphrase")
    pub, pem = tmp_path / "alice.pub", tmp_path / "alice.pem"
    cli("key", "export", "--pem-pub", "-p", pub, "-o", pem)
    archive = tmp_path / "p.tar.gz"
    # A copy: the work tree's own origin is no remote URL in CI (tests/run).
    cli("sign", copy_pack(tmp_path / "pack"), "-s", tmp_path / "alice.key",
        "-o", archive, "--bundle")
    b = tmp_path / "p.tar.gz.1.sigstore.json"
    root = tmp_path / "root.json"
    plain = b.read_bytes()
    when = dt.datetime(2026, 6, 1, 12, 1, tzinfo=dt.timezone.utc)
    for v, times in (("1", 2), ("2", 1)):
        b.write_bytes(plain)
        subprocess.run([sys.executable, "-", v, str(b), str(pem), str(root),
                        str(REPO / "tests" / "sigstore")], input=LOG_BUNDLE,
                       text=True, check=True)
        r = packsign.verify(archive, public_key=pub, bundles=[b],
                            trusted_root=root)
        assert r.ok, r.code
        s = r.signatures[0]
        assert (s.log_entries, s.timestamps) == (1, 1)
        assert s.signing_times == [when] * times
        code, j = cli_json("verify", archive, "-p", pub, "--bundle", b,
                           "--trusted-root", root)
        assert code == 0
        assert j["results"][0]["signatures"][0]["sigstore"] == {
            "log_entries": 1, "timestamps": 1,
            "signing_times": ["2026-06-01T12:01:00Z"] * times}
        r = packsign.verify(archive, public_key=pub, bundles=[b])
        assert not r.ok and r.code == "tlog_unknown_log"
    plain_sig = packsign.verify(archive, public_key=pub)
    assert plain_sig.ok
    assert (plain_sig.signatures[0].log_entries,
            plain_sig.signatures[0].signing_times) == (0, [])
    with pytest.raises(packsign.PacksignError) as e:
        packsign.verify(archive, public_key=pub, bundles=[b],
                        trusted_root=tmp_path / "nonexistent.json")
    assert e.value.code == "not_found" and e.value.exit == 2
    with pytest.raises(ValueError):
        packsign.verify(archive, public_key=pub, trusted_root=root)
