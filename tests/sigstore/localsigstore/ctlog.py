"""A Certificate Transparency log (RFC 6962) as far as Fulcio needs one: it
takes a precertificate and returns a signed certificate timestamp (SCT) that
the CA embeds in the final certificate.

The SCT signs, for a precertificate entry (section 3.2): version 0,
signature type 0 (certificate_timestamp), the time in milliseconds, entry type
1 (precert_entry), SHA-256 of the issuer's SubjectPublicKeyInfo, the
TBSCertificate with the poison extension removed (24-bit length), and the
SCT's extensions (16-bit length).  The log ID is SHA-256 of the log's DER
public key.
"""

import struct

from cryptography import x509

from . import der, util
from .keys import SigningKey

POISON_OID = "1.3.6.1.4.1.11129.2.4.3"
SCT_LIST_OID = "1.3.6.1.4.1.11129.2.4.2"

_HASH_SHA256, _SIG_ECDSA, _SIG_ED25519 = 4, 3, 7


class CTLog:
    def __init__(self, seed, name="ctfe.local", kind="p256"):
        self.name = name
        self.key = SigningKey.from_seed(seed, "ctlog:" + name, kind)

    @property
    def log_id(self):
        return util.sha256(self.key.spki_der())

    def signed_data(self, timestamp_ms, issuer_key_hash, tbs, extensions=b""):
        return (struct.pack(">BBQH", 0, 0, timestamp_ms, 1) + issuer_key_hash
                + len(tbs).to_bytes(3, "big") + tbs
                + struct.pack(">H", len(extensions)) + extensions)

    def add_pre_chain(self, precert, issuer, when, extensions=b"", corrupt=False):
        """The serialized SCT for precert (an x509.Certificate carrying the
        poison extension) issued by issuer, at time when.  corrupt flips a
        bit of the signature (a test's bad SCT)."""
        exts = [e.oid.dotted_string for e in precert.extensions]
        if POISON_OID not in exts:
            raise ValueError("not a precertificate: no poison extension")
        tbs = der.tbs_without_extensions(precert.tbs_certificate_bytes, {POISON_OID})
        issuer_key_hash = util.sha256(issuer.public_key().public_bytes(
            *_spki_encoding()))
        ms = int(when.timestamp() * 1000)
        sig = self.key.sign(self.signed_data(ms, issuer_key_hash, tbs, extensions))
        if corrupt:
            sig = sig[:-1] + bytes([sig[-1] ^ 1])
        alg = _SIG_ED25519 if self.key.kind == "ed25519" else _SIG_ECDSA
        return (struct.pack(">B", 0) + self.log_id + struct.pack(">Q", ms)
                + struct.pack(">H", len(extensions)) + extensions
                + struct.pack(">BBH", _HASH_SHA256, alg, len(sig)) + sig)


def _spki_encoding():
    from cryptography.hazmat.primitives import serialization
    return (serialization.Encoding.DER, serialization.PublicFormat.SubjectPublicKeyInfo)


def sct_list_extension(scts):
    """The embedded SCT list extension: an OCTET STRING holding the TLS
    SignedCertificateTimestampList (16-bit total length, each SCT with its
    16-bit length)."""
    body = b"".join(struct.pack(">H", len(s)) + s for s in scts)
    value = der.octet_string(struct.pack(">H", len(body)) + body)
    return x509.UnrecognizedExtension(x509.ObjectIdentifier(SCT_LIST_OID), value)


def poison_extension():
    return x509.UnrecognizedExtension(x509.ObjectIdentifier(POISON_OID), der.null())
