"""Signing keys of the local Sigstore: ECDSA P-256 and P-384, Ed25519.

Keys come from a seed and a label, so the same seed gives the same keys (and
so the same log IDs, key hints and certificate fields).  ECDSA signatures are
not reproducible: python3-cryptography 38 and OpenSSL 3.0 have no RFC 6979
nonces, so every run draws a fresh k.  Ed25519 signatures are deterministic.
"""

from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec, ed25519

from . import util

KINDS = ("p256", "p384", "ed25519")

# Sigstore's PublicKeyDetails names (protobuf-specs, common.proto).
KEY_DETAILS = {
    "p256": "PKIX_ECDSA_P256_SHA_256",
    "p384": "PKIX_ECDSA_P384_SHA_384",
    "ed25519": "PKIX_ED25519",
}

_CURVES = {"p256": ec.SECP256R1(), "p384": ec.SECP384R1()}
_HASHES = {"p256": hashes.SHA256, "p384": hashes.SHA384}
_BY_NAME = {"sha256": hashes.SHA256, "sha384": hashes.SHA384, "sha512": hashes.SHA512}
_ORDERS = {
    "p256": 0xFFFFFFFF00000000FFFFFFFFFFFFFFFFBCE6FAADA7179E84F3B9CAC2FC632551,
    "p384": int("FFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFC7634D81F4372DDF"
                "581A0DB248B0A77AECEC196ACCC52973", 16),
}


class SigningKey:
    """A private key with the few operations the services need."""

    def __init__(self, kind, private):
        if kind not in KINDS:
            raise ValueError("unknown key kind %r" % kind)
        self.kind = kind
        self.private = private
        self.public = private.public_key()

    @classmethod
    def from_seed(cls, seed, label, kind="p256"):
        material = util.derive(seed, "key:%s:%s" % (kind, label), 48)
        if kind == "ed25519":
            return cls(kind, ed25519.Ed25519PrivateKey.from_private_bytes(material[:32]))
        scalar = int.from_bytes(material, "big") % (_ORDERS[kind] - 1) + 1
        return cls(kind, ec.derive_private_key(scalar, _CURVES[kind]))

    @property
    def hash_algorithm(self):
        """The digest that goes with this key in Sigstore (None: Ed25519 signs
        the message itself)."""
        return None if self.kind == "ed25519" else _HASHES[self.kind]()

    @property
    def key_details(self):
        return KEY_DETAILS[self.kind]

    def sign(self, data, hash_name=None):
        """Signs data; hash_name ("sha256", ...) overrides the key's own hash
        (a P-384 key over SHA-256, as sigstore-python signs)."""
        if self.kind == "ed25519":
            return self.private.sign(data)
        algorithm = _BY_NAME[hash_name]() if hash_name else self.hash_algorithm
        return self.private.sign(data, ec.ECDSA(algorithm))

    def verify(self, signature, data):
        """True when signature is this key's over data."""
        return verify(self.public, signature, data)

    def spki_der(self):
        return spki_der(self.public)

    def public_pem(self):
        return self.public.public_bytes(serialization.Encoding.PEM,
                                        serialization.PublicFormat.SubjectPublicKeyInfo)

    def private_pem(self):
        return self.private.private_bytes(serialization.Encoding.PEM,
                                          serialization.PrivateFormat.PKCS8,
                                          serialization.NoEncryption())

    def raw_public(self):
        """The 32 bytes of an Ed25519 public key (signed notes' key IDs)."""
        return self.public.public_bytes(serialization.Encoding.Raw,
                                        serialization.PublicFormat.Raw)


def spki_der(public):
    return public.public_bytes(serialization.Encoding.DER,
                               serialization.PublicFormat.SubjectPublicKeyInfo)


def verify(public, signature, data):
    from cryptography.exceptions import InvalidSignature
    try:
        if isinstance(public, ed25519.Ed25519PublicKey):
            public.verify(signature, data)
        else:
            algorithm = hashes.SHA384() if public.curve.key_size == 384 else hashes.SHA256()
            public.verify(signature, data, ec.ECDSA(algorithm))
    except InvalidSignature:
        return False
    return True
