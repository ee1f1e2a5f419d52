"""An RFC 3161 timestamp authority: OpenSSL's own responder (TS_RESP_*),
driven through ctypes so that the genTime is the test's, not the clock's.

`openssl ts -reply` would do the same but always stamps the current time,
and its serial comes from a file; TS_RESP_CTX_set_time_cb and
TS_RESP_CTX_set_serial_cb let the caller choose both.  The request is built
here (DER: version 1, messageImprint, nonce, certReq), the response is
OpenSSL's TimeStampResp, which is what a bundle's signedTimestamp holds.
"""

import ctypes
import ctypes.util
import datetime

from cryptography import x509
from cryptography.hazmat.primitives import serialization
from cryptography.x509.oid import ExtendedKeyUsageOID

from . import ca, der, util
from .keys import SigningKey

SIGSTORE_TSA_POLICY = "1.3.6.1.4.1.57264.2"
_HASH_OIDS = {"sha256": "2.16.840.1.101.3.4.2.1", "sha384": "2.16.840.1.101.3.4.2.2"}

_lib = None


def _crypto():
    global _lib
    if _lib is not None:
        return _lib
    path = ctypes.util.find_library("crypto") or "libcrypto.so.3"
    lib = ctypes.CDLL(path)
    p, i, l = ctypes.c_void_p, ctypes.c_int, ctypes.c_long
    sigs = {
        "TS_RESP_CTX_new": ([], p), "TS_RESP_CTX_free": ([p], None),
        "TS_RESP_CTX_set_signer_cert": ([p, p], i),
        "TS_RESP_CTX_set_signer_key": ([p, p], i),
        "TS_RESP_CTX_set_signer_digest": ([p, p], i),
        "TS_RESP_CTX_set_ess_cert_id_digest": ([p, p], i),
        "TS_RESP_CTX_set_def_policy": ([p, p], i),
        "TS_RESP_CTX_set_certs": ([p, p], i),
        "TS_RESP_CTX_add_md": ([p, p], i),
        "TS_RESP_CTX_set_accuracy": ([p, i, i, i], i),
        "TS_RESP_CTX_add_flags": ([p, i], None),
        "TS_RESP_CTX_set_serial_cb": ([p, p, p], None),
        "TS_RESP_CTX_set_time_cb": ([p, p, p], None),
        "TS_RESP_create_response": ([p, p], p),
        "TS_RESP_get_token": ([p], p), "TS_RESP_free": ([p], None),
        "i2d_TS_RESP": ([p, p], i),
        "BIO_new_mem_buf": ([p, i], p), "BIO_free": ([p], i),
        "d2i_X509": ([p, p, l], p), "X509_free": ([p], None),
        "PEM_read_bio_PrivateKey": ([p, p, p, p], p), "EVP_PKEY_free": ([p], None),
        "OBJ_txt2obj": ([ctypes.c_char_p, i], p), "ASN1_OBJECT_free": ([p], None),
        "EVP_get_digestbyname": ([ctypes.c_char_p], p),
        "ASN1_INTEGER_new": ([], p), "ASN1_INTEGER_set_uint64": ([p, ctypes.c_uint64], i),
        "OPENSSL_sk_new_null": ([], p), "OPENSSL_sk_push": ([p, p], i),
        "OPENSSL_sk_free": ([p], None),
        "ERR_get_error": ([], ctypes.c_ulong),
        "ERR_error_string_n": ([ctypes.c_ulong, ctypes.c_char_p, ctypes.c_size_t], None),
    }
    for fn, (args, res) in sigs.items():
        f = getattr(lib, fn)
        f.argtypes, f.restype = args, res
    _lib = lib
    return lib


_SERIAL_CB = ctypes.CFUNCTYPE(ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p)
_TIME_CB = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_void_p, ctypes.c_void_p,
                            ctypes.POINTER(ctypes.c_long), ctypes.POINTER(ctypes.c_long))


def _openssl_error(what):
    lib = _crypto()
    buf = ctypes.create_string_buffer(256)
    lib.ERR_error_string_n(lib.ERR_get_error(), buf, len(buf))
    return RuntimeError("%s: %s" % (what, buf.value.decode()))


def request(data, nonce, hash_name="sha256", cert_req=True):
    """A DER TimeStampReq over data's digest."""
    import hashlib
    imprint = der.sequence(der.sequence(der.oid(_HASH_OIDS[hash_name])),
                           der.octet_string(hashlib.new(hash_name, data).digest()))
    parts = [der.integer(1), imprint]
    if nonce is not None:
        parts.append(der.integer(nonce))
    if cert_req:
        parts.append(der.boolean(True))
    return der.sequence(*parts)


class TimestampAuthority:
    """A TSA: root, intermediate and a timestamping leaf (critical EKU
    timeStamping only, as RFC 3161 section 2.3 asks)."""

    def __init__(self, seed, label="tsa", organization="sigstore.local",
                 validity=None, leaf_validity=None, kind="p384", leaf_kind="p384"):
        start = util.utc(2024, 1, 1)
        validity = validity or (start, util.utc(2034, 1, 1))
        leaf_validity = leaf_validity or validity
        self.root_key = SigningKey.from_seed(seed, label + ":root", kind)
        self.intermediate_key = SigningKey.from_seed(seed, label + ":intermediate", kind)
        self.key = SigningKey.from_seed(seed, label + ":leaf", leaf_kind)
        self._seed, self._label = seed, label
        root_name = ca.name(label + "-root", organization)
        inter_name = ca.name(label + "-intermediate", organization)
        self.root = ca.build(root_name, root_name, self.root_key.public, self.root_key,
                             ca.serial_from(seed, label + ":root"), *validity,
                             ca.ca_extensions(self.root_key.public, None, 1))
        self.intermediate = ca.build(
            inter_name, root_name, self.intermediate_key.public, self.root_key,
            ca.serial_from(seed, label + ":intermediate"), *validity,
            ca.ca_extensions(self.intermediate_key.public, self.root_key.public, 0))
        self.leaf = ca.build(
            ca.name(label + "-leaf", organization), inter_name, self.key.public,
            self.intermediate_key, ca.serial_from(seed, label + ":leaf"), *leaf_validity,
            [(x509.KeyUsage(digital_signature=True, content_commitment=False,
                            key_encipherment=False, data_encipherment=False,
                            key_agreement=False, key_cert_sign=False, crl_sign=False,
                            encipher_only=False, decipher_only=False), True),
             (x509.ExtendedKeyUsage([ExtendedKeyUsageOID.TIME_STAMPING]), True),
             (x509.SubjectKeyIdentifier.from_public_key(self.key.public), False),
             (x509.AuthorityKeyIdentifier.from_issuer_public_key(
                 self.intermediate_key.public), False)])
        self._serial = 0

    @property
    def chain(self):
        """As a trusted root lists it: the timestamping leaf first."""
        return [self.leaf, self.intermediate, self.root]

    def timestamp(self, data, when, nonce=None, cert_req=True, hash_name="sha256"):
        """The DER TimeStampResp over data at time when (a datetime).
        nonce None draws one from the seed and the serial."""
        self._serial += 1
        if nonce is None:
            nonce = int.from_bytes(util.derive(
                self._seed, "nonce:%s:%d" % (self._label, self._serial), 8), "big")
        return self.respond(request(data, nonce, hash_name, cert_req), when, self._serial)

    def respond(self, req_der, when, serial):
        """OpenSSL's response to a DER TimeStampReq (what a TSA server does
        with a request body)."""
        lib = _crypto()
        held = []
        ctx = lib.TS_RESP_CTX_new()
        try:
            self._configure(lib, ctx, held)
            sec = int(when.replace(tzinfo=when.tzinfo or datetime.timezone.utc).timestamp())

            def serial_cb(_ctx, _data):
                n = lib.ASN1_INTEGER_new()
                lib.ASN1_INTEGER_set_uint64(n, serial)
                return n

            def time_cb(_ctx, _data, psec, pusec):
                psec[0], pusec[0] = sec, 0
                return 1
            cbs = (_SERIAL_CB(serial_cb), _TIME_CB(time_cb))
            lib.TS_RESP_CTX_set_serial_cb(ctx, ctypes.cast(cbs[0], ctypes.c_void_p), None)
            lib.TS_RESP_CTX_set_time_cb(ctx, ctypes.cast(cbs[1], ctypes.c_void_p), None)
            buf = ctypes.create_string_buffer(req_der, len(req_der))
            bio = lib.BIO_new_mem_buf(buf, len(req_der))
            resp = lib.TS_RESP_create_response(ctx, bio)
            lib.BIO_free(bio)
            if not resp:
                raise _openssl_error("TS_RESP_create_response")
            try:
                if not lib.TS_RESP_get_token(resp):
                    raise _openssl_error("timestamp refused")
                n = lib.i2d_TS_RESP(resp, None)
                out = ctypes.create_string_buffer(n)
                pp = ctypes.c_void_p(ctypes.addressof(out))
                lib.i2d_TS_RESP(resp, ctypes.byref(pp))
                return out.raw[:n]
            finally:
                lib.TS_RESP_free(resp)
        finally:
            lib.TS_RESP_CTX_free(ctx)
            for free, ptr in held:
                free(ptr)

    def _configure(self, lib, ctx, held):
        def x509_of(cert):
            raw = cert.public_bytes(serialization.Encoding.DER)
            buf = ctypes.create_string_buffer(raw, len(raw))
            pp = ctypes.c_void_p(ctypes.addressof(buf))
            ptr = lib.d2i_X509(None, ctypes.byref(pp), len(raw))
            if not ptr:
                raise _openssl_error("d2i_X509")
            held.append((lib.X509_free, ptr))
            return ptr
        pem = self.key.private_pem()
        bio = lib.BIO_new_mem_buf(pem, len(pem))
        pkey = lib.PEM_read_bio_PrivateKey(bio, None, None, None)
        lib.BIO_free(bio)
        if not pkey:
            raise _openssl_error("PEM_read_bio_PrivateKey")
        held.append((lib.EVP_PKEY_free, pkey))
        policy = lib.OBJ_txt2obj(SIGSTORE_TSA_POLICY.encode(), 1)
        held.append((lib.ASN1_OBJECT_free, policy))
        sha256 = lib.EVP_get_digestbyname(b"sha256")
        digest = lib.EVP_get_digestbyname(b"sha384" if self.key.kind == "p384" else b"sha256")
        certs = lib.OPENSSL_sk_new_null()
        held.append((lib.OPENSSL_sk_free, certs))
        lib.OPENSSL_sk_push(certs, x509_of(self.intermediate))
        steps = [
            lib.TS_RESP_CTX_set_signer_cert(ctx, x509_of(self.leaf)),
            lib.TS_RESP_CTX_set_signer_key(ctx, pkey),
            lib.TS_RESP_CTX_set_signer_digest(ctx, digest),
            lib.TS_RESP_CTX_set_ess_cert_id_digest(ctx, sha256),
            lib.TS_RESP_CTX_set_def_policy(ctx, policy),
            lib.TS_RESP_CTX_set_certs(ctx, certs),
            lib.TS_RESP_CTX_add_md(ctx, sha256),
            lib.TS_RESP_CTX_add_md(ctx, lib.EVP_get_digestbyname(b"sha384")),
            lib.TS_RESP_CTX_set_accuracy(ctx, 1, 0, 0),
        ]
        if 0 in steps:
            raise _openssl_error("configuring the TSA")
