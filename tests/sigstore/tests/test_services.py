"""The services' outputs checked by other code than their own: OpenSSL's
command line for certificate chains and RFC 3161 responses, DER for the
Fulcio extensions and the precertificate, plus determinism and the case
writer's layout."""

import datetime
import json
import os
import subprocess
import sys

import pytest
from cryptography import x509
from cryptography.hazmat.primitives import serialization

from localsigstore import bundle, ctlog, der, fulcio, instance, util

T = util.utc(2026, 6, 1, 12)
HERE = os.path.dirname(os.path.abspath(__file__))


@pytest.fixture(scope="module")
def s():
    return instance.LocalSigstore(b"self-test seed")


def pem_file(tmp_path, name, certs):
    p = tmp_path / name
    p.write_bytes(b"".join(c.public_bytes(serialization.Encoding.PEM) for c in certs))
    return str(p)


def openssl(*args, data=None):
    return subprocess.run(["openssl"] + list(args), input=data, capture_output=True)


def test_leaf_chains_to_the_root_only_while_valid(s, tmp_path):
    key = s.key("leaf")
    leaf = s.certificate(key, instance.identity(), T)
    root = pem_file(tmp_path, "root.pem", [s.ca.root])
    inter = pem_file(tmp_path, "inter.pem", [s.ca.intermediate])
    leaf_pem = pem_file(tmp_path, "leaf.pem", [leaf])
    inside = str(util.unix(T + datetime.timedelta(minutes=5)))
    after = str(util.unix(T + datetime.timedelta(minutes=11)))
    ok = openssl("verify", "-attime", inside, "-CAfile", root, "-untrusted", inter, leaf_pem)
    assert ok.returncode == 0, ok.stderr
    late = openssl("verify", "-attime", after, "-CAfile", root, "-untrusted", inter, leaf_pem)
    assert late.returncode != 0


def test_fulcio_extensions_and_their_encodings(s):
    cert = s.certificate(s.key("ext"), instance.identity(), T)
    exts = {e.oid.dotted_string: e for e in cert.extensions}
    base = "1.3.6.1.4.1.57264.1."
    assert set(base + str(i) for i in list(range(1, 7)) + list(range(8, 23))) <= set(exts)
    assert exts[base + "1"].value.value == fulcio.GITHUB_ISSUER.encode()
    assert exts[base + "8"].value.value == der.utf8_string(fulcio.GITHUB_ISSUER)
    assert exts[base + "13"].value.value == der.utf8_string(fulcio.github_claims()["sha"])
    san = cert.extensions.get_extension_for_class(x509.SubjectAlternativeName)
    assert san.critical
    assert san.value.get_values_for_type(x509.UniformResourceIdentifier) == [
        "https://github.com/octo-org/octo-repo/.github/workflows/release.yml@refs/heads/main"]
    eku = cert.extensions.get_extension_for_class(x509.ExtendedKeyUsage).value
    assert list(eku) == [x509.oid.ExtendedKeyUsageOID.CODE_SIGNING]
    assert cert.subject == x509.Name([])


def test_gitlab_identity():
    ident = instance.identity("gitlab")
    assert ident.san == "https://gitlab.com/group/project//.gitlab-ci.yml@refs/heads/main"
    assert ident.fields["source_repository_ref"] == "refs/heads/main"
    assert ident.fields["run_invocation_uri"] == "https://gitlab.com/group/project/-/jobs/424242"
    assert "github_workflow_sha" not in ident.fields


def test_embedded_sct_signs_the_tbs_without_the_sct_list(s):
    cert = s.certificate(s.key("sct"), instance.identity(), T)
    tbs = der.tbs_without_extensions(cert.tbs_certificate_bytes, {ctlog.SCT_LIST_OID})
    ext = [e for e in der.extensions_of(cert.tbs_certificate_bytes)
           if der.oid_of_extension(e) == ctlog.SCT_LIST_OID]
    assert len(ext) == 1
    raw = der.contents(der.extension_value(ext[0]))
    assert int.from_bytes(raw[:2], "big") == len(raw) - 2
    sct = raw[4:]
    assert sct[0] == 0 and sct[1:33] == s.ctlog.log_id
    ms = int.from_bytes(sct[33:41], "big")
    assert ms == util.unix(T) * 1000
    ext_len = int.from_bytes(sct[41:43], "big")
    sig = sct[43 + ext_len + 4:]
    issuer_hash = util.sha256(s.ca.intermediate.public_key().public_bytes(
        serialization.Encoding.DER, serialization.PublicFormat.SubjectPublicKeyInfo))
    assert s.ctlog.key.verify(sig, s.ctlog.signed_data(ms, issuer_hash, tbs))
    # OpenSSL parses the list as SCTs.
    text = subprocess.run(["openssl", "x509", "-noout", "-text"], capture_output=True,
                          input=cert.public_bytes(serialization.Encoding.PEM)).stdout
    assert b"CT Precertificate SCTs" in text and b"Signed Certificate Timestamp" in text


def test_timestamp_response_verifies_with_openssl(s, tmp_path):
    when = T + datetime.timedelta(seconds=90)
    data = b"signature bytes"
    resp = s.tsa.timestamp(data, when, nonce=0x1234567890ABCDEF)
    (tmp_path / "resp.der").write_bytes(resp)
    (tmp_path / "data").write_bytes(data)
    (tmp_path / "other").write_bytes(b"other bytes")
    root = pem_file(tmp_path, "tsa-root.pem", [s.tsa.root])
    chain = pem_file(tmp_path, "tsa-chain.pem", [s.tsa.intermediate])
    text = openssl("ts", "-reply", "-in", str(tmp_path / "resp.der"), "-text").stdout.decode()
    assert "Status: Granted." in text
    assert "Nonce: 0x1234567890ABCDEF" in text
    assert "Time stamp: Jun  1 12:01:30 2026 GMT" in text
    assert "Policy OID: 1.3.6.1.4.1.57264.2" in text
    verify = ["ts", "-verify", "-in", str(tmp_path / "resp.der"), "-CAfile", root,
              "-untrusted", chain, "-attime", str(util.unix(when))]
    ok = openssl(*verify, "-data", str(tmp_path / "data"))
    assert ok.returncode == 0 and b"Verification: OK" in ok.stdout, ok.stderr
    assert openssl(*verify, "-data", str(tmp_path / "other")).returncode != 0


def test_rekor_v1_entry_set_and_proof(s):
    signed = s.sign_message(s.key("v1"), None, b"artifact")
    index = s.log_v1(signed, T)
    entry = s.rekor1.entry(index)
    body = util.unb64(entry["canonicalizedBody"])
    assert body == util.canonical_json(json.loads(body))
    payload = util.canonical_json({"body": entry["canonicalizedBody"],
                                   "integratedTime": util.unix(T),
                                   "logID": s.rekor1.log_id.hex(), "logIndex": index})
    set_ = util.unb64(entry["inclusionPromise"]["signedEntryTimestamp"])
    assert s.rekor1.key.verify(set_, payload)
    from localsigstore import merkle
    proof = entry["inclusionProof"]
    root = merkle.root_from_inclusion_proof(
        int(proof["logIndex"]), int(proof["treeSize"]), merkle.leaf_hash(body),
        [util.unb64(h) for h in proof["hashes"]])
    assert util.b64(root) == proof["rootHash"]
    assert proof["checkpoint"]["envelope"].startswith(
        "%s\n%s\n%s\n\n" % (s.rekor1.origin, proof["treeSize"], proof["rootHash"]))


def test_same_seed_same_material_other_seed_other():
    a, b = instance.LocalSigstore(b"one"), instance.LocalSigstore(b"one")
    c = instance.LocalSigstore(b"two")
    assert a.rekor1.log_id == b.rekor1.log_id != c.rekor1.log_id
    assert a.rekor2.checkpoint() == b.rekor2.checkpoint()      # Ed25519: same bytes
    ka, kb = a.key("x"), b.key("x")
    assert ka.spki_der() == kb.spki_der()
    la = a.certificate(ka, instance.identity(), T)
    lb = b.certificate(kb, instance.identity(), T)
    assert la.serial_number == lb.serial_number
    assert [e.value for e in la.extensions][:-1] == [e.value for e in lb.extensions][:-1]


def test_mkcases_layout(tmp_path):
    mk = os.path.join(HERE, "..", "mkcases")
    out = tmp_path / "cases"
    run = subprocess.run([sys.executable, mk, str(out)], capture_output=True)
    assert run.returncode == 0, run.stderr
    names = subprocess.run([sys.executable, mk, "--list"], capture_output=True,
                           text=True).stdout.split("\n")[:-1]
    names = [n.split("\t")[0] for n in names]
    assert len(names) == len(set(names)) and len(names) >= 60
    assert sorted(p.name for p in out.iterdir() if p.is_dir()) == sorted(names)
    for name in names:
        files = set(os.listdir(out / name))
        assert {"bundle.sigstore.json", "trusted_root.json", "artifact", "README"} <= files
        assert ("key.pub" in files) != ({"identity", "issuer"} <= files), name
        b = json.loads((out / name / "bundle.sigstore.json").read_text())
        assert b["mediaType"] in bundle.MEDIA_TYPES.values()
    again = subprocess.run([sys.executable, mk, str(out)], capture_output=True)
    assert again.returncode == 2 and b"not empty" in again.stderr
    config = json.loads((out / "signing_config.json").read_text())
    assert config["mediaType"] == "application/vnd.dev.sigstore.signingconfig.v0.2+json"
