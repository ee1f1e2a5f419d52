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


def dsse_v002(envelope, verifier):
    """dsse 0.0.2 (Rekor v2): SHA-256 of the payload and each signature with
    its verifier (rekor-tiles' DSSELogEntryV002; no envelope hash, as a DSSE
    envelope has no canonical form)."""
    payload = util.unb64(envelope["payload"])
    return {"apiVersion": "0.0.2", "kind": "dsse", "spec": {"dsseV002": {
        "payloadHash": {"algorithm": "SHA2_256", "digest": util.b64(util.sha256(payload))},
        "signatures": [{"content": s["sig"], "verifier": verifier}
                       for s in envelope["signatures"]]}}}


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

    def __init__(self, seed, host="rekor.local", tree_id=None, **kw):
        super().__init__(seed, host, **kw)
        if tree_id is None:
            tree_id = int.from_bytes(util.derive(seed, "tree:" + host, 8), "big") >> 1
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
        body = self.bodies[index]
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

    def api_entry(self, index):
        """Rekor v1's API form of an entry: {UUID: LogEntry}, UUID = the tree
        ID (16 hex digits) and the leaf hash, hashes in hex, numbers as numbers."""
        entry = self.entry(index)
        proof = entry["inclusionProof"]
        leaf = merkle.leaf_hash(self.bodies[index]).hex()
        return {"%016x%s" % (self.tree_id, leaf): {
            "body": entry["canonicalizedBody"], "integratedTime": self.times[index],
            "logID": self.log_id.hex(), "logIndex": index,
            "verification": {
                "inclusionProof": {
                    "checkpoint": proof["checkpoint"]["envelope"],
                    "hashes": [util.unb64(h).hex() for h in proof["hashes"]],
                    "logIndex": index, "rootHash": util.unb64(proof["rootHash"]).hex(),
                    "treeSize": int(proof["treeSize"])},
                "signedEntryTimestamp": entry["inclusionPromise"]["signedEntryTimestamp"]}}}


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


# -- the APIs (what issue 29's loopback servers serve) -----------------------

class RekorError(Exception):
    """A refused upload: status is the HTTP status Rekor answers with."""

    def __init__(self, status, message):
        super().__init__(message)
        self.status = status


def _verifier_public(pem_or_der):
    from cryptography import x509
    from cryptography.hazmat.primitives import serialization
    if pem_or_der.startswith(b"-----BEGIN CERTIFICATE"):
        return x509.load_pem_x509_certificate(pem_or_der).public_key()
    if pem_or_der.startswith(b"-----BEGIN"):
        return serialization.load_pem_public_key(pem_or_der)
    try:
        return x509.load_der_x509_certificate(pem_or_der).public_key()
    except ValueError:
        return serialization.load_der_public_key(pem_or_der)


def _verify_digest(public, signature, digest):
    from cryptography.exceptions import InvalidSignature
    from cryptography.hazmat.primitives import hashes
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.hazmat.primitives.asymmetric.utils import Prehashed
    if not isinstance(public, ec.EllipticCurvePublicKey):
        raise RekorError(400, "only ECDSA signatures over a digest are supported here")
    algorithm = {32: hashes.SHA256(), 48: hashes.SHA384()}.get(len(digest))
    if algorithm is None:
        raise RekorError(400, "digest of %d bytes" % len(digest))
    try:
        public.verify(signature, digest, ec.ECDSA(Prehashed(algorithm)))
    except InvalidSignature:
        raise RekorError(400, "signature does not verify over the digest")


def _proposed_v1_body(proposed):
    from . import bundle as bundle_mod
    kind, version = proposed.get("kind"), proposed.get("apiVersion")
    spec = proposed.get("spec", {})
    if (kind, version) == ("hashedrekord", "0.0.1"):
        digest = bytes.fromhex(spec["data"]["hash"]["value"])
        sig = util.unb64(spec["signature"]["content"])
        pem = util.unb64(spec["signature"]["publicKey"]["content"])
        _verify_digest(_verifier_public(pem), sig, digest)
        return hashedrekord_v001(digest, sig, pem, spec["data"]["hash"]["algorithm"])
    if (kind, version) == ("dsse", "0.0.1"):
        import json
        env = json.loads(spec["proposedContent"]["envelope"])
        pems = [util.unb64(v) for v in spec["proposedContent"]["verifiers"]]
        if len(pems) != 1 or len(env["signatures"]) != 1:
            raise RekorError(400, "one signature and one verifier expected")
        from .keys import verify
        pae = bundle_mod.pae(env["payloadType"], util.unb64(env["payload"]))
        if not verify(_verifier_public(pems[0]), util.unb64(env["signatures"][0]["sig"]), pae):
            raise RekorError(400, "envelope signature does not verify")
        return dsse_v001(env, pems[0])
    raise RekorError(400, "unsupported entry kind %s %s" % (kind, version))


def create_entry_v1(log, proposed, now):
    """POST /api/v1/log/entries: the proposed entry (hashedrekord 0.0.1 or
    dsse 0.0.1) checked, logged at time now, and Rekor v1's response body
    {UUID: LogEntry} (hex hashes, integers)."""
    try:
        body = _proposed_v1_body(proposed)
    except (KeyError, TypeError, ValueError) as e:
        raise RekorError(400, "malformed entry: %s" % e)
    index = log.add(body, now)
    return log.api_entry(index)


def create_entry_v2(log, request):
    """POST /api/v2/log/entries with a hashedRekordRequestV002 or a
    dsseRequestV002: checked, logged, and the TransparencyLogEntry returned
    (what the bundle holds)."""
    if "dsseRequestV002" in request:
        return _create_dsse_v2(log, request["dsseRequestV002"])
    try:
        req = request["hashedRekordRequestV002"]
        digest = util.unb64(req["digest"])
        sig = util.unb64(req["signature"]["content"])
        verifier = req["signature"]["verifier"]
        raw = util.unb64((verifier.get("x509Certificate") or verifier["publicKey"])["rawBytes"])
    except (KeyError, TypeError, ValueError) as e:
        raise RekorError(400, "malformed request: %s" % e)
    _verify_digest(_verifier_public(raw), sig, digest)
    algorithm = {32: "SHA2_256", 48: "SHA2_384"}[len(digest)]
    return log.entry(log.add(hashedrekord_v002(digest, sig, verifier, algorithm)))


def _create_dsse_v2(log, req):
    from . import bundle as bundle_mod
    from .keys import verify
    # rekor-tiles' DSSERequestV002: `envelope` and `verifiers`, a repeated
    # Verifier (one per signature; this log takes one signature)
    try:
        env, verifiers = req["envelope"], req["verifiers"]
        if not isinstance(verifiers, list) or len(verifiers) != 1:
            raise ValueError("verifiers must list one Verifier")
        verifier = verifiers[0]
        raw = util.unb64((verifier.get("x509Certificate") or verifier["publicKey"])["rawBytes"])
        pae = bundle_mod.pae(env["payloadType"], util.unb64(env["payload"]))
        sigs = [util.unb64(x["sig"]) for x in env["signatures"]]
    except (KeyError, TypeError, ValueError) as e:
        raise RekorError(400, "malformed request: %s" % e)
    if len(sigs) != 1 or not verify(_verifier_public(raw), sigs[0], pae):
        raise RekorError(400, "envelope signature does not verify")
    return log.entry(log.add(dsse_v002(env, verifier)))
