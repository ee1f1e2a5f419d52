"""Rekor transparency logs, v1 and v2, with a real RFC 6962 tree.

Entries are canonicalized bodies (Sigstore's canonical JSON).  Rekor v1
(api/openapi.yaml and pkg/types of sigstore/rekor) gives each entry an
integrated time and a signed entry timestamp (SET): the log key's ECDSA
signature over the canonical JSON of {body (base64), integratedTime, logID
(hex), logIndex}; its checkpoints are signed notes whose origin is "HOST -
TREE_ID", signed as HOST with hint = the log ID's first 4 bytes.  Rekor v2
(rekor-tiles) has no SET and no integrated time; its checkpoint origin is the
log's host name, signed with Ed25519 (C2SP key ID = log ID), witnesses may
cosign.

The bundle's TransparencyLogEntry (protobuf-specs rekor/v1) is what entry()
returns, as a dict the caller may alter before writing it.
"""

from . import merkle, note, util
from .keys import SigningKey


# -- canonicalized bodies ---------------------------------------------------

def hashedrekord_v001(digest, signature, verifier_pem, algorithm="sha256"):
    """hashedrekord 0.0.1: the artifact's digest (hex), the signature, and
    the certificate or public key as base64 of its PEM."""
    return {"apiVersion": "0.0.1", "kind": "hashedrekord", "spec": {
        "data": {"hash": {"algorithm": algorithm, "value": digest.hex()}},
        "signature": {"content": util.b64(signature),
                      "publicKey": {"content": util.b64(verifier_pem)}}}}


def envelope_json(envelope):
    """The DSSE envelope as Rekor hashes it: canonical JSON, keyid left out
    when empty (this reproduces envelopeHash of the suite's dsse entries)."""
    sigs = [{k: v for k, v in s.items() if not (k == "keyid" and v == "")}
            for s in envelope["signatures"]]
    return util.canonical_json({"payload": envelope["payload"],
                                "payloadType": envelope["payloadType"],
                                "signatures": sigs})


def dsse_v001(envelope, verifier_pem):
    """dsse 0.0.1: SHA-256 of the envelope and of the payload, and each
    signature with its verifier (base64 of a PEM)."""
    payload = util.unb64(envelope["payload"])
    return {"apiVersion": "0.0.1", "kind": "dsse", "spec": {
        "envelopeHash": {"algorithm": "sha256",
                         "value": util.sha256(envelope_json(envelope)).hex()},
        "payloadHash": {"algorithm": "sha256", "value": util.sha256(payload).hex()},
        "signatures": [{"signature": s["sig"], "verifier": util.b64(verifier_pem)}
                       for s in envelope["signatures"]]}}


def intoto_v002(envelope, verifier_pem):
    """intoto 0.0.2: the envelope with payload and signatures base64-encoded
    once more, the public key as base64 of its PEM, the envelope's and the
    payload's SHA-256."""
    payload = util.unb64(envelope["payload"])
    return {"apiVersion": "0.0.2", "kind": "intoto", "spec": {"content": {
        "envelope": {
            "payload": util.b64(envelope["payload"].encode()),
            "payloadType": envelope["payloadType"],
            "signatures": [{"publicKey": util.b64(verifier_pem),
                            "sig": util.b64(s["sig"].encode())}
                           for s in envelope["signatures"]]},
        "hash": {"algorithm": "sha256",
                 "value": util.sha256(envelope_json(envelope)).hex()},
        "payloadHash": {"algorithm": "sha256", "value": util.sha256(payload).hex()}}}}


def hashedrekord_v002(digest, signature, verifier, algorithm="SHA2_256"):
    """hashedrekord 0.0.2 (Rekor v2): verifier is a protobuf-specs Verifier,
    from verifier_certificate() or verifier_public_key().  For a DSSE
    envelope the digest is SHA-256 of its PAE (the suite's rekor2-dsse-*)."""
    return {"apiVersion": "0.0.2", "kind": "hashedrekord", "spec": {
        "hashedRekordV002": {
            "data": {"algorithm": algorithm, "digest": util.b64(digest)},
            "signature": {"content": util.b64(signature), "verifier": verifier}}}}


def verifier_certificate(cert_der, key_details):
    return {"keyDetails": key_details, "x509Certificate": {"rawBytes": util.b64(cert_der)}}


def verifier_public_key(spki_der, key_details):
    return {"keyDetails": key_details, "publicKey": {"rawBytes": util.b64(spki_der)}}


# -- logs -------------------------------------------------------------------

class Log:
    """A log's key, tree and checkpoints; Rekor v1 and v2 differ in the rest."""

    kind = "p256"

    def __init__(self, seed, host, prefill=0, key=None):
        self.host = host
        self.key = key or SigningKey.from_seed(seed, "rekor:" + host, self.kind)
        self.signer = note.NoteSigner(host, self.key)
        self.tree = merkle.MerkleTree()
        self.bodies = {}
        for i in range(prefill):
            self.tree.append(util.derive(seed, "filler:%s:%d" % (host, i)))

    @property
    def base_url(self):
        return "https://" + self.host

    @property
    def log_id(self):
        return self.signer.key_id

    def add(self, body):
        """Appends a body (a dict); returns its index."""
        raw = util.canonical_json(body)
        index = self.tree.append(raw)
        self.bodies[index] = raw
        return index

    def checkpoint(self, size=None, root=None, extra=(), signers=None, cosigners=(),
                   origin=None, hint=None, cosign_time=0):
        """A signed checkpoint of the tree at size (default: now), signed by
        this log (or by signers: [NoteSigner] in order, cosigners after);
        root, origin and hint replace the true ones (tests)."""
        size = len(self.tree) if size is None else size
        root = self.tree.root(size) if root is None else root
        text = note.checkpoint_text(origin or self.origin, size, root, extra)
        lines = [s.signature_line(text, timestamp=cosign_time,
                                  hint=hint if s is self.signer else None)
                 for s in (signers if signers is not None else [self.signer])]
        lines += [c.signature_line(text, timestamp=cosign_time) for c in cosigners]
        return note.sign(text, lines)

    def inclusion_proof(self, index, size=None, **checkpoint_args):
        size = len(self.tree) if size is None else size
        return {
            "logIndex": str(index),
            "rootHash": util.b64(self.tree.root(size)),
            "treeSize": str(size),
            "hashes": [util.b64(h) for h in self.tree.inclusion_proof(index, size)],
            "checkpoint": {"envelope": self.checkpoint(size, **checkpoint_args)},
        }


class RekorV1(Log):
    """Rekor v1: ECDSA P-256 key, log ID = SHA-256 of its DER public key."""

    api_version = 1

    def __init__(self, seed, host="rekor.local", tree_id=1193050959916656506, **kw):
        super().__init__(seed, host, **kw)
        self.tree_id = tree_id
        self.times = {}

    @property
    def origin(self):
        return "%s - %d" % (self.host, self.tree_id)

    def add(self, body, integrated_time):
        index = super().add(body)
        self.times[index] = util.unix(integrated_time)
        return index

    def signed_entry_timestamp(self, index, integrated_time=None, log_index=None,
                               key=None):
        payload = {"body": util.b64(self.bodies[index]),
                   "integratedTime": self.times[index] if integrated_time is None
                   else integrated_time,
                   "logID": self.log_id.hex(),
                   "logIndex": index if log_index is None else log_index}
        return (key or self.key).sign(util.canonical_json(payload))

    def entry(self, index, promise=True, proof=True, size=None, **checkpoint_args):
        body = util.unb64(util.b64(self.bodies[index]))
        kind = _kind_version(body)
        out = {"logIndex": str(index), "logId": {"keyId": util.b64(self.log_id)},
               "kindVersion": kind, "integratedTime": str(self.times[index])}
        if promise:
            out["inclusionPromise"] = {
                "signedEntryTimestamp": util.b64(self.signed_entry_timestamp(index))}
        if proof:
            out["inclusionProof"] = self.inclusion_proof(index, size, **checkpoint_args)
        out["canonicalizedBody"] = util.b64(body)
        return out


class RekorV2(Log):
    """Rekor v2: Ed25519 key, log ID = its C2SP key ID for the host name."""

    api_version = 2
    kind = "ed25519"

    @property
    def origin(self):
        return self.host

    def entry(self, index, size=None, **checkpoint_args):
        body = self.bodies[index]
        return {"logIndex": str(index), "logId": {"keyId": util.b64(self.log_id)},
                "kindVersion": _kind_version(body),
                "inclusionProof": self.inclusion_proof(index, size, **checkpoint_args),
                "canonicalizedBody": util.b64(body)}


def _kind_version(raw):
    import json
    body = json.loads(raw)
    return {"kind": body["kind"], "version": body["apiVersion"]}
