"""C2SP signed notes (c2sp.org/signed-note) and checkpoints
(c2sp.org/tlog-checkpoint), as transparency logs sign them.

A note is text (every line ending in a newline), a blank line, then one line
per signature: an em dash, a space, the key name, a space, and the base64 of
a 4-byte key hint followed by the signature.  The key hint:
- Ed25519 (type 0x01): the first 4 bytes of SHA-256(name, "\\n", 0x01, key);
  the whole digest is the key ID (Rekor v2 uses it as the log ID);
- ECDSA (Rekor v1's checkpoints, a Sigstore convention, not a C2SP type):
  the first 4 bytes of SHA-256 of the DER SubjectPublicKeyInfo (the log ID);
- cosignature/v1 (type 0x04, witnesses): SHA-256(name, "\\n", 0x04, key);
  the signature is an 8-byte big-endian time and an Ed25519 signature over
  "cosignature/v1\\ntime T\\n" followed by the note's text.
"""

import struct

from cryptography.hazmat.primitives.asymmetric import ed25519

from . import util
from .keys import SigningKey

EM_DASH = "\u2014"
ALG_ED25519 = 0x01
ALG_COSIGNATURE_V1 = 0x04


def key_id(name, alg, raw_public):
    return util.sha256(name.encode() + b"\n" + bytes([alg]) + raw_public)


class NoteSigner:
    """Signs notes as NAME with a key; hint and key ID as the module says."""

    def __init__(self, name, key, cosignature=False):
        if " " in name or "\n" in name or "+" in name:
            raise ValueError("a note key name has no spaces, newlines or '+'")
        if cosignature and key.kind != "ed25519":
            raise ValueError("cosignature/v1 keys are Ed25519")
        self.name = name
        self.key = key
        self.cosignature = cosignature

    @property
    def key_id(self):
        if self.key.kind == "ed25519":
            alg = ALG_COSIGNATURE_V1 if self.cosignature else ALG_ED25519
            return key_id(self.name, alg, self.key.raw_public())
        return util.sha256(self.key.spki_der())

    @property
    def hint(self):
        return self.key_id[:4]

    def verifier_key(self):
        """The C2SP verifier key string name+hint+base64(type, key)."""
        if self.key.kind != "ed25519":
            raise ValueError("C2SP verifier keys are defined for Ed25519 here")
        alg = ALG_COSIGNATURE_V1 if self.cosignature else ALG_ED25519
        return "%s+%s+%s" % (self.name, self.hint.hex(),
                             util.b64(bytes([alg]) + self.key.raw_public()))

    def signature_line(self, text, timestamp=0, hint=None):
        """The signature line for text; hint replaces the true key hint (a
        test's wrong hint)."""
        data = text.encode("utf-8")
        if self.cosignature:
            signed = b"cosignature/v1\ntime %d\n" % timestamp + data
            blob = struct.pack(">Q", timestamp) + self.key.sign(signed)
        else:
            blob = self.key.sign(data)
        return "%s %s %s\n" % (EM_DASH, self.name,
                               util.b64((self.hint if hint is None else hint) + blob))


def sign(text, lines):
    """A signed note: text, the blank line, then the signature lines given."""
    if not text.endswith("\n") or "\n\n" in text:
        raise ValueError("note text must end in a newline and have no blank line")
    return text + "\n" + "".join(lines)


def signer_from_private_key(skey):
    """A NoteSigner from Go's PRIVATE+KEY+name+hash+base64 signer key string
    (the form golang.org/x/mod/sumdb/note and C2SP's examples use)."""
    parts = skey.split("+", 4)
    if len(parts) != 5 or parts[:2] != ["PRIVATE", "KEY"]:
        raise ValueError("not a signer key")
    blob = util.unb64(parts[4])
    if blob[0] != ALG_ED25519 or len(blob) != 33:
        raise ValueError("not an Ed25519 signer key")
    key = SigningKey("ed25519", ed25519.Ed25519PrivateKey.from_private_bytes(blob[1:]))
    signer = NoteSigner(parts[2], key)
    if signer.hint.hex() != parts[3]:
        raise ValueError("key hash does not match the key")
    return signer


def split(note):
    """(text, [(name, hint, signature)]) of a signed note, or ValueError."""
    sep = note.rfind("\n\n")
    if sep < 0 or not note.endswith("\n"):
        raise ValueError("no blank line before the signatures")
    text, sigs = note[:sep + 1], []
    for line in note[sep + 2:].splitlines():
        if not line.startswith(EM_DASH + " "):
            raise ValueError("signature line without the em dash: %r" % line)
        name, _, blob = line[2:].partition(" ")
        raw = util.unb64(blob)
        if len(raw) < 5:
            raise ValueError("signature too short")
        sigs.append((name, raw[:4], raw[4:]))
    return text, sigs


def open_note(note, name, hint, public):
    """The text of note if it carries a valid signature by (name, hint,
    public key); ValueError otherwise.  Other signatures are ignored."""
    from .keys import verify
    text, sigs = split(note)
    for sname, shint, sig in sigs:
        if sname == name and shint == hint and verify(public, sig, text.encode()):
            return text
    raise ValueError("no valid signature by %s" % name)


def checkpoint_text(origin, size, root, extra=()):
    """The body of a C2SP checkpoint: origin, size, base64 root, extension
    lines."""
    return "%s\n%d\n%s\n" % (origin, size, util.b64(root)) + "".join(
        line + "\n" for line in extra)
