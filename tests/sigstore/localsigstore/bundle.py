"""Sigstore bundles (dev.sigstore.bundle.v1.Bundle, media types v0.1 to
v0.3) and the DSSE pieces they carry."""

import json

from cryptography.hazmat.primitives import serialization

from . import util

MEDIA_TYPES = {
    "0.1": "application/vnd.dev.sigstore.bundle+json;version=0.1",
    "0.2": "application/vnd.dev.sigstore.bundle+json;version=0.2",
    "0.3": "application/vnd.dev.sigstore.bundle.v0.3+json",
    # The older spelling of v0.3, which clients still accept.
    "0.3-legacy": "application/vnd.dev.sigstore.bundle+json;version=0.3",
}
INTOTO_PAYLOAD_TYPE = "application/vnd.in-toto+json"
STATEMENT_V1 = "https://in-toto.io/Statement/v1"

HASH_NAMES = {"sha256": "SHA2_256", "sha384": "SHA2_384"}


def der(cert):
    return cert.public_bytes(serialization.Encoding.DER)


def pem(cert):
    return cert.public_bytes(serialization.Encoding.PEM)


def pae(payload_type, payload):
    """DSSE's pre-authentication encoding."""
    t = payload_type.encode()
    return b"DSSEv1 %d %s %d %s" % (len(t), t, len(payload), payload)


def statement(subjects, predicate_type="https://slsa.dev/provenance/v1", predicate=None):
    """An in-toto Statement v1; subjects is [(name, sha256 hex)]."""
    return json.dumps({
        "_type": STATEMENT_V1,
        "subject": [{"name": n, "digest": {"sha256": d}} for n, d in subjects],
        "predicateType": predicate_type,
        "predicate": predicate if predicate is not None else {
            "buildDefinition": {"buildType": "https://sigstore.local/test"},
            "runDetails": {"builder": {"id": "https://sigstore.local/builder"}}},
    }, separators=(",", ":")).encode()


def envelope(payload, signature, payload_type=INTOTO_PAYLOAD_TYPE):
    return {"payload": util.b64(payload), "payloadType": payload_type,
            "signatures": [{"sig": util.b64(signature), "keyid": ""}]}


def message_signature(digest, signature, hash_name="sha256"):
    return {"messageDigest": {"algorithm": HASH_NAMES[hash_name], "digest": util.b64(digest)},
            "signature": util.b64(signature)}


def material_certificate(cert):
    return {"certificate": {"rawBytes": util.b64(der(cert))}}


def material_chain(certs):
    return {"x509CertificateChain": {"certificates": [{"rawBytes": util.b64(der(c))}
                                                      for c in certs]}}


def material_public_key(hint):
    return {"publicKey": {"hint": hint}}


def timestamps(tokens):
    return {"rfc3161Timestamps": [{"signedTimestamp": util.b64(t)} for t in tokens]}


def make(version, material, tlog_entries, content, rfc3161=()):
    """A bundle dict.  content is {"messageSignature": ...} or
    {"dsseEnvelope": ...}; version a key of MEDIA_TYPES or a media type."""
    vm = dict(material)
    vm["tlogEntries"] = list(tlog_entries)
    if rfc3161:
        vm["timestampVerificationData"] = timestamps(rfc3161)
    out = {"mediaType": MEDIA_TYPES.get(version, version), "verificationMaterial": vm}
    out.update(content)
    return out
