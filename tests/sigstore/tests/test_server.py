"""The loopback server skeleton: started on 127.0.0.1, every route called
over https with its CA, stopped.  A client's whole keyless flow runs
against it (token, certificate, Rekor v1 and v2, timestamp)."""

import json
import ssl
import urllib.error
import urllib.request

import pytest
from cryptography import x509

from localsigstore import bundle, fulcio, instance, server, tsa, util

T = util.utc(2026, 6, 1, 12)


@pytest.fixture(scope="module")
def live():
    s = instance.LocalSigstore(b"server seed")
    srv = server.LoopbackSigstore(s, issuer_url=fulcio.GITHUB_ISSUER, clock=lambda: T)
    with srv:
        ctx = ssl.create_default_context(cadata=srv.ca_pem().decode())
        yield s, srv, ctx


def call(live, path, body=None, ctype="application/json"):
    s, srv, ctx = live
    data = None if body is None else (body if isinstance(body, bytes) else json.dumps(body).encode())
    req = urllib.request.Request(srv.url + path, data=data,
                                 headers={"Content-Type": ctype} if data else {})
    try:
        with urllib.request.urlopen(req, context=ctx, timeout=10) as r:
            return r.status, r.read()
    except urllib.error.HTTPError as e:
        return e.code, e.read()


def test_keyless_flow_over_https(live):
    s, srv, _ = live
    status, body = call(live, "/.well-known/jwks")
    assert status == 200 and json.loads(body) == srv.issuer.jwks()
    claims = fulcio.github_claims()
    token = srv.issuer.token(claims, T)
    key = s.key("https client")
    status, body = call(live, "/api/v2/signingCert", {
        "credentials": {"oidcIdentityToken": token},
        "publicKeyRequest": {"publicKey": {"content": key.public_pem().decode()},
                             "proofOfPossession": util.b64(key.sign(claims["sub"].encode()))}})
    assert status == 201, body
    pems = json.loads(body)["signedCertificateEmbeddedSct"]["chain"]["certificates"]
    leaf = x509.load_pem_x509_certificate(pems[0].encode())
    signed = s.sign_message(key, leaf, b"artifact over https")
    status, body = call(live, "/api/v1/log/entries", {
        "apiVersion": "0.0.1", "kind": "hashedrekord", "spec": {
            "data": {"hash": {"algorithm": "sha256", "value": signed.digest.hex()}},
            "signature": {"content": util.b64(signed.signature),
                          "publicKey": {"content": util.b64(bundle.pem(leaf))}}}})
    assert status == 201, body
    status, body = call(live, "/api/v2/log/entries", {"hashedRekordRequestV002": {
        "digest": util.b64(signed.digest), "signature": {
            "content": util.b64(signed.signature),
            "verifier": {"keyDetails": key.key_details,
                         "x509Certificate": {"rawBytes": util.b64(bundle.der(leaf))}}}}})
    assert status == 201 and json.loads(body)["kindVersion"]["version"] == "0.0.2"
    status, body = call(live, "/api/v1/timestamp", tsa.request(signed.signature, 99),
                        "application/timestamp-query")
    assert status == 201 and body[:2] == b"\x30\x82"


def test_refusals_have_statuses(live):
    s, srv, _ = live
    expired = srv.issuer.token(fulcio.github_claims(), util.utc(2026, 5, 1))
    status, body = call(live, "/api/v2/signingCert", {
        "credentials": {"oidcIdentityToken": expired},
        "publicKeyRequest": {"publicKey": {"content": s.key("k").public_pem().decode()},
                             "proofOfPossession": util.b64(b"x")}})
    assert status == 401 and b"expired" in body
    assert call(live, "/api/v1/log/entries", {"kind": "rpm"})[0] == 400
    assert call(live, "/api/v1/timestamp", b"\x30\x00", "application/json")[0] == 415
    assert call(live, "/nowhere")[0] == 404
    assert call(live, "/api/v1/timestamp", b"\x30\x00", "application/timestamp-query")[0] == 400
