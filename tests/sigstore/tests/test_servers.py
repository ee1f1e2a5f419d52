"""The service functions issue 29's loopback servers will wrap: the OIDC
issuer's tokens and JWKS, Fulcio's signingCert, Rekor v1's and v2's entry
uploads, the TSA's response to a request body."""

import datetime
import json

import pytest
from cryptography import x509
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.asymmetric.utils import encode_dss_signature

from localsigstore import bundle, fulcio, instance, merkle, oidc, rekor, tsa, util

T = util.utc(2026, 6, 1, 12)
LATER = T + datetime.timedelta(minutes=10)


@pytest.fixture(scope="module")
def s():
    return instance.LocalSigstore(b"servers seed")


@pytest.fixture(scope="module")
def gh(s):
    return oidc.Issuer(s.seed, fulcio.GITHUB_ISSUER)


def test_token_verifies_against_the_jwks_and_its_rules(gh, s):
    token = gh.token(fulcio.github_claims(), T)
    claims = gh.verify(token, "sigstore", T + datetime.timedelta(seconds=10))
    assert claims["repository"] == "octo-org/octo-repo"
    # The JWKS carries the key that verifies it (as a separate verifier would).
    jwk = gh.jwks()["keys"][0]
    public = ec.EllipticCurvePublicNumbers(
        int.from_bytes(oidc.unb64url(jwk["x"]), "big"),
        int.from_bytes(oidc.unb64url(jwk["y"]), "big"), ec.SECP256R1()).public_key()
    head, body, sig = token.split(".")
    raw = oidc.unb64url(sig)
    der_sig = encode_dss_signature(int.from_bytes(raw[:32], "big"), int.from_bytes(raw[32:], "big"))
    from localsigstore.keys import verify
    assert verify(public, der_sig, (head + "." + body).encode())
    assert gh.discovery()["jwks_uri"] == fulcio.GITHUB_ISSUER + "/.well-known/jwks"
    for bad, reason, when in [
            (gh.token(fulcio.github_claims(), T, audience="other"), "audience", T),
            (token, "expired", LATER),
            (gh.token(fulcio.github_claims(), T, key=s.key("forger")), "signature", T),
            (token[:-4] + "AAAA", "signature", T),
            ("not.a token", "malformed", T)]:
        with pytest.raises(oidc.TokenError) as e:
            gh.verify(bad, "sigstore", when)
        assert e.value.reason == reason


def signing_request(key, token, challenge):
    return {"credentials": {"oidcIdentityToken": token},
            "publicKeyRequest": {"publicKey": {"algorithm": "ECDSA",
                                               "content": key.public_pem().decode()},
                                 "proofOfPossession": util.b64(key.sign(challenge))}}


def test_fulcio_issues_the_identity_of_the_token(s, gh):
    service = fulcio.Fulcio(s.ca, [s.ctlog], [gh])
    key = s.key("fulcio client")
    claims = fulcio.github_claims(repository="acme/widgets")
    token = gh.token(claims, T)
    resp = service.signing_cert(signing_request(key, token, claims["sub"].encode()), T)
    pems = resp["signedCertificateEmbeddedSct"]["chain"]["certificates"]
    leaf = x509.load_pem_x509_certificate(pems[0].encode())
    assert len(pems) == 3
    san = leaf.extensions.get_extension_for_class(x509.SubjectAlternativeName).value
    assert san.get_values_for_type(x509.UniformResourceIdentifier) == [
        "https://github.com/acme/widgets/.github/workflows/release.yml@refs/heads/main"]
    assert leaf.not_valid_before.replace(tzinfo=datetime.timezone.utc) == T


def test_fulcio_refusals(s, gh):
    service = fulcio.Fulcio(s.ca, [s.ctlog], [gh])
    key, other = s.key("fulcio client"), s.key("someone else")
    claims = fulcio.github_claims()
    token = gh.token(claims, T)
    stranger = oidc.Issuer(s.seed, "https://stranger.local").token({"sub": "x"}, T)
    for req, when, status in [
            (signing_request(key, token, b"not the subject"), T, 400),
            (dict(signing_request(key, token, claims["sub"].encode()),
                  publicKeyRequest={"publicKey": {"content": other.public_pem().decode()},
                                    "proofOfPossession": util.b64(key.sign(b"x"))}), T, 400),
            (signing_request(key, token, claims["sub"].encode()), LATER, 401),
            (signing_request(key, stranger, b"x"), T, 401),
            ({"credentials": {}}, T, 400)]:
        with pytest.raises(fulcio.FulcioError) as e:
            service.signing_cert(req, when)
        assert e.value.status == status


def test_rekor_v1_upload_gives_the_entry_a_bundle_holds(s):
    log = rekor.RekorV1(s.seed, "rekor.upload", prefill=2)
    key = s.key("rekor client")
    signed = s.sign_message(key, None, b"uploaded artifact")
    proposed = rekor.hashedrekord_v001(signed.digest, signed.signature, key.public_pem())
    resp = rekor.create_entry_v1(log, proposed, T)
    (uuid, entry), = resp.items()
    body = util.unb64(entry["body"])
    assert uuid.endswith(merkle.leaf_hash(body).hex())
    assert body == util.canonical_json(proposed)
    assert entry["logIndex"] == 2 and entry["integratedTime"] == util.unix(T)
    proof = entry["verification"]["inclusionProof"]
    assert merkle.root_from_inclusion_proof(2, proof["treeSize"], merkle.leaf_hash(body),
                                            [bytes.fromhex(h) for h in proof["hashes"]]).hex() \
        == proof["rootHash"]
    bad = rekor.hashedrekord_v001(util.sha256(b"other"), signed.signature, key.public_pem())
    with pytest.raises(rekor.RekorError):
        rekor.create_entry_v1(log, bad, T)


def test_rekor_v1_dsse_upload(s):
    log = rekor.RekorV1(s.seed, "rekor.upload-dsse")
    key = s.key("dsse client")
    signed = s.sign_dsse(key, None, bundle.statement([("a", "00" * 32)]))
    proposed = {"apiVersion": "0.0.1", "kind": "dsse", "spec": {"proposedContent": {
        "envelope": json.dumps(signed.envelope), "verifiers": [util.b64(key.public_pem())]}}}
    (_, entry), = rekor.create_entry_v1(log, proposed, T).items()
    assert json.loads(util.unb64(entry["body"])) == rekor.dsse_v001(signed.envelope,
                                                                    key.public_pem())


def test_rekor_v2_upload(s):
    key = s.key("v2 client")
    signed = s.sign_message(key, None, b"v2 artifact")
    verifier = rekor.verifier_public_key(key.spki_der(), key.key_details)
    req = {"hashedRekordRequestV002": {"digest": util.b64(signed.digest), "signature": {
        "content": util.b64(signed.signature), "verifier": verifier}}}
    entry = rekor.create_entry_v2(s.rekor2, req)
    assert entry["kindVersion"] == {"kind": "hashedrekord", "version": "0.0.2"}
    assert "integratedTime" not in entry and "inclusionPromise" not in entry
    req["hashedRekordRequestV002"]["digest"] = util.b64(util.sha256(b"other"))
    with pytest.raises(rekor.RekorError):
        rekor.create_entry_v2(s.rekor2, req)


def test_rekor_v2_dsse_upload(s):
    key = s.key("v2 dsse client")
    signed = s.sign_dsse(key, None, bundle.statement([("a", "00" * 32)]))
    verifier = rekor.verifier_public_key(key.spki_der(), key.key_details)
    entry = rekor.create_entry_v2(s.rekor2, {"dsseRequestV002": {
        "envelope": signed.envelope, "verifiers": [verifier]}})
    assert entry["kindVersion"] == {"kind": "dsse", "version": "0.0.2"}
    assert json.loads(util.unb64(entry["canonicalizedBody"])) == rekor.dsse_v002(
        signed.envelope, verifier)
    forged = dict(signed.envelope, payload=util.b64(b"other"))
    with pytest.raises(rekor.RekorError):
        rekor.create_entry_v2(s.rekor2, {"dsseRequestV002": {"envelope": forged,
                                                              "verifiers": [verifier]}})
    # the singular "verifier" is not the API's field
    with pytest.raises(rekor.RekorError):
        rekor.create_entry_v2(s.rekor2, {"dsseRequestV002": {"envelope": signed.envelope,
                                                              "verifier": verifier}})


def test_tsa_answers_a_request_body_with_its_nonce(s):
    req = tsa.request(b"sig", nonce=77)
    resp = s.tsa.respond(req, T, serial=5)
    import subprocess
    text = subprocess.run(["openssl", "ts", "-reply", "-in", "/dev/stdin", "-text"],
                          input=resp, capture_output=True).stdout.decode()
    assert "Nonce: 0x4D" in text and "Serial number: 0x05" in text
