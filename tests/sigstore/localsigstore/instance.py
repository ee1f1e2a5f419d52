"""One local Sigstore instance: the services of the other modules wired
together the way the public-good instance is (Fulcio CA with a CT log,
Rekor v1, Rekor v2 with a witness, a TSA), and the steps of a client's
signing flow as functions, so that mkcases (and later loopback servers) do
each step with the knobs a test needs.

Everything is derived from the seed; times are the caller's.
"""

import hashlib

from . import bundle, ca, ctlog, fulcio, note, rekor, trustroot, tsa, util
from .keys import SigningKey

EPOCH = util.utc(2024, 1, 1)


class Signed:
    """What a client holds after signing: key, certificate (or None), the
    bundle content, the signature and what Rekor records about it."""

    def __init__(self, key, cert, content, signature, digest, hash_name, envelope=None):
        self.key, self.cert = key, cert
        self.content = content
        self.signature = signature
        self.digest = digest            # of the artifact, or of the PAE for DSSE
        self.hash_name = hash_name
        self.envelope = envelope

    @property
    def verifier_pem(self):
        return bundle.pem(self.cert) if self.cert is not None else self.key.public_pem()


class LocalSigstore:
    def __init__(self, seed, label="local"):
        self.seed = seed
        self.label = label
        self.ca = ca.CertificateAuthority(seed, label + "-fulcio")
        self.ctlog = ctlog.CTLog(seed, "ctfe.%s" % label)
        self.rekor1 = rekor.RekorV1(seed, "rekor.%s" % label, prefill=5)
        self.rekor2 = rekor.RekorV2(seed, "log2026-1.rekor.%s" % label, prefill=9)
        self.tsa = tsa.TimestampAuthority(seed, label + "-tsa")
        self.witness = note.NoteSigner(
            "witness.%s" % label, SigningKey.from_seed(seed, "witness", "ed25519"),
            cosignature=True)

    # -- trust material ----------------------------------------------------

    def trusted_root(self, tlogs=True, rekor2=True, ctlogs=True, tsas=True, cas=True):
        r = trustroot.TrustedRoot()
        if tlogs:
            r.add_tlog(self.rekor1, EPOCH)
        if rekor2:
            r.add_tlog(self.rekor2, EPOCH)
        if cas:
            r.add_ca(self.ca, EPOCH, uri="https://fulcio.%s" % self.label)
        if ctlogs:
            r.add_ctlog(self.ctlog, EPOCH)
        if tsas:
            r.add_tsa(self.tsa, EPOCH, uri="https://tsa.%s/api/v1/timestamp" % self.label)
        return r

    def signing_config(self, rekor_version=1):
        s = lambda url, v: trustroot.service(url, v, EPOCH)  # noqa: E731
        rekor_url = (self.rekor1.base_url if rekor_version == 1 else self.rekor2.base_url)
        return trustroot.signing_config(
            [s("https://fulcio.%s" % self.label, 1)],
            [s("https://oauth2.%s/auth" % self.label, 1)],
            [s(rekor_url, rekor_version)],
            [s("https://tsa.%s/api/v1/timestamp" % self.label, 1)])

    # -- the client's steps ------------------------------------------------

    def key(self, label, kind="p256"):
        return SigningKey.from_seed(self.seed, "signer:" + label, kind)

    def certificate(self, key, identity, not_before, authority=None, ct_logs=None, **kw):
        """A Fulcio leaf for key; ct_logs defaults to this instance's CT log."""
        authority = authority or self.ca
        logs = [self.ctlog] if ct_logs is None else ct_logs
        return authority.issue_leaf(key.public, identity, not_before, ct_logs=logs, **kw)

    @staticmethod
    def sign_message(key, cert, artifact, hash_name=None):
        """A message signature over the artifact's digest with hash_name,
        by default the key's own hash (SHA-384 for P-384)."""
        hash_name = hash_name or ("sha384" if key.kind == "p384" else "sha256")
        digest = hashlib.new(hash_name, artifact).digest()
        sig = key.sign(artifact, hash_name if key.kind != "ed25519" else None)
        return Signed(key, cert, {"messageSignature": bundle.message_signature(
            digest, sig, hash_name)}, sig, digest, hash_name)

    @staticmethod
    def sign_dsse(key, cert, payload, payload_type=bundle.INTOTO_PAYLOAD_TYPE):
        data = bundle.pae(payload_type, payload)
        sig = key.sign(data)
        env = bundle.envelope(payload, sig, payload_type)
        return Signed(key, cert, {"dsseEnvelope": env}, sig, util.sha256(data), "sha256",
                      envelope=env)

    def log_v1(self, signed, when, kind=None, log=None):
        """Uploads to Rekor v1: hashedrekord for a message signature, dsse
        (or intoto) for an envelope.  Returns the entry index."""
        log = log or self.rekor1
        if signed.envelope is None:
            body = rekor.hashedrekord_v001(signed.digest, signed.signature,
                                           signed.verifier_pem, signed.hash_name)
        elif kind == "intoto":
            body = rekor.intoto_v002(signed.envelope, signed.verifier_pem)
        else:
            body = rekor.dsse_v001(signed.envelope, signed.verifier_pem)
        return log.add(body, when)

    def log_v2(self, signed, log=None, kind="hashedrekord"):
        """Uploads to Rekor v2 as hashedrekord 0.0.2 (over the PAE's digest
        for an envelope) or, for an envelope and kind "dsse", as dsse 0.0.2.
        Returns the entry index."""
        log = log or self.rekor2
        if signed.cert is not None:
            verifier = rekor.verifier_certificate(bundle.der(signed.cert),
                                                  signed.key.key_details)
        else:
            verifier = rekor.verifier_public_key(signed.key.spki_der(),
                                                 signed.key.key_details)
        if kind == "dsse":
            return log.add(rekor.dsse_v002(signed.envelope, verifier))
        algorithm = bundle.HASH_NAMES[signed.hash_name]
        return log.add(rekor.hashedrekord_v002(signed.digest, signed.signature, verifier,
                                               algorithm))

    def timestamp(self, signed, when, authority=None, data=None):
        """An RFC 3161 response over the signature bytes (or data)."""
        return (authority or self.tsa).timestamp(signed.signature if data is None else data,
                                                 when)

    def cosigned_checkpoint_args(self, when):
        return {"cosigners": [self.witness], "cosign_time": util.unix(when)}


def identity(kind="github", **claims):
    """A fulcio.Identity for a GitHub Actions or GitLab CI token (claims
    override the defaults), or an email identity."""
    if kind == "github":
        return fulcio.identity_from_claims(fulcio.github_claims(**claims))
    if kind == "gitlab":
        return fulcio.identity_from_claims(fulcio.gitlab_claims(**claims))
    return fulcio.identity_from_claims(dict({"iss": "https://accounts.sigstore.local",
                                             "email": "alice@sigstore.local"}, **claims))
